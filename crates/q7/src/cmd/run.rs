//! `q7 run`: execute a built op on the simulated 8-core machine.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use q7_sim::machine::{RunEnd, RunLimits};
use q7_sim::npy::{self, DType};
use q7_sim::op::{self, Arg, OpImage, OpOptions, OpReport};
use q7_target::memmap::Window;

/// Run a built op on real tensors in the Vision-Q7 simulator.
///
/// IMAGE is a build directory (NAME_cpu0..7.* for an SPMD build, or a single
/// NAME.*) or one image: a linked NAME.so, NAME.stripped.so, NAME.packed.so
/// or a UCPL file. The kernel arguments (--in, --scalar, --int, --double) are
/// passed in the order given. Every core starts at `_start` with the launch
/// block of sdk/ABI.md; console output is prefixed with the core id.
///
/// get_dst_tensor() returns a destination tensor with the shape and dtype of
/// the first input unless --dst-shape/--dst-dtype say otherwise. The output
/// is the tensor core 0 returns, or the destination tensor when that is what
/// it returns (multicore ops) or when it returns nothing.
///
/// Checks the hardware does not make are on by default: stores outside every
/// live tensor and allocation, two cores writing the same output element,
/// reads of never-written output. Findings fail the run.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Build directory or image file.
    #[arg(value_name = "IMAGE")]
    image: PathBuf,
    /// The op function to run (as in the schema).
    #[arg(long = "fn", value_name = "NAME")]
    function: String,
    /// A tensor argument from a .npy file.
    #[arg(long = "in", value_name = "FILE.npy")]
    inputs: Vec<PathBuf>,
    /// A torch::Scalar argument.
    #[arg(long = "scalar", value_name = "X", allow_negative_numbers = true)]
    scalars: Vec<f64>,
    /// An int64_t argument.
    #[arg(long = "int", value_name = "N", allow_negative_numbers = true)]
    ints: Vec<i64>,
    /// A double argument.
    #[arg(long = "double", value_name = "X", allow_negative_numbers = true)]
    doubles: Vec<f64>,
    /// Write the output tensor here.
    #[arg(long = "out", value_name = "FILE.npy")]
    out: Option<PathBuf>,
    /// 8 for the SPMD images of a --multicore build (default when present), 1 for one core.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
    cores: Option<u32>,
    /// Destination tensor shape, e.g. 1000,4 (default: the first input's).
    #[arg(long = "dst-shape", value_name = "D0,D1,...", value_delimiter = ',')]
    dst_shape: Option<Vec<usize>>,
    /// Destination tensor dtype (f32, f16, bf16, i32, ...; default: the first input's).
    #[arg(long = "dst-dtype", value_name = "TYPE")]
    dst_dtype: Option<String>,
    /// Function index in the wrapper's table, skipping the lookup by name.
    #[arg(long, value_name = "N")]
    index: Option<u32>,
    /// Print every executed instruction (very slow).
    #[arg(long)]
    trace: bool,
    /// Print instructions and cycles per core (cost model: q7_sim::cost).
    #[arg(long)]
    stats: bool,
    /// Seed for the core interleaving (0 = plain round-robin).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Instruction budget over all cores.
    #[arg(long = "max-insns", default_value_t = 20_000_000_000)]
    max_insns: u64,
    /// Wall-clock limit in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    timeout: u64,
    /// Turn off the stray-store, race and unwritten-read checks.
    #[arg(long = "no-checks")]
    no_checks: bool,
    /// Print a JSON report on stdout (core output goes into it).
    #[arg(long)]
    json: bool,
}

/// Kernel arguments in command-line order.
fn kernel_args(args: &Args) -> Result<Vec<Arg>> {
    let mut order = Vec::new();
    let mut raw = std::env::args().skip(1).peekable();
    while let Some(a) = raw.next() {
        let flag = a.split('=').next().unwrap_or_default().to_string();
        if matches!(flag.as_str(), "--in" | "--scalar" | "--int" | "--double") {
            order.push(flag);
            if !a.contains('=') {
                raw.next();
            }
        }
    }
    // Fall back to the kinds' own order when the process arguments were not
    // these (a library caller).
    let counts = (args.inputs.len(), args.scalars.len(), args.ints.len(), args.doubles.len());
    let seen = |f: &str| order.iter().filter(|o| *o == f).count();
    if (seen("--in"), seen("--scalar"), seen("--int"), seen("--double")) != counts {
        order = std::iter::repeat_n("--in".to_string(), counts.0)
            .chain(std::iter::repeat_n("--scalar".to_string(), counts.1))
            .chain(std::iter::repeat_n("--int".to_string(), counts.2))
            .chain(std::iter::repeat_n("--double".to_string(), counts.3))
            .collect();
    }
    let (mut t, mut s, mut i, mut d) = (0, 0, 0, 0);
    let mut out = Vec::new();
    for flag in order {
        match flag.as_str() {
            "--in" => {
                let path = &args.inputs[t];
                t += 1;
                let bytes = crate::io::read_input(path)?;
                let array = npy::read(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                let name = path.file_stem().map_or("input".into(), |s| s.to_string_lossy().into_owned());
                out.push(Arg::Tensor { name, array });
            }
            "--scalar" => {
                out.push(Arg::Scalar(args.scalars[s]));
                s += 1;
            }
            "--int" => {
                out.push(Arg::Int(args.ints[i]));
                i += 1;
            }
            _ => {
                out.push(Arg::Double(args.doubles[d]));
                d += 1;
            }
        }
    }
    Ok(out)
}

/// The images of a build: (per-core files in core order, or one file).
struct Found {
    files: Vec<PathBuf>,
    spmd: bool,
}

const SUFFIXES: [&str; 4] = [".so", ".stripped.so", ".packed.so", ".ucpl"];

/// `NAME_cpuK.so` → (NAME, K, ".so"); `NAME.cpuK.ucpl` likewise.
fn split_core_name(file: &str) -> Option<(String, u32, &'static str)> {
    for suffix in SUFFIXES {
        let Some(stem) = file.strip_suffix(suffix) else { continue };
        for sep in ["_cpu", ".cpu"] {
            if let Some(at) = stem.rfind(sep) {
                if let Ok(k) = stem[at + sep.len()..].parse::<u32>() {
                    if suffix == ".so" && (stem.ends_with(".stripped") || stem.ends_with(".packed")) {
                        continue;
                    }
                    return Some((stem[..at].to_string(), k, suffix));
                }
            }
        }
    }
    None
}

fn find_images(path: &Path) -> Result<Found> {
    if path.is_file() {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let Some((stem, _, suffix)) = split_core_name(&name) {
            let dir = path.parent().unwrap_or(Path::new("."));
            let sep = if name.contains(&format!("{stem}_cpu")) { "_cpu" } else { ".cpu" };
            let files: Vec<PathBuf> = (0..8).map(|k| dir.join(format!("{stem}{sep}{k}{suffix}"))).collect();
            if files.iter().all(|f| f.is_file()) {
                return Ok(Found { files, spmd: true });
            }
        }
        return Ok(Found { files: vec![path.to_path_buf()], spmd: false });
    }
    let entries: Vec<String> = std::fs::read_dir(path)
        .with_context(|| format!("{}: cannot read directory", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    for suffix in SUFFIXES {
        let cpu0: Vec<&String> =
            entries.iter().filter(|e| split_core_name(e).is_some_and(|(_, k, s)| k == 0 && s == suffix)).collect();
        if let Some(first) = cpu0.first() {
            return find_images(&path.join(first));
        }
    }
    for suffix in [".so", ".stripped.so", ".packed.so", ".ucpl"] {
        let single: Vec<&String> = entries
            .iter()
            .filter(|e| {
                e.ends_with(suffix) && (suffix != ".so" || !(e.ends_with(".stripped.so") || e.ends_with(".packed.so")))
            })
            .collect();
        match single.as_slice() {
            [one] => return Ok(Found { files: vec![path.join(one)], spmd: false }),
            [] => {}
            many => bail!(
                "{}: several images ({}); name one",
                path.display(),
                many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
        }
    }
    bail!("{}: no op images (NAME_cpu0..7.so / NAME.so / .stripped.so / .packed.so / .ucpl)", path.display())
}

/// The unstripped `.so` next to a stripped/packed image, for its symbols.
fn sibling_so(file: &Path) -> Option<PathBuf> {
    let name = file.file_name()?.to_string_lossy().into_owned();
    let stem = name.strip_suffix(".stripped.so").or_else(|| name.strip_suffix(".packed.so"))?;
    let candidate = file.with_file_name(format!("{stem}.so"));
    candidate.is_file().then_some(candidate)
}

fn load_images(found: &Found, cores: u32) -> Result<Vec<OpImage>> {
    let mut images = Vec::new();
    for (k, file) in found.files.iter().enumerate().take(cores as usize) {
        let bytes = crate::io::read_input(file)?;
        let window = if found.spmd {
            Window::Core(k as u32)
        } else if bytes.starts_with(b"UCPL ") {
            let header = q7_pack::prelink::UcplHeader::decode(&bytes).with_context(|| file.display().to_string())?;
            header.window().unwrap_or(Window::Single)
        } else {
            Window::Single
        };
        let mut image = OpImage::load(&bytes, window).with_context(|| file.display().to_string())?;
        if image.symbols.is_empty() {
            if let Some(so) = sibling_so(file) {
                image.add_symbols_from_sibling(&crate::io::read_input(&so)?);
            }
        }
        images.push(image);
    }
    Ok(images)
}

pub fn run(args: Args) -> Result<()> {
    let found = find_images(&args.image)?;
    let cores = match (args.cores, found.spmd) {
        (Some(8), false) | (Some(2..=7), false) => bail!(
            "{}: a single-core image runs on one core; build with --multicore for {} cores",
            args.image.display(),
            args.cores.unwrap_or(8)
        ),
        (Some(n), _) => n,
        (None, true) => 8,
        (None, false) => 1,
    };
    let images = load_images(&found, cores)?;
    let kernel_args = kernel_args(&args)?;
    let dst = match (&args.dst_shape, &args.dst_dtype) {
        (None, None) => None,
        (shape, dtype) => {
            let first = kernel_args.iter().find_map(|a| match a {
                Arg::Tensor { array, .. } => Some((array.dtype, array.shape.clone())),
                _ => None,
            });
            let dtype = match dtype {
                Some(name) => DType::parse_name(name).with_context(|| format!("unknown dtype `{name}`"))?,
                None => first.as_ref().map_or(DType::F32, |f| f.0),
            };
            let shape = shape.clone().or(first.map(|f| f.1)).unwrap_or_default();
            Some((dtype, shape))
        }
    };
    let options = OpOptions {
        limits: RunLimits {
            max_insns: args.max_insns,
            wall: Duration::from_secs(args.timeout),
            seed: args.seed,
            ..RunLimits::default()
        },
        checks: !args.no_checks,
        trace: args.trace,
        stream_output: !args.json,
        heap_per_core: None,
        dst,
        function_index: args.index,
    };
    let session = op::prepare(images, &args.function, &kernel_args, &options)?;
    let maps: Vec<String> = (0..cores as usize).map(|c| session.machine.mem.describe_map(c)).collect();
    let report = session.run();
    if let (Some(path), Some(output)) = (&args.out, &report.output) {
        if report.failure(|_| String::new()).is_none() {
            crate::io::write_output(path, &npy::write(output))?;
        }
    }
    if args.json {
        print_json_report(&args, &report)?;
    } else if args.stats {
        print_stats(&report);
    }
    for finding in &report.findings {
        eprintln!("q7 run: check: {finding}");
    }
    if let Some(failure) = report.failure(|c| maps[c].clone()) {
        bail!("{failure}");
    }
    let [stray, races, unwritten] = report.finding_counts;
    if stray + races + unwritten > 0 {
        bail!("checks failed: {stray} stray stores, {races} racing stores, {unwritten} reads of unwritten output (--no-checks to run without)");
    }
    if args.out.is_some() && report.output.is_none() {
        bail!("the op produced no output tensor");
    }
    Ok(())
}

fn print_stats(report: &OpReport) {
    eprintln!("core  instructions        cycles  blocks");
    let (mut insns, mut cycles) = (0u64, 0u64);
    for s in &report.stats {
        eprintln!("{:>4}  {:>12}  {:>12}  {:>6}", s.core, s.instructions, s.cycles, s.blocks_decoded);
        insns += s.instructions;
        cycles += s.cycles;
    }
    let secs = report.wall.as_secs_f64().max(1e-9);
    eprintln!(
        " all  {insns:>12}  {cycles:>12}          {:.3} s, {:.1} M instructions/s",
        secs,
        insns as f64 / secs / 1e6
    );
}

fn print_json_report(args: &Args, report: &OpReport) -> Result<()> {
    let end = match report.end {
        RunEnd::Exited => "exited",
        RunEnd::Fault(_) => "fault",
        RunEnd::Budget => "budget",
        RunEnd::Timeout => "timeout",
    };
    let value = serde_json::json!({
        "function": args.function,
        "function_index": report.function_index,
        "cores": report.stats.len(),
        "end": end,
        "failure": report.failure(|_| String::new()),
        "output": report.output.as_ref().map(|o| serde_json::json!({
            "path": args.out,
            "dtype": o.dtype.to_string(),
            "shape": o.shape,
            "source": report.output_source,
        })),
        "stats": report.stats,
        "wall_seconds": report.wall.as_secs_f64(),
        "findings": report.findings.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
        "finding_counts": {
            "stray_stores": report.finding_counts[0],
            "races": report.finding_counts[1],
            "unwritten_reads": report.finding_counts[2],
        },
        "stdout": String::from_utf8_lossy(&report.stdout),
        "stderr": String::from_utf8_lossy(&report.stderr),
    });
    crate::io::print_json(&value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_names() {
        assert_eq!(split_core_name("relu_cpu3.so"), Some(("relu".into(), 3, ".so")));
        assert_eq!(split_core_name("relu_cpu0.stripped.so"), Some(("relu".into(), 0, ".stripped.so")));
        assert_eq!(split_core_name("relu.cpu7.ucpl"), Some(("relu".into(), 7, ".ucpl")));
        assert_eq!(split_core_name("relu.so"), None);
    }

    #[test]
    fn f32_arrays_round_trip() {
        let a = q7_sim::npy::Array::from_f32(vec![2], &[1.0, -2.0]);
        assert_eq!(npy::read(&npy::write(&a)).unwrap().to_f32().unwrap(), vec![1.0, -2.0]);
    }
}
