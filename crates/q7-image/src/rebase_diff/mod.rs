//! The identical-modulo-rebase proof (docs/FACTS.md, "Identical modulo rebase") over any set of per-core images:
//! the byte positions that differ from the first image (and whether every
//! pair differs at the same ones), the per-byte deltas, every differing
//! 32-bit word checked against the base delta region by region, the string
//! sets per allocated section, and a verdict with the first counter-example.

mod strings;
mod text;

use std::collections::BTreeSet;

use q7_elf::consts::{EHDR_SIZE, PHDR_SIZE, SHDR_SIZE};
use q7_elf::ElfFile;
use serde::Serialize;

use crate::layout::Layout;
use q7_target::par;
use strings::compare_strings;
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
    let layouts: Vec<Layout> = par::map(images, Layout::of);
    let windows: Option<Vec<u32>> = layouts.iter().map(|l| l.window.as_ref().map(|w| w.base)).collect();
    let (bases, base_source) = match windows {
        Some(b) => (b, "core windows (layout report)"),
        None => (images.iter().map(|e| e.header().entry).collect(), "entry points (e_entry)"),
    };
    let first = &images[0];
    let regions = regions_of(first);
    let positions: Vec<Vec<u64>> = par::map(images, |elf| differing_positions(first.data(), elf.data()));
    let others: Vec<usize> = (1..images.len()).collect();
    let compared: Vec<(PairDiff, Vec<u64>)> =
        par::map(&others, |&i| compare(first, &images[i], i, bases[i].wrapping_sub(bases[0]), &regions, &positions[i]));
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
    let strings = compare_strings(images, &positions);

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

/// Positions where `a` and `b` differ: equal 64-byte blocks are skipped by
/// a vectorised compare, differing ones read eight bytes at a time.
fn differing_positions(a: &[u8], b: &[u8]) -> Vec<u64> {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut out = Vec::new();
    let whole = n - n % BLOCK;
    let word = |c: &[u8]| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    for (k, (x, y)) in a[..whole].chunks_exact(BLOCK).zip(b[..whole].chunks_exact(BLOCK)).enumerate() {
        // Inline (vectorised) rather than a memcmp call per block.
        let any = x.chunks_exact(8).zip(y.chunks_exact(8)).fold(0, |acc, (p, q)| acc | (word(p) ^ word(q)));
        if any == 0 {
            continue;
        }
        for (w, (p, q)) in x.chunks_exact(8).zip(y.chunks_exact(8)).enumerate() {
            let mut diff = word(p) ^ word(q);
            while diff != 0 {
                let byte = diff.trailing_zeros() / 8;
                out.push((k * BLOCK + w * 8 + byte as usize) as u64);
                diff &= !(0xff << (byte * 8));
            }
        }
    }
    out.extend((whole..n).filter(|&k| a[k] != b[k]).map(|k| k as u64));
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

#[cfg(test)]
mod tests {
    use super::differing_positions;

    #[test]
    fn differing_positions_match_a_byte_by_byte_compare() {
        let a: Vec<u8> = (0..1000u32).map(|i| (i * 31 % 251) as u8).collect();
        let mut b = a.clone();
        for at in [0, 7, 8, 63, 64, 65, 500, 501, 502, 503, 960, 999] {
            b[at] ^= 0x20;
        }
        b.push(1); // lengths differ: only the common part is compared
        let naive: Vec<u64> = (0..a.len()).filter(|&i| a[i] != b[i]).map(|i| i as u64).collect();
        assert_eq!(differing_positions(&a, &b), naive);
        assert!(differing_positions(&a, &a).is_empty());
    }
}
