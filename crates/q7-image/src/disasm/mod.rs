//! `q7 disasm`: objdump-style listings of Xtensa code from ELF images,
//! relocatable objects, or raw bytes (carved blobs, dumps).
//!
//! The rules, each tested:
//!
//! * **Input.** Bytes starting with `\x7fELF` are always parsed as an ELF32
//!   Xtensa file (a malformed one is a one-line error); anything else is raw
//!   code loaded at a base address (default 0). Big-endian images are refused:
//!   the decoder reads little-endian instruction words.
//! * **Sections.** By default every allocated, executable section with bytes
//!   (raw input: the one region named [`RAW_REGION`]); empty ones list
//!   nothing, and only a file with no executable section at all is an error. [`DisasmOptions::section`]
//!   picks one section by name, executable or not. [`AddrRange`] keeps only
//!   the addresses `start..end` of the chosen sections.
//! * **Decoding.** [`q7_isa::sweep()`] under the chosen [`IsaOptions`]; with
//!   [`IsaOptions::lx_scalar`] the rule of docs/FACTS.md, "Scalar-LX length rule",
//!   applies (op0 0xe/0xf is a 3-byte instruction, resync at `retw.n`), for
//!   management-core (NCFW) code. The sweep restarts at every label (see
//!   [`walk()`]).
//! * **Boundaries.** Where the file has `.xt.prop` property tables (GNU as
//!   writes them), instructions, literal words (`.word`) and fill follow the
//!   table as GNU objdump does; without one, the sweep also restarts at every
//!   branch, jump, loop and call target and lists `l32r` literal words as
//!   `.word` (see `plan.rs`). The JSON `section` record names the source.
//! * **Symbols** (unless disabled): labels from `.symtab` (or `.dynsym`), one
//!   per address by the rank in `symbols.rs` (functions first); targets print as
//!   `0x84000040 <run_op+0x8>`, or `<.text+0x40>` without symbols. In a
//!   relocatable object only targets inside the same section are named, and
//!   no literal is read: its PC-relative operands are unrelocated.
//! * **Literals.** An `l32r` whose literal word lies in the image shows the
//!   word and its name: `; 0x840001e8 <kOps>`.
//!
//! Output goes to any [`std::io::Write`] through a [`Sink`]: [`TextSink`]
//! for the human listing, [`JsonSink`] for JSON Lines.

mod image;
mod json;
mod offsets;
mod plan;
mod props;
mod steps;
mod symbols;
mod text;
mod walk;

#[cfg(test)]
mod tests;

use std::io::{self, Write};

pub use image::{BoundarySource, Image, Region, Source, RAW_REGION};
pub use json::JsonSink;
pub use props::PropBlock;
pub use q7_isa::{self, IsaOptions};
pub use symbols::{Labels, SymbolicName};
pub use text::TextSink;
pub use walk::{walk, Content, Line, Sink, Span, BYTES_PER_LINE};

/// Why an input cannot be listed. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub enum DisasmError {
    #[error("empty input (0 bytes): nothing to disassemble")]
    Empty,
    #[error(transparent)]
    Elf(#[from] q7_elf::Error),
    #[error("big-endian Xtensa images are not supported (instruction words are decoded little-endian)")]
    BigEndian,
    #[error("a load address applies to raw (non-ELF) input only; an ELF file has its own addresses")]
    BaseOnElf,
    #[error("a section name applies to ELF input only; raw input has one region")]
    SectionOnRaw,
    #[error("no section named `{name}` (sections: {available})")]
    NoSuchSection { name: String, available: String },
    #[error("section `{0}` has no bytes in the file")]
    EmptySection(String),
    #[error("no executable sections to disassemble")]
    NoCode,
    #[error("address range {range} covers no bytes of {what}")]
    RangeOutside { range: AddrRange, what: String },
    #[error("bad address range `{text}`: {problem}")]
    BadRange { text: String, problem: String },
}

/// A virtual-address range `start..end` (end exclusive, at most 2^32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrRange {
    pub start: u64,
    pub end: u64,
}

impl AddrRange {
    /// Parses `START..END`, each hexadecimal with `0x` or decimal.
    pub fn parse(text: &str) -> Result<AddrRange, DisasmError> {
        let bad = |problem: &str| DisasmError::BadRange { text: text.to_string(), problem: problem.to_string() };
        let (start, end) = text.split_once("..").ok_or_else(|| bad("expected START..END"))?;
        let start = parse_address(start).ok_or_else(|| bad("START is not a 32-bit hex (0x…) or decimal address"))?;
        let end = parse_address(end)
            .or_else(|| (end.trim() == "0x100000000").then_some(1 << 32))
            .ok_or_else(|| bad("END is not a 32-bit hex (0x…) or decimal address"))?;
        if start >= end {
            return Err(bad("START must be below END"));
        }
        Ok(AddrRange { start, end })
    }
}

impl std::fmt::Display for AddrRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}..{:#x}", self.start, self.end)
    }
}

/// Parses a 32-bit address: `0x` hexadecimal or decimal.
pub fn parse_address(text: &str) -> Option<u64> {
    q7_target::num::parse_u32(text).map(u64::from)
}

/// What to list and how.
#[derive(Clone, Debug, Default)]
pub struct DisasmOptions {
    pub isa: IsaOptions,
    /// Name of the ISA choice, for headers (`vision-q7`).
    pub isa_name: String,
    /// Use the symbol table for labels, restarts and target names.
    pub symbols: bool,
    pub section: Option<String>,
    pub range: Option<AddrRange>,
    /// Load address of raw input.
    pub base: Option<u32>,
    /// List nothing (instead of failing) for a file without executable
    /// sections, as for the members of an archive.
    pub empty_ok: bool,
}

/// A loaded input with its spans chosen: every user error has been reported
/// by the time one exists, so writing can only fail on I/O.
#[derive(Debug)]
pub struct Disassembly<'a> {
    pub image: Image<'a>,
    pub spans: Vec<Span>,
    options: DisasmOptions,
}

impl<'a> Disassembly<'a> {
    pub fn prepare(data: &'a [u8], options: &DisasmOptions) -> Result<Disassembly<'a>, DisasmError> {
        let image = Image::load(data, options.base, options.symbols)?;
        let spans = select_spans(&image, options)?;
        Ok(Disassembly { image, spans, options: options.clone() })
    }

    fn isa_note(&self) -> String {
        let rule = if self.options.isa.lx_scalar { ", scalar-LX length rule" } else { "" };
        format!("{}{rule}", self.options.isa_name)
    }

    /// Writes the human listing; returns the number of lines listed.
    pub fn write_text<W: Write>(&self, out: W, title: &str) -> io::Result<u64> {
        let mut sink = TextSink::new(out, title, &self.image, &self.isa_note())?;
        let lines = walk(&self.image, &self.spans, &self.options.isa, &mut sink)?;
        sink.finish()?;
        Ok(lines)
    }

    /// Writes the JSON Lines listing; returns the number of lines listed.
    pub fn write_json<W: Write>(&self, out: W, path: &str) -> io::Result<u64> {
        let opts = &self.options;
        let mut sink = JsonSink::new(out, path, &self.image, &opts.isa_name, opts.isa.lx_scalar)?;
        walk(&self.image, &self.spans, &opts.isa, &mut sink)
    }
}

/// The sections to list, cut to the range.
fn select_spans(image: &Image, options: &DisasmOptions) -> Result<Vec<Span>, DisasmError> {
    let chosen: Vec<usize> = match &options.section {
        Some(_) if matches!(image.source, Source::Raw { .. }) => return Err(DisasmError::SectionOnRaw),
        Some(name) => {
            let index = image.regions.iter().position(|r| r.name == name.as_str()).ok_or_else(|| {
                let names: Vec<&str> = image.regions.iter().map(|r| &*r.name).filter(|n| !n.is_empty()).collect();
                DisasmError::NoSuchSection { name: name.clone(), available: names.join(", ") }
            })?;
            if image.regions[index].bytes.is_empty() {
                return Err(DisasmError::EmptySection(name.clone()));
            }
            vec![index]
        }
        None => {
            // Empty executable sections (common in archive members) list
            // nothing, as with objdump; a file with none at all is an error.
            if !options.empty_ok && !image.regions.iter().any(|r| r.alloc && r.exec) {
                return Err(DisasmError::NoCode);
            }
            (0..image.regions.len()).filter(|&i| image.regions[i].is_code()).collect()
        }
    };
    let (lo, hi) = options.range.map_or((0, 1 << 32), |r| (r.start, r.end));
    let spans: Vec<Span> = chosen
        .iter()
        .filter_map(|&region| {
            let r = &image.regions[region];
            let start = u64::from(r.addr).max(lo);
            let end = (u64::from(r.addr) + r.bytes.len() as u64).min(hi);
            (start < end).then_some(Span { region, start, end })
        })
        .collect();
    match options.range {
        Some(range) if spans.is_empty() => {
            let what = match &options.section {
                Some(name) => format!("section {name}"),
                None => "the executable sections".to_string(),
            };
            Err(DisasmError::RangeOutside { range, what })
        }
        _ => Ok(spans),
    }
}
