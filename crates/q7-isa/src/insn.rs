//! Decoded instructions: an [`Opcode`] plus its operands, ready to execute.

use crate::opcode::Opcode;

/// One operand, already extracted and converted.
///
/// Operands appear in assembler order (`s32i at, as, offset` is
/// `[Ar(t), Ar(s), Imm(offset)]`), so a simulator can match on
/// `(insn.op, insn.operands())` with slice patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Address register a0..a15 (window-relative on windowed cores).
    Ar(u8),
    /// Floating-point register f0..f15.
    Fr(u8),
    /// Boolean register b0..b15.
    Br(u8),
    /// MAC16 data register m0..m3.
    Mr(u8),
    /// Special register number (see [`crate::regs`]).
    Sr(u8),
    /// User register number (see [`crate::regs`]).
    Ur(u8),
    /// Immediate, with scaling, sign extension and table lookups applied:
    /// the value the instruction uses (byte offsets, shift amounts, constants).
    Imm(i32),
    /// Absolute address of a PC-relative operand: a branch, jump, call or loop
    /// end target, or the literal an `l32r` loads.
    Target(u32),
}

/// Most operands an Xtensa instruction has (`mula.dd.ll.ldinc m0, a2, m1, m3`).
pub const MAX_OPERANDS: usize = 4;

/// A short, fixed-capacity list of operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operands {
    items: [Operand; MAX_OPERANDS],
    len: u8,
}

impl Operands {
    /// An empty list.
    pub const fn new() -> Operands {
        // Unused slots keep a fixed filler so derived equality compares only
        // what `push` stored.
        Operands { items: [Operand::Imm(0); MAX_OPERANDS], len: 0 }
    }

    /// Builds a list from a slice; `None` when it has more than [`MAX_OPERANDS`].
    pub fn from_slice(operands: &[Operand]) -> Option<Operands> {
        let mut list = Operands::new();
        for &op in operands {
            list.push(op)?;
        }
        Some(list)
    }

    /// Appends an operand; `None` when the list is full.
    pub fn push(&mut self, operand: Operand) -> Option<()> {
        let slot = self.items.get_mut(usize::from(self.len))?;
        *slot = operand;
        self.len += 1;
        Some(())
    }

    pub fn as_slice(&self) -> &[Operand] {
        &self.items[..usize::from(self.len)]
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Default for Operands {
    fn default() -> Self {
        Operands::new()
    }
}

impl std::ops::Deref for Operands {
    type Target = [Operand];
    fn deref(&self) -> &[Operand] {
        self.as_slice()
    }
}

/// A decoded instruction at a known address.
///
/// PC-relative operands are stored as absolute [`Operand::Target`]s computed from
/// `pc`, so the instruction is self-contained: it can be displayed, executed or
/// re-encoded (at the same `pc`) without the original bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Insn {
    pub op: Opcode,
    /// Length in bytes: 2 (density) or 3.
    pub len: u8,
    /// Address of the first byte.
    pub pc: u32,
    pub operands: Operands,
}

impl Insn {
    pub fn operands(&self) -> &[Operand] {
        self.operands.as_slice()
    }

    pub fn mnemonic(&self) -> &'static str {
        self.op.mnemonic()
    }

    /// The address of the next instruction in sequence.
    pub fn next_pc(&self) -> u32 {
        self.pc.wrapping_add(u32::from(self.len))
    }

    /// The absolute address named by a PC-relative operand: a branch, jump or
    /// call target, a loop end, or the literal address of `l32r`.
    pub fn target(&self) -> Option<u32> {
        self.operands().iter().find_map(|op| match op {
            Operand::Target(addr) => Some(*addr),
            _ => None,
        })
    }

    /// Address register operand `index`, if that operand is one.
    pub fn ar(&self, index: usize) -> Option<u8> {
        match self.operands().get(index) {
            Some(Operand::Ar(n)) => Some(*n),
            _ => None,
        }
    }

    /// Immediate operand `index`, if that operand is one.
    pub fn imm(&self, index: usize) -> Option<i32> {
        match self.operands().get(index) {
            Some(Operand::Imm(v)) => Some(*v),
            _ => None,
        }
    }
}
