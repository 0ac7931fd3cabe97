use std::path::PathBuf;

use anyhow::{Context, Result};
use q7_elf::ElfFile;
use q7_image::layout::{self, Layout, SetFacts};
use serde::Serialize;

/// Report the memory layout of Xtensa images (seed 002): header facts,
/// program headers with their sections, allocated sections, span, core window,
/// headroom, entry offset and constructor tables. Given several images, also
/// check the aperture law: a constant entry offset and windows that tile.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Xtensa ELF32 images (e.g. the eight `name_cpuN.so` of a multicore build).
    #[arg(required = true)]
    images: Vec<PathBuf>,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report {
    images: Vec<ImageReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    set: Option<SetFacts>,
}

#[derive(Serialize)]
struct ImageReport {
    path: String,
    #[serde(flatten)]
    layout: Layout,
}

pub fn run(args: Args) -> Result<()> {
    let mut images = Vec::new();
    for path in &args.images {
        let bytes = crate::io::read_input(path)?;
        let elf = ElfFile::parse_xtensa(&bytes).with_context(|| path.display().to_string())?;
        images.push(ImageReport { path: path.display().to_string(), layout: Layout::of(&elf) });
    }
    let layouts: Vec<Layout> = images.iter().map(|i| i.layout.clone()).collect();
    let set = (images.len() > 1).then(|| SetFacts::of(&layouts));
    let report = Report { images, set };
    if args.json {
        return crate::io::print_json(&report);
    }
    let mut out = std::io::stdout().lock();
    for (i, img) in report.images.iter().enumerate() {
        if i > 0 {
            use std::io::Write;
            writeln!(out)?;
        }
        layout::write_layout(&mut out, &img.path, &img.layout)?;
    }
    if let Some(set) = &report.set {
        use std::io::Write;
        writeln!(out)?;
        layout::write_set(&mut out, set)?;
    }
    Ok(())
}
