use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use q7_image::carve::{self, CarveReport};
use serde::Serialize;

/// Carve embedded Xtensa images out of a host file (docs/FACTS.md): every
/// `\x7fELF` sized by its header and validated (ELF32 LE EXEC Xtensa
/// e_flags 0x300), byte-identical copies collapsed by sha256; for an x86-64
/// host library also the exported `*_get` getters decoded to the blob and
/// the manifest or stub each returns; for a flat [JSON | ELF] container the
/// items in order. Reports whether the modes agree.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Host library, flat container or any file to scan.
    file: PathBuf,
    /// Write each distinct image to DIR/<sha256[0:16]>.elf (atomically).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    path: String,
    #[serde(flatten)]
    carve: &'a CarveReport,
    written: Vec<String>,
}

/// Files this large get a progress bar (when stderr is a terminal).
const PROGRESS_FROM: usize = 64 << 20;

pub fn run(args: Args) -> Result<()> {
    let path = &args.file;
    let data = carve::map_file(path).with_context(|| format!("{}: cannot read", path.display()))?;
    if data.is_empty() {
        bail!("{}: empty file (0 bytes)", path.display());
    }
    let show = std::io::stderr().is_terminal() && data.len() >= PROGRESS_FROM;
    let mut progress = |done: u64, total: u64| {
        if show {
            draw_progress(done, total);
        }
    };
    let report = carve::carve(&data, &mut progress);
    if show {
        eprintln!();
    }
    let mut written = Vec::new();
    if let Some(dir) = &args.out {
        for image in &report.distinct {
            let start = image.offsets[0] as usize;
            let target = dir.join(image.file_name());
            crate::io::write_output(&target, &data[start..start + image.size as usize])?;
            written.push(target.display().to_string());
        }
    }
    if args.json {
        return crate::io::print_json(&Report { path: path.display().to_string(), carve: &report, written });
    }
    // One write per buffer, not per line: a large host has a line per hit.
    let mut out = std::io::BufWriter::new(crate::io::text_stdout());
    carve::write_carve(&mut out, &path.display().to_string(), &report)?;
    if !written.is_empty() {
        writeln!(out, "\n  wrote {} distinct images", written.len())?;
        for w in &written {
            writeln!(out, "    {w}")?;
        }
    }
    out.flush()?;
    Ok(())
}

fn draw_progress(done: u64, total: u64) {
    const WIDTH: u64 = 40;
    let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH);
    let bar: String = (0..WIDTH).map(|i| if i < filled { '#' } else { ' ' }).collect();
    eprint!("\rcarving [{bar}] {} / {} MiB", done >> 20, total >> 20);
    let _ = std::io::stderr().flush();
}
