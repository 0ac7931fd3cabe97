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
    /// Xtensa image, or an `ar` archive (one roster per ELF member).
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
    let inputs = crate::io::read_image_lists("q7 inspect roster", std::slice::from_ref(&args.image))?.remove(0);
    let manifest = args.manifest.as_deref().map(crate::io::read_input).transpose()?;
    let mut rosters = Vec::new();
    for (name, range) in &inputs.parts {
        let elf = ElfFile::parse_xtensa(inputs.bytes(range)).with_context(|| name.clone())?;
        rosters.push((name.clone(), Roster::of(&elf, manifest.as_deref())));
    }
    crate::io::print_per_image(
        &inputs,
        &rosters,
        args.json,
        |path, roster| Report { path: path.to_string(), roster },
        |out, name, roster| roster::write_roster(out, name, roster),
    )
}
