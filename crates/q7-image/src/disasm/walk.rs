//! The linear sweep over the selected spans, restarted at every label.
//!
//! Each selected span (a code section, or the part of it inside `--range`)
//! is cut at every label address inside it, and each piece is swept on its
//! own with [`q7_isa::sweep()`], the way objdump restarts at every symbol: a
//! literal pool or alignment padding before a function cannot desynchronize
//! the function. An instruction that would run past the next label is cut
//! there and listed as `.byte` (GNU objdump does the same; LLVM 22 decodes
//! across the label). Undecodable bytes follow the sweep's documented
//! resynchronization rule and are listed at most [`BYTES_PER_LINE`] per line.

use std::io;

use q7_isa::{sweep, DecodeError, Insn, IsaOptions, Opcode};

use super::image::{Image, Region};

/// Most bytes on one `.byte` line.
pub const BYTES_PER_LINE: usize = 4;

/// A part of one region to list: addresses `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub region: usize,
    pub start: u64,
    pub end: u64,
}

/// One listing line: an instruction or up to [`BYTES_PER_LINE`] undecodable bytes.
#[derive(Clone, Debug)]
pub struct Line<'a> {
    pub pc: u32,
    pub bytes: &'a [u8],
    /// The instruction, or why the sweep could not decode these bytes.
    pub decoded: Result<Insn, DecodeError>,
    /// For `l32r`: the word at the literal address, when the image holds it.
    pub literal: Option<u32>,
}

impl Line<'_> {
    /// The branch, call, jump, loop or literal address the instruction names.
    pub fn target(&self) -> Option<u32> {
        self.decoded.as_ref().ok().and_then(Insn::target)
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
        let mut pos = span.start;
        while pos < span.end {
            let stop = region.labels.next_after(pos).map_or(span.end, |next| next.min(span.end));
            // Span bounds lie inside the region, so these fit in u32 and usize.
            let pc = pos as u32;
            if pos == span.start || region.labels.at(pc).is_some() {
                sink.label(image, region, pc)?;
            }
            let from = (pos - u64::from(region.addr)) as usize;
            let to = (stop - u64::from(region.addr)) as usize;
            for item in sweep(&region.bytes[from..to], pc, isa) {
                match item.result {
                    Ok(insn) => {
                        let literal = match insn.op {
                            Opcode::L32r => insn.target().and_then(|addr| image.literal_at(addr)),
                            _ => None,
                        };
                        sink.line(image, region, &Line { pc: item.pc, bytes: item.bytes, decoded: Ok(insn), literal })?;
                        lines += 1;
                    }
                    Err(error) => {
                        for (i, chunk) in item.bytes.chunks(BYTES_PER_LINE).enumerate() {
                            let pc = item.pc.wrapping_add((i * BYTES_PER_LINE) as u32);
                            sink.line(image, region, &Line { pc, bytes: chunk, decoded: Err(error), literal: None })?;
                            lines += 1;
                        }
                    }
                }
            }
            pos = stop;
        }
    }
    Ok(lines)
}
