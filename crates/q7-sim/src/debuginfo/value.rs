//! Values as a debugger shows them: read from the target through DWARF
//! types, printed as gdb prints them (`42`, `1.5`, `(float *) 0x80040000`,
//! `{1, 2, 3}`, `{x = 1, y = 2}`, `<optimized out>`). One difference:
//! floating-point numbers print in their shortest form that reads back
//! exactly (`0.1`, where gdb prints `0.100000001`).

use std::fmt;

/// Arrays show at most this many elements (gdb's `print elements`).
pub const MAX_ELEMENTS: usize = 200;
/// A run of this many equal elements prints once (gdb's `repeats`).
const REPEAT_THRESHOLD: usize = 10;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Integers of `size` bytes (`signed` says how to read the bits).
    Int {
        value: i128,
        size: u8,
        signed: bool,
    },
    Bool(bool),
    /// `char` and its signed/unsigned forms.
    Char(i64),
    Float(f32),
    Double(f64),
    /// `type_name` is the pointer's type (`float *`).
    Pointer {
        type_name: String,
        address: u32,
    },
    /// The first [`MAX_ELEMENTS`] elements at most; `length` is the
    /// array's (0 when unknown).
    Array {
        elements: Vec<Value>,
        length: u64,
    },
    /// Structures, classes and unions: fields in declaration order (base
    /// classes first, named `<Base>`).
    Struct {
        fields: Vec<(String, Value)>,
    },
    /// A reference, shown as gdb does: `@0x84001000: <referent>`.
    Reference {
        type_name: String,
        address: u32,
        referent: Box<Value>,
    },
    Enum {
        value: i64,
        name: Option<String>,
    },
    /// The variable has no location at this pc.
    OptimizedOut,
    /// The value cannot be read here (and why).
    Unavailable(String),
}

impl Value {
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int { value, .. } => i64::try_from(*value).ok(),
            Value::Bool(b) => Some(i64::from(*b)),
            Value::Char(c) => Some(*c),
            Value::Enum { value, .. } => Some(*value),
            Value::Pointer { address, .. } => Some(i64::from(*address)),
            Value::Reference { referent, .. } => referent.as_i64(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(f64::from(*f)),
            Value::Double(d) => Some(*d),
            Value::Int { value, .. } => Some(*value as f64),
            Value::Reference { referent, .. } => referent.as_f64(),
            other => other.as_i64().map(|v| v as f64),
        }
    }

    /// C truth: non-zero numbers and non-null pointers are true.
    pub fn is_true(&self) -> Option<bool> {
        match self {
            Value::Float(f) => Some(*f != 0.0),
            Value::Double(d) => Some(*d != 0.0),
            Value::Int { value, .. } => Some(*value != 0),
            Value::Reference { referent, .. } => referent.is_true(),
            other => other.as_i64().map(|v| v != 0),
        }
    }

    /// Writes the value; `top` shows pointer and reference types as
    /// `print` does at the top level (`(int *) 0x…`), not inside aggregates.
    fn write(&self, f: &mut fmt::Formatter<'_>, top: bool) -> fmt::Result {
        match self {
            Value::Int { value, .. } => write!(f, "{value}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Char(c) => write!(f, "{c} {}", char_literal(*c)),
            Value::Float(x) => f.write_str(&float_text(f64::from(*x), x.to_string())),
            Value::Double(x) => f.write_str(&float_text(*x, x.to_string())),
            Value::Pointer { type_name, address } if top => write!(f, "({type_name}) {address:#x}"),
            Value::Pointer { address, .. } => write!(f, "{address:#x}"),
            Value::Array { elements, length } => {
                f.write_str("{")?;
                let mut i = 0;
                while i < elements.len() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    let run = elements[i..].iter().take_while(|e| *e == &elements[i]).count();
                    elements[i].write(f, false)?;
                    if run >= REPEAT_THRESHOLD {
                        write!(f, " <repeats {run} times>")?;
                        i += run;
                    } else {
                        i += 1;
                    }
                }
                if (elements.len() as u64) < *length {
                    f.write_str("...")?;
                }
                f.write_str("}")
            }
            Value::Struct { fields } if fields.is_empty() => f.write_str("{<No data fields>}"),
            Value::Struct { fields } => {
                f.write_str("{")?;
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if !name.is_empty() {
                        write!(f, "{name} = ")?;
                    }
                    value.write(f, false)?;
                }
                f.write_str("}")
            }
            Value::Reference { type_name, address, referent } => {
                if top {
                    write!(f, "({type_name}) ")?;
                }
                write!(f, "@{address:#x}: ")?;
                referent.write(f, false)
            }
            Value::Enum { name: Some(name), .. } => f.write_str(name),
            Value::Enum { value, name: None } => write!(f, "{value}"),
            Value::OptimizedOut => f.write_str("<optimized out>"),
            Value::Unavailable(why) => write!(f, "<unavailable: {why}>"),
        }
    }
}

/// `{}` prints as `print` does; `{:#}` as `info locals` does (no pointer or
/// reference type in front).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let top = !f.alternate();
        self.write(f, top)
    }
}

/// The shortest text that reads back as the same number; exponent form
/// for very large and very small magnitudes, `inf`/`nan` as gdb spells them.
fn float_text(x: f64, shortest: String) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan(0x8000000000000)" } else { "nan(0x8000000000000)" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    let magnitude = x.abs();
    if magnitude != 0.0 && !(1e-5..1e16).contains(&magnitude) {
        // Rust's `{:e}` of the same shortest digits: `1e20`, `1.5e-7`.
        let (mantissa, exponent) = match shortest.parse::<f64>() {
            Ok(v) => {
                let e = format!("{v:e}");
                match e.split_once('e') {
                    Some((m, x)) => (m.to_string(), x.to_string()),
                    None => return e,
                }
            }
            Err(_) => return shortest,
        };
        let sign = if exponent.starts_with('-') { "-" } else { "+" };
        let digits = exponent.trim_start_matches('-');
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    shortest
}

/// `'A'`, `'\n'`, `'\000'`: the character as a C literal.
fn char_literal(c: i64) -> String {
    let byte = (c & 0xff) as u8;
    match byte {
        b'\n' => "'\\n'".into(),
        b'\t' => "'\\t'".into(),
        b'\r' => "'\\r'".into(),
        b'\'' => "'\\''".into(),
        b'\\' => "'\\\\'".into(),
        0x20..=0x7e => format!("'{}'", byte as char),
        _ => format!("'\\{byte:03o}'"),
    }
}
