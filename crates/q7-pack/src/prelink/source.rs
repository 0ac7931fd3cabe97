//! What the prelinker was given, reduced to one cleaned ELF image and its
//! rebase table (or a UCPL file, which can only be rebound in place).

use std::borrow::Cow;

use q7_elf::consts::*;
use q7_elf::{ElfFile, Endian, Header};

use super::error::{PrelinkError, Result};
use super::ucpl::{self, Ucpl, UcplView};
use crate::{embedded_image, RebaseTable, StripOptions};

/// The kinds of input `prelink` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// An image that carries `.q7.rebase` (what `q7 pack -s` saves).
    Cleaned,
    /// A linked image with the static relocations of `ld -q`: cleaned here
    /// exactly as `q7 pack` would, which turns them into the rebase table.
    Linked,
    /// An image with neither: it can only stay at its link base.
    NoRelocations,
    /// A UCPL file: it can only be rebound in place (another core id of a
    /// window at the same base).
    Ucpl,
}

impl InputKind {
    pub fn describe(self) -> &'static str {
        match self {
            InputKind::Cleaned => "cleaned image with .q7.rebase",
            InputKind::Linked => "linked image with static relocations",
            InputKind::NoRelocations => "image without relocations",
            InputKind::Ucpl => "UCPL image",
        }
    }
}

pub(crate) enum Source<'a> {
    Elf(ElfSource<'a>),
    Ucpl(UcplView<'a>),
}

pub(crate) struct ElfSource<'a> {
    pub image: Cow<'a, [u8]>,
    pub table: Option<RebaseTable>,
    pub kind: InputKind,
    /// Whether the image came out of a packed load-lib (`ET_REL`).
    pub packed: bool,
}

/// Classifies `input` and extracts the image to bind.
pub(crate) fn read<'a>(input: &'a [u8], symbol: &str) -> Result<Source<'a>> {
    if input.starts_with(&ucpl::MAGIC) {
        return Ok(Source::Ucpl(Ucpl::load(input)?));
    }
    let header = Header::parse(input)?;
    header.expect_xtensa()?;
    if header.e_type == ET_REL {
        let embedded = embedded_image(input, symbol).map_err(|e| match has_symbol(input, symbol) {
            Ok(false) => PrelinkError::NoSymbol { symbol: symbol.to_string() },
            _ => e.into(),
        })?;
        return Ok(Source::Elf(ElfSource { packed: true, ..read_image(embedded)? }));
    }
    Ok(Source::Elf(read_image(input)?))
}

fn has_symbol(object: &[u8], symbol: &str) -> Result<bool> {
    let elf = ElfFile::parse_xtensa(object)?;
    Ok(elf.symbols()?.iter().any(|s| s.name == symbol && s.is_defined()))
}

/// A linked image (EXEC): refuses what needs a dynamic loader, then takes
/// the table it carries, or makes one from its static relocations.
fn read_image(input: &[u8]) -> Result<ElfSource<'_>> {
    let elf = ElfFile::parse_xtensa(input)?;
    let h = elf.header();
    if h.e_type != ET_EXEC {
        return Err(PrelinkError::NotAnImage(type_label(h.e_type)));
    }
    if h.endian != Endian::Little {
        return Err(PrelinkError::BigEndian);
    }
    check_static(&elf)?;
    if let Some(table) = RebaseTable::of_image(&elf)? {
        return Ok(ElfSource {
            image: Cow::Borrowed(input),
            table: Some(table),
            kind: InputKind::Cleaned,
            packed: false,
        });
    }
    if elf.relocation_sections().any(|s| !s.is_alloc()) {
        // The packer's own path, so that prelinking name.so and name.packed.so
        // give the same bytes.
        let cleaned = crate::strip_image(input, &StripOptions::default(), &mut std::io::sink())?;
        let table = RebaseTable::of_image(&ElfFile::parse(&cleaned)?)?;
        return Ok(ElfSource { image: Cow::Owned(cleaned), table, kind: InputKind::Linked, packed: false });
    }
    Ok(ElfSource { image: Cow::Borrowed(input), table: None, kind: InputKind::NoRelocations, packed: false })
}

/// No GOT and no dynamic relocations: nothing a whole-image move cannot fix.
fn check_static(elf: &ElfFile) -> Result<()> {
    for s in elf.sections() {
        if matches!(&*s.name, ".got" | ".got.plt" | ".got.loc") && s.size > 0 {
            return Err(PrelinkError::HasGot { index: s.index, name: s.name.to_string(), size: s.size });
        }
        if s.is_alloc() && matches!(s.sh_type, SHT_REL | SHT_RELA) && s.size > 0 {
            return Err(PrelinkError::DynamicRelocations { index: s.index, name: s.name.to_string() });
        }
    }
    Ok(())
}

fn type_label(e_type: u16) -> &'static str {
    match e_type {
        ET_REL => "REL (relocatable object)",
        ET_DYN => "DYN (shared object or PIE)",
        ET_CORE => "CORE (core dump)",
        other => type_name(other),
    }
}
