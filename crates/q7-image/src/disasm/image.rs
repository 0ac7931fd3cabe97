//! What a listing reads: the regions (sections, or one region for raw
//! bytes), their labels, and literal words.

use std::borrow::Cow;

use q7_elf::consts::*;
use q7_elf::{ElfFile, Endian};

use super::props::{blocks_for, PropBlock, TableKind};
use super::symbols::{is_label, Labels, SymbolicName};
use super::DisasmError;

/// Where a section's instruction boundaries came from (reported in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundarySource {
    /// The `.xt.prop` property table.
    PropertyTable,
    /// The `.xt.lit` literal table (no property table).
    LiteralTable,
    /// Branch, jump, loop and call targets and `l32r` literals found by a first sweep.
    Targets,
}

impl BoundarySource {
    pub fn name(self) -> &'static str {
        match self {
            BoundarySource::PropertyTable => "xt.prop",
            BoundarySource::LiteralTable => "xt.lit",
            BoundarySource::Targets => "targets",
        }
    }
}

/// Name of the single region of a raw (non-ELF) input.
pub const RAW_REGION: &str = "raw";

/// Where the bytes came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// An ELF file of this `e_type`.
    Elf { e_type: u16 },
    /// Raw code (a carved blob, a dump) loaded at `base`.
    Raw { base: u32 },
}

/// A section of an ELF file, or the whole of a raw input.
#[derive(Clone, Debug)]
pub struct Region<'a> {
    pub name: Cow<'a, str>,
    pub addr: u32,
    /// `sh_size`; can exceed `bytes.len()` only for `NOBITS` sections.
    pub size: u32,
    pub bytes: &'a [u8],
    pub alloc: bool,
    pub exec: bool,
    pub labels: Labels<'a>,
    /// The property (or literal) table's blocks for this section, if any.
    pub blocks: Option<Vec<PropBlock>>,
    /// Where the listing's instruction boundaries come from (besides labels).
    pub boundaries: BoundarySource,
}

impl Region<'_> {
    /// One past the last address (64-bit: a non-allocated section's header
    /// may place it anywhere).
    pub fn end(&self) -> u64 {
        u64::from(self.addr) + u64::from(self.size)
    }

    pub fn contains(&self, addr: u32) -> bool {
        addr >= self.addr && u64::from(addr) < self.end()
    }

    /// Code sections are listed by default: allocated, executable, with bytes.
    pub fn is_code(&self) -> bool {
        self.alloc && self.exec && !self.bytes.is_empty()
    }

    /// `addr` (inside the region) as the nearest label at or below it, or as
    /// an offset from the region's start when no label precedes it.
    pub fn name_of(&self, addr: u32) -> SymbolicName<'_> {
        match self.labels.at_or_before(addr) {
            Some((at, base)) => SymbolicName { base, offset: addr - at },
            None => SymbolicName { base: &self.name, offset: addr.wrapping_sub(self.addr) },
        }
    }
}

/// A loaded input.
#[derive(Clone, Debug)]
pub struct Image<'a> {
    pub source: Source,
    pub regions: Vec<Region<'a>>,
    elf: Option<ElfFile<'a>>,
    raw: &'a [u8],
}

impl<'a> Image<'a> {
    /// Parses `data`: an ELF when it starts with `\x7fELF` (any problem is an
    /// error), otherwise raw code loaded at `base` (default 0). With
    /// `use_symbols` false the symbol table is ignored.
    pub fn load(data: &'a [u8], base: Option<u32>, use_symbols: bool) -> Result<Image<'a>, DisasmError> {
        if data.is_empty() {
            return Err(DisasmError::Empty);
        }
        if !data.starts_with(b"\x7fELF") {
            return Ok(Image::raw(data, base.unwrap_or(0)));
        }
        if base.is_some() {
            return Err(DisasmError::BaseOnElf);
        }
        let elf = ElfFile::parse_xtensa(data)?;
        if elf.endian() == Endian::Big {
            return Err(DisasmError::BigEndian);
        }
        Image::elf(elf, use_symbols)
    }

    fn raw(data: &'a [u8], base: u32) -> Image<'a> {
        // Addresses are 32 bits: bytes that would wrap past 0xffffffff are not listed.
        let room = (1u64 << 32) - u64::from(base);
        let bytes = &data[..data.len().min(room.min(u64::from(u32::MAX)) as usize)];
        let region = Region {
            name: Cow::Borrowed(RAW_REGION),
            addr: base,
            size: bytes.len() as u32,
            bytes,
            alloc: true,
            exec: true,
            labels: Labels::default(),
            blocks: None,
            boundaries: BoundarySource::Targets,
        };
        Image { source: Source::Raw { base }, regions: vec![region], elf: None, raw: bytes }
    }

    fn elf(elf: ElfFile<'a>, use_symbols: bool) -> Result<Image<'a>, DisasmError> {
        let relocatable = elf.header().e_type == ET_REL;
        let mut regions: Vec<Region<'a>> = elf
            .sections()
            .iter()
            .map(|s| {
                // Only code sections are swept; their tables are read once here.
                let table = (s.is_alloc() && s.is_exec()).then(|| blocks_for(&elf, s.index)).flatten();
                let boundaries = match table.as_ref().map(|t| t.1) {
                    None => BoundarySource::Targets,
                    Some(TableKind::Prop) => BoundarySource::PropertyTable,
                    Some(TableKind::Lit) => BoundarySource::LiteralTable,
                };
                Region {
                    name: s.name.clone(),
                    addr: s.addr,
                    size: s.size,
                    bytes: s.data(),
                    alloc: s.is_alloc(),
                    exec: s.is_exec(),
                    labels: Labels::default(),
                    blocks: table.map(|t| t.0),
                    boundaries,
                }
            })
            .collect();
        if use_symbols {
            // Candidates are (address, index into `symbols`): small to sort.
            let symbols = elf.symbols()?;
            let mut candidates: Vec<Vec<(u32, usize)>> = vec![Vec::new(); regions.len()];
            for (i, symbol) in symbols.iter().enumerate() {
                let index = usize::from(symbol.shndx);
                if !is_label(symbol) || index == 0 || symbol.shndx >= SHN_LORESERVE || index >= regions.len() {
                    continue;
                }
                let region = &regions[index];
                // In a relocatable object a symbol's value is an offset into its section.
                let addr = if relocatable { region.addr.checked_add(symbol.value) } else { Some(symbol.value) };
                if let Some(addr) = addr.filter(|&a| region.contains(a)) {
                    candidates[index].push((addr, i));
                }
            }
            for (region, list) in regions.iter_mut().zip(candidates) {
                region.labels = Labels::from_candidates(&symbols, list);
            }
        }
        let source = Source::Elf { e_type: elf.header().e_type };
        Ok(Image { source, regions, elf: Some(elf), raw: &[] })
    }

    /// Whether addresses are load addresses shared by all sections (an
    /// executable, a shared object or raw bytes), so that a target may be
    /// named from another section and literal words can be read. In a
    /// relocatable object every section starts at 0 and PC-relative operands
    /// are unrelocated, so neither holds.
    pub fn is_linked(&self) -> bool {
        self.source != Source::Elf { e_type: ET_REL }
    }

    /// A name for `addr` seen from code in `current`: inside `current`
    /// first, then (linked images) the allocated section holding it.
    pub fn name_of<'s>(&'s self, addr: u32, current: &'s Region) -> Option<SymbolicName<'s>> {
        if current.contains(addr) {
            return Some(current.name_of(addr));
        }
        if !self.is_linked() {
            return None;
        }
        self.regions.iter().find(|r| r.alloc && r.contains(addr)).map(|r| r.name_of(addr))
    }

    /// The 32-bit word an `l32r` at `addr` would load, when the image holds
    /// those bytes (never for relocatable objects).
    pub fn literal_at(&self, addr: u32) -> Option<u32> {
        match (&self.source, &self.elf) {
            (Source::Raw { base }, _) => {
                let start = usize::try_from(addr.checked_sub(*base)?).ok()?;
                let word = self.raw.get(start..start.checked_add(4)?)?;
                Some(u32::from_le_bytes(word.try_into().ok()?))
            }
            (Source::Elf { .. }, Some(elf)) if self.is_linked() => elf.read_u32_at(addr),
            _ => None,
        }
    }

    /// One line describing the input, for listing headers.
    pub fn describe(&self) -> String {
        match self.source {
            Source::Elf { e_type } => format!("ELF32 little-endian {}, Tensilica Xtensa", type_name(e_type)),
            Source::Raw { base } => format!("raw code, {} bytes at {base:#010x}", self.raw.len()),
        }
    }
}
