//! Human rendering of a [`RebaseReport`].

use std::io::{self, Write};

use super::{CounterExample, RebaseReport};

fn hex_list<T: std::fmt::LowerHex>(v: &[T]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    v.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(" ")
}

pub fn write_rebase(out: &mut dyn Write, names: &[String], r: &RebaseReport) -> io::Result<()> {
    writeln!(out, "rebase diff of {} images against {} (bases from {})", r.images.len(), names[0], r.base_source)?;
    for (name, img) in names.iter().zip(&r.images) {
        let window = img.window.as_deref().map(|w| format!(" ({w})")).unwrap_or_default();
        writeln!(out, "  {name}: base {:#010x}{window}, {:#x} bytes", img.base, img.size)?;
    }

    let w = names.iter().map(String::len).max().unwrap_or(5).max(5);
    writeln!(out, "\n  byte level (vs {})", names[0])?;
    writeln!(
        out,
        "    {:<w$}  base delta  differing bytes  first at  byte deltas  same bytes  words  same words",
        "image"
    )?;
    let yes = |b: bool| if b { "yes" } else { "NO" };
    for p in &r.pairs {
        writeln!(
            out,
            "    {:<w$}  {:<10}  {:<15}  {:<8}  {:<11}  {:<10}  {:<5}  {}",
            names[p.image],
            format!("{:#x}", p.base_delta),
            p.differing_bytes,
            p.first_differing.map_or("-".into(), |o| format!("{o:#x}")),
            hex_list(&p.byte_deltas),
            yes(p.same_positions_as_first_pair),
            p.differing_words,
            yes(p.same_words_as_first_pair)
        )?;
    }
    writeln!(out, "    byte positions set-equal across all pairs: {}", yes(r.positions_equal))?;
    writeln!(out, "    word positions set-equal across all pairs: {}", yes(r.word_positions_equal))?;
    if r.word_positions_equal && !r.positions_equal {
        writeln!(out, "    (a larger delta carried into a neighbouring byte of the same words)")?;
    }

    writeln!(out, "\n  word level: every differing 32-bit word should move by the base delta")?;
    for p in &r.pairs {
        writeln!(out, "    {} (base delta {:#x})", names[p.image], p.base_delta)?;
        writeln!(out, "      region                 addr        file off  differing words  non-rebase  word deltas")?;
        for g in &p.regions {
            writeln!(
                out,
                "      {:<22} {:<10}  {:<8}  {:<15}  {:<10}  {}",
                g.name,
                g.addr.map_or("-".into(), |a| format!("{a:#010x}")),
                format!("{:#x}", g.offset),
                g.differing_words,
                g.non_rebase_words,
                hex_list(&g.word_deltas)
            )?;
        }
    }

    writeln!(out, "\n  strings per allocated section (offset and text)")?;
    for s in &r.strings {
        let counts: Vec<String> = s.counts.iter().map(usize::to_string).collect();
        writeln!(
            out,
            "    {:<22} {:<20} {}",
            s.section,
            counts.join("/"),
            if s.identical { "identical" } else { "DIFFERENT" }
        )?;
    }

    match &r.verdict.counter_example {
        None => writeln!(out, "\n  verdict: identical modulo rebase")?,
        Some(c) => {
            writeln!(out, "\n  verdict: NOT identical modulo rebase")?;
            write_counter_example(out, names, c)?;
        }
    }
    Ok(())
}

fn write_counter_example(out: &mut dyn Write, names: &[String], c: &CounterExample) -> io::Result<()> {
    writeln!(out, "    first counter-example, in {}: {}", names[c.image], c.what)?;
    if let Some(region) = &c.region {
        let mut place = format!("    at {region}");
        if let Some(o) = c.region_offset {
            place.push_str(&format!("+{o:#x}"));
        }
        if let Some(o) = c.file_offset {
            place.push_str(&format!(", file offset {o:#x}"));
        }
        if let Some(a) = c.address {
            place.push_str(&format!(", address {a:#010x}"));
        }
        if let Some(a) = c.address_here {
            place.push_str(&format!(" ({a:#010x} in {})", names[c.image]));
        }
        writeln!(out, "{place}")?;
    }
    if let (Some(x), Some(y)) = (c.first_value, c.value) {
        writeln!(out, "    word {x:#010x} in {}, {y:#010x} in {}", names[0], names[c.image])?;
    }
    Ok(())
}
