//! Human rendering of a [`CarveReport`].

use std::io::{self, Write};

use super::{CarveReport, FlatItem, Hit, Returns};

fn image_label(i: Option<usize>) -> String {
    i.map_or("-".into(), |i| format!("#{}", i + 1))
}

fn short_sha(s: &Option<String>) -> String {
    s.as_deref().map_or("-".into(), |s| s[..16].to_string())
}

/// A check's found value, marked `!` when it failed.
fn check_cell(hit: &Hit, field: &str) -> String {
    hit.checks.iter().find(|c| c.field == field).map_or("?".into(), |c| {
        if c.ok {
            c.found.clone()
        } else {
            format!("{}!", c.found)
        }
    })
}

pub fn write_carve(out: &mut dyn Write, name: &str, r: &CarveReport) -> io::Result<()> {
    writeln!(out, "{name}: {}, {} bytes ({:#x})", r.container, r.file_size, r.file_size)?;
    writeln!(
        out,
        "  magic scan: {} `\\x7fELF` hit{}, {} Xtensa image{} stored, {} distinct",
        r.hits.len(),
        if r.hits.len() == 1 { "" } else { "s" },
        r.stored,
        if r.stored == 1 { "" } else { "s" },
        r.distinct.len()
    )?;
    writeln!(out, "    (checks: ELF32 LE EXEC Xtensa e_flags {:#x}; `!` marks a failed check)", super::EXPECTED_FLAGS)?;
    writeln!(
        out,
        "    hit  file off  host address              size      class   data  type   machine  flags   sha256[0:16]      image"
    )?;
    for (i, h) in r.hits.iter().enumerate() {
        let place = h.host.as_ref().map_or("-".into(), |p| {
            let moved = if p.vaddr != h.offset { " (VMA≠off)" } else { "" };
            format!("{:#x} {}{moved}", p.vaddr, p.section)
        });
        let size = h.size.map_or("-".into(), |s| format!("{s:#x}"));
        writeln!(
            out,
            "    {i:<4} {:#08x}  {place:<24}  {size:<8}  {:<6}  {:<4}  {:<5}  {:<7}  {:<6}  {:<16}  {}",
            h.offset,
            check_cell(h, "class"),
            check_cell(h, "data"),
            check_cell(h, "type"),
            check_cell(h, "machine"),
            check_cell(h, "flags"),
            short_sha(&h.sha256),
            image_label(h.image)
        )?;
        if let Some(note) = &h.size_note {
            writeln!(out, "         note: {note}")?;
        }
    }

    writeln!(out, "\n  collapse: {} stored -> {} distinct", r.stored, r.distinct.len())?;
    writeln!(
        out,
        "    image  sha256[0:16]      size      entry (image file off)  kinfo  .xt.prop  copies at (file off)"
    )?;
    for (i, d) in r.distinct.iter().enumerate() {
        let offsets: Vec<String> = d.offsets.iter().map(|o| format!("{o:#x}")).collect();
        writeln!(
            out,
            "    #{:<5} {}  {:<8}  {:<22}  {:<5}  {:<8}  {}",
            i + 1,
            &d.sha256[..16],
            format!("{:#x}", d.size),
            match (d.entry, d.entry_offset) {
                (Some(e), Some(o)) => format!("{e:#010x} ({o:#x})"),
                (Some(e), None) => format!("{e:#010x} (-)"),
                _ => "-".into(),
            },
            d.kernel_records.map_or("-".into(), |k| k.to_string()),
            d.named_kernels,
            offsets.join(", ")
        )?;
    }

    if let Some(g) = &r.getters {
        writeln!(out, "\n  getters: {} exported *_get function{}", g.exported, if g.exported == 1 { "" } else { "s" })?;
        writeln!(out, "    getter                               at (file off)     returns (file off, section)       size     what")?;
        for x in &g.getters {
            let at = format!("{:#x} ({})", x.vaddr, x.file_offset.map_or("-".into(), |o| format!("{o:#x}")));
            let data = match (x.data_vaddr, x.data_offset, &x.data_section) {
                (Some(va), Some(off), Some(sec)) => format!("{va:#x} ({off:#x}, {sec})"),
                (Some(va), _, _) => format!("{va:#x} (no file bytes)"),
                _ => "-".into(),
            };
            let what = match &x.returns {
                Returns::Image { hit, image } => format!("image #{} (hit {hit})", image + 1),
                Returns::OtherElf { problem } => format!("ELF, but {problem}"),
                Returns::Header { header } => header.describe(),
                Returns::Unknown { first_bytes } => format!("unknown data ({first_bytes} …)"),
                Returns::Undecoded { problem } => format!("undecoded: {problem}"),
            };
            writeln!(
                out,
                "    {:<36} {at:<17} {data:<33} {:<8} {what}",
                x.name,
                x.size.map_or("-".into(), |s| format!("{s:#x}"))
            )?;
        }
        writeln!(out, "    slots: {}", g.slots.len())?;
        for s in &g.slots {
            writeln!(
                out,
                "      {:<28} image {:<4} beside it: {}",
                s.name,
                image_label(s.image),
                s.header_kind.as_deref().unwrap_or("no header getter")
            )?;
        }
    }

    if let Some(f) = &r.flat {
        let images = f.images().count();
        writeln!(out, "\n  flat container: {} items, {images} images", f.items.len())?;
        for item in &f.items {
            match item {
                FlatItem::Header { offset, len, header } => {
                    writeln!(out, "    {offset:#08x}  header  {len:#x} bytes  {}", header.describe())?
                }
                FlatItem::Image { offset, size, hit, image } => writeln!(
                    out,
                    "    {offset:#08x}  image   {size:#x} bytes  image {} (hit {hit})",
                    image_label(*image)
                )?,
            }
        }
        if let Some(why) = &f.stopped {
            writeln!(out, "    stopped: {why}")?;
        }
    }

    if !r.agreement.is_empty() {
        writeln!(out, "\n  agreement")?;
        for a in &r.agreement {
            if a.agree {
                writeln!(out, "    {}: agree on {} images (offset, size)", a.modes, a.images)?;
            } else {
                writeln!(out, "    {}: DISAGREE", a.modes)?;
                for p in &a.problems {
                    writeln!(out, "      {p}")?;
                }
            }
        }
    }
    Ok(())
}
