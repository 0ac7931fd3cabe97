//! Encoding [`Insn`]s back into bytes: the inverse of [`crate::decode()`].

use crate::field::FieldError;
use crate::insn::Insn;
use crate::opcode::Opcode;
use crate::table;

/// The bytes of one encoded instruction (2 or 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Encoded {
    bytes: [u8; 3],
    len: u8,
}

impl Encoded {
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The instruction word, little-endian in the low bits.
    pub fn word(&self) -> u32 {
        self.as_bytes().iter().rev().fold(0, |acc, &b| acc << 8 | u32::from(b))
    }
}

impl std::ops::Deref for Encoded {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Why an [`Insn`] has no encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum EncodeError {
    #[error("{0:?} has no encoding")]
    NoEncoding(Opcode),
    #[error("{op:?} is {expected} bytes long, not {found}")]
    Length { op: Opcode, expected: u8, found: u8 },
    #[error("{op:?} takes {expected} operands, got {found}")]
    OperandCount { op: Opcode, expected: usize, found: usize },
    #[error("operand {index} of {op:?} has the wrong kind")]
    OperandKind { op: Opcode, index: usize },
    #[error("operand {index} of {op:?} is out of range")]
    OperandRange { op: Opcode, index: usize },
}

/// Encodes `insn` at its own `pc` (PC-relative targets are measured from it).
///
/// Options are not consulted: any instruction the decoder knows can be
/// encoded, and `decode(encode(i), i.pc, opts) == i` whenever `opts` enables it.
pub fn encode(insn: &Insn) -> Result<Encoded, EncodeError> {
    let op = insn.op;
    let spec = table::spec_of(op).ok_or(EncodeError::NoEncoding(op))?;
    if insn.len != spec.pattern.len {
        return Err(EncodeError::Length { op, expected: spec.pattern.len, found: insn.len });
    }
    let operands = insn.operands();
    if operands.len() != spec.fields.len() {
        return Err(EncodeError::OperandCount { op, expected: spec.fields.len(), found: operands.len() });
    }
    let mut word = spec.pattern.value;
    for (index, (field, &operand)) in spec.fields.iter().zip(operands).enumerate() {
        word |= field.encode(operand, insn.pc).map_err(|err| match err {
            FieldError::Kind => EncodeError::OperandKind { op, index },
            FieldError::Range => EncodeError::OperandRange { op, index },
        })?;
    }
    let [b0, b1, b2, _] = word.to_le_bytes();
    Ok(Encoded { bytes: [b0, b1, b2], len: spec.pattern.len })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::Operand::*;

    #[test]
    fn encodes_entry() {
        let insn = Insn::new(Opcode::Entry, 0, &[Ar(1), Imm(32)]).unwrap();
        assert_eq!(encode(&insn).unwrap().as_bytes(), &[0x36, 0x41, 0x00]);
    }

    #[test]
    fn rejects_bad_operands() {
        let insn = Insn::new(Opcode::Entry, 0, &[Ar(1), Imm(33)]).unwrap();
        assert_eq!(encode(&insn), Err(EncodeError::OperandRange { op: Opcode::Entry, index: 1 }));
        let insn = Insn::new(Opcode::Add, 0, &[Ar(1), Ar(2), Imm(3)]).unwrap();
        assert_eq!(encode(&insn), Err(EncodeError::OperandKind { op: Opcode::Add, index: 2 }));
        let insn = Insn::new(Opcode::Add, 0, &[Ar(1), Ar(2)]).unwrap();
        assert!(matches!(encode(&insn), Err(EncodeError::OperandCount { .. })));
        let insn = Insn::new(Opcode::Add, 0, &[Ar(16), Ar(2), Ar(3)]).unwrap();
        assert!(matches!(encode(&insn), Err(EncodeError::OperandRange { index: 0, .. })));
    }

    #[test]
    fn branch_out_of_range() {
        let insn = Insn::new(Opcode::Beqz, 0x1000, &[Ar(2), Target(0x1004 + 2047)]).unwrap();
        assert!(encode(&insn).is_ok());
        let insn = Insn::new(Opcode::Beqz, 0x1000, &[Ar(2), Target(0x1004 + 2048)]).unwrap();
        assert!(encode(&insn).is_err());
    }
}
