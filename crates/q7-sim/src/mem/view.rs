//! Per-core views for the parallel schedule (`crate::machine`): a core on a
//! host thread of its own runs against a `Memory` holding its page table
//! and code map, whose regions are views of the machine's buffers
//! (`crate::zeroed::SharedView`). When the run ends, each view's table and
//! decoded-code marks come back.

use super::{Memory, Page, Region};

impl Memory {
    /// Whether cores may run on several threads over views of this memory:
    /// no checker, no access counting, no load watches (their state is one
    /// per machine), and no region both writable and executable that two
    /// cores see (a core's store into code another core decoded must reach
    /// that core's code map, which is in another view).
    pub fn viewable(&self) -> bool {
        let shared_code = self.regions.iter().enumerate().any(|(index, region)| {
            let page = (region.base >> super::PAGE_SHIFT) as usize;
            let seen_by = self.tables.iter().filter(|t| t[page].flags != 0 && usize::from(t[page].region) == index);
            region.perms.write && region.perms.exec && seen_by.count() > 1
        });
        self.checker.is_none() && self.page_slots.is_none() && self.load_watches.is_empty() && !shared_code
    }

    /// `core`'s view: its page table (taken from here until
    /// [`Memory::absorb`] gives it back), a copy of the code map, and views
    /// of every region's bytes. The caller keeps `self` alive and its
    /// regions unchanged while the view lives, and runs only `core` on it.
    pub fn view_for(&mut self, core: usize) -> Memory {
        let regions = (self.regions.iter_mut())
            .map(|r| Region {
                name: r.name.clone(),
                kind: r.kind,
                base: r.base,
                size: r.size,
                perms: r.perms,
                data: r.data.share(),
            })
            .collect();
        let mut tables: Vec<Box<[Page]>> = (0..self.tables.len()).map(|_| Box::default()).collect();
        std::mem::swap(&mut tables[core], &mut self.tables[core]);
        Memory {
            regions,
            tables,
            code_bytes: self.code_bytes.clone(),
            code_granules: self.code_granules.clone(),
            code_epoch: self.code_epoch,
            layout_epoch: self.layout_epoch,
            checker: None,
            page_slots: None,
            counts: Vec::new(),
            load_watches: Vec::new(),
            load_watch_hit: None,
        }
    }

    /// Takes back `core`'s page table from its `view`, and the code it
    /// decoded there: marks are merged (an extra mark costs at most a
    /// needless flush) and the epoch is the newest, so any core whose
    /// blocks another view invalidated flushes them.
    pub fn absorb(&mut self, core: usize, mut view: Memory) {
        std::mem::swap(&mut self.tables[core], &mut view.tables[core]);
        for (granule, bits) in view.code_bytes {
            let ours = self.code_bytes.entry(granule).or_insert_with(|| Box::new([0; 64]));
            for (word, bit) in ours.iter_mut().zip(bits.iter()) {
                *word |= bit;
            }
        }
        for (word, bit) in self.code_granules.iter_mut().zip(view.code_granules.iter()) {
            *word |= bit;
        }
        self.code_epoch = self.code_epoch.max(view.code_epoch);
        // Tables made from the view (its code marks) are renewed.
        self.layout_epoch = self.layout_epoch.max(view.layout_epoch) + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Perms, RegionKind};
    use super::*;

    #[test]
    fn views_share_bytes_and_give_back_tables_and_code_marks() {
        let mut mem = Memory::new(2);
        mem.add_region("w0", RegionKind::Window { core: 0 }, 0x10_0000, 0x1000, Perms::RWX, Some(&[0]));
        mem.add_region("w1", RegionKind::Window { core: 1 }, 0x20_0000, 0x1000, Perms::RWX, Some(&[1]));
        mem.add_region("dram", RegionKind::SharedDram, 0x8_0000, 0x1_0000, Perms::RW, None);
        assert!(mem.viewable());
        let (mut v0, mut v1) = (mem.view_for(0), mem.view_for(1));
        v0.store(0, 0, 0x8_0010, 7u32.to_le_bytes()).unwrap();
        assert_eq!(v1.load::<4>(1, 0, 0x8_0010).unwrap(), 7u32.to_le_bytes());
        // Each view maps only its core's pages.
        assert!(v1.load::<4>(1, 0, 0x10_0000).is_err());
        v1.mark_code(0x20_0100, 0x20_0104);
        mem.absorb(0, v0);
        mem.absorb(1, v1);
        assert_eq!(mem.load::<4>(0, 0, 0x8_0010).unwrap(), 7u32.to_le_bytes());
        let before = mem.code_epoch;
        mem.store(1, 0, 0x20_0100, [1u8]).unwrap();
        assert_eq!(mem.code_epoch, before + 1, "the view's code marks came back");
    }

    #[test]
    fn shared_writable_code_is_not_viewable() {
        let mut mem = Memory::new(2);
        mem.add_region("ram", RegionKind::Ram, 0, 0x1000, Perms::RWX, None);
        assert!(!mem.viewable());
        let mut private = Memory::new(2);
        private.add_region("rom", RegionKind::Rom, 0, 0x1000, Perms::RX, None);
        assert!(private.viewable());
    }
}
