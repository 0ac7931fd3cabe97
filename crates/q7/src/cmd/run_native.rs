//! `q7 run --native` and `q7 run --compare`: the op built for this machine
//! with sanitizers (q7_build::native), alone or beside the simulator.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::ArgMatches;
use q7_build::native::compare::{self, Comparison, View};
use q7_build::native::{
    self, Interrupts, Manifest, NativeArg, NativeError, NativeLaunch, NativeProgram, NativeReport, Sanitizer,
};
use q7_build::toolchain::ProcessEnv;
use q7_sim::npy::{self, Array};
use q7_sim::op::{Destination, KernelArg, OpError, OpLibrary, OpReport};

use super::session::{self, Args};

/// The flags that run the op natively.
#[derive(Clone, Debug, clap::Args)]
pub struct NativeFlags {
    /// Build the op for this machine with clang++-22 (AddressSanitizer and
    /// UndefinedBehaviorSanitizer, then MemorySanitizer for uninitialised
    /// reads) and run it here instead of in the simulator.
    #[arg(long, conflicts_with = "compare")]
    pub native: bool,
    /// Run the op in the simulator and natively (the ASan+UBSan build) and
    /// report the first output elements that differ; a difference fails.
    #[arg(long)]
    pub compare: bool,
    /// With --compare: float elements a and b agree when |a - b| <= REL * max(|a|, |b|),
    /// for ops calling <math.h> (the device's SDK libm vs glibc) or whose multiply
    /// and add one compiler fuses; default exact.
    #[arg(long, value_name = "REL", allow_negative_numbers = true)]
    pub tolerance: Option<f64>,
}

/// Differences listed by --compare.
const SHOWN_DIFFERENCES: usize = 10;

impl NativeFlags {
    /// Whether the run is native or compared (else the simulator alone);
    /// refuses a --tolerance that would be ignored or is no tolerance.
    pub fn wanted(&self) -> Result<bool> {
        if let Some(rel) = self.tolerance {
            if !self.compare {
                bail!("--tolerance applies to --compare only");
            }
            if !(rel.is_finite() && rel >= 0.0) {
                bail!("--tolerance {rel}: give a relative tolerance >= 0, e.g. 1e-6");
            }
        }
        Ok(self.native || self.compare)
    }
}

pub fn run(args: &Args, flags: &NativeFlags, matches: Option<&ArgMatches>) -> Result<()> {
    let library = OpLibrary::open(&args.image, args.cores).map_err(|e| session::with_hint(e, args))?;
    let (build_dir, manifest) = native::read_manifest(&args.image)?;
    let arrays = session::read_inputs(args)?;
    let values = session::argument_values(args, matches, &arrays);
    // The function as the simulator resolves it: a compute function or op name of the schema table.
    let function = match (library.entry(&args.function), &library.schemas) {
        (Some(entry), _) => entry.function.clone(),
        (None, Some(entries)) => {
            let available = entries.iter().map(|e| e.function.clone()).collect();
            let unknown = OpError::UnknownFunction { function: args.function.clone(), available };
            return Err(session::with_hint(unknown, args));
        }
        (None, None) => args.function.clone(),
    };
    let bound = library.bind(&args.function, &values).map_err(|e| session::with_hint(e, args))?;
    let shaped = session::shaped_destination(args, &library, &values)?;
    // As the simulator: without a shape function or flags, the first tensor's shape and dtype.
    let dst = session::destination(args, &arrays, shaped)?
        .map(|d| (d.dtype, d.shape))
        .or_else(|| arrays.first().map(|a| (a.dtype, a.shape.clone())));
    let cores = args.cores.unwrap_or(if manifest.multicore { 8 } else { 1 });
    // The device's tensor memory as the simulator lays it out: the heap each
    // core gets, and what all of it comes to.
    let (dtype, shape) = dst.clone().unwrap_or((q7_target::DType::F32, vec![0]));
    let placed = q7_sim::op::place(&bound, &Destination { dtype, shape }, cores as usize, None)
        .map_err(|e| session::with_hint(e, args))?;
    let native_args: Vec<NativeArg> = bound
        .iter()
        .map(|arg| match arg {
            KernelArg::Tensor(t) => NativeArg::Tensor { dtype: t.dtype, shape: &t.shape, data: t.data },
            KernelArg::Double(x) => NativeArg::Double(*x),
            KernelArg::Int(i) => NativeArg::Int(*i),
            KernelArg::Scalar(x) => NativeArg::Scalar(*x),
        })
        .collect();
    let host = HostRun {
        build_dir: &build_dir,
        manifest: &manifest,
        function: &function,
        args: &native_args,
        dst,
        cores,
        seed: args.seed,
        sdk_checks: !args.no_sdk_checks,
        timeout: Duration::from_secs(args.timeout),
        heap_per_core: u64::from(placed.heap_per_core),
        // The sanitizers' shadow (MemorySanitizer: a shadow and an origin per
        // byte) and AddressSanitizer's quarantine come on top of the device's bytes.
        memory_limit: 3 * u64::from(placed.tensor_size) + (1 << 30),
        verbose: args.verbose,
    };
    if flags.compare {
        let started = Instant::now();
        let simulated = session::execute(args, matches)?;
        let simulated_secs = started.elapsed().as_secs_f64();
        let native = host.run(Sanitizer::AddressUndefined, false)?;
        return finish_compare(args, flags, simulated, native, simulated_secs);
    }
    // The op's output streams through as it comes (once: the first build's).
    let mut reports = vec![host.run(Sanitizer::AddressUndefined, !args.json)?];
    // Uninitialised reads need a MemorySanitizer build of their own; it runs
    // unless the first run already stopped.
    if reports[0].failure.is_none() {
        reports.push(host.run(Sanitizer::Memory, false)?);
    }
    finish_native(args, &reports)
}

/// One host run's settings (the same for both sanitizer builds).
struct HostRun<'a> {
    build_dir: &'a Path,
    manifest: &'a Manifest,
    function: &'a str,
    args: &'a [NativeArg<'a>],
    dst: Option<(q7_target::DType, Vec<usize>)>,
    cores: u32,
    seed: u64,
    sdk_checks: bool,
    timeout: Duration,
    heap_per_core: u64,
    memory_limit: u64,
    /// Host compile errors whole, not folded to one line.
    verbose: bool,
}

impl HostRun<'_> {
    /// Builds (or finds) the host program for `sanitizer` and runs it once;
    /// `echo` streams the op's stdout through.
    fn run(&self, sanitizer: Sanitizer, echo: bool) -> Result<NativeReport> {
        let program: NativeProgram =
            native::build(&ProcessEnv, self.build_dir, self.manifest, sanitizer, &host_sdk_notes()).map_err(|e| {
                match self.verbose {
                    true => anyhow::anyhow!("{e}"),
                    false => anyhow::anyhow!("{} (-v shows the compiler's output)", one_line(&e.to_string())),
                }
            })?;
        // Scratch for the launch file and the inputs' bytes, per process.
        let work = native::run_dir(self.build_dir);
        // A SIGINT/SIGTERM/SIGHUP stops the run, and q7 ends after removing its files.
        let interrupts = Interrupts::catch().context("cannot catch SIGINT for the native run")?;
        let report = program.run(&NativeLaunch {
            function: self.function,
            args: self.args,
            dst: self.dst.clone(),
            cores: self.cores,
            seed: self.seed,
            sdk_checks: self.sdk_checks,
            timeout: self.timeout,
            heap_per_core: self.heap_per_core,
            memory_limit: Some(self.memory_limit),
            echo,
            work_dir: &work,
        });
        let _ = std::fs::remove_dir_all(&work);
        if let Some(signal) = interrupts.caught() {
            return Err(NativeError::Interrupted { signal }.into());
        }
        Ok(report?)
    }
}

/// The message and the compiler's first error, folded into one line.
fn one_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default().to_string();
    match lines.find(|l| l.contains("error")) {
        Some(error) => format!("{first}: {}", error.trim()),
        None => first,
    }
}

fn native_array(report: &NativeReport) -> Option<Array> {
    report.output.as_ref().map(|o| Array { dtype: o.dtype, shape: o.shape.clone(), data: o.data.clone() })
}

fn finish_native(args: &Args, reports: &[NativeReport]) -> Result<()> {
    let first = &reports[0];
    if let (Some(path), Some(array), None) = (&args.out, native_array(first), &first.failure) {
        crate::io::write_output(path, &npy::write(&array))?;
    }
    if args.json {
        crate::io::print_json(&serde_json::json!({ "native": reports, "output_path": args.out }))?;
    }
    for report in reports.iter().filter(|r| r.stderr_cut > 0) {
        eprintln!(
            "q7 run: native ({}): the run wrote more to stderr than q7 keeps; {} bytes between its first and last MiB were not read for findings",
            report.sanitizer.name(),
            report.stderr_cut
        );
    }
    let mut findings = 0;
    for report in reports {
        for finding in &report.findings {
            eprintln!("q7 run: native ({}): {finding}", report.sanitizer.name());
            findings += 1;
        }
    }
    if let Some(report) = reports.iter().find(|r| r.failure.is_some()) {
        let hint = if report.timed_out { "; raise --timeout" } else { "" };
        bail!("native run: {}{hint}", report.failure.as_deref().unwrap_or_default());
    }
    if findings > 0 {
        bail!("native run: {findings} sanitizer finding(s)");
    }
    if args.out.is_some() && first.output.is_none() {
        bail!("the op produced no output tensor");
    }
    Ok(())
}

fn finish_compare(
    args: &Args,
    flags: &NativeFlags,
    simulated: OpReport,
    native: NativeReport,
    simulated_secs: f64,
) -> Result<()> {
    let comparison: Option<Comparison> = match (&native.output, &simulated.output) {
        (Some(n), Some(s)) => Some(compare::compare(
            View { dtype: n.dtype, shape: &n.shape, data: &n.data },
            View { dtype: s.dtype, shape: &s.shape, data: &s.data },
            flags.tolerance,
            SHOWN_DIFFERENCES,
        )),
        _ => None,
    };
    if let (Some(path), Some(output), None) = (&args.out, &simulated.output, &simulated.failure) {
        let array = Array { dtype: output.dtype, shape: output.shape.clone(), data: output.data.clone() };
        crate::io::write_output(path, &npy::write(&array))?;
    }
    if args.json {
        crate::io::print_json(&serde_json::json!({
            "simulated": &simulated,
            "native": &native,
            "comparison": &comparison,
            "tolerance": flags.tolerance,
        }))?;
    } else {
        eprintln!(
            "q7 run: compare: simulated {:.3} s, native {:.3} s (run only)",
            simulated_secs,
            native.wall.as_secs_f64()
        );
    }
    for finding in &native.findings {
        eprintln!("q7 run: native ({}): {finding}", native.sanitizer.name());
    }
    let sim_failed = simulated.failure.as_ref().map(|f| f.to_string());
    match (&sim_failed, &native.failure) {
        (Some(s), Some(n)) => bail!("both runs failed: simulated: {s}; native: {n}"),
        (Some(s), None) => bail!("the simulated run failed, the native one did not: {s}"),
        (None, Some(n)) => bail!("the native run failed, the simulated one did not: {n}"),
        (None, None) => {}
    }
    let comparison = comparison.context("one of the runs produced no output tensor")?;
    if let Some(mismatch) = &comparison.mismatch {
        bail!("outputs differ: {mismatch}");
    }
    if !comparison.same() {
        for d in &comparison.first {
            eprintln!(
                "q7 run: compare: element {} {:?}: native {} simulated {}",
                d.index, d.position, d.native, d.simulated
            );
        }
        bail!(
            "outputs differ in {} of {} elements{}",
            comparison.differing,
            comparison.elements,
            flags.tolerance.map_or(" (exact comparison; --tolerance REL for float ops)".into(), |t| format!(
                " (beyond relative tolerance {t})"
            ))
        );
    }
    if !native.findings.is_empty() {
        bail!("outputs agree, but the native run has {} sanitizer finding(s)", native.findings.len());
    }
    if !args.json {
        eprintln!(
            "q7 run: compare: {} elements identical{}",
            comparison.elements,
            match flags.tolerance {
                Some(t) => format!(" within relative tolerance {t}"),
                None => String::new(),
            }
        );
    }
    Ok(())
}

/// On a terminal, the host SDK's one-off build (about 25 s) says so on
/// stderr; elsewhere a run's stderr stays the run's own.
fn host_sdk_notes() -> super::prepare::Notes {
    use std::io::IsTerminal;
    super::prepare::Notes { quiet: !std::io::stderr().is_terminal(), verbose: false }
}
