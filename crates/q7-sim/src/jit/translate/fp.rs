//! FP ops in compiled code. Moves, selects, compares, bit operations and
//! loads and stores are inline; arithmetic and conversions run inline in
//! their common case (`fast`) and otherwise call the interpreter's
//! `step_fp` through `JitCtx::fp_step` (rounding modes and FSR flags stay
//! exactly the interpreter's), with their source registers stored before
//! and their destinations reloaded after.

mod fast;

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, I32};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};

use super::{Translator, TRUSTED};
use crate::jit::JitCtx;
use crate::uop::{HighHalf, Kind, Op};

/// FP ops compiled code runs inline.
pub(super) fn inline(kind: Kind) -> bool {
    use Kind::*;
    matches!(
        kind,
        UnS | OeqS
            | UeqS
            | OltS
            | UltS
            | OleS
            | UleS
            | MovS
            | AbsS
            | NegS
            | ConstS
            | Rfr
            | Wfr
            | MoveqzS
            | MovnezS
            | MovltzS
            | MovgezS
            | MovfS
            | MovtS
            | Lsi
            | Lsiu
            | Lsip
            | Lsx
            | Lsxu
            | Lsxp
            | Ssi
            | Ssiu
            | Ssip
            | Ssx
            | Ssxu
            | Ssxp
    )
}

/// FP ops compiled code hands to `fp_step`.
pub(super) fn called(kind: Kind) -> bool {
    use Kind::*;
    matches!(kind, AddS | SubS | MulS | MaddS | MsubS | RoundS | TruncS | FloorS | CeilS | UtruncS | FloatS | UfloatS)
}

/// Registers an op uses, as bit masks over a0..a15 and f0..f15.
#[derive(Clone, Copy, Default)]
pub(super) struct Uses {
    pub ar_read: u16,
    pub ar_write: u16,
    pub fr_read: u16,
    pub fr_write: u16,
}

/// The registers of an FP op.
pub(super) fn uses(op: &Op) -> Uses {
    use Kind::*;
    let (a, b, c) = (1u16 << (op.a & 15), 1u16 << (op.b & 15), 1u16 << (op.c & 15));
    let none = Uses::default();
    match op.kind {
        MovS | AbsS | NegS => Uses { fr_read: b, fr_write: a, ..none },
        ConstS => Uses { fr_write: a, ..none },
        Rfr => Uses { fr_read: b, ar_write: a, ..none },
        Wfr => Uses { ar_read: b, fr_write: a, ..none },
        MoveqzS | MovnezS | MovltzS | MovgezS => Uses { ar_read: c, fr_read: a | b, fr_write: a, ..none },
        MovfS | MovtS => Uses { fr_read: a | b, fr_write: a, ..none },
        Lsi => Uses { ar_read: b, fr_write: a, ..none },
        Lsiu | Lsip => Uses { ar_read: b, ar_write: b, fr_write: a, ..none },
        Lsx => Uses { ar_read: b | c, fr_write: a, ..none },
        Lsxu | Lsxp => Uses { ar_read: b | c, ar_write: b, fr_write: a, ..none },
        Ssi => Uses { ar_read: b, fr_read: a, ..none },
        Ssiu | Ssip => Uses { ar_read: b, ar_write: b, fr_read: a, ..none },
        Ssx => Uses { ar_read: b | c, fr_read: a, ..none },
        Ssxu | Ssxp => Uses { ar_read: b | c, ar_write: b, fr_read: a, ..none },
        AddS | SubS | MulS => Uses { fr_read: b | c, fr_write: a, ..none },
        MaddS | MsubS => Uses { fr_read: a | b | c, fr_write: a, ..none },
        RoundS | TruncS | FloorS | CeilS | UtruncS => Uses { fr_read: b, ar_write: a, ..none },
        FloatS | UfloatS => Uses { ar_read: b, fr_write: a, ..none },
        // Compares write a boolean, in memory.
        _ => Uses { fr_read: b | c, ..none },
    }
}

impl Translator<'_, '_> {
    fn freg(&mut self, n: u8) -> Value {
        self.b.use_var(self.fregs[usize::from(n & 15)])
    }

    fn set_freg(&mut self, n: u8, value: Value) {
        self.b.def_var(self.fregs[usize::from(n & 15)], value);
    }

    /// Emits FP op `i` (CPENABLE already tested).
    pub(super) fn fp_op(&mut self, i: u32, op: &Op) {
        use Kind::*;
        match op.kind {
            MovS | AbsS | NegS => {
                let x = self.freg(op.b);
                let value = match op.kind {
                    AbsS => self.b.ins().band_imm_u(x, 0x7fff_ffff),
                    NegS => self.b.ins().bxor_imm_u(x, 0x8000_0000),
                    _ => x,
                };
                self.set_freg(op.a, value);
            }
            ConstS => {
                let bits = match op.imm {
                    1 => 1.0f32.to_bits(),
                    2 => 2.0f32.to_bits(),
                    3 => 0.5f32.to_bits(),
                    _ => 0,
                };
                let value = self.iconst(bits);
                self.set_freg(op.a, value);
            }
            Rfr => {
                let x = self.freg(op.b);
                self.set(op.a, x);
            }
            Wfr => {
                let x = self.reg(op.b);
                self.set_freg(op.a, x);
            }
            MoveqzS | MovnezS | MovltzS | MovgezS => {
                let test = self.reg(op.c);
                let cc = match op.kind {
                    MoveqzS => IntCC::Equal,
                    MovnezS => IntCC::NotEqual,
                    MovltzS => IntCC::SignedLessThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                let take = self.b.ins().icmp_imm_s(cc, test, 0);
                self.fp_select(op, take);
                return self.fp_high_half(op, Some(take));
            }
            MovfS | MovtS => {
                let bit = self.boolean(op.c);
                let cc = if op.kind == MovtS { IntCC::NotEqual } else { IntCC::Equal };
                let take = self.b.ins().icmp_imm_s(cc, bit, 0);
                self.fp_select(op, take);
                return self.fp_high_half(op, Some(take));
            }
            Lsi | Lsiu | Lsip | Lsx | Lsxu | Lsxp => {
                let (addr, updated) = self.fp_address(op);
                let value = self.load(i, op, addr, 4);
                self.set_freg(op.a, value);
                if let Some(base) = updated {
                    self.set(op.b, base);
                }
            }
            Ssi | Ssiu | Ssip | Ssx | Ssxu | Ssxp => {
                let (addr, updated) = self.fp_address(op);
                let value = self.freg(op.a);
                self.store(i, op, addr, value, 4);
                if let Some(base) = updated {
                    self.set(op.b, base);
                }
            }
            UnS | OeqS | UeqS | OltS | UltS | OleS | UleS => self.fp_compare(op),
            _ => {
                if !self.fp_fast(i, op) {
                    self.fp_call(i, op);
                }
            }
        }
        self.fp_high_half(op, None);
    }

    /// On a core with 64-bit f registers, the high half of `op`'s
    /// destination by [`HighHalf`], as the interpreter sets it (`take`: a
    /// conditional move's condition). Stored at once (high halves are
    /// never held in variables).
    fn fp_high_half(&mut self, op: &Op, take: Option<Value>) {
        let Some(hi) = self.fr_hi else { return };
        let at = |n: u8| 4 * i32::from(n & 15);
        let value = match op.kind.high_half() {
            HighHalf::Moved => {
                let new = self.b.ins().load(I32, TRUSTED, hi, at(op.b));
                match take {
                    Some(take) => {
                        let old = self.b.ins().load(I32, TRUSTED, hi, at(op.a));
                        self.b.ins().select(take, new, old)
                    }
                    None => new,
                }
            }
            HighHalf::SignExtended => {
                let x = self.reg(op.b);
                self.b.ins().sshr_imm_u(x, 31)
            }
            HighHalf::Untouched => return,
            HighHalf::Cleared => self.iconst(0),
        };
        self.b.ins().store(TRUSTED, value, hi, at(op.a));
    }

    /// `cmp.s b, f, f`: the boolean, and FSR.Invalid for a signalling NaN
    /// operand, or any NaN for the ordered `olt.s`/`ole.s` (as `fp_compare`
    /// in the interpreter).
    fn fp_compare(&mut self, op: &Op) {
        use Kind::*;
        let (x, y) = (self.freg(op.b), self.freg(op.c));
        let cc = match op.kind {
            UnS => FloatCC::Unordered,
            OeqS => FloatCC::Equal,
            UeqS => FloatCC::UnorderedOrEqual,
            OltS => FloatCC::LessThan,
            UltS => FloatCC::UnorderedOrLessThan,
            OleS => FloatCC::LessThanOrEqual,
            _ => FloatCC::UnorderedOrLessThanOrEqual,
        };
        let (fx, fy) =
            (self.b.ins().bitcast(F32, MemFlagsData::new(), x), self.b.ins().bitcast(F32, MemFlagsData::new(), y));
        let value = self.b.ins().fcmp(cc, fx, fy);
        let invalid = if matches!(op.kind, OltS | OleS) {
            self.b.ins().fcmp(FloatCC::Unordered, fx, fy)
        } else {
            let (sx, sy) = (self.signalling(x), self.signalling(y));
            self.b.ins().bor(sx, sy)
        };
        let fsr_ptr = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, fsr) as i32);
        let fsr = self.b.ins().load(I32, TRUSTED, fsr_ptr, 0);
        let invalid = self.b.ins().uextend(I32, invalid);
        let invalid = self.b.ins().ishl_imm_u(invalid, 11);
        let fsr = self.b.ins().bor(fsr, invalid);
        self.b.ins().store(TRUSTED, fsr, fsr_ptr, 0);
        let bit = u32::from(op.a & 15);
        let br_ptr = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, br) as i32);
        let br = self.b.ins().load(I32, TRUSTED, br_ptr, 0);
        let cleared = self.b.ins().band_imm_u(br, i64::from(!(1u32 << bit)));
        let value = self.b.ins().uextend(I32, value);
        let value = self.b.ins().ishl_imm_u(value, i64::from(bit));
        let br = self.b.ins().bor(cleared, value);
        self.b.ins().store(TRUSTED, br, br_ptr, 0);
    }

    /// A signalling NaN's bits: all exponent bits, a fraction, quiet bit 0.
    fn signalling(&mut self, x: Value) -> Value {
        let magnitude = self.b.ins().band_imm_u(x, 0x7fff_ffff);
        let nan = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, magnitude, 0x7f80_0000);
        let quiet = self.b.ins().band_imm_u(x, 0x0040_0000);
        let not_quiet = self.b.ins().icmp_imm_s(IntCC::Equal, quiet, 0);
        self.b.ins().band(nan, not_quiet)
    }

    fn fp_select(&mut self, op: &Op, take: Value) {
        let (new, old) = (self.freg(op.b), self.freg(op.a));
        let value = self.b.ins().select(take, new, old);
        self.set_freg(op.a, value);
    }

    /// Boolean register `n` (0 or its bit), read from memory: compares
    /// through `fp_step` write it there.
    pub(super) fn boolean(&mut self, n: u8) -> Value {
        let br = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, br) as i32);
        let bits = self.b.ins().load(I32, TRUSTED, br, 0);
        self.b.ins().band_imm_u(bits, 1 << (n & 15))
    }

    /// The access address of an FP load or store, and the base register's
    /// new value for the updating forms.
    fn fp_address(&mut self, op: &Op) -> (Value, Option<Value>) {
        use Kind::*;
        let base = self.reg(op.b);
        let offset = match op.kind {
            Lsx | Lsxu | Lsxp | Ssx | Ssxu | Ssxp => self.reg(op.c),
            _ => self.iconst(op.imm),
        };
        let sum = self.b.ins().iadd(base, offset);
        match op.kind {
            Lsip | Lsxp | Ssip | Ssxp => (base, Some(sum)),
            Lsiu | Lsxu | Ssiu | Ssxu => (sum, Some(sum)),
            _ => (sum, None),
        }
    }

    /// Runs `op` through `fp_step`: sources to memory, the call (an exit
    /// before the op if it refuses), destinations back.
    fn fp_call(&mut self, i: u32, op: &Op) {
        let uses = uses(op);
        let ar = self.ar();
        for n in 0..16u8 {
            if uses.ar_read & (1 << n) != 0 {
                let value = self.reg(n);
                self.b.ins().store(TRUSTED, value, ar, 4 * i32::from(n));
            }
            if uses.fr_read & (1 << n) != 0 {
                let value = self.freg(n);
                self.b.ins().store(TRUSTED, value, self.fr, 4 * i32::from(n));
            }
        }
        let helper = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, fp_step) as i32);
        // The op by index: the running copy's ops are in the context.
        let index = self.iconst(self.fp_base + i);
        let call = self.b.ins().call_indirect(self.fp_sig, helper, &[self.ctx, index]);
        let refused = self.b.inst_results(call)[0];
        let exit = self.exit_block(i);
        let next = self.b.create_block();
        self.b.ins().brif(refused, exit, &[], next, &[]);
        self.b.switch_to_block(next);
        let ar = self.ar();
        for n in 0..16u8 {
            if uses.ar_write & (1 << n) != 0 {
                let value = self.b.ins().load(I32, TRUSTED, ar, 4 * i32::from(n));
                self.set(n, value);
            }
            if uses.fr_write & (1 << n) != 0 {
                let value = self.b.ins().load(I32, TRUSTED, self.fr, 4 * i32::from(n));
                self.set_freg(n, value);
            }
        }
    }
}
