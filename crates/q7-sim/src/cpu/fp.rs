//! Single-precision FP (coprocessor 0): arithmetic with the four rounding
//! modes of FCR and the sticky flags of FSR, conversions, compares, moves,
//! loads and stores.
//!
//! Arithmetic is computed exactly in binary64 (a product of two binary32
//! values is exact there; a sum is exact as the pair `s + e` of the TwoSum
//! algorithm) and then rounded once to binary32 in the current mode, which
//! gives the correctly rounded result and exact inexact/overflow/underflow
//! flags without a soft-float library.

use crate::cpu::exec::Trap;
use crate::cpu::Cpu;
use crate::mem::Memory;
use crate::stop::Stop;
use crate::uop::{Kind, Op};

pub(crate) mod double;
mod steps;

/// FSR flag bits.
mod flag {
    pub const INEXACT: u32 = 1 << 7;
    pub const UNDERFLOW: u32 = 1 << 8;
    pub const OVERFLOW: u32 = 1 << 9;
    /// Raised only by `mkdadj.s` (the division step; see `steps`).
    pub const DIVIDE_BY_ZERO: u32 = 1 << 10;
    pub const INVALID: u32 = 1 << 11;
}

/// The NaN every invalid operation and NaN operand produces.
const DEFAULT_NAN: u32 = 0x7fc0_0000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Round {
    Nearest,
    Zero,
    Up,
    Down,
}

fn round_mode(fcr: u32) -> Round {
    match fcr & 3 {
        0 => Round::Nearest,
        1 => Round::Zero,
        2 => Round::Up,
        _ => Round::Down,
    }
}

/// `a + b = s + e` exactly (Knuth's TwoSum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// An exact zero sum of `x` and `y` in `mode`: -0 when rounding down
/// unless both are +0, else +0 unless both are -0 (IEEE 754).
fn zero_sum(x: f64, y: f64, mode: Round) -> f64 {
    let negative = if mode == Round::Down {
        !(x == 0.0 && y == 0.0 && x.is_sign_positive() && y.is_sign_positive())
    } else {
        x == 0.0 && y == 0.0 && x.is_sign_negative() && y.is_sign_negative()
    };
    if negative {
        -0.0
    } else {
        0.0
    }
}

/// [`two_sum`] with an exact zero signed as `mode` signs it.
fn signed_sum(a: f64, b: f64, mode: Round) -> (f64, f64) {
    match two_sum(a, b) {
        (s, e) if s == 0.0 && e == 0.0 => (zero_sum(a, b, mode), 0.0),
        exact => exact,
    }
}

fn is_snan(x: f32) -> bool {
    x.is_nan() && x.to_bits() & 0x0040_0000 == 0
}

/// Rounds the exact value `hi + lo` (|lo| at most half an ulp of `hi` in
/// binary64) to binary32 in `mode`; returns the result and the FSR flags.
fn round_pair(hi: f64, lo: f64, mode: Round) -> (f32, u32) {
    if !hi.is_finite() {
        return (hi as f32, 0);
    }
    let mut c = hi as f32;
    if c.is_infinite() {
        let positive = hi > 0.0;
        let toward_inf = match mode {
            Round::Nearest => true,
            Round::Zero => false,
            Round::Up => positive,
            Round::Down => !positive,
        };
        let magnitude = if toward_inf { f32::INFINITY } else { f32::MAX };
        let value = if positive { magnitude } else { -magnitude };
        return (value, flag::OVERFLOW | flag::INEXACT);
    }
    let d = hi - f64::from(c);
    let residual = d + lo;
    if residual == 0.0 {
        return (c, 0);
    }
    match mode {
        Round::Nearest => {
            // `hi as f32` broke a tie by evenness; `lo` may say the exact
            // value is past the midpoint.
            if d != 0.0 && lo != 0.0 && (lo > 0.0) == (d > 0.0) {
                let n = if d > 0.0 { c.next_up() } else { c.next_down() };
                if hi == (f64::from(c) + f64::from(n)) * 0.5 {
                    c = n;
                }
            }
        }
        Round::Zero => {
            if c == 0.0 {
                c = if residual < 0.0 { -0.0 } else { 0.0 };
            } else if (residual > 0.0) != (c > 0.0) {
                c = if c > 0.0 { c.next_down() } else { c.next_up() };
            }
        }
        Round::Up => {
            if residual > 0.0 {
                c = c.next_up();
            }
        }
        Round::Down => {
            if residual < 0.0 {
                c = c.next_down();
            }
        }
    }
    let mut flags = flag::INEXACT;
    if c.is_infinite() {
        flags |= flag::OVERFLOW;
    } else if hi.abs() < f64::from(f32::MIN_POSITIVE) {
        flags |= flag::UNDERFLOW;
    }
    (c, flags)
}

impl Cpu {
    #[inline(always)]
    fn f(&self, n: u8) -> f32 {
        f32::from_bits(self.fr[usize::from(n & 15)])
    }

    #[inline(always)]
    fn set_f(&mut self, n: u8, value: f32) {
        self.fr[usize::from(n & 15)] = value.to_bits();
    }

    /// Writes an arithmetic result, accumulating flags. `nan_order` lists
    /// the operands in the order a NaN result is taken from them (the
    /// quieted first NaN: QEMU's model of this FPU, checked by the
    /// differential tests); `invalid_op` marks inf − inf and 0 × inf, which
    /// give the default NaN when no operand is a NaN.
    fn fp_result(&mut self, dst: u8, nan_order: &[f32], invalid_op: bool, exact: (f64, f64)) {
        let signaling = nan_order.iter().any(|&x| is_snan(x));
        if signaling || invalid_op {
            self.fsr |= flag::INVALID;
        }
        if let Some(nan) = nan_order.iter().find(|x| x.is_nan()) {
            self.fr[usize::from(dst & 15)] = nan.to_bits() | 0x0040_0000;
            return;
        }
        if invalid_op {
            self.fr[usize::from(dst & 15)] = DEFAULT_NAN;
            return;
        }
        let (value, flags) = round_pair(exact.0, exact.1, round_mode(self.fcr));
        self.fsr |= flags;
        self.set_f(dst, value);
    }

    /// Float to integer: `value · 2^scale` rounded in `mode`, saturated.
    fn fp_to_int(&mut self, value: f64, scale: u32, mode: Round, unsigned: bool) -> u32 {
        let x = value * f64::from(1u32 << scale.min(15));
        let rounded = match mode {
            Round::Nearest => x.round_ties_even(),
            Round::Zero => x.trunc(),
            Round::Up => x.ceil(),
            Round::Down => x.floor(),
        };
        let (lo, hi) = if unsigned {
            // -0.99 truncates to 0: only a negative integer result is invalid.
            (0.0, f64::from(u32::MAX))
        } else {
            (f64::from(i32::MIN), f64::from(i32::MAX))
        };
        if value.is_nan() || rounded > hi {
            self.fsr |= flag::INVALID;
            return if unsigned { u32::MAX } else { i32::MAX as u32 };
        }
        if rounded < lo {
            self.fsr |= flag::INVALID;
            // A negative value converted unsigned gives what the signed
            // conversion gives (QEMU's model of UTRUNC.S).
            return (rounded.max(f64::from(i32::MIN)) as i32) as u32;
        }
        if rounded != x {
            self.fsr |= flag::INEXACT;
        }
        if unsigned {
            rounded as u32
        } else {
            rounded as i32 as u32
        }
    }

    /// `olt`/`ole` are signaling compares (any NaN is invalid); the others
    /// are quiet (only a signaling NaN is).
    #[inline(always)]
    fn fp_compare(&mut self, dst: u8, x: f32, y: f32, unordered_ok: bool, signaling: bool, test: fn(f32, f32) -> bool) {
        let unordered = x.is_nan() || y.is_nan();
        if is_snan(x) || is_snan(y) || (signaling && unordered) {
            self.fsr |= flag::INVALID;
        }
        let value = if unordered { unordered_ok } else { test(x, y) };
        self.set_bool(usize::from(dst & 15), value);
    }

    /// FP ops; the integer interpreter dispatches everything else.
    #[inline(always)]
    pub(crate) fn step_fp(&mut self, mem: &mut Memory, op: &Op) -> Result<(), Trap> {
        if self.cpenable & 1 == 0 {
            return Err(self.coprocessor0_disabled(op));
        }
        let (a, b, c) = (op.a, op.b, op.c);
        let ar = |cpu: &Cpu, n: u8| cpu.ar[usize::from(n & 15)];
        match op.kind {
            Kind::AddS | Kind::SubS => {
                let (x, y) = (self.f(b), self.f(c));
                let y2 = if op.kind == Kind::SubS { -y } else { y };
                let invalid = x.is_infinite() && y2.is_infinite() && x.is_sign_positive() != y2.is_sign_positive();
                self.fp_result(a, &[y, x], invalid, signed_sum(f64::from(x), f64::from(y2), round_mode(self.fcr)));
            }
            Kind::MulS => {
                let (x, y) = (self.f(b), self.f(c));
                let invalid = (x == 0.0 && y.is_infinite()) || (x.is_infinite() && y == 0.0);
                self.fp_result(a, &[y, x], invalid, (f64::from(x) * f64::from(y), 0.0));
            }
            Kind::MaddS | Kind::MsubS => {
                let (acc, x, y) = (self.f(a), self.f(b), self.f(c));
                let product = f64::from(x) * f64::from(y);
                let product = if op.kind == Kind::MsubS { -product } else { product };
                let zero_inf = (x == 0.0 && y.is_infinite()) || (x.is_infinite() && y == 0.0);
                let inf_inf = product.is_infinite()
                    && acc.is_infinite()
                    && product.is_sign_positive() != acc.is_sign_positive()
                    && !x.is_nan()
                    && !y.is_nan();
                let exact = signed_sum(f64::from(acc), product, round_mode(self.fcr));
                self.fp_result(a, &[acc, y, x], zero_inf || inf_inf, exact);
            }
            Kind::MovS => self.fr[usize::from(a & 15)] = self.fr[usize::from(b & 15)],
            Kind::AbsS => self.fr[usize::from(a & 15)] = self.fr[usize::from(b & 15)] & 0x7fff_ffff,
            Kind::NegS => self.fr[usize::from(a & 15)] = self.fr[usize::from(b & 15)] ^ 0x8000_0000,
            Kind::ConstS => {
                let value = match op.imm {
                    1 => 1.0,
                    2 => 2.0,
                    3 => 0.5,
                    _ => 0.0,
                };
                self.set_f(a, value);
            }
            Kind::Rfr => self.ar[usize::from(a & 15)] = self.fr[usize::from(b & 15)],
            Kind::Wfr => self.fr[usize::from(a & 15)] = ar(self, b),
            Kind::RoundS | Kind::TruncS | Kind::FloorS | Kind::CeilS | Kind::UtruncS => {
                let mode = match op.kind {
                    Kind::RoundS => Round::Nearest,
                    Kind::FloorS => Round::Down,
                    Kind::CeilS => Round::Up,
                    _ => Round::Zero,
                };
                let x = self.f(b);
                // QEMU scales in binary32 first (float32_scalbn), which can overflow.
                if x.is_finite() && (x * (1u32 << op.imm.min(15)) as f32).is_infinite() {
                    self.fsr |= flag::OVERFLOW | flag::INEXACT;
                }
                let value = self.fp_to_int(f64::from(x), op.imm, mode, op.kind == Kind::UtruncS);
                self.ar[usize::from(a & 15)] = value;
            }
            Kind::FloatS | Kind::UfloatS => {
                let raw = ar(self, b);
                let x = if op.kind == Kind::FloatS { f64::from(raw as i32) } else { f64::from(raw) };
                let exact = x / f64::from(1u32 << op.imm.min(15));
                let (value, flags) = round_pair(exact, 0.0, round_mode(self.fcr));
                self.fsr |= flags;
                self.set_f(a, value);
            }
            Kind::UnS => self.fp_compare(a, self.f(b), self.f(c), true, false, |_, _| false),
            Kind::OeqS => self.fp_compare(a, self.f(b), self.f(c), false, false, |x, y| x == y),
            Kind::UeqS => self.fp_compare(a, self.f(b), self.f(c), true, false, |x, y| x == y),
            Kind::OltS => self.fp_compare(a, self.f(b), self.f(c), false, true, |x, y| x < y),
            Kind::UltS => self.fp_compare(a, self.f(b), self.f(c), true, false, |x, y| x < y),
            Kind::OleS => self.fp_compare(a, self.f(b), self.f(c), false, true, |x, y| x <= y),
            Kind::UleS => self.fp_compare(a, self.f(b), self.f(c), true, false, |x, y| x <= y),
            Kind::MoveqzS | Kind::MovnezS | Kind::MovltzS | Kind::MovgezS => {
                let v = ar(self, c) as i32;
                let take = match op.kind {
                    Kind::MoveqzS => v == 0,
                    Kind::MovnezS => v != 0,
                    Kind::MovltzS => v < 0,
                    _ => v >= 0,
                };
                if take {
                    self.fr[usize::from(a & 15)] = self.fr[usize::from(b & 15)];
                }
            }
            Kind::MovfS | Kind::MovtS => {
                let bit = self.br & (1 << (c & 15)) != 0;
                if bit == (op.kind == Kind::MovtS) {
                    self.fr[usize::from(a & 15)] = self.fr[usize::from(b & 15)];
                }
            }
            Kind::Lsi | Kind::Lsiu | Kind::Lsip | Kind::Lsx | Kind::Lsxu | Kind::Lsxp => {
                let base = ar(self, b);
                let offset = match op.kind {
                    Kind::Lsx | Kind::Lsxu | Kind::Lsxp => ar(self, c),
                    _ => op.imm,
                };
                let post = matches!(op.kind, Kind::Lsip | Kind::Lsxp);
                let addr = if post { base } else { base.wrapping_add(offset) };
                let value = self.load32(mem, op, addr)?;
                self.fr[usize::from(a & 15)] = value;
                match op.kind {
                    Kind::Lsiu | Kind::Lsxu => self.ar[usize::from(b & 15)] = addr,
                    Kind::Lsip | Kind::Lsxp => self.ar[usize::from(b & 15)] = base.wrapping_add(offset),
                    _ => {}
                }
            }
            Kind::Ssi | Kind::Ssiu | Kind::Ssip | Kind::Ssx | Kind::Ssxu | Kind::Ssxp => {
                let base = ar(self, b);
                let offset = match op.kind {
                    Kind::Ssx | Kind::Ssxu | Kind::Ssxp => ar(self, c),
                    _ => op.imm,
                };
                let post = matches!(op.kind, Kind::Ssip | Kind::Ssxp);
                let addr = if post { base } else { base.wrapping_add(offset) };
                let value = self.fr[usize::from(a & 15)];
                self.store32(mem, op, addr, value)?;
                match op.kind {
                    Kind::Ssiu | Kind::Ssxu => self.ar[usize::from(b & 15)] = addr,
                    Kind::Ssip | Kind::Ssxp => self.ar[usize::from(b & 15)] = base.wrapping_add(offset),
                    _ => {}
                }
            }
            Kind::Div0S
            | Kind::Sqrt0S
            | Kind::Nexp01S
            | Kind::AddexpS
            | Kind::DivnS
            | Kind::MaddnS
            | Kind::AddexpmS
            | Kind::MkdadjS
            | Kind::MksadjS
            | Kind::Recip0S
            | Kind::Rsqrt0S => return self.step_divide_sqrt(op),
            // The integer interpreter never hands other kinds here.
            _ => return Err(Trap::Stop(Stop::Unsupported { pc: op.pc, mnemonic: op.opcode.mnemonic() })),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding_of_a_sum() {
        // 1 + 2^-30 is not representable: each mode picks its neighbour.
        let (hi, lo) = two_sum(1.0, 2f64.powi(-30));
        assert_eq!(round_pair(hi, lo, Round::Nearest), (1.0, flag::INEXACT));
        assert_eq!(round_pair(hi, lo, Round::Up).0, 1.0f32.next_up());
        assert_eq!(round_pair(hi, lo, Round::Down).0, 1.0);
        assert_eq!(round_pair(-hi, -lo, Round::Zero).0, -1.0);
        assert_eq!(round_pair(-hi, -lo, Round::Down).0, (-1.0f32).next_down());
    }

    #[test]
    fn ties_broken_by_the_low_part() {
        // Exactly halfway between 1 and next_up(1), plus a tiny bit more.
        let half_ulp = 2f64.powi(-24);
        assert_eq!(round_pair(1.0 + half_ulp, 0.0, Round::Nearest).0, 1.0);
        assert_eq!(round_pair(1.0 + half_ulp, 1e-30, Round::Nearest).0, 1.0f32.next_up());
    }

    #[test]
    fn overflow_by_mode() {
        let big = f64::from(f32::MAX) * 2.0;
        assert_eq!(round_pair(big, 0.0, Round::Nearest), (f32::INFINITY, flag::OVERFLOW | flag::INEXACT));
        assert_eq!(round_pair(big, 0.0, Round::Zero).0, f32::MAX);
        assert_eq!(round_pair(-big, 0.0, Round::Up).0, -f32::MAX);
    }
}
