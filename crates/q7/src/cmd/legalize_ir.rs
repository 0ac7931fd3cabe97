use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};

/// Rewrite textual LLVM IR for clang-22's Xtensa backend: the step `q7 build`
/// runs between `clang-22 -S -emit-llvm` and `llc-22` (`-v` shows it).
///
/// Selects between two float constants (and `uitofp`/`sitofp` of an `i1`,
/// scalar or vector) become integer selects plus a bitcast, which the backend
/// compiles instead of crashing. A function that calls `llvm.va_start` or
/// uses half precision is refused, by name (sdk/README.md, "clang-22 Xtensa
/// defects"). `--pad-stack` works around the register scavenger's failure.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The IR clang wrote (`clang-22 --target=xtensa ... -S -emit-llvm`).
    #[arg(value_name = "INPUT.ll")]
    input: PathBuf,
    /// Where to write the rewritten IR.
    #[arg(short = 'o', long = "output", value_name = "OUT.ll")]
    output: PathBuf,
    /// Give FUNCTION (its IR name) an unused 2 KiB stack object, so the
    /// backend reserves the emergency spill slot it otherwise lacks (what
    /// `q7 build` does when llc reports "Cannot scavenge register"). Repeatable.
    #[arg(long = "pad-stack", value_name = "FUNCTION")]
    pad_stack: Vec<String>,
    /// Say how many instructions were rewritten.
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
}

pub fn run(args: Args) -> Result<()> {
    let bytes = crate::io::read_input(&args.input)?;
    if bytes.starts_with(b"BC\xC0\xDE") {
        bail!("{}: LLVM bitcode; give textual IR (clang -S -emit-llvm)", args.input.display());
    }
    let text =
        String::from_utf8(bytes).map_err(|_| anyhow!("{}: not textual LLVM IR (not UTF-8)", args.input.display()))?;
    let module_line = |l: &str| {
        ["; ModuleID", "source_filename", "target triple", "define ", "declare "].iter().any(|p| l.starts_with(p))
    };
    if !text.lines().any(module_line) {
        bail!("{}: not textual LLVM IR (no ModuleID, target triple, define or declare line)", args.input.display());
    }
    let legal = match q7_build::legalize::legalize_padded(&text, &args.pad_stack) {
        Ok(legal) => legal,
        Err(refusal) => bail!("{}: {refusal}", args.input.display()),
    };
    crate::io::write_output(&args.output, legal.ir.as_bytes())?;
    if args.verbose {
        eprintln!("{}: {} instruction(s) rewritten", args.input.display(), legal.rewrites);
    }
    Ok(())
}
