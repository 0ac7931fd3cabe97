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
    /// Xtensa image.
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
    let bytes = crate::io::read_input(&args.image)?;
    let name = args.image.display().to_string();
    let elf = ElfFile::parse_xtensa(&bytes).with_context(|| name.clone())?;
    let report = StringsReport::of(&elf, args.min, args.section.as_deref()).with_context(|| name.clone())?;
    if args.json {
        return crate::io::print_json(&Report { path: name, strings: &report });
    }
    Ok(strings::write_strings(&mut crate::io::text_stdout(), &name, &report)?)
}
