use std::path::PathBuf;

use anyhow::{Context, Result};
use q7_elf::ElfFile;
use q7_image::layout::{self, Layout, SetFacts};
use serde::Serialize;

/// Report the memory layout of Xtensa images (docs/FACTS.md): header facts,
/// program headers with their sections, allocated sections, span, core window,
/// headroom, entry offset and constructor tables. Given several images, also
/// check the aperture law: a constant entry offset and windows that tile.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Xtensa ELF32 images (e.g. the eight `name_cpuN.so` of a multicore build),
    /// or `ar` archives of them (each ELF member is one image, `lib.a(member)`).
    #[arg(required = true)]
    images: Vec<PathBuf>,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
    /// Draw the core windows with each image's segments, .bss and headroom
    /// to scale (and magnified to show sections) as an SVG file, instead of
    /// printing the text report.
    #[arg(long, value_name = "OUT.svg")]
    svg: Option<PathBuf>,
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
    for inputs in crate::io::read_image_lists("q7 layout", &args.images)? {
        for (name, range) in &inputs.parts {
            let elf = ElfFile::parse_xtensa(inputs.bytes(range)).with_context(|| name.clone())?;
            images.push(ImageReport { path: name.clone(), layout: Layout::of(&elf) });
        }
    }
    if images.is_empty() {
        anyhow::bail!(
            "no ELF images in {}",
            args.images.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    let layouts: Vec<Layout> = images.iter().map(|i| i.layout.clone()).collect();
    let set = (images.len() > 1).then(|| SetFacts::of(&layouts));
    let report = Report { images, set };
    if let Some(out) = &args.svg {
        let named: Vec<(String, &Layout)> = report
            .images
            .iter()
            .map(|i| {
                (
                    std::path::Path::new(&i.path)
                        .file_name()
                        .map_or(i.path.clone(), |n| n.to_string_lossy().into_owned()),
                    &i.layout,
                )
            })
            .collect();
        let named: Vec<(&str, &Layout)> = named.iter().map(|(n, l)| (n.as_str(), *l)).collect();
        let mut svg = Vec::new();
        layout::write_svg(&mut svg, &named)?;
        crate::io::write_output(out, &svg)?;
        eprintln!(
            "q7 layout: wrote {} ({} image{})",
            out.display(),
            named.len(),
            if named.len() == 1 { "" } else { "s" }
        );
        if !args.json {
            return Ok(());
        }
    }
    if args.json {
        return crate::io::print_json(&report);
    }
    let mut out = crate::io::text_stdout();
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
