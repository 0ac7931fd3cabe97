//! The one place the extension calls into q7's libraries (`q7_build`'s
//! driver and `q7_sim`'s op runner). Everything else in this crate speaks
//! plain Rust types, so re-pointing q7 at a new op API means editing this
//! file only.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use q7_build::builddir::BuildDirError;
use q7_build::command::Command;
pub use q7_build::driver::BuildRequest;
use q7_build::driver::{self, Observer, ToolchainChoice};
use q7_build::prepare::{self, DeviceSdk};
use q7_build::toolchain::ProcessEnv;
use q7_sim::interrupt::Interrupt;
use q7_sim::machine::RunLimits;
use q7_sim::op::profile::OpProfile;
use q7_sim::op::profile_text;
pub use q7_sim::op::profile_text::DEFAULT_TOP as PROFILE_TOP;
use q7_sim::op::{
    in_sdk, op_frame, ArgValue, CodeLocation, Destination, Failure as RunFailure, OpError, OpImage, OpLibrary,
    OpOptions, OpReport, TensorArg,
};
use q7_target::memmap::Window;
use q7_target::DType;

/// Who hears of a build, line by line: `log` every step and command (the
/// caller's verbose mode), `progress` one line as each phase starts work
/// (phases with nothing to do say nothing) and the notes of long steps.
#[derive(Clone, Copy)]
pub struct Listener<'a> {
    pub log: Option<&'a (dyn Fn(String) + Sync)>,
    pub progress: Option<&'a (dyn Fn(String) + Sync)>,
}

/// A [`Listener`] as the build driver's observer.
struct LineObserver<'a> {
    listener: Listener<'a>,
    /// The phase under way, and whether its line was said.
    phase: std::sync::Mutex<(String, bool)>,
}

impl<'a> LineObserver<'a> {
    fn new(listener: Listener<'a>) -> LineObserver<'a> {
        LineObserver { listener, phase: std::sync::Mutex::new((String::new(), false)) }
    }
}

/// The progress line of a build phase, when it is one worth a line.
fn phase_line(phase: &str) -> Option<&'static str> {
    Some(match phase {
        "shape" => "q7: building the shape library (q7's host torch)",
        "compile" => "q7: compiling the op for the device",
        "link" | "link+pack" => "q7: linking the op's images",
        _ => return None,
    })
}

impl Observer for LineObserver<'_> {
    fn phase(&self, name: &str, _: usize) {
        if let Ok(mut phase) = self.phase.lock() {
            *phase = (name.to_string(), false);
        }
    }

    fn step(&self, label: &str, skipped: bool) {
        if let Some(log) = self.listener.log {
            let note = if skipped { " (up to date)" } else { "" };
            log(format!("q7 build: {label}{note}"));
        }
    }

    fn command(&self, cmd: &Command) {
        if let Some(log) = self.listener.log {
            log(cmd.display());
        }
        if let Some(progress) = self.listener.progress {
            // The first command of a phase: it has work to do.
            let line = self.phase.lock().ok().and_then(|mut phase| {
                let first = !std::mem::replace(&mut phase.1, true);
                phase_line(&phase.0).filter(|_| first)
            });
            if let Some(line) = line {
                progress(line.to_string());
            }
        }
    }

    fn note(&self, line: &str) {
        if let Some(say) = self.listener.progress.or(self.listener.log) {
            say(format!("q7: {line}"));
        }
    }
}

/// Builds the compute sources; returns the linked images (one, or eight in
/// core order) and the toolchain's name.
pub fn build(spec: &BuildRequest, listener: Listener<'_>) -> Result<(Vec<PathBuf>, String), String> {
    // The vendor compiler when installed, else the open one; all cores.
    let request = BuildRequest {
        toolchain: ToolchainChoice::Auto,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..spec.clone()
    };
    let report = driver::build(&request, &ProcessEnv, &LineObserver::new(listener)).map_err(|e| e.to_string())?;
    let toolchain = report.toolchain.map_or("?", |t| t.name()).to_string();
    Ok((report.libraries, toolchain))
}

/// What [`shape_library`] gives back.
pub enum ShapeBuild {
    /// The library's path.
    Built(PathBuf),
    /// The sources do not build against q7's host torch (they use what it
    /// lacks, or do not compile at all): the compiler's or linker's words.
    Unsupported(String),
}

/// Builds the shape sources against q7's host torch into
/// `<build_dir>/shape/<file_name>`, the C ABI library python/q7 calls.
pub fn shape_library(
    build_dir: &Path,
    file_name: &str,
    sources: &[PathBuf],
    includes: &[PathBuf],
    cflags: &[String],
    listener: Listener<'_>,
) -> Result<ShapeBuild, String> {
    use q7_build::shape::{self, ShapeError};
    let obs = LineObserver::new(listener);
    match shape::build_library(&ProcessEnv, build_dir, file_name, sources, includes, cflags, &obs) {
        Ok(path) => Ok(ShapeBuild::Built(path)),
        Err(e @ (ShapeError::Compile { .. } | ShapeError::Link { .. } | ShapeError::NoCompiler)) => {
            Ok(ShapeBuild::Unsupported(e.to_string()))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Where the device SDK is and whether it is built (None: the vendor's
/// toolchain builds, with its own SDK); builds nothing.
pub fn device_sdk() -> Result<Option<(PathBuf, bool)>, String> {
    let cache = prepare::cache(&ProcessEnv, &std::env::temp_dir());
    match prepare::device_sdk(&ProcessEnv, &cache).map_err(|e| e.to_string())? {
        DeviceSdk::Vendor => Ok(None),
        DeviceSdk::Open { archive, built } => Ok(Some((archive, built))),
    }
}

/// Builds the device SDK (with `native`, the host SDKs of `q7 run --native`
/// too) unless built; returns the device SDK's archive (None: the vendor's
/// toolchain builds).
pub fn prepare(native: bool, listener: Listener<'_>) -> Result<Option<PathBuf>, String> {
    let cache = prepare::cache(&ProcessEnv, &std::env::temp_dir());
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let obs = LineObserver::new(listener);
    match prepare::prepare(&ProcessEnv, &cache, jobs, native, &obs).map_err(|e| e.to_string())? {
        DeviceSdk::Vendor => Ok(None),
        DeviceSdk::Open { archive, .. } => Ok(Some(archive)),
    }
}

/// Makes `dir` a build directory private to this user (created 0700), or
/// says why an existing one is not (another owner, writable by others).
pub fn private_dir(dir: &Path) -> Result<(), BuildDirError> {
    q7_build::builddir::ensure_private(dir)
}

/// Element types a tensor may have on its way to the device, by the names
/// torch gives them (`str(torch.float32)` without the prefix).
pub fn dtype_by_torch_name(name: &str) -> Option<DType> {
    Some(match name {
        "float32" => DType::F32,
        "bfloat16" => DType::BF16,
        "float16" => DType::F16,
        "int32" => DType::I32,
        "int16" => DType::I16,
        "int8" => DType::I8,
        "uint8" => DType::U8,
        _ => return None,
    })
}

pub fn dtype_size(dtype: DType) -> usize {
    dtype.size()
}

/// One kernel argument, borrowing tensor bytes from the caller.
pub enum Input<'a> {
    Tensor { name: String, dtype: DType, shape: Vec<usize>, bytes: &'a [u8] },
    Double(f64),
    Int(i64),
    Scalar(f64),
}

/// The images of one compute library, bound to their windows once.
pub struct Loaded {
    library: OpLibrary,
}

impl Loaded {
    /// `images`: one linked image (single fat core) or eight (core order);
    /// `origin` names them in messages.
    pub fn new(origin: &str, images: &[Vec<u8>]) -> Result<Loaded, String> {
        let spmd = images.len() > 1;
        let mut bound = Vec::new();
        for (k, bytes) in images.iter().enumerate() {
            let window = if spmd { Window::Core(k as u32) } else { Window::Single };
            bound.push(OpImage::load(bytes, window).map_err(|e| format!("{origin}: image {k}: {e}"))?);
        }
        let library = OpLibrary::from_images(Path::new(origin), bound).map_err(|e| e.to_string())?;
        Ok(Loaded { library })
    }

    pub fn cores(&self) -> usize {
        self.library.images.len()
    }
}

/// A finished run.
pub struct RunInfo {
    /// The output tensor's bytes (C order), moved out of the report.
    pub output: Vec<u8>,
    /// Console output, each line prefixed with its core id.
    pub stdout: String,
    pub stderr: String,
    /// Console bytes past what the machine keeps, not in stdout/stderr.
    pub console_dropped: u64,
    pub instructions: u64,
    /// Wall time of the machine's run (set-up of memory and images excluded).
    pub simulated: Duration,
    /// Output elements no core wrote, when there were some (not an error:
    /// an op may mean to leave zeros).
    pub unwritten: Option<String>,
    /// With profiling asked for: `q7 profile`'s report (the memory-class
    /// cost model's estimate).
    pub profile: Option<Profiled>,
}

/// A profiled run's report, as `q7 profile` gives it.
pub struct Profiled {
    /// The `profile` object of `q7 profile --json`.
    pub json: String,
    function: String,
    cores: usize,
    profile: OpProfile,
}

impl Profiled {
    /// The text `q7 profile --top TOP` prints (0: every row), from the
    /// renderer the CLI uses.
    pub fn text(&self, top: usize) -> String {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = profile_text::write_report(&mut out, &self.function, self.cores, &self.profile, top);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// The checks and limits of a call (the CLI's --no-checks, --no-sdk-checks
/// and --max-insns; --strict is the Python side's to judge).
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// q7's stray-store, race and unwritten-read checks.
    pub checks: bool,
    /// The SDK's own runtime checks (TCM copy ranges, accessor dtype and rank).
    pub sdk_checks: bool,
    /// Instruction budget over all cores.
    pub max_insns: u64,
    /// Take the profiling path and return `q7 profile`'s report.
    pub profile: bool,
    /// Host threads for the cores (`RunLimits::threads`; 1: round-robin).
    pub threads: usize,
}

/// One frame of a simulated call stack.
pub struct Frame {
    pub pc: u32,
    pub function: Option<(String, u32)>,
    pub source: Option<(String, u32)>,
    /// q7's SDK or the generated wrapper, not the op's own code.
    pub in_sdk: bool,
}

impl From<&CodeLocation> for Frame {
    fn from(at: &CodeLocation) -> Frame {
        Frame { pc: at.pc, function: at.function.clone(), source: at.source.clone(), in_sdk: in_sdk(at) }
    }
}

/// Why a run failed: the machine's findings, or a launch problem.
pub struct Failure {
    /// One line, the first problem in the author's terms: the first
    /// finding, a failed runtime check's own message, a fault.
    pub reason: String,
    /// What failed: "finding", "exit" (a failed check, an abort), "fault",
    /// "budget", "timeout", "interrupted", "deadlock" or "launch" (the call
    /// could not start).
    pub kind: &'static str,
    /// Further lines: how the run ended, further findings, their count.
    pub details: Vec<String>,
    /// The core the reason is about, when it is one core's.
    pub core: Option<usize>,
    /// The simulated call stack of the reason, innermost first.
    pub frames: Vec<Frame>,
    /// Which of `frames` is the op's own (see `q7_sim::op::op_frame`).
    pub op_frame: Option<usize>,
    /// The stderr line (without its newline) the reason quotes, so that
    /// the console does not show it a second time.
    pub quoted_line: Option<String>,
    pub stdout: String,
    pub stderr: String,
    pub console_dropped: u64,
}

impl Failure {
    fn new(reason: String) -> Failure {
        Failure {
            reason,
            kind: "launch",
            details: Vec::new(),
            core: None,
            frames: Vec::new(),
            op_frame: None,
            quoted_line: None,
            stdout: String::new(),
            stderr: String::new(),
            console_dropped: 0,
        }
    }

    fn launch(e: OpError) -> Box<Failure> {
        Box::new(Failure::new(e.to_string()))
    }

    /// The report's first problem as the reason, the rest as details.
    fn of_report(report: &OpReport) -> Option<Failure> {
        let mut failure = Failure {
            stdout: report.stdout.clone(),
            stderr: report.stderr.clone(),
            console_dropped: report.console_dropped,
            ..Failure::new(String::new())
        };
        let mut rest: Vec<String> = Vec::new();
        let mut findings = report.findings.iter();
        // Findings come before any failure (a failure ends the run), so
        // the first one is the earliest problem.
        if let Some(first) = findings.next() {
            failure.reason = first.to_string();
            failure.kind = "finding";
            failure.core = Some(first.core);
            failure.set_stack(&first.stack);
            rest.extend(report.failure.iter().map(|f| f.to_string()));
        } else if let Some(end) = &report.failure {
            failure.explain(end, &report.stderr);
        } else {
            return None;
        }
        rest.extend(findings.map(|f| f.to_string()));
        let counts = report.finding_counts;
        if counts.total() as usize > report.findings.len() {
            rest.push(format!("({} findings in all: {counts})", counts.total()));
        }
        failure.details.extend(rest);
        Some(failure)
    }

    fn set_stack(&mut self, stack: &[CodeLocation]) {
        self.frames = stack.iter().map(Frame::from).collect();
        self.op_frame = op_frame(stack).and_then(|at| stack.iter().position(|f| std::ptr::eq(f, at)));
    }

    /// A run that ended badly with no finding: the reason in the op's own
    /// terms where there are some (a failed runtime check prints them on
    /// the core's stderr as "q7: ..." before it exits).
    fn explain(&mut self, end: &RunFailure, stderr: &str) {
        self.reason = end.to_string();
        self.kind = match end {
            RunFailure::ExitStatus { .. } => "exit",
            RunFailure::Fault { .. } => "fault",
            RunFailure::Budget { .. } => "budget",
            RunFailure::Timeout { .. } => "timeout",
            RunFailure::Interrupted { .. } => "interrupted",
            RunFailure::Deadlock { .. } => "deadlock",
        };
        match end {
            RunFailure::ExitStatus { core, stack, .. } => {
                self.core = Some(*core);
                self.set_stack(stack);
                let place = self.op_frame.map(|i| format!(", in {}", stack[i])).unwrap_or_default();
                let prefix = format!("[core {core}] q7: ");
                match stderr.lines().rev().find(|l| l.starts_with(&prefix)) {
                    Some(line) => {
                        self.reason = format!("{}{place}", &line[prefix.len()..]);
                        self.details.push(end.to_string());
                        self.quoted_line = Some(line.to_string());
                    }
                    None => self.reason = format!("{end}{place}"),
                }
            }
            RunFailure::Fault { core, location, callers, .. } => {
                self.core = Some(*core);
                let stack: Vec<CodeLocation> = location.iter().chain(callers).cloned().collect();
                self.set_stack(&stack);
            }
            RunFailure::Budget { running, .. }
            | RunFailure::Timeout { running, .. }
            | RunFailure::Interrupted { running, .. }
            | RunFailure::Deadlock { running, .. } => {
                if let Some(first) = running.first() {
                    self.core = Some(first.core);
                    let stack: Vec<CodeLocation> =
                        std::iter::once(&first.location).chain(&first.callers).cloned().collect();
                    self.set_stack(&stack);
                }
            }
        }
    }
}

/// Runs compute function `function` of `loaded` on `inputs`; the
/// destination tensor (and the output) has `dst`'s dtype and shape. The
/// machine asks `stop` between scheduling rounds and ends the run
/// ("interrupted") when it answers true.
pub fn run(
    loaded: &Loaded,
    function: &str,
    inputs: &[Input<'_>],
    dst: (DType, Vec<usize>),
    run: RunOptions,
    stop: impl Fn() -> bool + Send + Sync + 'static,
) -> Result<RunInfo, Box<Failure>> {
    let args = argument_values(inputs);
    let dst_dtype = dst.0;
    let dst_bytes = dst.1.iter().product::<usize>() * dst_dtype.size();
    let options = op_options(dst, &run, stop);
    let session = loaded.library.prepare(function, &args, &options).map_err(Failure::launch)?;
    let started = Instant::now();
    let (mut report, profiled) = if run.profile {
        let (report, profile) = session.run_profiled().map_err(Failure::launch)?;
        let profiled = serde_json::to_string(&profile).ok().map(|json| Profiled {
            json,
            function: report.function.clone(),
            cores: report.cores,
            profile,
        });
        (report, profiled)
    } else {
        (session.run().map_err(Failure::launch)?, None)
    };
    let simulated = started.elapsed();
    // Findings name the op's line: the deterministic run again, located.
    if !report.findings.is_empty() {
        loaded.library.locate_findings(function, &args, &options, &mut report).map_err(Failure::launch)?;
    }
    if let Some(failure) = Failure::of_report(&report) {
        return Err(Box::new(failure));
    }
    let fail = |reason: String| {
        Box::new(Failure {
            stdout: report.stdout.clone(),
            stderr: report.stderr.clone(),
            console_dropped: report.console_dropped,
            kind: "output",
            ..Failure::new(reason)
        })
    };
    let Some(output) = report.output.take() else {
        return Err(fail("the op produced no output tensor".into()));
    };
    if output.dtype != dst_dtype || output.data.len() != dst_bytes {
        return Err(fail(format!(
            "the op returned {} bytes ({} of shape {:?}) but the shape function's tensor is {} bytes of {}",
            output.data.len(),
            output.dtype,
            output.shape,
            dst_bytes,
            dst_dtype
        )));
    }
    Ok(RunInfo {
        output: output.data,
        stdout: report.stdout.clone(),
        stderr: report.stderr.clone(),
        console_dropped: report.console_dropped,
        unwritten: report.unwritten_output.as_ref().map(|u| u.to_string()),
        instructions: report.instructions(),
        simulated,
        profile: profiled,
    })
}

/// The kernel arguments `inputs` stand for, borrowing their bytes.
fn argument_values<'a>(inputs: &'a [Input<'a>]) -> Vec<ArgValue<'a>> {
    inputs
        .iter()
        .map(|input| match input {
            Input::Tensor { name, dtype, shape, bytes } => {
                ArgValue::Tensor(TensorArg { name: name.clone(), dtype: *dtype, shape: shape.clone(), data: bytes })
            }
            Input::Double(v) => ArgValue::Double(*v),
            Input::Int(v) => ArgValue::Int(*v),
            Input::Scalar(v) => ArgValue::Scalar(*v),
        })
        .collect()
}

/// A Python call's run options: the destination `dst`, the caller's limits
/// and checks, console output captured (Python prints it).
fn op_options(
    dst: (DType, Vec<usize>),
    run: &RunOptions,
    stop: impl Fn() -> bool + Send + Sync + 'static,
) -> OpOptions {
    OpOptions {
        limits: RunLimits {
            max_insns: run.max_insns,
            wall: Duration::from_secs(3600),
            interrupt: Some(Interrupt::new(stop)),
            threads: run.threads,
            ..RunLimits::default()
        },
        dst: Some(Destination { dtype: dst.0, shape: dst.1 }),
        checks: run.checks,
        sdk_checks: run.sdk_checks,
        ..OpOptions::default()
    }
}

/// Where a debugger session over one call takes its commands and puts its
/// answers: `first` commands (echoed after the prompt), then `next_line`'s
/// until it answers None or a command quits; `say` gets every answer.
pub struct DebugConsole<'a> {
    pub first: &'a [String],
    pub next_line: &'a mut (dyn FnMut() -> Option<String> + Send),
    pub say: &'a mut (dyn FnMut(&[u8]) + Send),
}

/// Debugs compute function `function` of `loaded` on `inputs` (the run
/// [`run`] makes, from its first instruction): the debugger's command
/// language (`q7_debug`) over the call's timeline. `break_on_finding`:
/// `continue` stops at findings and failed exits too.
#[allow(clippy::too_many_arguments)]
pub fn debug(
    loaded: &Loaded,
    function: &str,
    inputs: &[Input<'_>],
    dst: (DType, Vec<usize>),
    run: RunOptions,
    break_on_finding: bool,
    console: DebugConsole<'_>,
    stop: impl Fn() -> bool + Send + Sync + 'static,
) -> Result<(), Box<Failure>> {
    let args = argument_values(inputs);
    let options = op_options(dst, &run, stop);
    let prepared = loaded.library.prepare(function, &args, &options).map_err(Failure::launch)?;
    let mut session = q7_debug::Session::new(prepared.into_debug(), break_on_finding);
    let mut answer = |session: &mut q7_debug::Session<'_>, line: &str, echo: bool| {
        let mut out = Vec::new();
        if echo {
            out.extend_from_slice(format!("(q7) {line}\n").as_bytes());
        }
        // Writing to a Vec cannot fail.
        let flow = session.execute(line, &mut out).unwrap_or(q7_debug::Flow::Quit);
        (console.say)(&out);
        flow
    };
    for line in console.first {
        if answer(&mut session, line, true) == q7_debug::Flow::Quit {
            return Ok(());
        }
    }
    while let Some(line) = (console.next_line)() {
        if answer(&mut session, &line, false) == q7_debug::Flow::Quit {
            break;
        }
    }
    Ok(())
}

/// Serves the Debug Adapter Protocol for the call [`debug`] would debug, to
/// the first client that connects to `listener` (an editor attaching or
/// launching: its arguments are ignored, the op is this call). Waiting for
/// the client and every motion stop when `stop` answers true (Ctrl-C).
#[allow(clippy::too_many_arguments)]
pub fn debug_dap(
    loaded: &Loaded,
    function: &str,
    inputs: &[Input<'_>],
    dst: (DType, Vec<usize>),
    run: RunOptions,
    break_on_finding: bool,
    listener: std::net::TcpListener,
    stop: impl Fn() -> bool + Send + Sync + 'static,
) -> Result<(), String> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let stop = Arc::new(stop);
    let stream = accept_one(&listener, &*stop)?;
    let reading = stream.try_clone().map_err(|e| format!("the DAP connection: {e}"))?;
    let pause = Arc::new(AtomicBool::new(false));
    let requests = q7_debug::dap::spawn_reader(std::io::BufReader::new(reading), pause.clone());
    let mut out = q7_debug::dap::Out::new(stream);
    let accept = |_: &serde_json::Value| Ok(());
    let handshake = q7_debug::dap::handshake(&requests, &mut out, break_on_finding, accept);
    let Some((launch, options, ())) = handshake.map_err(|e| e.to_string())? else { return Ok(()) };
    let interrupt = {
        let (pause, stop) = (pause.clone(), stop.clone());
        move || pause.load(Ordering::SeqCst) || stop()
    };
    let args = argument_values(inputs);
    let op_options = op_options(dst, &run, interrupt);
    let prepared = match loaded.library.prepare(function, &args, &op_options) {
        Ok(prepared) => prepared,
        Err(e) => {
            // The client is told why, and the session ends.
            let _ = out.respond(&launch, Err(e.to_string()));
            let _ = out.event("terminated", serde_json::Value::Null);
            return Err(e.to_string());
        }
    };
    let session = q7_debug::Session::new(prepared.into_debug(), options.break_on_finding);
    q7_debug::dap::serve_session(&launch, session, options, pause, &requests, &mut out).map_err(|e| e.to_string())
}

/// The first connection to `listener`, unless `stop` answers true first.
fn accept_one(listener: &std::net::TcpListener, stop: &dyn Fn() -> bool) -> Result<std::net::TcpStream, String> {
    listener.set_nonblocking(true).map_err(|e| format!("the DAP listener: {e}"))?;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).map_err(|e| format!("the DAP connection: {e}"))?;
                return Ok(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if stop() {
                    return Err("interrupted while waiting for a DAP client".into());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(format!("the DAP listener: {e}")),
        }
    }
}
