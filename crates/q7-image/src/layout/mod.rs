//! The layout report (docs/FACTS.md): header facts, segments with their sections,
//! allocated sections with roles, span, window, headroom, entry offset and the
//! decoded constructor tables; and, over several images, the aperture law
//! checks (constant entry offset, windows that tile without gaps).

use q7_elf::consts::*;
use q7_elf::{ElfFile, Section};
use serde::Serialize;

use q7_target::memmap::{Window, WINDOW_BASE};

mod text;
pub use text::{write_layout, write_set};
mod svg;
pub use svg::write_svg;

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Layout {
    pub elf: HeaderFacts,
    pub segments: Vec<SegmentFacts>,
    pub sections: Vec<SectionFacts>,
    /// Lowest to highest allocated address (`.bss` included).
    pub span: Span,
    pub window: Option<WindowFacts>,
    pub entry: EntryFacts,
    pub ctors: Option<PointerTable>,
    pub dtors: Option<PointerTable>,
    pub init_array: Option<PointerTable>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct HeaderFacts {
    pub class: &'static str,
    pub endian: &'static str,
    pub e_type: &'static str,
    pub machine: &'static str,
    pub e_machine: u16,
    pub flags: u32,
    pub entry: u32,
    pub stripped: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SegmentFacts {
    pub index: usize,
    pub kind: &'static str,
    pub offset: u32,
    pub vaddr: u32,
    pub filesz: u32,
    pub memsz: u32,
    pub flags: String,
    pub sections: Vec<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SectionFacts {
    pub name: String,
    pub kind: &'static str,
    pub addr: u32,
    pub offset: u32,
    pub size: u32,
    pub align: u32,
    pub flags: String,
    pub role: &'static str,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u64,
    pub size: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct WindowFacts {
    pub window: Window,
    pub label: String,
    pub base: u32,
    pub size: u32,
    /// Bytes of the window above the image's highest address.
    pub headroom: u64,
    /// How the window was identified: the LSP's `_memmap_seg_sram0_0_*`
    /// symbols (OBSERVED) or the image's addresses alone (INFERRED).
    pub evidence: &'static str,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct EntryFacts {
    pub address: u32,
    /// `entry - window base`, when the image sits in a window.
    pub window_offset: Option<u32>,
    pub section: Option<String>,
    pub file_offset: Option<u32>,
}

/// A decoded `.ctors`/`.dtors`/`.init_array` table.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PointerTable {
    pub section: String,
    pub addr: u32,
    pub words: Vec<u32>,
    /// `.ctors`/`.dtors` start with 0xffffffff (GNU `__CTOR_LIST__` head).
    pub head_sentinel: bool,
    /// `.ctors`/`.dtors` end with a NULL word.
    pub null_terminated: bool,
    pub pointers: Vec<PointerTarget>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PointerTarget {
    pub value: u32,
    /// `section+offset` the pointer lands in, if any.
    pub target: Option<String>,
}

impl Layout {
    pub fn of(elf: &ElfFile) -> Layout {
        let h = elf.header();
        let alloc = elf.alloc_sections();
        let symbols = elf.symbols().unwrap_or_default();
        let span = span_of(&alloc);
        let window = window_of(span, &symbols);
        let entry_section = alloc.iter().find(|s| s.size > 0 && s.contains_vaddr(h.entry));
        Layout {
            elf: HeaderFacts {
                class: "ELF32",
                endian: h.endian.name(),
                e_type: type_name(h.e_type),
                machine: machine_name(h.machine),
                e_machine: h.machine,
                flags: h.flags,
                entry: h.entry,
                stripped: symbols.is_empty(),
            },
            segments: elf
                .segments()
                .iter()
                .map(|p| SegmentFacts {
                    index: p.index,
                    kind: segment_type_name(p.p_type),
                    offset: p.offset,
                    vaddr: p.vaddr,
                    filesz: p.filesz,
                    memsz: p.memsz,
                    flags: segment_flags(p.flags),
                    sections: alloc.iter().filter(|s| p.holds(s)).map(|s| s.name.to_string()).collect(),
                })
                .collect(),
            sections: alloc
                .iter()
                .map(|s| SectionFacts {
                    name: s.name.to_string(),
                    kind: section_type_name(s.sh_type),
                    addr: s.addr,
                    offset: s.offset,
                    size: s.size,
                    align: s.addralign,
                    flags: section_flags(s.flags),
                    role: role_of(s),
                })
                .collect(),
            span,
            entry: EntryFacts {
                address: h.entry,
                window_offset: window.as_ref().and_then(|w| h.entry.checked_sub(w.base)),
                section: entry_section.map(|s| s.name.to_string()),
                file_offset: elf.vaddr_to_offset(h.entry),
            },
            window,
            ctors: pointer_table(elf, ".ctors", true),
            dtors: pointer_table(elf, ".dtors", true),
            init_array: pointer_table(elf, ".init_array", false),
        }
    }

    pub fn load_segment_count(&self) -> usize {
        self.segments.iter().filter(|s| s.kind == "LOAD").count()
    }
}

fn span_of(alloc: &[&Section]) -> Span {
    let live: Vec<_> = alloc.iter().filter(|s| s.size > 0).collect();
    let start = live.iter().map(|s| s.addr).min().unwrap_or(0);
    let end = live.iter().map(|s| s.end_vaddr()).max().unwrap_or(0);
    Span { start, end, size: end - start as u64 }
}

fn window_of(span: Span, symbols: &[q7_elf::Symbol]) -> Option<WindowFacts> {
    let sym = |name: &str| symbols.iter().find(|s| s.name == name && s.is_defined()).map(|s| s.value);
    let from_symbols = match (sym("_memmap_seg_sram0_0_start"), sym("_memmap_seg_sram0_0_end")) {
        (Some(start), Some(end)) => Window::all().find(|w| w.base() == start && w.end() == end as u64),
        _ => None,
    };
    let (window, evidence) = match from_symbols {
        Some(w) => (w, "OBSERVED: LSP symbols _memmap_seg_sram0_0_start/end"),
        None => {
            let w = Window::core_containing(span.start, span.end).or_else(|| {
                let single = Window::Single;
                (span.start >= WINDOW_BASE && span.end <= single.end()).then_some(single)
            })?;
            (w, "INFERRED: the image's addresses lie inside this window")
        }
    };
    if span.start < window.base() || span.end > window.end() {
        return None;
    }
    Some(WindowFacts {
        window,
        label: window.label(),
        base: window.base(),
        size: window.size(),
        headroom: window.end() - span.end,
        evidence,
    })
}

fn pointer_table(elf: &ElfFile, name: &str, sentinel_style: bool) -> Option<PointerTable> {
    let s = elf.section_by_name(name)?;
    let e = elf.endian();
    let words: Vec<u32> = s.data().chunks_exact(4).map(|c| e.u32([c[0], c[1], c[2], c[3]])).collect();
    let head_sentinel = sentinel_style && words.first() == Some(&0xffff_ffff);
    let null_terminated = sentinel_style && words.last() == Some(&0);
    let body_start = usize::from(head_sentinel);
    let body_end = words.len() - usize::from(null_terminated && words.len() > body_start);
    let pointers = words[body_start..body_end]
        .iter()
        .map(|&value| PointerTarget { value, target: describe_address(elf, value) })
        .collect();
    Some(PointerTable { section: name.to_string(), addr: s.addr, words, head_sentinel, null_terminated, pointers })
}

/// `section+0xoff` for an address inside an allocated section.
pub fn describe_address(elf: &ElfFile, va: u32) -> Option<String> {
    elf.sections().iter().find(|s| s.size > 0 && s.contains_vaddr(va)).map(|s| format!("{}+{:#x}", s.name, va - s.addr))
}

fn role_of(s: &Section) -> &'static str {
    let name: &str = &s.name;
    match name {
        ".text" => "code",
        ".clib.rodata" => "C library read-only data",
        ".rtos.rodata" => "RTOS read-only data",
        ".clib.data" => "C library writable data",
        ".eh_frame" => "unwind tables",
        ".ctors" => "constructor table (sentinel, pointers, NULL)",
        ".dtors" => "destructor table (sentinel, pointers, NULL)",
        ".init_array" => "constructor pointer array",
        ".fini_array" => "destructor pointer array",
        ".rodata" => "read-only data, pointer tables, _bss_table",
        ".clib.text" => "C library code",
        ".rtos.text" => "RTOS code",
        ".data" => "writable data",
        ".bss" => "zero-initialised data",
        ".note.gnu.build-id" => "build id",
        _ if s.is_nobits() => "zero-initialised data",
        _ if s.is_exec() => "code",
        _ if s.is_write() => "writable data",
        _ => "read-only data",
    }
}

/// Facts about a set of images taken together (docs/FACTS.md, "Aperture law and tiling").
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SetFacts {
    pub images: usize,
    /// The common `entry - window base`, when every image has the same one.
    pub constant_entry_offset: Option<u32>,
    pub entry_offsets: Vec<Option<u32>>,
    /// The windows sorted by base, and whether they tile one range.
    pub windows: Vec<String>,
    pub tiled_range: Option<(u32, u64)>,
    pub gaps: Vec<(u64, u64)>,
    pub overlaps: Vec<(String, String)>,
}

impl SetFacts {
    pub fn of(layouts: &[Layout]) -> SetFacts {
        let entry_offsets: Vec<Option<u32>> = layouts.iter().map(|l| l.entry.window_offset).collect();
        let constant_entry_offset = match entry_offsets.first() {
            Some(Some(first)) if entry_offsets.iter().all(|o| *o == Some(*first)) => Some(*first),
            _ => None,
        };
        let mut windows: Vec<&WindowFacts> = layouts.iter().filter_map(|l| l.window.as_ref()).collect();
        windows.sort_by_key(|w| (w.base, w.size));
        let mut gaps = Vec::new();
        let mut overlaps = Vec::new();
        for pair in windows.windows(2) {
            let (a_end, b) = (pair[0].window.end(), pair[1]);
            if (b.base as u64) > a_end {
                gaps.push((a_end, b.base as u64));
            } else if (b.base as u64) < a_end {
                overlaps.push((pair[0].label.clone(), b.label.clone()));
            }
        }
        let complete = windows.len() == layouts.len() && !windows.is_empty();
        let tiled_range = (complete && gaps.is_empty() && overlaps.is_empty())
            .then(|| (windows[0].base, windows.last().map_or(0, |w| w.window.end())));
        SetFacts {
            images: layouts.len(),
            constant_entry_offset,
            entry_offsets,
            windows: windows.iter().map(|w| w.label.clone()).collect(),
            tiled_range,
            gaps,
            overlaps,
        }
    }
}
