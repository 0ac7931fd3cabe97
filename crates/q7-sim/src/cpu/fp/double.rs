//! The double-precision FP option (QEMU's `de233_fpu`): the f registers
//! are 64 bits wide (`Cpu::fr` the low halves, `Cpu::fr_hi` the high), the
//! double ops work on whole registers, and every single op runs as on a
//! core without the option but also sets the high half of the register it
//! writes as QEMU's translator does: zero for a computed or loaded value,
//! the sign extension for `wfr`, the source's for the moves.
//!
//! Arithmetic rounds in the FCR mode with exact flags: each result is the
//! binary64 nearest value `s` plus its exact error `e` (TwoSum, or a fused
//! multiply-add for products, quotients and roots), and a directed mode
//! moves `s` one ulp when `e` points that way. (Exact while the error is
//! representable: results deep in the subnormal range can be off by the
//! rounding of `e`.)

use super::{flag, is_snan, round_mode, round_pair, two_sum, zero_sum, Round};
use crate::cpu::exec::Trap;
use crate::cpu::Cpu;
use crate::mem::Memory;
use crate::stop::{cause, Stop};
use crate::uop::{HighHalf, Kind, Op};
use q7_isa::Opcode as O;

const QUIET: u64 = 1 << 51;
const DEFAULT_NAN: u64 = 0x7ff8_0000_0000_0000;

fn is_snan_d(x: f64) -> bool {
    x.is_nan() && x.to_bits() & QUIET == 0
}

/// Rounds the exact value `s + e / scale` (`s` the nearest binary64, `e`
/// its error, kept `scale` times larger where it would underflow) in
/// `mode`; `finite` tells whether the operands were (an infinite `s` is
/// then an overflow). Returns the result and the FSR flags.
fn round_d(s: f64, (e, scale): (f64, f64), mode: Round, finite: bool) -> (f64, u32) {
    if s.is_infinite() {
        if !finite {
            return (s, 0);
        }
        let positive = s > 0.0;
        let toward_inf = match mode {
            Round::Nearest => true,
            Round::Zero => false,
            Round::Up => positive,
            Round::Down => !positive,
        };
        let magnitude = if toward_inf { f64::INFINITY } else { f64::MAX };
        return (if positive { magnitude } else { -magnitude }, flag::OVERFLOW | flag::INEXACT);
    }
    if e == 0.0 || e.is_nan() {
        return (s, 0);
    }
    let c = match mode {
        Round::Nearest => s,
        Round::Zero if s != 0.0 && (e > 0.0) != (s > 0.0) => {
            if s > 0.0 {
                s.next_down()
            } else {
                s.next_up()
            }
        }
        Round::Zero => s,
        Round::Up if e > 0.0 => s.next_up(),
        Round::Down if e < 0.0 => s.next_down(),
        _ => s,
    };
    let mut flags = flag::INEXACT;
    if c.is_infinite() {
        flags |= flag::OVERFLOW;
    } else if s.abs() < f64::MIN_POSITIVE || (s.abs() == f64::MIN_POSITIVE && (e > 0.0) != (s > 0.0)) {
        // Tiny after rounding to 53 bits with an unbounded exponent (as
        // QEMU detects it): just below the smallest normal, the ulp is
        // 2^-1075.
        let tiny = s.abs() < f64::MIN_POSITIVE
            || match mode {
                // |e| / scale > 2^-1076, kept in range.
                Round::Nearest => e.abs() * 2f64.powi(300) > scale * 2f64.powi(-776),
                Round::Zero => true,
                Round::Up => s < 0.0,
                Round::Down => s > 0.0,
            };
        if tiny {
            flags |= flag::UNDERFLOW;
        }
    }
    (c, flags)
}

/// 2^256: scales a tiny result into the normal range, where the error
/// terms below are exact.
const SCALE: f64 = f64::from_bits((1023 + 256) << 52);

/// Whether `r` lies below the normal range, where a binary64 error term
/// can itself round away.
fn tiny(r: f64) -> bool {
    r.abs() < f64::MIN_POSITIVE * 2f64.powi(54)
}

/// The error of the binary64 product `p = x·y`, and its scale.
fn product_error(x: f64, y: f64, p: f64) -> (f64, f64) {
    if !p.is_finite() || x == 0.0 || y == 0.0 || !x.is_finite() || !y.is_finite() {
        return (0.0, 1.0);
    }
    if !tiny(p) {
        return (x.mul_add(y, -p), 1.0);
    }
    // Scale the smaller factor up: the product is then normal and its
    // error exact, and p·SCALE is exact.
    let (small, big) = if x.abs() < y.abs() { (x, y) } else { (y, x) };
    let ps = (small * SCALE) * big;
    if ps == 0.0 {
        // Still below the subnormals: only the sign is known, and needed.
        return (x.signum() * y.signum() * f64::from_bits(1), SCALE);
    }
    let es = (small * SCALE).mul_add(big, -ps);
    ((ps - p * SCALE) + es, SCALE)
}

/// The error of the rounded sum `r` of `acc + x·y` (fused), and its scale.
fn fused_error(acc: f64, x: f64, y: f64, r: f64) -> (f64, f64) {
    if !r.is_finite() || !acc.is_finite() || !x.is_finite() || !y.is_finite() {
        return (0.0, 1.0);
    }
    let scale = if tiny(r) && acc.abs() < 2f64.powi(700) && x.abs() < 2f64.powi(700) { SCALE } else { 1.0 };
    let (acc, x, r) = (acc * scale, x * scale, r * scale);
    let p = x * y;
    let (s, e) = two_sum(acc, p);
    let base = (s - r) + e;
    if !p.is_finite() || (tiny(p) && base != 0.0) {
        // A tiny product's own error is below base's last place.
        return (base, scale);
    }
    if tiny(p) {
        let (e, inner) = product_error(x, y, p);
        return (e, scale * inner);
    }
    (base + x.mul_add(y, -p), scale)
}

impl Cpu {
    #[inline(always)]
    fn d(&self, n: u8) -> f64 {
        let n = usize::from(n & 15);
        f64::from_bits(u64::from(self.fr_hi[n]) << 32 | u64::from(self.fr[n]))
    }

    #[inline(always)]
    fn set_d_bits(&mut self, n: u8, bits: u64) {
        let n = usize::from(n & 15);
        self.fr[n] = bits as u32;
        self.fr_hi[n] = (bits >> 32) as u32;
    }

    /// Writes an arithmetic result as `fp_result` does for single ops.
    fn d_result(&mut self, dst: u8, nan_order: &[f64], invalid_op: bool, exact: (f64, (f64, f64))) {
        if nan_order.iter().any(|&x| is_snan_d(x)) || invalid_op {
            self.fsr |= flag::INVALID;
        }
        if let Some(nan) = nan_order.iter().find(|x| x.is_nan()) {
            self.set_d_bits(dst, nan.to_bits() | QUIET);
            return;
        }
        if invalid_op {
            self.set_d_bits(dst, DEFAULT_NAN);
            return;
        }
        let finite = nan_order.iter().all(|x| x.is_finite());
        let (value, flags) = round_d(exact.0, exact.1, round_mode(self.fcr), finite);
        self.fsr |= flags;
        self.set_d_bits(dst, value.to_bits());
    }

    fn d_compare(&mut self, dst: u8, x: f64, y: f64, unordered_ok: bool, signaling: bool, test: fn(f64, f64) -> bool) {
        let unordered = x.is_nan() || y.is_nan();
        if is_snan_d(x) || is_snan_d(y) || (signaling && unordered) {
            self.fsr |= flag::INVALID;
        }
        let value = if unordered { unordered_ok } else { test(x, y) };
        self.set_bool(usize::from(dst & 15), value);
    }

    /// A [`Kind::Fp64`] op: gated by CPENABLE as every FP op is.
    pub(crate) fn step_fp64(&mut self, mem: &mut Memory, op: &Op) -> Result<(), Trap> {
        if self.cpenable & 1 == 0 {
            return Err(self.coprocessor0_disabled(op));
        }
        let (a, b, c) = (op.a, op.b, op.c);
        let ar = |cpu: &Cpu, n: u8| cpu.ar[usize::from(n & 15)];
        let mode = round_mode(self.fcr);
        match op.opcode {
            O::AddD | O::SubD => {
                let (x, y) = (self.d(b), self.d(c));
                let y2 = if op.opcode == O::SubD { -y } else { y };
                let invalid = x.is_infinite() && y2.is_infinite() && x.is_sign_positive() != y2.is_sign_positive();
                let (mut sum, e) = two_sum(x, y2);
                if sum == 0.0 && e == 0.0 {
                    sum = zero_sum(x, y2, mode);
                }
                // QEMU takes the first NaN operand for these.
                self.d_result(a, &[x, y], invalid, (sum, (e, 1.0)));
            }
            O::MulD => {
                let (x, y) = (self.d(b), self.d(c));
                let invalid = (x == 0.0 && y.is_infinite()) || (x.is_infinite() && y == 0.0);
                let p = x * y;
                self.d_result(a, &[x, y], invalid, (p, product_error(x, y, p)));
            }
            O::MaddD | O::MsubD => {
                let (acc, x, y) = (self.d(a), self.d(b), self.d(c));
                let x2 = if op.opcode == O::MsubD { -x } else { x };
                let p = x2 * y;
                let zero_inf = (x == 0.0 && y.is_infinite()) || (x.is_infinite() && y == 0.0);
                // The fused product overflows nothing: only an infinite
                // factor makes it infinite.
                let inf_inf = (x.is_infinite() || y.is_infinite())
                    && p.is_infinite()
                    && acc.is_infinite()
                    && p.is_sign_positive() != acc.is_sign_positive()
                    && !x.is_nan()
                    && !y.is_nan();
                // The fused result, and the sign of what it lost.
                let mut r = x2.mul_add(y, acc);
                let lost = fused_error(acc, x2, y, r);
                if r == 0.0 && lost.0 == 0.0 {
                    r = zero_sum(acc, p, mode);
                }
                self.d_result(a, &[acc, y, x], zero_inf || inf_inf, (r, lost));
            }
            O::MovD => self.set_d_bits(a, self.d(b).to_bits()),
            O::AbsD => self.set_d_bits(a, self.d(b).to_bits() & !(1 << 63)),
            O::NegD => self.set_d_bits(a, self.d(b).to_bits() ^ 1 << 63),
            O::ConstD => {
                let value: f64 = match op.imm {
                    1 => 1.0,
                    2 => 2.0,
                    3 => 0.5,
                    _ => 0.0,
                };
                self.set_d_bits(a, value.to_bits());
            }
            O::Rfrd => self.ar[usize::from(a & 15)] = self.fr_hi[usize::from(b & 15)],
            O::Wfrd => self.set_d_bits(a, u64::from(ar(self, b)) << 32 | u64::from(ar(self, c))),
            O::RoundD | O::TruncD | O::FloorD | O::CeilD | O::UtruncD => {
                let rounding = match op.opcode {
                    O::RoundD => Round::Nearest,
                    O::FloorD => Round::Down,
                    O::CeilD => Round::Up,
                    _ => Round::Zero,
                };
                let x = self.d(b);
                // QEMU scales first (float64_scalbn), which can overflow.
                if x.is_finite() && (x * f64::from(1u32 << op.imm.min(15))).is_infinite() {
                    self.fsr |= flag::OVERFLOW | flag::INEXACT;
                }
                let value = if op.opcode == O::UtruncD && x.is_sign_negative() && !x.is_nan() {
                    // QEMU's utrunc.d: any negative value is invalid, and
                    // converts as trunc.d does.
                    self.fsr |= flag::INVALID;
                    self.fp_to_int(x, op.imm, rounding, false)
                } else {
                    self.fp_to_int(x, op.imm, rounding, op.opcode == O::UtruncD)
                };
                self.ar[usize::from(a & 15)] = value;
            }
            O::FloatD | O::UfloatD => {
                let raw = ar(self, b);
                let x = if op.opcode == O::FloatD { f64::from(raw as i32) } else { f64::from(raw) };
                // Exact: 32 bits fit the significand, the scale the exponent.
                self.set_d_bits(a, (x / f64::from(1u32 << op.imm.min(15))).to_bits());
            }
            O::CvtdS => {
                let x = f32::from_bits(self.fr[usize::from(b & 15)]);
                let bits = if x.is_nan() {
                    if is_snan(x) {
                        self.fsr |= flag::INVALID;
                    }
                    let raw = u64::from(x.to_bits());
                    (raw >> 31) << 63 | 0x7ff8_0000_0000_0000 | (raw & 0x3f_ffff) << 29
                } else {
                    f64::from(x).to_bits()
                };
                self.set_d_bits(a, bits);
            }
            O::CvtsD => {
                let x = self.d(b);
                let bits = if x.is_nan() {
                    if is_snan_d(x) {
                        self.fsr |= flag::INVALID;
                    }
                    let raw = x.to_bits();
                    ((raw >> 63) as u32) << 31 | 0x7fc0_0000 | ((raw >> 29) as u32 & 0x3f_ffff)
                } else {
                    let (value, flags) = round_pair(x, 0.0, mode);
                    self.fsr |= flags;
                    value.to_bits()
                };
                self.set_d_bits(a, u64::from(bits));
            }
            O::UnD => self.d_compare(a, self.d(b), self.d(c), true, false, |_, _| false),
            O::OeqD => self.d_compare(a, self.d(b), self.d(c), false, false, |x, y| x == y),
            O::UeqD => self.d_compare(a, self.d(b), self.d(c), true, false, |x, y| x == y),
            O::OltD => self.d_compare(a, self.d(b), self.d(c), false, true, |x, y| x < y),
            O::UltD => self.d_compare(a, self.d(b), self.d(c), true, false, |x, y| x < y),
            O::OleD => self.d_compare(a, self.d(b), self.d(c), false, true, |x, y| x <= y),
            O::UleD => self.d_compare(a, self.d(b), self.d(c), true, false, |x, y| x <= y),
            O::Ldi | O::Ldip | O::Ldx | O::Ldxp | O::Sdi | O::Sdip | O::Sdx | O::Sdxp => {
                let (addr, next) = address(op, &self.ar).unwrap_or_default();
                if matches!(op.opcode, O::Ldi | O::Ldip | O::Ldx | O::Ldxp) {
                    let value = self.load64(mem, op, addr)?;
                    self.set_d_bits(a, value);
                } else {
                    let value = self.d(a).to_bits();
                    self.store64(mem, op, addr, value)?;
                }
                if let Some(next) = next {
                    self.ar[usize::from(b & 15)] = next;
                }
            }
            // The step instructions, collapsed as for single precision
            // (see `steps`): mkdadj.d divides, mksadj.d takes the root,
            // addexpm.d moves the result; the others change nothing.
            O::MkdadjD => self.d_divide(a, self.d(b), self.d(a)),
            O::MksadjD => self.d_sqrt(a, self.d(b)),
            O::AddexpmD => self.set_d_bits(a, self.d(b).to_bits()),
            O::Recip0D | O::Rsqrt0D => {
                let report = Stop::Unsupported { pc: op.pc, mnemonic: op.opcode.mnemonic() };
                return Err(match self.raise(op.pc, cause::ILLEGAL_INSTRUCTION, None, report) {
                    Ok(()) => Trap::Redirect,
                    Err(stop) => Trap::Stop(stop),
                });
            }
            O::Div0D | O::Sqrt0D | O::Nexp01D | O::AddexpD | O::MaddnD | O::DivnD => {}
            _ => return Err(Trap::Stop(Stop::Unsupported { pc: op.pc, mnemonic: op.opcode.mnemonic() })),
        }
        Ok(())
    }

    /// A single-precision FP op; with the double-precision option its
    /// result also sets the f register's high half (compiled code does the
    /// same: `jit::Flavor::wide_fp`).
    pub(crate) fn step_single(&mut self, mem: &mut Memory, op: &Op) -> Result<(), Trap> {
        if self.config.isa.has(q7_isa::Feature::DoubleFloat) {
            self.step_single_wide(mem, op)
        } else {
            self.step_fp(mem, op)
        }
    }

    /// A single op with 64-bit f registers.
    fn step_single_wide(&mut self, mem: &mut Memory, op: &Op) -> Result<(), Trap> {
        let (a, b, c) = (usize::from(op.a & 15), usize::from(op.b & 15), usize::from(op.c & 15));
        let kind = op.kind;
        // The moves copy the whole register when they move.
        let moves = match kind {
            Kind::MovS => Some(true),
            Kind::MoveqzS => Some(self.ar[c] == 0),
            Kind::MovnezS => Some(self.ar[c] != 0),
            Kind::MovltzS => Some((self.ar[c] as i32) < 0),
            Kind::MovgezS => Some((self.ar[c] as i32) >= 0),
            Kind::MovfS => Some(self.br & 1 << c == 0),
            Kind::MovtS => Some(self.br & 1 << c != 0),
            _ => None,
        };
        if let Some(moves) = moves {
            if moves {
                (self.fr[a], self.fr_hi[a]) = (self.fr[b], self.fr_hi[b]);
            }
            return Ok(());
        }
        self.step_fp(mem, op)?;
        match kind.high_half() {
            HighHalf::SignExtended => self.fr_hi[a] = ((self.fr[a] as i32) >> 31) as u32,
            HighHalf::Cleared => self.fr_hi[a] = 0,
            HighHalf::Moved | HighHalf::Untouched => {}
        }
        Ok(())
    }

    /// `dst = x / y` (see `steps::fp_divide`).
    fn d_divide(&mut self, dst: u8, x: f64, y: f64) {
        let q = x / y;
        let lo = if !q.is_finite() || !x.is_finite() || !y.is_finite() || x == 0.0 {
            (0.0, 1.0)
        } else if tiny(q) && x.abs() < 2f64.powi(700) {
            // Scaled into the normal range, where the remainder is exact.
            let (xs, qs) = (x * SCALE, (x * SCALE) / y);
            ((qs - q * SCALE) + (-qs).mul_add(y, xs) / y, SCALE)
        } else if tiny(q) {
            let (ys, qs) = (y / SCALE, x / (y / SCALE));
            ((qs - q * SCALE) + (-qs).mul_add(ys, x) / ys, SCALE)
        } else {
            ((-q).mul_add(y, x) / y, 1.0)
        };
        let invalid = (x == 0.0 && y == 0.0) || (x.is_infinite() && y.is_infinite());
        if y == 0.0 && x.is_finite() && x != 0.0 {
            self.fsr |= flag::DIVIDE_BY_ZERO;
        }
        let finite = x.is_finite() && y.is_finite() && y != 0.0;
        if [x, y].iter().any(|&v| is_snan_d(v)) || invalid {
            self.fsr |= flag::INVALID;
        }
        if let Some(nan) = [y, x].iter().find(|v| v.is_nan()) {
            return self.set_d_bits(dst, nan.to_bits() | QUIET);
        }
        if invalid {
            return self.set_d_bits(dst, DEFAULT_NAN);
        }
        let (value, flags) = round_d(q, lo, round_mode(self.fcr), finite);
        self.fsr |= flags;
        self.set_d_bits(dst, value.to_bits());
    }

    /// `dst = sqrt(x)` (see `steps::fp_sqrt`).
    fn d_sqrt(&mut self, dst: u8, x: f64) {
        let s = x.sqrt();
        let lo = if s.is_finite() && s != 0.0 { (-s).mul_add(s, x) / (2.0 * s) } else { 0.0 };
        self.d_result(dst, &[x], x < 0.0, (s, (lo, 1.0)));
    }
}

/// The address a double load or store accesses and the base register's
/// new value (post-increment forms); `None` for any other op.
pub(crate) fn address(op: &Op, ar: &[u32; 16]) -> Option<(u32, Option<u32>)> {
    let base = ar[usize::from(op.b & 15)];
    let index = ar[usize::from(op.c & 15)];
    Some(match op.opcode {
        O::Ldi | O::Sdi => (base.wrapping_add(op.imm), None),
        O::Ldip | O::Sdip => (base, Some(base.wrapping_add(op.imm))),
        O::Ldx | O::Sdx => (base.wrapping_add(index), None),
        O::Ldxp | O::Sdxp => (base, Some(base.wrapping_add(index))),
        _ => return None,
    })
}

/// The data a [`Kind::Fp64`] op accesses, for DBREAK: (address, is a
/// load, bytes); the single loads and stores are their own kinds.
pub(crate) fn data_access(op: &Op, ar: &[u32; 16]) -> Option<(u32, bool, u32)> {
    let (addr, _) = address(op, ar)?;
    Some((addr, matches!(op.opcode, O::Ldi | O::Ldip | O::Ldx | O::Ldxp), 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding_of_a_double_sum() {
        let (s, e) = two_sum(1.0, 2f64.powi(-60));
        assert_eq!(round_d(s, (e, 1.0), Round::Nearest, true), (1.0, flag::INEXACT));
        assert_eq!(round_d(s, (e, 1.0), Round::Up, true).0, 1.0f64.next_up());
        assert_eq!(round_d(s, (e, 1.0), Round::Down, true).0, 1.0);
        assert_eq!(round_d(-s, (-e, 1.0), Round::Zero, true).0, -1.0);
        assert_eq!(round_d(-s, (-e, 1.0), Round::Down, true).0, (-1.0f64).next_down());
        let inf = (f64::INFINITY, (0.0, 1.0));
        assert_eq!(round_d(inf.0, inf.1, Round::Zero, true), (f64::MAX, flag::OVERFLOW | flag::INEXACT));
        assert_eq!(round_d(inf.0, inf.1, Round::Zero, false), (f64::INFINITY, 0));
    }
}
