//! Typed objects (a type and where its bytes are) and their values: the
//! one place target bytes become a [`Value`].

use super::location::{le_u64, Loc};
use super::types::{BaseKind, Member, Type, TypeRef};
use super::value::{Value, MAX_ELEMENTS};
use super::{DebugInfo, FrameView};

#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub ty: TypeRef,
    pub loc: Loc,
}

/// References followed and aggregates entered before a value stops
/// (a list that points back to itself must still print).
const MAX_DEPTH: usize = 12;
/// An aggregate in memory up to this size is read in one request.
const PREFETCH: u32 = 1 << 16;
/// Values read for one object at most: each array shows at most
/// [`MAX_ELEMENTS`], but arrays of arrays of structures multiply.
const MAX_VALUES: usize = 20_000;

impl DebugInfo {
    pub(crate) fn value(&self, obj: &Object, frame: &dyn FrameView) -> Value {
        self.value_at(&obj.ty, &obj.loc, frame, 0, &mut { MAX_VALUES })
    }

    /// The value of a `ty` at `loc`; `budget` counts down the values
    /// still to read (an array stops short when it runs out).
    fn value_at(&self, ty: &TypeRef, loc: &Loc, frame: &dyn FrameView, depth: usize, budget: &mut usize) -> Value {
        *budget = budget.saturating_sub(1);
        match loc {
            Loc::OptimizedOut => return Value::OptimizedOut,
            Loc::Unavailable(why) => return Value::Unavailable(why.clone()),
            _ => {}
        }
        if depth > MAX_DEPTH {
            return Value::Unavailable("nested too deep".into());
        }
        let t = self.resolve(ty);
        match &t {
            Type::Base { kind, size, .. } => match bytes(loc, *size, frame) {
                Ok(b) => base_value(*kind, &b),
                Err(v) => v,
            },
            Type::Enum { size, signed, values, .. } => match bytes(loc, *size, frame) {
                Ok(b) => {
                    let value = int_of(&b, *signed) as i64;
                    let name = values.iter().find(|(_, v)| *v == value).map(|(n, _)| n.clone());
                    Value::Enum { value, name }
                }
                Err(v) => v,
            },
            Type::Pointer { .. } => match bytes(loc, 4, frame) {
                Ok(b) => Value::Pointer { type_name: self.type_name(ty), address: le_u64(&b) as u32 },
                Err(v) => v,
            },
            Type::Reference { target } => match bytes(loc, 4, frame) {
                Ok(b) => {
                    let address = le_u64(&b) as u32;
                    let referent = self.value_at(target, &Loc::Memory(address), frame, depth + 1, budget);
                    Value::Reference { type_name: self.type_name(ty), address, referent: Box::new(referent) }
                }
                Err(v) => v,
            },
            Type::Array { .. } => {
                let Some((elem, size, length)) = self.element_type(&t) else {
                    return Value::Unavailable(format!("elements of unknown size in {}", self.type_name(ty)));
                };
                let shown = length.min(MAX_ELEMENTS as u64) as u32;
                let loc = prefetch(loc, shown.saturating_mul(size), frame);
                let mut elements = Vec::with_capacity(shown as usize);
                for i in 0..shown {
                    if *budget == 0 {
                        break;
                    }
                    elements.push(self.value_at(&elem, &loc.at(i * size, size), frame, depth + 1, budget));
                }
                Value::Array { elements, length }
            }
            Type::Struct { size, members, .. } => {
                let loc = prefetch(loc, *size, frame);
                let fields = members
                    .iter()
                    .map(|m| (m.name.clone(), self.member_value(m, &loc, frame, depth, budget)))
                    .collect();
                Value::Struct { fields }
            }
            Type::Incomplete { .. } => Value::Unavailable("incomplete type".into()),
            Type::Void | Type::Function | Type::Unknown { .. } => {
                Value::Unavailable(format!("no value for type {}", self.type_name(ty)))
            }
        }
    }

    fn member_value(&self, m: &Member, loc: &Loc, frame: &dyn FrameView, depth: usize, budget: &mut usize) -> Value {
        match m.bits {
            Some((start, width)) => self.bitfield(m, loc, start, width, frame),
            None => {
                let size = self.size_of(&self.resolve(&m.ty)).unwrap_or(0);
                self.value_at(&m.ty, &loc.at(m.offset, size), frame, depth + 1, budget)
            }
        }
    }

    /// A bit-field's value (little-endian bit numbering).
    pub(crate) fn bitfield(&self, m: &Member, loc: &Loc, start: u32, width: u32, frame: &dyn FrameView) -> Value {
        if width == 0 || width > 64 {
            return Value::Unavailable("a bit-field wider than 64 bits".into());
        }
        let first = start / 8;
        let len = (start % 8 + width).div_ceil(8);
        let raw = match bytes(&loc.at(first, len), len, frame) {
            Ok(b) => b.iter().rev().fold(0u128, |acc, &b| (acc << 8) | u128::from(b)),
            Err(v) => return v,
        };
        let bits = (raw >> (start % 8)) & ((1u128 << width) - 1);
        match self.resolve(&m.ty) {
            Type::Base { kind: BaseKind::Bool, .. } => Value::Bool(bits != 0),
            Type::Base { kind, size, .. } => {
                let signed = matches!(kind, BaseKind::Signed | BaseKind::SignedChar);
                let value =
                    if signed && bits >> (width - 1) & 1 == 1 { bits as i128 - (1i128 << width) } else { bits as i128 };
                Value::Int { value, size: size as u8, signed }
            }
            Type::Enum { values, .. } => {
                let value = bits as i64;
                Value::Enum { value, name: values.iter().find(|(_, v)| *v == value).map(|(n, _)| n.clone()) }
            }
            _ => Value::Int { value: bits as i128, size: 4, signed: false },
        }
    }

    /// An array's element type (a sub-array for a multi-dimensional one),
    /// its size and the number of elements (0 when unknown).
    pub(crate) fn element_type(&self, array: &Type) -> Option<(TypeRef, u32, u64)> {
        let Type::Array { elem, counts } = array else { return None };
        let inner = if counts.len() > 1 {
            Type::Array { elem: elem.clone(), counts: counts[1..].to_vec() }.into_ref()
        } else {
            elem.clone()
        };
        let size = self.size_of(&self.resolve(&inner))?;
        Some((inner, size, counts.first().copied().flatten().unwrap_or(0)))
    }
}

/// Reads a whole aggregate in memory at once (each field would be a
/// request of its own); left as it is when that fails, so fields report
/// what they cannot read.
fn prefetch(loc: &Loc, size: u32, frame: &dyn FrameView) -> Loc {
    match loc {
        Loc::Memory(a) if size > 0 && size <= PREFETCH => match frame.read(*a, size as usize) {
            Some(b) if b.len() == size as usize => Loc::known(&b),
            _ => loc.clone(),
        },
        other => other.clone(),
    }
}

/// `len` bytes of `loc`, or the value that says why not.
pub(crate) fn bytes(loc: &Loc, len: u32, frame: &dyn FrameView) -> Result<Vec<u8>, Value> {
    match loc {
        Loc::Memory(a) => match frame.read(*a, len as usize) {
            Some(b) if b.len() == len as usize => Ok(b),
            _ => Err(Value::Unavailable(format!("cannot read memory at {a:#x}"))),
        },
        Loc::Bytes(b) => {
            let wanted: Option<Vec<u8>> = (0..len as usize).map(|i| b.get(i).copied().flatten()).collect();
            wanted.ok_or(Value::OptimizedOut)
        }
        Loc::OptimizedOut => Err(Value::OptimizedOut),
        Loc::Unavailable(why) => Err(Value::Unavailable(why.clone())),
    }
}

/// Little-endian bytes as an integer, sign-extended when `signed`.
fn int_of(b: &[u8], signed: bool) -> i128 {
    let raw = b.iter().rev().fold(0u128, |acc, &x| (acc << 8) | u128::from(x));
    let bits = 8 * b.len().min(16) as u32;
    if signed && bits > 0 && bits < 128 && raw >> (bits - 1) & 1 == 1 {
        raw as i128 - (1i128 << bits)
    } else {
        raw as i128
    }
}

fn base_value(kind: BaseKind, b: &[u8]) -> Value {
    let size = b.len() as u8;
    match kind {
        BaseKind::Signed => Value::Int { value: int_of(b, true), size, signed: true },
        BaseKind::Unsigned => Value::Int { value: int_of(b, false), size, signed: false },
        BaseKind::Bool => Value::Bool(b.iter().any(|&x| x != 0)),
        BaseKind::SignedChar => Value::Char(int_of(b, true) as i64),
        BaseKind::UnsignedChar => Value::Char(int_of(b, false) as i64),
        BaseKind::Float if b.len() == 4 => Value::Float(f32::from_bits(le_u64(b) as u32)),
        BaseKind::Float => Value::Double(f64::from_bits(le_u64(b))),
    }
}
