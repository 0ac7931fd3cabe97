//! The windowed-call ops in compiled code: `callN`/`callxN` in line (they
//! only write the return address and PS.CALLINC), `entry` and `retw`
//! through the interpreter's code (`JitCtx::window_step`), which rotates the
//! window: the registers are stored before and loaded again after. When
//! the op would raise (window overflow at `entry`, an illegal `retw`) the
//! helper does nothing and compiled code leaves before the op, for the
//! interpreter to raise it (a `retw`'s underflow is part of the op: it
//! returns the handler's address).

use std::mem::offset_of;

use cranelift_codegen::ir::types::I32;
use cranelift_codegen::ir::{InstBuilder, Value};

use super::{Translator, TRUSTED};
use crate::jit::{JitCtx, WINDOW_REFUSED};
use crate::ps;
use crate::uop::{Kind, Op};

impl Translator<'_, '_> {
    /// Stores the registers the code wrote (before an exit, or before the
    /// window rotates under them).
    pub(super) fn store_regs(&mut self) {
        let ar = self.ar();
        for n in 0..16u8 {
            if self.written & (1 << n) != 0 {
                let value = self.reg(n);
                self.b.ins().store(TRUSTED, value, ar, 4 * i32::from(n));
            }
        }
    }

    /// Loads the registers the code uses (the window rotated).
    fn load_regs(&mut self) {
        let ar = self.ar();
        for n in 0..16u8 {
            if self.read & (1 << n) != 0 {
                let value = self.b.ins().load(I32, TRUSTED, ar, 4 * i32::from(n));
                self.set(n, value);
            }
        }
    }

    /// `callN` or `callxN`: the return address into a(4N), N into
    /// PS.CALLINC; the target (read before the write, as `Cpu::step`).
    pub(in crate::jit) fn windowed_call(&mut self, op: &Op) -> Value {
        let target = match op.kind {
            Kind::CallxN => self.reg(op.b),
            _ => self.relocated(op.target),
        };
        let n = op.imm & 3;
        let back = self.relocated(op.next_pc());
        let back = self.b.ins().band_imm_u(back, 0x3fff_ffff);
        let back = self.b.ins().bor_imm_u(back, i64::from(n << 30));
        self.set(op.a, back);
        let ps_ptr = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, ps) as i32);
        let ps = self.b.ins().load(I32, TRUSTED, ps_ptr, 0);
        let ps = self.b.ins().band_imm_u(ps, i64::from(!ps::CALLINC_MASK));
        let ps = self.b.ins().bor_imm_u(ps, i64::from(n << ps::CALLINC_SHIFT));
        self.b.ins().store(TRUSTED, ps, ps_ptr, 0);
        target
    }

    /// `entry` or `retw`, op `index` of the current block: leaves before it
    /// when it needs the interpreter. The frames free afterwards and (for
    /// `retw`) the return address, as i32 values.
    pub(in crate::jit) fn window_op(&mut self, index: u32) -> (Value, Value) {
        self.store_regs();
        let at = offset_of!(JitCtx, window_step) as i32;
        let helper = self.b.ins().load(self.ptr, TRUSTED, self.ctx, at);
        let at = self.iconst(self.fp_base + index);
        let call = self.b.ins().call_indirect(self.window_sig, helper, &[self.ctx, at]);
        let result = self.b.inst_results(call)[0];
        let refused = self.b.ins().band_imm_u(result, WINDOW_REFUSED as i64);
        let exit = self.exit_block(index);
        let done = self.b.create_block();
        self.b.ins().brif(refused, exit, &[], done, &[]);
        self.b.switch_to_block(done);
        self.load_regs();
        let free = self.b.ins().band_imm_u(result, 0xff);
        let free = self.b.ins().ireduce(I32, free);
        let next = self.b.ins().ushr_imm_u(result, 32);
        let next = self.b.ins().ireduce(I32, next);
        (free, next)
    }
}
