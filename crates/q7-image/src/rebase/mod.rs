//! The identical-modulo-rebase proof (docs/FACTS.md, "Identical modulo rebase") over any set of per-core images:
//! the byte positions that differ from the first image (and whether every
//! pair differs at the same ones), the per-byte deltas, every differing
//! 32-bit word checked against the base delta region by region, the string
//! sets per allocated section, and a verdict with the first counter-example.

mod text;

use std::collections::BTreeSet;

use q7_elf::consts::{EHDR_SIZE, PHDR_SIZE, SHDR_SIZE};
use q7_elf::ElfFile;
use serde::Serialize;

use crate::layout::Layout;
use crate::strings::{address_words, AddressWords, StringsReport};
pub use text::write_rebase;

/// Distinct word deltas listed per region at most.
const MAX_LISTED_DELTAS: usize = 8;

#[derive(Clone, Debug, Serialize)]
pub struct RebaseReport {
    pub images: Vec<ImageBase>,
    /// How bases were found: the core windows of the layout report, or the
    /// entry points.
    pub base_source: &'static str,
    pub pairs: Vec<PairDiff>,
    /// Every pair differs at the same byte positions (the check of docs/FACTS.md).
    pub positions_equal: bool,
    /// Every pair differs in the same 32-bit words: the check that still
    /// holds when adding a larger delta carries into the next byte.
    pub word_positions_equal: bool,
    pub strings: Vec<StringsComparison>,
    pub verdict: Verdict,
}

#[derive(Clone, Debug, Serialize)]
pub struct ImageBase {
    pub base: u32,
    pub window: Option<String>,
    pub size: u64,
}

/// Image `image` compared with image 0.
#[derive(Clone, Debug, Serialize)]
pub struct PairDiff {
    pub image: usize,
    /// Its base minus the first image's (mod 2^32).
    pub base_delta: u32,
    pub differing_bytes: usize,
    pub first_differing: Option<u64>,
    /// Distinct `(byte − first byte) mod 256` over the differing bytes.
    pub byte_deltas: Vec<u8>,
    pub same_positions_as_first_pair: bool,
    /// Words (by region alignment) holding a differing byte.
    pub differing_words: usize,
    pub same_words_as_first_pair: bool,
    pub regions: Vec<RegionDiff>,
    pub counter_example: Option<CounterExample>,
}

/// Word-level statistics of one region of the file.
#[derive(Clone, Debug, Serialize)]
pub struct RegionDiff {
    pub name: String,
    /// Allocated sections are word-aligned by address, the rest by offset.
    pub addr: Option<u32>,
    pub offset: u64,
    pub size: u64,
    pub differing_words: usize,
    /// Distinct word deltas (at most eight listed).
    pub word_deltas: Vec<u32>,
    pub non_rebase_words: usize,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CounterExample {
    pub image: usize,
    pub what: String,
    pub region: Option<String>,
    pub file_offset: Option<u64>,
    pub region_offset: Option<u64>,
    /// The word's address in the first image and in this one.
    pub address: Option<u32>,
    pub address_here: Option<u32>,
    pub first_value: Option<u32>,
    pub value: Option<u32>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StringsComparison {
    pub section: String,
    pub counts: Vec<usize>,
    pub identical: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub identical_modulo_rebase: bool,
    pub counter_example: Option<CounterExample>,
}

/// A byte range of the first image's file with a name.
struct Region {
    name: String,
    start: u64,
    end: u64,
    addr: Option<u32>,
}

pub fn rebase_diff(images: &[ElfFile]) -> RebaseReport {
    let layouts: Vec<Layout> = images.iter().map(Layout::of).collect();
    let windows: Option<Vec<u32>> = layouts.iter().map(|l| l.window.as_ref().map(|w| w.base)).collect();
    let (bases, base_source) = match windows {
        Some(b) => (b, "core windows (layout report)"),
        None => (images.iter().map(|e| e.header().entry).collect(), "entry points (e_entry)"),
    };
    let first = &images[0];
    let regions = regions_of(first);
    let positions: Vec<Vec<u64>> = images.iter().map(|elf| differing_positions(first.data(), elf.data())).collect();
    let compared: Vec<(PairDiff, Vec<u64>)> = images
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, elf)| compare(first, elf, i, bases[i].wrapping_sub(bases[0]), &regions, &positions[i]))
        .collect();
    let pairs: Vec<PairDiff> = compared
        .iter()
        .map(|(pair, words)| {
            let mut pair = pair.clone();
            pair.same_positions_as_first_pair = positions[pair.image] == positions[1];
            pair.same_words_as_first_pair = *words == compared[0].1;
            pair
        })
        .collect();
    let positions_equal = pairs.iter().all(|p| p.same_positions_as_first_pair);
    let word_positions_equal = pairs.iter().all(|p| p.same_words_as_first_pair);
    let strings = compare_strings(images);

    let counter_example = pairs.iter().find_map(|p| p.counter_example.clone()).or_else(|| {
        strings.iter().find(|s| !s.identical).map(|s| CounterExample {
            image: s.counts.iter().position(|&c| c != s.counts[0]).unwrap_or(1),
            what: format!("the printable strings of {} differ", s.section),
            region: Some(s.section.clone()),
            file_offset: None,
            region_offset: None,
            address: None,
            address_here: None,
            first_value: None,
            value: None,
        })
    });
    RebaseReport {
        images: bases
            .iter()
            .zip(&layouts)
            .zip(images)
            .map(|((&base, l), e)| ImageBase {
                base,
                window: l.window.as_ref().map(|w| w.label.clone()),
                size: e.data().len() as u64,
            })
            .collect(),
        base_source,
        pairs,
        positions_equal,
        word_positions_equal,
        strings,
        verdict: Verdict { identical_modulo_rebase: counter_example.is_none(), counter_example },
    }
}

fn regions_of(elf: &ElfFile) -> Vec<Region> {
    let h = elf.header();
    let mut regions = vec![Region { name: "ELF header".into(), start: 0, end: EHDR_SIZE as u64, addr: None }];
    if h.phnum > 0 {
        let start = h.phoff as u64;
        regions.push(Region {
            name: "program headers".into(),
            start,
            end: start + h.phnum as u64 * PHDR_SIZE as u64,
            addr: None,
        });
    }
    if h.shnum > 0 {
        let start = h.shoff as u64;
        regions.push(Region {
            name: "section headers".into(),
            start,
            end: start + h.shnum as u64 * SHDR_SIZE as u64,
            addr: None,
        });
    }
    for s in elf.sections().iter().filter(|s| s.has_file_bytes()) {
        regions.push(Region {
            name: s.name.to_string(),
            start: s.offset as u64,
            end: s.offset as u64 + s.size as u64,
            addr: s.is_alloc().then_some(s.addr),
        });
    }
    regions.sort_by_key(|r| (r.start, r.end));
    regions
}

fn differing_positions(a: &[u8], b: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    let n = a.len().min(b.len());
    let (ca, cb) = (a[..n].chunks_exact(8), b[..n].chunks_exact(8));
    let tail = n - n % 8;
    for (i, (x, y)) in ca.zip(cb).enumerate() {
        if x != y {
            out.extend((0..8).filter(|k| x[*k] != y[*k]).map(|k| (i * 8 + k) as u64));
        }
    }
    out.extend((tail..n).filter(|&k| a[k] != b[k]).map(|k| k as u64));
    out
}

fn read_word(data: &[u8], at: u64, little: bool) -> u32 {
    let mut b = [0u8; 4];
    for (k, slot) in b.iter_mut().enumerate() {
        *slot = data.get(at as usize + k).copied().unwrap_or(0);
    }
    if little {
        u32::from_le_bytes(b)
    } else {
        u32::from_be_bytes(b)
    }
}

/// One pair's report and the file offsets of its differing words.
fn compare(
    first: &ElfFile,
    other: &ElfFile,
    image: usize,
    delta: u32,
    regions: &[Region],
    positions: &[u64],
) -> (PairDiff, Vec<u64>) {
    let (a, b) = (first.data(), other.data());
    let byte_deltas: BTreeSet<u8> = positions.iter().map(|&p| b[p as usize].wrapping_sub(a[p as usize])).collect();
    let little = first.endian() == q7_elf::Endian::Little;
    let mut pair = PairDiff {
        image,
        base_delta: delta,
        differing_bytes: positions.len(),
        first_differing: positions.first().copied(),
        byte_deltas: byte_deltas.into_iter().collect(),
        same_positions_as_first_pair: true,
        differing_words: 0,
        same_words_as_first_pair: true,
        regions: Vec::new(),
        counter_example: None,
    };
    if a.len() != b.len() {
        pair.counter_example = Some(CounterExample {
            image,
            what: format!("file sizes differ: {:#x} and {:#x} bytes", a.len(), b.len()),
            region: None,
            file_offset: Some(a.len().min(b.len()) as u64),
            region_offset: None,
            address: None,
            address_here: None,
            first_value: None,
            value: None,
        });
    }
    let mut stats: Vec<RegionDiff> = regions
        .iter()
        .map(|r| RegionDiff {
            name: r.name.clone(),
            addr: r.addr,
            offset: r.start,
            size: r.end - r.start,
            differing_words: 0,
            word_deltas: Vec::new(),
            non_rebase_words: 0,
        })
        .collect();
    let mut outside = RegionDiff {
        name: "(between regions)".into(),
        addr: None,
        offset: 0,
        size: 0,
        differing_words: 0,
        word_deltas: Vec::new(),
        non_rebase_words: 0,
    };
    let mut words = Vec::new();
    for &p in positions {
        let index = regions.iter().rposition(|r| r.start <= p && p < r.end);
        let region = index.map(|i| &regions[i]);
        let word_start = match region.and_then(|r| r.addr.map(|addr| (r, addr))) {
            Some((r, addr)) => p - (addr as u64 + (p - r.start)) % 4,
            None => p & !3,
        };
        if words.last() == Some(&word_start) {
            continue;
        }
        words.push(word_start);
        let (x, y) = (read_word(a, word_start, little), read_word(b, word_start, little));
        let d = y.wrapping_sub(x);
        let stat = match index {
            Some(i) => &mut stats[i],
            None => &mut outside,
        };
        stat.differing_words += 1;
        if !stat.word_deltas.contains(&d) && stat.word_deltas.len() < MAX_LISTED_DELTAS {
            stat.word_deltas.push(d);
        }
        if d != delta {
            stat.non_rebase_words += 1;
            if pair.counter_example.is_none() {
                let region_offset = region.map(|r| word_start.saturating_sub(r.start));
                let address = region.and_then(|r| r.addr).zip(region_offset).map(|(a, o)| a + o as u32);
                pair.counter_example = Some(CounterExample {
                    image,
                    what: format!("word delta {d:#x} is not the base delta {delta:#x}"),
                    region: Some(region.map_or("(between regions)".into(), |r| r.name.clone())),
                    file_offset: Some(word_start),
                    region_offset,
                    address,
                    address_here: address.map(|a| a.wrapping_add(delta)),
                    first_value: Some(x),
                    value: Some(y),
                });
            }
        }
    }
    for s in &mut stats {
        s.word_deltas.sort_unstable();
    }
    // Allocated sections always; other regions when something differs.
    pair.regions = stats.into_iter().filter(|s| s.addr.is_some() || s.differing_words > 0).collect();
    if outside.differing_words > 0 {
        pair.regions.push(outside);
    }
    pair.differing_words = words.len();
    (pair, words)
}

/// Strings per allocated section, compared by section offset and text. A
/// word that is an address in any image is masked in all of them, so a
/// constant that happens to look like an address in one copy does not make
/// the sets differ.
fn compare_strings(images: &[ElfFile]) -> Vec<StringsComparison> {
    let mut union = AddressWords::new();
    for e in images {
        for (section, words) in address_words(e) {
            union.entry(section).or_default().extend(words);
        }
    }
    let reports: Vec<Option<StringsReport>> =
        images.iter().map(|e| StringsReport::with_mask(e, crate::strings::DEFAULT_MIN, None, &union).ok()).collect();
    let Some(Some(first)) = reports.first() else { return Vec::new() };
    first
        .sections
        .iter()
        .map(|s0| {
            let sets: Vec<Option<Vec<(u32, &str)>>> = reports.iter().map(|r| keyed(r.as_ref(), &s0.name)).collect();
            StringsComparison {
                section: s0.name.clone(),
                counts: sets.iter().map(|s| s.as_ref().map_or(0, Vec::len)).collect(),
                identical: sets.iter().all(|s| *s == sets[0]),
            }
        })
        .collect()
}

/// A section's strings as (offset in section, text).
fn keyed<'a>(report: Option<&'a StringsReport>, section: &str) -> Option<Vec<(u32, &'a str)>> {
    let s = report?.sections.iter().find(|s| s.name == section)?;
    Some(s.strings.iter().map(|x| (x.addr - s.addr, x.text.as_str())).collect())
}
