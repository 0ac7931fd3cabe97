use serde::Serialize;

use crate::consts::*;
use crate::endian::FieldReader;
use crate::error::{slice, Error, Result};
use crate::Endian;

/// The ELF32 file header, decoded in the file's byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Header {
    pub endian: Endian,
    pub os_abi: u8,
    pub e_type: u16,
    pub machine: u16,
    pub version: u32,
    pub entry: u32,
    pub phoff: u32,
    pub shoff: u32,
    pub flags: u32,
    pub ehsize: u16,
    pub phentsize: u16,
    pub phnum: u16,
    pub shentsize: u16,
    pub shnum: u16,
    pub shstrndx: u16,
}

impl Header {
    /// Decodes and sanity-checks the header at the start of `data`.
    pub fn parse(data: &[u8]) -> Result<Header> {
        if data.is_empty() {
            return Err(Error::Empty);
        }
        let magic = &data[..data.len().min(4)];
        if magic != ELFMAG {
            return Err(Error::BadMagic(magic.to_vec()));
        }
        let ident = slice(data, 0, 16, &|| "e_ident".into())?;
        match ident[4] {
            ELFCLASS32 => {}
            ELFCLASS64 => return Err(Error::WrongClass("ELFCLASS64 (64-bit)".into())),
            other => return Err(Error::WrongClass(format!("unknown class {other}"))),
        }
        let endian = match ident[5] {
            1 => Endian::Little,
            2 => Endian::Big,
            other => return Err(Error::BadEncoding(other)),
        };
        if ident[6] != EV_CURRENT {
            return Err(Error::BadHeader(format!("e_ident version {} (expected 1)", ident[6])));
        }
        let bytes = slice(data, 0, EHDR_SIZE as u64, &|| "ELF32 header".into())?;
        let r = FieldReader { bytes, endian };
        let h = Header {
            endian,
            os_abi: r.u8(7),
            e_type: r.u16(16),
            machine: r.u16(18),
            version: r.u32(20),
            entry: r.u32(24),
            phoff: r.u32(28),
            shoff: r.u32(32),
            flags: r.u32(36),
            ehsize: r.u16(40),
            phentsize: r.u16(42),
            phnum: r.u16(44),
            shentsize: r.u16(46),
            shnum: r.u16(48),
            shstrndx: r.u16(50),
        };
        if (h.ehsize as usize) < EHDR_SIZE {
            return Err(Error::BadHeader(format!("e_ehsize {} is smaller than 52", h.ehsize)));
        }
        if h.phnum > 0 && h.phentsize as usize != PHDR_SIZE {
            return Err(Error::BadHeader(format!("e_phentsize {} (ELF32 program headers are 32 bytes)", h.phentsize)));
        }
        if h.shnum > 0 && h.shentsize as usize != SHDR_SIZE {
            return Err(Error::BadHeader(format!("e_shentsize {} (ELF32 section headers are 40 bytes)", h.shentsize)));
        }
        if h.shnum == 0 && h.shoff != 0 {
            return Err(Error::SectionTable(
                "e_shnum is 0 with a non-zero e_shoff (extended section numbering is not supported)".into(),
            ));
        }
        if h.shstrndx == SHN_XINDEX {
            return Err(Error::SectionTable("e_shstrndx uses SHN_XINDEX (extended numbering is not supported)".into()));
        }
        if h.shnum > 0 && h.shstrndx != SHN_UNDEF && h.shstrndx >= h.shnum {
            return Err(Error::SectionTable(format!("e_shstrndx {} is not below e_shnum {}", h.shstrndx, h.shnum)));
        }
        Ok(h)
    }

    /// Byte size of the whole file as the header describes it: the end of the
    /// section header table (the rule that carves embedded images: docs/FACTS.md, "Carve by ELF magic").
    pub fn declared_size(&self) -> u64 {
        let sh_end = self.shoff as u64 + self.shentsize as u64 * self.shnum as u64;
        let ph_end = self.phoff as u64 + self.phentsize as u64 * self.phnum as u64;
        sh_end.max(ph_end).max(EHDR_SIZE as u64)
    }

    /// Requires `e_machine` to be Xtensa.
    pub fn expect_xtensa(&self) -> Result<()> {
        if self.machine == EM_XTENSA {
            Ok(())
        } else {
            Err(Error::WrongMachine { num: self.machine, name: machine_name(self.machine) })
        }
    }
}
