use std::borrow::Cow;

use serde::Serialize;

use crate::consts::*;
use crate::endian::FieldReader;

/// One `Elf32_Sym` with its name resolved through the linked string table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol<'a> {
    pub index: usize,
    pub name: Cow<'a, str>,
    pub value: u32,
    pub size: u32,
    pub info: u8,
    pub other: u8,
    pub shndx: u16,
}

impl Symbol<'_> {
    pub(crate) fn parse_raw(r: &FieldReader, index: usize) -> (u32, Symbol<'static>) {
        let name_off = r.u32(0);
        let sym = Symbol {
            index,
            name: Cow::Borrowed(""),
            value: r.u32(4),
            size: r.u32(8),
            info: r.u8(12),
            other: r.u8(13),
            shndx: r.u16(14),
        };
        (name_off, sym)
    }

    pub fn bind(&self) -> u8 {
        self.info >> 4
    }

    pub fn kind(&self) -> u8 {
        self.info & 0xf
    }

    pub fn is_global(&self) -> bool {
        matches!(self.bind(), STB_GLOBAL | STB_WEAK)
    }

    pub fn is_defined(&self) -> bool {
        self.shndx != SHN_UNDEF
    }
}

/// One relocation entry; `addend` is 0 for `SHT_REL` tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Reloc {
    pub offset: u32,
    pub symbol: u32,
    pub r_type: u8,
    pub addend: i32,
}

impl Reloc {
    pub(crate) fn parse(r: &FieldReader, rela: bool) -> Reloc {
        let info = r.u32(4);
        Reloc {
            offset: r.u32(0),
            symbol: info >> 8,
            r_type: (info & 0xff) as u8,
            addend: if rela { r.u32(8) as i32 } else { 0 },
        }
    }
}
