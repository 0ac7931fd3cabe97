//! `q7._q7`: the Rust half of the `q7` Python package. It builds compute
//! sources and runs them in the simulator, in-process. No address crosses
//! the boundary: input tensors come as `bytes` (immutable, alive for the
//! call), the output goes back as a `bytearray` Python owns, which
//! python/q7/_runtime.py wraps in a tensor without copying.

#![forbid(unsafe_code)]

mod args;
mod engine;
mod gil;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyOSError, PyPermissionError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyTuple, PyType};

/// `q7.BuildError(message)`: the class lives in python/q7/_errors.py, so
/// that tracebacks name it `q7.BuildError`.
fn build_error(py: Python<'_>, message: String) -> PyErr {
    let class = py.import("q7._errors").and_then(|m| m.getattr("BuildError"));
    match class.and_then(|c| c.downcast_into::<PyType>().map_err(PyErr::from)) {
        Ok(class) => PyErr::from_type(class, message),
        Err(e) => e,
    }
}

/// build(name, functions, schemas, sources, build_dir, includes, cflags,
/// multicore, log=None, progress=None) -> (list of linked images, toolchain
/// name). `log`, when given, receives each build step and command as a
/// line; `progress` one line as each phase starts work and the notes of
/// long steps (the device SDK's one-off build).
#[pyfunction]
#[pyo3(signature = (name, functions, schemas, sources, build_dir, includes, cflags, multicore, log=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn build(
    py: Python<'_>,
    name: String,
    functions: Vec<String>,
    schemas: Vec<String>,
    sources: Vec<PathBuf>,
    build_dir: PathBuf,
    includes: Vec<PathBuf>,
    cflags: Vec<String>,
    multicore: bool,
    log: Option<PyObject>,
    progress: Option<PyObject>,
) -> PyResult<(Vec<PathBuf>, String)> {
    let spec = engine::BuildRequest {
        name,
        functions,
        schemas,
        sources,
        build_dir,
        includes,
        cflags,
        multicore,
        ..Default::default()
    };
    gil::allow_threads(py, || with_listener(&log, &progress, |listener| engine::build(&spec, listener)))
        .map_err(|e| build_error(py, e))
}

/// shape_library(build_dir, file_name, sources, includes, cflags, log=None,
/// progress=None) -> (path, None) | (None, why): builds the shape sources
/// against q7's host torch into `build_dir/shape/file_name`
/// (sdk/host/src/shape_abi.cpp's C ABI). `why`, the compiler's or linker's
/// output, when they do not build there (the caller falls back to
/// libtorch); other failures raise BuildError. `log` and `progress` as for
/// `build`.
#[pyfunction]
#[pyo3(signature = (build_dir, file_name, sources, includes, cflags, log=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn shape_library(
    py: Python<'_>,
    build_dir: PathBuf,
    file_name: String,
    sources: Vec<PathBuf>,
    includes: Vec<PathBuf>,
    cflags: Vec<String>,
    log: Option<PyObject>,
    progress: Option<PyObject>,
) -> PyResult<(Option<PathBuf>, Option<String>)> {
    let built = gil::allow_threads(py, || {
        with_listener(&log, &progress, |listener| {
            engine::shape_library(&build_dir, &file_name, &sources, &includes, &cflags, listener)
        })
    });
    match built.map_err(|e| build_error(py, e))? {
        engine::ShapeBuild::Built(path) => Ok((Some(path), None)),
        engine::ShapeBuild::Unsupported(why) => Ok((None, Some(why))),
    }
}

/// device_sdk() -> None | (archive path, built): where q7's device SDK is
/// kept and whether it is built; None when the vendor's toolchain builds
/// (it brings its own SDK). Builds nothing; BuildError when no toolchain is
/// found.
#[pyfunction]
fn device_sdk(py: Python<'_>) -> PyResult<Option<(PathBuf, bool)>> {
    engine::device_sdk().map_err(|e| build_error(py, e))
}

/// prepare(native=False, log=None, progress=None) -> archive path | None:
/// builds q7's device SDK unless built (with `native`, the host SDKs `q7 run
/// --native` links too) into the cache the CLI shares. `log` and `progress`
/// as for `build`.
#[pyfunction]
#[pyo3(signature = (native=false, log=None, progress=None))]
fn prepare(
    py: Python<'_>,
    native: bool,
    log: Option<PyObject>,
    progress: Option<PyObject>,
) -> PyResult<Option<PathBuf>> {
    gil::allow_threads(py, || with_listener(&log, &progress, |listener| engine::prepare(native, listener)))
        .map_err(|e| build_error(py, e))
}

/// Runs `f` with a listener that hands lines to `log` and `progress`
/// (Python callables, either may be None).
fn with_listener<T>(
    log: &Option<PyObject>,
    progress: &Option<PyObject>,
    f: impl FnOnce(engine::Listener<'_>) -> T,
) -> T {
    let say_log = |line: String| say(log, line);
    let say_progress = |line: String| say(progress, line);
    f(engine::Listener {
        log: log.as_ref().map(|_| &say_log as &(dyn Fn(String) + Sync)),
        progress: progress.as_ref().map(|_| &say_progress as &(dyn Fn(String) + Sync)),
    })
}

/// Hands `line` to `callable`. A failing one must not fail the build; at
/// interpreter exit the line is dropped.
fn say(callable: &Option<PyObject>, line: String) {
    if let Some(callable) = callable {
        gil::with_gil(|py| {
            let _ = callable.call1(py, (line,));
        });
    }
}

/// cli(args) -> exit status: runs the q7 command line on `args` (the
/// program name first), as the `q7` binary does: the package's `q7` script
/// (python/q7_cli) calls it. Help, `--version` and flag errors end the
/// process, as in the binary.
#[pyfunction]
fn cli(py: Python<'_>, args: Vec<std::ffi::OsString>) -> i32 {
    gil::allow_threads(py, || q7_cli::main(args))
}

/// private_dir(path): makes `path` (and missing parents) unless it exists:
/// a fresh directory is 0700. Raises PermissionError when it is owned by
/// another user or writable by its group or others (generated files must not
/// land where another user can plant symlinks), OSError when it cannot be
/// made or read.
#[pyfunction]
fn private_dir(path: PathBuf) -> PyResult<()> {
    engine::private_dir(&path).map_err(|e| match e {
        engine::BuildDirError::Io { .. } | engine::BuildDirError::DanglingLink { .. } => {
            PyOSError::new_err(e.to_string())
        }
        _ => PyPermissionError::new_err(e.to_string()),
    })
}

/// Runs Python's signal handlers for a run that holds no GIL: at most every
/// `SIGNAL_POLL` it takes the GIL for `PyErr_CheckSignals` (handlers run on
/// the main thread only, as in Python), and the first exception a handler
/// raises (KeyboardInterrupt on Ctrl-C) stops the run and is kept for the
/// caller to raise. Once the interpreter exits, the run stops as
/// interrupted without taking the GIL (see `gil`).
#[derive(Clone)]
struct SignalWatch(Arc<Mutex<(Instant, Option<PyErr>)>>);

const SIGNAL_POLL: Duration = Duration::from_millis(20);

impl SignalWatch {
    fn new() -> SignalWatch {
        SignalWatch(Arc::new(Mutex::new((Instant::now(), None))))
    }

    fn stop_requested(&self) -> bool {
        let Ok(mut state) = self.0.lock() else { return true };
        if state.1.is_some() {
            return true;
        }
        if state.0.elapsed() < SIGNAL_POLL {
            return false;
        }
        state.0 = Instant::now();
        match gil::with_gil(|py| py.check_signals().err()) {
            Some(raised) => state.1 = raised,
            None => return true,
        }
        state.1.is_some()
    }

    fn take_error(&self) -> Option<PyErr> {
        self.0.lock().ok().and_then(|mut state| state.1.take())
    }
}

/// A profiled call's report: `json`, the `profile` object `q7 profile --json`
/// prints, and `text(top)`, the report `q7 profile --top TOP` prints (the
/// CLI's renderer, so the two cannot drift apart).
#[pyclass(frozen)]
struct ProfileReport {
    profiled: engine::Profiled,
}

#[pymethods]
impl ProfileReport {
    #[getter]
    fn json(&self) -> &str {
        &self.profiled.json
    }

    /// text(top=15): the text report, `top` rows of the function and line
    /// tables (0: all).
    #[pyo3(signature = (top = engine::PROFILE_TOP))]
    fn text(&self, top: usize) -> String {
        self.profiled.text(top)
    }
}

/// The images of one compute library, loaded once and run many times.
#[pyclass(frozen)]
struct Compute {
    loaded: engine::Loaded,
}

#[pymethods]
impl Compute {
    /// Compute(origin, images): `origin` names them in messages; one linked image (single core) or eight (core order).
    #[new]
    fn new(origin: String, images: Vec<Vec<u8>>) -> PyResult<Compute> {
        if images.len() != 1 && images.len() != 8 {
            return Err(PyValueError::new_err(format!(
                "{origin}: {} images; a compute library has 1 or 8",
                images.len()
            )));
        }
        Ok(Compute { loaded: engine::Loaded::new(&origin, &images).map_err(PyValueError::new_err)? })
    }

    #[getter]
    fn cores(&self) -> usize {
        self.loaded.cores()
    }

    /// run(function, args, dst_dtype, dst_shape, max_insns, profile=False,
    /// checks=True, sdk_checks=True, threads=None) -> dict. `threads`: host
    /// threads for the cores (None: the host's available parallelism, at
    /// most 8). `args`: ("tensor", name,
    /// dtype, shape, bytes) or ("double" | "int" | "scalar", value). With
    /// `profile`, the run takes the profiling path. `checks` are q7's
    /// (stray stores and loads, races, unwritten reads), `sdk_checks` the SDK's own.
    ///
    /// The dict: `output` (a new bytearray of the destination's dtype and
    /// shape, None when the run failed), `stdout`, `stderr` (bytes, lines
    /// prefixed with the core), `console_dropped` (console bytes past what
    /// the machine keeps), `instructions`, `simulated_seconds`, `unwritten`
    /// (a note on output elements no core wrote, or None), `profile` (`q7
    /// profile`'s report as a ProfileReport, or None), and `failure`: None, or a dict
    /// of `reason` (one line), `kind` (what failed: engine::Failure::kind), `details` (lines), `core`, `frames` (the
    /// simulated call stack of the reason, innermost first, each (function,
    /// offset, file, line, pc, in_sdk) with None for what is unknown; in_sdk:
    /// the frame is q7's SDK or generated wrapper, not the op), `op_frame`
    /// (the index of the op's own frame in `frames`, or None) and
    /// `quoted_line` (the stderr line the reason quotes, or None).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (function, args, dst_dtype, dst_shape, max_insns, profile = false, checks = true, sdk_checks = true, threads = None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        function: String,
        args: Vec<Bound<'py, PyTuple>>,
        dst_dtype: String,
        dst_shape: Vec<usize>,
        max_insns: u64,
        profile: bool,
        checks: bool,
        sdk_checks: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let parsed = args.iter().map(args::parse).collect::<PyResult<Vec<_>>>()?;
        let inputs: Vec<engine::Input<'_>> = parsed.iter().map(args::Arg::input).collect();
        let dtype = engine::dtype_by_torch_name(&dst_dtype).ok_or_else(|| {
            PyValueError::new_err(format!(
                "the shape function returns {dst_dtype}, which the device SDK does not support"
            ))
        })?;
        let threads = threads.unwrap_or_else(q7_sim::machine::default_threads).max(1);
        let options = engine::RunOptions { checks, sdk_checks, max_insns, profile, threads };
        let signals = SignalWatch::new();
        let stop = {
            let signals = signals.clone();
            move || signals.stop_requested()
        };
        let outcome =
            gil::allow_threads(py, || engine::run(&self.loaded, &function, &inputs, (dtype, dst_shape), options, stop));
        if let Some(raised) = signals.take_error() {
            // KeyboardInterrupt (or whatever a signal handler raised) ends
            // the call, as it would have ended Python code.
            return Err(raised);
        }
        let result = PyDict::new(py);
        match outcome {
            Ok(info) => {
                result.set_item("output", PyByteArray::new(py, &info.output))?;
                result.set_item("stdout", PyBytes::new(py, info.stdout.as_bytes()))?;
                result.set_item("stderr", PyBytes::new(py, info.stderr.as_bytes()))?;
                result.set_item("console_dropped", info.console_dropped)?;
                result.set_item("instructions", info.instructions)?;
                result.set_item("simulated_seconds", info.simulated.as_secs_f64())?;
                result.set_item("unwritten", info.unwritten)?;
                result.set_item("profile", info.profile.map(|profiled| ProfileReport { profiled }))?;
                result.set_item("failure", py.None())?;
            }
            Err(failure) => {
                result.set_item("output", py.None())?;
                result.set_item("stdout", PyBytes::new(py, failure.stdout.as_bytes()))?;
                result.set_item("stderr", PyBytes::new(py, failure.stderr.as_bytes()))?;
                result.set_item("console_dropped", failure.console_dropped)?;
                result.set_item("instructions", 0u64)?;
                result.set_item("simulated_seconds", 0.0f64)?;
                result.set_item("unwritten", py.None())?;
                result.set_item("profile", py.None())?;
                result.set_item("failure", failure_dict(py, &failure)?)?;
            }
        }
        Ok(result)
    }

    /// debug(function, args, dst_dtype, dst_shape, max_insns, checks,
    /// sdk_checks, break_on_finding, first, ask, say) -> None or a failure
    /// dict (as `run` gives when the call cannot start): the debugger over
    /// the call `run` makes with the same arguments, from its first
    /// instruction. `first` commands run first (each echoed after the
    /// prompt); then `ask()` gives each next command line (None ends the
    /// session); `say(str)` gets every answer. Ctrl-C during a command stops
    /// that command, not the session.
    #[allow(clippy::too_many_arguments)]
    fn debug<'py>(
        &self,
        py: Python<'py>,
        function: String,
        args: Vec<Bound<'py, PyTuple>>,
        dst_dtype: String,
        dst_shape: Vec<usize>,
        max_insns: u64,
        checks: bool,
        sdk_checks: bool,
        break_on_finding: bool,
        first: Vec<String>,
        ask: PyObject,
        say: PyObject,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let parsed = args.iter().map(args::parse).collect::<PyResult<Vec<_>>>()?;
        let inputs: Vec<engine::Input<'_>> = parsed.iter().map(args::Arg::input).collect();
        let dtype = engine::dtype_by_torch_name(&dst_dtype)
            .ok_or_else(|| PyValueError::new_err(format!("{dst_dtype} is not a dtype the device SDK supports")))?;
        let options = engine::RunOptions { checks, sdk_checks, max_insns, profile: false, threads: 1 };
        let signals = SignalWatch::new();
        let stop = {
            let signals = signals.clone();
            move || signals.stop_requested()
        };
        // A Python error in ask or say ends the session and is raised.
        let raised: Mutex<Option<PyErr>> = Mutex::new(None);
        let keep = |e: PyErr| {
            if let Ok(mut slot) = raised.lock() {
                slot.get_or_insert(e);
            }
        };
        let mut next_line = || {
            gil::with_gil(|py| {
                // The Ctrl-C that stopped the last command is spent.
                drop(signals.take_error());
                match ask.call0(py).and_then(|line| line.extract::<Option<String>>(py)) {
                    Ok(line) => line,
                    Err(e) => {
                        keep(e);
                        None
                    }
                }
            })
            .flatten()
        };
        let mut say_bytes = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes);
            gil::with_gil(|py| {
                if let Err(e) = say.call1(py, (text.as_ref(),)) {
                    keep(e);
                }
            });
        };
        let console = engine::DebugConsole { first: &first, next_line: &mut next_line, say: &mut say_bytes };
        let outcome = gil::allow_threads(py, || {
            engine::debug(
                &self.loaded,
                &function,
                &inputs,
                (dtype, dst_shape),
                options,
                break_on_finding,
                console,
                stop,
            )
        });
        if let Some(e) = raised.into_inner().ok().flatten() {
            return Err(e);
        }
        match outcome {
            Ok(()) => Ok(None),
            Err(failure) => failure_dict(py, &failure).map(Some),
        }
    }

    /// debug_dap(function, args, dst_dtype, dst_shape, max_insns, checks,
    /// sdk_checks, break_on_finding, port, listening): the call `debug`
    /// would debug, served over the Debug Adapter Protocol to the first
    /// client that connects to 127.0.0.1:`port` (0: a free port).
    /// `listening(port)` is called once the port is open, before waiting.
    /// Raises KeyboardInterrupt on Ctrl-C while waiting, RuntimeError when
    /// the session fails.
    #[allow(clippy::too_many_arguments)]
    fn debug_dap<'py>(
        &self,
        py: Python<'py>,
        function: String,
        args: Vec<Bound<'py, PyTuple>>,
        dst_dtype: String,
        dst_shape: Vec<usize>,
        max_insns: u64,
        checks: bool,
        sdk_checks: bool,
        break_on_finding: bool,
        port: u16,
        listening: PyObject,
    ) -> PyResult<()> {
        let parsed = args.iter().map(args::parse).collect::<PyResult<Vec<_>>>()?;
        let inputs: Vec<engine::Input<'_>> = parsed.iter().map(args::Arg::input).collect();
        let dtype = engine::dtype_by_torch_name(&dst_dtype)
            .ok_or_else(|| PyValueError::new_err(format!("{dst_dtype} is not a dtype the device SDK supports")))?;
        let options = engine::RunOptions { checks, sdk_checks, max_insns, profile: false, threads: 1 };
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| PyOSError::new_err(format!("127.0.0.1:{port}: cannot listen for a DAP client: {e}")))?;
        let bound = listener.local_addr().map_err(|e| PyOSError::new_err(e.to_string()))?.port();
        listening.call1(py, (bound,))?;
        let signals = SignalWatch::new();
        let stop = {
            let signals = signals.clone();
            move || signals.stop_requested()
        };
        let outcome = gil::allow_threads(py, || {
            engine::debug_dap(
                &self.loaded,
                &function,
                &inputs,
                (dtype, dst_shape),
                options,
                break_on_finding,
                listener,
                stop,
            )
        });
        if let Some(raised) = signals.take_error() {
            return Err(raised);
        }
        outcome.map_err(pyo3::exceptions::PyRuntimeError::new_err)
    }
}

/// A failed run as `Compute.run` describes it (see there).
fn failure_dict<'py>(py: Python<'py>, failure: &engine::Failure) -> PyResult<Bound<'py, PyDict>> {
    let frames = PyList::empty(py);
    for frame in &failure.frames {
        let (function, offset) = frame.function.clone().unzip();
        let (file, line) = frame.source.clone().unzip();
        frames.append((function, offset, file, line, frame.pc, frame.in_sdk))?;
    }
    let d = PyDict::new(py);
    d.set_item("reason", &failure.reason)?;
    d.set_item("kind", failure.kind)?;
    d.set_item("details", &failure.details)?;
    d.set_item("core", failure.core)?;
    d.set_item("frames", frames)?;
    d.set_item("op_frame", failure.op_frame)?;
    d.set_item("quoted_line", &failure.quoted_line)?;
    Ok(d)
}

/// Kernel(target): what q7 registers with torch as an op's CPU kernel. A
/// call is `target(*args)`; an error q7 raised for the caller (one with a
/// `_q7_for_caller` attribute: bad arguments, a finding) leaves without
/// q7's own Python frames, so the traceback ends where the op was called.
/// Being native, this callable adds no frame of its own.
#[pyclass(frozen)]
struct Kernel {
    target: PyObject,
}

#[pymethods]
impl Kernel {
    #[new]
    fn new(target: PyObject) -> Kernel {
        Kernel { target }
    }

    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<PyObject> {
        self.target.call1(py, args.clone()).map_err(|e| {
            let value = e.into_value(py).into_bound(py);
            if value.hasattr("_q7_for_caller").unwrap_or(false) {
                // Best effort: an exception whose traceback cannot be set
                // still propagates, frames and all.
                let _ = value.setattr("__traceback__", py.None());
            }
            PyErr::from_value(value.into_any())
        })
    }
}

#[pymodule]
fn _q7(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(private_dir, m)?)?;
    m.add_function(wrap_pyfunction!(shape_library, m)?)?;
    m.add_function(wrap_pyfunction!(device_sdk, m)?)?;
    m.add_function(wrap_pyfunction!(prepare, m)?)?;
    m.add_class::<Compute>()?;
    m.add_class::<Kernel>()?;
    m.add_class::<ProfileReport>()?;
    // Threads still in a run or build when the interpreter exits must not
    // take the GIL again (see `gil`).
    let exits = wrap_pyfunction!(gil::interpreter_exits, m)?;
    m.py().import("atexit")?.call_method1("register", (exits,))?;
    Ok(())
}
