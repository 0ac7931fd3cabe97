use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use q7_pack::prelink::{self, PrelinkError, Target, Ucpl};
use q7_target::{Artifact, ArtifactKind, Window};

/// Bind an image to a core window as a UCPL image (the prelinker).
///
/// INPUT is a packed load-lib (name.packed.so: the image under -e SYMBOL is
/// taken out), the cleaned image q7 pack saves (name.stripped.so), or a
/// linked image (name.so, linked with ld -q). The image's absolute words are
/// moved by the base delta (the .q7.rebase table, or the R_XTENSA_32
/// relocations of a linked image), .bss is zero-filled, and the result is
/// written as a 32-byte UCPL header followed by the image bytes. Without
/// --base, an image that already lies inside the target window stays where
/// it is, and any other keeps its offset into the window it was linked for
/// (an image linked at cpu0's window start lands at the target window's
/// start). An image without
/// relocations (a vendor-style stripped image) can only be bound at its own
/// link base. Nothing is written on any error.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["core", "single", "all_cores"])))]
pub struct Args {
    /// The image: name.packed.so, name.stripped.so or name.so.
    #[arg(value_name = "INPUT")]
    input: PathBuf,
    /// Bind to SPMD core N (window 0x84000000 + N·0x200000, 2 MiB).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..8))]
    core: Option<u32>,
    /// Bind to the single fat core (window 0x84000000, 32 MiB; core id 0xffffffff).
    #[arg(long)]
    single: bool,
    /// Bind to each of the eight cores: eight files.
    #[arg(long = "all-cores", conflicts_with = "base")]
    all_cores: bool,
    /// Place the image's first byte at ADDR (decimal or 0x-hex), inside the
    /// chosen window.
    #[arg(long, value_name = "ADDR", value_parser = parse_address)]
    base: Option<u32>,
    /// The symbol of the image in a packed load-lib (q7 pack's -e).
    #[arg(short = 'e', long = "symbol", value_name = "SYMBOL", default_value = q7_pack::DEFAULT_SYMBOL)]
    symbol: String,
    /// The UCPL file; with --all-cores a directory (written as
    /// NAME.cpuN.ucpl, NAME being INPUT's name without _cpuN and the .so
    /// suffixes) or a pattern holding `{core}`, e.g. out/op.{core}.ucpl.
    #[arg(short = 'o', long = "output", value_name = "OUT.ucpl|DIR|PATTERN")]
    output: PathBuf,
    /// Say on stderr what was bound where.
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
}

pub fn run(args: Args) -> Result<()> {
    let input = crate::io::read_input(&args.input)?;
    let bind = |target: Target| {
        prelink::prelink(&input, target, Some(&args.symbol))
            .map_err(with_hint)
            .with_context(|| args.input.display().to_string())
    };
    let outputs: Vec<(PathBuf, Ucpl)> = if args.all_cores {
        let mut v = Vec::new();
        for core in 0..8 {
            v.push((all_cores_path(&args.output, &args.input, core)?, bind(Target::core(core))?));
        }
        v
    } else {
        let target = match args.core {
            Some(core) => Target::core(core),
            None => Target::single(),
        };
        let target = match args.base {
            Some(base) => target.at_base(base),
            None => target,
        };
        vec![(args.output.clone(), bind(target)?)]
    };
    write_all(&outputs)?;
    if args.verbose {
        let mut err = std::io::stderr().lock();
        for (path, ucpl) in &outputs {
            let _ = writeln!(err, "{}", describe(&args.input, path, ucpl));
        }
    }
    Ok(())
}

/// The library's message plus the flag that fixes it.
fn with_hint(e: PrelinkError) -> anyhow::Error {
    let hint = match &e {
        PrelinkError::NoSymbol { .. } => "the packer's -e name; pass it with -e",
        PrelinkError::NoSuchCore(_) => "use --single for the fat core",
        _ => return e.into(),
    };
    anyhow::anyhow!("{e} ({hint})")
}

/// Every output or none: a partial set would look like success.
fn write_all(outputs: &[(PathBuf, Ucpl)]) -> Result<()> {
    for (i, (path, ucpl)) in outputs.iter().enumerate() {
        if let Err(e) = crate::io::write_output(path, &ucpl.to_bytes()) {
            for (written, _) in &outputs[..i] {
                let _ = std::fs::remove_file(written);
            }
            return Err(e);
        }
    }
    Ok(())
}

/// `DIR/NAME.cpuN.ucpl`, or the pattern with `{core}` replaced by `cpuN`.
fn all_cores_path(output: &Path, input: &Path, core: u32) -> Result<PathBuf> {
    let text = output.to_string_lossy();
    if text.contains("{core}") {
        return Ok(PathBuf::from(text.replace("{core}", &format!("cpu{core}"))));
    }
    if output.exists() && !output.is_dir() {
        bail!(
            "{}: --all-cores writes eight files: -o must be a directory or a pattern with {{core}}",
            output.display()
        );
    }
    let artifact = Artifact::new(base_name(input), Window::Core(core), ArtifactKind::Ucpl);
    Ok(output.join(artifact.file_name()))
}

/// `prog_cpu0.packed.so` → `prog`.
fn base_name(input: &Path) -> String {
    let name = input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match Artifact::parse(&name) {
        Some(a) => a.name,
        None if name.is_empty() || name.starts_with('.') => "image".into(),
        None => name,
    }
}

fn describe(input: &Path, path: &Path, ucpl: &Ucpl) -> String {
    let h = &ucpl.header;
    let p = &ucpl.provenance;
    let from =
        if p.packed { format!("packed load-lib ({})", p.kind.describe()) } else { p.kind.describe().to_string() };
    let words = match p.patched_words {
        Some(n) => format!("{n} words patched"),
        None => "no relocations".into(),
    };
    let core = prelink::ucpl::show_core_id(h.core_id);
    format!(
        "{}: {from}, link base {:#x} -> {:#x} (delta {:#x}, {words}), core {core}, entry {:#x}, \
         {:#x} image bytes + {:#x} zero-filled, crc-32 {:#010x}: wrote {}",
        input.display(),
        p.link_base,
        h.load_base,
        p.delta(h.load_base),
        h.entry,
        h.image_size,
        h.memory_size - h.image_size,
        h.crc32,
        path.display()
    )
}

fn parse_address(s: &str) -> Result<u32, String> {
    q7_target::num::parse_u32(s).ok_or_else(|| format!("{s:?} is not a 32-bit address (decimal or 0x-hex)"))
}
