//! `q7._q7`: the Rust half of the `q7` Python package. It builds compute
//! sources and runs them in the simulator, in-process. Input tensors cross
//! as (address, length) pairs of contiguous CPU buffers the Python side owns
//! and keeps alive for the duration of the call; the output comes back as an
//! `Output` that owns its bytes, which Python wraps in a tensor without
//! copying (python/q7/_runtime.py).

#![deny(unsafe_code)]

mod args;
mod engine;

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

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

/// An op's output bytes, owned here until the tensor viewing them dies.
#[pyclass(frozen)]
struct Output {
    data: Vec<u8>,
}

#[pymethods]
impl Output {
    /// Address of the first byte (stable: the bytes never move or change size).
    #[getter]
    fn address(&self) -> usize {
        self.data.as_ptr() as usize
    }

    #[getter]
    fn nbytes(&self) -> usize {
        self.data.len()
    }
}

/// A profiled call's report: `json`, the `profile` object `q7 profile --json`
/// prints, and `text(top)`, the report `q7 profile --top TOP` prints.
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

    /// text(top=15): the text report, `top` rows of the function and line tables (0: all).
    #[pyo3(signature = (top = engine::PROFILE_TOP))]
    fn text(&self, top: usize) -> String {
        self.profiled.text(top)
    }
}

/// What `Compute.run` returns: (output, stdout, stderr, instructions,
/// simulated seconds, note on unwritten output elements or None, profile
/// report or None).
type RunResult<'py> =
    (Output, Bound<'py, PyBytes>, Bound<'py, PyBytes>, u64, f64, Option<String>, Option<ProfileReport>);

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
    /// profile_report). With `profile`, the run takes the profiling path and
    /// returns `q7 profile`'s report (a ProfileReport). The output has the
    /// destination's dtype and shape. A finding raises
    /// SimulationError(message, stdout, stderr).
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
        let inputs = args.iter().map(args::input).collect::<PyResult<Vec<_>>>()?;
        let dtype = engine::dtype_by_torch_name(&dst_dtype).ok_or_else(|| {
            PyValueError::new_err(format!(
                "the shape function returns {dst_dtype}, which the device SDK does not support"
            ))
        })?;
        let outcome =
            py.allow_threads(|| engine::run(&self.loaded, &function, &inputs, (dtype, dst_shape), max_insns, profile));
        match outcome {
            Ok(info) => Ok((
                Output { data: info.output },
                PyBytes::new(py, info.stdout.as_bytes()),
                PyBytes::new(py, info.stderr.as_bytes()),
                info.instructions,
                info.simulated.as_secs_f64(),
                info.unwritten,
                info.profile.map(|profiled| ProfileReport { profiled }),
            )),
            Err(failure) => Err(SimulationError::new_err((
                failure.message,
                PyBytes::new(py, failure.stdout.as_bytes()).unbind(),
                PyBytes::new(py, failure.stderr.as_bytes()).unbind(),
            ))),
        }
    }
}

#[pymodule]
fn _q7(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_class::<Compute>()?;
    m.add_class::<Output>()?;
    m.add_class::<ProfileReport>()?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("BuildError", m.py().get_type::<BuildError>())?;
    Ok(())
}
