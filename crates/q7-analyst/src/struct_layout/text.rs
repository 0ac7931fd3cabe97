//! Human rendering of [`LayoutReport`].

use std::io::{self, Write};

use super::{FieldLayout, LayoutReport, StructLayout};

pub fn write_report(out: &mut dyn Write, r: &LayoutReport) -> io::Result<()> {
    writeln!(out, "struct-layout: {}", r.header)?;
    writeln!(
        out,
        "  compiler  {} ({}), target {}  {}",
        r.compiler.program, r.compiler.version, r.compiler.target, r.compiler.evidence
    )?;
    for s in &r.structs {
        writeln!(out)?;
        write_struct(out, s)?;
    }
    if !r.assertions.is_empty() {
        let failing = r.failed_assertions().count();
        writeln!(out, "\n  header assertions: {} checked, {failing} fail", r.assertions.len())?;
        for a in &r.assertions {
            let verdict = if a.holds { "holds".to_string() } else { "FAILS".to_string() };
            let values = match (a.left, a.right) {
                (Some(l), Some(r)) if a.holds => format!(" ({l} == {r})"),
                (Some(l), Some(r)) => format!(": the left side is {l}, not {r}"),
                _ => String::new(),
            };
            writeln!(out, "    {}  {}  {verdict}{values}  {}", a.location, a.condition, a.evidence)?;
        }
    }
    if !r.skipped_declarations.is_empty() {
        writeln!(out, "\n  declarations the parser skipped (their structs cannot be requested)")?;
        for s in &r.skipped_declarations {
            writeln!(out, "    {s}")?;
        }
    }
    Ok(())
}

fn write_struct(out: &mut dyn Write, s: &StructLayout) -> io::Result<()> {
    let spelled = if s.c_type == s.name { String::new() } else { format!(" ({})", s.c_type) };
    writeln!(out, "{}{spelled}, {} defined at {}", s.name, s.kind, s.defined_at)?;
    writeln!(out, "  sizeof {} ({:#x}), align {}  {}", s.size, s.size, s.align, s.evidence)?;
    writeln!(out, "  offset  size  field")?;
    // Fields and padding in address order; padding after the fields that
    // end where it starts.
    let mut padding = s.padding.iter().peekable();
    for f in &s.fields {
        while let Some(p) = padding.next_if(|p| p.offset < f.offset) {
            writeln!(out, "  {:#06x}  {:<4}  (padding)  {}", p.offset, p.size, p.evidence)?;
        }
        write_field(out, f)?;
    }
    for p in padding {
        writeln!(out, "  {:#06x}  {:<4}  (padding)  {}", p.offset, p.size, p.evidence)?;
    }
    let verdict = match s.portability.same_on_ilp32 {
        Some(true) => "same layout expected on ILP32 Xtensa".to_string(),
        Some(false) => format!("differs on ILP32 Xtensa: {}", s.portability.model_dependent_fields.join(", ")),
        None => "not assessed for ILP32 Xtensa".to_string(),
    };
    writeln!(out, "  device    {verdict}  {}", s.portability.evidence)
}

fn write_field(out: &mut dyn Write, f: &FieldLayout) -> io::Result<()> {
    let indent = "  ".repeat(f.depth);
    let name = format!("{indent}{}", f.path);
    let detail = match (f.kind, f.count, f.listed, f.bit_offset, f.bit_width) {
        ("bit-field", _, _, Some(bit), Some(width)) => {
            format!("{}, bits {}..{} (width {width})", f.type_name, bit, bit + width - 1)
        }
        ("array", Some(count), Some(listed), _, _) if listed < count => {
            format!("{}, {count} elements ({} not listed)", f.type_name, count - listed)
        }
        ("array", Some(count), _, _, _) => format!("{}, {count} elements", f.type_name),
        ("flexible array", ..) => format!("{}, flexible array member", f.type_name),
        _ => f.type_name.clone(),
    };
    writeln!(out, "  {:#06x}  {:<4}  {name:<28}  {detail}", f.offset, f.size)
}
