use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use q7_pack::prelink::{write_ucpl_report, Ucpl};
use serde_json::json;

/// Print and validate a UCPL image: the header fields, then each check
/// (magic, version, header size, file size = 32 + image bytes, image bytes ≤
/// memory size, core id, base..base+memory size inside the core's window,
/// entry inside the image bytes, CRC-32 of the image bytes). Exits non-zero
/// when a check fails.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The UCPL file (e.g. build/name.cpu3.ucpl).
    file: PathBuf,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let bytes = crate::io::read_input(&args.file)?;
    let name = args.file.display().to_string();
    let view = Ucpl::parse(&bytes).with_context(|| name.clone())?;
    let validation = view.validate();
    if args.json {
        let h = &view.header;
        let checks: Vec<_> =
            validation.checks.iter().map(|c| json!({ "name": c.name, "ok": c.ok, "detail": c.detail })).collect();
        crate::io::print_json(&json!({
            "path": name,
            "file_size": view.file_size(),
            "header": {
                "magic": String::from_utf8_lossy(&h.magic),
                "version": h.version,
                "header_size": h.header_size,
                "load_base": h.load_base,
                "entry": h.entry,
                "image_size": h.image_size,
                "memory_size": h.memory_size,
                "core_id": h.core_id,
                "crc32": h.crc32,
            },
            "checks": checks,
            "valid": validation.is_valid(),
        }))?;
    } else {
        write_ucpl_report(&mut crate::io::text_stdout(), &name, &view, &validation)?;
    }
    if let Some(first) = validation.failures().next() {
        let failed = validation.failures().count();
        bail!("{name}: invalid UCPL image: {failed} check(s) failed, first {}: {}", first.name, first.detail);
    }
    Ok(())
}
