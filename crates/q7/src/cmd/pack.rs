use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use q7_pack::PackOptions;

use super::strip::CleanArgs;

/// Package a linked Xtensa image as a relocatable load-lib: a native
/// xt-pkg-loadlib, with the same options.
///
/// Strips and cleans the image as `q7 strip` does (saved with -s), then wraps
/// it as a relocatable ELF32 Xtensa object (-o, same byte order as the input)
/// whose .rodata holds the cleaned image as one 4-byte-aligned blob, with the
/// global symbol SYMBOL (-e, default lib_func) at its first byte. GNU
/// xtensa-lx106-elf-ld -r links it like any object. Nothing is written when
/// the input is not a linked Xtensa image.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The linked device image (e.g. build/name.so or build/name_cpu3.so).
    #[arg(value_name = "INPUT.so")]
    input: PathBuf,
    /// Where to write the packed load-lib object (e.g. build/name.packed.so).
    #[arg(short = 'o', long = "output", value_name = "OUT.packed.so")]
    output: PathBuf,
    /// Also save the cleaned image: exactly the bytes embedded at SYMBOL
    /// (e.g. build/name.stripped.so).
    #[arg(short = 's', long = "save-stripped", value_name = "OUT.stripped.so")]
    stripped: Option<PathBuf>,
    /// The global symbol at the first byte of the embedded image; the
    /// prelinker finds the image by it.
    #[arg(short = 'e', long = "symbol", value_name = "SYMBOL", default_value = q7_pack::DEFAULT_SYMBOL)]
    symbol: String,
    #[command(flatten)]
    clean: CleanArgs,
    #[command(flatten)]
    xtensa: XtensaConfig,
}

/// xt-pkg-loadlib's core-configuration triple. q7 packs without a core
/// configuration, so these are accepted for drop-in use and ignored.
#[derive(Debug, clap::Args)]
struct XtensaConfig {
    /// Accepted and ignored (xt-pkg-loadlib compatibility; q7 needs no core
    /// configuration to pack). Noted under -v.
    #[arg(long = "xtensa-core", value_name = "CORE")]
    core: Option<String>,
    /// Accepted and ignored, like --xtensa-core.
    #[arg(long = "xtensa-params", value_name = "DIR")]
    params: Option<String>,
    /// Accepted and ignored, like --xtensa-core.
    #[arg(long = "xtensa-system", value_name = "DIR")]
    system: Option<String>,
}

impl XtensaConfig {
    fn given(&self) -> Vec<String> {
        [("core", &self.core), ("params", &self.params), ("system", &self.system)]
            .into_iter()
            .filter_map(|(name, v)| v.as_ref().map(|v| format!("--xtensa-{name}={v}")))
            .collect()
    }
}

pub fn run(args: Args) -> Result<()> {
    q7_pack::check_symbol_name(&args.symbol)?;
    if let Some(stripped) = &args.stripped {
        if same_path(stripped, &args.output) {
            bail!("-o and -s both name {}; they must be two files", args.output.display());
        }
    }
    let input = crate::io::read_input(&args.input)?;
    let mut log = args.clean.log();
    for option in args.xtensa.given() {
        let _ = writeln!(log, "note: {option} ignored: q7 packs without an Xtensa core configuration");
    }
    let opts = PackOptions { symbol: args.symbol.clone(), strip: args.clean.options() };
    let packed = q7_pack::pack(&input, &opts, &mut log).with_context(|| args.input.display().to_string())?;

    if let Some(path) = &args.stripped {
        crate::io::write_output(path, &packed.stripped)?;
        let _ = writeln!(log, "wrote {} ({} bytes)", path.display(), packed.stripped.len());
    }
    if let Err(e) = crate::io::write_output(&args.output, &packed.packed) {
        // Both outputs or neither: a lone cleaned image would look like success.
        if let Some(path) = &args.stripped {
            let _ = std::fs::remove_file(path);
        }
        return Err(e);
    }
    let _ = writeln!(log, "wrote {} ({} bytes)", args.output.display(), packed.packed.len());
    Ok(())
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (std::path::absolute(a), std::path::absolute(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
