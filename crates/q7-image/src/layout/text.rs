//! Human rendering of [`Layout`] and [`SetFacts`].

use std::io::{self, Write};

use super::{Layout, PointerTable, SetFacts};

fn human_size(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.2} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// Writes the single-image report.
pub fn write_layout(out: &mut dyn Write, name: &str, l: &Layout) -> io::Result<()> {
    let e = &l.elf;
    writeln!(
        out,
        "{name}: {} {} {}, {}, e_flags {:#x}{}",
        e.class,
        e.endian,
        e.e_type,
        e.machine,
        e.flags,
        if e.stripped { ", stripped" } else { "" }
    )?;
    if e.e_type == "REL" {
        writeln!(out, "  note      relocatable object: its sections have no addresses until linked")?;
    }
    match &l.window {
        Some(w) => {
            writeln!(
                out,
                "  window    {:<7} {:#010x}..{:#010x} ({})  [{}]",
                w.label,
                w.base,
                w.base as u64 + w.size as u64,
                human_size(w.size as u64),
                w.evidence
            )?;
        }
        None => writeln!(out, "  window    none (the image does not fit one core window)")?,
    }
    let entry_place = match (&l.entry.window_offset, &l.entry.section) {
        (Some(off), Some(s)) => format!(" = window base + {off:#x}, in {s}"),
        (Some(off), None) => format!(" = window base + {off:#x}"),
        (None, Some(s)) => format!(", in {s}"),
        (None, None) => String::new(),
    };
    writeln!(out, "  entry     {:#010x}{entry_place}", l.entry.address)?;
    writeln!(
        out,
        "  span      {:#010x}..{:#010x}  {:#x} bytes ({})",
        l.span.start,
        l.span.end,
        l.span.size,
        human_size(l.span.size)
    )?;
    if let Some(w) = &l.window {
        writeln!(out, "  headroom  {:#x} bytes ({}) of {:#x}", w.headroom, human_size(w.headroom), w.size)?;
    }

    writeln!(out, "\n  program headers ({} LOAD)", l.load_segment_count())?;
    writeln!(out, "    #  type     offset    vaddr       filesz    memsz     flg  sections")?;
    for s in &l.segments {
        writeln!(
            out,
            "    {:<2} {:<8} {:#08x}  {:#010x}  {:#08x}  {:#08x}  {:<3}  {}",
            s.index,
            s.kind,
            s.offset,
            s.vaddr,
            s.filesz,
            s.memsz,
            s.flags,
            s.sections.join(" ")
        )?;
    }

    writeln!(out, "\n  allocated sections")?;
    writeln!(out, "    name                 type      addr        offset    size      align  flg  role")?;
    for s in &l.sections {
        writeln!(
            out,
            "    {:<20} {:<9} {:#010x}  {:#08x}  {:#08x}  {:<5}  {:<3}  {}",
            s.name, s.kind, s.addr, s.offset, s.size, s.align, s.flags, s.role
        )?;
    }

    for table in [&l.ctors, &l.dtors, &l.init_array].into_iter().flatten() {
        write_table(out, table)?;
    }
    Ok(())
}

fn write_table(out: &mut dyn Write, t: &PointerTable) -> io::Result<()> {
    let mut shape = Vec::new();
    if t.head_sentinel {
        shape.push("head sentinel".to_string());
    }
    shape.push(format!("{} pointer{}", t.pointers.len(), if t.pointers.len() == 1 { "" } else { "s" }));
    if t.null_terminated {
        shape.push("NULL".into());
    }
    writeln!(out, "\n  {} at {:#010x}: {} words = {}", t.section, t.addr, t.words.len(), shape.join(", "))?;
    let mut i = 0;
    if t.head_sentinel {
        writeln!(out, "    [{i}] {:#010x}  head sentinel", t.words[0])?;
        i += 1;
    }
    for p in &t.pointers {
        let target = p.target.as_deref().unwrap_or("(outside the image)");
        writeln!(out, "    [{i}] {:#010x}  -> {target}", p.value)?;
        i += 1;
    }
    if t.null_terminated {
        writeln!(out, "    [{i}] 0x00000000  NULL terminator")?;
    }
    Ok(())
}

/// Writes the cross-image summary (docs/FACTS.md, "Aperture law and tiling").
pub fn write_set(out: &mut dyn Write, s: &SetFacts) -> io::Result<()> {
    writeln!(out, "across {} images", s.images)?;
    match s.constant_entry_offset {
        Some(off) => writeln!(out, "  entry offset  constant: window base + {off:#x}")?,
        None => {
            let offs: Vec<String> =
                s.entry_offsets.iter().map(|o| o.map_or("none".into(), |o| format!("{o:#x}"))).collect();
            writeln!(out, "  entry offset  NOT constant: {}", offs.join(" "))?
        }
    }
    match s.tiled_range {
        Some((start, end)) => writeln!(
            out,
            "  windows       {} tile {start:#010x}..{end:#010x} ({}) with no gaps or overlaps",
            s.windows.join(" "),
            human_size(end - start as u64)
        )?,
        None => {
            writeln!(out, "  windows       {} do NOT tile one range", s.windows.join(" "))?;
            for (a, b) in &s.gaps {
                writeln!(out, "    gap      {a:#010x}..{b:#010x}")?;
            }
            for (a, b) in &s.overlaps {
                writeln!(out, "    overlap  {a} and {b}")?;
            }
            if s.windows.len() < s.images {
                writeln!(out, "    {} image(s) sit in no window", s.images - s.windows.len())?;
            }
        }
    }
    Ok(())
}
