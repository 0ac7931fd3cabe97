//! `q7-pack`: a native `xt-pkg-loadlib` (docs/FORMATS.md, "Packed load-lib"). It turns a linked
//! Xtensa image (`name.so`) into
//!
//! * the **cleaned image** (`name.stripped.so`, `-s`): the input with only
//!   its loadable content, and
//! * the **packed load-lib** (`name.packed.so`, `-o`): a relocatable ELF32
//!   Xtensa object whose `.rodata` holds the cleaned image as one blob, with
//!   the global symbol `lib_func` (`-e`) at its first byte.
//!
//! Everything happens in memory; no tool is run.
//!
//! ## Steps ([`strip_image`], then [`wrap_as_object`])
//!
//! 1. **strip**: drop every section that is not loaded (`SHF_ALLOC` clear):
//!    symbol and string tables, static relocations, debug information,
//!    `.comment`, notes, Xtensa property tables.
//! 2. **clean**: drop `.xtensa.info .xt.lit .xt.prop* .interp .got.loc .got`;
//!    without `-l` also `.hash .dynstr .dynsym .rela.plt`; then every empty
//!    section. ([`clean::fates`] decides, with a reason per section.)
//! 3. **save**: write the result. Loadable bytes keep their file offsets,
//!    program headers are unchanged, bytes of removed sections that sit
//!    inside a segment are zero-filled (as `objcopy` does), and the section
//!    table is rebuilt ([`rewrite`]). The words a prelinker must patch to move
//!    the image go to a non-loadable `.q7.rebase` section ([`rebase`], which
//!    documents the format).
//! 4. **wrap**: embed the image as `.rodata` (4-byte aligned) of an `ET_REL`
//!    object in the input's byte order, `e_flags` 0x300, `lib_func` global.
//!
//! ## The page-size path (`-p PAGESIZE`)
//!
//! xt-pkg-loadlib's `-p` keeps a PIE's page-alignment metadata instead of the
//! default "overlay" layout. q7 defines it as: every `PT_LOAD` gets
//! `p_align = max(PAGESIZE, p_align)` and a file offset congruent to its
//! address modulo that alignment: one with file bytes moves them forward
//! (zero padding) when the input's offset is not congruent, one without
//! (`.bss`) just gets `p_offset = p_vaddr mod p_align`; so a loader can map the
//! image page by page. Other program headers follow the bytes they describe.
//! Everything else (sections kept, rebase table, the packed object) is the
//! same as without `-p`. A segment that holds the ELF header cannot move, so
//! it must already be aligned. PAGESIZE is a power of two from 4 to 1 MiB.
//! Without `-p`, q7 never moves a byte: offsets and program headers are the
//! input's.
//!
//! ## Deliberate differences from the binutils recipe
//!
//! The loadable content (section names, addresses, flags, bytes) and the
//! program headers of the embedded image are the same as the recipe's
//! (`xt-strip`, `xt-objcopy --remove-section`, `--add-section libdata=`,
//! `xt-ld -r -T`); what differs is non-loadable:
//!
//! * the cleaned image carries `.q7.rebase` when the input had static
//!   relocations (`ld -q`), and drops every non-loaded section, where `strip`
//!   keeps `.comment` and `.xt.prop.<function>` tables;
//! * the packed object holds only `.rodata`, `.symtab`, `.strtab` and
//!   `.shstrtab`: no empty `.text`/`.data`/`.bss`, no `.xtensa.info` and no
//!   `.xt.prop` that GNU `as` adds to its objects;
//! * `lib_func` is an `STT_OBJECT` whose size is the blob's (the recipe's is
//!   `NOTYPE`, size 0), so `objdump -t` shows how much the blob holds.
//!
//! A [`recipe`] module runs the same packaging with GNU binutils; tests and
//! the benchmark compare against it. q7 itself never calls it.
#![forbid(unsafe_code)]

pub mod clean;
mod error;
mod log;
pub mod prelink;
pub mod rebase;
pub mod recipe;
pub mod rewrite;
mod wrap;

#[cfg(test)]
mod tests;

use std::io::Write;

use q7_elf::consts::*;
use q7_elf::ElfFile;

pub use error::{PackError, Result};
pub use rebase::RebaseTable;
pub use wrap::{check_symbol_name, embedded_image, wrap_as_object, BLOB_ALIGN, DEFAULT_SYMBOL};

use clean::{Fate, Removal};
use log::Log;

/// Page sizes `-p` accepts.
pub const MIN_PAGE_SIZE: u32 = 4;
pub const MAX_PAGE_SIZE: u32 = 1 << 20;

/// Options of steps 1–3 (`q7 strip`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StripOptions {
    /// `-p`: page-align the loadable segments (see the crate docs).
    pub page_size: Option<u32>,
    /// `-l`: keep the dynamic symbol lookup tables.
    pub keep_symbol_lookup: bool,
}

/// Options of the whole packager (`q7 pack`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackOptions {
    /// `-e`: the symbol at the blob's first byte.
    pub symbol: String,
    pub strip: StripOptions,
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions { symbol: DEFAULT_SYMBOL.to_string(), strip: StripOptions::default() }
    }
}

/// Both outputs of [`pack`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    /// The cleaned image (`-s`).
    pub stripped: Vec<u8>,
    /// The relocatable load-lib object (`-o`).
    pub packed: Vec<u8>,
}

/// Strips, cleans and wraps `input`; narrates each step to `log`.
pub fn pack(input: &[u8], opts: &PackOptions, log: &mut dyn Write) -> Result<Packed> {
    check_symbol_name(&opts.symbol)?;
    let stripped = strip_image(input, &opts.strip, log)?;
    let endian = q7_elf::Header::parse(&stripped)?.endian;
    let packed = wrap_as_object(&stripped, endian, &opts.symbol)?;
    Log::new(log).line(format_args!(
        "pack: {} bytes as .rodata of a relocatable object under global `{}`: {} bytes",
        stripped.len(),
        opts.symbol,
        packed.len()
    ));
    Ok(Packed { stripped, packed })
}

/// Steps 1–3: the cleaned image of a linked Xtensa image.
pub fn strip_image(input: &[u8], opts: &StripOptions, log: &mut dyn Write) -> Result<Vec<u8>> {
    let mut log = Log::new(log);
    if let Some(page) = opts.page_size {
        if !page.is_power_of_two() || !(MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&page) {
            let problem = format!("must be a power of two from {MIN_PAGE_SIZE} to {MAX_PAGE_SIZE:#x}");
            return Err(PackError::PageAlign { page, problem });
        }
    }
    let elf = ElfFile::parse_xtensa(input)?;
    check_linked(&elf)?;
    let h = elf.header();
    log.line(format_args!(
        "input: {} bytes, ELF32 {} {}, {} sections, {} program headers",
        input.len(),
        h.endian.name(),
        type_name(h.e_type),
        elf.sections().len(),
        elf.segments().len()
    ));

    let fates = clean::fates(&elf, opts.keep_symbol_lookup);
    log_fates(&elf, &fates, &mut log);
    let table = rebase_table(&elf, &fates, &mut log)?;
    let extra: Vec<(&str, Vec<u8>)> = table.iter().map(|t| (rebase::SECTION_NAME, t.encode(elf.endian()))).collect();

    let pieces = rewrite::plan(&elf, &fates, opts.page_size)?;
    let out = rewrite::write(&elf, &fates, &pieces, opts.page_size, &extra, &mut log)?;
    log.line(format_args!("cleaned image: {} -> {} bytes", input.len(), out.len()));
    Ok(out)
}

/// Only a linked image has something to load.
fn check_linked(elf: &ElfFile) -> Result<()> {
    let e_type = elf.header().e_type;
    if e_type != ET_EXEC && e_type != ET_DYN {
        let name = match e_type {
            ET_REL => "REL (relocatable object)",
            ET_CORE => "CORE (core dump)",
            _ => type_name(e_type),
        };
        return Err(PackError::NotLinked { e_type, name });
    }
    if !elf.load_segments().any(|p| p.filesz > 0) {
        return Err(PackError::NothingToLoad);
    }
    Ok(())
}

fn log_fates(elf: &ElfFile, fates: &[Fate], log: &mut Log) {
    // Strip removals first, then the clean step's, as the recipe runs them.
    for step in ["strip", "clean"] {
        for (s, fate) in elf.sections().iter().zip(fates) {
            if let Fate::Removed(why) = fate {
                if why.step() == step {
                    let size = if why == &Removal::Empty { String::new() } else { format!(", {:#x} bytes", s.size) };
                    let kind = section_type_name(s.sh_type);
                    log.line(format_args!("{step}: remove [{}] {} ({kind}{size}): {}", s.index, s.name, why.why()));
                }
            }
        }
    }
    let kept: Vec<&str> = elf
        .sections()
        .iter()
        .zip(fates)
        .filter(|(s, f)| s.index > 0 && **f == Fate::Keep)
        .map(|(s, _)| &*s.name)
        .collect();
    log.line(format_args!("keep: {}", kept.join(" ")));
}

/// The rebase table from the input's static relocations, or the one an
/// already cleaned input carries, or none.
fn rebase_table(elf: &ElfFile, fates: &[Fate], log: &mut Log) -> Result<Option<RebaseTable>> {
    if let Some((table, stats)) = RebaseTable::from_relocations(elf, &|i| fates.get(i) == Some(&Fate::Keep))? {
        log.line(format_args!(
            "rebase: {} relocation tables, {} entries: {} absolute R_XTENSA_32 words to patch when the image moves \
             ({} in removed sections, {} against non-loaded sections; the rest are PC-relative or markers), \
             plus {} words of the linker script's _bss_table: {} words -> {} ({} bytes)",
            stats.tables,
            stats.entries,
            stats.absolute,
            stats.in_removed_sections,
            stats.non_allocated,
            stats.linker_table,
            table.addresses.len(),
            rebase::SECTION_NAME,
            rebase::HEADER_SIZE + 4 * table.addresses.len()
        ));
        return Ok(Some(table));
    }
    let carried = RebaseTable::of_image(elf)?;
    match &carried {
        Some(t) => log.line(format_args!(
            "rebase: input already carries {} with {} words: kept",
            rebase::SECTION_NAME,
            t.addresses.len()
        )),
        None => log.line(format_args!(
            "rebase: no static relocations (image not linked with -q): no {} section",
            rebase::SECTION_NAME
        )),
    }
    Ok(carried)
}

#[cfg(test)]
extern crate self as q7_pack;
#[cfg(test)]
mod testsuite;
