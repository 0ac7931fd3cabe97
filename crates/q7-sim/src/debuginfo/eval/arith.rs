//! Arithmetic of the expression evaluator: operands converted as C
//! converts them (integer promotion, the usual arithmetic conversions,
//! arrays decaying to pointers), pointer arithmetic scaled by the target's
//! size, comparisons and logic giving `bool` (as C++ does).

use super::{invalid, unreadable, Context, Failure, Result};
use crate::debuginfo::expr::{Binary, Expr, Unary};
use crate::debuginfo::location::Loc;
use crate::debuginfo::object::Object;
use crate::debuginfo::types::{Type, TypeRef};
use crate::debuginfo::value::Value;

/// An operand of arithmetic, after C's conversions.
#[derive(Clone, Debug)]
pub(super) enum Scalar {
    Int { value: i128, size: u32, signed: bool },
    Float { value: f64, single: bool },
    Ptr { address: u32, target: TypeRef },
}

impl Context<'_> {
    /// `obj` as an operand of arithmetic.
    pub(super) fn scalar(&self, obj: Object) -> Result<Scalar> {
        let obj = self.referent(obj)?;
        let t = self.info.resolve(&obj.ty);
        match &t {
            Type::Array { .. } => {
                let unknown = || Failure::Invalid("an array of elements of unknown size".into());
                let (elem, _, _) = self.info.element_type(&t).ok_or_else(unknown)?;
                return match obj.loc {
                    Loc::Memory(address) => Ok(Scalar::Ptr { address, target: elem }),
                    _ => invalid("the array is not in memory"),
                };
            }
            Type::Pointer { target } => {
                return Ok(Scalar::Ptr { address: self.address_in(&obj)?, target: target.clone() })
            }
            Type::Struct { .. } => {
                return invalid(format!("a structure ({}) is not a number", self.info.type_name(&obj.ty)))
            }
            _ => {}
        }
        match self.info.value(&obj, self.frame) {
            Value::Int { value, size, signed } => Ok(Scalar::Int { value, size: u32::from(size), signed }),
            Value::Bool(b) => Ok(Scalar::Int { value: i128::from(b), size: 4, signed: true }),
            Value::Char(c) => Ok(Scalar::Int { value: i128::from(c), size: 4, signed: true }),
            Value::Enum { value, .. } => Ok(Scalar::Int { value: i128::from(value), size: 4, signed: true }),
            Value::Float(f) => Ok(Scalar::Float { value: f64::from(f), single: true }),
            Value::Double(d) => Ok(Scalar::Float { value: d, single: false }),
            other => invalid(unreadable(&other)),
        }
    }

    pub(super) fn unary(&self, op: Unary, operand: &Expr) -> Result<Object> {
        let obj = self.eval(operand)?;
        match op {
            Unary::Deref => self.deref(obj),
            Unary::AddressOf => {
                let obj = self.referent(obj)?;
                match obj.loc {
                    Loc::Memory(address) => Ok(Object {
                        ty: Type::Pointer { target: obj.ty }.into_ref(),
                        loc: Loc::known(&address.to_le_bytes()),
                    }),
                    _ => invalid("attempt to take the address of a value not in memory"),
                }
            }
            Unary::Not => Ok(bool_object(!self.truth(obj)?)),
            Unary::Neg | Unary::Plus | Unary::BitNot => match (op, self.scalar(obj)?) {
                (Unary::Neg, Scalar::Float { value, single }) => {
                    Ok(scalar_object(Scalar::Float { value: -value, single }))
                }
                (Unary::Plus, s @ Scalar::Float { .. }) => Ok(scalar_object(s)),
                (_, Scalar::Int { value, size, signed }) => {
                    let (size, signed) = promote(size, signed);
                    let v = match op {
                        Unary::Neg => value.wrapping_neg(),
                        Unary::BitNot => !value,
                        _ => value,
                    };
                    Ok(int_object(wrap(v, size, signed), size, signed))
                }
                _ => invalid("wrong type argument to a unary operator"),
            },
        }
    }

    fn truth(&self, obj: Object) -> Result<bool> {
        Ok(match self.scalar(obj)? {
            Scalar::Int { value, .. } => value != 0,
            Scalar::Float { value, .. } => value != 0.0,
            Scalar::Ptr { address, .. } => address != 0,
        })
    }

    pub(super) fn binary(&self, op: Binary, l: &Expr, r: &Expr) -> Result<Object> {
        match op {
            Binary::And => return Ok(bool_object(self.truth(self.eval(l)?)? && self.truth(self.eval(r)?)?)),
            Binary::Or => return Ok(bool_object(self.truth(self.eval(l)?)? || self.truth(self.eval(r)?)?)),
            _ => {}
        }
        let (l, r) = (self.scalar(self.eval(l)?)?, self.scalar(self.eval(r)?)?);
        self.arithmetic(op, l, r)
    }

    fn arithmetic(&self, op: Binary, l: Scalar, r: Scalar) -> Result<Object> {
        use Binary::*;
        match (l, r) {
            (Scalar::Ptr { address, target }, Scalar::Int { value, .. }) if matches!(op, Add | Sub) => {
                let step = i128::from(self.target_size(&target)?) * if op == Sub { -value } else { value };
                let moved = (i128::from(address) + step) as u32;
                Ok(scalar_object(Scalar::Ptr { address: moved, target }))
            }
            (Scalar::Int { value, .. }, Scalar::Ptr { address, target }) if op == Add => {
                let moved = (i128::from(address) + i128::from(self.target_size(&target)?) * value) as u32;
                Ok(scalar_object(Scalar::Ptr { address: moved, target }))
            }
            (Scalar::Ptr { address: a, target }, Scalar::Ptr { address: b, .. }) if op == Sub => {
                let size = i128::from(self.target_size(&target)?);
                Ok(int_object((i128::from(a) - i128::from(b)) / size, 4, true))
            }
            (l @ Scalar::Ptr { .. }, r) | (l, r @ Scalar::Ptr { .. }) => {
                let as_int = |s: &Scalar| match s {
                    Scalar::Ptr { address, .. } => Some(i128::from(*address)),
                    Scalar::Int { value, .. } => Some(*value),
                    Scalar::Float { .. } => None,
                };
                match (as_int(&l), as_int(&r), compare(op)) {
                    (Some(a), Some(b), Some(test)) => Ok(bool_object(test(a.cmp(&b)))),
                    _ => invalid("invalid operands to a binary operator on a pointer"),
                }
            }
            (Scalar::Float { value: a, single: sa }, Scalar::Float { value: b, single: sb }) => {
                float_op(op, a, b, sa && sb)
            }
            (Scalar::Float { value: a, single }, Scalar::Int { value: b, .. }) => float_op(op, a, b as f64, single),
            (Scalar::Int { value: a, .. }, Scalar::Float { value: b, single }) => float_op(op, a as f64, b, single),
            (Scalar::Int { value: a, size: la, signed: sa }, Scalar::Int { value: b, size: lb, signed: sb }) => {
                let (la, sa) = promote(la, sa);
                let (lb, sb) = promote(lb, sb);
                // Shifts keep the left operand's type; others take the wider (unsigned on a tie).
                let (size, signed) = match op {
                    Shl | Shr => (la, sa),
                    _ if la == lb => (la, sa && sb),
                    _ if la > lb => (la, sa),
                    _ => (lb, sb),
                };
                let (a, b) = (wrap(a, size, signed), wrap(b, size, signed));
                if let Some(test) = compare(op) {
                    return Ok(bool_object(test(a.cmp(&b))));
                }
                let v = match op {
                    Mul => a.wrapping_mul(b),
                    Div | Rem if b == 0 => return invalid("division by zero"),
                    Div => a.wrapping_div(b),
                    Rem => a.wrapping_rem(b),
                    Add => a.wrapping_add(b),
                    Sub => a.wrapping_sub(b),
                    Shl | Shr if !(0..64).contains(&b) => return invalid("shift count out of range"),
                    Shl => a.wrapping_shl(b as u32),
                    Shr => a.wrapping_shr(b as u32),
                    BitAnd => a & b,
                    BitXor => a ^ b,
                    BitOr => a | b,
                    _ => return invalid("invalid operands"),
                };
                Ok(int_object(wrap(v, size, signed), size, signed))
            }
        }
    }
}

fn float_op(op: Binary, a: f64, b: f64, single: bool) -> Result<Object> {
    use Binary::*;
    if let Some(test) = compare(op) {
        return Ok(bool_object(a.partial_cmp(&b).is_some_and(test)));
    }
    let v = match op {
        Mul => a * b,
        Div => a / b,
        Add => a + b,
        Sub => a - b,
        _ => return invalid("invalid operands to a binary operator on floating-point numbers"),
    };
    let value = if single { f64::from(v as f32) } else { v };
    Ok(scalar_object(Scalar::Float { value, single }))
}

/// The comparison `op` is, as a test on an ordering.
fn compare(op: Binary) -> Option<fn(std::cmp::Ordering) -> bool> {
    use std::cmp::Ordering;
    Some(match op {
        Binary::Lt => |o| o == Ordering::Less,
        Binary::Le => |o| o != Ordering::Greater,
        Binary::Gt => |o| o == Ordering::Greater,
        Binary::Ge => |o| o != Ordering::Less,
        Binary::Eq => |o| o == Ordering::Equal,
        Binary::Ne => |o| o != Ordering::Equal,
        _ => return None,
    })
}

/// C's integer promotion: narrower than `int` becomes `int`.
fn promote(size: u32, signed: bool) -> (u32, bool) {
    if size < 4 {
        (4, true)
    } else {
        (size.min(8), signed)
    }
}

/// `v` as a `size`-byte integer of that signedness.
fn wrap(v: i128, size: u32, signed: bool) -> i128 {
    let bits = 8 * size.clamp(1, 8);
    let masked = v & ((1i128 << bits) - 1);
    if signed && masked >> (bits - 1) & 1 == 1 {
        masked - (1i128 << bits)
    } else {
        masked
    }
}

pub(super) fn int_object(value: i128, size: u32, signed: bool) -> Object {
    let size = size.clamp(1, 8);
    Object { ty: Type::int(size, signed).into_ref(), loc: Loc::known(&value.to_le_bytes()[..size as usize]) }
}

pub(super) fn bool_object(b: bool) -> Object {
    Object { ty: Type::boolean().into_ref(), loc: Loc::known(&[u8::from(b)]) }
}

pub(super) fn scalar_object(s: Scalar) -> Object {
    match s {
        Scalar::Int { value, size, signed } => int_object(value, size, signed),
        Scalar::Float { value, single: true } => {
            Object { ty: Type::float(4).into_ref(), loc: Loc::known(&(value as f32).to_le_bytes()) }
        }
        Scalar::Float { value, single: false } => {
            Object { ty: Type::float(8).into_ref(), loc: Loc::known(&value.to_le_bytes()) }
        }
        Scalar::Ptr { address, target } => {
            Object { ty: Type::Pointer { target }.into_ref(), loc: Loc::known(&address.to_le_bytes()) }
        }
    }
}
