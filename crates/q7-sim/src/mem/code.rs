//! Code coherence: which bytes hold decoded instructions, so that a store
//! into them invalidates the cores' decoded blocks (the epoch they compare).

use super::{Memory, CODE_GRANULE_WORDS, CODE_SHIFT, PAGE_SHIFT};

impl Memory {
    /// The code-granule bitmap (one bit per 4 KiB holding decoded code):
    /// a fast store path must leave stores into set granules to
    /// [`Memory::store`]. The slice never moves.
    pub fn code_granule_bits(&self) -> *const u64 {
        self.code_granules.as_ptr()
    }

    /// Whether any 4 KiB granule of `[start, start + len)` holds decoded code.
    pub fn holds_code(&self, start: u32, len: u32) -> bool {
        let last = start.saturating_add(len.max(1) - 1);
        (start >> CODE_SHIFT..=last >> CODE_SHIFT).any(|g| self.granule_has_code(g << CODE_SHIFT))
    }

    #[inline(always)]
    pub(super) fn granule_has_code(&self, addr: u32) -> bool {
        let g = (addr >> CODE_SHIFT) as usize;
        self.code_granules[(g >> 6) & (CODE_GRANULE_WORDS - 1)] >> (g & 63) & 1 != 0
    }

    /// Records that `[start, end)` is decoded into a cached block.
    pub fn mark_code(&mut self, start: u32, end: u32) {
        // One map lookup per granule the range touches, not per byte.
        let mut addr = u64::from(start);
        while addr < u64::from(end) {
            let granule = (addr >> CODE_SHIFT) as u32;
            let granule_start = u64::from(granule) << CODE_SHIFT;
            let stop = u64::from(end).min(granule_start + (1 << CODE_SHIFT));
            let bits = self.code_bytes.entry(granule).or_insert_with(|| Box::new([0; 64]));
            for bit in (addr - granule_start) as usize..(stop - granule_start) as usize {
                bits[bit / 64] |= 1 << (bit % 64);
            }
            addr = stop;
        }
        if start < end {
            for g in (start >> CODE_SHIFT)..=((end - 1) >> CODE_SHIFT) {
                if !self.page_has_code(g << CODE_SHIFT) {
                    // Compiled code writes this page directly no more
                    // (`Memory::for_each_host_page`): its tables refresh.
                    self.layout_epoch += 1;
                }
                self.code_granules[(g >> 6) as usize] |= 1 << (g & 63);
            }
        }
    }

    /// Whether any granule of the 64 KiB page holding `addr` holds decoded
    /// code: compiled code leaves stores into such a page to
    /// [`Memory::store`], which keeps decoded code coherent.
    #[inline]
    pub(super) fn page_has_code(&self, addr: u32) -> bool {
        page_has_code(&self.code_granules, addr)
    }

    /// Forgets every decoded byte (the block caches flush on the new epoch):
    /// needed when code changed behind the cores' backs, or when blocks must
    /// be decoded anew (a new hook inside one).
    pub fn forget_code(&mut self) {
        self.code_epoch += 1;
        // Granule bits are set only with `code_bytes` entries: with none,
        // the 128 KiB bitmap is already clear (the loader's many host
        // writes come before anything is decoded).
        if !self.code_bytes.is_empty() {
            self.code_bytes.clear();
            self.code_granules.fill(0);
            // Pages that held code are direct again.
            self.layout_epoch += 1;
        }
    }

    pub(super) fn note_code_write(&mut self, addr: u32, size: u32) {
        let hit = (addr..addr.saturating_add(size)).any(|a| {
            self.code_bytes.get(&(a >> CODE_SHIFT)).is_some_and(|bits| {
                let bit = (a & ((1 << CODE_SHIFT) - 1)) as usize;
                bits[bit / 64] & (1 << (bit % 64)) != 0
            })
        });
        if hit {
            // Every cache flushes on its next lookup; the maps restart empty.
            self.forget_code();
        }
    }
}

/// [`Memory::page_has_code`] over a code-granule bitmap.
#[inline]
pub(super) fn page_has_code(granules: &[u64], addr: u32) -> bool {
    // 16 granules per page: a 16-bit field of one bitmap word.
    const PER_PAGE: u32 = 1 << (PAGE_SHIFT - CODE_SHIFT);
    let g = addr >> PAGE_SHIFT << (PAGE_SHIFT - CODE_SHIFT);
    let word = granules[(g >> 6) as usize & (CODE_GRANULE_WORDS - 1)];
    word >> (g & 63) & ((1 << PER_PAGE) - 1) != 0
}
