//! The interpreter: runs one cached block of ops against a [`Cpu`].
//!
//! Per block, before any op runs, two things are settled so the op loop
//! itself carries no per-instruction checks: a zero-overhead loop end that
//! falls inside the block cuts it there, and the window overflow check is
//! resolved for the whole block (no op inside a block rotates the window, so
//! the first op naming a frame that is not free is where overflow happens).

use crate::alu;
use crate::block::{Block, HostCode};
use crate::cost::TAKEN_BRANCH;
use crate::cpu::mmu::Access;
use crate::cpu::{Cpu, Event};
use crate::mem::Memory;
use crate::ps;
use crate::stop::{cause, Stop};
use crate::uop::{Kind, Op};

/// How an op left the straight path.
pub(crate) enum Trap {
    /// The pc is already redirected (an exception vectored, a window
    /// exception was raised): retire nothing more, continue from `Cpu::pc`.
    Redirect,
    /// The op was a `simcall`: retire it and hand over to the machine.
    Simcall,
    Stop(Stop),
}

impl From<Stop> for Trap {
    fn from(stop: Stop) -> Trap {
        Trap::Stop(stop)
    }
}

pub(super) type Step = Result<(), Trap>;

impl Cpu {
    /// Executes `block` from its start, and when it is a whole
    /// zero-overhead loop body, up to `budget` instructions of further
    /// iterations. `Err` carries an event for the machine.
    #[inline(always)]
    pub(crate) fn exec_block(
        &mut self,
        mem: &mut Memory,
        block: &Block,
        budget: u64,
        repeat: bool,
    ) -> Result<(), Event> {
        let ops = &block.ops[..];
        if block.start == self.lbeg
            && block.end == self.lend
            && self.lcount > 0
            && block.straight
            && self.loop_body(mem, block, budget)?
        {
            return Ok(());
        }
        let mut n = ops.len();
        let mut full = true;
        // start < LEND < end: the loop body ends inside this block.
        if self.lend.wrapping_sub(block.start).wrapping_sub(1) < block.end.wrapping_sub(block.start).wrapping_sub(1) {
            if let Some(i) = ops.iter().position(|op| op.next_pc() == self.lend) {
                n = i + 1;
                full = false;
            }
        }
        let mut overflow_at = None;
        if self.overflows(block.max_frame) {
            if let Some(i) = ops[..n].iter().position(|op| self.overflows(op.frame)) {
                n = i;
                full = false;
                overflow_at = Some(i);
            }
        }
        self.taken = false;
        self.next_pc = match n {
            0 => block.start,
            _ => ops[n - 1].next_pc(),
        };
        // Compiled code runs a prefix of the block (all of it, usually);
        // the interpreter goes on from where it stopped.
        let mut first = 0;
        if let (true, None, Some(code)) = (full, overflow_at, block.translation.straight.get()) {
            // A block that branches back to itself runs in compiled code
            // as many passes as the interpreter would start within `budget`
            // (`repeat`: nothing else needs a look at its start; 0 = one
            // pass); `done` whole passes, each ending taken, came first.
            let (next, done) = self.enter(mem, block, code, if repeat { budget } else { 0 });
            first = next;
            self.insns += done * n as u64;
            self.cycles += done * (block.cycles + TAKEN_BRANCH);
        }
        for (i, op) in ops[..n].iter().enumerate().skip(first) {
            if let Err(trap) = self.step(mem, op) {
                return self.trap(ops, i, trap);
            }
        }
        self.insns += n as u64;
        self.cycles += if full { block.cycles } else { ops[..n].iter().map(|op| u64::from(op.cycles)).sum() };
        if let Some(i) = overflow_at {
            self.exceptions += 1;
            self.window_overflow(ops[i].pc);
            return Ok(());
        }
        self.advance();
        Ok(())
    }

    /// Runs whole iterations of a loop body that is exactly `block` (no
    /// control transfers inside, LBEG..LEND): the loop-back needs no checks
    /// between iterations, only LCOUNT. Leaves the last iteration (LCOUNT
    /// = 0 afterwards, or budget reached) to the normal path.
    ///
    /// Returns true when the pc left the loop (an exception vectored) or the
    /// block's bytes were overwritten: the caller must not run it again.
    fn loop_body(&mut self, mem: &mut Memory, block: &Block, budget: u64) -> Result<bool, Event> {
        let ops = &block.ops[..];
        let n = ops.len() as u64;
        if self.ps & ps::EXCM != 0 || self.overflows(block.max_frame) || n == 0 {
            return Ok(false);
        }
        let iterations = u64::from(self.lcount).min(budget / n);
        if let (Some(code), true) = (block.translation.looped.get(), iterations > 0) {
            return self.loop_compiled(mem, block, code, iterations);
        }
        if let Some(pure) = &block.pure {
            // Registers only: no op can trap, so run on a local copy.
            let mut regs = self.ar;
            alu::run(pure, &mut regs, self.sar, iterations);
            self.ar = regs;
            self.retire_iterations(block, iterations);
            return Ok(false);
        }
        let epoch = mem.code_epoch;
        for done in 0..iterations {
            for (i, op) in ops.iter().enumerate() {
                if let Err(trap) = self.step(mem, op) {
                    self.retire_iterations(block, done);
                    return self.trap(ops, i, trap).map(|()| true);
                }
            }
            if mem.code_epoch != epoch {
                // The body rewrote code: stop at the iteration boundary (the
                // pc is LBEG) and let the cache decode afresh.
                self.retire_iterations(block, done + 1);
                return Ok(true);
            }
        }
        self.retire_iterations(block, iterations);
        Ok(false)
    }

    /// [`Cpu::loop_body`] with the body compiled as a loop. When compiled
    /// code stops inside an iteration, the interpreter finishes that one
    /// iteration and hands back (true): the next call resumes compiled.
    fn loop_compiled(
        &mut self,
        mem: &mut Memory,
        block: &Block,
        code: HostCode,
        iterations: u64,
    ) -> Result<bool, Event> {
        let ops = &block.ops[..];
        let (next, done) = self.enter(mem, block, code, iterations);
        self.retire_iterations(block, done);
        if done == iterations {
            return Ok(false);
        }
        for (i, op) in ops.iter().enumerate().skip(next) {
            if let Err(trap) = self.step(mem, op) {
                return self.trap(ops, i, trap).map(|()| true);
            }
        }
        self.retire_iterations(block, 1);
        Ok(true)
    }

    fn retire_iterations(&mut self, block: &Block, iterations: u64) {
        self.lcount -= iterations as u32;
        self.insns += iterations * block.ops.len() as u64;
        self.cycles += iterations * block.cycles;
    }

    /// Like [`Cpu::exec_block`], one op at a time (the op at the pc),
    /// printing each to stderr when `trace`.
    pub(crate) fn exec_one(&mut self, mem: &mut Memory, block: &Block, trace: bool) -> Result<(), Event> {
        let pc = self.pc;
        let Some(i) = block.ops.iter().position(|op| op.pc == pc) else {
            return self.exec_block(mem, block, 0, false);
        };
        let op = block.ops[i];
        if trace {
            let mut bytes = [0u8; 3];
            let text = match mem.fetch(self.id, op.pc, &mut bytes) {
                Ok(n) => q7_isa::decode(&bytes[..n], op.pc, &self.config.isa)
                    .map_or_else(|_| op.opcode.mnemonic().to_string(), |insn| insn.to_string().replace('\t', " ")),
                Err(_) => op.opcode.mnemonic().to_string(),
            };
            eprintln!("core {} {:#010x}: {text}", self.id, op.pc);
        }
        if self.overflows(op.frame) {
            self.exceptions += 1;
            self.window_overflow(op.pc);
            return Ok(());
        }
        if self.irq.watching && self.data_break(&op) {
            return Ok(());
        }
        self.taken = false;
        self.next_pc = op.next_pc();
        if let Err(trap) = self.step(mem, &op) {
            return self.trap(std::slice::from_ref(&op), 0, trap);
        }
        self.insns += 1;
        self.cycles += u64::from(op.cycles);
        self.advance();
        Ok(())
    }

    /// Moves to the next pc, applying the zero-overhead loop-back when the
    /// sequential path reaches LEND.
    #[inline(always)]
    pub(super) fn advance(&mut self) {
        let mut next = self.next_pc;
        if self.taken {
            self.cycles += TAKEN_BRANCH;
        } else if next == self.lend && self.lcount != 0 && self.ps & ps::EXCM == 0 {
            self.lcount -= 1;
            next = self.lbeg;
        }
        self.pc = next;
    }

    /// Ends a block early at op `i`, which trapped.
    #[cold]
    pub(super) fn trap(&mut self, ops: &[Op], i: usize, trap: Trap) -> Result<(), Event> {
        self.insns += i as u64;
        self.cycles += ops[..i].iter().map(|op| u64::from(op.cycles)).sum::<u64>();
        match trap {
            Trap::Redirect => {
                self.exceptions += 1;
                Ok(())
            }
            Trap::Simcall => {
                self.insns += 1;
                self.cycles += u64::from(ops[i].cycles);
                self.taken = false;
                self.next_pc = ops[i].next_pc();
                self.advance();
                Err(Event::Simcall)
            }
            Trap::Stop(stop) => {
                self.pc = ops[i].pc;
                Err(Event::Stopped(stop))
            }
        }
    }

    /// Raises exception `exc` for the op: vectors (Redirect) or stops.
    #[cold]
    pub(super) fn exception(&mut self, op: &Op, exc: u32, vaddr: Option<u32>, report: Stop) -> Trap {
        match self.raise(op.pc, exc, vaddr, report) {
            Ok(()) => Trap::Redirect,
            Err(stop) => Trap::Stop(stop),
        }
    }

    /// Exception `exc` (EXCVADDR `vaddr`, when given) raised by `op`; a
    /// stop naming the cause where the program has no handlers.
    #[cold]
    pub(super) fn unhandled(&mut self, op: &Op, exc: u32, vaddr: Option<u32>) -> Trap {
        self.exception(op, exc, vaddr, Stop::Unhandled { pc: op.pc, cause: exc })
    }

    /// An FP op, or an FP state register's `rur`/`wur`, with CPENABLE's
    /// coprocessor-0 bit clear.
    #[cold]
    pub(super) fn coprocessor0_disabled(&mut self, op: &Op) -> Trap {
        self.unhandled(op, cause::COPROCESSOR0_DISABLED, None)
    }

    #[cold]
    fn unaligned(&mut self, op: &Op, addr: u32, size: u8, store: bool) -> Trap {
        let report = Stop::Unaligned { pc: op.pc, addr, size, store };
        self.exception(op, cause::LOAD_STORE_ALIGNMENT, Some(addr), report)
    }

    /// A load or store the memory refused: LoadStorePIFAddrError into the
    /// program (as QEMU's boards do for unmapped addresses), or, on op
    /// images (no handlers), a stop naming what lies there.
    #[cold]
    fn mem_fault(&mut self, mem: &Memory, op: &Op, fault: crate::mem::MemFault) -> Trap {
        let explanation = mem.explain_fault(self.id, &fault);
        let report = Stop::Memory { pc: op.pc, fault, explanation };
        self.exception(op, cause::LOAD_STORE_PIF_ADDR_ERROR, Some(fault.addr), report)
    }

    /// The address an access reaches: `addr` itself unless the MMU
    /// translates; then its exception when it refuses.
    #[inline(always)]
    fn physical_address(&mut self, mem: &Memory, op: &Op, addr: u32, access: Access) -> Result<u32, Trap> {
        if self.untranslated() {
            return Ok(addr);
        }
        self.translated(mem, op, addr, access)
    }

    #[cold]
    fn translated(&mut self, mem: &Memory, op: &Op, addr: u32, access: Access) -> Result<u32, Trap> {
        self.translate(mem, addr, access).map_err(|exc| self.unhandled(op, exc, Some(addr)))
    }

    #[inline(always)]
    fn aligned(&self, addr: u32, size: u32) -> u32 {
        // Without the unaligned-exception option the low bits are ignored.
        if self.config.unaligned_exception {
            addr
        } else {
            addr & !(size - 1)
        }
    }

    #[inline(always)]
    pub(crate) fn load32(&mut self, mem: &mut Memory, op: &Op, addr: u32) -> Result<u32, Trap> {
        let addr = self.aligned(addr, 4);
        if addr & 3 != 0 {
            return Err(self.unaligned(op, addr, 4, false));
        }
        let addr = self.physical_address(mem, op, addr, Access::Load)?;
        match mem.load::<4>(self.id, op.pc, addr) {
            Ok(b) => Ok(u32::from_le_bytes(b)),
            Err(f) => Err(self.mem_fault(mem, op, f)),
        }
    }

    /// An 8-byte load (the double-precision option's `ldi`...), aligned as
    /// QEMU checks it.
    pub(crate) fn load64(&mut self, mem: &mut Memory, op: &Op, addr: u32) -> Result<u64, Trap> {
        let addr = self.aligned(addr, 8);
        if addr & 7 != 0 {
            return Err(self.unaligned(op, addr, 8, false));
        }
        let addr = self.physical_address(mem, op, addr, Access::Load)?;
        match mem.load::<8>(self.id, op.pc, addr) {
            Ok(b) => Ok(u64::from_le_bytes(b)),
            Err(f) => Err(self.mem_fault(mem, op, f)),
        }
    }

    pub(crate) fn store64(&mut self, mem: &mut Memory, op: &Op, addr: u32, value: u64) -> Step {
        let addr = self.aligned(addr, 8);
        if addr & 7 != 0 {
            return Err(self.unaligned(op, addr, 8, true));
        }
        let addr = self.physical_address(mem, op, addr, Access::Store)?;
        mem.store(self.id, op.pc, addr, value.to_le_bytes()).map_err(|f| self.mem_fault(mem, op, f))
    }

    #[inline(always)]
    fn load16(&mut self, mem: &mut Memory, op: &Op, addr: u32) -> Result<u16, Trap> {
        let addr = self.aligned(addr, 2);
        if addr & 1 != 0 {
            return Err(self.unaligned(op, addr, 2, false));
        }
        let addr = self.physical_address(mem, op, addr, Access::Load)?;
        match mem.load::<2>(self.id, op.pc, addr) {
            Ok(b) => Ok(u16::from_le_bytes(b)),
            Err(f) => Err(self.mem_fault(mem, op, f)),
        }
    }

    #[inline(always)]
    fn load8(&mut self, mem: &mut Memory, op: &Op, addr: u32) -> Result<u8, Trap> {
        let addr = self.physical_address(mem, op, addr, Access::Load)?;
        match mem.load::<1>(self.id, op.pc, addr) {
            Ok(b) => Ok(b[0]),
            Err(f) => Err(self.mem_fault(mem, op, f)),
        }
    }

    #[inline(always)]
    pub(crate) fn store32(&mut self, mem: &mut Memory, op: &Op, addr: u32, value: u32) -> Step {
        let addr = self.aligned(addr, 4);
        if addr & 3 != 0 {
            return Err(self.unaligned(op, addr, 4, true));
        }
        let addr = self.physical_address(mem, op, addr, Access::Store)?;
        mem.store(self.id, op.pc, addr, value.to_le_bytes()).map_err(|f| self.mem_fault(mem, op, f))
    }

    #[inline(always)]
    fn store16(&mut self, mem: &mut Memory, op: &Op, addr: u32, value: u16) -> Step {
        let addr = self.aligned(addr, 2);
        if addr & 1 != 0 {
            return Err(self.unaligned(op, addr, 2, true));
        }
        let addr = self.physical_address(mem, op, addr, Access::Store)?;
        mem.store(self.id, op.pc, addr, value.to_le_bytes()).map_err(|f| self.mem_fault(mem, op, f))
    }

    #[inline(always)]
    fn store8(&mut self, mem: &mut Memory, op: &Op, addr: u32, value: u8) -> Step {
        let addr = self.physical_address(mem, op, addr, Access::Store)?;
        mem.store(self.id, op.pc, addr, [value]).map_err(|f| self.mem_fault(mem, op, f))
    }

    #[inline(always)]
    fn jump(&mut self, target: u32) {
        self.next_pc = target;
        self.taken = true;
    }

    /// The return-address word of a windowed call with increment `n`.
    #[inline(always)]
    fn windowed_call(&mut self, op: &Op, target: u32) {
        let n = op.imm;
        self.ar[usize::from(op.a & 15)] = n << 30 | (op.next_pc() & 0x3fff_ffff);
        self.ps = (self.ps & !ps::CALLINC_MASK) | n << ps::CALLINC_SHIFT;
        self.jump(target);
    }

    /// Executes one op. Straight-line ops touch only registers and memory;
    /// control ops set `next_pc`/`taken`.
    #[inline(always)]
    pub(super) fn step(&mut self, mem: &mut Memory, op: &Op) -> Step {
        // Assigns fields directly: `r` (a borrow of `self.ar`) may be live.
        macro_rules! branch_if {
            ($cond:expr) => {{
                if $cond {
                    self.next_pc = op.target;
                    self.taken = true;
                }
            }};
        }
        let a = usize::from(op.a & 15);
        let b = usize::from(op.b & 15);
        let c = usize::from(op.c & 15);
        let sar = self.sar;
        let r = &mut self.ar;
        match op.kind {
            Kind::Alu(alu_op) => r[a] = alu::eval(alu_op, r, a, b, c, op.imm, sar),
            Kind::Quos | Kind::Quou | Kind::Rems | Kind::Remu => {
                let (x, y) = (r[b], r[c]);
                if y == 0 {
                    let report = Stop::DivideByZero { pc: op.pc };
                    return Err(self.exception(op, cause::INTEGER_DIVIDE_BY_ZERO, None, report));
                }
                r[a] = match op.kind {
                    Kind::Quos => (x as i32).wrapping_div(y as i32) as u32,
                    Kind::Quou => x / y,
                    Kind::Rems => (x as i32).wrapping_rem(y as i32) as u32,
                    _ => x % y,
                };
            }
            Kind::Ssr => self.sar = r[b] & 31,
            Kind::Ssl => self.sar = 32 - (r[b] & 31),
            Kind::Ssa8l => self.sar = (r[b] & 3) * 8,
            Kind::Ssa8b => self.sar = 32 - (r[b] & 3) * 8,
            Kind::Ssai => self.sar = op.imm,
            Kind::L8ui => {
                let addr = r[b].wrapping_add(op.imm);
                self.ar[a] = u32::from(self.load8(mem, op, addr)?);
            }
            Kind::L16ui => {
                let addr = r[b].wrapping_add(op.imm);
                self.ar[a] = u32::from(self.load16(mem, op, addr)?);
            }
            Kind::L16si => {
                let addr = r[b].wrapping_add(op.imm);
                self.ar[a] = self.load16(mem, op, addr)? as i16 as i32 as u32;
            }
            Kind::L32i | Kind::L32e => {
                let addr = r[b].wrapping_add(op.imm);
                self.ar[a] = self.load32(mem, op, addr)?;
            }
            Kind::L32r => self.ar[a] = self.load32(mem, op, op.target)?,
            Kind::S8i => {
                let (addr, value) = (r[b].wrapping_add(op.imm), r[a] as u8);
                self.store8(mem, op, addr, value)?;
            }
            Kind::S16i => {
                let (addr, value) = (r[b].wrapping_add(op.imm), r[a] as u16);
                self.store16(mem, op, addr, value)?;
            }
            Kind::S32i | Kind::S32e => {
                let (addr, value) = (r[b].wrapping_add(op.imm), r[a]);
                self.store32(mem, op, addr, value)?;
            }
            Kind::S32c1i => {
                let addr = r[b].wrapping_add(op.imm);
                // ATOMCTL's policy for the access type comes before the
                // alignment check (as QEMU orders them). The simulated
                // memories have no cache: every access is bypass.
                if self.atomctl & 3 == 0 {
                    return Err(self.unhandled(op, cause::LOAD_STORE_ERROR, Some(addr)));
                }
                let old = self.load32(mem, op, addr)?;
                if old == self.scompare1 {
                    let value = self.ar[a];
                    self.store32(mem, op, addr, value)?;
                    mem.uncount(self.id, addr);
                }
                self.ar[a] = old;
            }
            Kind::Mac16 => return self.mac16(mem, op),
            Kind::Fp64 => return self.step_fp64(mem, op),
            Kind::Tlb => return self.tlb(op),
            Kind::CacheProbe => {
                let addr = r[b].wrapping_add(op.imm);
                self.load8(mem, op, addr)?;
            }
            Kind::Beq => branch_if!(r[b] == r[c]),
            Kind::Bne => branch_if!(r[b] != r[c]),
            Kind::Blt => branch_if!((r[b] as i32) < (r[c] as i32)),
            Kind::Bge => branch_if!((r[b] as i32) >= (r[c] as i32)),
            Kind::Bltu => branch_if!(r[b] < r[c]),
            Kind::Bgeu => branch_if!(r[b] >= r[c]),
            Kind::Ball => branch_if!(!r[b] & r[c] == 0),
            Kind::Bnall => branch_if!(!r[b] & r[c] != 0),
            Kind::Bany => branch_if!(r[b] & r[c] != 0),
            Kind::Bnone => branch_if!(r[b] & r[c] == 0),
            Kind::Bbc => branch_if!(r[b] & (1 << (r[c] & 31)) == 0),
            Kind::Bbs => branch_if!(r[b] & (1 << (r[c] & 31)) != 0),
            Kind::Beqi => branch_if!(r[b] == op.imm),
            Kind::Bnei => branch_if!(r[b] != op.imm),
            Kind::Blti => branch_if!((r[b] as i32) < op.imm as i32),
            Kind::Bgei => branch_if!((r[b] as i32) >= op.imm as i32),
            Kind::Bltui => branch_if!(r[b] < op.imm),
            Kind::Bgeui => branch_if!(r[b] >= op.imm),
            Kind::Bbci => branch_if!(r[b] & (1 << (op.imm & 31)) == 0),
            Kind::Bbsi => branch_if!(r[b] & (1 << (op.imm & 31)) != 0),
            Kind::Beqz => branch_if!(r[b] == 0),
            Kind::Bnez => branch_if!(r[b] != 0),
            Kind::Bltz => branch_if!((r[b] as i32) < 0),
            Kind::Bgez => branch_if!((r[b] as i32) >= 0),
            Kind::Bf => branch_if!(self.br & (1 << b) == 0),
            Kind::Bt => branch_if!(self.br & (1 << b) != 0),
            Kind::J => self.jump(op.target),
            Kind::Jx => {
                let target = r[b];
                self.jump(target);
            }
            Kind::Call0 => {
                r[0] = op.next_pc();
                self.jump(op.target);
            }
            Kind::Callx0 => {
                let target = r[b];
                self.ar[0] = op.next_pc();
                self.jump(target);
            }
            Kind::CallN => self.windowed_call(op, op.target),
            Kind::CallxN => {
                let target = r[b];
                self.windowed_call(op, target);
            }
            Kind::Ret => {
                let target = r[0];
                self.jump(target);
            }
            Kind::Retw => {
                if let Some(why) = self.illegal_retw() {
                    let report = Stop::BadReturn { pc: op.pc, why };
                    return Err(self.exception(op, cause::ILLEGAL_INSTRUCTION, None, report));
                }
                self.retw(op.pc);
                self.taken = true;
            }
            Kind::Entry => {
                if !self.entry(op.pc, op.b, op.imm)? {
                    return Err(Trap::Redirect);
                }
            }
            Kind::Movsp => self.movsp(mem, op)?,
            Kind::Rotw => {
                let wb = self.windowbase.wrapping_add(op.imm);
                self.set_windowbase(wb);
            }
            Kind::Rfwo | Kind::Rfwu => {
                self.return_from_window_exception(op.kind == Kind::Rfwu);
                self.taken = true;
            }
            Kind::Rfe => {
                self.set_ps(self.ps & !ps::EXCM);
                self.jump(self.epc1);
            }
            Kind::Rfde => self.jump(self.depc),
            Kind::Rfi => {
                let level = (op.imm & 7) as u8;
                let epc = self.read_sr(176 + level);
                let eps = self.read_sr(192 + level);
                self.set_ps(eps);
                self.jump(epc);
            }
            Kind::Loop | Kind::Loopnez | Kind::Loopgtz => {
                let count = r[b];
                self.lbeg = op.next_pc();
                self.lend = op.target;
                self.lcount = count.wrapping_sub(1);
                let skip = match op.kind {
                    Kind::Loopnez => count == 0,
                    Kind::Loopgtz => (count as i32) <= 0,
                    _ => false,
                };
                if skip {
                    self.lcount = 0;
                    self.jump(op.target);
                }
            }
            Kind::Andb => self.set_bool(a, self.bool_reg(b) & self.bool_reg(c)),
            Kind::Andbc => self.set_bool(a, self.bool_reg(b) & !self.bool_reg(c)),
            Kind::Orb => self.set_bool(a, self.bool_reg(b) | self.bool_reg(c)),
            Kind::Orbc => self.set_bool(a, self.bool_reg(b) | !self.bool_reg(c)),
            Kind::Xorb => self.set_bool(a, self.bool_reg(b) ^ self.bool_reg(c)),
            Kind::Any4 => self.set_bool(a, (self.br >> b) & 0xf != 0),
            Kind::All4 => self.set_bool(a, (self.br >> b) & 0xf == 0xf),
            Kind::Any8 => self.set_bool(a, (self.br >> b) & 0xff != 0),
            Kind::All8 => self.set_bool(a, (self.br >> b) & 0xff == 0xff),
            Kind::Movf => {
                if !self.bool_reg(c) {
                    self.ar[a] = self.ar[b];
                }
            }
            Kind::Movt => {
                if self.bool_reg(c) {
                    self.ar[a] = self.ar[b];
                }
            }
            Kind::Rsr | Kind::Wsr | Kind::Xsr | Kind::Rur | Kind::Wur => return self.register_access(op),
            Kind::Rsil => {
                self.ar[a] = self.ps;
                self.set_ps((self.ps & !ps::INTLEVEL_MASK) | (op.imm & ps::INTLEVEL_MASK));
            }
            Kind::Break => {
                let report = Stop::Breakpoint { pc: op.pc, s: op.imm, t: op.target };
                if self.break_instruction(op.pc, op.len == 2, report)? {
                    return Err(Trap::Redirect);
                }
            }
            Kind::Ill => {
                let report = Stop::Illegal { pc: op.pc, bytes: op_bytes(op), why: "the `ill` instruction".into() };
                return Err(self.exception(op, cause::ILLEGAL_INSTRUCTION, None, report));
            }
            Kind::Undecodable => return self.undecodable(op),
            Kind::Unsupported => {
                return Err(Trap::Stop(Stop::Unsupported { pc: op.pc, mnemonic: op.opcode.mnemonic() }));
            }
            Kind::Syscall => {
                return Err(self.unhandled(op, cause::SYSCALL, None));
            }
            Kind::Simcall => return Err(Trap::Simcall),
            Kind::Waiti => self.waiti(op.pc, op.imm & ps::INTLEVEL_MASK)?,
            Kind::AddS
            | Kind::SubS
            | Kind::MulS
            | Kind::MaddS
            | Kind::MsubS
            | Kind::MaddnS
            | Kind::DivnS
            | Kind::MovS
            | Kind::AbsS
            | Kind::NegS
            | Kind::ConstS
            | Kind::Div0S
            | Kind::Recip0S
            | Kind::Sqrt0S
            | Kind::Rsqrt0S
            | Kind::Nexp01S
            | Kind::MksadjS
            | Kind::MkdadjS
            | Kind::AddexpS
            | Kind::AddexpmS
            | Kind::Rfr
            | Kind::Wfr
            | Kind::RoundS
            | Kind::TruncS
            | Kind::FloorS
            | Kind::CeilS
            | Kind::UtruncS
            | Kind::FloatS
            | Kind::UfloatS
            | Kind::UnS
            | Kind::OeqS
            | Kind::UeqS
            | Kind::OltS
            | Kind::UltS
            | Kind::OleS
            | Kind::UleS
            | Kind::MoveqzS
            | Kind::MovnezS
            | Kind::MovltzS
            | Kind::MovgezS
            | Kind::MovfS
            | Kind::MovtS
            | Kind::Lsi
            | Kind::Lsiu
            | Kind::Lsip
            | Kind::Lsx
            | Kind::Lsxu
            | Kind::Lsxp
            | Kind::Ssi
            | Kind::Ssiu
            | Kind::Ssip
            | Kind::Ssx
            | Kind::Ssxu
            | Kind::Ssxp => return self.step_single(mem, op),
        }
        Ok(())
    }

    #[inline(always)]
    fn bool_reg(&self, n: usize) -> bool {
        self.br & (1 << n) != 0
    }

    #[inline(always)]
    pub(crate) fn set_bool(&mut self, n: usize, value: bool) {
        self.br = (self.br & !(1 << n)) | u32::from(value) << n;
    }

    /// `movsp at, as`: Alloca when the caller's frame is not in registers.
    fn movsp(&mut self, mem: &mut Memory, op: &Op) -> Step {
        let (a, b) = (usize::from(op.a & 15), usize::from(op.b & 15));
        let new_sp = self.ar[b];
        let windowed = self.config.has(q7_isa::Feature::Windowed);
        if windowed && !self.caller_frame_live() {
            if !self.firmware_services_alloca() {
                return Err(self.unhandled(op, cause::ALLOCA, None));
            }
            // The save areas overlap when the stack pointer moves by less
            // than 16 bytes: read all four words before writing any.
            let old_sp = self.ar[a];
            let mut save = [0u32; 4];
            for (k, word) in save.iter_mut().enumerate() {
                *word = self.load32(mem, op, old_sp.wrapping_sub(16).wrapping_add(4 * k as u32))?;
            }
            for (k, word) in save.into_iter().enumerate() {
                self.store32(mem, op, new_sp.wrapping_sub(16).wrapping_add(4 * k as u32), word)?;
            }
        }
        self.check_stack(op.pc, new_sp)?;
        self.ar[a] = new_sp;
        Ok(())
    }
}

/// The bytes of an `ill`/`ill.n` or undecodable op, for reports.
pub(super) fn op_bytes(op: &Op) -> Vec<u8> {
    let word = match (op.kind, op.len) {
        (Kind::Undecodable, _) => op.imm,
        (Kind::Ill, 2) => 0xf06d,
        (Kind::Ill, _) => 0,
        // Register transfers: the register number and the operand are
        // all the encoding holds besides the opcode.
        (Kind::Rsr, _) => 0x03_0000 | op.imm << 8 | u32::from(op.a & 15) << 4,
        (Kind::Wsr, _) => 0x13_0000 | op.imm << 8 | u32::from(op.a & 15) << 4,
        (Kind::Xsr, _) => 0x61_0000 | op.imm << 8 | u32::from(op.a & 15) << 4,
        (Kind::Rur, _) => 0xe3_0000 | u32::from(op.a & 15) << 12 | op.imm << 4,
        (Kind::Wur, _) => 0xf3_0000 | op.imm << 8 | u32::from(op.a & 15) << 4,
        _ => 0,
    };
    word.to_le_bytes()[..usize::from(op.len)].to_vec()
}
