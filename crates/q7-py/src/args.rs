//! Kernel arguments from Python tuples. The one place q7-py reads memory
//! it does not own: the buffers of the caller's input tensors.
#![allow(unsafe_code)]

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::engine;

/// One argument tuple from Python: ("tensor", name, dtype, shape, address,
/// nbytes) or ("double" | "int" | "scalar", value).
pub(crate) fn input<'a>(item: &Bound<'_, PyTuple>) -> PyResult<engine::Input<'a>> {
    let kind: String = item.get_item(0)?.extract()?;
    Ok(match kind.as_str() {
        "tensor" => {
            let name: String = item.get_item(1)?.extract()?;
            let dtype_name: String = item.get_item(2)?.extract()?;
            let dtype = engine::dtype_by_torch_name(&dtype_name).ok_or_else(|| {
                PyValueError::new_err(format!("tensor `{name}`: dtype {dtype_name} is not one the device SDK supports"))
            })?;
            let shape: Vec<usize> = item.get_item(3)?.extract()?;
            let address: usize = item.get_item(4)?.extract()?;
            let nbytes: usize = item.get_item(5)?.extract()?;
            let expected = shape.iter().product::<usize>() * engine::dtype_size(dtype);
            if nbytes != expected {
                return Err(PyValueError::new_err(format!(
                    "tensor `{name}`: {nbytes} bytes for shape {shape:?} of {dtype_name} ({expected} expected)"
                )));
            }
            let bytes: &[u8] = if nbytes == 0 {
                &[]
            } else {
                // SAFETY: the caller passes the data pointer of a contiguous
                // CPU tensor of `nbytes` bytes and holds a reference to it
                // until this call returns (python/q7/_runtime.py).
                unsafe { std::slice::from_raw_parts(address as *const u8, nbytes) }
            };
            engine::Input::Tensor { name, dtype, shape, bytes }
        }
        "double" => engine::Input::Double(item.get_item(1)?.extract()?),
        "int" => engine::Input::Int(item.get_item(1)?.extract()?),
        "scalar" => engine::Input::Scalar(item.get_item(1)?.extract()?),
        other => return Err(PyValueError::new_err(format!("unknown argument kind `{other}`"))),
    })
}
