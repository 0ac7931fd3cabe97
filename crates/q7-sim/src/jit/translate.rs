//! A block's ops as Cranelift IR. Guest registers are frontend variables
//! (SSA values inside the function), loaded on entry and stored back at
//! every exit; each op that can leave the inline path gets an exit block
//! returning its index. Semantics mirror `alu::eval` and `Cpu::step`
//! exactly; the unit tests compare them on random states.

mod fp;
mod window;

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{AbiParam, Endianness, Function, InstBuilder, MemFlagsData, SigRef, Signature, Value};
use cranelift_codegen::isa::TargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};

use crate::alu::AluOp;
use crate::block::Block;
use crate::checks::{StackWindow, HOST_WRITER};
use crate::jit::runtime::{slow_load, slow_store, CheckWindow, LOAD_FAULT, STORE_DONE, STORE_HIT_CODE};
use crate::jit::{Flavor, JitCtx, Shape};
use crate::mem::{ClassCounts, PAGE_SHIFT};
use crate::uop::{Kind, Op};
use fp::Uses;

/// Whether compiled code runs this kind of op (anything else ends the
/// compiled prefix of a block).
pub fn translatable(kind: Kind) -> bool {
    use Kind::*;
    matches!(
        kind,
        Alu(_)
            | Ssr
            | Ssl
            | Ssa8l
            | Ssa8b
            | Ssai
            | L8ui
            | L16ui
            | L16si
            | L32i
            | L32e
            | L32r
            | S8i
            | S16i
            | S32i
            | S32e
            | J
            | CallN
            | CallxN
            | Entry
            | Retw
            | Bf
            | Bt
    ) || kind.is_conditional_branch()
        || fp::inline(kind)
        || fp::called(kind)
}

/// Whether the translation reads `op.target` (as an address relative to
/// the block: see [`Translator::relocated`]).
pub(super) fn uses_target(kind: Kind) -> bool {
    matches!(kind, Kind::J | Kind::L32r | Kind::CallN) || kind.is_conditional_branch()
}

/// Whether `block` translates whole (`ops` is all of it) and ends with a
/// branch or jump back to its own start: a loop compiled code can run.
fn branches_to_itself(block: &Block, ops: &[Op]) -> bool {
    ops.len() == block.ops.len()
        && ops
            .last()
            .is_some_and(|op| (op.kind == Kind::J || op.kind.is_conditional_branch()) && op.target == block.start)
}

fn is_fp(kind: Kind) -> bool {
    fp::inline(kind) || fp::called(kind)
}

/// The registers an op reads and writes.
fn uses(op: &Op) -> Uses {
    let (a, b, c) = (1u16 << (op.a & 15), 1u16 << (op.b & 15), 1u16 << (op.c & 15));
    let (ar_read, ar_write) = match op.kind {
        kind if is_fp(kind) => return fp::uses(op),
        Kind::Alu(AluOp::Movi) => (0, a),
        Kind::Alu(AluOp::Nop) => (0, 0),
        // The conditional moves keep the old a(a).
        Kind::Alu(AluOp::Moveqz | AluOp::Movnez | AluOp::Movltz | AluOp::Movgez) => (a | b | c, a),
        Kind::Alu(_) => (b | c, a),
        Kind::Ssr | Kind::Ssl | Kind::Ssa8l | Kind::Ssa8b => (b, 0),
        // `entry` and `retw` go through memory (`window::window_op`).
        Kind::Ssai | Kind::J | Kind::Bf | Kind::Bt | Kind::Entry | Kind::Retw => (0, 0),
        Kind::L8ui | Kind::L16ui | Kind::L16si | Kind::L32i | Kind::L32e => (b, a),
        Kind::L32r | Kind::CallN => (0, a),
        Kind::CallxN => (b, a),
        Kind::S8i | Kind::S16i | Kind::S32i | Kind::S32e => (a | b, 0),
        _ => (b | c, 0),
    };
    Uses { ar_read, ar_write, ..Uses::default() }
}

pub(super) const TRUSTED: MemFlagsData = MemFlagsData::trusted();

/// Guest memory: little-endian whatever the host, never trapping (bounds
/// are tested first), no alignment promised (host buffers are bytes).
fn guest() -> MemFlagsData {
    MemFlagsData::new().with_notrap().with_endianness(Endianness::Little)
}

pub(super) struct Translator<'a, 'f> {
    pub(super) b: &'a mut FunctionBuilder<'f>,
    pub(super) ctx: Value,
    pub(super) fr: Value,
    /// `JitCtx::fr_hi`, when the core's f registers are 64 bits wide.
    pub(super) fr_hi: Option<Value>,
    regs: [Variable; 16],
    pub(super) fregs: [Variable; 16],
    /// CPENABLE bit 0 clear (i8): FP ops exit.
    fp_off: Option<Value>,
    sar: Variable,
    /// Loop and self-loop shapes: iterations completed so far; region
    /// shape: instructions and cycles retired in finished blocks, packed
    /// (i64, stored to `ctx.done` on leaving).
    pub(super) done: Option<Variable>,
    /// Or-ed into every exit index (a region's block number, `k << 16`).
    pub(super) exit_tag: u32,
    /// Where the current block's ops start in `ctx.ops` (for `fp_step`).
    pub(super) fp_base: u32,
    written: u16,
    /// The registers loaded on entry (and again after the window rotates).
    read: u16,
    f_written: u16,
    sar_written: bool,
    load_sig: SigRef,
    store_sig: SigRef,
    pub(super) fp_sig: SigRef,
    window_sig: SigRef,
    pub(super) ptr: cranelift_codegen::ir::Type,
    /// The guest address the block was decoded at, and (at run time) where
    /// the running copy starts: see [`Translator::relocated`].
    start: u32,
    /// Exit blocks to fill, with the op index each returns.
    exits: Vec<(cranelift_codegen::ir::Block, u32)>,
    /// Count the accesses compiled code makes itself (`crate::tally`).
    counting: bool,
    /// Emit the checker's in-line paths (see [`Flavor::checking`]).
    checking: bool,
}

/// Builds `func` (signature of `HostCode`) for `blocks` in `shape`: one
/// block, but for [`Shape::Region`] (the head first).
pub(super) fn build(
    func: &mut Function,
    builder_ctx: &mut FunctionBuilderContext,
    isa: &dyn TargetIsa,
    blocks: &[&Block],
    shape: Shape,
    flavor: Flavor,
) {
    let block = blocks[0];
    let ptr = isa.pointer_type();
    let call_conv = isa.default_call_conv();
    func.signature = Signature::new(call_conv);
    func.signature.params.push(AbiParam::new(ptr));
    func.signature.returns.push(AbiParam::new(I32));
    let mut load_sig = Signature::new(call_conv);
    load_sig.params.extend([AbiParam::new(ptr), AbiParam::new(I32), AbiParam::new(I32), AbiParam::new(I32)]);
    load_sig.returns.push(AbiParam::new(I64));
    let mut store_sig = Signature::new(call_conv);
    store_sig.params.extend([ptr, I32, I32, I32, I32].map(AbiParam::new));
    store_sig.returns.push(AbiParam::new(I32));
    let mut fp_sig = Signature::new(call_conv);
    fp_sig.params.extend([ptr, I32].map(AbiParam::new));
    fp_sig.returns.push(AbiParam::new(I32));
    let mut window_sig = Signature::new(call_conv);
    window_sig.params.extend([ptr, I32].map(AbiParam::new));
    window_sig.returns.push(AbiParam::new(I64));

    let count = block.ops.iter().take_while(|op| translatable(op.kind)).count();
    let ops = &block.ops[..count];
    let mut all = Uses::default();
    let mut sar_written = false;
    let every_op = if shape == Shape::Region { blocks } else { &blocks[..1] };
    for op in every_op.iter().flat_map(|b| b.ops.iter().take_while(|op| translatable(op.kind))) {
        let u = uses(op);
        all.ar_read |= u.ar_read | u.ar_write;
        all.ar_write |= u.ar_write;
        all.fr_read |= u.fr_read | u.fr_write;
        all.fr_write |= u.fr_write;
        sar_written |= matches!(op.kind, Kind::Ssr | Kind::Ssl | Kind::Ssa8l | Kind::Ssa8b | Kind::Ssai);
    }

    let mut b = FunctionBuilder::new(func, builder_ctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let ctx = b.block_params(entry)[0];
    let load_sig = b.import_signature(load_sig);
    let store_sig = b.import_signature(store_sig);
    let fp_sig = b.import_signature(fp_sig);
    let window_sig = b.import_signature(window_sig);
    let ar = b.ins().load(ptr, TRUSTED, ctx, offset_of!(JitCtx, ar) as i32);
    let fr = b.ins().load(ptr, TRUSTED, ctx, offset_of!(JitCtx, fr) as i32);
    let fr_hi = flavor.wide_fp.then(|| b.ins().load(ptr, TRUSTED, ctx, offset_of!(JitCtx, fr_hi) as i32));
    let regs: [Variable; 16] = std::array::from_fn(|_| b.declare_var(I32));
    let fregs: [Variable; 16] = std::array::from_fn(|_| b.declare_var(I32));
    for n in 0..16 {
        if all.ar_read & (1 << n) != 0 {
            let value = b.ins().load(I32, TRUSTED, ar, 4 * n as i32);
            b.def_var(regs[n], value);
        }
        if all.fr_read & (1 << n) != 0 {
            let value = b.ins().load(I32, TRUSTED, fr, 4 * n as i32);
            b.def_var(fregs[n], value);
        }
    }
    let fp_off = every_op.iter().flat_map(|b| b.ops.iter()).any(|op| is_fp(op.kind)).then(|| {
        let cpenable = b.ins().load(I32, TRUSTED, ctx, offset_of!(JitCtx, cpenable) as i32);
        let enabled = b.ins().band_imm_u(cpenable, 1);
        b.ins().icmp_imm_s(IntCC::Equal, enabled, 0)
    });
    let sar = b.declare_var(I32);
    let sar_ptr = b.ins().load(ptr, TRUSTED, ctx, offset_of!(JitCtx, sar) as i32);
    let sar_value = b.ins().load(I32, TRUSTED, sar_ptr, 0);
    b.def_var(sar, sar_value);
    let mut t = Translator {
        b: &mut b,
        ctx,
        fr,
        fr_hi,
        regs,
        fregs,
        fp_off,
        sar,
        done: None,
        exit_tag: 0,
        fp_base: 0,
        written: all.ar_write,
        read: all.ar_read,
        f_written: all.fr_write,
        sar_written,
        load_sig,
        store_sig,
        fp_sig,
        window_sig,
        ptr,
        start: block.start,
        exits: Vec::new(),
        counting: flavor.counting,
        checking: flavor.checking,
    };
    match shape {
        Shape::Straight if branches_to_itself(block, ops) => t.self_looped(ops),
        Shape::Straight => {
            for (i, op) in ops.iter().enumerate() {
                t.op(i, op);
            }
            t.leave(ops.len() as u32);
        }
        Shape::Loop => t.looped(ops),
        Shape::Region => t.region(blocks),
    }
    t.fill_exits();
    b.seal_all_blocks();
    b.finalize(isa.frontend_config());
}

impl Translator<'_, '_> {
    pub(super) fn reg(&mut self, n: u8) -> Value {
        self.b.use_var(self.regs[usize::from(n & 15)])
    }

    pub(super) fn set(&mut self, n: u8, value: Value) {
        self.b.def_var(self.regs[usize::from(n & 15)], value);
    }

    pub(super) fn iconst(&mut self, value: u32) -> Value {
        // Cranelift wants narrow constants zero-extended.
        self.b.ins().iconst(I32, i64::from(value))
    }

    /// A guest address inside or near the block (a branch target, a
    /// literal, an op's pc), as an offset from the running copy's start:
    /// the code is the same for every core whose copy differs by rebase.
    pub(super) fn relocated(&mut self, addr: u32) -> Value {
        let delta = addr.wrapping_sub(self.start);
        let base = self.b.ins().load(I32, TRUSTED, self.ctx, offset_of!(JitCtx, base) as i32);
        self.b.ins().iadd_imm_s(base, i64::from(delta as i32))
    }

    /// A pointer field of the context, loaded where it is used: the page
    /// tables, `ar`... held in host registers across a region, they left
    /// too few for the guest's registers (Cranelift spilled both).
    pub(super) fn ctx_ptr(&mut self, at: usize) -> Value {
        self.b.ins().load(self.ptr, TRUSTED, self.ctx, at as i32)
    }

    /// Where the 16 registers of the window are (`JitCtx::ar`).
    pub(super) fn ar(&mut self) -> Value {
        self.ctx_ptr(offset_of!(JitCtx, ar))
    }

    /// Writes the registers back and returns `index` from the current block.
    pub(super) fn leave(&mut self, index: u32) {
        let index = self.iconst(index);
        self.leave_with(index);
    }

    /// Writes the registers back and returns `index` (an i32 value).
    fn leave_with(&mut self, index: Value) {
        self.store_regs();
        for n in 0..16u8 {
            if self.f_written & (1 << n) != 0 {
                let value = self.b.use_var(self.fregs[usize::from(n)]);
                self.b.ins().store(TRUSTED, value, self.fr, 4 * i32::from(n));
            }
        }
        if self.sar_written {
            let sar = self.b.use_var(self.sar);
            let sar_ptr = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, sar) as i32);
            self.b.ins().store(TRUSTED, sar, sar_ptr, 0);
        }
        if let Some(done) = self.done {
            let done = self.b.use_var(done);
            self.b.ins().store(TRUSTED, done, self.ctx, offset_of!(JitCtx, done) as i32);
        }
        self.b.ins().return_(&[index]);
    }

    /// A fresh block that leaves at op `index`; the caller branches to it
    /// (its body is emitted by `fill_exits`, once the current block is done).
    pub(super) fn exit_block(&mut self, index: u32) -> cranelift_codegen::ir::Block {
        self.exit_returning(self.exit_tag | index)
    }

    /// A fresh exit block returning `value` as it is.
    pub(super) fn exit_returning(&mut self, value: u32) -> cranelift_codegen::ir::Block {
        let exit = self.b.create_block();
        self.b.set_cold_block(exit);
        self.exits.push((exit, value));
        exit
    }

    /// Every exit jumps to one shared write-back with its index: the
    /// write-back (a store per written register) once per function rather
    /// than once per op that may leave, which made regions' IR, and their
    /// compile time, several times larger.
    fn fill_exits(&mut self) {
        let exits = std::mem::take(&mut self.exits);
        if exits.len() < 2 {
            for (exit, index) in exits {
                self.b.switch_to_block(exit);
                self.leave(index);
            }
            return;
        }
        let shared = self.b.create_block();
        self.b.set_cold_block(shared);
        let index = self.b.append_block_param(shared, I32);
        for (exit, value) in exits {
            self.b.switch_to_block(exit);
            let value = self.iconst(value);
            self.b.ins().jump(shared, &[value.into()]);
        }
        self.b.switch_to_block(shared);
        self.leave_with(index);
    }

    /// Passes over `ops`, a whole block whose final branch or jump targets
    /// its start: the code loops back while the branch is taken and the
    /// instructions retired stay below `ctx.iterations` (the budget; a
    /// multiply, not a division per entry), counting completed passes in
    /// `ctx.done`; the last pass sets `next_pc`/`taken` as a straight one.
    fn self_looped(&mut self, ops: &[Op]) {
        let (last, body) = ops.split_last().expect("a self-loop has its branch");
        let done = self.b.declare_var(I64);
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(done, zero);
        self.done = Some(done);
        let budget = self.b.ins().load(I64, TRUSTED, self.ctx, offset_of!(JitCtx, iterations) as i32);
        let top = self.b.create_block();
        self.b.ins().jump(top, &[]);
        self.b.switch_to_block(top);
        for (i, op) in body.iter().enumerate() {
            self.op(i, op);
        }
        let taken = match last.kind {
            Kind::J => self.b.ins().iconst(I8, 1),
            _ => self.condition(last),
        };
        let count = self.b.use_var(done);
        let count = self.b.ins().iadd_imm_s(count, 1);
        let retired = self.b.ins().imul_imm_u(count, ops.len() as i64);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, retired, budget);
        let again = self.b.ins().band(taken, more);
        let repeat = self.b.create_block();
        let finish = self.b.create_block();
        self.b.ins().brif(again, repeat, &[], finish, &[]);
        self.b.switch_to_block(repeat);
        self.b.def_var(done, count);
        self.b.ins().jump(top, &[]);
        self.b.switch_to_block(finish);
        let target = self.relocated(last.target);
        let fall = self.relocated(last.next_pc());
        let next = self.b.ins().select(taken, target, fall);
        let taken = self.b.ins().uextend(I32, taken);
        self.set_next(next, taken);
        self.leave(ops.len() as u32);
    }

    /// `ctx.iterations` passes over `ops`, a whole loop body.
    fn looped(&mut self, ops: &[Op]) {
        let done = self.b.declare_var(I64);
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(done, zero);
        self.done = Some(done);
        let iterations = self.b.ins().load(I64, TRUSTED, self.ctx, offset_of!(JitCtx, iterations) as i32);
        let body = self.b.create_block();
        let finished = self.b.create_block();
        self.b.ins().brif(iterations, body, &[], finished, &[]);
        self.b.switch_to_block(body);
        for (i, op) in ops.iter().enumerate() {
            self.op(i, op);
        }
        let count = self.b.use_var(done);
        let count = self.b.ins().iadd_imm_s(count, 1);
        self.b.def_var(done, count);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, count, iterations);
        self.b.ins().brif(more, body, &[], finished, &[]);
        self.b.switch_to_block(finished);
        self.leave(ops.len() as u32);
    }

    /// Emits op `i`.
    pub(super) fn op(&mut self, i: usize, op: &Op) {
        let index = i as u32;
        if let (true, Some(fp_off)) = (is_fp(op.kind), self.fp_off) {
            let exit = self.exit_block(index);
            let next = self.b.create_block();
            self.b.ins().brif(fp_off, exit, &[], next, &[]);
            self.b.switch_to_block(next);
            self.fp_op(index, op);
            return;
        }
        match op.kind {
            Kind::Alu(alu) => {
                if let Some(value) = self.alu(alu, op) {
                    self.set(op.a, value);
                }
            }
            Kind::Ssr | Kind::Ssl | Kind::Ssa8l | Kind::Ssa8b => {
                let x = self.reg(op.b);
                let value = match op.kind {
                    Kind::Ssr => self.b.ins().band_imm_u(x, 31),
                    Kind::Ssl => {
                        let low = self.b.ins().band_imm_u(x, 31);
                        let k = self.iconst(32);
                        self.b.ins().isub(k, low)
                    }
                    Kind::Ssa8l => {
                        let low = self.b.ins().band_imm_u(x, 3);
                        self.b.ins().ishl_imm_u(low, 3)
                    }
                    _ => {
                        let low = self.b.ins().band_imm_u(x, 3);
                        let bits = self.b.ins().ishl_imm_u(low, 3);
                        let k = self.iconst(32);
                        self.b.ins().isub(k, bits)
                    }
                };
                self.b.def_var(self.sar, value);
            }
            Kind::Ssai => {
                let value = self.iconst(op.imm);
                self.b.def_var(self.sar, value);
            }
            Kind::L8ui | Kind::L16ui | Kind::L16si | Kind::L32i | Kind::L32e => {
                let base = self.reg(op.b);
                let addr = self.b.ins().iadd_imm_s(base, i64::from(op.imm as i32));
                let size = match op.kind {
                    Kind::L8ui => 1,
                    Kind::L32i | Kind::L32e => 4,
                    _ => 2,
                };
                let value = self.load(index, op, addr, size);
                let value = if op.kind == Kind::L16si {
                    let half = self.b.ins().ireduce(I16, value);
                    self.b.ins().sextend(I32, half)
                } else {
                    value
                };
                self.set(op.a, value);
            }
            Kind::L32r => {
                let addr = self.relocated(op.target);
                let value = self.load(index, op, addr, 4);
                self.set(op.a, value);
            }
            Kind::S8i | Kind::S16i | Kind::S32i | Kind::S32e => {
                let base = self.reg(op.b);
                let addr = self.b.ins().iadd_imm_s(base, i64::from(op.imm as i32));
                let value = self.reg(op.a);
                let size = match op.kind {
                    Kind::S8i => 1,
                    Kind::S16i => 2,
                    _ => 4,
                };
                self.store(index, op, addr, value, size);
            }
            Kind::J => {
                let target = self.relocated(op.target);
                let one = self.iconst(1);
                self.set_next(target, one);
            }
            Kind::CallN | Kind::CallxN => {
                let target = self.windowed_call(op);
                let one = self.iconst(1);
                self.set_next(target, one);
            }
            Kind::Entry => {
                self.window_op(index);
            }
            Kind::Retw => {
                let (_, next) = self.window_op(index);
                let one = self.iconst(1);
                self.set_next(next, one);
            }
            kind if kind.is_conditional_branch() => {
                let taken = self.condition(op);
                let target = self.relocated(op.target);
                let fall = self.relocated(op.next_pc());
                let next = self.b.ins().select(taken, target, fall);
                let taken = self.b.ins().uextend(I32, taken);
                self.set_next(next, taken);
            }
            _ => unreachable!("translatable() admits only the kinds above"),
        }
    }

    pub(super) fn set_next(&mut self, next: Value, taken: Value) {
        self.b.ins().store(TRUSTED, next, self.ctx, offset_of!(JitCtx, next_pc) as i32);
        self.b.ins().store(TRUSTED, taken, self.ctx, offset_of!(JitCtx, taken) as i32);
    }

    /// A branch's condition (an i8 truth value).
    pub(super) fn condition(&mut self, op: &Op) -> Value {
        use Kind::*;
        if matches!(op.kind, Bf | Bt) {
            let bit = self.boolean(op.b);
            let cc = if op.kind == Bt { IntCC::NotEqual } else { IntCC::Equal };
            return self.b.ins().icmp_imm_s(cc, bit, 0);
        }
        let x = self.reg(op.b);
        match op.kind {
            Beq | Bne | Blt | Bge | Bltu | Bgeu => {
                let y = self.reg(op.c);
                let cc = match op.kind {
                    Beq => IntCC::Equal,
                    Bne => IntCC::NotEqual,
                    Blt => IntCC::SignedLessThan,
                    Bge => IntCC::SignedGreaterThanOrEqual,
                    Bltu => IntCC::UnsignedLessThan,
                    _ => IntCC::UnsignedGreaterThanOrEqual,
                };
                self.b.ins().icmp(cc, x, y)
            }
            Ball | Bnall => {
                let y = self.reg(op.c);
                let missing = self.b.ins().band_not(y, x);
                let cc = if op.kind == Ball { IntCC::Equal } else { IntCC::NotEqual };
                self.b.ins().icmp_imm_s(cc, missing, 0)
            }
            Bany | Bnone => {
                let y = self.reg(op.c);
                let both = self.b.ins().band(x, y);
                let cc = if op.kind == Bany { IntCC::NotEqual } else { IntCC::Equal };
                self.b.ins().icmp_imm_s(cc, both, 0)
            }
            Bbc | Bbs => {
                let y = self.reg(op.c);
                let shift = self.b.ins().band_imm_u(y, 31);
                let one = self.iconst(1);
                let mask = self.b.ins().ishl(one, shift);
                let bit = self.b.ins().band(x, mask);
                let cc = if op.kind == Bbs { IntCC::NotEqual } else { IntCC::Equal };
                self.b.ins().icmp_imm_s(cc, bit, 0)
            }
            Bbci | Bbsi => {
                let bit = self.b.ins().band_imm_u(x, i64::from(1u32 << (op.imm & 31)));
                let cc = if op.kind == Bbsi { IntCC::NotEqual } else { IntCC::Equal };
                self.b.ins().icmp_imm_s(cc, bit, 0)
            }
            Beqi | Bnei | Blti | Bgei | Bltui | Bgeui => {
                let cc = match op.kind {
                    Beqi => IntCC::Equal,
                    Bnei => IntCC::NotEqual,
                    Blti => IntCC::SignedLessThan,
                    Bgei => IntCC::SignedGreaterThanOrEqual,
                    Bltui => IntCC::UnsignedLessThan,
                    _ => IntCC::UnsignedGreaterThanOrEqual,
                };
                let y = self.iconst(op.imm);
                self.b.ins().icmp(cc, x, y)
            }
            _ => {
                let cc = match op.kind {
                    Beqz => IntCC::Equal,
                    Bnez => IntCC::NotEqual,
                    Bltz => IntCC::SignedLessThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                self.b.ins().icmp_imm_s(cc, x, 0)
            }
        }
    }

    /// Page index (pointer-sized) and in-page offset of a 32-bit address.
    fn page_of(&mut self, addr: Value) -> (Value, Value) {
        let page = self.b.ins().ushr_imm_u(addr, i64::from(PAGE_SHIFT));
        let page = self.b.ins().uextend(self.ptr, page);
        let offset = self.b.ins().band_imm_u(addr, (1 << PAGE_SHIFT) - 1);
        let offset = self.b.ins().uextend(self.ptr, offset);
        (page, offset)
    }

    /// Whether `offset + size <= len[page]`, where `len` is the length
    /// table for the access (`store` picks the write one); and the host
    /// address.
    fn host_address(&mut self, store: bool, page: Value, offset: Value, size: u32) -> (Value, Value) {
        let table = match store {
            true => self.ctx_ptr(offset_of!(JitCtx, write_len)),
            false => self.ctx_ptr(offset_of!(JitCtx, read_len)),
        };
        let slot = self.b.ins().ishl_imm_u(page, 2);
        let slot = self.b.ins().iadd(table, slot);
        let len = self.b.ins().load(I32, TRUSTED, slot, 0);
        let len = self.b.ins().uextend(self.ptr, len);
        let end = self.b.ins().iadd_imm_s(offset, i64::from(size));
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, len);
        let pages = self.ctx_ptr(offset_of!(JitCtx, pages));
        let slot = self.b.ins().ishl_imm_u(page, 3);
        let slot = self.b.ins().iadd(pages, slot);
        let base = self.b.ins().load(self.ptr, TRUSTED, slot, 0);
        let host = self.b.ins().iadd(base, offset);
        (fits, host)
    }

    /// A field of `ctx.windows[slot]`.
    fn window_field(&mut self, ty: cranelift_codegen::ir::Type, slot: usize, field: usize) -> Value {
        let at = offset_of!(JitCtx, windows) + slot * size_of::<CheckWindow>() + field;
        self.b.ins().load(ty, TRUSTED, self.ctx, at as i32)
    }

    /// Whether `size` bytes at `addr` lie in `ctx.windows[slot]`.
    fn window_contains(&mut self, slot: usize, addr: Value, size: u32) -> Value {
        let lo = self.window_field(I32, slot, offset_of!(CheckWindow, lo));
        let span = self.window_field(I32, slot, offset_of!(CheckWindow, span));
        let offset = self.b.ins().isub(addr, lo);
        let offset = self.b.ins().uextend(I64, offset);
        let end = self.b.ins().iadd_imm_s(offset, i64::from(size));
        let span = self.b.ins().uextend(I64, span);
        self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, span)
    }

    /// Whether `addr` is in the core's watched stack (`ctx.stack`).
    fn stack_contains(&mut self, addr: Value) -> Value {
        let at = offset_of!(JitCtx, stack);
        let lo = self.b.ins().load(I32, TRUSTED, self.ctx, (at + offset_of!(StackWindow, lo)) as i32);
        let span = self.b.ins().load(I32, TRUSTED, self.ctx, (at + offset_of!(StackWindow, span)) as i32);
        let offset = self.b.ins().isub(addr, lo);
        self.b.ins().icmp(IntCC::UnsignedLessThan, offset, span)
    }

    /// The host address of `addr`'s shadow byte in the watched stack.
    fn stack_shadow(&mut self, addr: Value) -> Value {
        let at = offset_of!(JitCtx, stack) + offset_of!(StackWindow, shadow_bias);
        let bias = self.b.ins().load(self.ptr, TRUSTED, self.ctx, at as i32);
        let addr = self.b.ins().uextend(self.ptr, addr);
        self.b.ins().iadd(bias, addr)
    }

    /// `addr` plus the bias pointer at `field` of `ctx.windows[slot]`.
    fn window_address(&mut self, slot: usize, field: usize, addr: Value) -> Value {
        let bias = self.window_field(self.ptr, slot, field);
        let addr = self.b.ins().uextend(self.ptr, addr);
        self.b.ins().iadd(bias, addr)
    }

    /// The zero-extended `size` bytes at host address `host`.
    fn guest_load(&mut self, host: Value, size: u32) -> Value {
        match size {
            1 => self.b.ins().uload8(I32, guest(), host, 0),
            2 => self.b.ins().uload16(I32, guest(), host, 0),
            _ => self.b.ins().load(I32, guest(), host, 0),
        }
    }

    /// Stores the low `size` bytes of `value` at host address `host`.
    fn guest_store(&mut self, host: Value, value: Value, size: u32) {
        match size {
            1 => self.b.ins().istore8(guest(), value, host, 0),
            2 => self.b.ins().istore16(guest(), value, host, 0),
            _ => self.b.ins().store(guest(), value, host, 0),
        };
    }

    /// Misaligned accesses are the interpreter's (alignment exceptions, or
    /// the low bits ignored, per configuration).
    fn require_aligned(&mut self, index: u32, addr: Value, size: u32) {
        if size > 1 {
            let low = self.b.ins().band_imm_u(addr, i64::from(size - 1));
            let exit = self.exit_block(index);
            let next = self.b.create_block();
            self.b.ins().brif(low, exit, &[], next, &[]);
            self.b.switch_to_block(next);
        }
    }

    /// When counting, adds one access of `size` bytes to the counters of
    /// the slot of `page` (a pointer-sized page index): two increments, no
    /// branch (unpriced pages add to a slot nobody reads). The slow paths
    /// are counted by `Memory` instead.
    fn count_access(&mut self, page: Value, size: u32) {
        if !self.counting {
            return;
        }
        let slots = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, page_slots) as i32);
        let slot = self.b.ins().iadd(slots, page);
        let slot = self.b.ins().uload8(I32, TRUSTED, slot, 0);
        let slot = self.b.ins().uextend(self.ptr, slot);
        let slot = self.b.ins().ishl_imm_u(slot, 3);
        let counts = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, counts) as i32);
        let at = self.b.ins().iadd(counts, slot);
        for (field, add) in [(offset_of!(ClassCounts, accesses), 1), (offset_of!(ClassCounts, bytes), size)] {
            let n = self.b.ins().load(I64, TRUSTED, at, field as i32);
            let n = self.b.ins().iadd_imm_s(n, i64::from(add));
            self.b.ins().store(TRUSTED, n, at, field as i32);
        }
    }

    /// [`Translator::count_access`] for the page holding `addr`.
    fn count_access_at(&mut self, addr: Value, size: u32) {
        if self.counting {
            let (page, _) = self.page_of(addr);
            self.count_access(page, size);
        }
    }

    /// The zero-extended value of a `size`-byte load.
    pub(super) fn load(&mut self, index: u32, op: &Op, addr: Value, size: u32) -> Value {
        self.require_aligned(index, addr, size);
        let (page, offset) = self.page_of(addr);
        let (fits, host) = self.host_address(false, page, offset, size);
        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let merge = self.b.create_block();
        let value = self.b.append_block_param(merge, I32);
        self.b.set_cold_block(slow);
        let checked = if self.checking { self.b.create_block() } else { slow };
        // A literal is in the image, never on the stack.
        if self.checking && op.kind != Kind::L32r {
            // On the stack: bytes no store wrote are the checker's to report.
            let direct = self.b.create_block();
            self.b.ins().brif(fits, direct, &[], checked, &[]);
            self.b.switch_to_block(direct);
            let on_stack = self.b.create_block();
            let inside = self.stack_contains(addr);
            self.b.ins().brif(inside, on_stack, &[], fast, &[]);
            self.b.switch_to_block(on_stack);
            let shadow = self.stack_shadow(addr);
            let written = self.guest_load(shadow, size);
            self.b.ins().brif(written, fast, &[], slow, &[]);
        } else {
            self.b.ins().brif(fits, fast, &[], checked, &[]);
        }

        self.b.switch_to_block(fast);
        let loaded = self.guest_load(host, size);
        self.count_access(page, size);
        self.b.ins().jump(merge, &[loaded.into()]);

        // Watched memory: the checker's verdict from its shadow, in line.
        // (Without a checker its windows are empty: no such code.)
        let slots: &[usize] = if self.checking { &[0, 1] } else { &[] };
        if self.checking {
            self.b.switch_to_block(checked);
        }
        for &slot in slots {
            let next = if slot == 0 { self.b.create_block() } else { slow };
            let hit = self.b.create_block();
            let inside = self.window_contains(slot, addr, size);
            self.b.ins().brif(inside, hit, &[], next, &[]);
            self.b.switch_to_block(hit);
            let test = self.window_field(I32, slot, offset_of!(CheckWindow, test));
            let shadow_test = self.b.create_block();
            let read = self.b.create_block();
            self.b.ins().brif(test, shadow_test, &[], read, &[]);
            self.b.switch_to_block(shadow_test);
            let shadow = self.window_address(slot, offset_of!(CheckWindow, shadow), addr);
            let bytes = self.guest_load(shadow, size);
            // Some shadow byte is 0 (never written): the checker reports it.
            let ones = i64::from(0x0101_0101u32 >> (32 - 8 * size));
            let minus = self.b.ins().iadd_imm_s(bytes, -ones);
            let not = self.b.ins().bnot(bytes);
            let zero_byte = self.b.ins().band(minus, not);
            let zero_byte = self.b.ins().band_imm_u(zero_byte, ones << 7);
            self.b.ins().brif(zero_byte, slow, &[], read, &[]);
            self.b.switch_to_block(read);
            let host = self.window_address(slot, offset_of!(CheckWindow, data), addr);
            let loaded = self.guest_load(host, size);
            self.count_access_at(addr, size);
            self.b.ins().jump(merge, &[loaded.into()]);
            self.b.switch_to_block(next);
        }

        self.b.switch_to_block(slow);
        let helper = self.b.ins().iconst(self.ptr, slow_load as *const () as usize as i64);
        let size_v = self.iconst(size);
        let pc = self.relocated(op.pc);
        let call = self.b.ins().call_indirect(self.load_sig, helper, &[self.ctx, addr, size_v, pc]);
        let result = self.b.inst_results(call)[0];
        let fault = self.b.ins().band_imm_u(result, LOAD_FAULT as i64);
        let exit = self.exit_block(index);
        let ok = self.b.create_block();
        self.b.ins().brif(fault, exit, &[], ok, &[]);
        self.b.switch_to_block(ok);
        let narrow = self.b.ins().ireduce(I32, result);
        self.b.ins().jump(merge, &[narrow.into()]);

        self.b.switch_to_block(merge);
        value
    }

    /// A `size`-byte store of the low bytes of `value`.
    /// Whether no decoded code lies in the 4 KiB granule of `addr` (an
    /// aligned access of at most 8 bytes lies in one).
    fn no_code_at(&mut self, addr: Value) -> Value {
        let bits = self.ctx_ptr(offset_of!(JitCtx, code_bits));
        let granule = self.b.ins().ushr_imm_u(addr, 12);
        let word = self.b.ins().ushr_imm_u(granule, 6);
        let word = self.b.ins().uextend(self.ptr, word);
        let word = self.b.ins().ishl_imm_u(word, 3);
        let word = self.b.ins().iadd(bits, word);
        let word = self.b.ins().load(I64, TRUSTED, word, 0);
        let bit = self.b.ins().band_imm_u(granule, 63);
        let bit = self.b.ins().uextend(I64, bit);
        let code = self.b.ins().ushr(word, bit);
        let code = self.b.ins().band_imm_u(code, 1);
        self.b.ins().icmp_imm_s(IntCC::Equal, code, 0)
    }

    pub(super) fn store(&mut self, index: u32, op: &Op, addr: Value, value: Value, size: u32) {
        self.require_aligned(index, addr, size);
        let (page, offset) = self.page_of(addr);
        // A page holding decoded code has no direct write length (see
        // `Memory::for_each_host_page`): such stores take the slow path,
        // which keeps decoded code coherent.
        let (direct, host) = self.host_address(true, page, offset, size);

        let fast = self.b.create_block();
        let slow = self.b.create_block();
        let merge = self.b.create_block();
        self.b.set_cold_block(slow);
        let checked = if self.checking { self.b.create_block() } else { slow };
        self.b.ins().brif(direct, fast, &[], checked, &[]);

        self.b.switch_to_block(fast);
        self.guest_store(host, value, size);
        self.count_access(page, size);
        if self.checking {
            // On the stack: the bytes are written now.
            let on_stack = self.b.create_block();
            let inside = self.stack_contains(addr);
            self.b.ins().brif(inside, on_stack, &[], merge, &[]);
            self.b.switch_to_block(on_stack);
            let shadow = self.stack_shadow(addr);
            let ones = self.iconst(0x0101_0101);
            self.guest_store(shadow, ones, size);
        }
        self.b.ins().jump(merge, &[]);

        // Watched memory: the checker's verdict from its shadow, in line.
        // (Without a checker its windows are empty: no such code.)
        let slots: &[usize] = if self.checking { &[2, 3] } else { &[] };
        if self.checking {
            self.b.switch_to_block(checked);
        }
        // The checker's windows are regions, not pages: they test the code
        // bitmap themselves.
        let no_code = if self.checking { Some(self.no_code_at(addr)) } else { None };
        for &slot in slots {
            let next = if slot == 2 { self.b.create_block() } else { slow };
            let hit = self.b.create_block();
            let inside = self.window_contains(slot, addr, size);
            let inside = match no_code {
                Some(no_code) => self.b.ins().band(inside, no_code),
                None => inside,
            };
            self.b.ins().brif(inside, hit, &[], next, &[]);
            self.b.switch_to_block(hit);
            let shadow = self.window_address(slot, offset_of!(CheckWindow, shadow), addr);
            let fill = self.window_field(I32, slot, offset_of!(CheckWindow, fill));
            let test = self.window_field(I32, slot, offset_of!(CheckWindow, test));
            let race_test = self.b.create_block();
            let write = self.b.create_block();
            self.b.ins().brif(test, race_test, &[], write, &[]);
            // As `Checker::on_store`: the first byte's last writer must be
            // nobody, the host or this core.
            self.b.switch_to_block(race_test);
            let prev = self.b.ins().uload8(I32, guest(), shadow, 0);
            let mine = self.b.ins().band_imm_u(fill, 0xff);
            let is_mine = self.b.ins().icmp(IntCC::Equal, prev, mine);
            let is_none = self.b.ins().icmp_imm_s(IntCC::Equal, prev, 0);
            let is_host = self.b.ins().icmp_imm_s(IntCC::Equal, prev, i64::from(HOST_WRITER));
            let ok = self.b.ins().bor(is_mine, is_none);
            let ok = self.b.ins().bor(ok, is_host);
            self.b.ins().brif(ok, write, &[], slow, &[]);
            self.b.switch_to_block(write);
            self.guest_store(shadow, fill, size);
            let host = self.window_address(slot, offset_of!(CheckWindow, data), addr);
            self.guest_store(host, value, size);
            self.count_access_at(addr, size);
            self.b.ins().jump(merge, &[]);
            self.b.switch_to_block(next);
        }

        self.b.switch_to_block(slow);
        let helper = self.b.ins().iconst(self.ptr, slow_store as *const () as usize as i64);
        let size_v = self.iconst(size);
        let pc = self.relocated(op.pc);
        let call = self.b.ins().call_indirect(self.store_sig, helper, &[self.ctx, addr, size_v, value, pc]);
        let status = self.b.inst_results(call)[0];
        let done = self.b.ins().icmp_imm_s(IntCC::Equal, status, i64::from(STORE_DONE));
        let not_done = self.b.create_block();
        self.b.ins().brif(done, merge, &[], not_done, &[]);
        self.b.switch_to_block(not_done);
        // A fault leaves the op to the interpreter; a store into decoded
        // code is done, and the interpreter goes on after it.
        let hit_code = self.b.ins().icmp_imm_s(IntCC::Equal, status, i64::from(STORE_HIT_CODE));
        let fault_exit = self.exit_block(index);
        let code_exit = self.exit_block(index + 1);
        self.b.ins().brif(hit_code, code_exit, &[], fault_exit, &[]);

        self.b.switch_to_block(merge);
    }

    /// The value an ALU op writes, or `None` for `nop`.
    fn alu(&mut self, alu: AluOp, op: &Op) -> Option<Value> {
        use AluOp::*;
        let imm = op.imm;
        let value = match alu {
            Nop => return None,
            Movi => self.iconst(imm),
            Add | Addx2 | Addx4 | Addx8 | Sub | Subx2 | Subx4 | Subx8 => {
                let (x, y) = (self.reg(op.b), self.reg(op.c));
                let shift = match alu {
                    Addx2 | Subx2 => 1,
                    Addx4 | Subx4 => 2,
                    Addx8 | Subx8 => 3,
                    _ => 0,
                };
                let x = if shift > 0 { self.b.ins().ishl_imm_u(x, shift) } else { x };
                match alu {
                    Add | Addx2 | Addx4 | Addx8 => self.b.ins().iadd(x, y),
                    _ => self.b.ins().isub(x, y),
                }
            }
            And | Or | Xor | Mull | Min | Max | Minu | Maxu | Mulsh | Muluh => {
                let (x, y) = (self.reg(op.b), self.reg(op.c));
                let i = self.b.ins();
                match alu {
                    And => i.band(x, y),
                    Or => i.bor(x, y),
                    Xor => i.bxor(x, y),
                    Mull => i.imul(x, y),
                    Min => i.smin(x, y),
                    Max => i.smax(x, y),
                    Minu => i.umin(x, y),
                    Maxu => i.umax(x, y),
                    Mulsh => i.smulhi(x, y),
                    _ => i.umulhi(x, y),
                }
            }
            Mul16u => {
                let (x, y) = (self.reg(op.b), self.reg(op.c));
                let x = self.b.ins().band_imm_u(x, 0xffff);
                let y = self.b.ins().band_imm_u(y, 0xffff);
                self.b.ins().imul(x, y)
            }
            Mul16s => {
                let (x, y) = (self.reg(op.b), self.reg(op.c));
                let x = self.b.ins().ireduce(I16, x);
                let x = self.b.ins().sextend(I32, x);
                let y = self.b.ins().ireduce(I16, y);
                let y = self.b.ins().sextend(I32, y);
                self.b.ins().imul(x, y)
            }
            Moveqz | Movnez | Movltz | Movgez => {
                let (old, new, test) = (self.reg(op.a), self.reg(op.b), self.reg(op.c));
                let cc = match alu {
                    Moveqz => IntCC::Equal,
                    Movnez => IntCC::NotEqual,
                    Movltz => IntCC::SignedLessThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                let take = self.b.ins().icmp_imm_s(cc, test, 0);
                self.b.ins().select(take, new, old)
            }
            Src | Sll | Srl | Sra => {
                // 64-bit funnel, shifted by SAR (0..=63), low 32 bits.
                let x = self.reg(op.b);
                let sar = self.b.use_var(self.sar);
                let sar = self.b.ins().uextend(I64, sar);
                let wide = match alu {
                    Src => {
                        let y = self.reg(op.c);
                        let high = self.b.ins().uextend(I64, x);
                        let high = self.b.ins().ishl_imm_u(high, 32);
                        let low = self.b.ins().uextend(I64, y);
                        let both = self.b.ins().bor(high, low);
                        self.b.ins().ushr(both, sar)
                    }
                    Sll => {
                        let high = self.b.ins().uextend(I64, x);
                        let high = self.b.ins().ishl_imm_u(high, 32);
                        self.b.ins().ushr(high, sar)
                    }
                    Srl => {
                        let wide = self.b.ins().uextend(I64, x);
                        self.b.ins().ushr(wide, sar)
                    }
                    _ => {
                        let wide = self.b.ins().sextend(I64, x);
                        self.b.ins().sshr(wide, sar)
                    }
                };
                self.b.ins().ireduce(I32, wide)
            }
            Neg => {
                let x = self.reg(op.b);
                self.b.ins().ineg(x)
            }
            Abs => {
                let x = self.reg(op.b);
                self.b.ins().iabs(x)
            }
            Mov => self.reg(op.b),
            Nsa => {
                // Leading bits equal to the sign, minus one: clz(x ^ (x >> 31)) - 1.
                let x = self.reg(op.b);
                let sign = self.b.ins().sshr_imm_u(x, 31);
                let folded = self.b.ins().bxor(x, sign);
                let zeros = self.b.ins().clz(folded);
                self.b.ins().iadd_imm_s(zeros, -1)
            }
            Nsau => {
                let x = self.reg(op.b);
                self.b.ins().clz(x)
            }
            Addi => {
                let x = self.reg(op.b);
                self.b.ins().iadd_imm_s(x, i64::from(imm as i32))
            }
            Slli => {
                let x = self.reg(op.b);
                let wide = self.b.ins().uextend(I64, x);
                let wide = self.b.ins().ishl_imm_u(wide, i64::from(imm & 63));
                self.b.ins().ireduce(I32, wide)
            }
            Srai => {
                let x = self.reg(op.b);
                self.b.ins().sshr_imm_u(x, i64::from(imm & 31))
            }
            Srli => {
                let x = self.reg(op.b);
                self.b.ins().ushr_imm_u(x, i64::from(imm & 31))
            }
            Extui => {
                let x = self.reg(op.b);
                let shifted = self.b.ins().ushr_imm_u(x, i64::from(imm & 31));
                let mask = u32::MAX.checked_shr(32 - (imm >> 8).min(32)).unwrap_or(0);
                self.b.ins().band_imm_u(shifted, i64::from(mask))
            }
            Sext => {
                let x = self.reg(op.b);
                let drop = i64::from(31 - imm.min(31));
                let up = self.b.ins().ishl_imm_u(x, drop);
                self.b.ins().sshr_imm_u(up, drop)
            }
            Clamps => {
                let x = self.reg(op.b);
                let limit = 1i64 << imm.min(31);
                let high = self.iconst((limit - 1) as u32);
                let low = self.iconst((-limit) as u32);
                let capped = self.b.ins().smin(x, high);
                self.b.ins().smax(capped, low)
            }
        };
        Some(value)
    }
}
