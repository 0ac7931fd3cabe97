use std::path::PathBuf;

use anyhow::Result;
use q7_build::lsp;
use q7_target::memmap::Window;

/// Write the nine linker support packages (lsp_fll_load_cpu0..7 and
/// lsp_fll_load_cpu_single): `specs` and `ldscripts/elf32xtensa.{x,xbn,xn,xr,xu}`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory that receives the LSP directories (created if missing).
    #[arg(short, long, default_value = "lsp_fll_load_cpus")]
    out: PathBuf,
    /// Write only this window's LSP: 0..7 or `single`.
    #[arg(long, value_parser = parse_window)]
    core: Option<Window>,
    /// List what was written as JSON.
    #[arg(long)]
    json: bool,
}

fn parse_window(s: &str) -> Result<Window, String> {
    if s == "single" {
        return Ok(Window::Single);
    }
    match s.parse::<u32>() {
        Ok(i) if i < 8 => Ok(Window::Core(i)),
        _ => Err(format!("`{s}` is not a core: use 0..7 or `single`")),
    }
}

pub fn run(args: Args) -> Result<()> {
    let files = match args.core {
        Some(w) => lsp::lsp_files(w),
        None => lsp::all_lsp_files(),
    };
    let mut written = Vec::new();
    for f in &files {
        let path = args.out.join(&f.path);
        crate::io::write_output(&path, f.contents.as_bytes())?;
        written.push(path.display().to_string());
    }
    if args.json {
        crate::io::print_json(&written)?;
    } else {
        println!("wrote {} files under {}", written.len(), args.out.display());
    }
    Ok(())
}
