//! Human rendering of [`ConfigReport`].

use std::io::{self, Write};

use super::{Agreement, ConfigReport};

pub fn write_report(out: &mut dyn Write, r: &ConfigReport) -> io::Result<()> {
    let n = r.sources.len();
    writeln!(out, "core-config: {n} source{}", if n == 1 { "" } else { "s" })?;
    for s in &r.sources {
        writeln!(out, "  {}  ({}, {} entries, {} mapped to facts)", s.path, s.format.label(), s.entries, s.mapped)?;
        if !s.unmapped_keys.is_empty() {
            writeln!(out, "    not mapped: {}", s.unmapped_keys.join(", "))?;
        }
        if !s.repeated_keys.is_empty() {
            writeln!(out, "    repeated keys (first value used): {}", s.repeated_keys.join(", "))?;
        }
    }

    writeln!(out, "\n  {:<32} {:<16} evidence", "fact", "value")?;
    for f in r.facts.iter().filter(|f| f.agreement != Agreement::Conflict) {
        let value = f.value.as_deref().unwrap_or("");
        let unread = f.statements.iter().any(|s| !s.readable);
        let value = if unread { format!("{value} (unparsed)") } else { value.to_string() };
        writeln!(out, "  {:<32} {:<16} {}", f.label, value, f.evidence)?;
    }

    let conflicts: Vec<_> = r.conflicts().collect();
    if !conflicts.is_empty() {
        writeln!(
            out,
            "\n  CONFLICTS: {} fact{} the sources state differently",
            conflicts.len(),
            if conflicts.len() == 1 { "" } else { "s" }
        )?;
        for f in conflicts {
            writeln!(out, "  {}  {}", f.label, f.evidence)?;
            for s in &f.statements {
                writeln!(out, "    {:<24} {} = {:<12} -> {}", s.place(), s.key, s.raw, s.normalised)?;
            }
        }
    }

    if !r.derived.is_empty() {
        writeln!(out, "\n  derived")?;
        for d in &r.derived {
            writeln!(out, "  {:<32} {:<16} {}", d.label, d.value, d.evidence)?;
        }
    }
    Ok(())
}
