//! The cost model's access counters (`q7 run --stats` on the fast engines,
//! `crate::tally`): each page's counting slot and each core's loads and
//! stores by memory class, kept here because every access passes here;
//! compiled code adds to the same counters by pointer.

use super::{flag, Memory, PAGE_COUNT, PAGE_SHIFT};

/// Slot of [`ClassCounts`] for accesses the model does not price (their
/// class costs nothing outside transfers and is not tensor memory): compiled
/// code adds to it rather than branch.
pub const UNPRICED: u8 = 5;

/// Loads and stores of one core by memory class (slots indexed as
/// `MemClass::ALL`, then [`UNPRICED`]). `repr(C)`: compiled code adds to
/// the fields by offset.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCounts {
    pub accesses: [u64; 6],
    pub bytes: [u64; 6],
}

impl ClassCounts {
    #[inline(always)]
    pub fn add(&mut self, slot: u8, bytes: u32) {
        let k = usize::from(slot);
        self.accesses[k] += 1;
        self.bytes[k] += u64::from(bytes);
    }

    pub(crate) fn minus(&self, earlier: &ClassCounts) -> ClassCounts {
        ClassCounts {
            accesses: std::array::from_fn(|k| self.accesses[k] - earlier.accesses[k]),
            bytes: std::array::from_fn(|k| self.bytes[k] - earlier.bytes[k]),
        }
    }

    pub(crate) fn plus(&self, other: &ClassCounts) -> ClassCounts {
        ClassCounts {
            accesses: std::array::from_fn(|k| self.accesses[k] + other.accesses[k]),
            bytes: std::array::from_fn(|k| self.bytes[k] + other.bytes[k]),
        }
    }
}

impl Memory {
    /// Runs `look` with neither the checker nor the access counters
    /// watching: what it reads leaves no finding and no count behind.
    pub fn unobserved<R>(&mut self, look: impl FnOnce(&mut Memory) -> R) -> R {
        let checker = self.checker.take();
        // Restored in place: compiled code holds pointers into `counts`.
        let counts = self.counts.clone();
        let result = look(self);
        self.counts.copy_from_slice(&counts);
        self.checker = checker;
        result
    }

    /// From now on counts every core's loads and stores by the slot
    /// `slot_of(page base)` gives (pages of [`UNPRICED`] slots are not
    /// watched). Decoded code is forgotten, so compiled code made without
    /// counting is not run again.
    pub fn count_accesses(&mut self, slot_of: impl Fn(u32) -> u8) {
        let slots: Box<[u8]> = (0..PAGE_COUNT as u32).map(|p| slot_of(p << PAGE_SHIFT)).collect();
        for table in &mut self.tables {
            for (page, &slot) in table.iter_mut().zip(slots.iter()) {
                if page.flags != 0 && slot != UNPRICED {
                    page.flags = flag::counted(page.flags);
                }
            }
        }
        self.page_slots = Some(slots);
        self.counts = vec![ClassCounts::default(); self.tables.len()];
        self.layout_epoch += 1;
        self.forget_code();
    }

    /// `core`'s counters (all zero unless counting).
    pub fn counts(&self, core: usize) -> ClassCounts {
        self.counts.get(core).copied().unwrap_or_default()
    }

    /// For compiled code: the per-page slots and `core`'s counters, or
    /// nulls when not counting. Neither moves while counting.
    pub fn counters_for(&mut self, core: usize) -> (*const u8, *mut ClassCounts) {
        match (&self.page_slots, self.counts.get_mut(core)) {
            (Some(slots), Some(counts)) => (slots.as_ptr(), counts),
            _ => (std::ptr::null(), std::ptr::null_mut()),
        }
    }

    /// Takes back the count of one access `core` made at `addr` (an
    /// `s32c1i` that stored is one access, not a load and a store).
    #[inline(never)]
    pub fn uncount(&mut self, core: usize, addr: u32) {
        if self.page(core, addr).flags & flag::COUNTED != 0 {
            let slot = usize::from(self.page_slot(addr));
            self.counts[core].accesses[slot] -= 1;
            self.counts[core].bytes[slot] -= 4;
        }
    }

    #[inline(always)]
    pub(super) fn page_slot(&self, addr: u32) -> u8 {
        self.page_slots.as_ref().map_or(UNPRICED, |s| s[(addr >> PAGE_SHIFT) as usize])
    }

    #[inline(always)]
    pub(super) fn count(&mut self, core: usize, addr: u32, bytes: u32) {
        let slot = self.page_slot(addr);
        self.counts[core].add(slot, bytes);
    }
}
