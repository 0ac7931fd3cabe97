//! One simulated core: architectural state ([`Cpu`]), its block cache, and the
//! run loop that executes cached blocks until something needs the machine.
//!
//! The address registers the running code sees live in a 16-entry view
//! (`Cpu::ar`) of the physical register file; rotating the window (`entry`,
//! `retw`, `rotw`, window exceptions, `wsr windowbase`) writes the view back
//! and loads the new one. Calls are rare next to register accesses, so this
//! keeps every ALU op a plain array index.

#[allow(unsafe_code)]
mod compiled;
mod exception;
mod exec;
mod fp;
pub mod interrupts;
pub mod loaded;
mod mmu;
mod probe;
mod profiled;
pub(crate) mod sregs;
mod system;
mod unwind;
mod window;

use crate::block::{Block, BlockCache, Fetcher, Region, MAX_BLOCK_OPS};
use crate::config::CoreConfig;
use crate::jit::{Compiler, Engine, Jit, JitCtx, Seek, SharedCompiler};
use crate::mem::Memory;
use crate::profile::CoreProfile;

pub use crate::stop::Stop;
pub use unwind::Frame;

/// Why [`Core::run`] returned.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The instruction budget for this call is used up; call again.
    Budget,
    /// The core executed `simcall`; the pc is already past it. The machine
    /// services the call (registers a2..a5) and resumes the core.
    Simcall,
    /// The core cannot continue.
    Stopped(Stop),
    /// The pc reached [`Core::halt_pc`] (a host-driven call returned).
    Halted,
    /// The pc reached an address registered with [`Core::add_hook`]; the
    /// instruction there has not run yet.
    Hook(u32),
    /// The instruction just run made the checker keep a finding (only with
    /// [`Core::stop_on_finding`]).
    Finding,
    /// The instruction just run loaded from a watched range (only with
    /// [`Core::stop_on_watched_load`]; see `Memory::watch_loads`).
    WatchedLoad,
}

/// Bounds the stack pointer must stay within, checked on every `entry`
/// and `movsp`: going below `floor` while above `window_base` means the
/// stack has grown into the image's `.bss`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackGuard {
    pub window_base: u32,
    pub floor: u32,
}

/// Architectural state of one core.
pub struct Cpu {
    pub id: usize,
    pub config: CoreConfig,
    pub pc: u32,
    /// The 16 registers of the current window (a0..a15).
    pub ar: [u32; 16],
    /// The physical register file; the view's registers are stale here
    /// until written back by a rotation.
    phys: [u32; 64],
    pub windowbase: u32,
    pub windowstart: u32,
    /// Free 4-register frames above the current one (0..=3); 3 when window
    /// overflow checks are off (PS.WOE = 0 or PS.EXCM = 1).
    free_frames: u8,
    pub ps: u32,
    pub sar: u32,
    pub lbeg: u32,
    pub lend: u32,
    pub lcount: u32,
    /// Boolean registers b0..b15.
    pub br: u32,
    /// FP registers f0..f15, as bits.
    pub fr: [u32; 16],
    /// Their high halves, on cores with the double-precision option (the
    /// f registers are 64 bits there); zero elsewhere.
    pub fr_hi: [u32; 16],
    pub fcr: u32,
    pub fsr: u32,
    pub epc1: u32,
    pub depc: u32,
    pub exccause: u32,
    pub excvaddr: u32,
    pub vecbase: u32,
    pub cpenable: u32,
    pub prid: u32,
    pub scompare1: u32,
    /// The `s32c1i` policy (six bits; see [`CoreConfig::atomctl_reset`]).
    pub atomctl: u32,
    /// Special registers without their own field (stored, read back).
    other_sr: [u32; 256],
    /// User registers the decoder does not know but the core has.
    other_ur: [u32; 256],
    pub threadptr: u32,
    /// Interrupts and timers (see [`interrupts`]).
    pub irq: interrupts::Irq,
    /// Region protection: each 512 MiB region's attribute, instruction
    /// and data side.
    pub region_attr: [[u8; 8]; 2],
    /// The MMU's TLBs, on cores with the option.
    pub(crate) tlbs: Option<Box<mmu::Tlbs>>,
    /// Whether accesses go through [`Cpu::translate`]: what
    /// `region_attr`, the TLBs and PS.RING say, kept by
    /// `Cpu::update_translating` where they change.
    translating: bool,
    /// Retired instructions and modelled cycles.
    pub insns: u64,
    pub cycles: u64,
    /// Exceptions taken (they retire nothing, but count against budgets so
    /// a loop of faulting vectors still ends).
    pub exceptions: u64,
    pub stack_guard: Option<StackGuard>,
    /// Set by control-transfer ops: the next pc, and whether it was taken.
    next_pc: u32,
    taken: bool,
    /// The context compiled code runs with: present exactly when the JIT
    /// engine is on.
    jit: Option<Box<JitCtx>>,
}

impl Cpu {
    pub fn new(id: usize, config: CoreConfig) -> Cpu {
        let mut cpu = Cpu {
            id,
            pc: 0,
            ar: [0; 16],
            phys: [0; 64],
            windowbase: 0,
            windowstart: 1,
            free_frames: 3,
            ps: config.reset_ps,
            sar: 0,
            lbeg: 0,
            lend: 0,
            lcount: 0,
            br: 0,
            fr: [0; 16],
            fr_hi: [0; 16],
            fcr: 0,
            fsr: 0,
            epc1: 0,
            depc: 0,
            exccause: 0,
            excvaddr: 0,
            vecbase: config.vecbase,
            cpenable: 0,
            prid: id as u32,
            scompare1: 0,
            atomctl: config.atomctl_reset,
            other_sr: [0; 256],
            other_ur: [0; 256],
            threadptr: 0,
            irq: interrupts::Irq::new(),
            // QEMU's reset attribute: bypass.
            region_attr: [[mmu::REGION_RESET; 8]; 2],
            tlbs: config.mmu.then(|| Box::new(mmu::Tlbs::new())),
            translating: false,
            insns: 0,
            cycles: 0,
            exceptions: 0,
            stack_guard: None,
            next_pc: 0,
            taken: false,
            jit: None,
            config,
        };
        if cpu.tlbs.is_some() {
            cpu.other_sr[usize::from(mmu::reg::RASID)] = mmu::RASID_RESET;
        }
        cpu.update_window_check();
        cpu
    }

    /// Register a`n` of the current window.
    pub fn reg(&self, n: usize) -> u32 {
        self.ar[n & 15]
    }

    pub fn set_reg(&mut self, n: usize, value: u32) {
        self.ar[n & 15] = value;
    }

    /// Instructions plus exceptions: what budgets count.
    pub fn steps(&self) -> u64 {
        self.insns + self.exceptions
    }

    /// Number of 4-register frames in the physical file.
    fn frames(&self) -> u32 {
        self.config.nareg / 4
    }
}

/// A core's saved state (see [`Core::save`]).
pub struct SavedCore {
    cpu: Cpu,
    hook_reported: bool,
}

impl SavedCore {
    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }
}

impl Clone for SavedCore {
    fn clone(&self) -> SavedCore {
        SavedCore { cpu: self.cpu.architectural_copy(), hook_reported: self.hook_reported }
    }
}

/// A core: state plus decoded-code cache.
pub struct Core {
    pub cpu: Cpu,
    cache: BlockCache,
    /// Print every executed instruction to stderr.
    pub trace: bool,
    /// Run one instruction at a time and return [`Event::Finding`] right
    /// after an access the checker kept a finding for (the state is then
    /// that of the access: its call stack can be read).
    pub stop_on_finding: bool,
    /// Run one instruction at a time and return [`Event::WatchedLoad`]
    /// right after a load from a range `Memory::watch_loads` watches.
    pub stop_on_watched_load: bool,
    /// Stop exactly at the budget [`Core::run`] is given, never a block
    /// past it: the last instructions before it run one at a time. A
    /// debugger needs this, so that where a run pauses depends on nothing
    /// but the instruction counts (not on where blocks end, which its
    /// breakpoints change).
    pub exact: bool,
    /// Price and file every instruction (the profiling path, slower).
    pub profile: Option<Box<CoreProfile>>,
    /// Stop with [`Event::Halted`] when the pc gets here.
    pub halt_pc: Option<u32>,
    /// Addresses that raise [`Event::Hook`], and a 256-bit filter over
    /// them so the common case costs one bit test per block.
    hooks: Vec<u32>,
    hook_filter: [u64; 4],
    /// The hook at the current pc was reported; run its instruction.
    hook_taken: bool,
    /// The translating back end, when the engine is the JIT. Kept once
    /// made: cached blocks point into the code it owns.
    jit: Option<Box<Jit>>,
}

fn hook_bit(pc: u32) -> (usize, u64) {
    (((pc >> 7) & 3) as usize, 1 << ((pc >> 1) & 63))
}

/// What the JIT's decisions on a block need of a [`Core`] (its fields,
/// borrowed apart from the block cache the block lives in).
struct JitSide<'a> {
    jit: &'a mut Jit,
    cache: &'a BlockCache,
    hooks: &'a [u32],
    filter: [u64; 4],
    halt: Option<u32>,
}

impl<'a> JitSide<'a> {
    /// Counts a run of `block` towards its heat, compiling what got hot (a
    /// region needs the block cache, hence here).
    #[inline(always)]
    fn consider(&mut self, cpu: &Cpu, block: &Block) {
        // A whole loop body runs up to LCOUNT + 1 iterations per dispatch
        // (`Cpu::loop_body`): they all count, or the body would run
        // interpreted for a thousand times the threshold.
        let body = block.straight && block.start == cpu.lbeg && block.end == cpu.lend;
        let passes = if body { cpu.lcount.saturating_add(1) } else { 1 };
        let seek = self.jit.consider(block, cpu.lbeg, cpu.lend, passes);
        if seek != Seek::Nothing {
            let (cache, hooks, filter) = (self.cache, self.hooks, self.filter);
            let (lookup, excluded) = (|pc| cache.peek(pc), |pc| hooked(&filter, hooks, pc));
            match seek {
                Seek::Region => self.jit.build_region(block, lookup, excluded),
                _ => self.jit.adopt_region(block, lookup, excluded),
            }
        }
    }

    /// Runs `region` from its block `k` when nothing stands in its way
    /// (see [`Region::enterable`]); false when it did not run or ran
    /// nothing.
    #[inline(always)]
    fn enter_region(
        &self,
        cpu: &mut Cpu,
        mem: &mut Memory,
        region: &Region,
        k: usize,
        limit: u64,
    ) -> Result<bool, Event> {
        let (hooks, filter, halt) = (self.hooks, self.filter, self.halt);
        let stops = |pc: u32| halt == Some(pc) || hooked(&filter, hooks, pc);
        let check: Option<&dyn Fn(u32) -> bool> = if halt.is_some() || !hooks.is_empty() { Some(&stops) } else { None };
        if cpu.overflows(region.frames[k]) || !region.enterable(cpu.lend, check, k) {
            return Ok(false);
        }
        cpu.run_region(mem, region, k, limit - cpu.steps())
    }

    /// The region `block` heads, or else the one that covers it, with the
    /// block's number in it.
    #[inline(always)]
    fn region_of(&self, block: &'a Block) -> Option<(&'a Region, usize)> {
        if let Some(region) = block.translation.region.get() {
            return Some((region, 0));
        }
        let (head, k) = block.translation.entered_by.get()?;
        let region = self.cache.peek(head)?.translation.region.get()?;
        // Its head may have been decoded again (a new cache epoch).
        region.blocks.get(usize::from(k)).filter(|b| b.start == block.start).map(|_| (region, usize::from(k)))
    }
}

/// Whether `pc` is one of `hooks` (`filter` answers most misses).
#[inline(always)]
fn hooked(filter: &[u64; 4], hooks: &[u32], pc: u32) -> bool {
    let (word, bit) = hook_bit(pc);
    filter[word] & bit != 0 && hooks.contains(&pc)
}

impl Core {
    pub fn new(id: usize, config: CoreConfig) -> Core {
        Core {
            cpu: Cpu::new(id, config),
            cache: BlockCache::new(),
            trace: false,
            stop_on_finding: false,
            stop_on_watched_load: false,
            exact: false,
            profile: None,
            halt_pc: None,
            hooks: Vec::new(),
            hook_filter: [0; 4],
            hook_taken: false,
            jit: None,
        }
    }

    /// Resets the architectural state (a fresh start); keeps decoded code.
    pub fn reset(&mut self) {
        let (id, config, jit_on) = (self.cpu.id, self.cpu.config.clone(), self.cpu.jit.is_some());
        self.cpu = Cpu::new(id, config);
        self.cpu.jit = jit_on.then(|| Box::new(JitCtx::new(id)));
        self.halt_pc = None;
        self.hook_taken = false;
    }

    /// Chooses the back end. With the JIT, the core compiles with `shared`
    /// (made on first use: the cores of a machine pass the same one, so
    /// identical blocks compile once). Fails (and says why) when Cranelift
    /// has no code generator for this host.
    pub fn set_engine(&mut self, engine: Engine, shared: &mut Option<SharedCompiler>) -> Result<(), String> {
        self.cpu.jit = None;
        if let Engine::Jit { hot } = engine {
            if self.jit.is_none() {
                let compiler = match shared {
                    Some(compiler) => compiler.clone(),
                    None => shared.insert(Compiler::new()?).clone(),
                };
                let mut jit = Jit::new(hot, compiler);
                jit.wide_fp = self.cpu.config.isa.has(q7_isa::Feature::DoubleFloat);
                self.jit = Some(Box::new(jit));
            }
            self.cpu.jit = Some(Box::new(JitCtx::new(self.cpu.id)));
        }
        Ok(())
    }

    /// Blocks the JIT compiled so far (for all the cores sharing its
    /// compiler).
    pub fn blocks_compiled(&self) -> u64 {
        self.jit.as_ref().map_or(0, |jit| jit.compiled())
    }

    /// Regions the JIT compiled so far (of [`Core::blocks_compiled`]).
    pub fn regions_compiled(&self) -> u64 {
        self.jit.as_ref().map_or(0, |jit| jit.regions())
    }

    /// Time the JIT spent compiling so far (for all the cores sharing its
    /// compiler); `None` without the JIT.
    pub fn compile_time(&self) -> Option<std::time::Duration> {
        self.jit.as_ref().map(|jit| jit.compile_time())
    }

    /// Reports [`Event::Hook`] whenever a block starts at `pc` (function
    /// entries and return addresses always start blocks).
    pub fn add_hook(&mut self, pc: u32) {
        if !self.hooks.contains(&pc) {
            self.hooks.push(pc);
            let (word, bit) = hook_bit(pc);
            self.hook_filter[word] |= bit;
        }
    }

    #[inline(always)]
    fn at_hook(&self, pc: u32) -> bool {
        hooked(&self.hook_filter, &self.hooks, pc)
    }

    /// Runs until about `budget` more instructions retire (checked between
    /// blocks), or until an event needs the machine.
    pub fn run(&mut self, mem: &mut Memory, budget: u64) -> Event {
        let limit = self.cpu.steps().saturating_add(budget);
        // Exact: blocks, passes and regions overshoot their budget by less
        // than one block, so they run while that cannot pass `limit`.
        let fast_limit = if self.exact { limit.saturating_sub(MAX_BLOCK_OPS as u64) } else { limit };
        if let (Some(jit), Some(ctx)) = (self.jit.as_deref_mut(), self.cpu.jit.as_deref_mut()) {
            jit.pages.refresh(mem, self.cpu.id);
            jit.pages.fill(ctx, mem);
            jit.counting = !ctx.counts.is_null();
            jit.checking = mem.checker.is_some();
        }
        while self.cpu.steps() < limit {
            if self.cpu.steps() >= self.cpu.irq.check_at {
                self.cpu.service_interrupts();
            }
            // Up to a scheduled interrupt, blocks run as usual; the last
            // instructions before it run one at a time, so it is taken at
            // exactly its instruction count whatever the engine.
            let fast_limit = fast_limit.min(self.cpu.irq.check_at.saturating_sub(MAX_BLOCK_OPS as u64));
            let pc = self.cpu.pc;
            if self.halt_pc == Some(pc) {
                return Event::Halted;
            }
            let hooked_here = self.at_hook(pc);
            if hooked_here {
                if !self.hook_taken {
                    self.hook_taken = true;
                    return Event::Hook(pc);
                }
                self.hook_taken = false;
            }
            // Not the halt pc (that returned above) and not a hook: nothing
            // needs a look before this block runs again.
            let repeatable = !hooked_here;
            if !self.cpu.untranslated() {
                // The MMU maps code elsewhere or checks rights: one
                // instruction at a time, fetched through it, never cached.
                let block = match self.cpu.fetch_translated(mem, pc) {
                    Ok((bytes, n)) => {
                        let cpu = &self.cpu;
                        let fetcher =
                            Fetcher { core: cpu.id, isa: &cpu.config.isa, lend: cpu.lend, hooks: &self.hooks };
                        crate::block::decoded(pc, &bytes[..n], fetcher)
                    }
                    Err((exc, vaddr)) => match self.cpu.fetch_exception(pc, exc, vaddr) {
                        Ok(()) => continue,
                        Err(stop) => return Event::Stopped(stop),
                    },
                };
                if let Err(event) = self.cpu.exec_one(mem, &block, self.trace) {
                    return event;
                }
                continue;
            }
            let fetcher =
                Fetcher { core: self.cpu.id, isa: &self.cpu.config.isa, lend: self.cpu.lend, hooks: &self.hooks };
            let built = self.cache.built;
            let block = match self.cache.index_or_build(pc, fetcher, mem) {
                Ok(index) => self.cache.at(index),
                Err(stop) => match self.cpu.fetch_fault(pc, stop) {
                    Ok(()) => continue,
                    Err(stop) => return Event::Stopped(stop),
                },
            };
            if let (true, Some(jit)) = (self.cache.built != built, self.jit.as_deref_mut()) {
                // Decoding it may have made a page hold code, which compiled
                // code must then not write directly (`Memory::mark_code`).
                jit.pages.refresh(mem, self.cpu.id);
            }
            if let Some(profile) = self.profile.as_deref_mut() {
                if let Err(event) = self.cpu.exec_op_profiled(mem, block, profile) {
                    return event;
                }
                continue;
            }
            if self.trace || self.stop_on_finding || self.stop_on_watched_load || self.cpu.steps() >= fast_limit {
                let kept = mem.checker.as_ref().map_or(0, |c| c.findings.len());
                if let Err(event) = self.cpu.exec_one(mem, block, self.trace) {
                    return event;
                }
                if self.stop_on_finding && mem.checker.as_ref().is_some_and(|c| c.findings.len() > kept) {
                    return Event::Finding;
                }
                if self.stop_on_watched_load && mem.load_watch_hit.is_some() {
                    return Event::WatchedLoad;
                }
                continue;
            }
            let mut jit = match (self.cpu.jit.is_some(), self.jit.as_deref_mut()) {
                (true, Some(jit)) => Some(JitSide {
                    jit,
                    cache: &self.cache,
                    hooks: &self.hooks,
                    filter: self.hook_filter,
                    halt: self.halt_pc,
                }),
                _ => None,
            };
            if let Some(side) = jit.as_mut() {
                side.consider(&self.cpu, block);
                if let (true, Some((region, k))) = (repeatable, side.region_of(block)) {
                    match side.enter_region(&mut self.cpu, mem, region, k, fast_limit) {
                        Ok(true) => continue,
                        Ok(false) if block.translation.straight.get().is_none() => side.jit.region_refused(block),
                        Ok(false) => {}
                        Err(event) => return event,
                    }
                }
            }
            // A block that loops back to itself (a loop body, a spin) runs
            // again without the lookup, while nothing else needs a look.
            let epoch = mem.code_epoch;
            loop {
                let budget = fast_limit.saturating_sub(self.cpu.steps());
                if let Err(event) = self.cpu.exec_block(mem, block, budget, repeatable) {
                    return event;
                }
                // Where a `callx` or `retw` went: a region may take it in
                // (`jit::region::discover`).
                block.translation.last_exit.set(self.cpu.pc);
                let interrupts = self.cpu.irq.check_at.saturating_sub(MAX_BLOCK_OPS as u64) < fast_limit;
                if !repeatable
                    || self.cpu.pc != pc
                    || self.cpu.steps() >= fast_limit
                    || mem.code_epoch != epoch
                    || interrupts
                {
                    break;
                }
                // Each pass counts towards the block's heat; once it heads
                // a region, the next round enters that.
                if let Some(side) = jit.as_mut() {
                    side.consider(&self.cpu, block);
                    if block.translation.region.get().is_some() {
                        break;
                    }
                }
            }
        }
        Event::Budget
    }

    /// This core's state, to come back to with [`Core::restore`]: the
    /// architectural state and whether the hook at the pc was reported.
    pub fn save(&self) -> SavedCore {
        SavedCore { cpu: self.cpu.architectural_copy(), hook_reported: self.hook_taken }
    }

    /// Puts the core back in `saved` (decoded and compiled code stay: they
    /// follow memory, which the caller restores).
    pub fn restore(&mut self, saved: &SavedCore) {
        let jit = self.cpu.jit.take();
        self.cpu = saved.cpu.architectural_copy();
        self.cpu.jit = jit;
        self.hook_taken = saved.hook_reported;
    }

    /// Whether the hook at the pc was reported (the next [`Core::run`]
    /// runs its instruction rather than report it again).
    pub fn hook_reported(&self) -> bool {
        self.hook_taken
    }

    pub fn set_hook_reported(&mut self, reported: bool) {
        self.hook_taken = reported;
    }

    /// Blocks decoded so far (for statistics).
    pub fn blocks_built(&self) -> u64 {
        self.cache.built
    }
}

#[cfg(test)]
mod tests;
