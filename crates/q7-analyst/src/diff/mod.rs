//! Cross-generation diff (docs/FACTS.md, "Cross-generation diff"): two images of the same component compared. Hash
//! equality first (byte-identical files need no further reading); otherwise
//! the ELF headers, then every allocated section matched by name: identical,
//! moved, resized, or changed in localized ranges of bytes, each range with
//! its addresses and file offsets in both files.

mod text;

use q7_elf::{ElfFile, Section};
use serde::Serialize;

pub use text::write_report;

use crate::evidence::Evidence;

/// Equal bytes shorter than this between two differing runs are folded into
/// one range, so a changed 32-bit word reads as one change, not four.
pub const MERGE_GAP: usize = 4;

/// Bytes of each side a range keeps for display.
pub const SHOWN_BYTES: usize = 16;

/// Where decoded instructions for changed code will come from. The Xtensa
/// decoder (`q7-isa`) will implement this; until then [`NoDecoder`] leaves
/// code ranges as bytes.
pub trait CodeDecoder {
    /// Lines describing the instructions that overlap `range` (an offset
    /// range within the section), given the whole section's bytes and its
    /// address. `None` when this decoder cannot say.
    fn decode(&self, section_bytes: &[u8], section_addr: u32, range: std::ops::Range<u32>) -> Option<Vec<String>>;
}

/// The decoder used until `q7-isa` provides one.
pub struct NoDecoder;

impl CodeDecoder for NoDecoder {
    fn decode(&self, _: &[u8], _: u32, _: std::ops::Range<u32>) -> Option<Vec<String>> {
        None
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct DiffReport {
    pub a: FileFacts,
    pub b: FileFacts,
    pub identical: bool,
    pub identity: Evidence,
    pub header_changes: Vec<HeaderChange>,
    pub sections: Vec<SectionDiff>,
    /// Non-allocated sections (symbols, strings, notes) whose bytes differ
    /// or that exist on one side only.
    pub other_sections_differing: Vec<String>,
    pub findings: Vec<Finding>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FileFacts {
    pub path: String,
    pub size: u64,
    pub sha256: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct HeaderChange {
    pub field: &'static str,
    pub a: String,
    pub b: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionStatus {
    Identical,
    /// Same bytes at a different address.
    Moved,
    SizeChanged,
    Changed,
    OnlyInA,
    OnlyInB,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct SectionPlace {
    pub addr: u32,
    pub offset: u32,
    pub size: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct SectionDiff {
    pub name: String,
    pub status: SectionStatus,
    pub code: bool,
    pub a: Option<SectionPlace>,
    pub b: Option<SectionPlace>,
    /// Differing bytes over the compared length.
    pub differing_bytes: u64,
    /// Ranges kept (at most the caller's limit) and how many there are.
    pub ranges: Vec<DeltaRange>,
    pub ranges_total: usize,
    pub evidence: Evidence,
}

#[derive(Clone, Debug, Serialize)]
pub struct DeltaRange {
    /// Offset of the first differing byte within the section.
    pub section_offset: u32,
    pub len: u32,
    pub addr_a: u32,
    pub addr_b: u32,
    pub file_offset_a: u32,
    pub file_offset_b: u32,
    /// Up to [`SHOWN_BYTES`] bytes of each side, in hex.
    pub bytes_a: String,
    pub bytes_b: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decoded_a: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decoded_b: Option<Vec<String>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub text: String,
    pub evidence: Evidence,
}

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("{path}: {error}")]
    NotElf { path: String, error: q7_elf::Error },
}

/// One input: its name for the report and its bytes.
pub struct Input<'a> {
    pub path: &'a str,
    pub bytes: &'a [u8],
}

/// Compares two files. `max_ranges` caps the ranges kept per section.
pub fn diff(a: Input, b: Input, max_ranges: usize, decoder: &dyn CodeDecoder) -> Result<DiffReport, DiffError> {
    let facts = |i: &Input| FileFacts {
        path: i.path.to_string(),
        size: i.bytes.len() as u64,
        sha256: q7_target::digest::sha256_hex(i.bytes),
    };
    let (fa, fb) = (facts(&a), facts(&b));
    let identical = fa.sha256 == fb.sha256 && a.bytes == b.bytes;
    let identity =
        Evidence::observed(format!("sha256 of both files: {}", if identical { "equal" } else { "different" }));
    if identical {
        let findings = vec![Finding {
            text: "the files are byte-identical: nothing differs but the name".into(),
            evidence: Evidence::observed("equal sha256 and equal bytes"),
        }];
        return Ok(DiffReport {
            a: fa,
            b: fb,
            identical,
            identity,
            header_changes: vec![],
            sections: vec![],
            other_sections_differing: vec![],
            findings,
        });
    }
    let elf_a = ElfFile::parse(a.bytes).map_err(|error| DiffError::NotElf { path: a.path.to_string(), error })?;
    let elf_b = ElfFile::parse(b.bytes).map_err(|error| DiffError::NotElf { path: b.path.to_string(), error })?;
    let header_changes = header_changes(&elf_a, &elf_b);
    let sections = section_diffs(&elf_a, &elf_b, max_ranges, decoder);
    let other_sections_differing = other_sections_differing(&elf_a, &elf_b);
    let findings = findings(&sections, &header_changes, &other_sections_differing);
    Ok(DiffReport { a: fa, b: fb, identical, identity, header_changes, sections, other_sections_differing, findings })
}

fn header_changes(a: &ElfFile, b: &ElfFile) -> Vec<HeaderChange> {
    let (ha, hb) = (a.header(), b.header());
    let rows: [(&'static str, String, String); 6] = [
        ("byte order", ha.endian.name().to_string(), hb.endian.name().to_string()),
        ("e_type", ha.e_type.to_string(), hb.e_type.to_string()),
        ("e_machine", ha.machine.to_string(), hb.machine.to_string()),
        ("e_flags", format!("{:#x}", ha.flags), format!("{:#x}", hb.flags)),
        ("entry", format!("{:#010x}", ha.entry), format!("{:#010x}", hb.entry)),
        ("program headers", a.segments().len().to_string(), b.segments().len().to_string()),
    ];
    rows.into_iter().filter(|(_, x, y)| x != y).map(|(field, a, b)| HeaderChange { field, a, b }).collect()
}

fn other_sections_differing(a: &ElfFile, b: &ElfFile) -> Vec<String> {
    let others = |elf: &ElfFile| -> Vec<(String, Vec<u8>)> {
        elf.sections()
            .iter()
            .filter(|s| !s.is_alloc() && s.index != 0)
            .map(|s| (s.name.to_string(), s.data().to_vec()))
            .collect()
    };
    let (oa, ob) = (others(a), others(b));
    let mut names: Vec<String> = oa
        .iter()
        .filter(|(name, bytes)| ob.iter().find(|(n, _)| n == name).is_none_or(|(_, other)| other != bytes))
        .map(|(name, _)| name.clone())
        .collect();
    names.extend(ob.iter().filter(|(name, _)| !oa.iter().any(|(n, _)| n == name)).map(|(name, _)| name.clone()));
    names
}

fn place(s: &Section) -> SectionPlace {
    SectionPlace { addr: s.addr, offset: s.offset, size: s.size }
}

fn section_diffs(a: &ElfFile, b: &ElfFile, max_ranges: usize, decoder: &dyn CodeDecoder) -> Vec<SectionDiff> {
    let (alloc_a, alloc_b) = (a.alloc_sections(), b.alloc_sections());
    let mut out = Vec::new();
    for sa in &alloc_a {
        let sb = alloc_b.iter().find(|s| s.name == sa.name);
        out.push(match sb {
            Some(sb) => compare_section(sa, sb, max_ranges, decoder),
            None => one_sided(sa, SectionStatus::OnlyInA),
        });
    }
    for sb in alloc_b.iter().filter(|sb| !alloc_a.iter().any(|sa| sa.name == sb.name)) {
        out.push(one_sided(sb, SectionStatus::OnlyInB));
    }
    out
}

fn one_sided(s: &Section, status: SectionStatus) -> SectionDiff {
    let (a, b, side) = match status {
        SectionStatus::OnlyInA => (Some(place(s)), None, "A"),
        _ => (None, Some(place(s)), "B"),
    };
    SectionDiff {
        name: s.name.to_string(),
        status,
        code: s.is_exec(),
        a,
        b,
        differing_bytes: 0,
        ranges: Vec::new(),
        ranges_total: 0,
        evidence: Evidence::observed(format!("section header table of {side} only")),
    }
}

fn compare_section(sa: &Section, sb: &Section, max_ranges: usize, decoder: &dyn CodeDecoder) -> SectionDiff {
    let (da, db) = (sa.data(), sb.data());
    let runs = differing_runs(da, db);
    let differing_bytes = runs.iter().map(|r| r.len() as u64).sum::<u64>() + da.len().abs_diff(db.len()) as u64;
    let status = if sa.size != sb.size {
        SectionStatus::SizeChanged
    } else if !runs.is_empty() {
        SectionStatus::Changed
    } else if sa.addr != sb.addr {
        SectionStatus::Moved
    } else {
        SectionStatus::Identical
    };
    let ranges = runs
        .iter()
        .take(max_ranges)
        .map(|r| {
            let (start, len) = (r.start as u32, r.len() as u32);
            let code = sa.is_exec() && sb.is_exec();
            DeltaRange {
                section_offset: start,
                len,
                addr_a: sa.addr.wrapping_add(start),
                addr_b: sb.addr.wrapping_add(start),
                file_offset_a: sa.offset.wrapping_add(start),
                file_offset_b: sb.offset.wrapping_add(start),
                bytes_a: hex(&da[r.clone()]),
                bytes_b: hex(&db[r.clone()]),
                decoded_a: code.then(|| decoder.decode(da, sa.addr, start..start + len)).flatten(),
                decoded_b: code.then(|| decoder.decode(db, sb.addr, start..start + len)).flatten(),
            }
        })
        .collect();
    let compared = if sa.is_nobits() || sb.is_nobits() {
        "sizes and addresses (no file bytes)".to_string()
    } else {
        format!("{} bytes compared", da.len().min(db.len()))
    };
    SectionDiff {
        name: sa.name.to_string(),
        status,
        code: sa.is_exec(),
        a: Some(place(sa)),
        b: Some(place(sb)),
        differing_bytes,
        ranges,
        ranges_total: runs.len(),
        evidence: Evidence::observed(compared),
    }
}

/// Ranges of differing bytes over the common length, folding gaps shorter
/// than [`MERGE_GAP`].
pub fn differing_runs(a: &[u8], b: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for i in (0..a.len().min(b.len())).filter(|&i| a[i] != b[i]) {
        match runs.last_mut() {
            Some(last) if i - last.end < MERGE_GAP => last.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs
}

fn hex(bytes: &[u8]) -> String {
    let shown: Vec<String> = bytes.iter().take(SHOWN_BYTES).map(|b| format!("{b:02x}")).collect();
    let more = if bytes.len() > SHOWN_BYTES { " …" } else { "" };
    format!("{}{more}", shown.join(" "))
}

fn findings(sections: &[SectionDiff], header: &[HeaderChange], others: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    let same: Vec<&str> = sections
        .iter()
        .filter(|s| matches!(s.status, SectionStatus::Identical | SectionStatus::Moved))
        .map(|s| s.name.as_str())
        .collect();
    let differing: Vec<&str> = sections
        .iter()
        .filter(|s| !matches!(s.status, SectionStatus::Identical | SectionStatus::Moved))
        .map(|s| s.name.as_str())
        .collect();
    out.push(Finding {
        text: format!(
            "{} of {} allocated sections have identical bytes; {}",
            same.len(),
            sections.len(),
            if differing.is_empty() {
                "none differs".to_string()
            } else {
                format!("differences in {}", differing.join(", "))
            }
        ),
        evidence: Evidence::observed("section-by-section byte comparison"),
    });
    if !others.is_empty() {
        out.push(Finding {
            text: format!("non-allocated sections that differ: {}", others.join(", ")),
            evidence: Evidence::observed("byte comparison of the sections without SHF_ALLOC"),
        });
    }
    if differing.is_empty() {
        let outside = match (header.is_empty(), others.is_empty()) {
            (false, false) => "ELF header fields and non-allocated sections",
            (false, true) => "ELF header fields",
            (true, false) => "non-allocated sections",
            (true, true) => "bytes outside every section (headers, padding)",
        };
        out.push(Finding {
            text: format!("what the image loads is the same: the files differ only in {outside}"),
            evidence: Evidence::inferred("every allocated section compared equal"),
        });
    }

    let both: Vec<&SectionDiff> = sections.iter().filter(|s| s.a.is_some() && s.b.is_some()).collect();
    let deltas: Vec<i64> = both.iter().map(|s| s.b.unwrap().addr as i64 - s.a.unwrap().addr as i64).collect();
    let same_shape = both.iter().all(|s| s.a.unwrap().size == s.b.unwrap().size)
        && sections.iter().all(|s| s.a.is_some() && s.b.is_some());
    if same_shape && !differing.is_empty() {
        if let Some(&delta) = deltas.first().filter(|&&d| d != 0 && deltas.iter().all(|x| *x == d)) {
            out.push(Finding {
                text: format!(
                    "the image looks rebased by {}{:#x}: check with a rebase diff",
                    if delta < 0 { "-" } else { "+" },
                    delta.unsigned_abs()
                ),
                evidence: Evidence::inferred(
                    "every allocated section moved by the same amount and kept its size; the differing bytes are candidate address words",
                ),
            });
        } else if deltas.iter().all(|d| *d == 0) {
            out.push(Finding {
                text: "in-place edits: every section kept its address and size".into(),
                evidence: Evidence::inferred("no section moved or changed size, so nothing after an edit was shifted"),
            });
        }
    } else if !same_shape {
        out.push(Finding {
            text: "the layout changed: sections were added, removed or resized, so later addresses may have shifted"
                .into(),
            evidence: Evidence::inferred("at least one section differs in size or exists on one side only"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_fold_short_gaps() {
        let a = [0u8; 16];
        let mut b = a;
        b[1] = 1;
        b[3] = 1; // gap of 1: folded
        b[10] = 1; // gap of 6: a new run
        assert_eq!(differing_runs(&a, &b), vec![1..4, 10..11]);
        assert!(differing_runs(&a, &a).is_empty());
        assert_eq!(differing_runs(&a[..4], &b), vec![1..4], "only the common length is compared");
    }

    #[test]
    fn hex_is_capped() {
        assert_eq!(hex(&[1, 2]), "01 02");
        assert!(hex(&[0; 20]).ends_with(" …"));
    }
}
