//! Kernel arguments from Python tuples. A tensor's bytes arrive as a Python
//! `bytes` object: immutable and kept alive by the argument tuple for the
//! whole call, so the run may read it with the GIL released. No address
//! crosses from Python.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::engine;

/// One argument as parsed, holding a reference to its tensor bytes.
pub(crate) enum Arg<'py> {
    Tensor { name: String, dtype: q7_target::DType, shape: Vec<usize>, bytes: Bound<'py, PyBytes> },
    Double(f64),
    Int(i64),
    Scalar(f64),
}

impl Arg<'_> {
    /// The argument as the engine takes it, borrowing the tensor bytes.
    pub(crate) fn input(&self) -> engine::Input<'_> {
        match self {
            Arg::Tensor { name, dtype, shape, bytes } => engine::Input::Tensor {
                name: name.clone(),
                dtype: *dtype,
                shape: shape.clone(),
                bytes: bytes.as_bytes(),
            },
            Arg::Double(v) => engine::Input::Double(*v),
            Arg::Int(v) => engine::Input::Int(*v),
            Arg::Scalar(v) => engine::Input::Scalar(*v),
        }
    }
}

/// One argument tuple from Python: ("tensor", name, dtype, shape, bytes)
/// or ("double" | "int" | "scalar", value).
pub(crate) fn parse<'py>(item: &Bound<'py, PyTuple>) -> PyResult<Arg<'py>> {
    let kind: String = item.get_item(0)?.extract()?;
    Ok(match kind.as_str() {
        "tensor" => {
            let name: String = item.get_item(1)?.extract()?;
            let dtype_name: String = item.get_item(2)?.extract()?;
            let dtype = engine::dtype_by_torch_name(&dtype_name).ok_or_else(|| {
                PyValueError::new_err(format!("tensor `{name}`: dtype {dtype_name} is not one the device SDK supports"))
            })?;
            let shape: Vec<usize> = item.get_item(3)?.extract()?;
            let data = item.get_item(4)?;
            let bytes = data.downcast_into::<PyBytes>().map_err(|e| {
                let got = e.into_inner().get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
                PyTypeError::new_err(format!("tensor `{name}`: its contents must be bytes, got {got}"))
            })?;
            let nbytes = bytes.as_bytes().len();
            let expected = shape.iter().try_fold(engine::dtype_size(dtype), |n, &d| n.checked_mul(d));
            if expected != Some(nbytes) {
                return Err(PyValueError::new_err(format!(
                    "tensor `{name}`: {nbytes} bytes for shape {shape:?} of {dtype_name}"
                )));
            }
            Arg::Tensor { name, dtype, shape, bytes }
        }
        "double" => Arg::Double(item.get_item(1)?.extract()?),
        "int" => Arg::Int(item.get_item(1)?.extract()?),
        "scalar" => Arg::Scalar(item.get_item(1)?.extract()?),
        other => return Err(PyValueError::new_err(format!("unknown argument kind `{other}`"))),
    })
}
