//! Xtensa property tables: where a code section's instructions, literals
//! and fill lie, as the assembler recorded them.
//!
//! GNU as writes `.xt.prop*` sections of 12-byte records `(address, size,
//! flags)` (and `.xt.lit*` of 8-byte `(address, size)` literal records). In
//! a relocatable object each address is an `R_XTENSA_32` relocation against
//! the section it describes (section symbol + addend); in a linked image it
//! is the final address, and one `.xt.prop` describes every section. The
//! records used here are the ones GNU objdump's disassembler uses: sorted,
//! and adjacent records with the same flags (ignoring `DATA` and
//! `NO_TRANSFORM`) merged into one block.

use q7_elf::consts::*;
use q7_elf::ElfFile;

/// The range holds instructions.
pub const PROP_INSN: u32 = 0x2;
/// The range holds literal words.
pub const PROP_LITERAL: u32 = 0x1;
const PROP_DATA: u32 = 0x4;
const PROP_NO_TRANSFORM: u32 = 0x100;

/// One block of a property table: `size` bytes at `addr` with `flags`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PropBlock {
    pub addr: u32,
    pub size: u32,
    pub flags: u32,
}

impl PropBlock {
    pub fn end(&self) -> u64 {
        u64::from(self.addr) + u64::from(self.size)
    }
}

/// Which table described a section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableKind {
    /// `.xt.prop*`: instructions, literals and fill.
    Prop,
    /// `.xt.lit*` only: literal ranges; everything else is code.
    Lit,
}

/// The blocks describing section `index` of `elf`, sorted and merged, and
/// which table they came from; `None` when no table mentions the section.
/// Malformed tables (odd sizes, bad relocations) are ignored, not errors:
/// the listing then falls back to the other boundary rules.
pub fn blocks_for(elf: &ElfFile, index: usize) -> Option<(Vec<PropBlock>, TableKind)> {
    let prop = collect(elf, index, |name| name.starts_with(".xt.prop") || name.starts_with(".gnu.linkonce.prop."), 12);
    if !prop.is_empty() {
        return Some((coalesce(prop), TableKind::Prop));
    }
    let lit = collect(elf, index, |name| name.starts_with(".xt.lit") || name.starts_with(".gnu.linkonce.p."), 8);
    (!lit.is_empty()).then(|| (coalesce(lit), TableKind::Lit))
}

/// Records of every table section `wanted` names that describe section `index`.
fn collect(elf: &ElfFile, index: usize, wanted: impl Fn(&str) -> bool, record: usize) -> Vec<PropBlock> {
    let Some(target) = elf.section(index) else { return Vec::new() };
    let relocatable = elf.header().e_type == ET_REL;
    let symbols = if relocatable { elf.symbols().unwrap_or_default() } else { Vec::new() };
    let mut out = Vec::new();
    for table in elf.sections().iter().filter(|s| wanted(&s.name) && s.sh_type == SHT_PROGBITS) {
        // Relocations of this table, by the offset they patch.
        let mut relocs: Vec<(u32, Option<u16>, i64)> = Vec::new();
        if relocatable {
            for rel in elf.relocation_sections().filter(|r| r.info as usize == table.index) {
                for r in elf.relocations(rel).unwrap_or_default() {
                    let symbol = symbols.get(r.symbol as usize);
                    let shndx = symbol.map(|s| s.shndx);
                    let value = symbol.map_or(0, |s| i64::from(s.value));
                    relocs.push((r.offset, shndx, value + i64::from(r.addend)));
                }
            }
            relocs.sort_by_key(|r| r.0);
        }
        for (i, chunk) in table.data().chunks_exact(record).enumerate() {
            let word = |at: usize| elf.endian().u32([chunk[at], chunk[at + 1], chunk[at + 2], chunk[at + 3]]);
            let offset = (i * record) as u32;
            let raw = word(0);
            let addr = match relocs.binary_search_by_key(&offset, |r| r.0) {
                Ok(at) => {
                    let (_, shndx, value) = relocs[at];
                    if shndx != Some(index as u16) {
                        continue;
                    }
                    let addr = i64::from(target.addr) + i64::from(raw) + value;
                    match u32::try_from(addr) {
                        Ok(addr) => addr,
                        Err(_) => continue,
                    }
                }
                Err(_) if target.contains_vaddr(raw) => raw,
                Err(_) => continue,
            };
            let flags = if record == 12 { word(8) } else { PROP_LITERAL };
            out.push(PropBlock { addr, size: word(4), flags });
        }
    }
    out
}

/// Sorts the records by address (a zero-size placeholder before a real
/// record at the same address) and merges touching records whose flags
/// differ only in `DATA`/`NO_TRANSFORM`.
fn coalesce(mut records: Vec<PropBlock>) -> Vec<PropBlock> {
    records.sort_by_key(|r| (r.addr, r.size, r.flags));
    let mask = !(PROP_DATA | PROP_NO_TRANSFORM);
    let mut out: Vec<PropBlock> = Vec::with_capacity(records.len());
    for record in records {
        match out.last_mut() {
            Some(last) if last.end() == u64::from(record.addr) && last.flags & mask == record.flags & mask => {
                last.size = (record.end() - u64::from(last.addr)) as u32;
            }
            _ => out.push(record),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_blocks_with_the_same_kind_merge() {
        let block = |addr, size, flags| PropBlock { addr, size, flags };
        let merged = coalesce(vec![block(8, 4, PROP_INSN), block(0, 8, PROP_INSN | PROP_DATA), block(12, 4, 1)]);
        assert_eq!(merged, [block(0, 12, PROP_INSN | PROP_DATA), block(12, 4, PROP_LITERAL)]);
    }
}
