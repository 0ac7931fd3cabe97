//! The instruction facts the target-collection sweeps need (length, and the
//! target with its kind), decoded at most once per byte offset however many
//! sweeps pass over it: the sweeps of one span mostly revisit the same
//! instructions. The decoded instructions are kept too, so the listing
//! reuses them instead of decoding every instruction a second time.

use q7_isa::{decode, sweep, Insn, IsaOptions, Opcode};

/// What names a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A branch, jump or loop.
    Jump,
    Call,
    /// An `l32r`: the target is a literal word.
    Literal,
}

const COMPUTED: u64 = 1 << 63;
const DECODED: u64 = 1 << 62;
const HAS_TARGET: u64 = 1 << 61;
const LEN_SHIFT: u32 = 56;
const KIND_SHIFT: u32 = 52;
/// Bits 32..52 hold the index of the instruction in `Steps::insns`.
const INDEX_SHIFT: u32 = 32;
const INDEX_MASK: u64 = (1 << 20) - 1;
/// The index meaning "not kept" (more instructions than the index holds).
const NOT_KEPT: u64 = INDEX_MASK;

/// Largest region memoised (8 bytes per byte of code); a larger one (a huge
/// raw dump) is decoded afresh on every sweep instead.
const MAX_MEMO_BYTES: usize = 16 << 20;

/// Per-offset memo of one region's decodes, packed in a `u64` each.
pub struct Steps<'a> {
    bytes: &'a [u8],
    base: u32,
    isa: IsaOptions,
    memo: Vec<u64>,
    /// Every instruction decoded into the memo, in decoding order.
    insns: Vec<Insn>,
}

impl<'a> Steps<'a> {
    pub fn new(bytes: &'a [u8], base: u32, isa: &IsaOptions) -> Steps<'a> {
        let memo = if bytes.len() <= MAX_MEMO_BYTES { vec![0; bytes.len()] } else { Vec::new() };
        // Room for as many instructions as the bytes can hold (two bytes
        // each, at most the index's limit) so growing never copies them; the
        // pages are touched only as instructions are kept.
        let room = if memo.is_empty() { 0 } else { (bytes.len() / 2 + 1).min(NOT_KEPT as usize) };
        Steps { bytes, base, isa: *isa, memo, insns: Vec::with_capacity(room) }
    }

    pub fn isa(&self) -> &IsaOptions {
        &self.isa
    }

    /// The memo entry at `offset`, decoded (and kept) the first time.
    fn packed(&mut self, offset: usize) -> u64 {
        match self.memo.get(offset) {
            Some(&packed) if packed & COMPUTED != 0 => packed,
            Some(_) => {
                let packed = self.decode(offset);
                self.memo[offset] = packed;
                packed
            }
            None => self.decode(offset),
        }
    }

    /// The instruction the sweep of a piece ending at `end` lists at
    /// `offset`, when it decodes whole inside the piece and is kept; `None`
    /// sends the caller to [`q7_isa::sweep`] for that step.
    pub fn insn(&mut self, offset: usize, end: usize) -> Option<Insn> {
        let packed = self.packed(offset);
        let len = (packed >> LEN_SHIFT & 0xf) as usize;
        let index = packed >> INDEX_SHIFT & INDEX_MASK;
        if packed & DECODED == 0 || offset + len > end || index == NOT_KEPT {
            return None;
        }
        self.insns.get(index as usize).copied()
    }

    /// The sweep step at `offset` of a piece ending at `end`: the bytes it
    /// covers (as [`q7_isa::sweep`] would step) and the target it names.
    pub fn at(&mut self, offset: usize, end: usize) -> (usize, Option<(u32, Kind)>) {
        let packed = self.packed(offset);
        let len = (packed >> LEN_SHIFT & 0xf) as usize;
        if packed & DECODED != 0 && offset + len <= end {
            let kind = match packed >> KIND_SHIFT & 3 {
                0 => Kind::Jump,
                1 => Kind::Call,
                _ => Kind::Literal,
            };
            return (len, (packed & HAS_TARGET != 0).then_some((packed as u32, kind)));
        }
        // Undecodable, or cut by the piece end: the sweep's own rule (rare).
        let pc = self.base.wrapping_add(offset as u32);
        (sweep(&self.bytes[offset..end], pc, &self.isa).next().map_or(1, |item| item.len()), None)
    }

    fn decode(&mut self, offset: usize) -> u64 {
        let pc = self.base.wrapping_add(offset as u32);
        let Ok(insn) = decode(&self.bytes[offset..], pc, &self.isa) else { return COMPUTED };
        let kind = match insn.op {
            Opcode::L32r => 2,
            Opcode::Call0 | Opcode::Call4 | Opcode::Call8 | Opcode::Call12 => 1,
            _ => 0,
        };
        let target = insn.target().map_or(0, |t| HAS_TARGET | u64::from(t));
        // Kept only when memoised: without a memo nothing could find it again.
        let index = if self.memo.is_empty() || self.insns.len() as u64 >= NOT_KEPT {
            NOT_KEPT
        } else {
            self.insns.push(insn);
            self.insns.len() as u64 - 1
        };
        COMPUTED | DECODED | u64::from(insn.len) << LEN_SHIFT | kind << KIND_SHIFT | index << INDEX_SHIFT | target
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_the_sweep() {
        // Pseudo-random bytes (a linear congruential sequence), swept whole and
        // in two pieces, under each ISA choice and the scalar-LX rule.
        let mut state = 0x1234_5678u32;
        let bytes: Vec<u8> = (0..4096)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16) as u8
            })
            .collect();
        for isa in [IsaOptions::vision_q7(), IsaOptions::lx106(), IsaOptions::vision_q7().with_lx_scalar(true)] {
            let mut steps = Steps::new(&bytes, 0x8400_0000, &isa);
            let mut kept = 0;
            for (start, end) in [(0, bytes.len()), (0, 1001), (1001, bytes.len())] {
                let mut at = start;
                for item in sweep(&bytes[start..end], 0x8400_0000 + start as u32, &isa) {
                    let (len, target) = steps.at(at, end);
                    assert_eq!(len, item.len(), "at {at:#x}");
                    let expected = item.result.ok().and_then(|insn| insn.target());
                    assert_eq!(target.map(|(t, _)| t), expected, "at {at:#x}");
                    // A kept instruction is the one the sweep decodes there.
                    if let Some(insn) = steps.insn(at, end) {
                        assert_eq!(Ok(insn), item.result, "at {at:#x}");
                        kept += 1;
                    }
                    at += len;
                }
                assert_eq!(at, end);
            }
            assert!(kept > 0, "the listing reuses the decodes: {kept} kept");
        }
    }
}
