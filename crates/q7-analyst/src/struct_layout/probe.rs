//! The generated probe: the preprocessed header (its assertions blanked out)
//! followed by a `main` that prints `sizeof`, alignment and the offset and
//! size of every member, walking arrays with loops bounded by `sizeof`, and
//! evaluates each blanked assertion at run time.
//!
//! Offsets are taken as `(char *)&obj.path - (char *)&obj` on a static
//! object rather than with `offsetof`, because that spelling also works for
//! array elements, members of anonymous structs and unions, and members of
//! array elements. Bit-fields have no address: the probe zeroes the object,
//! stores all ones into the field and looks for the bits that changed.
//!
//! Output lines (paths never contain spaces):
//!   `S <root> <size> <align>`        a requested struct
//!   `F <entry> <path> <off> <size>`  a member with an address
//!   `N <entry> <path> <count>`       an array's element count
//!   `B <entry> <path> <lo> <hi>`     a bit-field's first and last bit
//!   `A <index> <holds> [<left> <right>]`

use std::fmt::Write;

use super::unit::{Assertion, Resolved, TypeSpec, Unit};

/// What kind of thing a probe entry describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Scalar,
    Aggregate,
    Array,
    BitField,
    FlexibleArray,
}

/// One member as the generator saw it; probe lines refer to it by index.
#[derive(Clone, Debug)]
pub struct EntryTemplate {
    pub kind: EntryKind,
    pub type_name: String,
    pub depth: usize,
    /// For scalars: whether the type's size depends on the data model
    /// (pointers, `long`, `long double`); `None` when unknown.
    pub model_dependent: Option<bool>,
}

/// A requested struct: how to spell its type in C and its definition.
#[derive(Clone, Debug)]
pub struct Root {
    pub c_type: String,
    pub aggregate: usize,
}

pub struct Probe {
    pub source: String,
    pub entries: Vec<EntryTemplate>,
}

/// Builds the probe source. `header` is the cleaned, preprocessed header.
pub fn generate(header: &str, unit: &Unit, roots: &[Root], assertions: &[&Assertion], max_elements: u64) -> Probe {
    let mut g = Generator { unit, body: String::new(), entries: Vec::new(), next_var: 0, max_elements };
    for (index, root) in roots.iter().enumerate() {
        let object = format!("q7_object_{index}");
        let _ = writeln!(g.body, "  {{\n    static {} {object};", root.c_type);
        let _ = writeln!(g.body, "    const unsigned char *q7_base = (const unsigned char *)&{object};");
        let _ = writeln!(
            g.body,
            "    printf(\"S {index} %lu %lu\\n\", (unsigned long)sizeof({ty}), (unsigned long)__alignof__({ty}));",
            ty = root.c_type
        );
        let place = Place { access: object.clone(), path_format: String::new(), path_args: Vec::new(), object };
        g.members(root.aggregate, &place, 0, 2);
        g.body.push_str("  }\n");
    }
    for (index, assertion) in assertions.iter().enumerate() {
        let _ = writeln!(g.body, "  printf(\"A {index} %d\", (int)({}) != 0);", assertion.condition);
        if let Some((left, right)) = &assertion.sides {
            let _ = writeln!(
                g.body,
                "  printf(\" %llu %llu\", (unsigned long long)({left}), (unsigned long long)({right}));"
            );
        }
        g.body.push_str("  printf(\"\\n\");\n");
    }
    let mut source = String::with_capacity(header.len() + g.body.len() + 1024);
    source.push_str(header);
    source.push_str(PROBE_PRELUDE);
    source.push_str("int main(void) {\n");
    source.push_str(&g.body);
    source.push_str("  return 0;\n}\n");
    Probe { source, entries: g.entries }
}

/// Declared by hand so the probe includes no system header a second time
/// (the preprocessed header may already hold its definitions).
const PROBE_PRELUDE: &str = r#"
#line 1 "q7-struct-layout-probe.c"
int printf(const char *, ...);
/* Prints the first and last set bit of an object the caller zeroed before
   storing all ones into one bit-field. */
static void q7_bits(const unsigned char *object, unsigned long size) {
  long low = -1, high = -1;
  unsigned long i;
  int bit;
  for (i = 0; i < size; i++)
    for (bit = 0; bit < 8; bit++)
      if (object[i] >> bit & 1) {
        if (low < 0) low = (long)(i * 8 + bit);
        high = (long)(i * 8 + bit);
      }
  printf(" %ld %ld\n", low, high);
}
"#;

struct Generator<'u> {
    unit: &'u Unit,
    body: String,
    entries: Vec<EntryTemplate>,
    next_var: usize,
    max_elements: u64,
}

/// An lvalue in the probe and the printf format of its display path.
#[derive(Clone)]
struct Place {
    object: String,
    access: String,
    path_format: String,
    path_args: Vec<String>,
}

impl Place {
    fn member(&self, name: &str) -> Place {
        let dot = if self.path_format.is_empty() { "" } else { "." };
        Place {
            object: self.object.clone(),
            access: format!("{}.{name}", self.access),
            path_format: format!("{}{dot}{name}", self.path_format),
            path_args: self.path_args.clone(),
        }
    }

    fn element(&self, index_var: &str) -> Place {
        let mut path_args = self.path_args.clone();
        path_args.push(index_var.to_string());
        Place {
            object: self.object.clone(),
            access: format!("{}[{index_var}]", self.access),
            path_format: format!("{}[%lu]", self.path_format),
            path_args,
        }
    }

    /// `printf("<prefix> <path><suffix>", <path indices>, <extra>…);`
    /// (`suffix` is C string text, escapes included).
    fn printf_call(&self, prefix: &str, suffix: &str, extra: &[&str]) -> String {
        let mut call = format!("printf(\"{prefix} {}{suffix}\"", self.path_format);
        for arg in self.path_args.iter().map(String::as_str).chain(extra.iter().copied()) {
            call.push_str(", ");
            call.push_str(arg);
        }
        call.push_str(");");
        call
    }
}

impl Generator<'_> {
    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.body.push_str("  ");
        }
    }

    fn entry(&mut self, kind: EntryKind, type_name: &str, depth: usize, model_dependent: Option<bool>) -> usize {
        self.entries.push(EntryTemplate { kind, type_name: type_name.to_string(), depth, model_dependent });
        self.entries.len() - 1
    }

    fn members(&mut self, aggregate: usize, place: &Place, depth: usize, level: usize) {
        let members = self.unit.aggregates[aggregate].members.clone();
        for member in &members {
            let (resolved, dims, _) = self.unit.resolve(&member.ty);
            let Some(name) = &member.name else {
                // Anonymous struct/union: its members belong to this level.
                if let (Resolved::Aggregate(id), None) = (&resolved, &member.bit_width) {
                    self.members(*id, place, depth, level);
                }
                continue;
            };
            let inner = place.member(name);
            if member.bit_width.is_some() {
                self.bit_field(&inner, &member.ty.display, depth, level);
                continue;
            }
            if member.ty.dims.first() == Some(&None) {
                let id = self.entry(EntryKind::FlexibleArray, &member.ty.display, depth, None);
                let offset = format!("(unsigned long)((const unsigned char *)&{} - q7_base)", inner.access);
                let call = inner.printf_call(&format!("F {id}"), " %lu %lu\\n", &[&offset, "0UL"]);
                self.indent(level);
                let _ = writeln!(self.body, "{call}");
                continue;
            }
            let model_dependent = self.model_dependent(&member.ty);
            self.value(&inner, resolved, dims, &member.ty.display, model_dependent, depth, level);
        }
    }

    /// A member with an address: the entry itself, then its elements or
    /// members.
    #[allow(clippy::too_many_arguments)]
    fn value(
        &mut self,
        place: &Place,
        resolved: Resolved,
        dims: usize,
        type_name: &str,
        model_dependent: Option<bool>,
        depth: usize,
        level: usize,
    ) {
        let kind = match (dims, &resolved) {
            (0, Resolved::Aggregate(_)) => EntryKind::Aggregate,
            (0, Resolved::Scalar) => EntryKind::Scalar,
            _ => EntryKind::Array,
        };
        let id = self.entry(kind, type_name, depth, if kind == EntryKind::Scalar { model_dependent } else { None });
        self.print_address(id, place, level);
        match kind {
            EntryKind::Aggregate => {
                if let Resolved::Aggregate(agg) = resolved {
                    self.members(agg, place, depth + 1, level);
                }
            }
            EntryKind::Array => {
                let var = format!("q7_i{}", self.next_var);
                let count = format!("q7_n{}", self.next_var);
                self.next_var += 1;
                self.indent(level);
                let _ = writeln!(
                    self.body,
                    "{{ unsigned long {var}, {count} = sizeof({a}) / sizeof(({a})[0]);",
                    a = place.access
                );
                self.indent(level + 1);
                let call = place.printf_call(&format!("N {id}"), " %lu\\n", &[&count]);
                let _ = writeln!(self.body, "{call}");
                self.indent(level + 1);
                let _ = writeln!(
                    self.body,
                    "for ({var} = 0; {var} < {count} && {var} < {}UL; {var}++) {{",
                    self.max_elements
                );
                let element = place.element(&var);
                let element_type = self.element_type_name(type_name);
                self.value(&element, resolved, dims - 1, &element_type, model_dependent, depth + 1, level + 2);
                self.indent(level + 1);
                self.body.push_str("}\n");
                self.indent(level);
                self.body.push_str("}\n");
            }
            _ => {}
        }
    }

    fn print_address(&mut self, id: usize, place: &Place, level: usize) {
        let offset = format!("(unsigned long)((const unsigned char *)&{} - q7_base)", place.access);
        let size = format!("(unsigned long)sizeof({})", place.access);
        let call = place.printf_call(&format!("F {id}"), " %lu %lu\\n", &[&offset, &size]);
        self.indent(level);
        let _ = writeln!(self.body, "{call}");
    }

    fn bit_field(&mut self, place: &Place, type_name: &str, depth: usize, level: usize) {
        let id = self.entry(EntryKind::BitField, type_name, depth, Some(false));
        let object = &place.object;
        self.indent(level);
        let _ = writeln!(
            self.body,
            "{{ unsigned long q7_k; for (q7_k = 0; q7_k < sizeof({object}); q7_k++) ((unsigned char *)&{object})[q7_k] = 0;"
        );
        self.indent(level + 1);
        let _ = writeln!(self.body, "{} = -1;", place.access);
        self.indent(level + 1);
        // The path is printed without a newline; q7_bits ends the line.
        let call = place.printf_call(&format!("B {id}"), "", &[]);
        let _ = writeln!(self.body, "{call}");
        self.indent(level + 1);
        let _ = writeln!(self.body, "q7_bits(q7_base, sizeof({object})); }}");
    }

    fn model_dependent(&self, ty: &TypeSpec) -> Option<bool> {
        if self.unit.has_exact_width_name(ty) {
            return Some(false);
        }
        match self.unit.scalar_words(ty) {
            (_, true) => Some(true),
            (Some(words), false) => {
                let longs = words.split_whitespace().filter(|w| *w == "long").count();
                Some(longs == 1)
            }
            (None, false) => None,
        }
    }
}

impl Generator<'_> {
    /// `uint8_t[4][2]` → `uint8_t[2]`: the type of one element, for display.
    /// A typedef'd array (`q7_block` = `uint8_t[4]`) is looked through.
    fn element_type_name(&self, array_type: &str) -> String {
        let spelled = match self.unit.typedefs.get(array_type) {
            Some((ty, _)) if !ty.dims.is_empty() => ty.display.clone(),
            _ => array_type.to_string(),
        };
        match spelled.find('[') {
            Some(open) => match spelled[open..].find(']') {
                Some(close) => format!("{}{}", &spelled[..open], &spelled[open + close + 1..]),
                None => spelled,
            },
            None => spelled,
        }
    }
}

/// One parsed probe output line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeLine {
    Struct { root: usize, size: u64, align: u64 },
    Field { entry: usize, path: String, offset: u64, size: u64 },
    Count { entry: usize, path: String, count: u64 },
    Bits { entry: usize, path: String, low: i64, high: i64 },
    Assertion { index: usize, holds: bool, sides: Option<(u64, u64)> },
}

/// Parses the probe's stdout; a line that does not parse is a q7 bug.
pub fn parse_output(text: &str) -> Result<Vec<ProbeLine>, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            let num = |i: usize| w.get(i).and_then(|s| s.parse::<u64>().ok());
            let signed = |i: usize| w.get(i).and_then(|s| s.parse::<i64>().ok());
            let bad = || format!("unexpected probe output line `{line}`");
            let parsed = match w.first().copied() {
                Some("S") => Some(ProbeLine::Struct {
                    root: num(1).ok_or_else(bad)? as usize,
                    size: num(2).ok_or_else(bad)?,
                    align: num(3).ok_or_else(bad)?,
                }),
                Some("F") if w.len() == 5 => Some(ProbeLine::Field {
                    entry: num(1).ok_or_else(bad)? as usize,
                    path: w[2].to_string(),
                    offset: num(3).ok_or_else(bad)?,
                    size: num(4).ok_or_else(bad)?,
                }),
                Some("N") if w.len() == 4 => Some(ProbeLine::Count {
                    entry: num(1).ok_or_else(bad)? as usize,
                    path: w[2].to_string(),
                    count: num(3).ok_or_else(bad)?,
                }),
                Some("B") if w.len() == 5 => Some(ProbeLine::Bits {
                    entry: num(1).ok_or_else(bad)? as usize,
                    path: w[2].to_string(),
                    low: signed(3).ok_or_else(bad)?,
                    high: signed(4).ok_or_else(bad)?,
                }),
                Some("A") => Some(ProbeLine::Assertion {
                    index: num(1).ok_or_else(bad)? as usize,
                    holds: num(2).ok_or_else(bad)? != 0,
                    sides: match (num(3), num(4)) {
                        (Some(l), Some(r)) => Some((l, r)),
                        _ => None,
                    },
                }),
                _ => None,
            };
            parsed.ok_or_else(bad)
        })
        .collect()
}
