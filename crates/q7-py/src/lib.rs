//! `q7._q7`: the Rust half of the `q7` Python package. It builds compute
//! sources and runs them in the simulator, in-process. No address crosses
//! the boundary: input tensors come as `bytes` (immutable, alive for the
//! call), the output goes back as a `bytearray` Python owns, which
//! python/q7/_runtime.py wraps in a tensor without copying.

#![forbid(unsafe_code)]

mod args;
mod engine;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyPermissionError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};

create_exception!(_q7, SimulationError, PyException, "The simulator found a problem while running an op.");
create_exception!(_q7, BuildError, PyException, "Building an op's compute sources failed.");

/// build(name, functions, schemas, sources, build_dir, includes, cflags,
/// multicore, log=None) -> (list of linked images, toolchain name).
/// `log`, when given, receives each build step and command as a line.
#[pyfunction]
#[pyo3(signature = (name, functions, schemas, sources, build_dir, includes, cflags, multicore, log=None))]
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
    let verbose = log.is_some();
    let sink = move |line: String| {
        if let Some(log) = &log {
            Python::with_gil(|py| {
                // A failing logger must not fail the build.
                let _ = log.call1(py, (line,));
            });
        }
    };
    py.allow_threads(|| engine::build(&spec, verbose, &sink)).map_err(BuildError::new_err)
}

/// private_dir(path): makes `path` (and missing parents) unless it exists:
/// a fresh directory is 0700. Raises PermissionError when it is owned by
/// another user or writable by its group or others (generated files must not
/// land where another user can plant symlinks), OSError when it cannot be
/// made or read.
#[pyfunction]
fn private_dir(path: PathBuf) -> PyResult<()> {
    engine::private_dir(&path).map_err(|e| match e {
        engine::BuildDirError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => PyPermissionError::new_err(e.to_string()),
    })
}

/// Runs Python's signal handlers for a run that holds no GIL: at most every
/// `SIGNAL_POLL` it takes the GIL for `PyErr_CheckSignals` (handlers run on
/// the main thread only, as in Python), and the first exception a handler
/// raises (KeyboardInterrupt on Ctrl-C) stops the run and is kept for the
/// caller to raise.
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
        state.1 = Python::with_gil(|py| py.check_signals().err());
        state.1.is_some()
    }

    fn take_error(&self) -> Option<PyErr> {
        self.0.lock().ok().and_then(|mut state| state.1.take())
    }
}

/// What `Compute.run` returns: (output bytearray, stdout, stderr,
/// instructions, simulated seconds, note on unwritten output elements or
/// None, profile JSON or None, console bytes dropped).
type RunResult<'py> =
    (Bound<'py, PyByteArray>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, u64, f64, Option<String>, Option<String>, u64);

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

    /// run(function, args, dst_dtype, dst_shape, max_insns, profile=False) -> (output,
    /// stdout, stderr, instructions, simulated_seconds, unwritten_note,
    /// profile_json, console_dropped); console_dropped counts console bytes
    /// past what the machine keeps (not in stdout/stderr). `args`: ("tensor", name, dtype, shape, bytes) or
    /// ("double" | "int" | "scalar", value). With `profile`, the run takes
    /// the profiling path and returns `q7 profile`'s report as JSON. The
    /// output is a new bytearray of the destination's dtype and shape. A
    /// finding raises SimulationError(message, stdout, stderr, console_dropped).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (function, args, dst_dtype, dst_shape, max_insns, profile = false))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        function: String,
        args: Vec<Bound<'py, PyTuple>>,
        dst_dtype: String,
        dst_shape: Vec<usize>,
        max_insns: u64,
        profile: bool,
    ) -> PyResult<RunResult<'py>> {
        let parsed = args.iter().map(args::parse).collect::<PyResult<Vec<_>>>()?;
        let inputs: Vec<engine::Input<'_>> = parsed.iter().map(args::Arg::input).collect();
        let dtype = engine::dtype_by_torch_name(&dst_dtype).ok_or_else(|| {
            PyValueError::new_err(format!(
                "the shape function returns {dst_dtype}, which the device SDK does not support"
            ))
        })?;
        let signals = SignalWatch::new();
        let stop = {
            let signals = signals.clone();
            move || signals.stop_requested()
        };
        let outcome = py.allow_threads(|| {
            engine::run(&self.loaded, &function, &inputs, (dtype, dst_shape), max_insns, profile, stop)
        });
        if let Some(raised) = signals.take_error() {
            // KeyboardInterrupt (or whatever a signal handler raised) ends
            // the call, as it would have ended Python code.
            return Err(raised);
        }
        match outcome {
            Ok(info) => Ok((
                PyByteArray::new(py, &info.output),
                PyBytes::new(py, info.stdout.as_bytes()),
                PyBytes::new(py, info.stderr.as_bytes()),
                info.instructions,
                info.simulated.as_secs_f64(),
                info.unwritten,
                info.profile,
                info.console_dropped,
            )),
            Err(failure) => Err(SimulationError::new_err((
                failure.message,
                PyBytes::new(py, failure.stdout.as_bytes()).unbind(),
                PyBytes::new(py, failure.stderr.as_bytes()).unbind(),
                failure.console_dropped,
            ))),
        }
    }
}

#[pymodule]
fn _q7(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(private_dir, m)?)?;
    m.add_class::<Compute>()?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("BuildError", m.py().get_type::<BuildError>())?;
    Ok(())
}
