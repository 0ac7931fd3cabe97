//! Whether the value a stack load brings into a register is used: an
//! uninitialised stack load is a finding only then
//! (`Checker::set_use_test`). A struct passed or copied by value word by
//! word loads its padding and stores it straight back to the stack; a load
//! whose register is overwritten unread was useless. Neither is a use (as
//! for MemorySanitizer, which reports uses). A copy out of the stack (into a
//! tensor, through a pointer) is one: the op hands the garbage on.
//!
//! The test reads the straight-line code after the load (up to the next
//! control transfer, at most [`LOOK_AHEAD`] instructions) and answers "used"
//! whenever it cannot tell, so a finding is dropped only for a plain copy
//! into the stack: a store relative to the stack pointer a1, or to the
//! register the load's address came from.

use q7_isa::{decode, IsaOptions};

use crate::alu::AluOp;
use crate::uop::{Kind, Op};

/// Instructions read after the load.
const LOOK_AHEAD: usize = 12;

// The memory gives the test this much code: the load and the look-ahead.
const _: () = assert!(3 * (LOOK_AHEAD + 1) <= crate::checks::USE_TEST_CODE);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Reg {
    A(u8),
    F(u8),
}

enum Effect {
    /// Reads the register other than to store it.
    Use,
    /// Stores it to memory, at an address in this address register.
    Copy(u8),
    /// Replaces it without reading it.
    Overwrite,
    None,
}

/// `code` holds the instructions from `pc` on, the load first. False when,
/// in the straight line after the load, its register is only stored (a
/// copy) until overwritten or the line ends, or is overwritten unread;
/// true otherwise.
pub fn loaded_value_used(code: &[u8], pc: u32, isa: &IsaOptions) -> bool {
    let mut at = 0;
    let Some(load) = next(code, &mut at, pc, isa) else { return true };
    let dest = match load.kind {
        Kind::L8ui | Kind::L16ui | Kind::L16si | Kind::L32i => Reg::A(load.a),
        Kind::Lsi => Reg::F(load.a),
        _ => return true,
    };
    // Registers holding stack addresses: a1, and the load's base until
    // something writes it.
    let mut stack_bases = vec![1, load.b];
    let mut copied = false;
    for _ in 0..LOOK_AHEAD {
        let Some(op) = next(code, &mut at, pc, isa) else { break };
        let effect = effect(&op, dest);
        stack_bases.retain(|&r| !writes_a(&op, r));
        let effect = match effect {
            Effect::Copy(base) if !stack_bases.contains(&base) => Effect::Use,
            other => other,
        };
        match effect {
            Effect::Use => return true,
            Effect::Copy(_) => copied = true,
            Effect::Overwrite => return false,
            Effect::None => {}
        }
        if op.ends_block() {
            break;
        }
    }
    !copied
}

/// The op at `code[*at..]`, moving `at` past it.
fn next(code: &[u8], at: &mut usize, pc: u32, isa: &IsaOptions) -> Option<Op> {
    let insn = decode(code.get(*at..)?, pc.wrapping_add(*at as u32), isa).ok()?;
    *at += usize::from(insn.len);
    Some(crate::uop::translate(&insn))
}

fn effect(op: &Op, dest: Reg) -> Effect {
    use Kind::*;
    let (a, b, c) = (op.a, op.b, op.c);
    match dest {
        Reg::A(n) => match op.kind {
            S8i | S16i | S32i | S32e if b == n => Effect::Use,
            S8i | S16i | S32i | S32e if a == n => Effect::Copy(b),
            S8i | S16i | S32i | S32e => Effect::None,
            L8ui | L16ui | L16si | L32i | L32e if b == n => Effect::Use,
            L8ui | L16ui | L16si | L32i | L32e | L32r | Alu(AluOp::Movi) if a == n => Effect::Overwrite,
            L8ui | L16ui | L16si | L32i | L32e | L32r | Alu(AluOp::Movi) | Alu(AluOp::Nop) => Effect::None,
            // f registers in a: only the address registers count.
            Lsi | Lsiu | Lsip | Ssi | Ssiu | Ssip if b == n => Effect::Use,
            Lsi | Lsiu | Lsip | Ssi | Ssiu | Ssip => Effect::None,
            Alu(AluOp::Moveqz | AluOp::Movnez | AluOp::Movltz | AluOp::Movgez) if [a, b, c].contains(&n) => Effect::Use,
            Alu(_) if b == n || c == n => Effect::Use,
            Alu(_) if a == n => Effect::Overwrite,
            Alu(_) => Effect::None,
            // Anything else naming the register is taken for a use.
            _ if [a, b, c].contains(&n) => Effect::Use,
            _ => Effect::None,
        },
        Reg::F(n) => match op.kind {
            Ssi | Ssiu | Ssip if a == n => Effect::Copy(b),
            Ssx | Ssxu | Ssxp if a == n => Effect::Use,
            Lsi | Lsiu | Lsip | Lsx | Lsxu | Lsxp if a == n => Effect::Overwrite,
            Ssi | Ssiu | Ssip | Ssx | Ssxu | Ssxp | Lsi | Lsiu | Lsip | Lsx | Lsxu | Lsxp => Effect::None,
            kind if uses_f_registers(kind) && [a, b, c].contains(&n) => Effect::Use,
            _ => Effect::None,
        },
    }
}

/// Whether `op` may write address register `r` (every op that names it in
/// `a`, but stores and branches; and the updating loads and stores' base).
fn writes_a(op: &Op, r: u8) -> bool {
    use Kind::*;
    match op.kind {
        S8i | S16i | S32i | S32e | Ssi | Ssx => false,
        Lsiu | Lsip | Ssiu | Ssip | Lsxu | Lsxp | Ssxu | Ssxp => op.b == r,
        Movsp => op.a == r,
        // rfrd, round.d... write a; ldip/sdip and ldxp/sdxp the base.
        Fp64 => op.a == r || op.b == r,
        kind if kind.is_conditional_branch() || uses_f_registers(kind) => kind == Rfr && op.a == r,
        _ => op.a == r,
    }
}

/// Ops whose register fields name f registers (some of them).
fn uses_f_registers(kind: Kind) -> bool {
    use Kind::*;
    matches!(
        kind,
        Fp64 | AddS
            | SubS
            | MulS
            | MaddS
            | MsubS
            | MaddnS
            | DivnS
            | MovS
            | AbsS
            | NegS
            | ConstS
            | Div0S
            | Recip0S
            | Sqrt0S
            | Rsqrt0S
            | Nexp01S
            | MksadjS
            | MkdadjS
            | AddexpS
            | AddexpmS
            | Rfr
            | Wfr
            | RoundS
            | TruncS
            | FloorS
            | CeilS
            | UtruncS
            | FloatS
            | UfloatS
            | UnS
            | OeqS
            | UeqS
            | OltS
            | UltS
            | OleS
            | UleS
            | MoveqzS
            | MovnezS
            | MovltzS
            | MovgezS
            | MovfS
            | MovtS
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_isa::{encode, Insn, Opcode, Operand};

    fn code(insns: &[(Opcode, &[Operand])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (op, operands) in insns {
            let pc = 0x1000 + out.len() as u32;
            let insn = Insn::new(*op, pc, operands).expect("an instruction");
            out.extend_from_slice(encode(&insn).expect("encodes").as_bytes());
        }
        out
    }

    fn used(insns: &[(Opcode, &[Operand])]) -> bool {
        loaded_value_used(&code(insns), 0x1000, &IsaOptions::vision_q7())
    }

    use Operand::{Ar, Imm};

    #[test]
    fn copies_and_dead_loads_are_no_use_anything_else_is() {
        let load = (Opcode::L32i, &[Ar(8), Ar(7), Imm(12)][..]);
        let copy = (Opcode::S32i, &[Ar(8), Ar(1), Imm(4)][..]);
        let refill = (Opcode::L32i, &[Ar(8), Ar(7), Imm(8)][..]);
        let retw = (Opcode::RetwN, &[][..]);
        // The wrapper passing a Scalar by value: padding copied word by word.
        assert!(!used(&[load, copy, refill, copy]));
        assert!(!used(&[load, copy, retw]));
        assert!(!used(&[load, (Opcode::Movi, &[Ar(8), Imm(3)])]));
        // Arithmetic, an address, a branch: uses.
        assert!(used(&[load, (Opcode::Add, &[Ar(9), Ar(8), Ar(2)])]));
        assert!(used(&[load, copy, (Opcode::Add, &[Ar(9), Ar(2), Ar(8)])]));
        assert!(used(&[load, (Opcode::S32i, &[Ar(2), Ar(8), Imm(0)])]));
        assert!(used(&[load, (Opcode::Beqz, &[Ar(8), Operand::Target(0x1100)])]));
        // Out of the stack: through another pointer, or a1 after it moved.
        assert!(used(&[load, (Opcode::S32i, &[Ar(8), Ar(2), Imm(0)])]));
        assert!(used(&[load, (Opcode::Addi, &[Ar(7), Ar(7), Imm(64)]), (Opcode::S32i, &[Ar(8), Ar(7), Imm(0)])]));
        assert!(!used(&[load, (Opcode::S32i, &[Ar(8), Ar(7), Imm(40)])]));
        // Nothing seen before the line ends: used, as far as q7 can tell.
        assert!(used(&[load, retw]));
        assert!(used(&[load]));
    }
}
