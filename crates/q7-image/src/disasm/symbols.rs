//! Labels: the symbol names a listing prints at addresses and uses to name
//! branch, call, loop and literal targets.
//!
//! Several symbols often share an address (`_stext` and the LSP's
//! `_memmap_seg_sram0_0_start`, a section symbol and a function). A listing
//! shows one name per address, chosen by rank: functions, then data objects,
//! then untyped symbols; global before weak before local; then the shorter
//! name, then the alphabetically first. Section and file symbols are never
//! labels (the section name is the fallback anyway), nor are symbols outside
//! their section's bytes (`_etext` sits one past the end of `.text`).

use std::borrow::Cow;
use std::fmt;

use q7_elf::consts::*;
use q7_elf::Symbol;

/// The labels of one section, sorted by address, one per address.
#[derive(Clone, Debug, Default)]
pub struct Labels<'a> {
    entries: Vec<(u32, Cow<'a, str>)>,
}

/// Sort key of a symbol competing for an address: lower wins.
fn rank(symbol: &Symbol) -> (u8, u8, usize) {
    let kind = match symbol.kind() {
        STT_FUNC => 0,
        STT_OBJECT => 1,
        STT_NOTYPE => 2,
        _ => 3,
    };
    let bind = match symbol.bind() {
        STB_GLOBAL => 0,
        STB_WEAK => 1,
        _ => 2,
    };
    (kind, bind, symbol.name.len())
}

/// Whether a symbol can label an address: named, not a section or file symbol.
pub(super) fn is_label(symbol: &Symbol) -> bool {
    !symbol.name.is_empty() && !matches!(symbol.kind(), STT_SECTION | STT_FILE)
}

impl<'a> Labels<'a> {
    /// Builds the labels from the candidates of one section: `(address,
    /// index into symbols)`, in symbol-table order.
    pub(super) fn from_candidates(symbols: &[Symbol<'a>], candidates: Vec<(u32, usize)>) -> Labels<'a> {
        // Sort small keys (address, rank, index), not the symbols themselves;
        // the index keeps equal names in table order, as a stable sort would.
        let mut order: Vec<(u32, (u8, u8, usize), usize)> =
            candidates.into_iter().map(|(addr, i)| (addr, rank(&symbols[i]), i)).collect();
        order.sort_unstable_by(|x, y| {
            (x.0, x.1).cmp(&(y.0, y.1)).then_with(|| symbols[x.2].name.cmp(&symbols[y.2].name)).then(x.2.cmp(&y.2))
        });
        order.dedup_by_key(|(addr, _, _)| *addr);
        Labels { entries: order.into_iter().map(|(addr, _, i)| (addr, symbols[i].name.clone())).collect() }
    }

    /// Labels named `L<address>` at `addresses` (tests).
    #[cfg(test)]
    pub(super) fn at_addresses(addresses: &[u32]) -> Labels<'static> {
        let mut addresses = addresses.to_vec();
        addresses.sort_unstable();
        addresses.dedup();
        Labels { entries: addresses.into_iter().map(|a| (a, Cow::Owned(format!("L{a:x}")))).collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The label exactly at `addr`.
    pub fn at(&self, addr: u32) -> Option<&str> {
        let i = self.entries.binary_search_by_key(&addr, |(a, _)| *a).ok()?;
        Some(&self.entries[i].1)
    }

    /// The last label at or below `addr`.
    pub fn at_or_before(&self, addr: u32) -> Option<(u32, &str)> {
        let i = self.entries.partition_point(|(a, _)| *a <= addr);
        let (at, name) = self.entries.get(i.checked_sub(1)?)?;
        Some((*at, name))
    }

    /// How many labels lie below `addr`: the index of the first at or above it.
    pub fn index_from(&self, addr: u64) -> usize {
        self.entries.partition_point(|(a, _)| u64::from(*a) < addr)
    }

    /// The address of the label at `index` (labels in address order).
    pub fn address(&self, index: usize) -> Option<u64> {
        self.entries.get(index).map(|(a, _)| u64::from(*a))
    }

    /// The first label address strictly above `addr`.
    pub fn next_after(&self, addr: u64) -> Option<u64> {
        let i = self.entries.partition_point(|(a, _)| u64::from(*a) <= addr);
        self.entries.get(i).map(|(a, _)| u64::from(*a))
    }
}

/// A name for an address: `base` or `base+0x1c` (`base` is a label or a
/// section name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolicName<'n> {
    pub base: &'n str,
    pub offset: u32,
}

impl fmt::Display for SymbolicName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base)?;
        if self.offset != 0 {
            write!(f, "+{:#x}", self.offset)?;
        }
        Ok(())
    }
}
