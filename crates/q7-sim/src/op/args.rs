//! Kernel arguments: what a caller passes, checked and ordered against the
//! op's schema (the table the wrapper embeds) before anything is launched.

use q7_target::launch::descriptor::MAX_RANK;
use q7_target::schema::table::SchemaEntry;
use q7_target::schema::ArgKind;
use q7_target::DType;

use super::error::{GivenKind, OpError};
use crate::npy::Array;

/// A tensor argument. Its bytes are borrowed (from a `.npy` file the caller
/// read, or a Python buffer): they are copied once, into tensor memory.
#[derive(Clone, Debug)]
pub struct TensorArg<'a> {
    /// For messages ("tensor x: index 7").
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// C-order, little-endian elements.
    pub data: &'a [u8],
}

impl<'a> TensorArg<'a> {
    pub fn from_array(name: impl Into<String>, array: &'a Array) -> TensorArg<'a> {
        TensorArg { name: name.into(), dtype: array.dtype, shape: array.shape.clone(), data: &array.data }
    }

    /// Bytes the shape and dtype call for, if that fits in 128 bits.
    fn expected_bytes(&self) -> Option<u128> {
        self.shape.iter().try_fold(self.dtype.size() as u128, |n, &d| n.checked_mul(d as u128))
    }
}

/// A number whose kind the schema decides (`q7 run --arg`, Python numbers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

/// One argument as a caller gives it.
#[derive(Clone, Debug)]
pub enum ArgValue<'a> {
    Tensor(TensorArg<'a>),
    /// A `torch::Scalar` (passed as a double).
    Scalar(f64),
    /// An `int64_t`.
    Int(i64),
    /// A `double` (schema `float`).
    Double(f64),
    /// Converted to what the schema says.
    Number(Number),
}

impl ArgValue<'_> {
    pub fn given_kind(&self) -> GivenKind {
        match self {
            ArgValue::Tensor(_) => GivenKind::Tensor,
            ArgValue::Scalar(_) => GivenKind::Scalar,
            ArgValue::Int(_) => GivenKind::Int,
            ArgValue::Double(_) => GivenKind::Double,
            ArgValue::Number(_) => GivenKind::Number,
        }
    }
}

/// An argument as the launch block carries it (sdk/ABI.md kinds).
#[derive(Clone, Debug)]
pub enum KernelArg<'a> {
    Tensor(&'a TensorArg<'a>),
    Double(f64),
    Int(i64),
    Scalar(f64),
}

/// Checks every tensor and orders the values for the launch block. With a
/// schema, the count and each kind must match it (plain numbers are
/// converted); without one, explicit kinds pass as given.
pub(crate) fn bind<'v, 'a>(
    function: &str,
    schema: Option<&SchemaEntry>,
    values: &'v [ArgValue<'a>],
) -> Result<Vec<KernelArg<'v>>, OpError> {
    for v in values {
        if let ArgValue::Tensor(t) = v {
            check_tensor(t)?;
        }
    }
    let Some(entry) = schema else {
        return values.iter().enumerate().map(|(i, v)| unchecked(function, i, v)).collect();
    };
    let params = &entry.schema.args;
    if params.len() != values.len() {
        return Err(OpError::ArgCount {
            function: function.to_string(),
            schema: entry.schema.to_string(),
            expected: params.len(),
            given: values.len(),
        });
    }
    params
        .iter()
        .zip(values)
        .enumerate()
        .map(|(index, (param, value))| {
            let mismatch = || OpError::ArgKind {
                function: function.to_string(),
                index,
                param: param.name.clone(),
                expected: param.kind,
                given: value.given_kind(),
            };
            Ok(match (param.kind, value) {
                (ArgKind::Tensor, ArgValue::Tensor(t)) => KernelArg::Tensor(t),
                (ArgKind::Scalar, ArgValue::Scalar(x)) => KernelArg::Scalar(*x),
                (ArgKind::Scalar, ArgValue::Number(n)) => KernelArg::Scalar(as_f64(*n)),
                (ArgKind::Float, ArgValue::Double(x)) => KernelArg::Double(*x),
                (ArgKind::Float, ArgValue::Number(n)) => KernelArg::Double(as_f64(*n)),
                (ArgKind::Int, ArgValue::Int(i)) => KernelArg::Int(*i),
                (ArgKind::Int, ArgValue::Number(Number::Int(i))) => KernelArg::Int(*i),
                (ArgKind::Int, ArgValue::Number(Number::Float(x))) => {
                    let whole = x.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(x);
                    if !whole {
                        return Err(OpError::NotAnInt {
                            function: function.to_string(),
                            index,
                            param: param.name.clone(),
                            value: *x,
                        });
                    }
                    KernelArg::Int(*x as i64)
                }
                _ => return Err(mismatch()),
            })
        })
        .collect()
}

fn as_f64(n: Number) -> f64 {
    match n {
        Number::Int(i) => i as f64,
        Number::Float(x) => x,
    }
}

/// Without a schema a plain number has no kind to take.
fn unchecked<'v>(function: &str, index: usize, value: &'v ArgValue) -> Result<KernelArg<'v>, OpError> {
    Ok(match value {
        ArgValue::Tensor(t) => KernelArg::Tensor(t),
        ArgValue::Scalar(x) => KernelArg::Scalar(*x),
        ArgValue::Int(i) => KernelArg::Int(*i),
        ArgValue::Double(x) => KernelArg::Double(*x),
        ArgValue::Number(_) => {
            return Err(OpError::UntypedNumber { function: function.to_string(), index });
        }
    })
}

/// Rank within the descriptor, and as many bytes as shape and dtype say.
pub(crate) fn check_tensor(t: &TensorArg) -> Result<(), OpError> {
    if t.shape.len() > MAX_RANK {
        return Err(OpError::Rank { tensor: t.name.clone(), rank: t.shape.len(), max: MAX_RANK });
    }
    match t.expected_bytes() {
        Some(n) if n == t.data.len() as u128 => Ok(()),
        n => Err(OpError::DataSize { tensor: t.name.clone(), bytes: n.unwrap_or(u128::MAX), have: t.data.len() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_target::schema::parse;

    fn entry(schema: &str) -> SchemaEntry {
        SchemaEntry { index: 0, function: "f".into(), schema: parse(schema).unwrap() }
    }

    fn tensor(data: &[u8]) -> ArgValue<'_> {
        ArgValue::Tensor(TensorArg { name: "x".into(), dtype: DType::U8, shape: vec![data.len()], data })
    }

    #[test]
    fn numbers_take_the_schema_kind() {
        let e = entry("f(Tensor x, float s, int n, Scalar k) -> Tensor");
        let data = [1u8, 2];
        let values = [
            tensor(&data),
            ArgValue::Number(Number::Int(2)),
            ArgValue::Number(Number::Float(3.0)),
            ArgValue::Number(Number::Float(0.5)),
        ];
        let bound = bind("f", Some(&e), &values).unwrap();
        assert!(matches!(bound[1], KernelArg::Double(x) if x == 2.0));
        assert!(matches!(bound[2], KernelArg::Int(3)));
        assert!(matches!(bound[3], KernelArg::Scalar(x) if x == 0.5));
    }

    #[test]
    fn wrong_arguments_are_refused_before_launch() {
        let e = entry("scale(Tensor x, float s) -> Tensor");
        let data = [0u8; 4];
        let err = bind("scale", Some(&e), &[tensor(&data)]).unwrap_err();
        assert_eq!(err.to_string(), "`scale` takes 2 argument(s) (scale(Tensor x, float s) -> Tensor), 1 given");
        let err = bind("scale", Some(&e), &[tensor(&data), ArgValue::Scalar(1.0)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`scale` argument 2 `s` is a float (double) (schema type float), but a Scalar was given"
        );
        let e = entry("f(int n) -> Tensor");
        let err = bind("f", Some(&e), &[ArgValue::Number(Number::Float(1.5))]).unwrap_err();
        assert!(matches!(err, OpError::NotAnInt { .. }), "{err}");
    }

    #[test]
    fn tensors_are_checked() {
        let data = [0u8; 4];
        let t = TensorArg { name: "x".into(), dtype: DType::F32, shape: vec![1; 9], data: &data };
        assert_eq!(
            check_tensor(&t).unwrap_err().to_string(),
            "tensor `x` has rank 9; a tensor descriptor holds at most 8 dimensions"
        );
        let t = TensorArg { name: "x".into(), dtype: DType::F32, shape: vec![1 << 40, 1 << 40], data: &data };
        assert!(matches!(check_tensor(&t), Err(OpError::DataSize { .. })));
        let t = TensorArg { name: "x".into(), dtype: DType::F32, shape: vec![], data: &data };
        check_tensor(&t).unwrap();
    }
}
