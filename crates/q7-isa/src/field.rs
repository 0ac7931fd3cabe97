//! Operand fields: where each operand lives in an instruction word and how its
//! bits map to a register number, an immediate value or a target address.
//!
//! Every field is a pair of inverse functions, [`Field::decode`] and
//! [`Field::encode`]. Immediates are decoded to the value the instruction uses
//! (sign-extended, scaled, table-mapped), and PC-relative operands to absolute
//! target addresses, so nothing downstream needs the raw bits again.

use crate::format::{self, sign_extend, with_bits};
use crate::insn::Operand;
use crate::options::FeatureSet;
use crate::regs::{self, Access};

/// Immediates of `beqi`/`bnei`/`blti`/`bgei`, indexed by the `r` field.
pub const B4CONST: [i32; 16] = [-1, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256];
/// Immediates of `bltui`/`bgeui`, indexed by the `r` field.
pub const B4CONSTU: [i32; 16] = [32768, 65536, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256];

/// How one operand is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    /// Address register in `r`, `s` or `t`.
    ArR,
    ArS,
    ArT,
    /// Floating-point register in `r`, `s` or `t`.
    FrR,
    FrS,
    FrT,
    /// Boolean register in `r`, `s` or `t`.
    BrR,
    BrS,
    BrT,
    /// Special register number in bits 8..16, accessed as given.
    Sr(Access),
    /// User register number `s:t` (bits 4..12) of `rur`.
    UrRead,
    /// User register number `r:s` (bits 8..16) of `wur`.
    UrWrite,
    /// MAC16 register m0..m3 in bits 12..14 (loaded by `ldinc`/`lddec` forms).
    MacW,
    /// MAC16 register m0 or m1 selected by bit 14.
    MacX,
    /// MAC16 register m2 or m3 selected by bit 6.
    MacY,
    /// Unsigned 4-bit value of the `s`, `t` or `r` field.
    Uimm4S,
    Uimm4T,
    /// `addi`: signed 8-bit immediate.
    Simm8,
    /// `addmi`: signed 8-bit immediate shifted left by 8.
    Simm8Shl8,
    /// `movi`: signed 12-bit immediate, imm8 low byte and `s` high nibble.
    Simm12,
    /// Unsigned 8-bit offset scaled by 1, 2 or 4 (loads and stores).
    Uimm8x1,
    Uimm8x2,
    Uimm8x4,
    /// `ldi`/`sdi`: unsigned 8-bit offset scaled by 8.
    Uimm8x8,
    /// `l32i.n`/`s32i.n`: `r` scaled by 4.
    Uimm4x4,
    /// The cache-lock group (`dpfl`, `ihu`...): bits 20..24 scaled by 16.
    Uimm4x16,
    /// `entry`: 12-bit frame size scaled by 8.
    EntryFrame,
    /// `extui`: shift amount, `s` plus bit 16.
    ExtuiShift,
    /// `extui`: field width 1..=16 from op2. Shift + width may exceed 32; such
    /// encodings exist and disassemble, though GNU as refuses to write them.
    ExtuiWidth,
    /// `slli`: shift amount 1..=32, encoded as 32 − amount in `t` plus bit 20.
    /// Field value 0 means 32 (LLVM and GNU print it so; GNU as refuses it).
    SlliAmount,
    /// `srai`: shift amount, `s` plus bit 20.
    SraiAmount,
    /// `ssai`: shift amount, `s` plus bit 4.
    SsaiAmount,
    /// `sext`/`clamps`: bit position 7..=22 as `t` + 7.
    SextBits,
    /// `beqi`-family constant looked up in [`B4CONST`] by `r`.
    B4Const,
    /// `bltui`/`bgeui` constant looked up in [`B4CONSTU`] by `r`.
    B4ConstU,
    /// `bbci`/`bbsi`: bit number, `t` plus bit 12.
    BitIndex,
    /// `rotw`: signed 4-bit rotation in `t`.
    RotwAmount,
    /// `addi.n`: `t`, with 0 meaning −1.
    AddiNImm,
    /// `movi.n`: 7-bit immediate covering −32..=95.
    MoviNImm,
    /// `l32e`/`s32e`: offset −64..=−4 from `r`.
    L32eOffset,
    /// Branch target: pc + 4 + signed imm8.
    Branch8,
    /// Branch target: pc + 4 + signed imm12.
    Branch12,
    /// Loop end: pc + 4 + unsigned imm8.
    LoopEnd,
    /// `beqz.n`/`bnez.n` target: pc + 4 + unsigned imm6.
    BranchN6,
    /// `j` target: pc + 4 + signed 18-bit offset.
    Jump18,
    /// `callN` target: (pc & !3) + 4 + signed 18-bit offset × 4.
    Call18,
    /// `l32r` literal: ((pc + 3) & !3) + (imm16 extended with ones) × 4.
    L32rTarget,
}

/// Why an operand value cannot be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FieldError {
    /// The operand is of another kind (a register where an immediate belongs...).
    Kind,
    /// The value is outside the field's range or not a multiple of its scale.
    Range,
}

fn reg(word: u32, lsb: u32) -> u8 {
    format::bits(word, lsb, 4) as u8
}

impl Field {
    /// Extracts the operand from `word` at address `pc`. `None` when the bits name
    /// a register that does not exist with `features`.
    pub(crate) fn decode(self, word: u32, pc: u32, features: FeatureSet) -> Option<Operand> {
        use format::{imm12, imm16, imm6, imm7, imm8, offset18, r, s, t};
        let w = word;
        Some(match self {
            Field::ArR => Operand::Ar(reg(w, 12)),
            Field::ArS => Operand::Ar(reg(w, 8)),
            Field::ArT => Operand::Ar(reg(w, 4)),
            Field::FrR => Operand::Fr(reg(w, 12)),
            Field::FrS => Operand::Fr(reg(w, 8)),
            Field::FrT => Operand::Fr(reg(w, 4)),
            Field::BrR => Operand::Br(reg(w, 12)),
            Field::BrS => Operand::Br(reg(w, 8)),
            Field::BrT => Operand::Br(reg(w, 4)),
            Field::Sr(access) => {
                let number = format::sr(w) as u8;
                if !regs::special_register_valid(number, access, features) {
                    return None;
                }
                Operand::Sr(number)
            }
            Field::UrRead | Field::UrWrite => {
                let number = if self == Field::UrRead { format::bits(w, 4, 8) } else { format::sr(w) } as u8;
                if !regs::user_register_valid(number, features) {
                    return None;
                }
                Operand::Ur(number)
            }
            Field::MacW => Operand::Mr(format::bits(w, 12, 2) as u8),
            Field::MacX => Operand::Mr(format::bits(w, 14, 1) as u8),
            Field::MacY => Operand::Mr(2 + format::bits(w, 6, 1) as u8),
            Field::Uimm4S => Operand::Imm(s(w) as i32),
            Field::Uimm4T => Operand::Imm(t(w) as i32),
            Field::Simm8 => Operand::Imm(sign_extend(imm8(w), 8)),
            Field::Simm8Shl8 => Operand::Imm(sign_extend(imm8(w), 8) << 8),
            Field::Simm12 => Operand::Imm(sign_extend(s(w) << 8 | imm8(w), 12)),
            Field::Uimm8x1 => Operand::Imm(imm8(w) as i32),
            Field::Uimm8x2 => Operand::Imm((imm8(w) << 1) as i32),
            Field::Uimm8x4 => Operand::Imm((imm8(w) << 2) as i32),
            Field::Uimm8x8 => Operand::Imm((imm8(w) << 3) as i32),
            Field::Uimm4x4 => Operand::Imm((r(w) << 2) as i32),
            Field::Uimm4x16 => Operand::Imm((format::bits(w, 20, 4) << 4) as i32),
            Field::EntryFrame => Operand::Imm((imm12(w) << 3) as i32),
            Field::ExtuiShift => Operand::Imm((format::bits(w, 16, 1) << 4 | s(w)) as i32),
            Field::ExtuiWidth => Operand::Imm(format::op2(w) as i32 + 1),
            Field::SlliAmount => Operand::Imm(32 - (format::bits(w, 20, 1) << 4 | t(w)) as i32),
            Field::SraiAmount => Operand::Imm((format::bits(w, 20, 1) << 4 | s(w)) as i32),
            Field::SsaiAmount => Operand::Imm((format::bits(w, 4, 1) << 4 | s(w)) as i32),
            Field::SextBits => Operand::Imm(t(w) as i32 + 7),
            Field::B4Const => Operand::Imm(B4CONST[r(w) as usize & 15]),
            Field::B4ConstU => Operand::Imm(B4CONSTU[r(w) as usize & 15]),
            Field::BitIndex => Operand::Imm((format::bits(w, 12, 1) << 4 | t(w)) as i32),
            Field::RotwAmount => Operand::Imm(sign_extend(t(w), 4)),
            Field::AddiNImm => Operand::Imm(if t(w) == 0 { -1 } else { t(w) as i32 }),
            Field::MoviNImm => {
                let v = imm7(w);
                // imm7 values 0x60..=0x7f stand for -32..=-1.
                Operand::Imm(if v & 0x60 == 0x60 { v as i32 - 128 } else { v as i32 })
            }
            Field::L32eOffset => Operand::Imm((r(w) << 2) as i32 - 64),
            Field::Branch8 => Operand::Target(pc.wrapping_add(4).wrapping_add_signed(sign_extend(imm8(w), 8))),
            Field::Branch12 => Operand::Target(pc.wrapping_add(4).wrapping_add_signed(sign_extend(imm12(w), 12))),
            Field::LoopEnd => Operand::Target(pc.wrapping_add(4).wrapping_add(imm8(w))),
            Field::BranchN6 => Operand::Target(pc.wrapping_add(4).wrapping_add(imm6(w))),
            Field::Jump18 => Operand::Target(pc.wrapping_add(4).wrapping_add_signed(sign_extend(offset18(w), 18))),
            Field::Call18 => {
                Operand::Target(call_base(pc).wrapping_add_signed(sign_extend(offset18(w), 18).wrapping_mul(4)))
            }
            Field::L32rTarget => Operand::Target(l32r_base(pc).wrapping_add((0xffff_0000 | imm16(w)) << 2)),
        })
    }

    /// The bits that place `operand` in this field of an instruction at `pc`.
    /// Registers must exist on some configuration; options are not checked.
    pub(crate) fn encode(self, operand: Operand, pc: u32) -> Result<u32, FieldError> {
        match self {
            Field::ArR | Field::ArS | Field::ArT => match operand {
                Operand::Ar(n) => place_reg(self.reg_lsb(), n),
                _ => Err(FieldError::Kind),
            },
            Field::FrR | Field::FrS | Field::FrT => match operand {
                Operand::Fr(n) => place_reg(self.reg_lsb(), n),
                _ => Err(FieldError::Kind),
            },
            Field::BrR | Field::BrS | Field::BrT => match operand {
                Operand::Br(n) => place_reg(self.reg_lsb(), n),
                _ => Err(FieldError::Kind),
            },
            Field::Sr(access) => match operand {
                Operand::Sr(n) if regs::special_register_known(n, access) => Ok(u32::from(n) << 8),
                Operand::Sr(_) => Err(FieldError::Range),
                _ => Err(FieldError::Kind),
            },
            Field::UrRead | Field::UrWrite => match operand {
                Operand::Ur(n) if regs::user_register_known(n) => {
                    Ok(u32::from(n) << if self == Field::UrRead { 4 } else { 8 })
                }
                Operand::Ur(_) => Err(FieldError::Range),
                _ => Err(FieldError::Kind),
            },
            Field::MacW => match operand {
                Operand::Mr(n) if n < 4 => Ok(u32::from(n) << 12),
                Operand::Mr(_) => Err(FieldError::Range),
                _ => Err(FieldError::Kind),
            },
            Field::MacX => match operand {
                Operand::Mr(n) if n < 2 => Ok(u32::from(n) << 14),
                Operand::Mr(_) => Err(FieldError::Range),
                _ => Err(FieldError::Kind),
            },
            Field::MacY => match operand {
                Operand::Mr(n @ 2..=3) => Ok(u32::from(n - 2) << 6),
                Operand::Mr(_) => Err(FieldError::Range),
                _ => Err(FieldError::Kind),
            },
            Field::Branch8 => place_target(operand, |t| {
                let off = t.wrapping_sub(pc.wrapping_add(4)) as i32;
                fits_signed(off, 8).then_some((off as u32 & 0xff) << 16)
            }),
            Field::Branch12 => place_target(operand, |t| {
                let off = t.wrapping_sub(pc.wrapping_add(4)) as i32;
                fits_signed(off, 12).then_some((off as u32 & 0xfff) << 12)
            }),
            Field::LoopEnd => place_target(operand, |t| {
                let off = t.wrapping_sub(pc.wrapping_add(4));
                (off <= 0xff).then_some(off << 16)
            }),
            Field::BranchN6 => place_target(operand, |t| {
                let off = t.wrapping_sub(pc.wrapping_add(4));
                (off <= 0x3f).then_some((off >> 4 & 3) << 4 | (off & 0xf) << 12)
            }),
            Field::Jump18 => place_target(operand, |t| {
                let off = t.wrapping_sub(pc.wrapping_add(4)) as i32;
                fits_signed(off, 18).then_some((off as u32 & 0x3ffff) << 6)
            }),
            Field::Call18 => place_target(operand, |t| {
                let off = t.wrapping_sub(call_base(pc)) as i32;
                (off % 4 == 0 && fits_signed(off / 4, 18)).then_some(((off / 4) as u32 & 0x3ffff) << 6)
            }),
            Field::L32rTarget => place_target(operand, |t| {
                let off = t.wrapping_sub(l32r_base(pc)) as i32;
                // Only negative word offsets -0x40000..=-4 exist.
                (off % 4 == 0 && (-0x40000..0).contains(&off)).then_some(((off / 4) as u32 & 0xffff) << 8)
            }),
            _ => match operand {
                Operand::Imm(value) => self.encode_immediate(value).ok_or(FieldError::Range),
                _ => Err(FieldError::Kind),
            },
        }
    }

    fn reg_lsb(self) -> u32 {
        match self {
            Field::ArR | Field::FrR | Field::BrR => 12,
            Field::ArS | Field::FrS | Field::BrS => 8,
            _ => 4,
        }
    }

    /// Bits for an immediate operand, `None` when `v` is not representable.
    /// Arithmetic wraps because the bits are computed before the range check
    /// discards out-of-range values.
    fn encode_immediate(self, v: i32) -> Option<u32> {
        let in_range = |lo: i32, hi: i32| (lo..=hi).contains(&v);
        let scaled = |scale: i32, max: i32| (v % scale == 0 && in_range(0, max * scale)).then_some((v / scale) as u32);
        let u = v as u32;
        match self {
            Field::Uimm4S => in_range(0, 15).then_some(u << 8),
            Field::Uimm4T => in_range(0, 15).then_some(u << 4),
            Field::Simm8 => in_range(-128, 127).then_some((u & 0xff) << 16),
            Field::Simm8Shl8 => (v % 256 == 0 && in_range(-32768, 32512)).then_some(((v >> 8) as u32 & 0xff) << 16),
            Field::Simm12 => in_range(-2048, 2047).then_some((u & 0xff) << 16 | (u >> 8 & 0xf) << 8),
            Field::Uimm8x1 => scaled(1, 255).map(|x| x << 16),
            Field::Uimm8x2 => scaled(2, 255).map(|x| x << 16),
            Field::Uimm8x4 => scaled(4, 255).map(|x| x << 16),
            Field::Uimm8x8 => scaled(8, 255).map(|x| x << 16),
            Field::Uimm4x4 => scaled(4, 15).map(|x| x << 12),
            Field::Uimm4x16 => scaled(16, 15).map(|x| x << 20),
            Field::EntryFrame => scaled(8, 4095).map(|x| x << 12),
            Field::ExtuiShift => in_range(0, 31).then_some((u & 0xf) << 8 | (u >> 4 & 1) << 16),
            Field::ExtuiWidth => in_range(1, 16).then_some((u.wrapping_sub(1) & 0xf) << 20),
            Field::SlliAmount => {
                let field = 32u32.wrapping_sub(u);
                in_range(1, 32).then_some((field & 0xf) << 4 | (field >> 4 & 1) << 20)
            }
            Field::SraiAmount => in_range(0, 31).then_some((u & 0xf) << 8 | (u >> 4 & 1) << 20),
            Field::SsaiAmount => in_range(0, 31).then_some((u & 0xf) << 8 | (u >> 4 & 1) << 4),
            Field::SextBits => in_range(7, 22).then_some((u.wrapping_sub(7) & 0xf) << 4),
            Field::B4Const => B4CONST.iter().position(|&c| c == v).map(|i| (i as u32) << 12),
            Field::B4ConstU => B4CONSTU.iter().position(|&c| c == v).map(|i| (i as u32) << 12),
            Field::BitIndex => in_range(0, 31).then_some((u & 0xf) << 4 | (u >> 4 & 1) << 12),
            Field::RotwAmount => in_range(-8, 7).then_some((u & 0xf) << 4),
            Field::AddiNImm => match v {
                -1 => Some(0),
                1..=15 => Some(u << 4),
                _ => None,
            },
            Field::MoviNImm => in_range(-32, 95).then_some(with_bits(0, 4, 3, (u & 0x7f) >> 4) | (u & 0xf) << 12),
            Field::L32eOffset => (v % 4 == 0 && in_range(-64, -4)).then_some(((u.wrapping_add(64) / 4) & 0xf) << 12),
            _ => None,
        }
    }
}

/// Base address of `call0..call12` offsets: the word after the call's word.
const fn call_base(pc: u32) -> u32 {
    (pc & !3).wrapping_add(4)
}

/// Base address of `l32r` offsets: pc rounded up to a word boundary.
const fn l32r_base(pc: u32) -> u32 {
    pc.wrapping_add(3) & !3
}

fn fits_signed(value: i32, width: u32) -> bool {
    let half = 1i32 << (width - 1);
    (-half..half).contains(&value)
}

fn place_reg(lsb: u32, n: u8) -> Result<u32, FieldError> {
    if n < 16 {
        Ok(u32::from(n) << lsb)
    } else {
        Err(FieldError::Range)
    }
}

fn place_target(operand: Operand, place: impl FnOnce(u32) -> Option<u32>) -> Result<u32, FieldError> {
    match operand {
        Operand::Target(target) => place(target).ok_or(FieldError::Range),
        _ => Err(FieldError::Kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(field: Field, word: u32, pc: u32) -> u32 {
        let op = field.decode(word, pc, FeatureSet::all()).expect("decodes");
        field.encode(op, pc).expect("encodes")
    }

    #[test]
    fn l32r_target_is_negative_word_offset() {
        // imm16 = 0xffff: one word before the aligned pc.
        let op = Field::L32rTarget.decode(0xff_ff00, 0x1001, FeatureSet::EMPTY);
        assert_eq!(op, Some(Operand::Target(0x1000)));
        assert_eq!(Field::L32rTarget.encode(Operand::Target(0x1000), 0x1001), Ok(0xff_ff00));
        assert_eq!(Field::L32rTarget.encode(Operand::Target(0x1004), 0x1001), Err(FieldError::Range));
    }

    #[test]
    fn call_target_is_word_aligned() {
        // call0 with offset 0 at pc 6 lands on 8.
        assert_eq!(Field::Call18.decode(0x05, 6, FeatureSet::EMPTY), Some(Operand::Target(8)));
        assert_eq!(Field::Call18.encode(Operand::Target(9), 6), Err(FieldError::Range));
    }

    #[test]
    fn immediates_roundtrip() {
        for word in [0x00_0000u32, 0xff_ffff, 0x12_3456, 0x80_8080, 0x7f_7f7f] {
            for field in [
                Field::Simm8,
                Field::Simm8Shl8,
                Field::Uimm8x4,
                Field::Uimm8x8,
                Field::Uimm4x16,
                Field::EntryFrame,
                Field::SlliAmount,
                Field::SraiAmount,
                Field::B4ConstU,
                Field::Branch12,
                Field::Jump18,
                Field::Call18,
            ] {
                let placed = roundtrip(field, word, 0x4000_0002);
                let op = field.decode(word, 0x4000_0002, FeatureSet::all());
                assert_eq!(field.decode(placed, 0x4000_0002, FeatureSet::all()), op, "{field:?} {word:#x}");
            }
        }
    }

    #[test]
    fn movi_n_range() {
        // movi.n a2, -32 is the bytes 6c 02.
        assert_eq!(Field::MoviNImm.decode(0x026c, 0, FeatureSet::EMPTY), Some(Operand::Imm(-32)));
        assert_eq!(Field::MoviNImm.encode(Operand::Imm(-32), 0), Ok(0x60));
        assert_eq!(Field::MoviNImm.encode(Operand::Imm(96), 0), Err(FieldError::Range));
    }
}
