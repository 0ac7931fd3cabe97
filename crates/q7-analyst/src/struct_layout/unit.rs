//! What the declaration parser finds in a translation unit: aggregates
//! with their members, typedefs, assertions; and how a declared type
//! resolves through typedefs and tags.

use std::collections::HashMap;

use super::lex::Location;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggregateKind {
    Struct,
    Union,
}

impl AggregateKind {
    pub fn keyword(self) -> &'static str {
        match self {
            AggregateKind::Struct => "struct",
            AggregateKind::Union => "union",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Aggregate {
    pub kind: AggregateKind,
    pub tag: Option<String>,
    pub members: Vec<Member>,
    pub location: Location,
}

#[derive(Clone, Debug)]
pub struct Member {
    /// `None` for an anonymous struct/union member or an unnamed bit-field.
    pub name: Option<String>,
    pub ty: TypeSpec,
    /// The width expression of a bit-field, as written.
    pub bit_width: Option<String>,
}

/// A declared type: a base plus what the declarator adds.
#[derive(Clone, Debug)]
pub struct TypeSpec {
    pub base: Base,
    /// A pointer or function (pointer): the member is one scalar however
    /// the base is spelled.
    pub indirect: bool,
    /// Array dimensions as written (`None` for a flexible `[]`).
    pub dims: Vec<Option<String>>,
    /// The type as a reader would spell it, e.g. `uint8_t[16]`.
    pub display: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Base {
    /// An aggregate defined in place (index into [`Unit::aggregates`]).
    Aggregate(usize),
    /// `struct tag` / `union tag` defined elsewhere (or never).
    TagRef(AggregateKind, String),
    /// A typedef name.
    Named(String),
    /// Built-in type words, e.g. `unsigned long`.
    Builtin(String),
    Enum,
    /// Something the parser does not model (`__typeof__`, `_Atomic(T)`).
    Opaque(String),
}

/// A `_Static_assert` / `static_assert` found in the text.
#[derive(Clone, Debug)]
pub struct Assertion {
    pub location: Location,
    /// The condition as written (after preprocessing).
    pub condition: String,
    /// Both sides when the condition is a single top-level `==`.
    pub sides: Option<(String, String)>,
    pub message: Option<String>,
    /// Byte span of the whole assertion, `;` included, in the parsed text.
    pub span: (usize, usize),
}

/// What the parser found in one translation unit.
#[derive(Clone, Debug, Default)]
pub struct Unit {
    pub aggregates: Vec<Aggregate>,
    /// Completed definitions by tag.
    pub tags: HashMap<(AggregateKind, String), usize>,
    pub typedefs: HashMap<String, (TypeSpec, Location)>,
    pub assertions: Vec<Assertion>,
    /// Declarations skipped because the parser could not follow them.
    pub skipped: Vec<(Location, String)>,
}

/// What a declared type is, once typedefs are followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    Aggregate(usize),
    Scalar,
}

impl Unit {
    /// Follows typedefs and tags: the final element kind and the total
    /// number of array dimensions (the declarator's plus the typedefs').
    pub fn resolve(&self, ty: &TypeSpec) -> (Resolved, usize, bool) {
        let mut dims = ty.dims.len();
        let mut current = ty.clone();
        for _ in 0..64 {
            if current.indirect {
                return (Resolved::Scalar, dims, false);
            }
            match &current.base {
                Base::Aggregate(id) => return (Resolved::Aggregate(*id), dims, true),
                Base::TagRef(kind, tag) => {
                    return match self.tags.get(&(*kind, tag.clone())) {
                        Some(id) => (Resolved::Aggregate(*id), dims, true),
                        None => (Resolved::Scalar, dims, false),
                    };
                }
                Base::Named(name) => match self.typedefs.get(name) {
                    Some((inner, _)) => {
                        dims += inner.dims.len();
                        current = inner.clone();
                    }
                    None => return (Resolved::Scalar, dims, false),
                },
                Base::Builtin(_) | Base::Enum | Base::Opaque(_) => return (Resolved::Scalar, dims, true),
            }
        }
        (Resolved::Scalar, dims, false)
    }

    /// Whether the typedef chain of `ty` passes through an exact-width
    /// integer name (`uint32_t`, `__int64_t`, …), whose size is the same in
    /// every data model even when the chain ends in `long`.
    pub fn has_exact_width_name(&self, ty: &TypeSpec) -> bool {
        let mut current = ty.clone();
        for _ in 0..64 {
            if current.indirect {
                return false;
            }
            let Base::Named(name) = &current.base else { return false };
            if is_exact_width_name(name) {
                return true;
            }
            match self.typedefs.get(name) {
                Some((inner, _)) => current = inner.clone(),
                None => return false,
            }
        }
        false
    }

    /// The built-in words a scalar type comes down to (`None` when a typedef
    /// chain ends somewhere unknown), and whether a pointer was met on the way.
    pub fn scalar_words(&self, ty: &TypeSpec) -> (Option<String>, bool) {
        let mut current = ty.clone();
        for _ in 0..64 {
            if current.indirect {
                return (None, true);
            }
            match &current.base {
                Base::Builtin(words) => return (Some(words.clone()), false),
                Base::Enum => return (Some("int".to_string()), false),
                Base::Named(name) => match self.typedefs.get(name) {
                    Some((inner, _)) => current = inner.clone(),
                    None => return (None, false),
                },
                _ => return (None, false),
            }
        }
        (None, false)
    }
}

/// `int8_t` … `uint64_t`, with any leading underscores (glibc's `__uint64_t`).
pub fn is_exact_width_name(name: &str) -> bool {
    let bare = name.trim_start_matches('_');
    let digits = bare.strip_prefix("uint").or_else(|| bare.strip_prefix("int")).and_then(|r| r.strip_suffix("_t"));
    matches!(digits, Some("8" | "16" | "32" | "64"))
}
