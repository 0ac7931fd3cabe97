//! What compiled code calls and reads at run time: the host page table and
//! the slow paths into [`Memory`].

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
        }
    }

    /// Rebuilds the table when `mem`'s page tables changed since.
    pub fn refresh(&mut self, mem: &mut Memory, core: usize) {
        if self.epoch == Some(mem.layout_epoch) {
            return;
        }
        for page in 0..PAGES {
            let (ptr, read, write) = mem.host_page(core, page);
            self.ptrs[page] = ptr;
            self.read_len[page] = read;
            self.write_len[page] = write;
        }
        self.epoch = Some(mem.layout_epoch);
    }

    /// Points `ctx` at this table and at `mem`.
    pub fn fill(&self, ctx: &mut JitCtx, mem: &mut Memory) {
        ctx.pages = self.ptrs.as_ptr();
        ctx.read_len = self.read_len.as_ptr();
        ctx.write_len = self.write_len.as_ptr();
        ctx.code_bits = mem.code_granule_bits();
        ctx.mem = mem;
    }
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
    match stored {
        Err(_) => STORE_FAULT,
        Ok(()) if mem.code_epoch != epoch => STORE_HIT_CODE,
        Ok(()) => STORE_DONE,
    }
}
