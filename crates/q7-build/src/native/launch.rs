//! One run of a host build: the launch file the driver reads, the
//! sanitizers' options, the limits (wall clock, the device heap, memory),
//! the process on its leash (`child`), and the result read back.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use q7_target::DType;

use super::capture::{self, Kept};
use super::report::{self, Finding};
use super::{child, io_err, symbolize, NativeError, NativeProgram, Sanitizer};

/// What q7 keeps of the op's stdout, and of the run's stderr (where the
/// sanitizers' reports are, at the end), from each end.
const CONSOLE_KEPT: usize = 64 * 1024;
const STDERR_KEPT: usize = 1024 * 1024;

/// One kernel argument, kinded as the schema says.
#[derive(Clone, Debug)]
pub enum NativeArg<'a> {
    /// C-order little-endian elements.
    Tensor {
        dtype: DType,
        shape: &'a [usize],
        data: &'a [u8],
    },
    Double(f64),
    Int(i64),
    Scalar(f64),
}

/// What to run.
#[derive(Clone, Debug)]
pub struct NativeLaunch<'a> {
    pub function: &'a str,
    pub args: &'a [NativeArg<'a>],
    /// The destination tensor get_dst_tensor() returns (zero-filled).
    pub dst: Option<(DType, Vec<usize>)>,
    pub cores: u32,
    /// The cores run one after another; 0 runs them in id order, else in a
    /// seeded shuffle.
    pub seed: u64,
    pub sdk_checks: bool,
    pub timeout: Duration,
    /// The device heap of each core in bytes (0: no limit): the op's
    /// allocations during one core's run may not pass it.
    pub heap_per_core: u64,
    /// Resident memory at which q7 stops the run, if any: a backstop for
    /// memory that does not come from the heap.
    pub memory_limit: Option<u64>,
    /// Copy the op's stdout to this process's stdout as it comes (the report
    /// keeps a bounded head and tail either way).
    pub echo: bool,
    /// Scratch directory for the launch file and the tensors' bytes.
    pub work_dir: &'a Path,
}

/// A tensor the op returned.
#[derive(Clone, Debug, serde::Serialize)]
pub struct NativeTensor {
    pub dtype: DType,
    pub shape: Vec<usize>,
    #[serde(skip)]
    pub data: Vec<u8>,
}

/// What a host run did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct NativeReport {
    pub sanitizer: Sanitizer,
    pub function: String,
    /// The cores in the order they ran.
    pub core_order: Vec<u32>,
    pub output: Option<NativeTensor>,
    pub findings: Vec<Finding>,
    /// Why the run did not finish (exit status, signal, time limit), if so.
    pub failure: Option<String>,
    /// The run passed its time limit (and was killed).
    pub timed_out: bool,
    /// What the op printed on stdout: all of it, or its first and last
    /// 64 KiB with a line saying how much is cut between them.
    pub console: String,
    /// Bytes the op printed in all, and how many of them `console` lacks.
    pub console_bytes: u64,
    pub console_cut: u64,
    /// Bytes of the run's stderr q7 did not keep (reports there are lost).
    pub stderr_cut: u64,
    #[serde(serialize_with = "seconds")]
    pub wall: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// The cores in run order: ids in order for seed 0, else a seeded shuffle.
pub fn core_order(cores: u32, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..cores).collect();
    if seed == 0 {
        return order;
    }
    let mut state = seed;
    for i in (1..order.len()).rev() {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        order.swap(i, (z % (i as u64 + 1)) as usize);
    }
    order
}

fn shape_text(dtype: DType, shape: &[usize]) -> String {
    let mut s = format!("{} {}", dtype.code(), shape.len());
    for d in shape {
        let _ = write!(s, " {d}");
    }
    s
}

impl NativeProgram {
    /// Runs the program once. Sanitizer reports become findings; a run that
    /// stops early has a failure and (usually) no output.
    pub fn run(&self, launch: &NativeLaunch) -> Result<NativeReport, NativeError> {
        let work = launch.work_dir;
        std::fs::create_dir_all(work).map_err(io_err(work))?;
        let order = core_order(launch.cores, launch.seed);
        let mut spec = format!("function {}\ncores {}\norder", launch.function, launch.cores);
        for c in &order {
            let _ = write!(spec, " {c}");
        }
        let _ = writeln!(spec, "\nsdk_checks {}", u8::from(launch.sdk_checks));
        let _ = writeln!(spec, "heap {}", launch.heap_per_core);
        for (i, arg) in launch.args.iter().enumerate() {
            match arg {
                NativeArg::Tensor { dtype, shape, data } => {
                    let path = work.join(format!("arg{i}.raw"));
                    std::fs::write(&path, data).map_err(io_err(&path))?;
                    let _ = writeln!(spec, "tensor {} {}", shape_text(*dtype, shape), path.display());
                }
                NativeArg::Double(x) => _ = writeln!(spec, "double {:x}", x.to_bits()),
                NativeArg::Scalar(x) => _ = writeln!(spec, "scalar {:x}", x.to_bits()),
                NativeArg::Int(n) => _ = writeln!(spec, "int {n}"),
            }
        }
        if let Some((dtype, shape)) = &launch.dst {
            let _ = writeln!(spec, "dst {}", shape_text(*dtype, shape));
        }
        let result = work.join("result.raw");
        let _ = std::fs::remove_file(&result);
        let _ = writeln!(spec, "result {}", result.display());
        let spec_path = work.join("launch.txt");
        std::fs::write(&spec_path, &spec).map_err(io_err(&spec_path))?;

        let started = Instant::now();
        let ran = self.spawn(&spec_path, launch)?;
        let wall = started.elapsed();
        // Findings from each kept end (a report cut in two is lost, not garbled).
        let symbolizer = symbolize::find_symbolizer();
        let head = symbolize::symbolize(&String::from_utf8_lossy(&ran.stderr.head), symbolizer.as_deref());
        let tail = symbolize::symbolize(&String::from_utf8_lossy(&ran.stderr.tail), symbolizer.as_deref());
        let mut findings = report::parse(&head, self.sanitizer, &self.sources);
        findings.extend(report::parse(&tail, self.sanitizer, &self.sources));
        let stderr = head + &tail;
        let mut failure = match (&ran.stop, &ran.status) {
            (Some(Stop::Timeout), _) => {
                Some(format!("the host run passed the {} s time limit", launch.timeout.as_secs()))
            }
            (Some(Stop::Memory(limit)), _) => Some(format!(
                "the host run's memory passed its limit of {} MiB (the device's tensor memory with the sanitizers' overhead) and was stopped",
                limit >> 20
            )),
            (None, status) => report::failure(status, &stderr, &findings),
        };
        if ran.survivors > 0 {
            let left = format!(
                "the op left {} process(es) running after it ended (the device has none); q7 killed them",
                ran.survivors
            );
            failure = Some(failure.map_or(left.clone(), |f| format!("{f}; {left}")));
        }
        let output = if failure.is_none() { read_result(&result)? } else { None };
        Ok(NativeReport {
            sanitizer: self.sanitizer,
            function: launch.function.to_string(),
            core_order: order,
            output,
            findings,
            failure,
            timed_out: matches!(ran.stop, Some(Stop::Timeout)),
            console: ran.stdout.text(),
            console_bytes: ran.stdout.total,
            console_cut: ran.stdout.cut(),
            stderr_cut: ran.stderr.cut(),
            wall,
        })
    }

    /// Runs the program on its leash with the sanitizers' options until it
    /// ends or q7 stops it (time limit, memory limit, a caught signal).
    fn spawn(&self, spec: &Path, launch: &NativeLaunch) -> Result<Ran, NativeError> {
        let mut cmd = std::process::Command::new(&self.path);
        cmd.arg(spec).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (key, value) in sanitizer_env(launch.heap_per_core) {
            cmd.env(key, value);
        }
        let run_err = |error: String| NativeError::Run { program: self.path.display().to_string(), error };
        let mut leashed = child::spawn(&mut cmd, true).map_err(|e| run_err(e.to_string()))?;
        let echo: Option<Box<dyn std::io::Write + Send>> =
            if launch.echo { Some(Box::new(std::io::stdout())) } else { None };
        let stdout = leashed.child.stdout.take().map(|o| capture::spawn(o, echo, CONSOLE_KEPT, CONSOLE_KEPT));
        let stderr = leashed.child.stderr.take().map(|e| capture::spawn(e, None, STDERR_KEPT, STDERR_KEPT));
        let deadline = Instant::now() + launch.timeout;
        let mut stop = None;
        for poll in 0u64.. {
            if let Some(signal) = child::caught() {
                // The leash's drop kills the group; the caller removes the files.
                return Err(NativeError::Interrupted { signal });
            }
            if leashed.has_exited().map_err(|e| run_err(e.to_string()))? {
                break;
            }
            if Instant::now() >= deadline {
                stop = Some(Stop::Timeout);
                break;
            }
            // Resident memory every tenth poll (20 ms): enough to stop a runaway early.
            if let Some(limit) = launch.memory_limit.filter(|_| poll % 10 == 0) {
                if leashed.resident_bytes().is_some_and(|rss| rss > limit) {
                    stop = Some(Stop::Memory(limit));
                    break;
                }
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let (status, survivors) = leashed.finish().map_err(|e| run_err(e.to_string()))?;
        // The group is dead, so the pipes are at their end.
        let join = |h: Option<std::thread::JoinHandle<Kept>>| h.and_then(|h| h.join().ok()).unwrap_or_default();
        Ok(Ran { status, stop, survivors, stdout: join(stdout), stderr: join(stderr) })
    }
}

/// Why q7 stopped a run.
enum Stop {
    Timeout,
    /// Resident memory passed this many bytes.
    Memory(u64),
}

struct Ran {
    status: ExitStatus,
    stop: Option<Stop>,
    /// Processes of the run's group alive after it ended.
    survivors: usize,
    stdout: Kept,
    stderr: Kept,
}

/// The sanitizers' run-time options: stack traces, left for q7 to symbolize
/// (`symbolize`: the run may not start llvm-symbolizer), stop at the first
/// memory error, no leak check (the runtime keeps the result tensor alive on
/// purpose), a distinct exit code. An allocation larger than the whole device
/// heap returns null, as the device's does.
fn sanitizer_env(heap_per_core: u64) -> Vec<(&'static str, String)> {
    let mut allocator = String::new();
    if heap_per_core > 0 {
        let mib = heap_per_core.div_ceil(1 << 20);
        allocator = format!(":allocator_may_return_null=1:max_allocation_size_mb={mib}");
    }
    let exit = report::SANITIZER_EXIT;
    vec![
        (
            "ASAN_OPTIONS",
            format!("symbolize=0:print_stacktrace=1:detect_leaks=0:halt_on_error=1:exitcode={exit}{allocator}"),
        ),
        ("UBSAN_OPTIONS", "symbolize=0:print_stacktrace=1:halt_on_error=0".to_string()),
        ("MSAN_OPTIONS", format!("symbolize=0:print_stacktrace=1:halt_on_error=1:exitcode={exit}{allocator}")),
    ]
}

/// Reads "DTYPE RANK D0 ..\n" + elements, as driver.cpp writes them.
fn read_result(path: &Path) -> Result<Option<NativeTensor>, NativeError> {
    let Ok(bytes) = std::fs::read(path) else { return Ok(None) };
    let bad = |why: &str| NativeError::Run { program: PathBuf::from(path).display().to_string(), error: why.into() };
    let newline = bytes.iter().position(|&b| b == b'\n').ok_or_else(|| bad("no header line"))?;
    let header = String::from_utf8_lossy(&bytes[..newline]);
    let numbers: Vec<usize> =
        header.split(' ').map(|t| t.parse().map_err(|_| bad("bad header"))).collect::<Result<_, _>>()?;
    let [code, rank, ref sizes @ ..] = numbers[..] else { return Err(bad("short header")) };
    let dtype = DType::from_code(code as u32).ok_or_else(|| bad("unknown dtype"))?;
    if sizes.len() != rank {
        return Err(bad("rank and sizes disagree"));
    }
    let data = bytes[newline + 1..].to_vec();
    if data.len() != sizes.iter().product::<usize>() * dtype.size() {
        return Err(bad("element bytes do not match the shape"));
    }
    Ok(Some(NativeTensor { dtype, shape: sizes.to_vec(), data }))
}

#[cfg(test)]
mod tests {
    use super::core_order;

    #[test]
    fn seeded_orders_are_permutations_and_reproducible() {
        assert_eq!(core_order(8, 0), (0..8).collect::<Vec<_>>());
        let a = core_order(8, 42);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..8).collect::<Vec<_>>());
        assert_eq!(a, core_order(8, 42));
        assert_ne!(a, core_order(8, 0), "seed 42 shuffles");
    }
}
