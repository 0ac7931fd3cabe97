//! The one place the extension calls into q7's libraries (`q7_build`'s
//! driver and `q7_sim`'s op runner). Everything else in this crate speaks
//! plain Rust types, so re-pointing q7 at a new op API means editing this
//! file only.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use q7_build::command::Command;
pub use q7_build::driver::BuildRequest;
use q7_build::driver::{self, Observer, ToolchainChoice};
use q7_build::profile::ProcessEnv;
use q7_sim::machine::RunLimits;
use q7_sim::op::profile::OpProfile;
use q7_sim::op::profile_text;
pub use q7_sim::op::profile_text::DEFAULT_TOP as PROFILE_TOP;
use q7_sim::op::{ArgValue, Destination, OpError, OpImage, OpLibrary, OpOptions, TensorArg};
use q7_target::memmap::Window;
use q7_target::DType;

/// Build steps and commands, as lines, to whoever listens.
struct LineObserver<'a> {
    verbose: bool,
    sink: &'a (dyn Fn(String) + Sync),
}

impl Observer for LineObserver<'_> {
    fn phase(&self, _: &str, _: usize) {}

    fn step(&self, label: &str, skipped: bool) {
        if self.verbose {
            let note = if skipped { " (up to date)" } else { "" };
            (self.sink)(format!("q7 build: {label}{note}"));
        }
    }

    fn command(&self, cmd: &Command) {
        if self.verbose {
            (self.sink)(cmd.display());
        }
    }
}

/// Builds the compute sources; returns the linked images (one, or eight in
/// core order) and the toolchain's name.
pub fn build(
    spec: &BuildRequest,
    verbose: bool,
    sink: &(dyn Fn(String) + Sync),
) -> Result<(Vec<PathBuf>, String), String> {
    // The vendor compiler when installed, else the open one; all cores.
    let request = BuildRequest {
        toolchain: ToolchainChoice::Auto,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..spec.clone()
    };
    let report = driver::build(&request, &ProcessEnv, &LineObserver { verbose, sink }).map_err(|e| e.to_string())?;
    let toolchain = report.toolchain.map_or("?", |t| t.name()).to_string();
    Ok((report.libraries, toolchain))
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
    /// The text `q7 profile --top TOP` prints (0: every row).
    pub fn text(&self, top: usize) -> String {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = profile_text::write_report(&mut out, &self.function, self.cores, &self.profile, top);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Why a run failed: the machine's findings, or a launch problem.
pub struct Failure {
    pub message: String,
    pub stdout: String,
    pub stderr: String,
}

/// Runs compute function `function` of `loaded` on `inputs`; the
/// destination tensor (and the output) has `dst`'s dtype and shape.
pub fn run(
    loaded: &Loaded,
    function: &str,
    inputs: &[Input<'_>],
    dst: (DType, Vec<usize>),
    max_insns: u64,
    profile: bool,
) -> Result<RunInfo, Failure> {
    let args: Vec<ArgValue<'_>> = inputs
        .iter()
        .map(|input| match input {
            Input::Tensor { name, dtype, shape, bytes } => {
                ArgValue::Tensor(TensorArg { name: name.clone(), dtype: *dtype, shape: shape.clone(), data: bytes })
            }
            Input::Double(v) => ArgValue::Double(*v),
            Input::Int(v) => ArgValue::Int(*v),
            Input::Scalar(v) => ArgValue::Scalar(*v),
        })
        .collect();
    let dst_dtype = dst.0;
    let dst_bytes = dst.1.iter().product::<usize>() * dst_dtype.size();
    let options = OpOptions {
        limits: RunLimits { max_insns, wall: Duration::from_secs(3600), ..RunLimits::default() },
        dst: Some(Destination { dtype: dst.0, shape: dst.1 }),
        // Checks on (stray stores, races, unwritten reads, the SDK's own),
        // output captured, not streamed: Python prints it.
        ..OpOptions::default()
    };
    let launch_error = |e: OpError| Failure { message: e.to_string(), stdout: String::new(), stderr: String::new() };
    let session = loaded.library.prepare(function, &args, &options).map_err(launch_error)?;
    let started = Instant::now();
    let (mut report, profiled) = if profile {
        let (report, profile) = session.run_profiled().map_err(launch_error)?;
        let profiled = serde_json::to_string(&profile).ok().map(|json| Profiled {
            json,
            function: report.function.clone(),
            cores: report.cores,
            profile,
        });
        (report, profiled)
    } else {
        (session.run().map_err(launch_error)?, None)
    };
    let simulated = started.elapsed();
    let fail = |message: String| Failure { message, stdout: report.stdout.clone(), stderr: report.stderr.clone() };
    let mut problems: Vec<String> = Vec::new();
    if let Some(failure) = &report.failure {
        problems.push(failure.to_string());
    }
    problems.extend(report.findings.iter().cloned());
    let counts = report.finding_counts;
    if counts.total() as usize > report.findings.len() {
        problems.push(format!(
            "({} findings in all: {} stray stores, {} races, {} reads of unwritten output)",
            counts.total(),
            counts.stray_stores,
            counts.races,
            counts.unwritten_reads
        ));
    }
    if !problems.is_empty() {
        return Err(fail(problems.join("\n")));
    }
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
        unwritten: report.unwritten_output.as_ref().map(|u| u.to_string()),
        instructions: report.instructions(),
        simulated,
        profile: profiled,
    })
}
