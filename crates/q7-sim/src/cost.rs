//! The cycle cost model behind `--stats`.
//!
//! It is deliberately simple and stable, not a timing model of the real
//! pipeline (which is unpublished): every instruction costs one cycle, plus
//!
//! | what | extra cycles |
//! |---|---|
//! | load (`l8ui`..`l32r`, `lsi`..) | +1 (a typical load-use stall) |
//! | 32-bit multiply (`mull`, `mulsh`, `muluh`) | +1 |
//! | divide / remainder (`quos`, `quou`, `rems`, `remu`) | +12 |
//! | taken branch, jump, call or return | +2 (added when taken, see [`TAKEN_BRANCH`]) |
//! | FP divide/sqrt step (`divn.s`, `div0.s`, ...) | +3 |
//!
//! Window overflow/underflow handlers cost what their instructions cost,
//! since the simulator really runs them.

use crate::alu::AluOp;
use crate::uop::Kind;

/// Extra cycles when a branch is taken, or a jump, call or return happens.
pub const TAKEN_BRANCH: u64 = 2;

/// Cycles charged for one op before any taken-branch penalty.
pub fn cycles(kind: Kind) -> u8 {
    use Kind::*;
    match kind {
        L8ui | L16ui | L16si | L32i | L32r | L32e | Lsi | Lsiu | Lsip | Lsx | Lsxu | Lsxp | S32c1i => 2,
        Alu(AluOp::Mull | AluOp::Mulsh | AluOp::Muluh) => 2,
        Quos | Quou | Rems | Remu => 13,
        DivnS | Div0S | Recip0S | Sqrt0S | Rsqrt0S => 4,
        _ => 1,
    }
}
