//! The instruction facts the target-collection sweeps need (length, and the
//! target with its kind), decoded at most once per byte offset however many
//! sweeps pass over it: the sweeps of one span mostly revisit the same
//! instructions. Each offset's facts fit in one `u32` (the target as its
//! distance from the instruction), so the memo costs four bytes per byte of
//! code and no decoded instruction is kept: the listing decodes each listed
//! instruction once more, which is cheaper than keeping them all (page faults).

use q7_isa::{decode, sweep, DecodeError, Insn, IsaOptions, Opcode};

/// What names a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A branch, jump or loop.
    Jump,
    Call,
    /// An `l32r`: the target is a literal word.
    Literal,
}

const COMPUTED: u32 = 1 << 31;
/// Decoded whole (otherwise undecodable: the sweep's own rule applies).
const DECODED: u32 = 1 << 30;
/// Undecodable, and bits 0..24 hold how far the sweep steps past it
/// whenever the piece holds that many bytes (see [`undecodable_skip`]).
/// The same bit as [`HAS_TARGET`], which only decoded entries use.
const SKIP_KNOWN: u32 = 1 << 29;
/// Decoded, and the instruction names a target (kind and distance below).
const HAS_TARGET: u32 = 1 << 29;
const KIND_SHIFT: u32 = 27;
/// The kind value meaning "the target is too far to pack: decode afresh".
const FAR: u32 = 3;
const LEN_SHIFT: u32 = 24;
/// Bits 0..24 hold the target minus the pc, sign-extended from 24 bits
/// (Xtensa's farthest PC-relative reach, a call's ±512 KiB, fits).
const DELTA_BITS: u32 = 24;
const DELTA_MASK: u32 = (1 << DELTA_BITS) - 1;

/// Largest region memoised (4 bytes per byte of code); a larger one (a huge
/// raw dump) is decoded afresh on every sweep instead.
const MAX_MEMO_BYTES: usize = 16 << 20;

/// Per-offset memo of one region's decodes, packed in a `u32` each.
pub struct Steps<'a> {
    bytes: &'a [u8],
    base: u32,
    isa: IsaOptions,
    memo: Vec<u32>,
}

impl<'a> Steps<'a> {
    pub fn new(bytes: &'a [u8], base: u32, isa: &IsaOptions) -> Steps<'a> {
        // Zeroed by writing, not `vec![0; n]`: a calloc'd page is first read
        // (mapping the shared zero page) and then written (a second fault).
        let mut memo = Vec::new();
        if bytes.len() <= MAX_MEMO_BYTES {
            memo.resize(bytes.len(), 0);
        }
        Steps { bytes, base, isa: *isa, memo }
    }

    pub fn isa(&self) -> &IsaOptions {
        &self.isa
    }

    /// The memo entry at `offset`, decoded the first time.
    #[inline]
    fn packed(&mut self, offset: usize) -> u32 {
        match self.memo.get(offset) {
            Some(&packed) if packed & COMPUTED != 0 => packed,
            _ => self.first_visit(offset),
        }
    }

    /// Decodes `offset` and memoises it (when the region is memoised).
    #[cold]
    fn first_visit(&mut self, offset: usize) -> u32 {
        let packed = self.pack(offset);
        if let Some(slot) = self.memo.get_mut(offset) {
            *slot = packed;
        }
        packed
    }

    /// The instruction the sweep of a piece ending at `end` lists at
    /// `offset`, when it decodes whole inside the piece; `None` sends the
    /// caller to [`q7_isa::sweep()`] for that step.
    pub fn insn(&mut self, offset: usize, end: usize) -> Option<Insn> {
        let packed = self.packed(offset);
        let len = (packed >> LEN_SHIFT & 7) as usize;
        if packed & DECODED == 0 || offset + len > end {
            return None;
        }
        decode(&self.bytes[offset..offset + len], self.pc(offset), &self.isa).ok()
    }

    /// The sweep step at `offset` of a piece ending at `end`: the bytes it
    /// covers (as [`q7_isa::sweep()`] would step) and the target it names.
    #[inline]
    pub fn at(&mut self, offset: usize, end: usize) -> (usize, Option<(u32, Kind)>) {
        let packed = self.packed(offset);
        let len = (packed >> LEN_SHIFT & 7) as usize;
        if packed & DECODED != 0 && offset + len <= end {
            let kind = match packed >> KIND_SHIFT & 3 {
                0 => Kind::Jump,
                1 => Kind::Call,
                2 => Kind::Literal,
                _ => return self.decoded_afresh(offset),
            };
            if packed & HAS_TARGET == 0 {
                return (len, None);
            }
            // Sign-extend the 24-bit distance.
            let delta = ((packed << (32 - DELTA_BITS)) as i32) >> (32 - DELTA_BITS);
            return (len, Some((self.pc(offset).wrapping_add_signed(delta), kind)));
        }
        if packed & (DECODED | SKIP_KNOWN) == SKIP_KNOWN {
            let skip = (packed & DELTA_MASK) as usize;
            if offset + skip <= end {
                return (skip, None);
            }
        }
        self.swept(offset, end)
    }

    /// Undecodable, or cut by the piece end: the sweep's own rule (rare).
    #[cold]
    fn swept(&self, offset: usize, end: usize) -> (usize, Option<(u32, Kind)>) {
        let pc = self.pc(offset);
        (sweep(&self.bytes[offset..end], pc, &self.isa).next().map_or(1, |item| item.len()), None)
    }

    fn pc(&self, offset: usize) -> u32 {
        self.base.wrapping_add(offset as u32)
    }

    /// [`Self::at`] for an instruction whose target did not fit the memo.
    #[cold]
    fn decoded_afresh(&self, offset: usize) -> (usize, Option<(u32, Kind)>) {
        let insn = decode(&self.bytes[offset..], self.pc(offset), &self.isa).expect("memoised as decodable");
        (usize::from(insn.len), insn.target().map(|t| (t, kind_of(insn.op))))
    }

    fn pack(&self, offset: usize) -> u32 {
        let pc = self.pc(offset);
        let insn = match decode(&self.bytes[offset..], pc, &self.isa) {
            Ok(insn) => insn,
            Err(error) => return COMPUTED | undecodable_skip(&error, &self.isa).map_or(0, |skip| SKIP_KNOWN | skip),
        };
        let head = COMPUTED | DECODED | u32::from(insn.len) << LEN_SHIFT;
        let Some(target) = insn.target() else { return head };
        let kind = match kind_of(insn.op) {
            Kind::Jump => 0,
            Kind::Call => 1,
            Kind::Literal => 2,
        };
        let delta = target.wrapping_sub(pc) as i32;
        if (-(1 << (DELTA_BITS - 1))..1 << (DELTA_BITS - 1)).contains(&delta) {
            head | HAS_TARGET | kind << KIND_SHIFT | delta as u32 & DELTA_MASK
        } else {
            head | FAR << KIND_SHIFT
        }
    }
}

/// How far [`q7_isa::sweep()`] steps past bytes that fail to decode with
/// `error` when the piece holds at least that many: the bytes the error
/// covers, or one. `None` where the step depends on where the piece ends
/// (a truncated instruction; the scalar-LX rule's search for `retw.n`).
fn undecodable_skip(error: &DecodeError, isa: &IsaOptions) -> Option<u32> {
    if isa.lx_scalar || matches!(error, DecodeError::Truncated { .. }) {
        return None;
    }
    Some(error.covered_len().filter(|&len| len > 0).map_or(1, u32::from))
}

fn kind_of(op: Opcode) -> Kind {
    match op {
        Opcode::L32r => Kind::Literal,
        Opcode::Call0 | Opcode::Call4 | Opcode::Call8 | Opcode::Call12 => Kind::Call,
        _ => Kind::Jump,
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
            let mut found = 0;
            // Whole, in two, then in short pieces that cut instructions and
            // undecodable runs at every kind of place (the memo is shared).
            let mut pieces = vec![(0, bytes.len()), (0, 1001), (1001, bytes.len())];
            let mut at = 0;
            while at < bytes.len() {
                let end = (at + 1 + (at * 7 + 3) % 9).min(bytes.len());
                pieces.push((at, end));
                at = end;
            }
            for (start, end) in pieces {
                let mut at = start;
                for item in sweep(&bytes[start..end], 0x8400_0000 + start as u32, &isa) {
                    let (len, target) = steps.at(at, end);
                    assert_eq!(len, item.len(), "at {at:#x}");
                    let expected = item.result.ok().and_then(|insn| insn.target());
                    assert_eq!(target.map(|(t, _)| t), expected, "at {at:#x}");
                    // An instruction found is the one the sweep decodes there.
                    if let Some(insn) = steps.insn(at, end) {
                        assert_eq!(Ok(insn), item.result, "at {at:#x}");
                        found += 1;
                    }
                    at += len;
                }
                assert_eq!(at, end);
            }
            assert!(found > 0, "the listing finds decoded instructions: {found}");
        }
    }
}
