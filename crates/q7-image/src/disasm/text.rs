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

use q7_isa::display::{hex_digits, hex_pair, push_hex_prefixed};
use q7_isa::{push_byte_directive, push_insn};

use super::image::{Image, Region};
use super::symbols::SymbolicName;
use super::walk::{Content, Line, Sink, Span, BYTES_PER_LINE};

/// Writes the human listing to `out`; [`TextSink::finish`] writes the rest.
pub struct TextSink<W: Write> {
    out: W,
    /// Lines are formatted straight into this buffer, which goes to `out`
    /// in chunks of about [`CHUNK`] bytes: no per-line write or copy.
    buf: Vec<u8>,
}

/// Bytes gathered before one write to the output.
const CHUNK: usize = 64 << 10;

/// Appends the eight hex digits of `value`.
fn push_hex8(buf: &mut Vec<u8>, value: u32) {
    buf.extend_from_slice(&hex_digits(value));
}

/// Appends the byte column: each byte as `xx `, padded to [`BYTES_PER_LINE`]
/// bytes' width, plus one space.
fn push_byte_column(buf: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() <= BYTES_PER_LINE {
        // Every line's case: one fixed-width store of spaces, digits on top.
        let mut column = [b' '; 3 * BYTES_PER_LINE + 1];
        for (i, &byte) in bytes.iter().enumerate() {
            column[3 * i..3 * i + 2].copy_from_slice(&hex_pair(byte));
        }
        buf.extend_from_slice(&column);
        return;
    }
    for &byte in bytes {
        let [high, low] = hex_pair(byte);
        buf.extend_from_slice(&[high, low, b' ']);
    }
    buf.push(b' ');
}

/// Appends `base` or `base+0x1c` (as [`SymbolicName`]'s Display).
fn push_name(out: &mut Vec<u8>, name: SymbolicName) {
    out.extend_from_slice(name.base.as_bytes());
    if name.offset != 0 {
        out.push(b'+');
        push_hex_prefixed(out, name.offset);
    }
}

impl<W: Write> TextSink<W> {
    /// Starts a listing with its one-line header (`title` names the input).
    pub fn new(out: W, title: &str, image: &Image, isa_note: &str) -> io::Result<TextSink<W>> {
        let mut buf = Vec::with_capacity(CHUNK + 4096);
        writeln!(buf, "{title}: {}; ISA {isa_note}", image.describe())?;
        Ok(TextSink { out, buf })
    }

    /// Writes what is still buffered; returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&self.buf)?;
        Ok(self.out)
    }

    /// Passes a full chunk on to the output.
    fn written(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl<W: Write> Sink for TextSink<W> {
    fn section(&mut self, _image: &Image, region: &Region, _span: &Span) -> io::Result<()> {
        self.buf.extend_from_slice(b"\nDisassembly of section ");
        self.buf.extend_from_slice(region.name.as_bytes());
        self.buf.extend_from_slice(b":\n");
        self.written()
    }

    fn label(&mut self, _image: &Image, region: &Region, addr: u32) -> io::Result<()> {
        self.buf.push(b'\n');
        push_hex8(&mut self.buf, addr);
        self.buf.extend_from_slice(b" <");
        push_name(&mut self.buf, region.name_of(addr));
        self.buf.extend_from_slice(b">:\n");
        self.written()
    }

    fn line(&mut self, image: &Image, region: &Region, line: &Line) -> io::Result<()> {
        let out = &mut self.buf;
        push_hex8(out, line.pc);
        out.extend_from_slice(b": ");
        push_byte_column(out, line.bytes);
        match &line.content {
            Content::Insn(insn) => {
                let mut label = |out: &mut Vec<u8>, addr: u32| match image.name_of(addr, region) {
                    Some(name) => {
                        push_name(out, name);
                        true
                    }
                    None => false,
                };
                push_insn(out, insn, &mut label);
            }
            Content::Literal(value) => {
                out.extend_from_slice(b".word\t0x");
                push_hex8(out, *value);
            }
            Content::Undecodable(_) | Content::Data => push_byte_directive(out, line.bytes),
        }
        if let Some(value) = line.literal {
            out.extend_from_slice(b"  ; 0x");
            push_hex8(out, value);
            if let Some(name) = image.name_of(value, region) {
                out.extend_from_slice(b" <");
                push_name(out, name);
                out.push(b'>');
            }
        }
        out.push(b'\n');
        self.written()
    }
}
