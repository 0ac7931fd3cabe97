//! FP arithmetic and conversions on the host's FP unit, in the common case
//! where the result and every FSR change are known to equal the
//! interpreter's (`cpu::fp`): round-to-nearest (FCR, read at run time), and
//! a finite result whose exact value is zero or not tiny, so the only flag
//! that can change is Inexact, decided exactly from the rounding error
//! (TwoSum for sums, the exact binary64 product for products). Everything
//! else (NaNs, infinities, tiny products, overflow, the directed rounding
//! modes, conversions out of range) branches to `fp_call`, the
//! interpreter's `step_fp`.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value};

use crate::jit::translate::{Translator, TRUSTED};
use crate::jit::JitCtx;
use crate::uop::{Kind, Op};

/// FSR.Inexact's bit position.
const INEXACT_SHIFT: i64 = 7;
/// Bits of binary32 infinity.
const INFINITY_BITS: i64 = 0x7f80_0000;

/// What a fast path computed: whether it applies (i8), the destination's
/// value, and whether the result was rounded (i8).
struct Fast {
    applies: Value,
    value: Value,
    inexact: Value,
}

impl Translator<'_, '_> {
    /// Emits FP op `i` if it has a fast path here (`false` if not).
    pub(super) fn fp_fast(&mut self, i: u32, op: &Op) -> bool {
        use Kind::*;
        let fast = match op.kind {
            AddS | SubS => self.fast_add(op),
            MulS => self.fast_mul(op),
            MaddS | MsubS => self.fast_madd(op),
            FloatS | UfloatS => self.fast_from_int(op),
            RoundS | TruncS | FloorS | CeilS | UtruncS => self.fast_to_int(op),
            _ => return false,
        };
        let to_int = matches!(op.kind, RoundS | TruncS | FloorS | CeilS | UtruncS);
        let (fast_block, slow_block, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(slow_block);
        self.b.ins().brif(fast.applies, fast_block, &[], slow_block, &[]);

        self.b.switch_to_block(fast_block);
        if to_int {
            self.set(op.a, fast.value);
        } else {
            self.set_freg(op.a, fast.value);
        }
        // FSR flags are sticky: Inexact is or-ed in.
        let fsr_ptr = self.b.ins().load(self.ptr, TRUSTED, self.ctx, offset_of!(JitCtx, fsr) as i32);
        let fsr = self.b.ins().load(I32, TRUSTED, fsr_ptr, 0);
        let inexact = self.b.ins().uextend(I32, fast.inexact);
        let inexact = self.b.ins().ishl_imm_u(inexact, INEXACT_SHIFT);
        let fsr = self.b.ins().bor(fsr, inexact);
        self.b.ins().store(TRUSTED, fsr, fsr_ptr, 0);
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(slow_block);
        self.fp_call(i, op);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        true
    }

    fn f32_of(&mut self, bits: Value) -> Value {
        self.b.ins().bitcast(F32, MemFlagsData::new(), bits)
    }

    /// FCR selects round-to-nearest (i8). FCR changes only through `wur`,
    /// which compiled code leaves to the interpreter, so the context's copy
    /// is current.
    fn round_nearest(&mut self) -> Value {
        let fcr = self.b.ins().load(I32, TRUSTED, self.ctx, offset_of!(JitCtx, fcr) as i32);
        let mode = self.b.ins().band_imm_u(fcr, 3);
        self.b.ins().icmp_imm_s(IntCC::Equal, mode, 0)
    }

    /// Round-to-nearest and a binary32 result `s` that is finite (neither
    /// infinite nor NaN, so no operand was).
    fn nearest_and_finite(&mut self, s: Value) -> Value {
        let bits = self.b.ins().bitcast(I32, MemFlagsData::new(), s);
        let magnitude = self.b.ins().band_imm_u(bits, 0x7fff_ffff);
        let finite = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, magnitude, INFINITY_BITS);
        let nearest = self.round_nearest();
        self.b.ins().band(finite, nearest)
    }

    /// `x == 0 || |x| >= 2^-126` for a binary64 `x` (false for NaN): the
    /// interpreter flags Underflow for a rounded result whose exact value
    /// (its binary64 approximation) is nonzero and below 2^-126.
    fn zero_or_not_tiny(&mut self, x: Value) -> Value {
        let magnitude = self.b.ins().fabs(x);
        let min_normal = self.b.ins().f64const(f64::from(f32::MIN_POSITIVE));
        let not_tiny = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, magnitude, min_normal);
        let zero = self.b.ins().f64const(0.0);
        let is_zero = self.b.ins().fcmp(FloatCC::Equal, x, zero);
        self.b.ins().bor(not_tiny, is_zero)
    }

    /// `add.s`/`sub.s`: the host's sum (an exact zero signed as IEEE says,
    /// as the interpreter's binary64 sum is); its rounding error by TwoSum
    /// (exact for finite operands and sum). A finite sum needs no more: an
    /// exact sum below 2^-126 is representable, so a sum never underflows.
    fn fast_add(&mut self, op: &Op) -> Fast {
        let (xb, yb) = (self.freg(op.b), self.freg(op.c));
        let (x, y) = (self.f32_of(xb), self.f32_of(yb));
        let y = if op.kind == Kind::SubS { self.b.ins().fneg(y) } else { y };
        let s = self.b.ins().fadd(x, y);
        let error = self.two_sum_error(x, y, s);
        let zero = self.b.ins().f32const(0.0);
        let inexact = self.b.ins().fcmp(FloatCC::NotEqual, error, zero);
        let applies = self.nearest_and_finite(s);
        let value = self.b.ins().bitcast(I32, MemFlagsData::new(), s);
        Fast { applies, value, inexact }
    }

    /// `x + y - s` exactly, for `s` the rounded `x + y` (Knuth's TwoSum).
    fn two_sum_error(&mut self, x: Value, y: Value, s: Value) -> Value {
        let y_part = self.b.ins().fsub(s, x);
        let x_part = self.b.ins().fsub(s, y_part);
        let x_error = self.b.ins().fsub(x, x_part);
        let y_error = self.b.ins().fsub(y, y_part);
        self.b.ins().fadd(x_error, y_error)
    }

    /// `mul.s`: the binary64 product of two binary32 values is exact; the
    /// result is it rounded once, inexact when that changed it.
    fn fast_mul(&mut self, op: &Op) -> Fast {
        let (xb, yb) = (self.freg(op.b), self.freg(op.c));
        let (x, y) = (self.f32_of(xb), self.f32_of(yb));
        let (xd, yd) = (self.b.ins().fpromote(F64, x), self.b.ins().fpromote(F64, y));
        let product = self.b.ins().fmul(xd, yd);
        let s = self.b.ins().fdemote(F32, product);
        let back = self.b.ins().fpromote(F64, s);
        let inexact = self.b.ins().fcmp(FloatCC::NotEqual, back, product);
        let finite = self.nearest_and_finite(s);
        let not_tiny = self.zero_or_not_tiny(product);
        let applies = self.b.ins().band(finite, not_tiny);
        let value = self.b.ins().bitcast(I32, MemFlagsData::new(), s);
        Fast { applies, value, inexact }
    }

    /// `madd.s`/`msub.s`, fused as the interpreter computes them: the
    /// host's FMA gives the once-rounded `acc ± x·y`; exactness from the
    /// exact binary64 product and a binary64 TwoSum (`hi + lo` is the exact
    /// value; the result is exact when it equals `hi` and `lo` is zero).
    fn fast_madd(&mut self, op: &Op) -> Fast {
        let (ab, xb, yb) = (self.freg(op.a), self.freg(op.b), self.freg(op.c));
        let (acc, x, y) = (self.f32_of(ab), self.f32_of(xb), self.f32_of(yb));
        let x = if op.kind == Kind::MsubS { self.b.ins().fneg(x) } else { x };
        let s = self.b.ins().fma(x, y, acc);
        let (xd, yd, accd) =
            (self.b.ins().fpromote(F64, x), self.b.ins().fpromote(F64, y), self.b.ins().fpromote(F64, acc));
        let product = self.b.ins().fmul(xd, yd);
        let hi = self.b.ins().fadd(accd, product);
        let lo = self.two_sum_error(accd, product, hi);
        let back = self.b.ins().fpromote(F64, s);
        let rounded = self.b.ins().fcmp(FloatCC::NotEqual, back, hi);
        let zero = self.b.ins().f64const(0.0);
        let below = self.b.ins().fcmp(FloatCC::NotEqual, lo, zero);
        let inexact = self.b.ins().bor(rounded, below);
        let finite = self.nearest_and_finite(s);
        let not_tiny = self.zero_or_not_tiny(hi);
        let applies = self.b.ins().band(finite, not_tiny);
        let value = self.b.ins().bitcast(I32, MemFlagsData::new(), s);
        Fast { applies, value, inexact }
    }

    /// `float.s`/`ufloat.s`: the integer (exact in binary64) scaled by
    /// 2^-imm (exact), rounded once. No overflow or underflow is possible,
    /// so only the rounding mode sends it to the interpreter.
    fn fast_from_int(&mut self, op: &Op) -> Fast {
        let raw = self.reg(op.b);
        let x = if op.kind == Kind::FloatS {
            self.b.ins().fcvt_from_sint(F64, raw)
        } else {
            self.b.ins().fcvt_from_uint(F64, raw)
        };
        let scale = self.b.ins().f64const(1.0 / f64::from(1u32 << op.imm.min(15)));
        let exact = self.b.ins().fmul(x, scale);
        let s = self.b.ins().fdemote(F32, exact);
        let back = self.b.ins().fpromote(F64, s);
        let inexact = self.b.ins().fcmp(FloatCC::NotEqual, back, exact);
        let applies = self.round_nearest();
        let value = self.b.ins().bitcast(I32, MemFlagsData::new(), s);
        Fast { applies, value, inexact }
    }

    /// `round.s`, `trunc.s`, `floor.s`, `ceil.s`, `utrunc.s` (rounding fixed
    /// by the op, not FCR): `value · 2^imm` (exact in binary64) rounded to
    /// an integer; in the result's range it converts exactly, inexact when
    /// the rounding changed it. NaNs and out-of-range values (Invalid,
    /// saturation) go to the interpreter.
    fn fast_to_int(&mut self, op: &Op) -> Fast {
        use Kind::*;
        let bits = self.freg(op.b);
        let f = self.f32_of(bits);
        let fd = self.b.ins().fpromote(F64, f);
        let scale = self.b.ins().f64const(f64::from(1u32 << op.imm.min(15)));
        let x = self.b.ins().fmul(fd, scale);
        let rounded = match op.kind {
            RoundS => self.b.ins().nearest(x),
            FloorS => self.b.ins().floor(x),
            CeilS => self.b.ins().ceil(x),
            _ => self.b.ins().trunc(x),
        };
        let (lo, hi) =
            if op.kind == UtruncS { (0.0, f64::from(u32::MAX)) } else { (f64::from(i32::MIN), f64::from(i32::MAX)) };
        let (lo, hi) = (self.b.ins().f64const(lo), self.b.ins().f64const(hi));
        // Ordered compares: false for NaN.
        let above_lo = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, rounded, lo);
        let below_hi = self.b.ins().fcmp(FloatCC::LessThanOrEqual, rounded, hi);
        let applies = self.b.ins().band(above_lo, below_hi);
        // Both ranges fit i64; the low 32 bits are the result either way.
        let wide = self.b.ins().fcvt_to_sint_sat(I64, rounded);
        let value = self.b.ins().ireduce(I32, wide);
        let inexact = self.b.ins().fcmp(FloatCC::NotEqual, rounded, x);
        Fast { applies, value, inexact }
    }
}
