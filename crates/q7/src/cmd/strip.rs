use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use q7_pack::{StripOptions, MAX_PAGE_SIZE, MIN_PAGE_SIZE};

/// Strip and clean a linked Xtensa image: steps 1–3 of `q7 pack` alone.
///
/// Removes everything that is not loaded (symbol and string tables, static
/// relocations, debug information, .comment, notes, Xtensa property tables),
/// then .xtensa.info .xt.lit .xt.prop* .interp .got.loc .got, then (without
/// -l) .hash .dynstr .dynsym .rela.plt, then every empty section. Loadable
/// bytes keep their file offsets and the program headers are unchanged. When
/// the input was linked with `ld -q`, the addresses of its absolute
/// R_XTENSA_32 words are kept in a non-loadable `.q7.rebase` section for the
/// prelinker. The output is what `q7 pack -s` saves.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The linked device image (e.g. build/name.so or build/name_cpu3.so).
    #[arg(value_name = "INPUT.so")]
    input: PathBuf,
    /// Where to write the cleaned image (e.g. build/name.stripped.so).
    #[arg(short = 'o', long = "output", value_name = "OUT.stripped.so")]
    output: PathBuf,
    #[command(flatten)]
    pub clean: CleanArgs,
}

/// The options `q7 strip` and `q7 pack` share.
#[derive(Debug, clap::Args)]
pub struct CleanArgs {
    /// Keep the dynamic symbol lookup tables (.hash .dynstr .dynsym .rela.plt)
    /// that are otherwise removed (xt-pkg-loadlib's "symlookup").
    #[arg(short = 'l', long = "symlookup")]
    pub symlookup: bool,
    /// Take the page-size path: raise each loadable segment's p_align to
    /// PAGESIZE and move its file bytes so p_offset ≡ p_vaddr (mod p_align),
    /// zero-padded, so a loader can map the image page by page. Without -p,
    /// no byte moves. PAGESIZE is a power of two from 4 to 0x100000, decimal
    /// or 0x-hex.
    #[arg(short = 'p', long = "shared-pagesize", value_name = "PAGESIZE", value_parser = parse_page_size)]
    pub page_size: Option<u32>,
    /// Narrate each step on stderr: what was removed and why, the rebase
    /// words kept, how the bytes were laid out, sizes before and after.
    #[arg(short = 'v', long = "verbose")]
    pub verbose: bool,
}

impl CleanArgs {
    pub fn options(&self) -> StripOptions {
        StripOptions { page_size: self.page_size, keep_symbol_lookup: self.symlookup }
    }

    /// stderr under -v, otherwise a sink.
    pub fn log(&self) -> Box<dyn Write> {
        if self.verbose {
            Box::new(std::io::stderr())
        } else {
            Box::new(std::io::sink())
        }
    }
}

fn parse_page_size(s: &str) -> Result<u32, String> {
    match q7_target::num::parse_u32(s) {
        Some(v) if v.is_power_of_two() && (MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a power of two from {MIN_PAGE_SIZE} to {MAX_PAGE_SIZE:#x}")),
    }
}

pub fn run(args: Args) -> Result<()> {
    let input = crate::io::read_input(&args.input)?;
    let mut log = args.clean.log();
    let cleaned = q7_pack::strip_image(&input, &args.clean.options(), &mut log)
        .with_context(|| args.input.display().to_string())?;
    crate::io::write_output(&args.output, &cleaned)?;
    let _ = writeln!(log, "wrote {} ({} bytes)", args.output.display(), cleaned.len());
    Ok(())
}
