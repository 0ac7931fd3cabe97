//! The divide and square-root step instructions of the FPU (`div0.s`,
//! `divn.s`, `maddn.s`, `nexp01.s`, `addexp.s`, `addexpm.s`, `mkdadj.s`,
//! `mksadj.s`, `sqrt0.s`, `recip0.s`, `rsqrt0.s`), modelled as QEMU models
//! this FPU (`target/xtensa`, core `de233_fpu`), which the differential
//! tests check bit for bit.
//!
//! Compilers and libgcc divide and take square roots with fixed sequences
//! of these steps (`__divsf3`, `__ieee754_sqrtf`): the hardware refines a
//! table estimate with fused steps on exponent-normalised operands, and the
//! whole sequence delivers the IEEE result and flags. The steps' own
//! intermediate values are not published, so QEMU collapses each sequence:
//! `mkdadj.s` computes the whole quotient and `mksadj.s` the whole square
//! root (correctly rounded in the FCR mode, with the IEEE flags), `addexpm.s`
//! moves that result into the register the final `divn.s` names, and every
//! other step leaves its destination alone and raises nothing. The
//! sequences therefore end with exactly the IEEE result and FSR the
//! hardware gives; the individual steps agree with QEMU, not necessarily
//! with the hardware's intermediate values. `recip0.s` and `rsqrt0.s` have
//! no model in QEMU: they raise IllegalInstruction there, and here.

use super::flag;
use crate::cpu::exec::Trap;
use crate::cpu::Cpu;
use crate::stop::{cause, Stop};
use crate::uop::{Kind, Op};

impl Cpu {
    /// One step instruction (the coprocessor is already checked enabled).
    pub(super) fn step_divide_sqrt(&mut self, op: &Op) -> Result<(), Trap> {
        let (a, b) = (op.a, op.b);
        match op.kind {
            Kind::AddexpmS => self.fr[usize::from(a & 15)] = self.fr[usize::from(b & 15)],
            // mkdadj.s fr, fs: fr = fs / fr.
            Kind::MkdadjS => self.fp_divide(a, self.f(b), self.f(a)),
            Kind::MksadjS => self.fp_sqrt(a, self.f(b)),
            Kind::Recip0S | Kind::Rsqrt0S => {
                let report = Stop::Unsupported { pc: op.pc, mnemonic: op.opcode.mnemonic() };
                return Err(match self.raise(op.pc, cause::ILLEGAL_INSTRUCTION, None, report) {
                    Ok(()) => Trap::Redirect,
                    Err(stop) => Trap::Stop(stop),
                });
            }
            // div0.s, sqrt0.s, nexp01.s, addexp.s, maddn.s, divn.s.
            _ => {}
        }
        Ok(())
    }

    /// `dst = x / y`, correctly rounded in the FCR mode. The quotient `q`
    /// is rounded to binary64 first; the remainder `x - q·y` is exact there
    /// (one fused multiply-add), and `remainder / y` tells the rounding on
    /// which side of `q` the exact quotient lies.
    fn fp_divide(&mut self, dst: u8, x: f32, y: f32) {
        let (wx, wy) = (f64::from(x), f64::from(y));
        let q = wx / wy;
        let lo = if q.is_finite() && q != 0.0 { (-q).mul_add(wy, wx) / wy } else { 0.0 };
        let invalid = (x == 0.0 && y == 0.0) || (x.is_infinite() && y.is_infinite());
        if y == 0.0 && x.is_finite() && x != 0.0 {
            self.fsr |= flag::DIVIDE_BY_ZERO;
        }
        // With two NaNs the divisor's wins (QEMU's NaN order for this core).
        self.fp_result(dst, &[y, x], invalid, (q, lo));
    }

    /// `dst = sqrt(x)`, correctly rounded in the FCR mode; the remainder
    /// `x - s²` (exact in binary64) places the exact root beside `s`.
    fn fp_sqrt(&mut self, dst: u8, x: f32) {
        let wx = f64::from(x);
        let s = wx.sqrt();
        let lo = if s.is_finite() && s != 0.0 { (-s).mul_add(s, wx) / (2.0 * s) } else { 0.0 };
        let invalid = x < 0.0;
        self.fp_result(dst, &[x], invalid, (s, lo));
    }
}

#[cfg(test)]
mod tests {
    use crate::config::CoreConfig;
    use crate::cpu::Cpu;

    fn cpu() -> Cpu {
        let mut cpu = Cpu::new(0, CoreConfig::de233_fpu());
        cpu.cpenable = 1;
        cpu
    }

    fn divide(cpu: &mut Cpu, x: f32, y: f32) -> u32 {
        cpu.fp_divide(0, x, y);
        cpu.fr[0]
    }

    #[test]
    fn quotients_round_in_every_mode() {
        let mut cpu = cpu();
        // 1/3 lies between two floats; nearest and up pick the upper one.
        assert_eq!(divide(&mut cpu, 1.0, 3.0), 0x3eaa_aaab);
        assert_eq!(cpu.fsr, 1 << 7);
        cpu.fcr = 1;
        assert_eq!(divide(&mut cpu, 1.0, 3.0), 0x3eaa_aaaa);
        cpu.fcr = 3;
        assert_eq!(divide(&mut cpu, -1.0, 3.0), 0xbeaa_aaab);
        cpu.fcr = 0;
        cpu.fsr = 0;
        assert_eq!(divide(&mut cpu, 6.0, 3.0), 2.0f32.to_bits());
        assert_eq!(cpu.fsr, 0, "an exact quotient raises nothing");
    }

    #[test]
    fn special_quotients_and_their_flags() {
        let mut cpu = cpu();
        assert_eq!(divide(&mut cpu, -1.0, 0.0), f32::NEG_INFINITY.to_bits());
        assert_eq!(cpu.fsr, 1 << 10);
        cpu.fsr = 0;
        assert_eq!(divide(&mut cpu, 0.0, 0.0), 0x7fc0_0000);
        assert_eq!(cpu.fsr, 1 << 11);
        cpu.fsr = 0;
        assert_eq!(divide(&mut cpu, f32::INFINITY, 0.0), f32::INFINITY.to_bits());
        assert_eq!(cpu.fsr, 0);
        // Two NaNs: the divisor's, quieted.
        assert_eq!(divide(&mut cpu, f32::from_bits(0x7fc0_0001), f32::from_bits(0x7f80_0002)), 0x7fc0_0002);
        assert_eq!(cpu.fsr, 1 << 11);
    }

    #[test]
    fn square_roots() {
        let mut cpu = cpu();
        cpu.fp_sqrt(0, 2.0);
        assert_eq!((cpu.fr[0], cpu.fsr), (0x3fb5_04f3, 1 << 7));
        cpu.fsr = 0;
        cpu.fp_sqrt(0, -0.0);
        assert_eq!((cpu.fr[0], cpu.fsr), (0x8000_0000, 0));
        cpu.fp_sqrt(0, -4.0);
        assert_eq!((cpu.fr[0], cpu.fsr), (0x7fc0_0000, 1 << 11));
        cpu.fsr = 0;
        cpu.fcr = 2;
        cpu.fp_sqrt(0, 2.0);
        assert_eq!(cpu.fr[0], 0x3fb5_04f4, "rounded up");
    }
}
