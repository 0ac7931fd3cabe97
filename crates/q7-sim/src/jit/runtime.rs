//! What compiled code calls and reads at run time: the host page table and
//! the slow paths into [`Memory`].

use crate::checks::{FastWindow, StackWindow};
use crate::jit::JitCtx;
use crate::mem::{Memory, PAGE_SHIFT};

const PAGES: usize = 1 << (32 - PAGE_SHIFT);

/// One core's view of memory as host pointers, one entry per 64 KiB page:
/// the host address of the page's first byte and how many bytes from there
/// compiled code may read or write directly (0: use the slow path).
pub struct HostPages {
    ptrs: Box<[*mut u8]>,
    read_len: Box<[u32]>,
    write_len: Box<[u32]>,
    /// `Memory::layout_epoch` the table was built from.
    epoch: Option<u64>,
    /// The entries that are not zero: a rebuild clears only these.
    filled: Vec<usize>,
}

impl Default for HostPages {
    fn default() -> Self {
        HostPages::new()
    }
}

impl HostPages {
    pub fn new() -> HostPages {
        HostPages {
            ptrs: vec![std::ptr::null_mut(); PAGES].into_boxed_slice(),
            read_len: vec![0; PAGES].into_boxed_slice(),
            write_len: vec![0; PAGES].into_boxed_slice(),
            epoch: None,
            filled: Vec::new(),
        }
    }

    /// Rebuilds the table when `mem`'s page tables changed since: clears
    /// what it filled last time and fills the pages compiled code may use
    /// directly; the zeroed rest of the 65,536 entries is never written
    /// (nor, unless compiled code touches unmapped memory, read).
    pub fn refresh(&mut self, mem: &mut Memory, core: usize) {
        if self.epoch == Some(mem.layout_epoch) {
            return;
        }
        for &page in &self.filled {
            self.ptrs[page] = std::ptr::null_mut();
            self.read_len[page] = 0;
            self.write_len[page] = 0;
        }
        self.filled.clear();
        mem.for_each_host_page(core, |page, ptr, read, write| {
            self.ptrs[page] = ptr;
            self.read_len[page] = read;
            self.write_len[page] = write;
            self.filled.push(page);
        });
        self.epoch = Some(mem.layout_epoch);
    }

    /// Points `ctx` at this table and at `mem`.
    pub fn fill(&self, ctx: &mut JitCtx, mem: &mut Memory) {
        ctx.pages = self.ptrs.as_ptr();
        ctx.read_len = self.read_len.as_ptr();
        ctx.write_len = self.write_len.as_ptr();
        ctx.code_bits = mem.code_granule_bits();
        (ctx.page_slots, ctx.counts) = mem.counters_for(ctx.core);
        ctx.mem = mem;
        refresh_windows(ctx, mem);
    }
}

/// Where compiled code does the checker's work for one kind of access
/// (see [`crate::checks::FastWindow`]): an access of `size` bytes at `addr`
/// with `addr - lo + size <= span` reads or writes host memory at
/// `data + addr` and tests or sets the shadow bytes at `shadow + addr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CheckWindow {
    pub lo: u32,
    /// 0: the window is empty.
    pub span: u32,
    pub data: *mut u8,
    pub shadow: *mut u8,
    /// Nonzero: loads test for unwritten bytes, stores for races.
    pub test: u32,
    /// The core's shadow byte, repeated in each byte.
    pub fill: u32,
}

impl CheckWindow {
    pub const EMPTY: CheckWindow =
        CheckWindow { lo: 0, span: 0, data: std::ptr::null_mut(), shadow: std::ptr::null_mut(), test: 0, fill: 0 };
}

/// Fills `ctx.windows` from the checker's range caches for the core: the
/// first two for loads, the last two for stores. Live ranges change only
/// between `Core::run` calls (host calls and allocator hooks), so windows
/// set here stay valid while compiled code runs.
pub(super) fn refresh_windows(ctx: &mut JitCtx, mem: &mut Memory) {
    ctx.windows = [CheckWindow::EMPTY; 4];
    ctx.stack = mem.checker.as_mut().map_or(StackWindow::EMPTY, |c| c.stack_window(ctx.core));
    // Cache slots: tensor load, tensor store, TCM load, TCM store.
    for slot in 0..4 {
        let fast = mem.checker.as_mut().and_then(|c| c.fast_window(ctx.core, slot));
        let store = slot % 2 == 1;
        if let Some(window) = fast.and_then(|fast| clamp_window(mem, ctx.core, fast, store)) {
            remember(ctx, window, store);
        }
    }
}

/// After a slow access at `addr`: the window the checker now has for it
/// joins the two of its kind, replacing the older (a loop reading two
/// tensors keeps both).
fn learn_window(ctx: &mut JitCtx, mem: &mut Memory, addr: u32, store: bool) {
    let core = ctx.core;
    let fast = mem.checker.as_mut().and_then(|c| c.fast_window_at(core, addr, store));
    if let Some(window) = fast.and_then(|fast| clamp_window(mem, core, fast, store)) {
        remember(ctx, window, store);
    }
}

fn remember(ctx: &mut JitCtx, window: CheckWindow, store: bool) {
    let pair = if store { &mut ctx.windows[2..] } else { &mut ctx.windows[..2] };
    let same = |w: &CheckWindow| w.lo == window.lo && w.span == window.span && w.shadow == window.shadow;
    if !same(&pair[0]) {
        pair[1] = pair[0];
        pair[0] = window;
    }
}

/// `fast` cut to the memory region `core` sees there (one host buffer
/// that allows the access), as compiled code reads it.
fn clamp_window(mem: &mut Memory, core: usize, fast: FastWindow, store: bool) -> Option<CheckWindow> {
    let (base, end, data) = mem.core_span(core, fast.lo, store)?;
    let lo = fast.lo.max(base);
    let end = end.min(u64::from(fast.end));
    (u64::from(lo) < end).then(|| CheckWindow {
        lo,
        span: (end - u64::from(lo)) as u32,
        data,
        shadow: fast.shadow_bias,
        test: u32::from(fast.test),
        fill: u32::from(fast.mine) * 0x0101_0101,
    })
}

/// Result bit of [`slow_load`]: the load faulted (nothing happened).
pub(super) const LOAD_FAULT: u64 = 1 << 32;
/// Results of [`slow_store`].
pub(super) const STORE_DONE: u32 = 0;
pub(super) const STORE_FAULT: u32 = 1;
/// The store overwrote decoded code: the interpreter takes over after it.
pub(super) const STORE_HIT_CODE: u32 = 2;

/// A load the inline path does not take: `size` bytes at `addr` (aligned)
/// through [`Memory::load`], which also feeds the checker. The value, or
/// [`LOAD_FAULT`] when memory refuses it.
pub(super) extern "C" fn slow_load(ctx: *mut JitCtx, addr: u32, size: u32, pc: u32) -> u64 {
    // SAFETY: compiled code passes the context the core built for this
    // call, whose `mem` points at the memory the core runs on; nothing else
    // touches that memory while compiled code runs.
    #[allow(unsafe_code)]
    let (mem, core) = unsafe { (&mut *(*ctx).mem, (*ctx).core) };
    let value = match size {
        1 => mem.load::<1>(core, pc, addr).map(|b| u32::from(b[0])),
        2 => mem.load::<2>(core, pc, addr).map(|b| u32::from(u16::from_le_bytes(b))),
        _ => mem.load::<4>(core, pc, addr).map(u32::from_le_bytes),
    };
    // The checker may have learnt a range compiled code can take on.
    // SAFETY: as above; `mem` does not alias the context.
    #[allow(unsafe_code)]
    learn_window(unsafe { &mut *ctx }, mem, addr, false);
    value.map_or(LOAD_FAULT, u64::from)
}

/// A store the inline path does not take, through [`Memory::store`].
pub(super) extern "C" fn slow_store(ctx: *mut JitCtx, addr: u32, size: u32, value: u32, pc: u32) -> u32 {
    // SAFETY: as in `slow_load`.
    #[allow(unsafe_code)]
    let (mem, core) = unsafe { (&mut *(*ctx).mem, (*ctx).core) };
    let epoch = mem.code_epoch;
    let bytes = value.to_le_bytes();
    let stored = match size {
        1 => mem.store(core, pc, addr, [bytes[0]]),
        2 => mem.store(core, pc, addr, [bytes[0], bytes[1]]),
        _ => mem.store(core, pc, addr, bytes),
    };
    // SAFETY: as in `slow_load`.
    #[allow(unsafe_code)]
    learn_window(unsafe { &mut *ctx }, mem, addr, true);
    match stored {
        Err(_) => STORE_FAULT,
        Ok(()) if mem.code_epoch != epoch => STORE_HIT_CODE,
        Ok(()) => STORE_DONE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::{Perms, RegionKind, PAGE_SIZE};

    /// Every entry agrees with `Memory::host_page`, the page-by-page
    /// definition, where a length allows a direct access.
    fn assert_matches(pages: &HostPages, mem: &mut Memory, core: usize) {
        for page in 0..PAGES {
            let (ptr, read, write) = mem.host_page(core, page);
            assert_eq!((pages.read_len[page], pages.write_len[page]), (read, write), "page {page:#x}");
            if read != 0 || write != 0 {
                assert_eq!(pages.ptrs[page], ptr, "page {page:#x}");
            }
        }
    }

    #[test]
    fn refresh_fills_mapped_pages_and_clears_what_changed() {
        let mut mem = Memory::new(2);
        mem.add_region("rom", RegionKind::Rom, 0, 0x1000, Perms::RX, None);
        mem.add_region("tcm0", RegionKind::Tcm { core: 0 }, 0x9000_0000, 0x4000, Perms::RW, Some(&[0]));
        let tensor = mem.add_region("tensor", RegionKind::Tensor, 0xc000_0000, 0x3_0000, Perms::RW, None);
        let mut pages = HostPages::new();
        pages.refresh(&mut mem, 0);
        assert_matches(&pages, &mut mem, 0);
        assert_eq!(pages.write_len[0xc000_0000 >> PAGE_SHIFT], PAGE_SIZE);
        // Watched pages go back to the slow path on the next refresh.
        mem.watch_region(tensor);
        pages.refresh(&mut mem, 0);
        assert_matches(&pages, &mut mem, 0);
        assert_eq!(pages.write_len[0xc000_0000 >> PAGE_SHIFT], 0);
        // Core 1 does not see core 0's TCM.
        let mut other = HostPages::new();
        other.refresh(&mut mem, 1);
        assert_matches(&other, &mut mem, 1);
        assert_eq!(other.read_len[0x9000_0000 >> PAGE_SHIFT], 0);
    }
}
