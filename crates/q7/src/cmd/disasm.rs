use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use q7_image::disasm::{parse_address, AddrRange, DisasmError, DisasmOptions, Disassembly, IsaOptions};

/// Disassemble Xtensa code: an ELF image or object (its executable sections),
/// or raw bytes (a carved blob, a dump) at --base. Labels come from the symbol
/// table; the sweep restarts at every symbol; branch, call, loop and l32r
/// targets are named `<symbol+offset>` (`<section+offset>` when stripped), and
/// an l32r shows the literal word it loads. Undecodable bytes print as `.byte`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// ELF image or object, an `ar` archive of them (each ELF member is listed,
    /// named `lib.a(member.o)`), or raw code (any other file).
    image: PathBuf,
    /// List this section only (any section, executable or not).
    #[arg(long, value_name = "S")]
    section: Option<String>,
    /// List only virtual addresses START..END (END exclusive; hex with 0x, or decimal).
    #[arg(long, value_name = "START..END")]
    range: Option<String>,
    /// Use the symbol table for labels, restart points and target names (the default).
    #[arg(long, overrides_with = "no_symbols")]
    symbols: bool,
    /// Ignore the symbol table: no labels, no restarts at symbols, targets as <section+offset>.
    #[arg(long)]
    no_symbols: bool,
    /// Scalar-LX length rule (docs/FACTS.md): op0 0xe/0xf is a 3-byte instruction,
    /// not a FLIX bundle, and the sweep resyncs at retw.n. For management-core
    /// (NCFW) code.
    #[arg(long)]
    lx_scalar: bool,
    /// Load address of raw input (hex with 0x, or decimal). Default 0.
    #[arg(long, value_name = "ADDR")]
    base: Option<String>,
    /// ISA options to decode with. vision-q7: the Vision-Q7 scalar core (windowed,
    /// FPU, no MAC16); lx106: the call0 ESP8266 core of GNU xtensa-lx106-elf (pick it
    /// for GNU call0 code); full: every option q7 models. Not guessed from the file.
    #[arg(long, value_enum, default_value_t = Isa::VisionQ7)]
    isa: Isa,
    /// Print JSON Lines: a file record, then section, label and insn records.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Isa {
    VisionQ7,
    Lx106,
    Full,
}

impl Isa {
    fn options(self) -> IsaOptions {
        match self {
            Isa::VisionQ7 => IsaOptions::vision_q7(),
            Isa::Lx106 => IsaOptions::lx106(),
            Isa::Full => IsaOptions::full(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Isa::VisionQ7 => "vision-q7",
            Isa::Lx106 => "lx106",
            Isa::Full => "full",
        }
    }
}

pub fn run(args: Args) -> Result<()> {
    let range = args.range.as_deref().map(AddrRange::parse).transpose().context("--range")?;
    let base = match args.base.as_deref() {
        Some(text) => Some(
            parse_address(text)
                .with_context(|| format!("bad --base `{text}`: not a 32-bit hex (0x…) or decimal address"))?
                as u32,
        ),
        None => None,
    };
    let inputs = crate::io::read_images(&args.image)?;
    let options = DisasmOptions {
        isa: args.isa.options().with_lx_scalar(args.lx_scalar),
        isa_name: args.isa.name().to_string(),
        symbols: !args.no_symbols,
        section: args.section,
        range,
        base,
        empty_ok: inputs.archive,
    };
    for name in &inputs.skipped {
        eprintln!("q7 disasm: {name}: not an ELF file, skipped");
    }
    // Every member is checked before anything is written; with --section, an
    // archive's members without that section are left out (as objdump -j does).
    let mut listings = Vec::new();
    for (title, bytes) in &inputs.parts {
        match Disassembly::prepare(inputs.bytes(bytes), &options) {
            Ok(listing) => listings.push((title, listing)),
            Err(DisasmError::NoSuchSection { .. }) if inputs.archive => {}
            Err(error) => return Err(with_hint(error).context(title.clone())),
        }
    }
    let mut out = BufWriter::with_capacity(1 << 16, crate::io::text_stdout());
    for (i, (title, listing)) in listings.iter().enumerate() {
        if args.json {
            listing.write_json(&mut out, title)?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            listing.write_text(&mut out, title)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The library's message plus the flag that fixes it.
fn with_hint(e: DisasmError) -> anyhow::Error {
    let hint = match &e {
        DisasmError::BaseOnElf => "drop --base",
        DisasmError::SectionOnRaw => "drop --section",
        DisasmError::NoCode => "name one with --section",
        DisasmError::RangeOutside { .. } => "check --range",
        _ => return e.into(),
    };
    anyhow::anyhow!("{e} ({hint})")
}
