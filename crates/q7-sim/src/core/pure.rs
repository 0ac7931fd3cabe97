//! Register-only blocks: a second, denser form of blocks whose ops only
//! compute on address registers (no memory, no special registers except
//! reading SAR, no control flow, nothing that can trap).
//!
//! Zero-overhead loop bodies of this kind run here, on a local copy of the
//! 16-register window, with no error paths: the op kinds are a small dense
//! enum (the dispatch needs no range check) and each op is 8 bytes.

use crate::ops::{Kind, Op};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PureKind {
    Add,
    Addx2,
    Addx4,
    Addx8,
    Sub,
    Subx2,
    Subx4,
    Subx8,
    And,
    Or,
    Xor,
    Mull,
    Mul16u,
    Mul16s,
    Mulsh,
    Muluh,
    Min,
    Max,
    Minu,
    Maxu,
    Moveqz,
    Movnez,
    Movltz,
    Movgez,
    Src,
    Sll,
    Srl,
    Sra,
    Neg,
    Abs,
    Mov,
    Nsa,
    Nsau,
    Addi,
    Slli,
    Srai,
    Srli,
    Extui,
    Sext,
    Clamps,
    Movi,
    Nop,
}

/// A register-only op: destination `a`, sources `b`, `c`, immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct PureOp {
    pub kind: PureKind,
    pub a: u8,
    pub b: u8,
    pub c: u8,
    pub imm: u32,
}

/// The register-only form of `op`, if it has one.
pub fn lower(op: &Op) -> Option<PureOp> {
    use PureKind as P;
    let kind = match op.kind {
        Kind::Add => P::Add,
        Kind::Addx2 => P::Addx2,
        Kind::Addx4 => P::Addx4,
        Kind::Addx8 => P::Addx8,
        Kind::Sub => P::Sub,
        Kind::Subx2 => P::Subx2,
        Kind::Subx4 => P::Subx4,
        Kind::Subx8 => P::Subx8,
        Kind::And => P::And,
        Kind::Or => P::Or,
        Kind::Xor => P::Xor,
        Kind::Mull => P::Mull,
        Kind::Mul16u => P::Mul16u,
        Kind::Mul16s => P::Mul16s,
        Kind::Mulsh => P::Mulsh,
        Kind::Muluh => P::Muluh,
        Kind::Min => P::Min,
        Kind::Max => P::Max,
        Kind::Minu => P::Minu,
        Kind::Maxu => P::Maxu,
        Kind::Moveqz => P::Moveqz,
        Kind::Movnez => P::Movnez,
        Kind::Movltz => P::Movltz,
        Kind::Movgez => P::Movgez,
        Kind::Src => P::Src,
        Kind::Sll => P::Sll,
        Kind::Srl => P::Srl,
        Kind::Sra => P::Sra,
        Kind::Neg => P::Neg,
        Kind::Abs => P::Abs,
        Kind::Mov => P::Mov,
        Kind::Nsa => P::Nsa,
        Kind::Nsau => P::Nsau,
        Kind::Addi => P::Addi,
        Kind::Slli => P::Slli,
        Kind::Srai => P::Srai,
        Kind::Srli => P::Srli,
        Kind::Extui => P::Extui,
        Kind::Sext => P::Sext,
        Kind::Clamps => P::Clamps,
        Kind::Movi => P::Movi,
        Kind::Nop => P::Nop,
        _ => return None,
    };
    Some(PureOp { kind, a: op.a & 15, b: op.b & 15, c: op.c & 15, imm: op.imm })
}

/// Runs `ops` `iterations` times on the registers `r` (SAR as given).
///
/// Bodies of up to eight ops run through [`run_fixed`], which gives every op
/// position its own dispatch site: the branch predictor then sees one
/// stable target per site instead of the whole body's sequence at one site.
pub fn run(ops: &[PureOp], r: &mut [u32; 16], sar: u32, iterations: u64) {
    match ops.len() {
        1 => run_fixed::<1>(ops, r, sar, iterations),
        2 => run_fixed::<2>(ops, r, sar, iterations),
        3 => run_fixed::<3>(ops, r, sar, iterations),
        4 => run_fixed::<4>(ops, r, sar, iterations),
        5 => run_fixed::<5>(ops, r, sar, iterations),
        6 => run_fixed::<6>(ops, r, sar, iterations),
        7 => run_fixed::<7>(ops, r, sar, iterations),
        8 => run_fixed::<8>(ops, r, sar, iterations),
        _ => {
            for _ in 0..iterations {
                for op in ops {
                    exec(op, r, sar);
                }
            }
        }
    }
}

fn run_fixed<const L: usize>(ops: &[PureOp], r: &mut [u32; 16], sar: u32, iterations: u64) {
    let Ok(body) = <&[PureOp; L]>::try_from(ops) else { return };
    let body = *body;
    for _ in 0..iterations {
        // Written out so each position is its own copy of `exec`. `i % L`
        // keeps the constant indices in range for every L (positions at or
        // past L are skipped by their `if`), so no bounds check survives.
        if L > 0 {
            exec(&body[0 % L], r, sar)
        }
        if L > 1 {
            exec(&body[1 % L], r, sar)
        }
        if L > 2 {
            exec(&body[2 % L], r, sar)
        }
        if L > 3 {
            exec(&body[3 % L], r, sar)
        }
        if L > 4 {
            exec(&body[4 % L], r, sar)
        }
        if L > 5 {
            exec(&body[5 % L], r, sar)
        }
        if L > 6 {
            exec(&body[6 % L], r, sar)
        }
        if L > 7 {
            exec(&body[7 % L], r, sar)
        }
    }
}

/// One register-only op.
#[inline(always)]
fn exec(op: &PureOp, r: &mut [u32; 16], sar: u32) {
    let (a, b, c) = (usize::from(op.a & 15), usize::from(op.b & 15), usize::from(op.c & 15));
    r[a] = match op.kind {
        PureKind::Add => r[b].wrapping_add(r[c]),
        PureKind::Addx2 => (r[b] << 1).wrapping_add(r[c]),
        PureKind::Addx4 => (r[b] << 2).wrapping_add(r[c]),
        PureKind::Addx8 => (r[b] << 3).wrapping_add(r[c]),
        PureKind::Sub => r[b].wrapping_sub(r[c]),
        PureKind::Subx2 => (r[b] << 1).wrapping_sub(r[c]),
        PureKind::Subx4 => (r[b] << 2).wrapping_sub(r[c]),
        PureKind::Subx8 => (r[b] << 3).wrapping_sub(r[c]),
        PureKind::And => r[b] & r[c],
        PureKind::Or => r[b] | r[c],
        PureKind::Xor => r[b] ^ r[c],
        PureKind::Mull => r[b].wrapping_mul(r[c]),
        PureKind::Mul16u => (r[b] & 0xffff) * (r[c] & 0xffff),
        PureKind::Mul16s => (i32::from(r[b] as i16) * i32::from(r[c] as i16)) as u32,
        PureKind::Mulsh => ((i64::from(r[b] as i32) * i64::from(r[c] as i32)) >> 32) as u32,
        PureKind::Muluh => ((u64::from(r[b]) * u64::from(r[c])) >> 32) as u32,
        PureKind::Min => (r[b] as i32).min(r[c] as i32) as u32,
        PureKind::Max => (r[b] as i32).max(r[c] as i32) as u32,
        PureKind::Minu => r[b].min(r[c]),
        PureKind::Maxu => r[b].max(r[c]),
        PureKind::Moveqz => {
            if r[c] == 0 {
                r[b]
            } else {
                r[a]
            }
        }
        PureKind::Movnez => {
            if r[c] != 0 {
                r[b]
            } else {
                r[a]
            }
        }
        PureKind::Movltz => {
            if (r[c] as i32) < 0 {
                r[b]
            } else {
                r[a]
            }
        }
        PureKind::Movgez => {
            if (r[c] as i32) >= 0 {
                r[b]
            } else {
                r[a]
            }
        }
        PureKind::Src => ((u64::from(r[b]) << 32 | u64::from(r[c])) >> sar) as u32,
        PureKind::Sll => ((u64::from(r[b]) << 32) >> sar) as u32,
        PureKind::Srl => (u64::from(r[b]) >> sar) as u32,
        PureKind::Sra => (i64::from(r[b] as i32) >> sar) as u32,
        PureKind::Neg => r[b].wrapping_neg(),
        PureKind::Abs => (r[b] as i32).unsigned_abs(),
        PureKind::Mov => r[b],
        PureKind::Nsa => {
            let x = r[b] as i32;
            let x = if x < 0 { !x } else { x };
            if x == 0 {
                31
            } else {
                x.leading_zeros() - 1
            }
        }
        PureKind::Nsau => r[b].leading_zeros(),
        PureKind::Addi => r[b].wrapping_add(op.imm),
        PureKind::Slli => (u64::from(r[b]) << op.imm) as u32,
        PureKind::Srai => ((r[b] as i32) >> op.imm) as u32,
        PureKind::Srli => r[b] >> op.imm,
        PureKind::Extui => (r[b] >> (op.imm & 0xff)) & (u32::MAX >> (32 - (op.imm >> 8))),
        PureKind::Sext => {
            let drop = 31 - op.imm;
            (((r[b] << drop) as i32) >> drop) as u32
        }
        PureKind::Clamps => {
            let limit = 1i32 << op.imm;
            (r[b] as i32).clamp(-limit, limit - 1) as u32
        }
        PureKind::Movi => op.imm,
        PureKind::Nop => r[a],
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-position form must do exactly what one dispatch site does.
    #[test]
    fn fixed_bodies_match_the_plain_loop() {
        let kinds = [PureKind::Add, PureKind::Xor, PureKind::Mull, PureKind::Addi, PureKind::Src, PureKind::Movnez];
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in 1..=10 {
            let ops: Vec<PureOp> = (0..len)
                .map(|_| {
                    let x = next();
                    PureOp {
                        kind: kinds[(x % kinds.len() as u64) as usize],
                        a: (x >> 8) as u8 & 15,
                        b: (x >> 12) as u8 & 15,
                        c: (x >> 16) as u8 & 15,
                        imm: (x >> 32) as u32,
                    }
                })
                .collect();
            let start: [u32; 16] = std::array::from_fn(|_| next() as u32);
            let mut fast = start;
            run(&ops, &mut fast, 5, 37);
            let mut slow = start;
            for _ in 0..37 {
                for op in &ops {
                    exec(op, &mut slow, 5);
                }
            }
            assert_eq!(fast, slow, "body of {len} ops");
        }
    }
}
