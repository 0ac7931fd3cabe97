//! The string-set step of the proof, with the meaning of
//! [`crate::strings`] (printable runs of at least `DEFAULT_MIN` bytes, an
//! aligned word that is an address in *any* image masked in all of them,
//! compared per allocated section by section offset and text), computed as
//! byte ranges over the images' own bytes: each image's address words once,
//! in parallel across images, and no text copied. The mask is the same in
//! every image, so a section whose bytes equal the first image's outside
//! masked words has the first image's strings; only other sections have
//! their own runs found.

use std::collections::BTreeMap;

use q7_elf::{ElfFile, Section};

use super::StringsComparison;
use crate::strings::DEFAULT_MIN;
use q7_target::par;

/// An allocated section with file bytes, as the strings report sees it.
struct View<'a> {
    name: &'a str,
    /// File offset of the data.
    offset: usize,
    data: &'a [u8],
    /// Offset of the first whole word aligned by virtual address.
    first_word: usize,
}

fn views<'a>(elf: &'a ElfFile) -> Vec<View<'a>> {
    elf.alloc_sections()
        .into_iter()
        .filter(|s: &&Section| s.has_file_bytes())
        .map(|s| View {
            name: s.name.as_ref(),
            offset: s.offset as usize,
            data: s.data(),
            first_word: (4 - (s.addr % 4) as usize) % 4,
        })
        .collect()
}

/// Per section name, the offsets (ascending) of the aligned words whose
/// value is an address inside `elf`'s allocated sections.
fn address_words<'a>(elf: &ElfFile, views: &[View<'a>]) -> BTreeMap<&'a str, Vec<u32>> {
    // (start, length) of each allocated range, the length kept inside 2^32
    // so one wrapping subtraction tests `start <= word < start + length`.
    let ranges: Vec<(u32, u64)> = elf
        .alloc_sections()
        .iter()
        .filter(|s| s.size > 0)
        .map(|s| (s.addr, (s.size as u64).min((1u64 << 32) - s.addr as u64)))
        .collect();
    let e = elf.endian();
    let mut out: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for v in views {
        let words = out.entry(v.name).or_default();
        let tail = v.data.get(v.first_word..).unwrap_or_default();
        for (k, d) in tail.chunks_exact(4).enumerate() {
            let word = e.u32([d[0], d[1], d[2], d[3]]);
            // Branch-free over the few ranges: code words are random.
            let inside = ranges.iter().fold(false, |acc, &(a, len)| acc | ((word.wrapping_sub(a) as u64) < len));
            if inside {
                words.push((v.first_word + 4 * k) as u32);
            }
        }
    }
    // Sections sharing a name each added theirs in order; merge them.
    for words in out.values_mut() {
        words.sort_unstable();
        words.dedup();
    }
    out
}

/// Whether `at` starts a whole aligned word of `v`.
fn is_word(v: &View, at: usize) -> bool {
    at >= v.first_word
        && (at - v.first_word).is_multiple_of(4)
        && v.data.len().checked_sub(at).is_some_and(|room| room >= 4)
}

/// The string runs `[start, end)` of one section with the masked words.
fn runs(v: &View, masked: &[u32]) -> Vec<(u32, u32)> {
    let mut text: Vec<bool> = v.data.iter().map(|&b| (0x20..=0x7e).contains(&b) || b == b'\t').collect();
    for at in masked.iter().map(|&at| at as usize).filter(|&at| is_word(v, at)) {
        text[at..at + 4].fill(false);
    }
    let mut out = Vec::new();
    let mut start = None;
    for (i, &t) in text.iter().chain(std::iter::once(&false)).enumerate() {
        match (start, t) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                if i - s >= DEFAULT_MIN {
                    out.push((s as u32, i as u32));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// A section and its string runs.
type Runs<'v, 'a> = (&'v View<'a>, Vec<(u32, u32)>);

/// The section named `name` in one image's list (the first, as a lookup by
/// name finds it).
fn section<'r, 'v, 'a>(image: &'r [Runs<'v, 'a>], name: &str) -> Option<&'r Runs<'v, 'a>> {
    image.iter().find(|(v, _)| v.name == name)
}

/// Same runs with the same bytes.
fn same_strings(a: &Runs, b: &Runs) -> bool {
    a.1 == b.1 && a.1.iter().all(|&(s, e)| a.0.data[s as usize..e as usize] == b.0.data[s as usize..e as usize])
}

/// Whether `other` holds the bytes of `reference` except inside masked
/// words (where neither can have string bytes), and so the same strings.
/// `file_diff`: the ascending file offsets where the two images differ.
fn same_outside_mask(reference: &View, other: &View, masked: &[u32], file_diff: &[u64]) -> bool {
    if reference.data.len() != other.data.len()
        || reference.first_word != other.first_word
        || reference.offset != other.offset
    {
        return false;
    }
    let (start, end) = (reference.offset as u64, (reference.offset + reference.data.len()) as u64);
    let inside = &file_diff[file_diff.partition_point(|&p| p < start)..file_diff.partition_point(|&p| p < end)];
    // Both ascend: walk the mask alongside the differing bytes.
    let mut mask = masked.iter().peekable();
    inside.iter().all(|&p| {
        let p = (p - start) as usize;
        let word = p.wrapping_sub(p.wrapping_sub(reference.first_word) % 4);
        while mask.next_if(|&&m| (m as usize) < word).is_some() {}
        is_word(reference, word) && mask.peek().is_some_and(|&&m| m as usize == word)
    })
}

/// The union of two ascending lists without repeats.
fn merge(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let next = a[i].min(b[j]);
        i += usize::from(a[i] == next);
        j += usize::from(b[j] == next);
        out.push(next);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// `file_diffs[i]`: where image `i` differs from the first, ascending.
pub(super) fn compare_strings(images: &[ElfFile], file_diffs: &[Vec<u64>]) -> Vec<StringsComparison> {
    let views: Vec<Vec<View>> = par::map(images, |e| views(e));
    let pairs: Vec<(&ElfFile, &Vec<View>)> = images.iter().zip(&views).collect();
    let own = par::map(&pairs, |(elf, v)| address_words(elf, v));
    let mut union: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (name, words) in own.into_iter().flatten() {
        let merged = merge(union.get(name).map_or(&[][..], Vec::as_slice), &words);
        union.insert(name, merged);
    }
    let mask = |name: &str| union.get(name).map_or(&[][..], Vec::as_slice);
    let Some(reference) = views.first() else { return Vec::new() };
    let first: Vec<Runs> = reference.iter().map(|s| (s, runs(s, mask(s.name)))).collect();
    // Per other image and section: `None` when it is the first image's.
    let others: Vec<(&Vec<View>, &Vec<u64>)> = views[1..].iter().zip(&file_diffs[1..]).collect();
    let own: Vec<Vec<Option<Runs>>> = par::map(&others, |(image, diff)| {
        image
            .iter()
            .map(|s| {
                let same = section(&first, s.name).is_some_and(|r| same_outside_mask(r.0, s, mask(s.name), diff));
                (!same).then(|| (s, runs(s, mask(s.name))))
            })
            .collect()
    });
    let strings: Vec<Vec<Runs>> = std::iter::once(first.clone())
        .chain(views[1..].iter().zip(own).map(|(image, own)| {
            image
                .iter()
                .zip(own)
                .map(|(s, r)| {
                    r.unwrap_or_else(|| (s, section(&first, s.name).map(|r| r.1.clone()).unwrap_or_default()))
                })
                .collect()
        }))
        .collect();
    first
        .iter()
        .map(|(v0, _)| {
            let found: Vec<Option<&Runs>> = strings.iter().map(|s| section(s, v0.name)).collect();
            let reference = found[0];
            StringsComparison {
                section: v0.name.to_string(),
                counts: found.iter().map(|f| f.map_or(0, |(_, r)| r.len())).collect(),
                identical: found.iter().all(|f| match (f, reference) {
                    (Some(a), Some(b)) => same_strings(a, b),
                    (a, b) => a.is_none() && b.is_none(),
                }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings::{address_words, AddressWords, StringsReport};

    /// The comparison as the strings report states it: whole reports with
    /// the union of every image's address words as the mask.
    fn by_reports(images: &[ElfFile]) -> Vec<(String, Vec<usize>, bool)> {
        let mut union = AddressWords::new();
        for e in images {
            for (section, words) in address_words(e) {
                union.entry(section).or_default().extend(words);
            }
        }
        let reports: Vec<StringsReport> =
            images.iter().map(|e| StringsReport::with_mask(e, DEFAULT_MIN, None, &union).unwrap()).collect();
        let keyed = |r: &StringsReport, name: &str| {
            r.sections
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.strings.iter().map(|x| (x.addr - s.addr, x.text.clone())).collect::<Vec<(u32, String)>>())
        };
        reports[0]
            .sections
            .iter()
            .map(|s0| {
                let sets: Vec<_> = reports.iter().map(|r| keyed(r, &s0.name)).collect();
                let counts = sets.iter().map(|s| s.as_ref().map_or(0, Vec::len)).collect();
                (s0.name.clone(), counts, sets.iter().all(|s| *s == sets[0]))
            })
            .collect()
    }

    fn fast(images: &[ElfFile]) -> Vec<(String, Vec<usize>, bool)> {
        let diffs: Vec<Vec<u64>> =
            images.iter().map(|e| super::super::differing_positions(images[0].data(), e.data())).collect();
        compare_strings(images, &diffs).into_iter().map(|c| (c.section, c.counts, c.identical)).collect()
    }

    #[test]
    fn merge_is_a_sorted_union() {
        assert_eq!(merge(&[1, 4, 8], &[0, 4, 9, 12]), [0, 1, 4, 8, 9, 12]);
        assert_eq!(merge(&[], &[3]), [3]);
        assert_eq!(merge(&[3], &[]), [3]);
    }

    #[test]
    fn agrees_with_the_strings_report_on_the_fixtures_and_on_edits() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/bin");
        for suffix in [".so", ".stripped.so"] {
            let mut bytes: Vec<Vec<u8>> =
                (0..8).map(|i| std::fs::read(dir.join(format!("prog_cpu{i}{suffix}"))).unwrap()).collect();
            let elfs: Vec<ElfFile> = bytes.iter().map(|b| ElfFile::parse(b).unwrap()).collect();
            let expected = by_reports(&elfs);
            assert!(expected.iter().all(|(_, _, same)| *same));
            assert_eq!(fast(&elfs), expected, "{suffix}");
            // Edits inside each allocated section of image 5: a changed
            // character, a string cut in two, a new string.
            let sections: Vec<(usize, usize)> = elfs[0]
                .alloc_sections()
                .iter()
                .filter(|s| s.has_file_bytes())
                .map(|s| (s.offset as usize, s.size as usize))
                .collect();
            drop(elfs);
            for (k, (off, size)) in sections.into_iter().enumerate() {
                let at = off + size / 2;
                let patch: &[u8] = [b"Q".as_slice(), b"\0", b"edit"][k % 3];
                let end = (at + patch.len()).min(off + size);
                bytes[5][at..end].copy_from_slice(&patch[..end - at]);
            }
            let elfs: Vec<ElfFile> = bytes.iter().map(|b| ElfFile::parse(b).unwrap()).collect();
            let edited = by_reports(&elfs);
            assert!(edited.iter().any(|(_, _, same)| !same), "{edited:?}");
            assert_eq!(fast(&elfs), edited, "{suffix} edited");
        }
    }
}
