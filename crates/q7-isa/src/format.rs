//! Bit layouts of the Xtensa instruction formats.
//!
//! An instruction word is read little-endian: byte 0 holds bits 0..8. Every
//! format shares `op0` in bits 0..4, which alone decides the instruction length.
//! The named fields below overlap; which ones are meaningful depends on the
//! format:
//!
//! | format | fields (bit ranges) |
//! |--------|---------------------|
//! | RRR    | op0 `0..4`, t `4..8`, s `8..12`, r `12..16`, op1 `16..20`, op2 `20..24` |
//! | RRI4   | like RRR, with a 4-bit immediate in op2 |
//! | RRI8   | op0, t, s, r, imm8 `16..24` |
//! | RI16   | op0, t, imm16 `8..24` |
//! | RSR    | op0, t, sr `8..16` (= r:s), op1, op2 |
//! | CALL   | op0, n `4..6`, offset `6..24` |
//! | CALLX  | op0, n `4..6`, m `6..8`, s, r, op1, op2 |
//! | BRI8   | op0, n, m, s, r, imm8 `16..24` |
//! | BRI12  | op0, n, m, s, imm12 `12..24` |
//! | RRRN   | op0, t, s, r (16-bit, density option) |
//! | RI7    | op0, imm7 high `4..7`, i `7`, s, imm7 low = r `12..16` (16-bit) |
//! | RI6    | op0, imm6 high `4..6`, z `6`, i `7`, s, imm6 low = r `12..16` (16-bit) |
//!
//! All helpers are `const fn` on a `u32` word whose unused high bits are zero.

/// Extracts `width` bits starting at bit `lsb`.
pub const fn bits(word: u32, lsb: u32, width: u32) -> u32 {
    (word >> lsb) & ((1 << width) - 1)
}

/// Returns `word` with `width` bits at `lsb` replaced by the low bits of `value`.
pub const fn with_bits(word: u32, lsb: u32, width: u32, value: u32) -> u32 {
    let mask = ((1 << width) - 1) << lsb;
    (word & !mask) | ((value << lsb) & mask)
}

/// Sign-extends the low `width` bits of `value`.
pub const fn sign_extend(value: u32, width: u32) -> i32 {
    let shift = 32 - width;
    ((value << shift) as i32) >> shift
}

/// Major opcode, bits 0..4; it alone determines the instruction length.
pub const fn op0(word: u32) -> u32 {
    bits(word, 0, 4)
}

/// RRR `t` field, bits 4..8 (also the low nibble of RRRN instructions).
pub const fn t(word: u32) -> u32 {
    bits(word, 4, 4)
}

/// RRR `s` field, bits 8..12.
pub const fn s(word: u32) -> u32 {
    bits(word, 8, 4)
}

/// RRR `r` field, bits 12..16.
pub const fn r(word: u32) -> u32 {
    bits(word, 12, 4)
}

/// RRR `op1` field, bits 16..20.
pub const fn op1(word: u32) -> u32 {
    bits(word, 16, 4)
}

/// RRR `op2` field, bits 20..24.
pub const fn op2(word: u32) -> u32 {
    bits(word, 20, 4)
}

/// CALL/CALLX/BRI `n` field, bits 4..6.
pub const fn n(word: u32) -> u32 {
    bits(word, 4, 2)
}

/// CALLX/BRI `m` field, bits 6..8.
pub const fn m(word: u32) -> u32 {
    bits(word, 6, 2)
}

/// RRI8/BRI8 8-bit immediate, bits 16..24.
pub const fn imm8(word: u32) -> u32 {
    bits(word, 16, 8)
}

/// BRI12 12-bit immediate, bits 12..24.
pub const fn imm12(word: u32) -> u32 {
    bits(word, 12, 12)
}

/// RI16 16-bit immediate, bits 8..24.
pub const fn imm16(word: u32) -> u32 {
    bits(word, 8, 16)
}

/// CALL 18-bit offset, bits 6..24.
pub const fn offset18(word: u32) -> u32 {
    bits(word, 6, 18)
}

/// RSR special-register number, bits 8..16 (`r` is the high nibble).
pub const fn sr(word: u32) -> u32 {
    bits(word, 8, 8)
}

/// RI7 immediate of `movi.n`: bits 4..7 are imm7\[6:4\], `r` is imm7\[3:0\].
pub const fn imm7(word: u32) -> u32 {
    (bits(word, 4, 3) << 4) | r(word)
}

/// RI6 immediate of `beqz.n`/`bnez.n`: bits 4..6 are imm6\[5:4\], `r` is imm6\[3:0\].
pub const fn imm6(word: u32) -> u32 {
    (bits(word, 4, 2) << 4) | r(word)
}

/// A set of fixed encoding bits: a word matches when `word & mask == value`.
///
/// Built with the field setters below so table entries read like the
/// opcode maps of the ISA reference (`op0(0).op1(0).op2(8)` is `add`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// Bits that must have the values in `value`.
    pub mask: u32,
    /// Required values of the bits in `mask`.
    pub value: u32,
    /// Instruction length in bytes (2 or 3).
    pub len: u8,
}

impl Pattern {
    /// A 24-bit instruction with the given major opcode.
    pub const fn wide(op0: u32) -> Pattern {
        Pattern { mask: 0xf, value: op0 & 0xf, len: 3 }
    }

    /// A 16-bit (density) instruction with the given major opcode.
    pub const fn narrow(op0: u32) -> Pattern {
        Pattern { mask: 0xf, value: op0 & 0xf, len: 2 }
    }

    /// Fixes `width` bits at `lsb` to `value`.
    pub const fn field(self, lsb: u32, width: u32, value: u32) -> Pattern {
        let mask = ((1 << width) - 1) << lsb;
        Pattern { mask: self.mask | mask, value: with_bits(self.value, lsb, width, value), len: self.len }
    }

    /// Releases bits that an operand uses although they overlap a named field.
    pub const fn release(self, mask: u32) -> Pattern {
        Pattern { mask: self.mask & !mask, value: self.value & !mask, len: self.len }
    }

    pub const fn t(self, v: u32) -> Pattern {
        self.field(4, 4, v)
    }
    pub const fn s(self, v: u32) -> Pattern {
        self.field(8, 4, v)
    }
    pub const fn r(self, v: u32) -> Pattern {
        self.field(12, 4, v)
    }
    pub const fn op1(self, v: u32) -> Pattern {
        self.field(16, 4, v)
    }
    pub const fn op2(self, v: u32) -> Pattern {
        self.field(20, 4, v)
    }
    pub const fn n(self, v: u32) -> Pattern {
        self.field(4, 2, v)
    }
    pub const fn m(self, v: u32) -> Pattern {
        self.field(6, 2, v)
    }

    /// True when `word` has this pattern's fixed bits.
    pub const fn matches(&self, word: u32) -> bool {
        word & self.mask == self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_add() {
        // add a2, a3, a4: r = 2, s = 3, t = 4.
        let w = 0x80_2340;
        assert_eq!((op0(w), t(w), s(w), r(w), op1(w), op2(w)), (0, 4, 3, 2, 0, 8));
    }

    #[test]
    fn sign_extension() {
        assert_eq!(sign_extend(0xff, 8), -1);
        assert_eq!(sign_extend(0x7f, 8), 127);
        assert_eq!(sign_extend(0x20000, 18), -0x20000);
    }

    #[test]
    fn pattern_builders() {
        let p = Pattern::wide(0).op1(0).op2(8);
        assert_eq!((p.mask, p.value), (0xff_000f, 0x80_0000));
        assert!(p.matches(0x80_2340));
        let slli = Pattern::wide(0).op1(1).op2(0).release(1 << 20);
        assert_eq!(slli.mask, 0xef_000f);
    }
}
