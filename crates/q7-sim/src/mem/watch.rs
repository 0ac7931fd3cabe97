//! What watches memory besides the hardware: the checker's regions, a
//! core's stack, and a debugger's load watchpoints; each takes the pages it
//! watches off the fast paths.

use super::{flag, Memory, PAGE_SHIFT, PAGE_SIZE};

/// A load from a watched range: which core, at which pc, of which address,
/// and the index of the range in [`Memory::watch_loads`]' list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadWatchHit {
    pub core: usize,
    pub pc: u32,
    pub addr: u32,
    pub index: usize,
}

impl Memory {
    /// Routes every access of `cores` to the region's pages through the checker.
    pub fn watch_region(&mut self, index: usize) {
        self.layout_epoch += 1;
        let region = &self.regions[index];
        let first = region.base >> PAGE_SHIFT;
        let pages = region.size.div_ceil(PAGE_SIZE);
        for table in &mut self.tables {
            for p in first..first + pages {
                let page = &mut table[p as usize];
                if page.flags != 0 && usize::from(page.region) == index {
                    page.flags |= flag::CHECKED;
                }
            }
        }
    }

    /// A load from a page a debugger watches (see [`Memory::watch_loads`]).
    #[cold]
    #[inline(never)]
    pub(super) fn watched_load(&mut self, core: usize, pc: u32, addr: u32, size: u32) {
        if self.load_watch_hit.is_none() {
            let end = u64::from(addr) + u64::from(size);
            let hit = self.load_watches.iter().position(|&(c, lo, len)| {
                (c == core || self.region_for(c, lo) == self.region_for(core, lo))
                    && u64::from(addr) < u64::from(lo) + u64::from(len)
                    && end > u64::from(lo)
            });
            if let Some(index) = hit {
                self.load_watch_hit = Some(LoadWatchHit { core, pc, addr, index });
            }
        }
    }

    /// Watches loads from the byte ranges `(core, addr, len)` (as core
    /// `core` sees them): the first such load is recorded in
    /// [`Memory::load_watch_hit`]. Pages holding them leave every fast path
    /// (compiled code reaches them through [`Memory::load`]); an empty list
    /// ends the watching.
    pub fn watch_loads(&mut self, ranges: Vec<(usize, u32, u32)>) {
        self.layout_epoch += 1;
        for table in &mut self.tables {
            for page in table.iter_mut().filter(|p| p.flags & flag::WATCHED != 0) {
                page.flags &= !flag::WATCHED;
            }
        }
        for &(_, lo, len) in &ranges {
            let last = lo.saturating_add(len.max(1) - 1);
            for table in &mut self.tables {
                for p in (lo >> PAGE_SHIFT)..=(last >> PAGE_SHIFT) {
                    let page = &mut table[p as usize];
                    if page.flags != 0 {
                        page.flags |= flag::WATCHED;
                    }
                }
            }
        }
        self.load_watches = ranges;
        self.load_watch_hit = None;
    }

    /// Sends `core`'s loads and stores in the pages holding `[lo, hi)` (its
    /// stack) to the checker's stack watch, leaving them direct for
    /// compiled code (which watches the stack in line).
    pub fn watch_stack(&mut self, core: usize, lo: u32, hi: u32) {
        if lo >= hi || core >= self.tables.len() {
            return;
        }
        self.layout_epoch += 1;
        for p in (lo >> PAGE_SHIFT)..=((hi - 1) >> PAGE_SHIFT) {
            let page = &mut self.tables[core][p as usize];
            if page.flags != 0 {
                page.flags |= flag::STACK;
            }
        }
    }
}
