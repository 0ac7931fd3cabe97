//! C/C++ types from DWARF, resolved when asked (a type may point to
//! itself): what a value's bytes mean, and the type's name as gdb prints
//! it (`const int *`, `int [4]`, `Stats &`).

use std::sync::Arc;

use gimli::AttributeValue;

use super::die::DieRef;
use super::DebugInfo;

/// A type: a DIE, `void`, or one the evaluator made (`&x`, `1 + 2`).
#[derive(Clone, Debug)]
pub(crate) enum TypeRef {
    Die(DieRef),
    Void,
    Owned(Arc<Type>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BaseKind {
    Signed,
    Unsigned,
    Float,
    Bool,
    SignedChar,
    UnsignedChar,
}

/// A type with typedefs and qualifiers stripped.
#[derive(Clone, Debug)]
pub(crate) enum Type {
    Void,
    Base {
        name: String,
        kind: BaseKind,
        size: u32,
    },
    Pointer {
        target: TypeRef,
    },
    /// `&` and `&&`.
    Reference {
        target: TypeRef,
    },
    /// Dimensions outermost first; `None` when unknown (`int a[]`).
    Array {
        elem: TypeRef,
        counts: Vec<Option<u64>>,
    },
    /// Structures, classes and unions.
    Struct {
        name: String,
        size: u32,
        members: Vec<Member>,
    },
    Enum {
        name: String,
        size: u32,
        signed: bool,
        values: Vec<(String, i64)>,
    },
    Function,
    /// A type only declared (its definition is in code built without `-g`).
    Incomplete {
        name: String,
    },
    Unknown {
        name: String,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Member {
    /// `<Base>` for a base class, as gdb shows it.
    pub name: String,
    pub offset: u32,
    pub ty: TypeRef,
    /// A bit-field: bit offset from the start of the structure, width.
    pub bits: Option<(u32, u32)>,
}

/// Typedef chains and qualifier stacks are short; a cycle must still end.
const MAX_DEPTH: usize = 16;

impl Type {
    pub fn int(size: u32, signed: bool) -> Type {
        let name = match (size, signed) {
            (1, true) => "signed char",
            (1, false) => "unsigned char",
            (2, true) => "short",
            (2, false) => "unsigned short",
            (4, true) => "int",
            (4, false) => "unsigned int",
            (_, true) => "long long",
            (_, false) => "unsigned long long",
        };
        let kind = if signed { BaseKind::Signed } else { BaseKind::Unsigned };
        Type::Base { name: name.into(), kind, size }
    }

    pub fn float(size: u32) -> Type {
        Type::Base { name: if size == 4 { "float" } else { "double" }.into(), kind: BaseKind::Float, size }
    }

    pub fn boolean() -> Type {
        Type::Base { name: "bool".into(), kind: BaseKind::Bool, size: 1 }
    }

    pub fn into_ref(self) -> TypeRef {
        TypeRef::Owned(Arc::new(self))
    }
}

impl DebugInfo {
    /// The type `DW_AT_type` of `die` names (`void` without one).
    pub(crate) fn type_of(&self, die: DieRef) -> TypeRef {
        self.sections.attr_ref(die, gimli::DW_AT_type).map_or(TypeRef::Void, TypeRef::Die)
    }

    /// `t` without typedefs and qualifiers.
    pub(crate) fn resolve(&self, t: &TypeRef) -> Type {
        let mut r = match t {
            TypeRef::Die(r) => *r,
            TypeRef::Void => return Type::Void,
            TypeRef::Owned(t) => return (**t).clone(),
        };
        for _ in 0..MAX_DEPTH {
            let Some(entry) = self.sections.entry(r) else { break };
            let target = || self.type_of(r);
            return match entry.tag() {
                gimli::DW_TAG_typedef
                | gimli::DW_TAG_const_type
                | gimli::DW_TAG_volatile_type
                | gimli::DW_TAG_restrict_type
                | gimli::DW_TAG_atomic_type => match target() {
                    TypeRef::Die(next) => {
                        r = next;
                        continue;
                    }
                    _ => Type::Void,
                },
                gimli::DW_TAG_base_type => self.base(r),
                gimli::DW_TAG_pointer_type | gimli::DW_TAG_ptr_to_member_type => Type::Pointer { target: target() },
                gimli::DW_TAG_reference_type | gimli::DW_TAG_rvalue_reference_type => {
                    Type::Reference { target: target() }
                }
                gimli::DW_TAG_array_type => Type::Array { elem: target(), counts: self.dimensions(r) },
                gimli::DW_TAG_structure_type
                | gimli::DW_TAG_class_type
                | gimli::DW_TAG_union_type
                | gimli::DW_TAG_enumeration_type
                    if self.sections.flag(r, gimli::DW_AT_declaration) =>
                {
                    let name = self.type_name(&TypeRef::Die(r));
                    match self.scopes.definitions.get(&name) {
                        Some(&definition) if definition != r => {
                            r = definition;
                            continue;
                        }
                        _ => Type::Incomplete { name },
                    }
                }
                gimli::DW_TAG_structure_type | gimli::DW_TAG_class_type | gimli::DW_TAG_union_type => {
                    self.structure(r, entry.tag() == gimli::DW_TAG_union_type)
                }
                gimli::DW_TAG_enumeration_type => self.enumeration(r),
                gimli::DW_TAG_subroutine_type => Type::Function,
                _ => Type::Unknown { name: self.type_name(&TypeRef::Die(r)) },
            };
        }
        Type::Unknown { name: "?".into() }
    }

    fn base(&self, r: DieRef) -> Type {
        let name = self.sections.name(r).unwrap_or_default();
        let size = self.sections.udata(r, gimli::DW_AT_byte_size).unwrap_or(0) as u32;
        let kind = match self.sections.attr(r, gimli::DW_AT_encoding) {
            Some((_, AttributeValue::Encoding(e))) => match e {
                gimli::DW_ATE_signed => BaseKind::Signed,
                gimli::DW_ATE_unsigned | gimli::DW_ATE_UTF => BaseKind::Unsigned,
                gimli::DW_ATE_float => BaseKind::Float,
                gimli::DW_ATE_boolean => BaseKind::Bool,
                gimli::DW_ATE_signed_char => BaseKind::SignedChar,
                gimli::DW_ATE_unsigned_char => BaseKind::UnsignedChar,
                _ => return Type::Unknown { name },
            },
            _ => return Type::Unknown { name },
        };
        // A float of a size the value code does not read (long double, half).
        if kind == BaseKind::Float && size != 4 && size != 8 {
            return Type::Unknown { name };
        }
        Type::Base { name, kind, size }
    }

    /// The DIEs directly under `r`, with their tags.
    fn children(&self, r: DieRef) -> Vec<(gimli::DwTag, DieRef)> {
        let Some(unit) = self.sections.units.get(r.unit) else { return Vec::new() };
        let Ok(mut tree) = unit.entries_tree(Some(r.offset)) else { return Vec::new() };
        let Ok(root) = tree.root() else { return Vec::new() };
        let mut out = Vec::new();
        let mut children = root.children();
        while let Ok(Some(child)) = children.next() {
            let entry = child.entry();
            out.push((entry.tag(), DieRef { unit: r.unit, offset: entry.offset() }));
        }
        out
    }

    fn dimensions(&self, r: DieRef) -> Vec<Option<u64>> {
        let counts: Vec<Option<u64>> = (self.children(r).into_iter())
            .filter(|&(tag, _)| tag == gimli::DW_TAG_subrange_type)
            .map(|(_, sub)| {
                let count = self.sections.udata(sub, gimli::DW_AT_count);
                let upper = self.sections.attr(sub, gimli::DW_AT_upper_bound).and_then(|(_, v)| match v {
                    // -1 (all ones) is how some producers say "no bound".
                    AttributeValue::Sdata(n) if n < 0 => None,
                    v => v.udata_value(),
                });
                let lower = self.sections.udata(sub, gimli::DW_AT_lower_bound).unwrap_or(0);
                count.or_else(|| upper.map(|u| (u + 1).saturating_sub(lower)))
            })
            .collect();
        if counts.is_empty() {
            vec![None]
        } else {
            counts
        }
    }

    fn structure(&self, r: DieRef, union: bool) -> Type {
        let name = self.type_name(&TypeRef::Die(r));
        let size = self.sections.udata(r, gimli::DW_AT_byte_size).unwrap_or(0) as u32;
        let mut members = Vec::new();
        for (tag, m) in self.children(r) {
            let base = tag == gimli::DW_TAG_inheritance;
            if !(base || tag == gimli::DW_TAG_member) || self.sections.flag(m, gimli::DW_AT_declaration) {
                continue;
            }
            let ty = self.type_of(m);
            let name = if base {
                format!("<{}>", self.type_name(&ty))
            } else {
                // Empty for an anonymous union or structure.
                self.sections.name(m).unwrap_or_default()
            };
            let offset = match self.sections.attr(m, gimli::DW_AT_data_member_location) {
                Some((_, v)) => member_offset(&v).unwrap_or(0),
                None if union => 0,
                // A static member: no storage in the object.
                None if self.sections.attr(m, gimli::DW_AT_data_bit_offset).is_none() => continue,
                None => 0,
            };
            let bits = self.sections.udata(m, gimli::DW_AT_bit_size).map(|width| {
                let start = self.sections.udata(m, gimli::DW_AT_data_bit_offset).unwrap_or(u64::from(offset) * 8);
                (start as u32, width as u32)
            });
            members.push(Member { name, offset, ty, bits });
        }
        Type::Struct { name, size, members }
    }

    fn enumeration(&self, r: DieRef) -> Type {
        let name = self.type_name(&TypeRef::Die(r));
        let size = self.sections.udata(r, gimli::DW_AT_byte_size).unwrap_or(4) as u32;
        let signed = match self.resolve(&self.type_of(r)) {
            Type::Base { kind, .. } => kind == BaseKind::Signed || kind == BaseKind::SignedChar,
            _ => true,
        };
        let values = (self.children(r).into_iter())
            .filter(|&(tag, _)| tag == gimli::DW_TAG_enumerator)
            .filter_map(|(_, e)| {
                let value = match self.sections.attr(e, gimli::DW_AT_const_value)?.1 {
                    AttributeValue::Sdata(v) => v,
                    v => v.udata_value()? as i64,
                };
                Some((self.sections.name(e)?, value))
            })
            .collect();
        Type::Enum { name, size, signed, values }
    }

    /// The size of a value of `t` in bytes, when it has one.
    pub(crate) fn size_of(&self, t: &Type) -> Option<u32> {
        match t {
            Type::Base { size, .. } | Type::Struct { size, .. } | Type::Enum { size, .. } => Some(*size),
            Type::Pointer { .. } | Type::Reference { .. } => Some(4),
            Type::Array { elem, counts } => {
                let n = counts.iter().try_fold(1u64, |n, c| n.checked_mul((*c)?))?;
                u32::try_from(n.checked_mul(u64::from(self.size_of(&self.resolve(elem))?))?).ok()
            }
            Type::Void | Type::Function | Type::Incomplete { .. } | Type::Unknown { .. } => None,
        }
    }

    /// The type's name as gdb prints it.
    pub(crate) fn type_name(&self, t: &TypeRef) -> String {
        self.name_at(t, 0)
    }

    fn name_at(&self, t: &TypeRef, depth: usize) -> String {
        let r = match t {
            TypeRef::Void => return "void".into(),
            TypeRef::Owned(t) => return self.owned_name(t, depth),
            TypeRef::Die(r) => *r,
        };
        if depth > MAX_DEPTH {
            return "?".into();
        }
        let Some(entry) = self.sections.entry(r) else { return "?".into() };
        let target = self.type_of(r);
        let inner = || self.name_at(&target, depth + 1);
        let target_tag = || match &target {
            TypeRef::Die(t) => self.sections.entry(*t).map(|e| e.tag()),
            _ => None,
        };
        match entry.tag() {
            gimli::DW_TAG_const_type | gimli::DW_TAG_volatile_type => {
                let word = if entry.tag() == gimli::DW_TAG_const_type { "const" } else { "volatile" };
                match target_tag() {
                    Some(gimli::DW_TAG_pointer_type | gimli::DW_TAG_reference_type) => format!("{} {word}", inner()),
                    _ => format!("{word} {}", inner()),
                }
            }
            gimli::DW_TAG_restrict_type | gimli::DW_TAG_atomic_type => inner(),
            gimli::DW_TAG_pointer_type => match target_tag() {
                Some(gimli::DW_TAG_subroutine_type) => self.function_name(&target, "(*)", depth),
                Some(gimli::DW_TAG_array_type) => array_name(&inner(), "(*)"),
                _ => pointer_name(&inner(), "*"),
            },
            gimli::DW_TAG_reference_type => pointer_name(&inner(), "&"),
            gimli::DW_TAG_rvalue_reference_type => pointer_name(&inner(), "&&"),
            gimli::DW_TAG_array_type => {
                let dims: String =
                    self.dimensions(r).iter().map(|c| c.map_or("[]".to_string(), |n| format!("[{n}]"))).collect();
                format!("{} {dims}", inner())
            }
            gimli::DW_TAG_subroutine_type => self.function_name(t, "", depth),
            tag => match (self.scopes.names.get(&r), self.sections.name(r)) {
                (Some(q), _) => q.clone(),
                (None, Some(n)) => n,
                (None, None) => match tag {
                    gimli::DW_TAG_union_type => "union {...}".into(),
                    gimli::DW_TAG_enumeration_type => "enum {...}".into(),
                    _ => "struct {...}".into(),
                },
            },
        }
    }

    /// `int (int, float)`, or with `(*)` for a pointer to one.
    fn function_name(&self, t: &TypeRef, declarator: &str, depth: usize) -> String {
        let TypeRef::Die(r) = t else { return "void (...)".into() };
        let ret = self.name_at(&self.type_of(*r), depth + 1);
        let params: Vec<String> = (self.children(*r).into_iter())
            .filter(|&(tag, _)| tag == gimli::DW_TAG_formal_parameter)
            .map(|(_, p)| self.name_at(&self.type_of(p), depth + 1))
            .collect();
        let params = params.join(", ");
        if declarator.is_empty() {
            format!("{ret} ({params})")
        } else {
            format!("{ret} {declarator}({params})")
        }
    }

    fn owned_name(&self, t: &Type, depth: usize) -> String {
        match t {
            Type::Void => "void".into(),
            Type::Base { name, .. } | Type::Struct { name, .. } | Type::Enum { name, .. } => name.clone(),
            Type::Incomplete { name } | Type::Unknown { name } => name.clone(),
            Type::Pointer { target } => pointer_name(&self.name_at(target, depth + 1), "*"),
            Type::Reference { target } => pointer_name(&self.name_at(target, depth + 1), "&"),
            Type::Array { elem, counts } => {
                let dims: String = counts.iter().map(|c| c.map_or("[]".to_string(), |n| format!("[{n}]"))).collect();
                format!("{} {dims}", self.name_at(elem, depth + 1))
            }
            Type::Function => "void (...)".into(),
        }
    }
}

/// `int *`, `int **`, `Stats &`.
fn pointer_name(inner: &str, sigil: &str) -> String {
    if inner.ends_with('*') || inner.ends_with('&') {
        format!("{inner}{sigil}")
    } else {
        format!("{inner} {sigil}")
    }
}

/// `int (*)[4]` from `int [4]`.
fn array_name(array: &str, declarator: &str) -> String {
    match array.find(" [") {
        Some(at) => format!("{} {declarator}{}", &array[..at], &array[at + 1..]),
        None => format!("{array} {declarator}"),
    }
}

/// `DW_AT_data_member_location`: a constant, or the old form
/// `DW_OP_plus_uconst N`.
fn member_offset(value: &AttributeValue<super::R>) -> Option<u32> {
    if let Some(n) = value.udata_value() {
        return u32::try_from(n).ok();
    }
    let AttributeValue::Exprloc(expr) = value else { return None };
    let mut bytes = expr.0.clone();
    use gimli::Reader as _;
    (bytes.read_u8().ok()? == gimli::DW_OP_plus_uconst.0).then_some(())?;
    u32::try_from(bytes.read_uleb128().ok()?).ok()
}
