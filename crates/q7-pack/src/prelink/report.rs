//! The text report of `q7 inspect ucpl`: the header, then each check.

use std::io::{self, Write};

use super::ucpl::{show_core_id, UcplView, Validation};

/// Writes the header fields and every check of `view` (see [`Validation`]).
pub fn write_ucpl_report(out: &mut dyn Write, name: &str, view: &UcplView, checks: &Validation) -> io::Result<()> {
    let h = &view.header;
    writeln!(out, "{name}: UCPL image, {:#x} bytes", view.file_size())?;
    let entry_offset = match h.entry.checked_sub(h.load_base) {
        Some(off) => format!(" (base + {off:#x})"),
        None => String::new(),
    };
    let core = match h.window() {
        Some(w) => format!(" ({})", w.label()),
        None => String::new(),
    };
    let rows = [
        ("load base", format!("{:#010x}", h.load_base)),
        ("entry", format!("{:#010x}{entry_offset}", h.entry)),
        ("image bytes", format!("{:#x}", h.image_size)),
        ("memory size", format!("{:#x}", h.memory_size)),
        ("core id", format!("{}{core}", show_core_id(h.core_id))),
        ("crc-32", format!("{:#010x}", h.crc32)),
    ];
    for (label, value) in rows {
        writeln!(out, "  {label:<12} {value}")?;
    }
    writeln!(out, "checks:")?;
    for c in &checks.checks {
        let verdict = if c.ok { "ok" } else { "FAIL" };
        writeln!(out, "  {verdict:<5} {:<12} {}", c.name, c.detail)?;
    }
    let failed = checks.failures().count();
    let total = checks.checks.len();
    if failed == 0 {
        writeln!(out, "valid: all {total} checks pass")
    } else {
        writeln!(out, "INVALID: {failed} of {total} checks fail")
    }
}
