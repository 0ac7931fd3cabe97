//! Printable strings per allocated section, made comparable across
//! rebased images (docs/FACTS.md, "Identical modulo rebase").
//!
//! A string is a run of at least `min` printable ASCII bytes (0x20..=0x7e
//! and tab), as `strings` finds them. **Address filter:** a byte that lies in
//! a 4-byte-aligned word (aligned by virtual address) whose little-endian
//! value is an address inside one of the image's allocated sections is not a
//! string byte. Such words are pointers; their low bytes are often
//! printable (`0x84206c61` reads "al "), and they change with the link base,
//! so without the filter two rebased copies of one program would show
//! different "strings" where only pointers differ. (A constant that merely
//! looks like an address in one copy is masked there but not in the others;
//! `rebase-diff` therefore masks, in every image, the words that are
//! addresses in any of them: [`StringsReport::with_mask`].)

mod text;

use std::collections::{BTreeMap, BTreeSet};

use q7_elf::{ElfFile, Error, Result, Section};
use serde::Serialize;

pub use text::write_strings;

pub const DEFAULT_MIN: usize = 4;

#[derive(Clone, Debug, Serialize)]
pub struct StringsReport {
    pub min_len: usize,
    pub sections: Vec<SectionStrings>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SectionStrings {
    pub name: String,
    pub addr: u32,
    pub offset: u32,
    pub size: u32,
    /// Aligned words skipped as in-image addresses.
    pub address_words: usize,
    pub strings: Vec<FoundString>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct FoundString {
    pub addr: u32,
    pub file_offset: u32,
    pub text: String,
}

impl StringsReport {
    /// Strings of every allocated section with file bytes, or of `only`.
    pub fn of(elf: &ElfFile, min_len: usize, only: Option<&str>) -> Result<StringsReport> {
        Self::with_mask(elf, min_len, only, &AddressWords::new())
    }

    /// As [`StringsReport::of`], also treating the aligned words listed in
    /// `also` (section name → offsets in the section) as pointers.
    pub fn with_mask(elf: &ElfFile, min_len: usize, only: Option<&str>, also: &AddressWords) -> Result<StringsReport> {
        let min_len = min_len.max(1);
        let alloc = elf.alloc_sections();
        if let Some(name) = only {
            match elf.section_by_name(name) {
                None => return Err(Error::Malformed(format!("no section named {name}"))),
                Some(s) if !s.is_alloc() => {
                    return Err(Error::Malformed(format!("section {name} is not allocated (no addresses)")))
                }
                Some(_) => {}
            }
        }
        let is_address = address_test(elf);
        let sections = alloc
            .iter()
            .filter(|s| s.has_file_bytes() && only.is_none_or(|n| s.name == n))
            .map(|s| section_strings(s, elf, min_len, &is_address, also.get(s.name.as_ref())))
            .collect();
        Ok(StringsReport { min_len, sections })
    }
}

/// Whether a value is an address inside one of `elf`'s allocated sections.
fn address_test(elf: &ElfFile) -> impl Fn(u32) -> bool {
    let ranges: Vec<(u32, u64)> =
        elf.alloc_sections().iter().filter(|s| s.size > 0).map(|s| (s.addr, s.end_vaddr())).collect();
    move |v: u32| ranges.iter().any(|&(a, e)| v >= a && (v as u64) < e)
}

/// Offsets of whole aligned words in a section's data, by virtual address.
fn aligned_words(s: &Section) -> impl Iterator<Item = usize> {
    let first = (4 - (s.addr % 4) as usize) % 4;
    let len = s.data().len();
    (first..len.saturating_sub(3)).step_by(4)
}

/// Offsets of aligned words, per section name.
pub type AddressWords = BTreeMap<String, BTreeSet<u32>>;

/// Per allocated section, the offsets of the aligned words whose value is an
/// address inside the image.
pub fn address_words(elf: &ElfFile) -> AddressWords {
    let is_address = address_test(elf);
    let e = elf.endian();
    elf.alloc_sections()
        .iter()
        .filter(|s| s.has_file_bytes())
        .map(|s| {
            let d = s.data();
            let words = aligned_words(s)
                .filter(|&at| is_address(e.u32([d[at], d[at + 1], d[at + 2], d[at + 3]])))
                .map(|at| at as u32)
                .collect();
            (s.name.to_string(), words)
        })
        .collect()
}

fn section_strings(
    s: &Section,
    elf: &ElfFile,
    min_len: usize,
    is_address: &dyn Fn(u32) -> bool,
    extra: Option<&BTreeSet<u32>>,
) -> SectionStrings {
    let data = s.data();
    let e = elf.endian();
    let mut printable: Vec<bool> = data.iter().map(|&b| (0x20..=0x7e).contains(&b) || b == b'\t').collect();
    let mut address_words = 0;
    // Both walks go up through the section, so the extra offsets merge in.
    let mut extra = extra.into_iter().flatten().copied().peekable();
    for at in aligned_words(s) {
        let v = e.u32([data[at], data[at + 1], data[at + 2], data[at + 3]]);
        while extra.next_if(|&x| x < at as u32).is_some() {}
        if is_address(v) || extra.next_if_eq(&(at as u32)).is_some() {
            address_words += 1;
            printable[at..at + 4].iter_mut().for_each(|p| *p = false);
        }
    }
    let mut strings = Vec::new();
    let mut start = None;
    for i in 0..=data.len() {
        match (start, printable.get(i).copied().unwrap_or(false)) {
            (None, true) => start = Some(i),
            (Some(st), false) => {
                if i - st >= min_len {
                    strings.push(FoundString {
                        addr: s.addr + st as u32,
                        file_offset: s.offset + st as u32,
                        text: String::from_utf8_lossy(&data[st..i]).into_owned(),
                    });
                }
                start = None;
            }
            _ => {}
        }
    }
    SectionStrings { name: s.name.to_string(), addr: s.addr, offset: s.offset, size: s.size, address_words, strings }
}
