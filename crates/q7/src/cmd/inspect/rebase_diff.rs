use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use q7_elf::ElfFile;
use q7_image::rebase_diff::{self, RebaseReport};
use serde::Serialize;

/// The proof (docs/FACTS.md) that per-core images are one program relinked: the
/// byte positions that differ from the first image (the same in every
/// pair?), per-byte deltas, every differing 32-bit word per region checked
/// against the base delta (from the core windows, else from e_entry), the
/// string sets per allocated section, and a verdict with the first
/// counter-example (section, offset, address).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Two or more images, the first being the reference (an `ar` archive
    /// stands for its ELF members, in order).
    #[arg(required = true, num_args = 1..)]
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
    let lists = crate::io::read_image_lists("q7 inspect rebase-diff", &args.images)?;
    let parts: Vec<(&String, &[u8])> =
        lists.iter().flat_map(|l| l.parts.iter().map(move |(name, range)| (name, l.bytes(range)))).collect();
    if parts.len() < 2 {
        anyhow::bail!("rebase-diff needs two or more images; {} found", parts.len());
    }
    let names: Vec<String> = parts.iter().map(|(n, _)| (*n).clone()).collect();
    let elfs: Vec<ElfFile> =
        parts.iter().map(|(n, b)| ElfFile::parse_xtensa(b).with_context(|| (*n).clone())).collect::<Result<_>>()?;
    let report = rebase_diff::rebase_diff(&elfs);
    if args.json {
        return crate::io::print_json(&Report { paths: &names, rebase: &report });
    }
    let mut out = std::io::BufWriter::new(crate::io::text_stdout());
    rebase_diff::write_rebase(&mut out, &names, &report)?;
    Ok(out.flush()?)
}
