//! The human listing, in objdump's shape:
//!
//! ```text
//! path: ELF32 little-endian EXEC, Tensilica Xtensa; ISA vision-q7
//!
//! Disassembly of section .text:
//!
//! 84000038 <run_op>:
//! 84000038: 36 41 00     entry    a1, 32
//! 8400004a: 91 ed ff     l32r    a9, 0x84000000 <_stext>  ; 0x840001e8 <kOps>
//! 8400007a: 1d f0        retw.n
//! 840000d3: 00           .byte    0x00
//! ```
//!
//! Raw bytes are padded to four bytes' width; a tab (shown as spaces above)
//! separates the mnemonic from the operands as in objdump; targets carry
//! `<label+offset>`; an `l32r` whose literal lies in the image ends with
//! `; value <name of value>`.

use std::io::{self, Write};

use q7_isa::byte_directive;

use super::image::{Image, Region};
use super::walk::{Content, Line, Sink, Span, BYTES_PER_LINE};

/// Writes the human listing to `out`.
pub struct TextSink<W: Write> {
    out: W,
    /// The line being built: one `write_all` per line instead of one write
    /// per formatted piece.
    line: Vec<u8>,
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends the low `digits` hex digits of `value`.
fn push_hex(buf: &mut Vec<u8>, value: u32, digits: u32) {
    for shift in (0..digits).rev() {
        buf.push(HEX[(value >> (4 * shift) & 0xf) as usize]);
    }
}

impl<W: Write> TextSink<W> {
    /// Starts a listing with its one-line header (`title` names the input).
    pub fn new(mut out: W, title: &str, image: &Image, isa_note: &str) -> io::Result<TextSink<W>> {
        writeln!(out, "{title}: {}; ISA {isa_note}", image.describe())?;
        Ok(TextSink { out, line: Vec::with_capacity(128) })
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink for TextSink<W> {
    fn section(&mut self, _image: &Image, region: &Region, _span: &Span) -> io::Result<()> {
        writeln!(self.out, "\nDisassembly of section {}:", region.name)
    }

    fn label(&mut self, _image: &Image, region: &Region, addr: u32) -> io::Result<()> {
        writeln!(self.out, "\n{addr:08x} <{}>:", region.name_of(addr))
    }

    fn line(&mut self, image: &Image, region: &Region, line: &Line) -> io::Result<()> {
        let out = &mut self.line;
        out.clear();
        push_hex(out, line.pc, 8);
        out.extend_from_slice(b": ");
        for &byte in line.bytes {
            push_hex(out, u32::from(byte), 2);
            out.push(b' ');
        }
        // Pad the byte column to BYTES_PER_LINE bytes of "xx ", plus one space.
        let pad = 3 * BYTES_PER_LINE.saturating_sub(line.bytes.len()) + 1;
        out.resize(out.len() + pad, b' ');
        match &line.content {
            Content::Insn(insn) => {
                let name = |addr: u32| image.name_of(addr, region).map(|n| n.to_string());
                write!(out, "{}", insn.display_with(&name))?;
            }
            Content::Literal(value) => {
                out.extend_from_slice(b".word\t0x");
                push_hex(out, *value, 8);
            }
            Content::Undecodable(_) | Content::Data => out.write_all(byte_directive(line.bytes).as_bytes())?,
        }
        if let Some(value) = line.literal {
            write!(out, "  ; {value:#010x}")?;
            if let Some(name) = image.name_of(value, region) {
                write!(out, " <{name}>")?;
            }
        }
        out.push(b'\n');
        self.out.write_all(out)
    }
}
