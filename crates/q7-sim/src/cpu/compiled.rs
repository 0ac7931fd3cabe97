//! Entering code the JIT compiled from a block (see `crate::jit`).

use std::ffi::c_void;

use crate::block::HostCode;
use crate::cpu::Cpu;
use crate::jit::JitCtx;
use crate::mem::Memory;

impl Cpu {
    /// Runs `code`, a compiled form of the block about to execute, on this
    /// core's registers: `iterations` passes for a loop form. Returns the
    /// index of the first op it left to the interpreter and the loop
    /// iterations it completed. Compiled code sets `next_pc`/`taken` only
    /// when it runs the block's branch.
    #[inline(always)]
    pub(super) fn enter(&mut self, mem: &mut Memory, code: HostCode, iterations: u64) -> (usize, u64) {
        let Some(ctx) = self.jit.as_deref_mut() else { return (0, 0) };
        ctx.ar = self.ar.as_mut_ptr();
        ctx.sar = &mut self.sar;
        ctx.br = self.br;
        ctx.mem = mem;
        ctx.iterations = iterations;
        ctx.done = 0;
        ctx.next_pc = self.next_pc;
        ctx.taken = u32::from(self.taken);
        // SAFETY: `code` was compiled for `HostCode`'s signature by this
        // core's JIT, whose module still owns it. It reads and writes only
        // the context's fields, the 16 registers and SAR they point at (live
        // for this call), the host page table (rebuilt whenever memory's
        // page tables change, pointing into region buffers that never
        // move), and memory through `jit::runtime`'s helpers.
        let next = unsafe { code(std::ptr::from_mut::<JitCtx>(ctx).cast::<c_void>()) };
        self.next_pc = ctx.next_pc;
        self.taken = ctx.taken != 0;
        (next as usize, ctx.done)
    }
}
