use std::path::PathBuf;

use anyhow::{Context, Result};
use q7_elf::ElfFile;
use q7_image::roster::{self, Roster};
use serde::Serialize;

/// The kernel roster (docs/FORMATS.md): `.xt.prop.<mangled>` section names
/// demangled, with the code address each covers; and the opcode -> entry ->
/// name table, joined to a SUNDA-style JSON manifest ({name, opcode}) when
/// one is given, flagged "no manifest (stub)" otherwise.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Xtensa image.
    image: PathBuf,
    /// The JSON header that ships beside the image (manifest or stub).
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    path: String,
    #[serde(flatten)]
    roster: &'a Roster,
}

pub fn run(args: Args) -> Result<()> {
    let bytes = crate::io::read_input(&args.image)?;
    let name = args.image.display().to_string();
    let elf = ElfFile::parse_xtensa(&bytes).with_context(|| name.clone())?;
    let manifest = args.manifest.as_deref().map(crate::io::read_input).transpose()?;
    let roster = Roster::of(&elf, manifest.as_deref());
    if args.json {
        return crate::io::print_json(&Report { path: name, roster: &roster });
    }
    Ok(roster::write_roster(&mut crate::io::text_stdout(), &name, &roster)?)
}
