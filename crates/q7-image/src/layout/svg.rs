//! A picture of [`Layout`]s: one column per core window, drawn to scale, with
//! each image's LOAD segments, its `.bss` and the headroom above it; below,
//! the same windows magnified to the images' extent so their sections, and
//! the entry point, can be told apart; a legend. Hand-written SVG 1.1 text,
//! deterministic for a given input (no clocks, no absolute paths).

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{Layout, SectionFacts, SetFacts};

/// Geometry, in SVG user units (pixels).
const LEFT: f64 = 96.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 112.0;
const COL_W: f64 = 132.0;
const COL_GAP: f64 = 22.0;
const WINDOW_H: f64 = 400.0;
const ROW_GAP: f64 = 96.0;
const DETAIL_H: f64 = 320.0;
const NAMES_H: f64 = 44.0;
const LEGEND_H: f64 = 92.0;
const MIN_WIDTH: f64 = 1000.0;
const LEGEND_CELL: f64 = 320.0;

/// What a band of memory is, for its colour and the legend.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Image,
    Code,
    ReadOnly,
    Writable,
    Tables,
    Bss,
    Headroom,
}

impl Kind {
    fn fill(self) -> &'static str {
        match self {
            Kind::Image => "#54657e",
            Kind::Code => "#4c78a8",
            Kind::ReadOnly => "#72b7b2",
            Kind::Writable => "#b279a2",
            Kind::Tables => "#eeca3b",
            Kind::Bss => "#f58518",
            Kind::Headroom => "url(#headroom)",
        }
    }

    fn legend(self) -> &'static str {
        match self {
            Kind::Image => "LOAD segment: the file image (RWE)",
            Kind::Code => "code (.text)",
            Kind::ReadOnly => "read-only data (.rodata, ...)",
            Kind::Writable => "writable data (.data, ...)",
            Kind::Tables => ".ctors / .dtors / init arrays",
            Kind::Bss => ".bss: LOAD segment, zero-filled (RW)",
            Kind::Headroom => "headroom: stack, heap, launch block",
        }
    }

    fn of_section(s: &SectionFacts) -> Kind {
        match s.name.as_str() {
            _ if s.kind == "NOBITS" => Kind::Bss,
            ".ctors" | ".dtors" | ".init_array" | ".fini_array" => Kind::Tables,
            _ if s.flags.contains('X') => Kind::Code,
            _ if s.flags.contains('W') => Kind::Writable,
            _ => Kind::ReadOnly,
        }
    }
}

/// One window's column: its images (several share a column side by side).
struct Column<'a> {
    label: String,
    base: u32,
    size: u32,
    images: Vec<(&'a str, &'a Layout)>,
}

/// XML-escapes text for element content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

/// A size as the text report writes it: `2.00 MiB`, `41.2 KiB`, `856 B`.
fn human(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.2} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// The smallest "round" size >= n: a multiple of a power of two a quarter
/// of n's magnitude, so the detail panel's axis reads cleanly in hex.
fn round_up(n: u64) -> u64 {
    if n <= 16 {
        return 16;
    }
    let step = 1u64 << (63 - n.leading_zeros()).saturating_sub(2);
    n.div_ceil(step) * step
}

/// Bytes per pixel: `5.1 KiB`, `154 B`, `2.7 B`.
fn per_pixel(bpp: f64) -> String {
    if bpp < 10.0 {
        format!("{bpp:.1} B")
    } else {
        human(bpp.round() as u64)
    }
}

fn fmt_f(x: f64) -> String {
    let s = format!("{x:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

struct Svg {
    text: String,
}

impl Svg {
    fn rect(&mut self, (x, y, w, h): (f64, f64, f64, f64), fill: &str, extra: &str, title: Option<&str>) {
        let (x, y, w, h) = (fmt_f(x), fmt_f(y), fmt_f(w), fmt_f(h));
        match title {
            Some(t) => {
                let _ = writeln!(
                    self.text,
                    r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}"{extra}><title>{}</title></rect>"#,
                    esc(t)
                );
            }
            None => {
                let _ = writeln!(self.text, r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}"{extra}/>"#);
            }
        }
    }

    fn text(&mut self, x: f64, y: f64, class: &str, anchor: &str, body: &str) {
        let _ = writeln!(
            self.text,
            r#"<text x="{}" y="{}" class="{class}" text-anchor="{anchor}">{}</text>"#,
            fmt_f(x),
            fmt_f(y),
            esc(body)
        );
    }

    /// Text squeezed into `width` when it would be longer.
    fn fitted_text(&mut self, x: f64, y: f64, class: &str, width: f64, char_w: f64, body: &str) {
        let squeeze = if body.chars().count() as f64 * char_w > width {
            format!(r#" textLength="{}" lengthAdjust="spacingAndGlyphs""#, fmt_f(width))
        } else {
            String::new()
        };
        let _ = writeln!(
            self.text,
            r#"<text x="{}" y="{}" class="{class}" text-anchor="middle"{squeeze}>{}</text>"#,
            fmt_f(x),
            fmt_f(y),
            esc(body)
        );
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, class: &str) {
        let _ = writeln!(
            self.text,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" class="{class}"/>"#,
            fmt_f(x1),
            fmt_f(y1),
            fmt_f(x2),
            fmt_f(y2)
        );
    }
}

/// A band `[start, start + size)` of a column whose bottom edge is address
/// `base` at `bottom` and which shows `bpp` bytes per pixel: (top y, height).
/// Non-empty bands are at least one pixel tall.
fn band(base: u32, bottom: f64, bpp: f64, start: u64, size: u64) -> (f64, f64) {
    let y0 = bottom - (start - base as u64) as f64 / bpp;
    let h = (size as f64 / bpp).max(if size > 0 { 1.0 } else { 0.0 });
    (y0 - h, h)
}

/// Writes the picture of `images` (name, layout); images outside every core
/// window are listed, not drawn.
pub fn write_svg(out: &mut dyn Write, images: &[(&str, &Layout)]) -> io::Result<()> {
    // Columns: one per window, in address order.
    let mut columns: Vec<Column> = Vec::new();
    let mut outside: Vec<&str> = Vec::new();
    for &(name, layout) in images {
        let Some(w) = &layout.window else {
            outside.push(name);
            continue;
        };
        match columns.iter_mut().find(|c| c.base == w.base && c.size == w.size) {
            Some(c) => c.images.push((name, layout)),
            None => columns.push(Column {
                label: w.label.clone(),
                base: w.base,
                size: w.size,
                images: vec![(name, layout)],
            }),
        }
    }
    columns.sort_by_key(|c| (c.base, c.size));

    let n = columns.len().max(1) as f64;
    // Wide enough for the subtitles and a legend row, whatever the columns.
    let width = (LEFT + n * COL_W + (n - 1.0) * COL_GAP + RIGHT).max(MIN_WIDTH);
    let detail_top = TOP + WINDOW_H + ROW_GAP;
    let names_top = detail_top + DETAIL_H;
    let legend_top = names_top + NAMES_H;
    let legend_rows = 7usize.div_ceil(((width - 32.0) / LEGEND_CELL).clamp(1.0, 4.0) as usize) as f64;
    let height = legend_top + LEGEND_H + 22.0 * (legend_rows - 2.0) + if outside.is_empty() { 0.0 } else { 18.0 };

    // Scales: the whole window; and the images' extent, magnified.
    let biggest = columns.iter().map(|c| c.size).max().unwrap_or(0x20_0000) as f64;
    let bpp = biggest / WINDOW_H;
    let extent = columns
        .iter()
        .flat_map(|c| c.images.iter().map(move |(_, l)| l.span.end.saturating_sub(c.base as u64)))
        .max()
        .unwrap_or(0);
    let detail_span = round_up(extent.max(1));
    let detail_bpp = detail_span as f64 / DETAIL_H;

    let mut s = Svg { text: String::new() };
    let _ = writeln!(s.text, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        s.text,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace">"#,
        w = fmt_f(width),
        h = fmt_f(height)
    );
    s.text.push_str(concat!(
        "<defs>\n",
        "<pattern id=\"headroom\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">",
        "<rect width=\"8\" height=\"8\" fill=\"#eef0f3\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#d5d9e0\" stroke-width=\"3\"/></pattern>\n",
        "<style>\n",
        ".title{font-size:16px;font-weight:bold;fill:#1f2933}\n",
        ".sub{font-size:11px;fill:#52606d}\n",
        ".label{font-size:12px;font-weight:bold;fill:#1f2933}\n",
        ".addr{font-size:10px;fill:#52606d}\n",
        ".small{font-size:9px;fill:#1f2933}\n",
        ".band{font-size:9px;fill:#ffffff}\n",
        ".vert{font-size:11px;fill:#52606d}\n",
        ".frame{fill:none;stroke:#3e4c59;stroke-width:1}\n",
        ".tick{stroke:#9aa5b1;stroke-width:1}\n",
        ".zoom{stroke:#9aa5b1;stroke-width:1;stroke-dasharray:4 3}\n",
        ".entry{stroke:#d62728;stroke-width:1.5}\n",
        "</style>\n",
        "</defs>\n",
    ));
    s.rect((0.0, 0.0, width, height), "#ffffff", "", None);

    // Title and the set facts.
    let title = match images.len() {
        1 => format!("q7 layout: {}", images[0].0),
        k => format!("q7 layout: {k} images in {} window{}", columns.len(), if columns.len() == 1 { "" } else { "s" }),
    };
    s.text(LEFT - 80.0, 26.0, "title", "start", &title);
    let layouts: Vec<Layout> = images.iter().map(|(_, l)| (*l).clone()).collect();
    let mut facts = Vec::new();
    if images.len() > 1 {
        let set = SetFacts::of(&layouts);
        match set.tiled_range {
            Some((a, b)) => facts.push(format!("windows tile {a:#010x}..{b:#010x} ({})", human(b - a as u64))),
            None => facts.push("windows do not tile one range".to_string()),
        }
        match set.constant_entry_offset {
            Some(off) => facts.push(format!("entry at window base + {off:#x} in every image")),
            None => facts.push("entry offset differs between images".to_string()),
        }
    }
    let loads: Vec<usize> = images.iter().map(|(_, l)| l.load_segment_count()).collect();
    if !loads.is_empty() && loads.iter().all(|&c| c == loads[0]) {
        facts.push(format!("{} LOAD segment{} each", loads[0], if loads[0] == 1 { "" } else { "s" }));
    }
    if !facts.is_empty() {
        s.text(LEFT - 80.0, 44.0, "sub", "start", &facts.join("; "));
    }
    s.text(
        LEFT - 80.0,
        60.0,
        "sub",
        "start",
        &format!(
            "top: each window to scale (1 px = {}); bottom: window base .. +{detail_span:#x} magnified x{} (1 px = {})",
            per_pixel(bpp),
            fmt_f((bpp / detail_bpp).round()),
            per_pixel(detail_bpp)
        ),
    );

    // Axes: window offsets on the left of both rows.
    let top_bottom = TOP + WINDOW_H;
    let detail_bottom = detail_top + DETAIL_H;
    for q in 0..=4u64 {
        let y = top_bottom - WINDOW_H * q as f64 / 4.0;
        s.line(LEFT - 6.0, y, LEFT - 1.0, y, "tick");
        s.text(LEFT - 9.0, y + 3.0, "addr", "end", &format!("+{}", human((biggest as u64) * q / 4)));
        let y = detail_bottom - DETAIL_H * q as f64 / 4.0;
        s.line(LEFT - 6.0, y, LEFT - 1.0, y, "tick");
        s.text(LEFT - 9.0, y + 3.0, "addr", "end", &format!("+{:#x}", detail_span * q / 4));
    }

    for (ci, col) in columns.iter().enumerate() {
        let x = LEFT + ci as f64 * (COL_W + COL_GAP);
        let col_h = col.size as f64 / bpp;
        let col_top = top_bottom - col_h;
        // Addresses grow upwards: the window's end at the top, its base at
        // the bottom (and at the bottom of its magnified view).
        s.text(x + COL_W / 2.0, col_top - 20.0, "label", "middle", &col.label);
        s.text(
            x + COL_W / 2.0,
            col_top - 7.0,
            "addr",
            "middle",
            &format!("end {:#010x}", col.base as u64 + col.size as u64),
        );
        s.text(x + COL_W / 2.0, top_bottom + 13.0, "addr", "middle", &format!("base {:#010x}", col.base));

        let sub_w = COL_W / col.images.len() as f64;
        for (ii, (name, l)) in col.images.iter().enumerate() {
            let sx = x + ii as f64 * sub_w;
            // Top row: headroom, then the LOAD segments over it.
            let end = l.span.end;
            let headroom = col.base as u64 + col.size as u64 - end;
            let (hy, hh) = band(col.base, top_bottom, bpp, end, headroom);
            s.rect(
                (sx, hy, sub_w, hh),
                Kind::Headroom.fill(),
                "",
                Some(&format!("{name}: headroom {headroom:#x} bytes ({})", human(headroom))),
            );
            for seg in l.segments.iter().filter(|g| g.kind == "LOAD" && g.memsz > 0) {
                let kind = if seg.filesz == 0 { Kind::Bss } else { Kind::Image };
                let (y, h) = band(col.base, top_bottom, bpp, seg.vaddr as u64, seg.memsz as u64);
                let tip = format!(
                    "{name}: LOAD {} {:#010x}..{:#010x} ({}) {}",
                    seg.flags,
                    seg.vaddr,
                    seg.vaddr as u64 + seg.memsz as u64,
                    human(seg.memsz as u64),
                    seg.sections.join(" ")
                );
                s.rect((sx, y, sub_w, h), kind.fill(), "", Some(&tip));
            }
            // Headroom, written up the column when it has room.
            if hh > 150.0 {
                let cx = fmt_f(sx + sub_w / 2.0 + 4.0);
                let cy = fmt_f(hy + hh / 2.0);
                let pct = headroom as f64 * 100.0 / col.size as f64;
                let _ = writeln!(
                    s.text,
                    r#"<text x="{cx}" y="{cy}" class="vert" text-anchor="middle" transform="rotate(-90 {cx} {cy})">headroom {} ({pct:.2}%)</text>"#,
                    human(headroom)
                );
            }

            // Bottom row: the same window from its base, magnified.
            let dh_end = (col.base as u64 + detail_span).min(col.base as u64 + col.size as u64);
            if dh_end > end {
                let (y, h) = band(col.base, detail_bottom, detail_bpp, end, dh_end - end);
                s.rect((sx, y, sub_w, h), Kind::Headroom.fill(), "", None);
            }
            for sec in l.sections.iter().filter(|c| c.size > 0) {
                let kind = Kind::of_section(sec);
                let (y, h) = band(col.base, detail_bottom, detail_bpp, sec.addr as u64, sec.size as u64);
                let tip = format!(
                    "{name}: {} {:#010x}..{:#010x} ({}), {}",
                    sec.name,
                    sec.addr,
                    sec.addr as u64 + sec.size as u64,
                    human(sec.size as u64),
                    sec.role
                );
                s.rect((sx, y, sub_w, h), kind.fill(), "", Some(&tip));
                if h >= 12.0 && sub_w >= 60.0 {
                    let class = if kind == Kind::Tables { "small" } else { "band" };
                    let label = if sub_w >= 100.0 {
                        format!("{} {}", sec.name, human(sec.size as u64))
                    } else {
                        sec.name.clone()
                    };
                    s.text(sx + 4.0, y + h / 2.0 + 3.0, class, "start", &label);
                }
            }
            // The entry point.
            if let Some(off) = l.entry.window_offset {
                if (off as u64) < detail_span {
                    let y = detail_bottom - off as f64 / detail_bpp;
                    s.line(sx - 3.0, y, sx + sub_w + 3.0, y, "entry");
                    s.text(sx + sub_w - 2.0, y - 3.0, "small", "end", &format!("entry +{off:#x}"));
                }
            }
            s.fitted_text(sx + sub_w / 2.0, names_top + 16.0 + 12.0 * (ii % 2) as f64, "small", sub_w - 4.0, 5.6, name);
        }
        // Frames, and the dashed lines from the window's base region to its
        // magnified view.
        s.rect((x, col_top, COL_W, col_h), "none", r#" class="frame""#, None);
        s.rect((x, detail_top, COL_W, DETAIL_H), "none", r#" class="frame""#, None);
        let zoom_top = top_bottom - (detail_span as f64 / bpp).min(col_h);
        s.line(x, top_bottom + 18.0, x, detail_top, "zoom");
        s.line(x + COL_W, top_bottom + 18.0, x + COL_W, detail_top, "zoom");
        s.line(x - 4.0, zoom_top, x, zoom_top, "zoom");
    }

    // Legend.
    let kinds = [Kind::Image, Kind::Bss, Kind::Headroom, Kind::Code, Kind::ReadOnly, Kind::Writable, Kind::Tables];
    let usable = width - 2.0 * (LEFT - 80.0);
    let per_row = ((usable / LEGEND_CELL) as usize).clamp(1, 4);
    let cell = usable / per_row as f64;
    for (i, kind) in kinds.iter().enumerate() {
        let lx = LEFT - 80.0 + (i % per_row) as f64 * cell;
        let ly = legend_top + 12.0 + (i / per_row) as f64 * 22.0;
        s.rect((lx, ly, 14.0, 14.0), kind.fill(), r##" stroke="#3e4c59" stroke-width="0.5""##, None);
        s.text(lx + 20.0, ly + 11.0, "sub", "start", kind.legend());
    }
    let ly = legend_top + 12.0 + kinds.len().div_ceil(per_row) as f64 * 22.0;
    s.line(LEFT - 80.0, ly + 7.0, LEFT - 66.0, ly + 7.0, "entry");
    s.text(LEFT - 60.0, ly + 11.0, "sub", "start", "entry point (ELF e_entry); bands under 1 px are drawn 1 px tall");
    if !outside.is_empty() {
        s.text(
            LEFT - 80.0,
            ly + 32.0,
            "sub",
            "start",
            &format!("not drawn (in no core window): {}", outside.join(", ")),
        );
    }
    s.text.push_str("</svg>\n");
    out.write_all(s.text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_sizes_read_cleanly_in_hex() {
        assert_eq!(round_up(0x358), 0x380);
        assert_eq!(round_up(0xa880), 0xc000);
        assert_eq!(round_up(0x1000), 0x1000);
        assert_eq!(round_up(3), 16);
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(esc("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(fmt_f(2.0), "2");
        assert_eq!(fmt_f(2.25), "2.2");
    }
}
