use std::path::PathBuf;

use anyhow::{Context, Result};
use q7_elf::ElfFile;
use q7_image::strings::{self, StringsReport};
use serde::Serialize;

/// Printable strings per allocated section, with address and file offset.
/// Bytes of 4-byte-aligned words whose value is an address inside the image
/// are not string bytes (they are pointers, and move with the link base), so
/// the sets of two rebased images compare equal.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Xtensa image, or an `ar` archive (one report per ELF member).
    image: PathBuf,
    /// Only this allocated section.
    #[arg(long, value_name = "S")]
    section: Option<String>,
    /// Shortest run reported.
    #[arg(long, value_name = "N", default_value_t = strings::DEFAULT_MIN)]
    min: usize,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    path: String,
    #[serde(flatten)]
    strings: &'a StringsReport,
}

pub fn run(args: Args) -> Result<()> {
    let inputs = crate::io::read_image_lists("q7 inspect strings", std::slice::from_ref(&args.image))?.remove(0);
    let mut reports = Vec::new();
    for (name, range) in &inputs.parts {
        let elf = ElfFile::parse_xtensa(inputs.bytes(range)).with_context(|| name.clone())?;
        let report = StringsReport::of(&elf, args.min, args.section.as_deref()).with_context(|| name.clone())?;
        reports.push((name.clone(), report));
    }
    crate::io::print_per_image(
        &inputs,
        &reports,
        args.json,
        |path, strings| Report { path: path.to_string(), strings },
        |out, name, report| strings::write_strings(out, name, report),
    )
}
