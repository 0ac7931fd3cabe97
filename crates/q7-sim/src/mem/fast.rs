//! Host pointers for the fast paths: compiled code reads and writes pages
//! (or whole regions) directly where nothing watches them.

use super::{flag, Memory, PAGE_SHIFT, PAGE_SIZE};

impl Memory {
    /// Page `index` of `core`'s view as host memory for a fast path: the
    /// host address of its first byte and how many bytes from there may be
    /// read and written directly (0 when every access must go through
    /// [`Memory::load`]/[`Memory::store`]: unmapped, not permitted, or
    /// watched by the checker). Region buffers never move once added.
    pub fn host_page(&mut self, core: usize, index: usize) -> (*mut u8, u32, u32) {
        let page = self.tables[core][index];
        if page.flags == 0 || page.flags & flag::OBSERVED != 0 {
            return (std::ptr::null_mut(), 0, 0);
        }
        let data = &mut self.regions[usize::from(page.region)].data;
        let (read, write) = page.direct_lengths(data.len());
        (data.as_mut_ptr().wrapping_add(page.offset as usize), read, write)
    }

    /// Calls `each(index, ptr, read, write)` for every page of `core`'s
    /// view that [`Memory::host_page`] would give a nonzero length: a walk
    /// over the mapped regions, not over the 65,536 entries of the table.
    /// A page holding decoded code is not directly writable (a store there
    /// goes through [`Memory::store`]; `mark_code` moves `layout_epoch`
    /// when a page first holds code, so the tables made from this refresh).
    pub fn for_each_host_page(&mut self, core: usize, mut each: impl FnMut(usize, *mut u8, u32, u32)) {
        let (table, granules) = (&self.tables[core], &self.code_granules);
        for (index, region) in self.regions.iter_mut().enumerate() {
            let first = (region.base >> PAGE_SHIFT) as usize;
            for p in first..first + region.size.div_ceil(PAGE_SIZE) as usize {
                let page = table[p];
                if page.flags == 0 || usize::from(page.region) != index || page.flags & flag::OBSERVED != 0 {
                    continue;
                }
                let (read, mut write) = page.direct_lengths(region.data.len());
                if super::code::page_has_code(granules, (p as u32) << PAGE_SHIFT) {
                    write = 0;
                }
                if read != 0 || write != 0 {
                    each(p, region.data.as_mut_ptr().wrapping_add(page.offset as usize), read, write);
                }
            }
        }
    }

    /// The region `core` sees at `addr`, as host memory for a fast path:
    /// its address span (what the page tables map of it) and the bias
    /// whose sum with a guest address in the span is the host address.
    /// `None` unless the region allows the access (`write`: stores).
    pub fn core_span(&mut self, core: usize, addr: u32, write: bool) -> Option<(u32, u64, *mut u8)> {
        let index = self.region_for(core, addr)?;
        let region = &mut self.regions[index];
        if !(if write { region.perms.write } else { region.perms.read }) {
            return None;
        }
        // Pages map `data` from the page holding `base` (see `add_region`).
        let first = region.base & !(PAGE_SIZE - 1);
        let end = region.end().min(u64::from(first) + region.data.len() as u64);
        let bias = region.data.as_mut_ptr().wrapping_sub(first as usize);
        Some((region.base, end, bias))
    }
}
