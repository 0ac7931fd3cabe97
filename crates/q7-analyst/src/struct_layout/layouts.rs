//! Turning the probe's output lines into [`StructLayout`]s: fields in
//! order, array element counts, padding (bytes no field covers) and the
//! data-model portability judgement.

use super::probe::{EntryKind, EntryTemplate, ProbeLine, Root};
use super::unit::{AggregateKind, Resolved, Unit};
use super::{FieldLayout, LayoutError, Padding, Portability, StructLayout};
use crate::evidence::Evidence;

pub(super) fn build_layouts(
    unit: &Unit,
    roots: &[(String, Root)],
    entries: &[EntryTemplate],
    lines: &[ProbeLine],
    basis: &str,
    target: &str,
) -> Result<Vec<StructLayout>, LayoutError> {
    let mut layouts: Vec<StructLayout> = Vec::new();
    let mut model_dependent: Vec<Vec<String>> = Vec::new();
    let mut unknown_types: Vec<usize> = Vec::new();
    for line in lines {
        if let ProbeLine::Struct { root, size, align } = line {
            let (name, root) =
                roots.get(*root).ok_or_else(|| LayoutError::ProbeOutput("unknown struct index".into()))?;
            let aggregate = &unit.aggregates[root.aggregate];
            layouts.push(StructLayout {
                name: name.clone(),
                c_type: root.c_type.clone(),
                kind: aggregate.kind.keyword(),
                defined_at: aggregate.location.label(),
                size: *size,
                align: *align,
                evidence: Evidence::observed(basis),
                fields: Vec::new(),
                padding: Vec::new(),
                portability: Portability {
                    same_on_ilp32: None,
                    model_dependent_fields: Vec::new(),
                    evidence: Evidence::inferred(""),
                },
            });
            model_dependent.push(Vec::new());
            unknown_types.push(0);
            continue;
        }
        let Some(layout) = layouts.last_mut() else { continue };
        let template =
            |entry: usize| entries.get(entry).ok_or_else(|| LayoutError::ProbeOutput(format!("unknown entry {entry}")));
        match line {
            ProbeLine::Field { entry, path, offset, size } => {
                let t = template(*entry)?;
                match t.model_dependent {
                    Some(true) => model_dependent.last_mut().unwrap().push(path.clone()),
                    None if t.kind == EntryKind::Scalar => *unknown_types.last_mut().unwrap() += 1,
                    _ => {}
                }
                layout.fields.push(FieldLayout {
                    path: path.clone(),
                    offset: *offset,
                    size: *size,
                    kind: kind_label(t.kind, unit, &t.type_name),
                    type_name: t.type_name.clone(),
                    depth: t.depth,
                    count: None,
                    listed: None,
                    bit_offset: None,
                    bit_width: None,
                });
            }
            ProbeLine::Count { path, count, .. } => {
                if let Some(field) = layout.fields.iter_mut().rev().find(|f| &f.path == path) {
                    field.count = Some(*count);
                    field.listed = Some(0);
                }
            }
            ProbeLine::Bits { entry, path, low, high } => {
                let t = template(*entry)?;
                let (low, high) = (u64::try_from(*low).unwrap_or(0), u64::try_from(*high).unwrap_or(0));
                layout.fields.push(FieldLayout {
                    path: path.clone(),
                    offset: low / 8,
                    size: high / 8 - low / 8 + 1,
                    kind: "bit-field",
                    type_name: t.type_name.clone(),
                    depth: t.depth,
                    count: None,
                    listed: None,
                    bit_offset: Some(low),
                    bit_width: Some(high - low + 1),
                });
            }
            _ => {}
        }
    }
    for (i, layout) in layouts.iter_mut().enumerate() {
        count_listed_elements(&mut layout.fields);
        layout.padding = padding_of(layout);
        layout.portability = portability(&model_dependent[i], unknown_types[i], target);
    }
    Ok(layouts)
}

fn kind_label(kind: EntryKind, unit: &Unit, type_name: &str) -> &'static str {
    match kind {
        EntryKind::Scalar => "scalar",
        EntryKind::Aggregate if type_name.starts_with("union") => "union",
        EntryKind::Aggregate => {
            // A typedef'd union still reads as a union.
            let is_union = unit.typedefs.get(type_name).is_some_and(|(ty, _)| {
                matches!(unit.resolve(ty).0, Resolved::Aggregate(id) if unit.aggregates[id].kind == AggregateKind::Union)
            });
            if is_union {
                "union"
            } else {
                "struct"
            }
        }
        EntryKind::Array => "array",
        EntryKind::BitField => "bit-field",
        EntryKind::FlexibleArray => "flexible array",
    }
}

/// Counts each array's listed elements (direct children named `path[i]`).
fn count_listed_elements(fields: &mut [FieldLayout]) {
    for i in 0..fields.len() {
        if fields[i].count.is_none() {
            continue;
        }
        let prefix = format!("{}[", fields[i].path);
        let is_element = |path: &str| {
            path.strip_prefix(prefix.as_str())
                .and_then(|rest| rest.strip_suffix(']'))
                .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        };
        let listed = fields[i + 1..].iter().filter(|f| is_element(&f.path)).count() as u64;
        fields[i].listed = Some(listed);
    }
}

/// Bytes no leaf field covers. Arrays whose elements are not all listed
/// count as covered whole, so truncation never invents padding.
fn padding_of(layout: &StructLayout) -> Vec<Padding> {
    let size = layout.size as usize;
    let mut covered = vec![false; size];
    for f in &layout.fields {
        let leaf = match f.kind {
            "scalar" | "bit-field" => true,
            "array" => f.listed < f.count,
            "struct" | "union" => {
                !layout.fields.iter().any(|g| g.depth > f.depth && g.path.starts_with(&format!("{}.", f.path)))
            }
            _ => false,
        };
        if leaf {
            let start = (f.offset as usize).min(size);
            let end = (f.offset + f.size).min(layout.size) as usize;
            covered[start..end.max(start)].iter_mut().for_each(|c| *c = true);
        }
    }
    let mut padding = Vec::new();
    let mut i = 0;
    while i < size {
        if covered[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < size && !covered[i] {
            i += 1;
        }
        padding.push(Padding {
            offset: start as u64,
            size: (i - start) as u64,
            evidence: Evidence::inferred("no field covers these bytes"),
        });
    }
    padding
}

fn portability(model_dependent: &[String], unknown: usize, target: &str) -> Portability {
    let lp64_natural = ["x86_64", "aarch64", "riscv64", "powerpc64le"].iter().any(|arch| target.starts_with(arch));
    if !lp64_natural {
        return Portability {
            same_on_ilp32: None,
            model_dependent_fields: model_dependent.to_vec(),
            evidence: Evidence::inferred(format!("not assessed: the probe ran on {target}, not a known LP64 target")),
        };
    }
    if !model_dependent.is_empty() {
        return Portability {
            same_on_ilp32: Some(false),
            model_dependent_fields: model_dependent.to_vec(),
            evidence: Evidence::inferred(
                "these fields are pointers, long or long double: wider on this LP64 host than on ILP32 Xtensa",
            ),
        };
    }
    if unknown > 0 {
        return Portability {
            same_on_ilp32: None,
            model_dependent_fields: Vec::new(),
            evidence: Evidence::inferred(format!("{unknown} field type(s) could not be traced to built-in types")),
        };
    }
    Portability {
        same_on_ilp32: Some(true),
        model_dependent_fields: Vec::new(),
        evidence: Evidence::inferred(format!(
            "every field has a fixed-width type, and {target} and Xtensa both align scalars to their size"
        )),
    }
}
