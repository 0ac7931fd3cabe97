//! The reader: [`ElfFile::parse`] validates every table against the file once,
//! then hands out borrowed views.

mod header;
mod section;
mod symbol;

use std::borrow::Cow;

pub use header::Header;
pub use section::{ProgramHeader, Section};
pub use symbol::{Reloc, Symbol};

use crate::consts::*;
use crate::endian::FieldReader;
use crate::error::{slice, table_out_of_range, Error, Result};
use crate::Endian;

/// A validated ELF32 file borrowed from a byte slice.
#[derive(Clone, Debug)]
pub struct ElfFile<'a> {
    data: &'a [u8],
    header: Header,
    segments: Vec<ProgramHeader>,
    sections: Vec<Section<'a>>,
}

impl<'a> ElfFile<'a> {
    /// Parses an ELF32 file of any machine, either byte order.
    pub fn parse(data: &'a [u8]) -> Result<ElfFile<'a>> {
        let header = Header::parse(data)?;
        let segments = parse_segments(data, &header)?;
        let sections = parse_sections(data, &header)?;
        check_overlaps(&sections)?;
        Ok(ElfFile { data, header, segments, sections })
    }

    /// Parses and also requires `e_machine == EM_XTENSA`.
    pub fn parse_xtensa(data: &'a [u8]) -> Result<ElfFile<'a>> {
        let header = Header::parse(data)?;
        header.expect_xtensa()?;
        Self::parse(data)
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn endian(&self) -> Endian {
        self.header.endian
    }

    pub fn segments(&self) -> &[ProgramHeader] {
        &self.segments
    }

    pub fn load_segments(&self) -> impl Iterator<Item = &ProgramHeader> {
        self.segments.iter().filter(|p| p.is_load())
    }

    /// All sections including the null section at index 0.
    pub fn sections(&self) -> &[Section<'a>] {
        &self.sections
    }

    pub fn section(&self, index: usize) -> Option<&Section<'a>> {
        self.sections.get(index)
    }

    pub fn section_by_name(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// Allocated sections in address order (ties keep table order).
    pub fn alloc_sections(&self) -> Vec<&Section<'a>> {
        let mut v: Vec<_> = self.sections.iter().filter(|s| s.is_alloc()).collect();
        v.sort_by_key(|s| s.addr);
        v
    }

    /// The file offset that holds virtual address `va`, found through the
    /// loadable segments first and the allocated sections second (sections
    /// whose address and offset differ, such as `.data` in a separately
    /// placed segment, map correctly either way).
    pub fn vaddr_to_offset(&self, va: u32) -> Option<u32> {
        for p in self.load_segments() {
            if va >= p.vaddr && (va as u64) < p.vaddr as u64 + p.filesz as u64 {
                return Some(p.offset + (va - p.vaddr));
            }
        }
        self.sections
            .iter()
            .filter(|s| s.has_file_bytes() && s.contains_vaddr(va))
            .map(|s| s.offset + (va - s.addr))
            .next()
    }

    /// The virtual address that file offset `off` is loaded at, if any.
    pub fn offset_to_vaddr(&self, off: u32) -> Option<u32> {
        for p in self.load_segments() {
            if off >= p.offset && (off as u64) < p.offset as u64 + p.filesz as u64 {
                return Some(p.vaddr + (off - p.offset));
            }
        }
        self.sections
            .iter()
            .filter(|s| s.has_file_bytes() && s.is_alloc())
            .find(|s| off >= s.offset && (off as u64) < s.offset as u64 + s.size as u64)
            .map(|s| s.addr + (off - s.offset))
    }

    /// Reads a 32-bit word at virtual address `va` in the file's byte order.
    pub fn read_u32_at(&self, va: u32) -> Option<u32> {
        let off = self.vaddr_to_offset(va)? as u64;
        let b = slice(self.data, off, 4, &String::new).ok()?;
        Some(self.endian().u32([b[0], b[1], b[2], b[3]]))
    }

    /// Symbols of the first `SHT_SYMTAB` section, or of `.dynsym` if the
    /// file has no static symbol table; empty when stripped.
    pub fn symbols(&self) -> Result<Vec<Symbol<'a>>> {
        let table = self
            .sections
            .iter()
            .find(|s| s.sh_type == SHT_SYMTAB)
            .or_else(|| self.sections.iter().find(|s| s.sh_type == SHT_DYNSYM));
        match table {
            Some(t) => self.symbols_of(t),
            None => Ok(Vec::new()),
        }
    }

    /// Symbols of a given symbol-table section.
    pub fn symbols_of(&self, table: &Section<'a>) -> Result<Vec<Symbol<'a>>> {
        let bad = |problem: String| Error::BadSection { index: table.index, name: table.name.to_string(), problem };
        if !(table.size as usize).is_multiple_of(SYM_SIZE) {
            return Err(bad(format!("size {:#x} is not a multiple of the 16-byte symbol size", table.size)));
        }
        let strtab =
            self.section(table.link as usize).ok_or_else(|| bad(format!("sh_link {} names no section", table.link)))?;
        let mut out = Vec::with_capacity(table.data().len() / SYM_SIZE);
        for (i, chunk) in table.data().chunks_exact(SYM_SIZE).enumerate() {
            let r = FieldReader { bytes: chunk, endian: self.endian() };
            let (name_off, mut sym) = Symbol::parse_raw(&r, i);
            sym.name = c_str(strtab.data(), name_off)
                .ok_or_else(|| bad(format!("symbol {i} name offset {name_off:#x} is outside {}", strtab.name)))?;
            out.push(sym);
        }
        Ok(out)
    }

    /// The entries of a `SHT_REL`/`SHT_RELA` section.
    pub fn relocations(&self, table: &Section<'a>) -> Result<Vec<Reloc>> {
        let rela = match table.sh_type {
            SHT_RELA => true,
            SHT_REL => false,
            _ => {
                return Err(Error::BadSection {
                    index: table.index,
                    name: table.name.to_string(),
                    problem: "is not a relocation section".into(),
                })
            }
        };
        let size = if rela { RELA_SIZE } else { REL_SIZE };
        if !table.data().len().is_multiple_of(size) {
            return Err(Error::BadSection {
                index: table.index,
                name: table.name.to_string(),
                problem: format!("size {:#x} is not a multiple of the {size}-byte entry", table.size),
            });
        }
        Ok(table
            .data()
            .chunks_exact(size)
            .map(|c| Reloc::parse(&FieldReader { bytes: c, endian: self.endian() }, rela))
            .collect())
    }

    /// Relocation sections paired with the index of the section they patch.
    pub fn relocation_sections(&self) -> impl Iterator<Item = &Section<'a>> {
        self.sections.iter().filter(|s| matches!(s.sh_type, SHT_REL | SHT_RELA))
    }
}

fn c_str(table: &[u8], off: u32) -> Option<Cow<'_, str>> {
    let rest = table.get(off as usize..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    Some(String::from_utf8_lossy(&rest[..end]))
}

fn parse_segments(data: &[u8], h: &Header) -> Result<Vec<ProgramHeader>> {
    if h.phnum == 0 {
        return Ok(Vec::new());
    }
    let len = h.phnum as u64 * PHDR_SIZE as u64;
    let table = slice(data, h.phoff as u64, len, &String::new)
        .map_err(|_| Error::ProgramTable(table_out_of_range(h.phnum, h.phoff as u64, len, data.len())))?;
    let mut out = Vec::with_capacity(h.phnum as usize);
    for (i, chunk) in table.chunks_exact(PHDR_SIZE).enumerate() {
        let p = ProgramHeader::parse(&FieldReader { bytes: chunk, endian: h.endian }, i);
        let bad = |problem: String| Error::BadSegment { index: i, problem };
        if p.filesz > 0 && p.offset as u64 + p.filesz as u64 > data.len() as u64 {
            return Err(bad(format!(
                "file image {:#x}..{:#x} runs past the end of the file ({:#x} bytes)",
                p.offset,
                p.offset as u64 + p.filesz as u64,
                data.len()
            )));
        }
        if p.is_load() && p.filesz > p.memsz {
            return Err(bad(format!("p_filesz {:#x} exceeds p_memsz {:#x}", p.filesz, p.memsz)));
        }
        if p.is_load() && p.vaddr as u64 + p.memsz as u64 > 1 << 32 {
            return Err(bad(format!("{:#x} + {:#x} wraps the 32-bit address space", p.vaddr, p.memsz)));
        }
        out.push(p);
    }
    Ok(out)
}

fn parse_sections<'a>(data: &'a [u8], h: &Header) -> Result<Vec<Section<'a>>> {
    if h.shnum == 0 {
        return Ok(Vec::new());
    }
    let len = h.shnum as u64 * SHDR_SIZE as u64;
    let table = slice(data, h.shoff as u64, len, &String::new)
        .map_err(|_| Error::SectionTable(table_out_of_range(h.shnum, h.shoff as u64, len, data.len())))?;
    let mut sections = Vec::with_capacity(h.shnum as usize);
    let mut name_offsets = Vec::with_capacity(h.shnum as usize);
    for (i, chunk) in table.chunks_exact(SHDR_SIZE).enumerate() {
        let r = FieldReader { bytes: chunk, endian: h.endian };
        name_offsets.push(r.u32(0));
        sections.push(Section::parse_raw(&r, i));
    }

    // Names first, so every later complaint can name its section.
    let names: &[u8] = match h.shstrndx {
        SHN_UNDEF => &[],
        i => {
            let s = &sections[i as usize];
            if s.sh_type != SHT_STRTAB {
                return Err(Error::SectionTable(format!(
                    "e_shstrndx {i} is a {} section, not a string table",
                    section_type_name(s.sh_type)
                )));
            }
            slice(data, s.offset as u64, s.size as u64, &String::new).map_err(|_| {
                Error::SectionTable(format!(
                    "the section-name string table (section {i}) at {:#x}..{:#x} runs past the end of the file ({:#x} bytes)",
                    s.offset,
                    s.offset as u64 + s.size as u64,
                    data.len()
                ))
            })?
        }
    };
    for (s, off) in sections.iter_mut().zip(name_offsets) {
        if names.is_empty() {
            continue;
        }
        s.name = c_str(names, off).ok_or_else(|| Error::BadSection {
            index: s.index,
            name: String::new(),
            problem: format!("name offset {off:#x} is outside the section-name string table"),
        })?;
    }

    for s in &mut sections {
        let bad = |problem: String| Error::BadSection { index: s.index, name: s.name.to_string(), problem };
        if s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL {
            let end = s.offset as u64 + s.size as u64;
            if end > data.len() as u64 {
                return Err(bad(format!(
                    "data {:#x}..{end:#x} runs past the end of the file ({:#x} bytes)",
                    s.offset,
                    data.len()
                )));
            }
            s.bytes = &data[s.offset as usize..end as usize];
        }
        if s.is_alloc() && s.addr as u64 + s.size as u64 > 1 << 32 {
            return Err(bad(format!("{:#x} + {:#x} wraps the 32-bit address space", s.addr, s.size)));
        }
    }
    Ok(sections)
}

/// Two sections whose file bytes overlap mean a lying header: refuse them
/// rather than report one section's bytes as another's.
fn check_overlaps(sections: &[Section]) -> Result<()> {
    let mut spans: Vec<&Section> = sections.iter().filter(|s| s.has_file_bytes()).collect();
    spans.sort_by_key(|s| (s.offset, s.index));
    for pair in spans.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let a_end = a.offset as u64 + a.size as u64;
        if (b.offset as u64) < a_end {
            return Err(Error::Overlap {
                a: a.index,
                a_name: a.name.to_string(),
                b: b.index,
                b_name: b.name.to_string(),
                start: b.offset as u64,
                end: a_end.min(b.offset as u64 + b.size as u64),
            });
        }
    }
    Ok(())
}
