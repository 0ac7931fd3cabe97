//! The instruction facts the target-collection sweeps need (length, and the
//! target with its kind), decoded at most once per byte offset however many
//! sweeps pass over it: the sweeps of one span mostly revisit the same
//! instructions.

use q7_isa::{decode, sweep, IsaOptions, Opcode};

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

/// Per-offset memo of one region's decodes, packed in a `u64` each.
pub struct Steps<'a> {
    bytes: &'a [u8],
    base: u32,
    isa: IsaOptions,
    memo: Vec<u64>,
}

impl<'a> Steps<'a> {
    pub fn new(bytes: &'a [u8], base: u32, isa: &IsaOptions) -> Steps<'a> {
        Steps { bytes, base, isa: *isa, memo: vec![0; bytes.len()] }
    }

    /// The sweep step at `offset` of a piece ending at `end`: the bytes it
    /// covers (as [`q7_isa::sweep`] would step) and the target it names.
    pub fn at(&mut self, offset: usize, end: usize) -> (usize, Option<(u32, Kind)>) {
        let mut packed = self.memo[offset];
        if packed & COMPUTED == 0 {
            packed = self.decode(offset);
            self.memo[offset] = packed;
        }
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

    fn decode(&self, offset: usize) -> u64 {
        let pc = self.base.wrapping_add(offset as u32);
        let Ok(insn) = decode(&self.bytes[offset..], pc, &self.isa) else { return COMPUTED };
        let kind = match insn.op {
            Opcode::L32r => 2,
            Opcode::Call0 | Opcode::Call4 | Opcode::Call8 | Opcode::Call12 => 1,
            _ => 0,
        };
        let target = insn.target().map_or(0, |t| HAS_TARGET | u64::from(t));
        COMPUTED | DECODED | u64::from(insn.len) << LEN_SHIFT | kind << KIND_SHIFT | target
    }
}
