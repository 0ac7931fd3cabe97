//! The sweep over the selected spans, piece by piece.
//!
//! Each selected span (a code section, or the part of it inside `--range`)
//! is cut into pieces by [`super::plan`]: at every label (the way objdump
//! restarts at every symbol), at the property table's block boundaries or,
//! without a table, at every branch, jump, loop and call target. Code pieces
//! are swept on their own with [`q7_isa::sweep()`]; an instruction that would
//! run past the piece is cut there and listed as `.byte` (GNU objdump does the
//! same; LLVM 22 decodes across). Literal pieces list `.word`s, data pieces
//! bytes. Undecodable bytes follow the sweep's resynchronization rule and are
//! listed at most [`BYTES_PER_LINE`] per line.

use std::io;

use q7_isa::{sweep, DecodeError, Insn, IsaOptions, Opcode};

use super::image::{Image, Region};
use super::plan::{plan, Mode};
use super::steps::Steps;

/// Most bytes on one `.byte` line.
pub const BYTES_PER_LINE: usize = 4;

/// A part of one region to list: addresses `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub region: usize,
    pub start: u64,
    pub end: u64,
}

/// What the bytes of a line are.
#[derive(Clone, Debug)]
pub enum Content {
    Insn(Insn),
    /// Bytes the sweep could not decode, and why.
    Undecodable(DecodeError),
    /// A literal word (little-endian), from the property table or an `l32r`.
    Literal(u32),
    /// Bytes the property table says are not instructions (fill, data).
    Data,
}

/// One listing line: an instruction, a literal word, or up to
/// [`BYTES_PER_LINE`] other bytes.
#[derive(Clone, Debug)]
pub struct Line<'a> {
    pub pc: u32,
    pub bytes: &'a [u8],
    pub content: Content,
    /// For `l32r`: the word at the literal address, when the image holds it.
    pub literal: Option<u32>,
}

impl Line<'_> {
    /// The branch, call, jump, loop or literal address the instruction names.
    pub fn target(&self) -> Option<u32> {
        match &self.content {
            Content::Insn(insn) => insn.target(),
            _ => None,
        }
    }
}

/// Receives a listing as it is produced.
pub trait Sink {
    /// A region starts; `span` is the part of it that will be listed.
    fn section(&mut self, image: &Image, region: &Region, span: &Span) -> io::Result<()>;
    /// A label at `addr`: a symbol, or (at the start of a listed span without
    /// one) the nearest symbol or section plus an offset.
    fn label(&mut self, image: &Image, region: &Region, addr: u32) -> io::Result<()>;
    fn line(&mut self, image: &Image, region: &Region, line: &Line) -> io::Result<()>;
}

/// Lists `spans` of `image` into `sink`. Returns the number of lines.
pub fn walk(image: &Image, spans: &[Span], isa: &IsaOptions, sink: &mut dyn Sink) -> io::Result<u64> {
    let mut lines = 0u64;
    for span in spans {
        let region = &image.regions[span.region];
        sink.section(image, region, span)?;
        // The boundary sweeps decode each offset once (memoised); the
        // listing decodes each listed instruction once more.
        let mut steps = Steps::new(region.bytes, region.addr, isa);
        let plan = plan(image, region, span.start, span.end, &mut steps);
        for (piece, at_label) in plan.pieces(region) {
            // Span bounds lie inside the region, so these fit in u32 and usize.
            let pc = piece.start as u32;
            if piece.start == span.start || at_label {
                sink.label(image, region, pc)?;
            }
            let from = (piece.start - u64::from(region.addr)) as usize;
            let to = (piece.end - u64::from(region.addr)) as usize;
            let bytes = &region.bytes[from..to];
            lines += match piece.mode {
                Mode::Code => list_code(image, region, from, to, &mut steps, sink)?,
                Mode::Literal => list_literals(image, region, bytes, pc, sink)?,
                Mode::Data => list_bytes(image, region, bytes, pc, Content::Data, sink)?,
            };
        }
    }
    Ok(lines)
}

/// Lists region offsets `from..to` as [`q7_isa::sweep()`] would step them,
/// taking each instruction from `steps` when it holds it.
fn list_code(
    image: &Image,
    region: &Region,
    from: usize,
    to: usize,
    steps: &mut Steps,
    sink: &mut dyn Sink,
) -> io::Result<u64> {
    let mut lines = 0;
    let mut at = from;
    while at < to {
        let pc = region.addr.wrapping_add(at as u32);
        let (len, result) = match steps.insn(at, to) {
            Some(insn) => (usize::from(insn.len), Ok(insn)),
            None => {
                // Undecodable, or cut by the piece end: one step of the
                // sweep itself.
                let item = sweep(&region.bytes[at..to], pc, steps.isa()).next().expect("bytes remain");
                (item.len(), item.result)
            }
        };
        let bytes = &region.bytes[at..at + len];
        at += len;
        match result {
            Ok(insn) => {
                let literal = match insn.op {
                    Opcode::L32r => insn.target().and_then(|addr| image.literal_at(addr)),
                    _ => None,
                };
                sink.line(image, region, &Line { pc, bytes, content: Content::Insn(insn), literal })?;
                lines += 1;
            }
            Err(error) => lines += list_bytes(image, region, bytes, pc, Content::Undecodable(error), sink)?,
        }
    }
    Ok(lines)
}

/// Word-aligned words as `.word`; bytes before the first aligned word or
/// after the last whole one as bytes.
fn list_literals(image: &Image, region: &Region, bytes: &[u8], pc: u32, sink: &mut dyn Sink) -> io::Result<u64> {
    let head = ((4 - pc % 4) % 4) as usize;
    let head = head.min(bytes.len());
    let mut lines = list_bytes(image, region, &bytes[..head], pc, Content::Data, sink)?;
    let words = bytes[head..].chunks_exact(4);
    let tail = words.remainder();
    let mut at = pc.wrapping_add(head as u32);
    for word in words {
        let value = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        sink.line(image, region, &Line { pc: at, bytes: word, content: Content::Literal(value), literal: None })?;
        at = at.wrapping_add(4);
        lines += 1;
    }
    Ok(lines + list_bytes(image, region, tail, at, Content::Data, sink)?)
}

fn list_bytes(
    image: &Image,
    region: &Region,
    bytes: &[u8],
    pc: u32,
    content: Content,
    sink: &mut dyn Sink,
) -> io::Result<u64> {
    let mut lines = 0;
    for (i, chunk) in bytes.chunks(BYTES_PER_LINE).enumerate() {
        let pc = pc.wrapping_add((i * BYTES_PER_LINE) as u32);
        sink.line(image, region, &Line { pc, bytes: chunk, content: content.clone(), literal: None })?;
        lines += 1;
    }
    Ok(lines)
}
