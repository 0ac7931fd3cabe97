//! A small ELF32 writer for relocatable objects and executable images in
//! either byte order: sections with data, a symbol table, RELA tables and
//! optional program headers. The packer builds `.packed.so` with it and the
//! tests build big-endian inputs with it (no installed tool makes them).

use crate::consts::*;
use crate::Endian;

/// Handle of a section added to an [`ElfBuilder`] (its final section index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionId(pub usize);

/// Handle of a symbol added to an [`ElfBuilder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolId(pub usize);

#[derive(Clone, Debug)]
pub struct NewSection {
    pub name: String,
    pub sh_type: u32,
    pub flags: u32,
    pub addr: u32,
    pub align: u32,
    /// File bytes; for `SHT_NOBITS` only `nobits_size` counts.
    pub data: Vec<u8>,
    pub nobits_size: u32,
    pub relocs: Vec<NewReloc>,
}

impl NewSection {
    pub fn progbits(name: &str, flags: u32, addr: u32, align: u32, data: Vec<u8>) -> NewSection {
        NewSection {
            name: name.into(),
            sh_type: SHT_PROGBITS,
            flags,
            addr,
            align,
            data,
            nobits_size: 0,
            relocs: Vec::new(),
        }
    }

    pub fn nobits(name: &str, flags: u32, addr: u32, align: u32, size: u32) -> NewSection {
        NewSection {
            nobits_size: size,
            sh_type: SHT_NOBITS,
            ..NewSection::progbits(name, flags, addr, align, Vec::new())
        }
    }

    fn size(&self) -> u32 {
        if self.sh_type == SHT_NOBITS {
            self.nobits_size
        } else {
            self.data.len() as u32
        }
    }
}

#[derive(Clone, Debug)]
pub struct NewSymbol {
    pub name: String,
    pub section: Option<SectionId>,
    pub value: u32,
    pub size: u32,
    pub bind: u8,
    pub kind: u8,
}

#[derive(Clone, Copy, Debug)]
pub struct NewReloc {
    pub offset: u32,
    pub symbol: SymbolId,
    pub r_type: u8,
    pub addend: i32,
}

/// A `PT_*` entry spanning the given sections (which must be laid out in
/// address order and contiguous in the file).
#[derive(Clone, Debug)]
pub struct NewSegment {
    pub p_type: u32,
    pub flags: u32,
    pub align: u32,
    pub sections: Vec<SectionId>,
}

/// Builds one ELF32 file. Section indices start at 1 (0 is the null section).
#[derive(Clone, Debug)]
pub struct ElfBuilder {
    pub endian: Endian,
    pub e_type: u16,
    pub machine: u16,
    pub flags: u32,
    pub entry: u32,
    sections: Vec<NewSection>,
    symbols: Vec<NewSymbol>,
    segments: Vec<NewSegment>,
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("segment {0}: section {1} is not laid out after the previous section of the segment")]
    SegmentOrder(usize, String),
    #[error("image larger than 4 GiB")]
    TooLarge,
}

impl ElfBuilder {
    pub fn new(endian: Endian, e_type: u16, machine: u16) -> ElfBuilder {
        ElfBuilder {
            endian,
            e_type,
            machine,
            flags: 0,
            entry: 0,
            sections: Vec::new(),
            symbols: Vec::new(),
            segments: Vec::new(),
        }
    }

    pub fn add_section(&mut self, s: NewSection) -> SectionId {
        self.sections.push(s);
        SectionId(self.sections.len())
    }

    pub fn section_mut(&mut self, id: SectionId) -> &mut NewSection {
        &mut self.sections[id.0 - 1]
    }

    pub fn add_symbol(&mut self, s: NewSymbol) -> SymbolId {
        self.symbols.push(s);
        SymbolId(self.symbols.len())
    }

    /// Adds the `STT_SECTION` symbol for `section`.
    pub fn add_section_symbol(&mut self, section: SectionId) -> SymbolId {
        self.add_symbol(NewSymbol {
            name: String::new(),
            section: Some(section),
            value: 0,
            size: 0,
            bind: STB_LOCAL,
            kind: STT_SECTION,
        })
    }

    pub fn add_segment(&mut self, s: NewSegment) {
        self.segments.push(s);
    }

    /// Lays the file out and returns its bytes.
    pub fn build(&self) -> Result<Vec<u8>, WriteError> {
        let e = self.endian;
        let phoff = if self.segments.is_empty() { 0 } else { EHDR_SIZE };
        let mut out = vec![0u8; EHDR_SIZE + PHDR_SIZE * self.segments.len()];

        // Section data, each aligned; members of a segment keep addr - offset constant.
        let seg_of = |i: usize| self.segments.iter().position(|s| s.sections.contains(&SectionId(i + 1)));
        let mut offsets = vec![0u32; self.sections.len()];
        for (i, s) in self.sections.iter().enumerate() {
            let mut off = align_up(out.len(), s.align.max(1) as usize);
            if let Some(seg) = seg_of(i) {
                let first = self.segments[seg].sections[0].0 - 1;
                if first != i {
                    let want = offsets[first] as i64 + s.addr as i64 - self.sections[first].addr as i64;
                    if want < out.len() as i64 && s.sh_type != SHT_NOBITS {
                        return Err(WriteError::SegmentOrder(seg, s.name.clone()));
                    }
                    off = want.max(out.len() as i64) as usize;
                }
            }
            if s.sh_type == SHT_NOBITS {
                offsets[i] = off as u32;
                continue;
            }
            out.resize(off, 0);
            offsets[i] = u32::try_from(off).map_err(|_| WriteError::TooLarge)?;
            out.extend_from_slice(&s.data);
        }

        // Symbol table: null, locals, globals (ELF requires locals first).
        let mut order: Vec<usize> = (0..self.symbols.len()).collect();
        order.sort_by_key(|&i| self.symbols[i].bind != STB_LOCAL);
        let mut new_index = vec![0u32; self.symbols.len()];
        for (pos, &i) in order.iter().enumerate() {
            new_index[i] = pos as u32 + 1;
        }
        let first_global = 1 + order.iter().filter(|&&i| self.symbols[i].bind == STB_LOCAL).count();
        let mut strtab = vec![0u8];
        let mut symtab = vec![0u8; SYM_SIZE];
        for &i in &order {
            let s = &self.symbols[i];
            let name = push_str(&mut strtab, &s.name);
            symtab.extend_from_slice(&e.u32_bytes(name));
            symtab.extend_from_slice(&e.u32_bytes(s.value));
            symtab.extend_from_slice(&e.u32_bytes(s.size));
            symtab.push((s.bind << 4) | (s.kind & 0xf));
            symtab.push(0);
            let shndx = s.section.map_or(SHN_UNDEF, |id| id.0 as u16);
            symtab.extend_from_slice(&e.u16_bytes(shndx));
        }

        // Extra sections after the user's: .symtab .strtab .rela.* .shstrtab.
        let n_user = self.sections.len();
        let has_symbols = !self.symbols.is_empty() || self.sections.iter().any(|s| !s.relocs.is_empty());
        let mut extra: Vec<ExtraSection> = Vec::new();
        let symtab_index = (n_user + 1) as u32;
        if has_symbols {
            extra.push(ExtraSection {
                name: ".symtab".into(),
                sh_type: SHT_SYMTAB,
                flags: 0,
                data: symtab,
                link: symtab_index + 1,
                info: first_global as u32,
                align: 4,
                entsize: SYM_SIZE as u32,
            });
            extra.push(ExtraSection::strtab(".strtab", strtab));
        }
        for (i, s) in self.sections.iter().enumerate().filter(|(_, s)| !s.relocs.is_empty()) {
            let mut rela = Vec::with_capacity(s.relocs.len() * RELA_SIZE);
            for r in &s.relocs {
                rela.extend_from_slice(&e.u32_bytes(r.offset));
                let sym = new_index[r.symbol.0 - 1];
                rela.extend_from_slice(&e.u32_bytes((sym << 8) | r.r_type as u32));
                rela.extend_from_slice(&e.u32_bytes(r.addend as u32));
            }
            extra.push(ExtraSection {
                name: format!(".rela{}", s.name),
                sh_type: SHT_RELA,
                flags: SHF_INFO_LINK,
                data: rela,
                link: symtab_index,
                info: i as u32 + 1,
                align: 4,
                entsize: RELA_SIZE as u32,
            });
        }
        let mut shstrtab = vec![0u8];
        let user_names: Vec<u32> = self.sections.iter().map(|s| push_str(&mut shstrtab, &s.name)).collect();
        let mut extra_names: Vec<u32> = extra.iter().map(|x| push_str(&mut shstrtab, &x.name)).collect();
        extra_names.push(push_str(&mut shstrtab, ".shstrtab"));
        extra.push(ExtraSection::strtab(".shstrtab", shstrtab));
        let mut extra_offsets = Vec::with_capacity(extra.len());
        for x in &extra {
            let off = align_up(out.len(), x.align as usize);
            out.resize(off, 0);
            extra_offsets.push(off as u32);
            out.extend_from_slice(&x.data);
        }

        // Section header table.
        let shoff = align_up(out.len(), 4);
        out.resize(shoff, 0);
        out.extend_from_slice(&[0u8; SHDR_SIZE]);
        for (i, s) in self.sections.iter().enumerate() {
            let fields = [user_names[i], s.sh_type, s.flags, s.addr, offsets[i], s.size(), 0, 0, s.align, 0];
            for f in fields {
                out.extend_from_slice(&e.u32_bytes(f));
            }
        }
        for (k, x) in extra.iter().enumerate() {
            let fields = [
                extra_names[k],
                x.sh_type,
                x.flags,
                0,
                extra_offsets[k],
                x.data.len() as u32,
                x.link,
                x.info,
                x.align,
                x.entsize,
            ];
            for f in fields {
                out.extend_from_slice(&e.u32_bytes(f));
            }
        }
        let shnum = 1 + n_user + extra.len();
        if out.len() > u32::MAX as usize {
            return Err(WriteError::TooLarge);
        }

        // Program headers.
        for (k, seg) in self.segments.iter().enumerate() {
            let ids: Vec<usize> = seg.sections.iter().map(|id| id.0 - 1).collect();
            let (first, last) = (ids[0], *ids.last().unwrap_or(&ids[0]));
            let vaddr = self.sections[first].addr;
            let memsz = self.sections[last].addr + self.sections[last].size() - vaddr;
            let filesz = ids
                .iter()
                .filter(|&&i| self.sections[i].sh_type != SHT_NOBITS)
                .map(|&i| self.sections[i].addr + self.sections[i].size() - vaddr)
                .max()
                .unwrap_or(0);
            let offset = if filesz == 0 { 0 } else { offsets[first] };
            let fields = [seg.p_type, offset, vaddr, vaddr, filesz, memsz, seg.flags, seg.align];
            let at = phoff + k * PHDR_SIZE;
            for (j, f) in fields.iter().enumerate() {
                out[at + 4 * j..at + 4 * j + 4].copy_from_slice(&e.u32_bytes(*f));
            }
        }

        // File header.
        out[..4].copy_from_slice(&ELFMAG);
        out[4] = ELFCLASS32;
        out[5] = e.ident_byte();
        out[6] = EV_CURRENT;
        let mut h = Vec::with_capacity(36);
        h.extend_from_slice(&e.u16_bytes(self.e_type));
        h.extend_from_slice(&e.u16_bytes(self.machine));
        h.extend_from_slice(&e.u32_bytes(1));
        h.extend_from_slice(&e.u32_bytes(self.entry));
        h.extend_from_slice(&e.u32_bytes(phoff as u32));
        h.extend_from_slice(&e.u32_bytes(shoff as u32));
        h.extend_from_slice(&e.u32_bytes(self.flags));
        h.extend_from_slice(&e.u16_bytes(EHDR_SIZE as u16));
        h.extend_from_slice(&e.u16_bytes(if self.segments.is_empty() { 0 } else { PHDR_SIZE as u16 }));
        h.extend_from_slice(&e.u16_bytes(self.segments.len() as u16));
        h.extend_from_slice(&e.u16_bytes(SHDR_SIZE as u16));
        h.extend_from_slice(&e.u16_bytes(shnum as u16));
        h.extend_from_slice(&e.u16_bytes((shnum - 1) as u16));
        out[16..EHDR_SIZE].copy_from_slice(&h);
        Ok(out)
    }
}

/// A section the builder adds itself (symbols, strings, relocations).
struct ExtraSection {
    name: String,
    sh_type: u32,
    flags: u32,
    data: Vec<u8>,
    link: u32,
    info: u32,
    align: u32,
    entsize: u32,
}

impl ExtraSection {
    fn strtab(name: &str, data: Vec<u8>) -> ExtraSection {
        ExtraSection { name: name.into(), sh_type: SHT_STRTAB, flags: 0, data, link: 0, info: 0, align: 1, entsize: 0 }
    }
}

fn align_up(v: usize, a: usize) -> usize {
    v.div_ceil(a) * a
}

fn push_str(table: &mut Vec<u8>, s: &str) -> u32 {
    if s.is_empty() {
        return 0;
    }
    let at = table.len() as u32;
    table.extend_from_slice(s.as_bytes());
    table.push(0);
    at
}
