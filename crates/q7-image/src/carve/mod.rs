//! Carving embedded Xtensa images out of a host file (docs/FACTS.md, "Carve by ELF magic"
//! and "Getter-driven carve") in three ways that must agree where they overlap:
//!
//! * **magic scan**: every `\x7fELF` in the file, each sized by its own header
//!   (`e_shoff + e_shentsize·e_shnum`, bounded by the file) and validated;
//! * **getters**: the x86-64 host's exported `*_get` functions, decoded to the
//!   (address, size) they return and mapped to file offsets through the
//!   host's sections;
//! * **flat container**: a file of `[JSON header | ELF image]` items.
//!
//! Byte-identical images collapse by sha256 (docs/FACTS.md, "sha256 collapse": 13 stored → 9
//! distinct).

mod flat;
mod getter;
mod header;
mod input;
mod scan;
mod text;

use std::collections::BTreeMap;

use serde::Serialize;

pub use flat::{FlatItem, FlatScan};
pub use getter::{Getter, GetterScan, Returns, Slot};
pub use header::{Check, RawHeader, EXPECTED_FLAGS};
pub use input::{map_file, Input};
pub use scan::{scan_magic, PROGRESS_STEP};
pub use text::write_carve;

pub const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

#[derive(Clone, Debug, Serialize)]
pub struct CarveReport {
    pub file_size: u64,
    /// What the file itself is: a host ELF, a flat container or raw bytes.
    pub container: String,
    /// Every magic hit, in file order.
    pub hits: Vec<Hit>,
    /// Hits accepted as Xtensa images (the "stored" count of docs/FACTS.md).
    pub stored: usize,
    pub distinct: Vec<DistinctImage>,
    pub getters: Option<GetterScan>,
    pub flat: Option<FlatScan>,
    pub agreement: Vec<Agreement>,
}

/// One `\x7fELF` in the file.
#[derive(Clone, Debug, Serialize)]
pub struct Hit {
    pub offset: u64,
    /// Where the hit lies in the host's address space, when the file is a
    /// host ELF with sections.
    pub host: Option<HostPlace>,
    /// Bytes the header says the image spans, bounded by the file.
    pub size: Option<u64>,
    pub size_note: Option<String>,
    pub checks: Vec<Check>,
    pub xtensa: bool,
    pub sha256: Option<String>,
    /// Index into [`CarveReport::distinct`] when accepted.
    pub image: Option<usize>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct HostPlace {
    pub section: String,
    pub vaddr: u64,
}

/// A set of byte-identical stored images.
#[derive(Clone, Debug, Serialize)]
pub struct DistinctImage {
    pub sha256: String,
    pub size: u64,
    pub offsets: Vec<u64>,
    pub entry: Option<u32>,
    /// Where `e_entry` lies in the image file.
    pub entry_offset: Option<u32>,
    /// `kernel_info_table` records (size / 8), when the image has one.
    pub kernel_records: Option<u32>,
    /// `.xt.prop.<mangled>` sections: the per-kernel names.
    pub named_kernels: usize,
}

impl DistinctImage {
    /// The file name `--out` writes: the sha256 prefix.
    pub fn file_name(&self) -> String {
        format!("{}.elf", &self.sha256[..16])
    }
}

/// Whether two carve modes found the same images.
#[derive(Clone, Debug, Serialize)]
pub struct Agreement {
    pub modes: String,
    pub agree: bool,
    pub images: usize,
    pub problems: Vec<String>,
}

/// Runs every carve mode that applies to `data`. `progress(done, total)` is
/// called as the magic scan advances.
pub fn carve(data: &[u8], progress: &mut dyn FnMut(u64, u64)) -> CarveReport {
    let host = getter::HostFile::parse(data);
    let offsets = scan_magic(data, progress);
    let mut hits: Vec<Hit> = q7_target::par::map(&offsets, |&off| examine(data, off, host.as_ref()));
    let distinct = collapse(data, &mut hits);
    let getters = host.as_ref().map(|h| getter::scan(data, h, &hits));
    let flat = flat::looks_flat(data).then(|| flat::scan(data, &hits));
    let container = match (&host, &flat) {
        (Some(h), _) => h.describe(),
        (None, Some(_)) => "flat [JSON header | ELF image] container".into(),
        (None, None) => "raw bytes".into(),
    };
    let mut agreement = Vec::new();
    if let Some(g) = &getters {
        let found: Vec<(u64, u64)> = g.getters.iter().filter_map(|x| x.image_span()).collect();
        agreement.push(agree("magic scan vs getters", &hits, &found));
    }
    if let Some(f) = &flat {
        let found: Vec<(u64, u64)> = f.images().collect();
        agreement.push(agree("magic scan vs flat container", &hits, &found));
    }
    CarveReport {
        file_size: data.len() as u64,
        container,
        stored: hits.iter().filter(|h| h.xtensa).count(),
        hits,
        distinct,
        getters,
        flat,
        agreement,
    }
}

fn examine(data: &[u8], off: u64, host: Option<&getter::HostFile>) -> Hit {
    let rest = &data[off as usize..];
    let header = RawHeader::read(rest);
    let mut hit = Hit {
        offset: off,
        host: host.and_then(|h| h.place_of_offset(off)),
        size: None,
        size_note: None,
        checks: Vec::new(),
        xtensa: false,
        sha256: None,
        image: None,
    };
    let Some(h) = header else {
        hit.size_note = Some("no readable ELF header after the magic".into());
        return hit;
    };
    hit.checks = h.checks();
    let declared = h.declared_size();
    let available = rest.len() as u64;
    let min_header = if h.class == 1 { 52 } else { 64 };
    let size_ok = if declared > available {
        hit.size = Some(available);
        hit.size_note = Some(format!("header says {declared:#x} bytes; bounded by the end of the file"));
        false
    } else if declared < min_header {
        hit.size_note = Some(format!("header says {declared:#x} bytes, less than an ELF header"));
        false
    } else {
        hit.size = Some(declared);
        true
    };
    hit.xtensa = size_ok && hit.checks.iter().all(|c| c.ok || !c.required);
    if let Some(size) = hit.size.filter(|_| size_ok) {
        hit.sha256 = Some(q7_target::digest::sha256_hex(&rest[..size as usize]));
    }
    hit
}

/// Groups the accepted images by content, in order of first appearance.
fn collapse(data: &[u8], hits: &mut [Hit]) -> Vec<DistinctImage> {
    let mut by_sha: BTreeMap<String, usize> = BTreeMap::new();
    let mut distinct: Vec<DistinctImage> = Vec::new();
    for hit in hits.iter_mut().filter(|h| h.xtensa) {
        let (Some(sha), Some(size)) = (hit.sha256.clone(), hit.size) else { continue };
        let index = *by_sha.entry(sha.clone()).or_insert_with(|| {
            let bytes = &data[hit.offset as usize..(hit.offset + size) as usize];
            distinct.push(describe_image(sha, bytes, hit.offset));
            distinct.len() - 1
        });
        // Hits come in file order, so a repeat can only be the last offset.
        if distinct[index].offsets.last() != Some(&hit.offset) {
            distinct[index].offsets.push(hit.offset);
        }
        hit.image = Some(index);
    }
    distinct
}

fn describe_image(sha256: String, bytes: &[u8], offset: u64) -> DistinctImage {
    let elf = q7_elf::ElfFile::parse(bytes).ok();
    DistinctImage {
        sha256,
        size: bytes.len() as u64,
        offsets: vec![offset],
        entry: elf.as_ref().map(|e| e.header().entry),
        entry_offset: elf.as_ref().and_then(|e| e.vaddr_to_offset(e.header().entry)),
        kernel_records: elf.as_ref().and_then(|e| e.section_by_name(crate::kinfo::SECTION)).map(|s| s.size / 8),
        named_kernels: elf
            .as_ref()
            .map_or(0, |e| e.sections().iter().filter(|s| s.name.starts_with(crate::roster::PROP_PREFIX)).count()),
    }
}

/// Compares the accepted magic-scan images with `(offset, size)` spans
/// another mode found.
fn agree(modes: &str, hits: &[Hit], found: &[(u64, u64)]) -> Agreement {
    let scanned: BTreeMap<u64, u64> =
        hits.iter().filter(|h| h.xtensa).filter_map(|h| Some((h.offset, h.size?))).collect();
    let other: BTreeMap<u64, u64> = found.iter().copied().collect();
    let mut problems = Vec::new();
    for (off, size) in &other {
        match scanned.get(off) {
            None => problems.push(format!("{off:#x}: found by the other mode only")),
            Some(s) if s != size => {
                problems.push(format!("{off:#x}: size {size:#x} there, {s:#x} from the image header"))
            }
            Some(_) => {}
        }
    }
    for off in scanned.keys().filter(|o| !other.contains_key(o)) {
        problems.push(format!("{off:#x}: found by the magic scan only"));
    }
    Agreement { modes: modes.to_string(), agree: problems.is_empty(), images: other.len(), problems }
}
