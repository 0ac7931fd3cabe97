//! The flags `q7 run`, `q7 profile` and `q7 debug` share, and what they do
//! with them: open the op, read the inputs, load the machine, run the
//! session (`q7_sim::op`), then write the output and report.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::ArgMatches;
use q7_sim::machine::RunLimits;
use q7_sim::npy::{self, Array};
use q7_sim::op::profile::{Estimate, OpProfile};
use q7_sim::op::{
    ArgValue, Destination, Failure, Number, OpError, OpLibrary, OpOptions, OpReport, OpSession, TensorArg,
};
use q7_target::schema::ArgKind;
use q7_target::DType;

/// The flags `q7 run`, `q7 profile` and `q7 debug` share.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Build directory or image file.
    #[arg(value_name = "IMAGE")]
    pub(super) image: PathBuf,
    /// The function to run: compute function or op name (as in the schema).
    #[arg(long = "fn", value_name = "NAME")]
    pub(super) function: String,
    /// A tensor argument from a .npy file.
    #[arg(long = "in", value_name = "FILE.npy")]
    inputs: Vec<PathBuf>,
    /// A number, converted to the schema's type for that argument.
    #[arg(long = "arg", value_name = "X", allow_negative_numbers = true, value_parser = parse_number)]
    numbers: Vec<Number>,
    /// A torch::Scalar argument (schema type Scalar).
    #[arg(long = "scalar", value_name = "X", allow_negative_numbers = true)]
    scalars: Vec<f64>,
    /// An int64_t argument (schema type int).
    #[arg(long = "int", value_name = "N", allow_negative_numbers = true)]
    ints: Vec<i64>,
    /// A double argument (schema type float).
    #[arg(long = "double", value_name = "X", allow_negative_numbers = true)]
    doubles: Vec<f64>,
    /// Write the output tensor here (only when the run succeeds).
    #[arg(long = "out", value_name = "FILE.npy")]
    pub(super) out: Option<PathBuf>,
    /// Write --out even when the run fails (a fault, a finding, --strict).
    #[arg(long = "out-on-failure", requires = "out")]
    out_on_failure: bool,
    /// 8 for the SPMD images of a multicore build (default when present), fewer to run fewer cores.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub(super) cores: Option<u32>,
    /// Destination tensor shape, e.g. 1000,4 (default: the shape function's, else the first input's).
    #[arg(long = "dst-shape", value_name = "D0,D1,...", value_delimiter = ',')]
    dst_shape: Option<Vec<usize>>,
    /// Destination tensor dtype (f32, f16, bf16, i32, ...; default: the shape function's, else the first input's).
    #[arg(long = "dst-dtype", value_name = "TYPE")]
    dst_dtype: Option<String>,
    /// Function index in the wrapper's table, skipping the lookup by name.
    #[arg(long, value_name = "N")]
    index: Option<u32>,
    /// Print every executed instruction (very slow).
    #[arg(long)]
    trace: bool,
    /// Print instructions and cycles per core (the memory-class cost model of `q7 profile`, docs/COST_MODEL.md).
    #[arg(long)]
    pub(super) stats: bool,
    /// Seed for the core interleaving (0 = plain round-robin).
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// How the cores' code runs: jit compiles hot blocks to host code (the
    /// interpreter runs the rest; same results, counts and reports), interp
    /// interprets everything. `q7 profile` and --trace always interpret.
    #[arg(long, value_enum, default_value_t = EngineChoice::Jit)]
    pub(super) engine: EngineChoice,
    /// Host threads the cores run on (default: the host's available parallelism, at most 8). Runs with checks on, --stats, --seed or --trace run round-robin on one.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(super) threads: Option<u32>,
    /// Run the cores round-robin on one host thread, as --trace, q7 profile and q7 debug always do.
    #[arg(long, conflicts_with = "threads")]
    pub(super) deterministic: bool,
    /// Instruction budget over all cores.
    #[arg(long = "max-insns", default_value_t = 20_000_000_000)]
    max_insns: u64,
    /// Wall-clock limit in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub(super) timeout: u64,
    /// Turn off q7's stray-store, race and unwritten-read checks (not the SDK's).
    #[arg(long = "no-checks")]
    no_checks: bool,
    /// Turn off the SDK's runtime checks (TCM copy ranges, accessor dtype and rank), as on hardware.
    #[arg(long = "no-sdk-checks")]
    pub(super) no_sdk_checks: bool,
    /// Fail the run when output elements were never written (else a note).
    #[arg(long)]
    strict: bool,
    /// Print a JSON report on stdout (core output goes into it).
    #[arg(long)]
    pub(super) json: bool,
    /// On a fault, also print the faulting core's memory map (with --native: a host compile error whole).
    #[arg(short, long)]
    pub(super) verbose: bool,
}

/// `--engine`: the simulator's back end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineChoice {
    Interp,
    Jit,
}

impl EngineChoice {
    pub fn engine(self) -> q7_sim::jit::Engine {
        match self {
            EngineChoice::Interp => q7_sim::jit::Engine::Interp,
            EngineChoice::Jit => q7_sim::jit::Engine::JIT,
        }
    }
}

fn parse_number(text: &str) -> Result<Number, String> {
    if let Ok(i) = text.parse::<i64>() {
        return Ok(Number::Int(i));
    }
    // A whole number past 64 bits would round to a float that fits (and
    // -2^63-1 would become i64::MIN): refused, whatever the schema wants.
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{text}` is outside the 64-bit integer range (write it with a decimal point for a float)"
        ));
    }
    text.parse::<f64>().map(Number::Float).map_err(|_| format!("`{text}` is not a number"))
}

/// The most bytes an input `.npy` may have: all of tensor memory plus room
/// for a header.
const MAX_NPY: u64 = q7_target::memmap::TENSOR_MAX as u64 + (1 << 20);

/// The kernel-argument flags, as (position on the command line, kind).
fn argument_order(matches: Option<&ArgMatches>, args: &Args) -> Vec<(usize, &'static str)> {
    let flags = [("inputs", args.inputs.len()), ("numbers", args.numbers.len()), ("scalars", args.scalars.len())];
    let flags = flags.into_iter().chain([("ints", args.ints.len()), ("doubles", args.doubles.len())]);
    let mut order = Vec::new();
    for (id, count) in flags {
        let positions: Vec<usize> = matches.and_then(|m| m.indices_of(id)).map(|i| i.collect()).unwrap_or_default();
        // Without matches (a library caller), the kinds' own order.
        let base = order.len() * 1_000_000;
        for k in 0..count {
            order.push((positions.get(k).copied().unwrap_or(base + k), id));
        }
    }
    order.sort();
    order
}

/// Runs the op as the flags say on the profiling path (what `q7 profile` runs).
pub fn execute_profiled(args: &Args, matches: Option<&ArgMatches>) -> Result<(OpReport, OpProfile)> {
    with_session(args, matches, |s| s.run_profiled(), |r| &mut r.0)
}

/// Runs the op as the flags say, unpriced.
pub fn execute(args: &Args, matches: Option<&ArgMatches>) -> Result<OpReport> {
    with_session(args, matches, |s| s.run(), |r| r)
}

/// Opens the op, reads the inputs, loads the machine as the flags say and
/// hands the session (which borrows the opened op) to `run`; a run with
/// findings then runs again to locate them (their call stacks), `report`
/// naming the report in `run`'s result.
pub(super) fn with_session<R>(
    args: &Args,
    matches: Option<&ArgMatches>,
    run: impl FnOnce(OpSession<'_>) -> Result<R, OpError>,
    report: impl FnOnce(&mut R) -> &mut OpReport,
) -> Result<R> {
    // Ctrl-C stops the simulated run (and is reported) rather than q7.
    let (_ctrl_c, interrupt) = q7_sim::interrupt::ctrl_c();
    with_prepared(args, matches, Some(interrupt), |library, values, options, session| {
        let mut result = run(session).map_err(|e| with_hint(e, args))?;
        let located = report(&mut result);
        library.locate_findings(&args.function, values, options, located).map_err(|e| with_hint(e, args))?;
        Ok(result)
    })
}

/// Opens the op, reads the inputs and loads the machine as the flags say,
/// then hands `body` the session with what loaded it (the library, the
/// argument values and the options: a second run needs them). What `q7
/// run`, `q7 profile` and `q7 debug` share.
pub(super) fn with_prepared<R>(
    args: &Args,
    matches: Option<&ArgMatches>,
    interrupt: Option<q7_sim::interrupt::Interrupt>,
    body: impl FnOnce(&OpLibrary, &[ArgValue], &OpOptions, OpSession<'_>) -> Result<R>,
) -> Result<R> {
    let library = OpLibrary::open(&args.image, args.cores).map_err(|e| with_hint(e, args))?;
    // Inputs first: the arguments borrow their bytes.
    let arrays = read_inputs(args)?;
    let values = argument_values(args, matches, &arrays);
    // The shape function's answer, unless both flags override it.
    let shaped = shaped_destination(args, &library, &values)?;
    let options = OpOptions {
        limits: RunLimits {
            max_insns: args.max_insns,
            wall: Duration::from_secs(args.timeout),
            seed: args.seed,
            engine: args.engine.engine(),
            interrupt,
            threads: host_threads(args),
            ..RunLimits::default()
        },
        checks: !args.no_checks,
        sdk_checks: !args.no_sdk_checks,
        trace: args.trace,
        stream_output: !args.json,
        heap_per_core: None,
        dst: destination(args, &arrays, shaped)?,
        function_index: args.index,
        locate_findings: false,
    };
    let session = library.prepare(&args.function, &values, &options).map_err(|e| with_hint(e, args))?;
    body(&library, &values, &options, session)
}

/// Host threads for the cores as the flags say (see `Args::threads`).
fn host_threads(args: &Args) -> usize {
    match args.threads {
        _ if args.deterministic || args.trace => 1,
        Some(n) => n as usize,
        None => q7_sim::machine::default_threads(),
    }
}

/// The `.npy` inputs, in order.
pub(super) fn read_inputs(args: &Args) -> Result<Vec<Array>> {
    args.inputs
        .iter()
        .map(|path| {
            let bytes = q7_sim::op::read_regular_file(path, MAX_NPY, "a .npy input")?;
            npy::read_owned(bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
        })
        .collect()
}

/// The kernel arguments in command-line order; tensors borrow `arrays`.
pub(super) fn argument_values<'a>(args: &Args, matches: Option<&ArgMatches>, arrays: &'a [Array]) -> Vec<ArgValue<'a>> {
    let (mut next_in, mut next) = (0, [0usize; 4]);
    let mut values = Vec::new();
    for (_, id) in argument_order(matches, args) {
        let mut take = |slot: usize| {
            next[slot] += 1;
            next[slot] - 1
        };
        values.push(match id {
            "inputs" => {
                let path = &args.inputs[next_in];
                let array = &arrays[next_in];
                next_in += 1;
                let name = path.file_stem().map_or("input".into(), |s| s.to_string_lossy().into_owned());
                ArgValue::Tensor(TensorArg::from_array(name, array))
            }
            "numbers" => ArgValue::Number(args.numbers[take(0)]),
            "scalars" => ArgValue::Scalar(args.scalars[take(1)]),
            "ints" => ArgValue::Int(args.ints[take(2)]),
            _ => ArgValue::Double(args.doubles[take(3)]),
        });
    }
    values
}

/// The shape function's destination, unless both flags override it.
pub(super) fn shaped_destination(args: &Args, library: &OpLibrary, values: &[ArgValue]) -> Result<Option<Destination>> {
    if args.dst_shape.is_some() && args.dst_dtype.is_some() {
        return Ok(None);
    }
    library.shape_destination(&args.function, values).map_err(|e| with_hint(e, args))
}

/// The destination tensor: the shape function's (`shaped`) or the first
/// input's, with --dst-shape and --dst-dtype overriding either part.
pub(super) fn destination(args: &Args, arrays: &[Array], shaped: Option<Destination>) -> Result<Option<Destination>> {
    if args.dst_shape.is_none() && args.dst_dtype.is_none() {
        return Ok(shaped);
    }
    let first = arrays.first();
    let dtype = match &args.dst_dtype {
        Some(name) => DType::parse_name(name).with_context(|| format!("unknown dtype `{name}`"))?,
        None => shaped.as_ref().map(|d| d.dtype).or(first.map(|a| a.dtype)).unwrap_or(DType::F32),
    };
    let shape =
        args.dst_shape.clone().or(shaped.map(|d| d.shape)).or(first.map(|a| a.shape.clone())).unwrap_or_default();
    Ok(Some(Destination { dtype, shape }))
}

/// The library's message plus the flag that fixes it.
pub(super) fn with_hint(e: OpError, args: &Args) -> anyhow::Error {
    let hint = match &e {
        OpError::ArgKind { expected, .. } => format!(" (pass it with {})", flag_for(*expected)),
        OpError::UntypedNumber { .. } => " (say the kind: --scalar, --int or --double)".into(),
        OpError::NoFunctionTable { .. } => " (pass --index)".into(),
        OpError::LoneCoreImage { .. } => String::new(),
        OpError::SingleImageOnCores { .. } => " (build with --multicore for more cores)".into(),
        OpError::TensorMemory { .. } | OpError::TensorUncountable { .. } if args.dst_shape.is_some() => {
            " (check --dst-shape)".into()
        }
        OpError::ShapeProgram { .. } => " (--dst-shape with --dst-dtype skips the shape function)".into(),
        _ => String::new(),
    };
    anyhow::anyhow!("{e}{hint}")
}

fn flag_for(kind: ArgKind) -> &'static str {
    match kind {
        ArgKind::Tensor => "--in FILE.npy",
        ArgKind::Scalar => "--scalar or --arg",
        ArgKind::Int => "--int or --arg",
        ArgKind::Float => "--double or --arg",
    }
}

/// Whether Ctrl-C (or another signal q7 caught) stopped the run. Such a run
/// writes and prints no report: the user asked it to stop, and what it has
/// is partial.
pub(super) fn interrupted(report: &OpReport) -> bool {
    matches!(report.failure, Some(Failure::Interrupted { .. }))
}

/// Writes the output and prints what the flags ask; an error for a failed run.
/// A failed run writes no output unless --out-on-failure asks for it; an
/// interrupted one none at all, and no --json or --stats report (its
/// findings are still said).
pub fn finish(args: &Args, report: OpReport, estimate: Option<&Estimate>) -> Result<()> {
    let verdict = verdict(args, &report);
    let stopped = interrupted(&report);
    if let (Some(path), Some(output), false) = (&args.out, &report.output, stopped) {
        if verdict.is_ok() || args.out_on_failure {
            // The header, then the data from the report: no copy of the tensor.
            let header = npy::header(output.dtype, &output.shape);
            crate::io::write_output_parts(path, &[&header, &output.data])?;
        }
    }
    if stopped {
        // A partial report is no report: nothing printed.
    } else if args.json {
        let estimate = estimate.filter(|_| args.stats);
        crate::io::print_json(&JsonReport { report: &report, output_path: args.out.as_deref(), estimate })?;
    } else if let (true, Some(estimate)) = (args.stats, estimate) {
        print_stats(&report, estimate);
    }
    for finding in &report.findings {
        eprintln!("q7 run: check: {finding}");
        for line in stack_lines(finding) {
            eprintln!("    {line}");
        }
    }
    if let (Some(unwritten), None) = (&report.unwritten_output, &report.failure) {
        if !args.strict {
            eprintln!("q7 run: note: {unwritten} (--strict makes this an error)");
        }
    }
    // Streamed console output reached the terminal whole; only the copy a
    // JSON report keeps is capped.
    if report.console_dropped > 0 && args.json && !stopped {
        eprintln!(
            "q7 run: note: the JSON report keeps the first {} bytes of each console stream; {} bytes more were not kept",
            q7_sim::output::CAPTURE_LIMIT,
            report.console_dropped
        );
    }
    if verdict.is_err() && args.out.is_some() && !args.out_on_failure && !stopped {
        eprintln!("q7 run: note: the run failed, so --out was not written (--out-on-failure writes it anyway)");
    }
    verdict
}

/// A finding's call stack, a line a frame, innermost first. Frames without a
/// source line (the SDK's) before the first with one (the op's, in a `-g`
/// build) fold into one line.
fn stack_lines(finding: &q7_sim::op::FindingReport) -> Vec<String> {
    let stack = &finding.stack;
    let first_source = stack.iter().position(|f| f.source.is_some());
    let mut lines = Vec::new();
    let mut start = 0;
    if let Some(n @ 2..) = first_source {
        let names: Vec<String> = stack[..n]
            .iter()
            .map(|f| f.function.as_ref().map_or(format!("{:#010x}", f.pc), |(name, _)| name.clone()))
            .collect();
        lines.push(format!("#0-#{} in the SDK: {}", n - 1, names.join(" <- ")));
        start = n;
    }
    for (i, frame) in stack.iter().enumerate().skip(start) {
        lines.push(format!("#{i} {frame}"));
    }
    lines
}

/// Whether the run succeeded as the flags judge it, and if not, why.
fn verdict(args: &Args, report: &OpReport) -> Result<()> {
    if let Some(failure) = &report.failure {
        let hint = match failure {
            Failure::Budget { .. } => "; raise --max-insns".to_string(),
            Failure::Timeout { .. } => "; raise --timeout".to_string(),
            Failure::Fault { core, .. } if args.verbose => {
                format!("\nmemory map of core {core}:\n{}", report.memory_maps[*core])
            }
            _ => String::new(),
        };
        bail!("{failure}{hint}");
    }
    let c = report.finding_counts;
    if c.total() > 0 {
        bail!("checks failed: {c} (--no-checks to run without)");
    }
    if let (Some(unwritten), true) = (&report.unwritten_output, args.strict) {
        bail!("{unwritten}");
    }
    if args.out.is_some() && report.output.is_none() {
        bail!("the op produced no output tensor");
    }
    Ok(())
}

/// The report as `--json` prints it.
#[derive(serde::Serialize)]
struct JsonReport<'a> {
    #[serde(flatten)]
    report: &'a OpReport,
    output_path: Option<&'a Path>,
    /// With --stats: `predicted_cycles`, `predicted_seconds` and the model.
    #[serde(flatten)]
    estimate: Option<&'a Estimate>,
}

fn print_stats(report: &OpReport, estimate: &Estimate) {
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
    if let Some(jit) = &report.jit {
        eprintln!(
            " jit  {} compiled ({} regions) in {:.3} s",
            jit.blocks_compiled,
            jit.regions_compiled,
            jit.compile_time.as_secs_f64()
        );
    }
    eprintln!("{}", q7_sim::op::profile_text::estimate_line(estimate));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_as_int_when_whole() {
        assert_eq!(parse_number("3"), Ok(Number::Int(3)));
        assert_eq!(parse_number("-2"), Ok(Number::Int(-2)));
        assert_eq!(parse_number("0.5"), Ok(Number::Float(0.5)));
        assert!(parse_number("x").is_err());
        for outside in ["-9223372036854775809", "9223372036854775808", "+99999999999999999999"] {
            assert!(parse_number(outside).unwrap_err().contains("outside the 64-bit integer range"), "{outside}");
        }
        assert_eq!(parse_number("-9223372036854775808"), Ok(Number::Int(i64::MIN)));
        assert_eq!(parse_number("9223372036854775808.0"), Ok(Number::Float(2f64.powi(63))));
    }

    #[test]
    fn every_schema_kind_names_a_flag() {
        for kind in [ArgKind::Tensor, ArgKind::Scalar, ArgKind::Int, ArgKind::Float] {
            assert!(flag_for(kind).starts_with("--"));
        }
    }
}
