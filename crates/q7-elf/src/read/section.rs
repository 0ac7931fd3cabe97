use std::borrow::Cow;

use serde::Serialize;

use crate::consts::*;
use crate::endian::FieldReader;

/// One section header plus a view of its bytes (empty for `NOBITS`).
#[derive(Clone, Debug)]
pub struct Section<'a> {
    pub index: usize,
    pub name: Cow<'a, str>,
    pub sh_type: u32,
    pub flags: u32,
    pub addr: u32,
    pub offset: u32,
    pub size: u32,
    pub link: u32,
    pub info: u32,
    pub addralign: u32,
    pub entsize: u32,
    pub(crate) bytes: &'a [u8],
}

impl<'a> Section<'a> {
    pub(crate) fn parse_raw(r: &FieldReader, index: usize) -> Section<'a> {
        Section {
            index,
            name: Cow::Borrowed(""),
            sh_type: r.u32(4),
            flags: r.u32(8),
            addr: r.u32(12),
            offset: r.u32(16),
            size: r.u32(20),
            link: r.u32(24),
            info: r.u32(28),
            addralign: r.u32(32),
            entsize: r.u32(36),
            bytes: &[],
        }
    }

    /// The section's file bytes; empty for `NOBITS` and the null section.
    pub fn data(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn is_alloc(&self) -> bool {
        self.flags & SHF_ALLOC != 0
    }

    pub fn is_exec(&self) -> bool {
        self.flags & SHF_EXECINSTR != 0
    }

    pub fn is_write(&self) -> bool {
        self.flags & SHF_WRITE != 0
    }

    pub fn is_nobits(&self) -> bool {
        self.sh_type == SHT_NOBITS
    }

    /// Whether the section occupies bytes in the file.
    pub fn has_file_bytes(&self) -> bool {
        self.sh_type != SHT_NOBITS && self.sh_type != SHT_NULL && self.size > 0
    }

    /// Whether virtual address `va` falls inside this (allocated) section.
    pub fn contains_vaddr(&self, va: u32) -> bool {
        self.is_alloc() && va >= self.addr && (va as u64) < self.addr as u64 + self.size as u64
    }

    pub fn end_vaddr(&self) -> u64 {
        self.addr as u64 + self.size as u64
    }
}

/// One program header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramHeader {
    pub index: usize,
    pub p_type: u32,
    pub offset: u32,
    pub vaddr: u32,
    pub paddr: u32,
    pub filesz: u32,
    pub memsz: u32,
    pub flags: u32,
    pub align: u32,
}

impl ProgramHeader {
    pub(crate) fn parse(r: &FieldReader, index: usize) -> ProgramHeader {
        ProgramHeader {
            index,
            p_type: r.u32(0),
            offset: r.u32(4),
            vaddr: r.u32(8),
            paddr: r.u32(12),
            filesz: r.u32(16),
            memsz: r.u32(20),
            flags: r.u32(24),
            align: r.u32(28),
        }
    }

    pub fn is_load(&self) -> bool {
        self.p_type == PT_LOAD
    }

    pub fn end_vaddr(&self) -> u64 {
        self.vaddr as u64 + self.memsz as u64
    }

    /// Whether an allocated section belongs to this segment: by address for
    /// every section, and for sections with file bytes also by file offset
    /// (the rule readelf uses for its section-to-segment mapping).
    pub fn holds(&self, s: &Section) -> bool {
        if !s.is_alloc() || !self.is_load() {
            return false;
        }
        let va_in = s.addr as u64 >= self.vaddr as u64
            && s.end_vaddr() <= self.end_vaddr()
            && (s.size > 0 || (s.addr as u64) < self.end_vaddr());
        if !va_in {
            return false;
        }
        if s.is_nobits() {
            return true;
        }
        s.offset as u64 >= self.offset as u64
            && s.offset as u64 + s.size as u64 <= self.offset as u64 + self.filesz as u64
    }
}
