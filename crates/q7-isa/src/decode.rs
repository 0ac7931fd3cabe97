//! Decoding bytes into [`Insn`]s.

use crate::insn::{Insn, Operands};
use crate::length::{length_class, LengthClass};
use crate::options::IsaOptions;
use crate::table;

/// Why bytes did not decode to an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum DecodeError {
    /// There were no bytes.
    #[error("no bytes to decode")]
    Empty,
    /// Fewer bytes remain than op0 says the instruction has.
    #[error("{needed}-byte instruction truncated to {available} bytes")]
    Truncated { needed: u8, available: u8 },
    /// The length is known but the encoding is not an instruction on this core
    /// (reserved, or its option is not configured).
    #[error("unknown {len}-byte encoding {word:#08x}")]
    Unknown { word: u32, len: u8 },
    /// A FLIX bundle (op0 = 0xe or 0xf), which this decoder does not model.
    #[error("FLIX bundle (op0 = {op0:#x}) of {} bytes", len.map_or("unknown".to_string(), |l| l.to_string()))]
    Bundle { op0: u8, len: Option<u8> },
    /// A density opcode (op0 8..=0xd) on a core without the density option.
    #[error("op0 = {op0:#x} is reserved without the density option")]
    Reserved { op0: u8 },
}

impl DecodeError {
    /// How many bytes the undecodable item covers, when known.
    pub fn covered_len(&self) -> Option<u8> {
        match *self {
            DecodeError::Unknown { len, .. } => Some(len),
            DecodeError::Bundle { len, .. } => len,
            DecodeError::Truncated { available, .. } => Some(available),
            DecodeError::Empty | DecodeError::Reserved { .. } => None,
        }
    }
}

/// Decodes the instruction at the start of `bytes`, located at address `pc`.
///
/// Never panics: short slices give [`DecodeError::Truncated`] or
/// [`DecodeError::Empty`], and every other byte pattern decodes or yields an
/// error describing it.
pub fn decode(bytes: &[u8], pc: u32, opts: &IsaOptions) -> Result<Insn, DecodeError> {
    let first = *bytes.first().ok_or(DecodeError::Empty)?;
    let op0 = first & 0xf;
    let len = match length_class(first, opts) {
        LengthClass::Standard(len) => len,
        LengthClass::Bundle(len) => return Err(DecodeError::Bundle { op0, len }),
        LengthClass::Reserved => return Err(DecodeError::Reserved { op0 }),
    };
    let raw = bytes.get(..usize::from(len)).ok_or(DecodeError::Truncated {
        needed: len,
        // Below `len` (at most 3), so the conversion is exact.
        available: bytes.len() as u8,
    })?;
    let word = raw.iter().rev().fold(0u32, |acc, &byte| acc << 8 | u32::from(byte));
    decode_word(word, len, pc, opts)
}

/// Decodes a `len`-byte (2 or 3) instruction word already assembled
/// little-endian into the low bits of `word`.
pub fn decode_word(word: u32, len: u8, pc: u32, opts: &IsaOptions) -> Result<Insn, DecodeError> {
    // Bits beyond the instruction's length belong to the next instruction.
    let word = if len >= 4 { word } else { word & ((1u32 << (8 * u32::from(len))) - 1) };
    let unknown = DecodeError::Unknown { word, len };
    for spec in table::rows_for_word(word) {
        if spec.pattern.len != len || !spec.pattern.matches(word) || !spec.available(opts) {
            continue;
        }
        let mut operands = Operands::new();
        for field in spec.fields {
            // A field rejects register numbers that do not exist on this core.
            let operand = field.decode(word, pc, opts.features).ok_or(unknown)?;
            operands.push(operand).ok_or(unknown)?;
        }
        return Ok(Insn { op: spec.op, len, pc, operands });
    }
    Err(unknown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::Operand::*;
    use crate::opcode::Opcode;

    fn q7() -> IsaOptions {
        IsaOptions::vision_q7()
    }

    #[test]
    fn entry_and_retw_n() {
        let insn = decode(&[0x36, 0x41, 0x00], 0x100, &q7()).unwrap();
        assert_eq!((insn.op, insn.operands()), (Opcode::Entry, &[Ar(1), Imm(32)][..]));
        let insn = decode(&[0x1d, 0xf0], 0x100, &q7()).unwrap();
        assert_eq!((insn.op, insn.len), (Opcode::RetwN, 2));
    }

    #[test]
    fn short_input_is_an_error() {
        assert_eq!(decode(&[], 0, &q7()), Err(DecodeError::Empty));
        assert_eq!(decode(&[0x36, 0x41], 0, &q7()), Err(DecodeError::Truncated { needed: 3, available: 2 }));
        assert_eq!(decode(&[0x1d], 0, &q7()), Err(DecodeError::Truncated { needed: 2, available: 1 }));
    }

    #[test]
    fn options_gate_instructions() {
        // quos a2, a3, a4
        let bytes = [0x40, 0x23, 0xd2];
        assert_eq!(decode(&bytes, 0, &q7()).unwrap().op, Opcode::Quos);
        let lx106 = IsaOptions::lx106();
        assert_eq!(decode(&bytes, 0, &lx106), Err(DecodeError::Unknown { word: 0xd2_2340, len: 3 }));
    }

    #[test]
    fn wide_opcodes() {
        assert_eq!(decode(&[0x0f, 0, 0], 0, &q7()), Err(DecodeError::Bundle { op0: 0xf, len: None }));
        let scalar = q7().with_lx_scalar(true);
        assert_eq!(decode(&[0x0e, 1, 2], 0, &scalar), Err(DecodeError::Unknown { word: 0x02_010e, len: 3 }));
    }

    #[test]
    fn l32r_and_call_targets() {
        // l32r a3, at pc 0x1001 with imm16 = 0xfffe: two words back from 0x1004.
        let insn = decode(&[0x31, 0xfe, 0xff], 0x1001, &q7()).unwrap();
        assert_eq!(insn.target(), Some(0xffc));
        // call8 with offset -2 at pc 6: (6 & !3) + 4 - 8 = 0.
        let insn = decode(&[0xa5, 0xff, 0xff], 6, &q7()).unwrap();
        assert_eq!((insn.op, insn.target()), (Opcode::Call8, Some(0)));
    }
}
