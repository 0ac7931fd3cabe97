//! Human rendering of [`DiffReport`].

use std::io::{self, Write};

use super::{DiffReport, SectionDiff, SectionStatus};

pub fn write_report(out: &mut dyn Write, r: &DiffReport) -> io::Result<()> {
    writeln!(out, "diff: A = {} ({} bytes)", r.a.path, r.a.size)?;
    writeln!(out, "      B = {} ({} bytes)", r.b.path, r.b.size)?;
    writeln!(out, "  sha256 A  {}", r.a.sha256)?;
    writeln!(out, "  sha256 B  {}", r.b.sha256)?;
    let verdict = if r.identical { "IDENTICAL" } else { "different" };
    writeln!(out, "  files     {verdict}  {}", r.identity)?;
    if r.identical {
        return write_findings(out, r);
    }
    if !r.header_changes.is_empty() {
        writeln!(out, "\n  ELF header")?;
        for h in &r.header_changes {
            writeln!(out, "    {:<16} {} -> {}", h.field, h.a, h.b)?;
        }
    }
    writeln!(out, "\n  allocated sections")?;
    for s in &r.sections {
        write_section(out, s)?;
    }
    write_findings(out, r)
}

fn write_section(out: &mut dyn Write, s: &SectionDiff) -> io::Result<()> {
    let place =
        |p: Option<super::SectionPlace>| p.map_or("-".to_string(), |p| format!("{:#010x}+{:#x}", p.addr, p.size));
    let status = match s.status {
        SectionStatus::Identical => "identical".to_string(),
        SectionStatus::Moved => "same bytes, moved".to_string(),
        SectionStatus::SizeChanged => format!("SIZE CHANGED, {} differ", plural(s.differing_bytes, "byte")),
        SectionStatus::Changed => {
            format!("CHANGED: {} in {}", plural(s.differing_bytes, "byte"), plural(s.ranges_total as u64, "range"))
        }
        SectionStatus::OnlyInA => "only in A".to_string(),
        SectionStatus::OnlyInB => "only in B".to_string(),
    };
    writeln!(out, "    {:<20} A {:<22} B {:<22} {status}  {}", s.name, place(s.a), place(s.b), s.evidence)?;
    for d in &s.ranges {
        writeln!(
            out,
            "      +{:#06x} len {:<3} A {:#010x} (file {:#x})  B {:#010x} (file {:#x})",
            d.section_offset, d.len, d.addr_a, d.file_offset_a, d.addr_b, d.file_offset_b
        )?;
        writeln!(out, "        A: {}", d.bytes_a)?;
        writeln!(out, "        B: {}", d.bytes_b)?;
        for (side, lines) in [("A", &d.decoded_a), ("B", &d.decoded_b)] {
            for line in lines.iter().flatten() {
                writeln!(out, "        {side} | {line}")?;
            }
        }
    }
    if s.ranges_total > s.ranges.len() {
        writeln!(out, "      … {} more ranges (raise --max-ranges to list them)", s.ranges_total - s.ranges.len())?;
    }
    if s.code && !s.ranges.is_empty() && s.ranges.iter().all(|d| d.decoded_a.is_none()) {
        writeln!(out, "      (code: instruction decoding of these ranges awaits the Xtensa decoder)")?;
    }
    Ok(())
}

fn plural(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn write_findings(out: &mut dyn Write, r: &DiffReport) -> io::Result<()> {
    writeln!(out, "\n  findings")?;
    for f in &r.findings {
        writeln!(out, "    {}  {}", f.text, f.evidence)?;
    }
    Ok(())
}
