//! The destination's shape and dtype from the op's shape function: a build
//! given shape sources (`q7 build --shape`) keeps a host program,
//! `q7-shape`, beside its images (q7_build::shape); this runs it on the
//! actual arguments' shapes and dtypes and reads back the output's.

use std::path::{Path, PathBuf};
use std::process::Command;

use q7_target::DType;

use super::args::{ArgValue, Number};
use super::error::OpError;
use super::placement::Destination;

pub use q7_target::artifacts::SHAPE_PROGRAM as PROGRAM;

/// The program's exit status for "no such op" (sdk/host/src/shape_main.cpp).
const UNKNOWN_OP: i32 = 3;

/// The shape program beside `opened` (a build directory, or an image in one).
pub fn find(opened: &Path) -> Option<PathBuf> {
    let dir = if opened.is_dir() { opened } else { opened.parent()? };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    Some(dir.join(PROGRAM)).filter(|p| p.is_file())
}

/// An argument as the program's command line spells it.
fn arg_text(value: &ArgValue) -> String {
    match value {
        ArgValue::Tensor(t) => {
            let dims: Vec<String> = t.shape.iter().map(usize::to_string).collect();
            format!("{}:{}", short_name(t.dtype), dims.join(","))
        }
        ArgValue::Int(i) | ArgValue::Number(Number::Int(i)) => i.to_string(),
        ArgValue::Scalar(x) | ArgValue::Double(x) | ArgValue::Number(Number::Float(x)) => format!("{x:?}"),
    }
}

fn short_name(dtype: DType) -> &'static str {
    match dtype {
        DType::U8 => "u8",
        DType::I8 => "i8",
        DType::I16 => "i16",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::F16 => "f16",
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::Bool => "bool",
        DType::BF16 => "bf16",
    }
}

/// What `program` says `function` (an op or compute function name) returns
/// for `args`; `None` when the shape sources do not register it.
pub fn destination(program: &Path, function: &str, args: &[ArgValue]) -> Result<Option<Destination>, OpError> {
    let failed =
        |message: String| OpError::ShapeProgram { path: program.to_path_buf(), function: function.into(), message };
    let out = Command::new(program)
        .arg("call")
        .arg(function)
        .args(args.iter().map(arg_text))
        .output()
        .map_err(|e| failed(format!("cannot run: {e}")))?;
    if out.status.code() == Some(UNKNOWN_OP) {
        return Ok(None);
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let why = stderr.lines().next().filter(|l| !l.trim().is_empty()).map_or(out.status.to_string(), str::to_string);
        return Err(failed(why));
    }
    parse(stdout.trim()).map(Some).ok_or_else(|| failed(format!("unreadable answer `{}`", stdout.trim())))
}

/// `DTYPE D0,D1,...` (no dims: a 0-d tensor).
fn parse(line: &str) -> Option<Destination> {
    let (dtype, dims) = line.split_once(' ').unwrap_or((line, ""));
    let dtype = DType::parse_name(dtype)?;
    let shape =
        if dims.is_empty() { Vec::new() } else { dims.split(',').map(|d| d.parse().ok()).collect::<Option<_>>()? };
    Some(Destination { dtype, shape })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse_and_arguments_print() {
        assert_eq!(parse("f32 4,5"), Some(Destination { dtype: DType::F32, shape: vec![4, 5] }));
        assert_eq!(parse("i32 "), Some(Destination { dtype: DType::I32, shape: vec![] }));
        assert_eq!(parse("f32 4,x"), None);
        assert_eq!(parse("zz 4"), None);
        assert_eq!(arg_text(&ArgValue::Double(0.5)), "0.5");
        assert_eq!(arg_text(&ArgValue::Scalar(3.0)), "3.0");
        assert_eq!(arg_text(&ArgValue::Number(Number::Int(-2))), "-2");
    }
}
