//! Linear-sweep disassembly of a byte range.
//!
//! [`sweep`] decodes instruction after instruction from the start of the
//! range. Every byte is covered by exactly one [`SweepItem`]; undecodable
//! bytes become error items that a disassembler prints as `.byte`. After an
//! item the sweep continues at `offset + len`, where `len` is:
//!
//! 1. a decoded instruction: its length;
//! 2. an unknown encoding or a FLIX bundle whose length op0 determines
//!    ([`crate::length`]): that length, so the sweep stays in step with the
//!    hardware's own length decoding;
//! 3. a length op0 cannot tell (a FLIX bundle of unknown size, a density opcode
//!    on a core without density): 1 byte;
//! 4. a truncated instruction at the end: the remaining bytes.
//!
//! With the scalar-LX rule ([`IsaOptions::lx_scalar`]) op0 0xe/0xf words are
//! unknown 3-byte instructions (rule 2), but any other undecodable item means
//! the sweep has left the instruction stream (literal data, a foreign
//! encoding). It then resynchronizes at the next `retw.n` (bytes `1d f0`): the
//! error item covers everything up to that pattern, and decoding resumes on
//! it, so the following function's epilogue and prologue decode in step. With
//! no `1d f0` ahead the item covers the rest of the input.

use crate::decode::{decode, DecodeError};
use crate::insn::Insn;
use crate::options::IsaOptions;

/// Bytes of `retw.n`, the resynchronization point of the scalar-LX rule.
pub const RETW_N: [u8; 2] = [0x1d, 0xf0];

/// One step of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepItem<'a> {
    /// Address of the first byte.
    pub pc: u32,
    /// The instruction, or why these bytes are not one.
    pub result: Result<Insn, DecodeError>,
    /// The bytes the item covers (at least one).
    pub bytes: &'a [u8],
}

impl SweepItem<'_> {
    /// Number of bytes the item covers.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Always false: every item covers at least one byte.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// Iterator returned by [`sweep`].
#[derive(Clone, Debug)]
pub struct Sweep<'a> {
    bytes: &'a [u8],
    base_pc: u32,
    offset: usize,
    opts: IsaOptions,
}

/// Sweeps `bytes` loaded at `base_pc`; see the module documentation for the
/// resynchronization rules.
pub fn sweep<'a>(bytes: &'a [u8], base_pc: u32, opts: &IsaOptions) -> Sweep<'a> {
    Sweep { bytes, base_pc, offset: 0, opts: *opts }
}

impl<'a> Sweep<'a> {
    /// Bytes to skip after an undecodable item at `offset`.
    fn error_len(&self, error: &DecodeError, rest: &[u8]) -> usize {
        let op0_is_wide = rest.first().is_some_and(|b| b & 0xf >= 0xe);
        if self.opts.lx_scalar && !op0_is_wide && !matches!(error, DecodeError::Truncated { .. }) {
            return rest.windows(2).skip(1).position(|pair| pair == RETW_N).map_or(rest.len(), |pos| pos + 1);
        }
        match error.covered_len() {
            Some(len) if len > 0 => usize::from(len).min(rest.len()),
            _ => 1,
        }
    }
}

impl<'a> Iterator for Sweep<'a> {
    type Item = SweepItem<'a>;

    fn next(&mut self) -> Option<SweepItem<'a>> {
        let rest = self.bytes.get(self.offset..).filter(|r| !r.is_empty())?;
        let pc = self.base_pc.wrapping_add(self.offset as u32);
        let result = decode(rest, pc, &self.opts);
        let len = match &result {
            Ok(insn) => usize::from(insn.len),
            Err(error) => self.error_len(error, rest),
        };
        // `len` is between 1 and rest.len() on every path above.
        let len = len.clamp(1, rest.len());
        self.offset += len;
        Some(SweepItem { pc, result, bytes: rest.get(..len).unwrap_or(rest) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::Opcode;

    fn lens(bytes: &[u8], opts: &IsaOptions) -> Vec<(u32, bool, usize)> {
        sweep(bytes, 0x100, opts).map(|item| (item.pc, item.result.is_ok(), item.len())).collect()
    }

    #[test]
    fn decodes_a_function() {
        // entry a1, 32; mov.n a2, a3; retw.n
        let code = [0x36, 0x41, 0x00, 0x2d, 0x03, 0x1d, 0xf0];
        let items: Vec<_> = sweep(&code, 0x100, &IsaOptions::vision_q7()).collect();
        let ops: Vec<_> = items.iter().map(|i| i.result.as_ref().unwrap().op).collect();
        assert_eq!(ops, [Opcode::Entry, Opcode::MovN, Opcode::RetwN]);
        assert_eq!(items[2].pc, 0x105);
    }

    #[test]
    fn unknown_encodings_skip_their_length() {
        // 0x000020 is a reserved SNM0 encoding; a bundle of unknown length skips 1.
        let code = [0x20, 0x00, 0x00, 0x0f, 0x1d, 0xf0];
        assert_eq!(lens(&code, &IsaOptions::vision_q7()), [(0x100, false, 3), (0x103, false, 1), (0x104, true, 2)]);
    }

    #[test]
    fn lx_scalar_resyncs_at_retw_n() {
        let opts = IsaOptions::vision_q7().with_lx_scalar(true);
        // A wide op0 word is a 3-byte unknown; a reserved word skips to retw.n.
        let code = [0x0e, 0x11, 0x22, 0x20, 0x00, 0x00, 0x55, 0x1d, 0xf0, 0x36, 0x41, 0x00];
        assert_eq!(lens(&code, &opts), [(0x100, false, 3), (0x103, false, 4), (0x107, true, 2), (0x109, true, 3)]);
        // Without a retw.n ahead the error covers the rest.
        assert_eq!(lens(&[0x20, 0, 0, 0x55], &opts), [(0x100, false, 4)]);
    }

    #[test]
    fn truncated_tail() {
        assert_eq!(lens(&[0x36, 0x41], &IsaOptions::vision_q7()), [(0x100, false, 2)]);
    }
}
