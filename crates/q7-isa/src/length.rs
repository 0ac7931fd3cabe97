//! Instruction length rules.
//!
//! On Xtensa the low nibble of the first byte (op0) alone decides how long an
//! instruction is:
//!
//! * op0 0..=7: a 3-byte base instruction;
//! * op0 8..=0xd: a 2-byte code-density instruction (reserved without the
//!   density option; the length is then unknown);
//! * op0 0xe, 0xf: on Vision cores, the first byte of a FLIX bundle whose
//!   length depends on the core configuration ([`IsaOptions::bundle_lengths`]).
//!   Under the scalar-LX rule ([`IsaOptions::lx_scalar`]), for scalar LX cores
//!   such as the NCFW management core that have no FLIX, they are 3-byte
//!   instructions instead.

use crate::options::{Feature, IsaOptions};

/// What op0 says about the instruction starting with a given byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthClass {
    /// A base-ISA (3) or density (2) instruction of this many bytes.
    Standard(u8),
    /// A FLIX bundle; its length when the core's formats are known.
    Bundle(Option<u8>),
    /// A density opcode on a core without the density option: reserved, so
    /// the length is unknown.
    Reserved,
}

/// Classifies the instruction whose first byte is `first_byte`.
pub fn length_class(first_byte: u8, opts: &IsaOptions) -> LengthClass {
    match first_byte & 0xf {
        0..=7 => LengthClass::Standard(3),
        8..=0xd if opts.has(Feature::Density) => LengthClass::Standard(2),
        8..=0xd => LengthClass::Reserved,
        _ if opts.lx_scalar => LengthClass::Standard(3),
        op0 => LengthClass::Bundle(opts.bundle_lengths[usize::from(op0 & 1)]),
    }
}

/// The length in bytes of the instruction starting with `first_byte`, when op0
/// determines it.
pub fn instruction_length(first_byte: u8, opts: &IsaOptions) -> Option<u8> {
    match length_class(first_byte, opts) {
        LengthClass::Standard(len) => Some(len),
        LengthClass::Bundle(len) => len,
        LengthClass::Reserved => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op0_decides() {
        let q7 = IsaOptions::vision_q7();
        assert_eq!(instruction_length(0x36, &q7), Some(3)); // entry
        assert_eq!(instruction_length(0x1d, &q7), Some(2)); // retw.n
        assert_eq!(length_class(0x0e, &q7), LengthClass::Bundle(None));
        assert_eq!(instruction_length(0x0f, &q7.with_lx_scalar(true)), Some(3));
        assert_eq!(length_class(0x1d, &q7.without(Feature::Density)), LengthClass::Reserved);
        let mut flix = q7;
        flix.bundle_lengths = [Some(8), Some(16)];
        assert_eq!(instruction_length(0x5f, &flix), Some(16));
    }
}
