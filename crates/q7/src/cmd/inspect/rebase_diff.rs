use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use q7_elf::ElfFile;
use q7_image::rebase_diff::{self, RebaseReport};
use serde::Serialize;

/// Seed 002's proof that per-core images are one program relinked: the
/// byte positions that differ from the first image (the same in every
/// pair?), per-byte deltas, every differing 32-bit word per region checked
/// against the base delta (from the core windows, else from e_entry), the
/// string sets per allocated section, and a verdict with the first
/// counter-example (section, offset, address).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Two or more images, the first being the reference.
    #[arg(required = true, num_args = 2..)]
    images: Vec<PathBuf>,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    paths: &'a [String],
    #[serde(flatten)]
    rebase: &'a RebaseReport,
}

pub fn run(args: Args) -> Result<()> {
    let bytes: Vec<Vec<u8>> = args.images.iter().map(|p| crate::io::read_input(p)).collect::<Result<_>>()?;
    let names: Vec<String> = args.images.iter().map(|p| p.display().to_string()).collect();
    let elfs: Vec<ElfFile> = bytes
        .iter()
        .zip(&names)
        .map(|(b, n)| ElfFile::parse_xtensa(b).with_context(|| n.clone()))
        .collect::<Result<_>>()?;
    let report = rebase_diff::rebase_diff(&elfs);
    if args.json {
        return crate::io::print_json(&Report { paths: &names, rebase: &report });
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    rebase_diff::write_rebase(&mut out, &names, &report)?;
    Ok(out.flush()?)
}
