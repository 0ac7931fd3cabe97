//! Evaluates parsed expressions at a pc in one frame: names resolve to the
//! variables in scope there (then `this`'s members, then globals);
//! arithmetic follows C's conversions; pointers scale by their target's
//! size. Results are typed objects; the caller reads their value.

mod arith;

use super::expr::Expr;
use super::location::{le_u64, Loc};
use super::object::{bytes, Object};
use super::types::{BaseKind, Member, Type, TypeRef};
use super::value::Value;
use super::{DebugInfo, FrameView};
use arith::{int_object, scalar_object, Scalar};

pub(crate) enum Failure {
    NoSymbol(String),
    Invalid(String),
}

pub(super) type Result<T> = std::result::Result<T, Failure>;

pub(super) fn invalid<T>(reason: impl Into<String>) -> Result<T> {
    Err(Failure::Invalid(reason.into()))
}

pub(crate) struct Context<'a> {
    pub(super) info: &'a DebugInfo,
    /// Link address of the pc.
    a: u32,
    pub(super) frame: &'a dyn FrameView,
    /// The scopes whose variables are visible, innermost first, and the
    /// concrete function (for the frame base).
    visible: Vec<usize>,
    function: Option<super::die::DieRef>,
}

impl<'a> Context<'a> {
    pub fn new(info: &'a DebugInfo, a: u32, frame: &'a dyn FrameView) -> Context<'a> {
        let (chain, _) = info.own_scopes(a).unwrap_or_default();
        let function = chain.first().map(|&s| info.scopes.scopes[s].die);
        let mut visible = Vec::new();
        for &s in chain.iter().rev() {
            visible.push(s);
            if !matches!(info.scopes.scopes[s].kind, super::scopes::ScopeKind::Block) {
                break;
            }
        }
        Context { info, a, frame, visible, function }
    }

    pub fn eval(&self, e: &Expr) -> Result<Object> {
        match e {
            Expr::Int { value, unsigned, .. } => {
                let v = *value;
                let (size, signed) = match unsigned {
                    true if v <= u128::from(u32::MAX) => (4, false),
                    true => (8, false),
                    false if v <= i32::MAX as u128 => (4, true),
                    false if v <= u128::from(u32::MAX) => (4, false),
                    false if v <= i64::MAX as u128 => (8, true),
                    false => (8, false),
                };
                Ok(int_object(v as i128, size, signed))
            }
            Expr::Float { value, single } => Ok(scalar_object(Scalar::Float { value: *value, single: *single })),
            Expr::Bool(b) => Ok(Object { ty: Type::boolean().into_ref(), loc: Loc::known(&[u8::from(*b)]) }),
            Expr::Char(c) => {
                let ty = Type::Base { name: "char".into(), kind: BaseKind::SignedChar, size: 1 };
                Ok(Object { ty: ty.into_ref(), loc: Loc::known(&[*c as u8]) })
            }
            Expr::Name(name) => self.name(name),
            Expr::Register(name) => self.register(name),
            Expr::Unary(op, operand) => self.unary(*op, operand),
            Expr::Binary(op, l, r) => self.binary(*op, l, r),
            Expr::Member { base, name, arrow } => {
                let base = self.eval(base)?;
                self.member(base, name, *arrow)
            }
            Expr::Index(base, index) => {
                let base = self.eval(base)?;
                let index = match self.scalar(self.eval(index)?)? {
                    Scalar::Int { value, .. } => value,
                    _ => return invalid("an index must be an integer"),
                };
                self.index(base, index)
            }
        }
    }

    fn name(&self, name: &str) -> Result<Object> {
        let info = self.info;
        for &s in &self.visible {
            if let Some(var) = info.scopes.scopes[s].vars.iter().find(|v| v.name == name) {
                let function = self.function.unwrap_or(var.die);
                return Ok(Object {
                    ty: info.type_of(var.die),
                    loc: info.locate(var.die, function, self.a, self.frame),
                });
            }
        }
        if name != "this" && !name.contains("::") && self.visible_has("this") {
            if let Ok(obj) = self.name("this").and_then(|this| self.member(this, name, true)) {
                return Ok(obj);
            }
        }
        let global = (info.scopes.globals.iter().find(|g| g.qualified == name))
            .or_else(|| info.scopes.globals.iter().find(|g| g.name == name));
        if let Some(g) = global {
            return Ok(Object { ty: info.type_of(g.die), loc: info.locate(g.die, g.die, self.a, self.frame) });
        }
        let constant = (info.scopes.enumerators.iter())
            .find(|e| e.qualified == name || e.outer.as_deref() == Some(name) || qualified_suffix(&e.qualified, name));
        match constant {
            Some(e) => Ok(Object { ty: TypeRef::Die(e.ty), loc: info.locate(e.die, e.die, self.a, self.frame) }),
            None => Err(Failure::NoSymbol(name.to_string())),
        }
    }

    fn visible_has(&self, name: &str) -> bool {
        self.visible.iter().any(|&s| self.info.scopes.scopes[s].vars.iter().any(|v| v.name == name))
    }

    fn register(&self, name: &str) -> Result<Object> {
        let number = |prefix: &str| name.strip_prefix(prefix).and_then(|n| n.parse::<u16>().ok()).filter(|&n| n < 16);
        let read = |n: u16| {
            self.frame.register(n).ok_or_else(|| Failure::Invalid(format!("${name} is not recoverable in this frame")))
        };
        let pointer = |address: u32| Object {
            ty: Type::Pointer { target: TypeRef::Void }.into_ref(),
            loc: Loc::known(&address.to_le_bytes()),
        };
        match name {
            "pc" => Ok(pointer(self.frame.pc())),
            "sp" => Ok(pointer(read(1)?)),
            _ => {
                if let Some(n) = number("a") {
                    Ok(int_object(i128::from(read(n)? as i32), 4, true))
                } else if let Some(n) = number("f") {
                    Ok(Object { ty: Type::float(4).into_ref(), loc: Loc::known(&read(19 + n)?.to_le_bytes()) })
                } else {
                    invalid(format!("no register ${name}"))
                }
            }
        }
    }

    /// `obj` with references followed (C++ uses a reference as its referent).
    pub(super) fn referent(&self, obj: Object) -> Result<Object> {
        let mut obj = obj;
        for _ in 0..8 {
            match self.info.resolve(&obj.ty) {
                Type::Reference { target } => {
                    let address = self.address_in(&obj)?;
                    obj = Object { ty: target, loc: Loc::Memory(address) };
                }
                _ => return Ok(obj),
            }
        }
        invalid("references nested too deep")
    }

    /// The 4-byte address stored in `obj` (a pointer or reference).
    pub(super) fn address_in(&self, obj: &Object) -> Result<u32> {
        match bytes(&obj.loc, 4, self.frame) {
            Ok(b) => Ok(le_u64(&b) as u32),
            Err(v) => invalid(unreadable(&v)),
        }
    }

    pub(super) fn deref(&self, obj: Object) -> Result<Object> {
        let obj = self.referent(obj)?;
        match self.info.resolve(&obj.ty) {
            Type::Pointer { target: TypeRef::Void } => invalid("attempt to take contents of a `void *`"),
            Type::Pointer { target } => Ok(Object { loc: Loc::Memory(self.address_in(&obj)?), ty: target }),
            Type::Array { .. } => self.index(obj, 0),
            _ => invalid(format!("attempt to take contents of a non-pointer value ({})", self.info.type_name(&obj.ty))),
        }
    }

    fn member(&self, base: Object, name: &str, arrow: bool) -> Result<Object> {
        let mut obj = self.referent(base)?;
        // gdb's leniency: `.` through a pointer, `->` on a structure.
        if matches!(self.info.resolve(&obj.ty), Type::Pointer { .. }) || (arrow && !self.is_struct(&obj.ty)) {
            obj = self.deref(obj)?;
        }
        if !self.is_struct(&obj.ty) {
            return invalid(format!(
                "`{}` is not a structure, it has no member `{name}`",
                self.info.type_name(&obj.ty)
            ));
        }
        match self.find_member(&obj, name, 0)? {
            Some(found) => Ok(found),
            None => invalid(format!("there is no member named `{name}` in {}", self.info.type_name(&obj.ty))),
        }
    }

    fn is_struct(&self, t: &TypeRef) -> bool {
        matches!(self.info.resolve(t), Type::Struct { .. })
    }

    /// Member `name` of structure `obj`, looked for in base classes and
    /// anonymous members too.
    fn find_member(&self, obj: &Object, name: &str, depth: usize) -> Result<Option<Object>> {
        let Type::Struct { members, .. } = self.info.resolve(&obj.ty) else { return Ok(None) };
        if depth > 8 {
            return Ok(None);
        }
        if let Some(m) = members.iter().find(|m| m.name == name) {
            return self.member_object(obj, m).map(Some);
        }
        for m in members.iter().filter(|m| m.name.is_empty() || m.name.starts_with('<')) {
            let inner = self.member_object(obj, m)?;
            if let Some(found) = self.find_member(&inner, name, depth + 1)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    fn member_object(&self, obj: &Object, m: &Member) -> Result<Object> {
        match m.bits {
            Some((start, width)) => {
                let value = self.info.bitfield(m, &obj.loc, start, width, self.frame);
                match value {
                    Value::Int { value, size, signed } => Ok(int_object(value, u32::from(size), signed)),
                    Value::Bool(b) => Ok(Object { ty: Type::boolean().into_ref(), loc: Loc::known(&[u8::from(b)]) }),
                    Value::Enum { value, .. } => Ok(Object { ty: m.ty.clone(), loc: Loc::known(&value.to_le_bytes()) }),
                    other => invalid(unreadable(&other)),
                }
            }
            None => {
                let size = self.info.size_of(&self.info.resolve(&m.ty)).unwrap_or(0);
                Ok(Object { ty: m.ty.clone(), loc: obj.loc.at(m.offset, size) })
            }
        }
    }

    fn index(&self, base: Object, index: i128) -> Result<Object> {
        let base = self.referent(base)?;
        let t = self.info.resolve(&base.ty);
        match &t {
            Type::Array { .. } => {
                let Some((elem, size, _)) = self.info.element_type(&t) else {
                    return invalid("the array's elements have no known size");
                };
                let offset = index.checked_mul(i128::from(size)).and_then(|o| i32::try_from(o).ok());
                let Some(offset) = offset else { return invalid("index out of range") };
                let loc = match &base.loc {
                    Loc::Bytes(_) if offset < 0 => return invalid("index out of range"),
                    loc => loc.at(offset as u32, size),
                };
                Ok(Object { ty: elem, loc })
            }
            Type::Pointer { target } => {
                let size = self.target_size(target)?;
                let address = self.address_in(&base)?;
                let moved = (address as i128).wrapping_add(index.wrapping_mul(i128::from(size))) as u32;
                Ok(Object { ty: target.clone(), loc: Loc::Memory(moved) })
            }
            _ => invalid(format!("cannot subscript a value of type {}", self.info.type_name(&base.ty))),
        }
    }

    pub(super) fn target_size(&self, target: &TypeRef) -> Result<u32> {
        match self.info.size_of(&self.info.resolve(target)) {
            Some(size) if size > 0 => Ok(size),
            _ => invalid(format!("arithmetic on a pointer to {}", self.info.type_name(target))),
        }
    }
}

/// Why a value cannot take part in arithmetic.
pub(super) fn unreadable(v: &Value) -> String {
    match v {
        Value::OptimizedOut => "value has been optimized out".into(),
        Value::Unavailable(why) => format!("value is unavailable: {why}"),
        other => format!("{other} is not a number"),
    }
}

/// `Mode::MODE_MAX` names `ns::Mode::MODE_MAX` (a scoped constant needs its enum).
fn qualified_suffix(full: &str, name: &str) -> bool {
    name.contains("::")
        && full.len() > name.len()
        && full.ends_with(name)
        && full[..full.len() - name.len()].ends_with("::")
}
