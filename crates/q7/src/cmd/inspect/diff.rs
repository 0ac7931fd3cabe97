//! `q7 inspect diff`: two images compared by hash, then section by section
//! (docs/FACTS.md, "Cross-generation diff").

use std::path::PathBuf;

use anyhow::Result;
use q7_analyst::diff::{self, Input, NoDecoder};

/// Compare two images: sha256, then section by section with localized byte
/// deltas.
///
/// Compares two images (e.g. the same firmware across generations): sha256
/// equality first; otherwise the ELF header fields that differ and every
/// allocated section matched by name — identical, moved, resized, or
/// changed in localized byte ranges given with their addresses and file
/// offsets in both files. Exits 0 whether or not the files differ.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first image.
    a: PathBuf,
    /// The second image.
    b: PathBuf,
    /// Byte ranges listed per section.
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_ranges: usize,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let bytes_a = crate::io::read_input(&args.a)?;
    let bytes_b = crate::io::read_input(&args.b)?;
    let (name_a, name_b) = (args.a.display().to_string(), args.b.display().to_string());
    // Instruction decoding plugs in here once the Xtensa decoder lands.
    let report = diff::diff(
        Input { path: &name_a, bytes: &bytes_a },
        Input { path: &name_b, bytes: &bytes_b },
        args.max_ranges,
        &NoDecoder,
    )?;
    if args.json {
        crate::io::print_json(&report)
    } else {
        diff::write_report(&mut crate::io::text_stdout(), &report)?;
        Ok(())
    }
}
