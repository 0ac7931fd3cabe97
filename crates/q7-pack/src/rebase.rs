//! The `.q7.rebase` table: the absolute words a prelinker must patch when it
//! moves a cleaned image to another address.
//!
//! The open profile links with `ld -q`, which keeps the static relocations in
//! the linked image; their `r_offset` is a virtual address. Of those, only
//! `R_XTENSA_32` words inside allocated sections change when the whole image
//! moves: `SLOT*_OP` operands (branches, calls, `L32R`) are PC-relative and
//! the `DIFF*` kinds are differences, so neither changes. The packer keeps the
//! addresses of those words, sorted, in a non-allocated section.
//!
//! Words a linker script writes (`LONG(symbol)`) carry no relocation, even
//! with `-q`. The LSP's BSS-clear descriptor is such a table (docs/FORMATS.md, "LSP layout":
//! `_bss_table_start = .; LONG(_bss_start) LONG(_bss_end) _bss_table_end = .`),
//! so every word between those two symbols is added too. The fixtures prove
//! the union complete: the per-core images differ in no other word.
//!
//! ## Format (version 1), every field in the image's byte order
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `"Q7RB"` (bytes, not an integer) |
//! | 4 | 2 | format version = 1 |
//! | 6 | 2 | header size = 16 (entries start here; a reader skips any larger header) |
//! | 8 | 4 | N, the number of entries |
//! | 12 | 4 | link base: the lowest `p_vaddr` of the image's `PT_LOAD` segments |
//! | 16 | 4·N | virtual addresses of the 32-bit words to patch, strictly ascending |
//!
//! To move the image to `new_base`, add `new_base - link_base` (mod 2³²) to the
//! 32-bit word (image byte order) at each address; the file offset of an
//! address comes from the image's `PT_LOAD` program headers. The section
//! header is `SHT_PROGBITS`, flags 0, alignment 4. No section means "nothing
//! known" (a vendor image linked without `-q`); a section with N = 0 means the
//! image was linked with relocations and needs no word patched.

use q7_elf::reloc::{self, RelocKind};
use q7_elf::{ElfFile, Endian};

use crate::error::{PackError, Result};

pub const SECTION_NAME: &str = ".q7.rebase";
pub const MAGIC: [u8; 4] = *b"Q7RB";
pub const VERSION: u16 = 1;
pub const HEADER_SIZE: usize = 16;

/// The decoded `.q7.rebase` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RebaseTable {
    /// Lowest `PT_LOAD` virtual address when the table was made.
    pub link_base: u32,
    /// Virtual addresses of the absolute words, strictly ascending.
    pub addresses: Vec<u32>,
}

/// Counts for the `-v` log of how the relocations were used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelocStats {
    pub tables: usize,
    pub entries: usize,
    /// `R_XTENSA_32` words kept in the table (before removing duplicates).
    pub absolute: usize,
    /// `R_XTENSA_32` words in sections the cleaning removes (their bytes are zeroed).
    pub in_removed_sections: usize,
    /// Relocations against non-allocated sections (`.xt.prop`, debug info).
    pub non_allocated: usize,
    /// Words of the linker script's `_bss_table`.
    pub linker_table: usize,
}

/// Symbols that bracket a table of absolute words written by the LSP's
/// linker script: (start, end).
pub const LINKER_SCRIPT_TABLES: &[(&str, &str)] = &[("_bss_table_start", "_bss_table_end")];

/// The lowest `PT_LOAD` address of an image, the base its table is relative to.
pub fn link_base(elf: &ElfFile) -> Option<u32> {
    elf.load_segments().filter(|p| p.memsz > 0).map(|p| p.vaddr).min()
}

impl RebaseTable {
    /// Collects the table from the static (non-allocated) relocation sections
    /// of a linked image, the words in sections `kept` says stay in the
    /// cleaned image. `None` when the image has no such section.
    pub(crate) fn from_relocations(
        elf: &ElfFile,
        kept: &dyn Fn(usize) -> bool,
    ) -> Result<Option<(RebaseTable, RelocStats)>> {
        let mut stats = RelocStats::default();
        let mut addresses = Vec::new();
        for table in elf.relocation_sections().filter(|t| !t.is_alloc()) {
            stats.tables += 1;
            let entries = elf.relocations(table)?;
            stats.entries += entries.len();
            let bad = |entry: usize, problem: String| PackError::BadRelocation {
                index: table.index,
                table: table.name.to_string(),
                entry,
                problem,
            };
            let target = match elf.section(table.info as usize) {
                Some(t) if t.index > 0 && t.is_alloc() => t,
                _ => {
                    stats.non_allocated += entries.len();
                    continue;
                }
            };
            for (i, r) in entries.iter().enumerate() {
                match reloc::info(r.r_type).map(|info| info.kind) {
                    Some(RelocKind::Absolute { size: 4 }) => {}
                    Some(RelocKind::Absolute { size }) => {
                        return Err(bad(i, format!("{}-byte absolute relocations are not supported", size)))
                    }
                    Some(RelocKind::Dynamic | RelocKind::Tls) => {
                        return Err(bad(i, format!("{} cannot be rebased by moving the image", reloc::name(r.r_type))))
                    }
                    None => return Err(bad(i, format!("unknown Xtensa relocation type {}", r.r_type))),
                    Some(_) => continue,
                }
                let inside = r.offset >= target.addr && r.offset as u64 + 4 <= target.end_vaddr();
                if !inside || target.is_nobits() {
                    return Err(bad(
                        i,
                        format!(
                            "R_XTENSA_32 word at {:#x} is not inside the file bytes of [{}] {} ({:#x}..{:#x})",
                            r.offset,
                            target.index,
                            target.name,
                            target.addr,
                            target.end_vaddr()
                        ),
                    ));
                }
                if kept(target.index) {
                    stats.absolute += 1;
                    addresses.push(r.offset);
                } else {
                    stats.in_removed_sections += 1;
                }
            }
        }
        if stats.tables == 0 {
            return Ok(None);
        }
        let table_words = linker_script_words(elf, kept)?;
        stats.linker_table = table_words.len();
        addresses.extend(table_words);
        addresses.sort_unstable();
        addresses.dedup();
        let link_base = link_base(elf).unwrap_or(0);
        Ok(Some((RebaseTable { link_base, addresses }, stats)))
    }

    /// Reads the table an already cleaned image carries, if any.
    pub fn of_image(elf: &ElfFile) -> Result<Option<RebaseTable>> {
        match elf.section_by_name(SECTION_NAME) {
            Some(s) => RebaseTable::decode(s.data(), elf.endian()).map(Some),
            None => Ok(None),
        }
    }

    pub fn encode(&self, endian: Endian) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_SIZE + 4 * self.addresses.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&endian.u16_bytes(VERSION));
        out.extend_from_slice(&endian.u16_bytes(HEADER_SIZE as u16));
        out.extend_from_slice(&endian.u32_bytes(self.addresses.len() as u32));
        out.extend_from_slice(&endian.u32_bytes(self.link_base));
        for &a in &self.addresses {
            out.extend_from_slice(&endian.u32_bytes(a));
        }
        out
    }

    pub fn decode(bytes: &[u8], endian: Endian) -> Result<RebaseTable> {
        let bad = bad_table;
        let u16_at = |o: usize| endian.u16([bytes[o], bytes[o + 1]]);
        let u32_at = |o: usize| endian.u32([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        if bytes.len() < HEADER_SIZE {
            return Err(bad(format!("{} bytes is shorter than the {HEADER_SIZE}-byte header", bytes.len())));
        }
        if bytes[..4] != MAGIC {
            return Err(bad(format!("magic is {:02x?}, expected \"Q7RB\"", &bytes[..4])));
        }
        let version = u16_at(4);
        if version != VERSION {
            return Err(bad(format!("format version {version}; this q7 reads version {VERSION}")));
        }
        let header_size = u16_at(6) as usize;
        let count = u32_at(8) as u64;
        if header_size < HEADER_SIZE || header_size as u64 + 4 * count != bytes.len() as u64 {
            return Err(bad(format!(
                "header size {header_size} and {count} entries do not add up to the section's {} bytes",
                bytes.len()
            )));
        }
        let addresses: Vec<u32> =
            bytes[header_size..].chunks_exact(4).map(|c| endian.u32([c[0], c[1], c[2], c[3]])).collect();
        if let Some(w) = addresses.windows(2).find(|w| w[0] >= w[1]) {
            return Err(bad(format!("addresses are not strictly ascending ({:#x} then {:#x})", w[0], w[1])));
        }
        Ok(RebaseTable { link_base: u32_at(12), addresses })
    }

    /// Adds `new_base - link_base` to every listed word of `image` (a cleaned
    /// image carrying this table). Headers, section addresses and the entry
    /// point are the caller's to move; this patches only the words.
    pub fn apply(&self, image: &mut [u8], new_base: u32) -> Result<()> {
        let elf = ElfFile::parse(image)?;
        let endian = elf.endian();
        let mut offsets = Vec::with_capacity(self.addresses.len());
        for &va in &self.addresses {
            let off = elf
                .vaddr_to_offset(va)
                .filter(|&o| o as usize + 4 <= image.len())
                .ok_or_else(|| bad_table(format!("word at {va:#x} is not in the image's file bytes")))?;
            offsets.push(off as usize);
        }
        let delta = new_base.wrapping_sub(self.link_base);
        for off in offsets {
            let w = &mut image[off..off + 4];
            let v = endian.u32([w[0], w[1], w[2], w[3]]).wrapping_add(delta);
            w.copy_from_slice(&endian.u32_bytes(v));
        }
        Ok(())
    }
}

fn bad_table(problem: String) -> PackError {
    PackError::BadRebaseTable { table: SECTION_NAME, problem }
}

/// The words of each [`LINKER_SCRIPT_TABLES`] table the image's symbols bracket.
fn linker_script_words(elf: &ElfFile, kept: &dyn Fn(usize) -> bool) -> Result<Vec<u32>> {
    let symbols = elf.symbols()?;
    let value = |name: &str| symbols.iter().find(|s| s.name == name && s.is_defined()).map(|s| s.value);
    let mut words = Vec::new();
    for &(start_name, end_name) in LINKER_SCRIPT_TABLES {
        let (Some(start), Some(end)) = (value(start_name), value(end_name)) else { continue };
        if start == end {
            continue;
        }
        let bad =
            |why: &str| bad_table(format!("linker-script table {start_name}..{end_name} = {start:#x}..{end:#x} {why}"));
        if end < start || (end - start) % 4 != 0 {
            return Err(bad("is not a whole number of 32-bit words"));
        }
        let holder = elf
            .sections()
            .iter()
            .find(|s| {
                s.index > 0 && s.is_alloc() && !s.is_nobits() && s.contains_vaddr(start) && end as u64 <= s.end_vaddr()
            })
            .ok_or_else(|| bad("is not inside one allocated section with file bytes"))?;
        if kept(holder.index) {
            words.extend((start..end).step_by(4));
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip_in_both_byte_orders() {
        let t = RebaseTable { link_base: 0x8400_0000, addresses: vec![0x8400_0000, 0x8400_0004, 0x8400_01b0] };
        for endian in [Endian::Little, Endian::Big] {
            let bytes = t.encode(endian);
            assert_eq!(bytes.len(), 16 + 12);
            assert_eq!(&bytes[..4], b"Q7RB");
            assert_eq!(RebaseTable::decode(&bytes, endian).unwrap(), t);
        }
        let le = t.encode(Endian::Little);
        assert_eq!(&le[4..16], &[1, 0, 16, 0, 3, 0, 0, 0, 0, 0, 0, 0x84]);
    }

    #[test]
    fn decode_rejects_damage_with_one_line_messages() {
        let good = RebaseTable { link_base: 0, addresses: vec![4, 8] }.encode(Endian::Little);
        let short = RebaseTable::decode(&good[..10], Endian::Little).unwrap_err().to_string();
        assert_eq!(short, ".q7.rebase: 10 bytes is shorter than the 16-byte header");
        let mut unsorted = good.clone();
        unsorted[16..20].copy_from_slice(&8u32.to_le_bytes());
        let e = RebaseTable::decode(&unsorted, Endian::Little).unwrap_err().to_string();
        assert_eq!(e, ".q7.rebase: addresses are not strictly ascending (0x8 then 0x8)");
        let e = RebaseTable::decode(&good[..good.len() - 1], Endian::Little).unwrap_err().to_string();
        assert!(e.contains("do not add up"), "{e}");
        let mut v2 = good.clone();
        v2[4] = 2;
        assert!(RebaseTable::decode(&v2, Endian::Little).unwrap_err().to_string().contains("version 2"));
    }
}
