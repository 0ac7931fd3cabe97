//! The JSON listing: JSON Lines, one compact record per line, so a listing
//! of any size streams. Records, each with a `"type"`:
//!
//! * `file` (first): `path`, `format` (`"elf"` or `"raw"`), `isa`, `lx_scalar`;
//! * `section`: `name`, `address`, `size` (the whole section; the lines that
//!   follow may cover only part of it under `--range`), `boundaries` (where
//!   instruction starts came from besides symbols: `"xt.prop"`, `"xt.lit"`, or
//!   `"targets"` found by a first sweep);
//! * `label`: `address`, `name` (as the human listing prints it);
//! * `insn`: `address`, `bytes` (hex), `mnemonic`, `operands` (text, `""`
//!   when none), `target` (PC-relative operand's address), `target_symbol`,
//!   `literal` (the word an `l32r` loads), `literal_symbol`, `error` (why the
//!   bytes did not decode). Undecodable bytes and fill have mnemonic `.byte`;
//!   literal words (from the tables or `l32r`s) `.word` with the value.
//!
//! Addresses and values are JSON numbers; absent values are `null`.

use std::io::{self, Write};

use serde::Serialize;

use super::image::{Image, Region, Source};
use super::walk::{Content, Line, Sink, Span};

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Record<'r> {
    File { path: &'r str, format: &'static str, isa: &'r str, lx_scalar: bool },
    Section { name: &'r str, address: u32, size: u32, boundaries: &'static str },
    Label { address: u32, name: String },
    Insn(InsnRecord<'r>),
}

#[derive(Serialize)]
struct InsnRecord<'r> {
    address: u32,
    bytes: String,
    mnemonic: &'r str,
    operands: &'r str,
    target: Option<u32>,
    target_symbol: Option<String>,
    literal: Option<u32>,
    literal_symbol: Option<String>,
    error: Option<String>,
}

/// Writes the JSON Lines listing to `out`.
pub struct JsonSink<W: Write> {
    out: W,
    text: String,
}

impl<W: Write> JsonSink<W> {
    /// Starts a listing with its `file` record.
    pub fn new(mut out: W, path: &str, image: &Image, isa: &str, lx_scalar: bool) -> io::Result<JsonSink<W>> {
        let format = match image.source {
            Source::Elf { .. } => "elf",
            Source::Raw { .. } => "raw",
        };
        write_record(&mut out, &Record::File { path, format, isa, lx_scalar })?;
        Ok(JsonSink { out, text: String::new() })
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

fn write_record<W: Write>(out: &mut W, record: &Record) -> io::Result<()> {
    serde_json::to_writer(&mut *out, record)?;
    out.write_all(b"\n")
}

/// The `error` of bytes the property table marks as not instructions.
pub const NOT_CODE: &str = "not instructions (property table: fill or data)";

/// Replaces `text` with `value`'s Display text; returns no error.
fn write_str(text: &mut String, value: impl std::fmt::Display) -> Option<String> {
    use std::fmt::Write as _;
    text.clear();
    let _ = write!(text, "{value}");
    None
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(2 * bytes.len()), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

impl<W: Write> Sink for JsonSink<W> {
    fn section(&mut self, _image: &Image, region: &Region, _span: &Span) -> io::Result<()> {
        write_record(
            &mut self.out,
            &Record::Section {
                name: &region.name,
                address: region.addr,
                size: region.size,
                boundaries: region.boundaries.name(),
            },
        )
    }

    fn label(&mut self, _image: &Image, region: &Region, addr: u32) -> io::Result<()> {
        write_record(&mut self.out, &Record::Label { address: addr, name: region.name_of(addr).to_string() })
    }

    fn line(&mut self, image: &Image, region: &Region, line: &Line) -> io::Result<()> {
        let (mnemonic, error) = match &line.content {
            // The plain Display text is "mnemonic<TAB>operands".
            Content::Insn(insn) => (insn.mnemonic(), write_str(&mut self.text, insn)),
            Content::Literal(value) => (".word", write_str(&mut self.text, format_args!("\t{value:#010x}"))),
            Content::Undecodable(error) => {
                write_str(&mut self.text, q7_isa::byte_directive(line.bytes));
                (".byte", Some(error.to_string()))
            }
            Content::Data => {
                write_str(&mut self.text, q7_isa::byte_directive(line.bytes));
                (".byte", Some(NOT_CODE.to_string()))
            }
        };
        let operands = self.text.split_once('\t').map_or("", |(_, operands)| operands);
        let name = |addr: Option<u32>| addr.and_then(|a| image.name_of(a, region)).map(|n| n.to_string());
        let record = InsnRecord {
            address: line.pc,
            bytes: hex(line.bytes),
            mnemonic,
            operands,
            target: line.target(),
            target_symbol: name(line.target()),
            literal: line.literal,
            literal_symbol: name(line.literal),
            error,
        };
        write_record(&mut self.out, &Record::Insn(record))
    }
}
