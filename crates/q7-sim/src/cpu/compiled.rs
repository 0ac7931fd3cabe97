//! Entering code the JIT compiled from a block (see `crate::jit`), and the
//! FP helper compiled code calls back into.

use std::ffi::c_void;

use crate::block::{Block, HostCode, Region};
use crate::cpu::{Cpu, Event};
use crate::jit::region::{unpack, MAX_REGION_BUDGET};
use crate::jit::{JitCtx, WINDOW_REFUSED};
use crate::mem::Memory;
use crate::uop::{Kind, Op};

impl Cpu {
    /// Runs `code`, a compiled form of `block`, about to execute, on this
    /// core's registers: `iterations` passes for a loop form. Returns the
    /// index of the first op it left to the interpreter and the loop
    /// iterations it completed. Compiled code sets `next_pc`/`taken` only
    /// when it runs the block's branch.
    #[inline(always)]
    pub(super) fn enter(&mut self, mem: &mut Memory, block: &Block, code: HostCode, iterations: u64) -> (usize, u64) {
        let (next, done) = self.call_compiled(mem, code, &block.ops, block.start, iterations);
        (next as usize, done)
    }

    /// Runs `region`'s code from its block `entry` with `budget`
    /// instructions to start blocks in, then finishes as its result says (see `crate::jit::region`): the
    /// block it stopped in is run to its end by the interpreter and
    /// retired. False when it ran nothing (its first op needs the
    /// interpreter): the caller runs the block the normal way.
    pub(super) fn run_region(
        &mut self,
        mem: &mut Memory,
        region: &Region,
        entry: usize,
        budget: u64,
    ) -> Result<bool, Event> {
        let head = region.blocks[0].start;
        let budget = budget.min(MAX_REGION_BUDGET);
        if let Some(ctx) = self.jit.as_deref_mut() {
            ctx.entry = entry as u32;
        }
        let (result, counts) = self.call_compiled(mem, region.code, &region.ops, head, budget);
        let (insns, cycles) = unpack(counts);
        let (k, i) = ((result >> 16) as usize, (result & 0xffff) as usize);
        self.insns += insns;
        self.cycles += cycles;
        // Compiled code returns only block numbers of its region.
        let block = &region.blocks[k];
        if i == 0 {
            self.pc = block.start;
            return Ok(insns > 0);
        }
        let ops = region.block_ops(k);
        if i < ops.len() {
            self.taken = false;
            self.next_pc = ops[ops.len() - 1].next_pc();
            for (j, op) in ops.iter().enumerate().skip(i) {
                if let Err(trap) = self.step(mem, op) {
                    return self.trap(ops, j, trap).map(|()| true);
                }
            }
        }
        self.insns += ops.len() as u64;
        self.cycles += block.cycles;
        self.advance();
        Ok(true)
    }

    /// Calls compiled code on this core's registers; `ops` are those it was
    /// compiled from (in this core's copy, which starts at `base`). Its
    /// result, then the context's `done` and `cycles`; `next_pc` and `taken`
    /// are copied back.
    #[inline(always)]
    fn call_compiled(
        &mut self,
        mem: &mut Memory,
        code: HostCode,
        ops: &[Op],
        base: u32,
        iterations: u64,
    ) -> (u32, u64) {
        let Some(mut ctx) = self.jit.take() else { return (0, 0) };
        // Everything compiled code and `fp_step` touch is reached through
        // this one pointer while it runs.
        let cpu: *mut Cpu = self;
        // SAFETY: `cpu` is valid (from `self`), and `self` is not used again
        // until compiled code has returned.
        let next = unsafe {
            ctx.ar = (&raw mut (*cpu).ar).cast();
            ctx.fr = (&raw mut (*cpu).fr).cast();
            ctx.fr_hi = (&raw mut (*cpu).fr_hi).cast();
            ctx.sar = &raw mut (*cpu).sar;
            ctx.ps = &raw mut (*cpu).ps;
            ctx.br = &raw mut (*cpu).br;
            ctx.fsr = &raw mut (*cpu).fsr;
            ctx.cpenable = (*cpu).cpenable;
            ctx.fcr = (*cpu).fcr;
            ctx.next_pc = (*cpu).next_pc;
            ctx.taken = u32::from((*cpu).taken);
            ctx.mem = mem;
            ctx.iterations = iterations;
            ctx.done = 0;
            ctx.fp_step = Some(fp_step);
            ctx.window_step = Some(window_step);
            ctx.cpu = cpu.cast();
            ctx.ops = ops.as_ptr();
            ctx.base = base;
            // SAFETY: `code` was compiled for `HostCode`'s signature by this
            // core's JIT, whose module still owns it. It reads and writes
            // only the context's fields, the registers they point at, the
            // host page table (rebuilt whenever memory's page tables change,
            // pointing into region buffers that never move), and memory and
            // FP state through `jit::runtime`'s helpers and `fp_step`.
            code(std::ptr::from_mut::<JitCtx>(&mut *ctx).cast::<c_void>())
        };
        self.next_pc = ctx.next_pc;
        self.taken = ctx.taken != 0;
        let done = ctx.done;
        self.jit = Some(ctx);
        (next, done)
    }
}

/// [`crate::jit::FpStep`]: one FP op through the interpreter's
/// `step_fp`. Compiled code has stored the op's source registers and
/// reloads its destinations; it calls only for ops that cannot trap once
/// CPENABLE allows them (arithmetic and conversions).
unsafe extern "C" fn fp_step(ctx: *mut JitCtx, index: u32) -> u32 {
    // SAFETY: called by compiled code entered from `Cpu::enter`, with the
    // context it built: `cpu` and `mem` are valid and unaliased for the
    // call, and `index` is that of a translated op of the block being run.
    let (cpu, mem, op) =
        unsafe { (&mut *(*ctx).cpu.cast::<Cpu>(), &mut *(*ctx).mem, &*(*ctx).ops.add(index as usize)) };
    u32::from(cpu.step_fp(mem, op).is_err())
}

/// [`crate::jit::WindowStep`]: `entry` or `retw` for compiled code, which
/// has stored the registers and reloads them after (the window rotated).
unsafe extern "C" fn window_step(ctx: *mut JitCtx, index: u32) -> u64 {
    // SAFETY: as in `fp_step`.
    let (cpu, op) = unsafe { (&mut *(*ctx).cpu.cast::<Cpu>(), &*(*ctx).ops.add(index as usize)) };
    let next = match op.kind {
        Kind::Entry if cpu.entry_inline(op) => 0,
        Kind::Retw => match cpu.retw_inline(op) {
            Some(pc) => pc,
            None => return WINDOW_REFUSED,
        },
        _ => return WINDOW_REFUSED,
    };
    u64::from(cpu.free_frames()) | u64::from(next) << 32
}
