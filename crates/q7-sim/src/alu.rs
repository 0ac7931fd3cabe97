//! The ALU: every operation that computes one address register from
//! address registers, an immediate and SAR, with no memory access, no
//! control flow and nothing that can trap. [`eval`] is its only
//! implementation; the interpreter's ops (`uop::Kind::Alu`) and the
//! register-only loop bodies below both call it.
//!
//! Zero-overhead loop bodies made only of ALU ops run in [`run`], on a local
//! copy of the 16-register window with no error paths: each op is 8 bytes
//! and the operation a small dense enum.

/// An ALU operation: `a = f(b, c, imm, SAR)` (the conditional moves also
/// read the old `a`). Field use per op is `a, b, c / imm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AluOp {
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
    /// a = (b:c) >> SAR
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
    /// imm = shift | (width << 8)
    Extui,
    /// imm = sign bit position
    Sext,
    Clamps,
    /// a = imm
    Movi,
    /// a unchanged (`nop` and the barriers, which order nothing here)
    Nop,
}

impl AluOp {
    /// Every operation, for tests that run them all.
    pub const ALL: [AluOp; 42] = {
        use AluOp::*;
        [
            Add, Addx2, Addx4, Addx8, Sub, Subx2, Subx4, Subx8, And, Or, Xor, Mull, Mul16u, Mul16s, Mulsh, Muluh, Min,
            Max, Minu, Maxu, Moveqz, Movnez, Movltz, Movgez, Src, Sll, Srl, Sra, Neg, Abs, Mov, Nsa, Nsau, Addi, Slli,
            Srai, Srli, Extui, Sext, Clamps, Movi, Nop,
        ]
    };
}

/// The value an ALU op with registers `a`, `b`, `c` (0..16) writes to
/// register `a` of the window `r`. Registers are read inside each arm, so
/// an op reads only what it uses.
#[inline(always)]
pub fn eval(op: AluOp, r: &[u32; 16], a: usize, b: usize, c: usize, imm: u32, sar: u32) -> u32 {
    let (a, b, c) = (a & 15, b & 15, c & 15);
    match op {
        AluOp::Add => r[b].wrapping_add(r[c]),
        AluOp::Addx2 => (r[b] << 1).wrapping_add(r[c]),
        AluOp::Addx4 => (r[b] << 2).wrapping_add(r[c]),
        AluOp::Addx8 => (r[b] << 3).wrapping_add(r[c]),
        AluOp::Sub => r[b].wrapping_sub(r[c]),
        AluOp::Subx2 => (r[b] << 1).wrapping_sub(r[c]),
        AluOp::Subx4 => (r[b] << 2).wrapping_sub(r[c]),
        AluOp::Subx8 => (r[b] << 3).wrapping_sub(r[c]),
        AluOp::And => r[b] & r[c],
        AluOp::Or => r[b] | r[c],
        AluOp::Xor => r[b] ^ r[c],
        AluOp::Mull => r[b].wrapping_mul(r[c]),
        AluOp::Mul16u => (r[b] & 0xffff) * (r[c] & 0xffff),
        AluOp::Mul16s => (i32::from(r[b] as i16) * i32::from(r[c] as i16)) as u32,
        AluOp::Mulsh => ((i64::from(r[b] as i32) * i64::from(r[c] as i32)) >> 32) as u32,
        AluOp::Muluh => ((u64::from(r[b]) * u64::from(r[c])) >> 32) as u32,
        AluOp::Min => (r[b] as i32).min(r[c] as i32) as u32,
        AluOp::Max => (r[b] as i32).max(r[c] as i32) as u32,
        AluOp::Minu => r[b].min(r[c]),
        AluOp::Maxu => r[b].max(r[c]),
        AluOp::Moveqz => select(r[c] == 0, r[b], r[a]),
        AluOp::Movnez => select(r[c] != 0, r[b], r[a]),
        AluOp::Movltz => select((r[c] as i32) < 0, r[b], r[a]),
        AluOp::Movgez => select((r[c] as i32) >= 0, r[b], r[a]),
        // The funnel shifter: (high:low) >> SAR, low 32 bits.
        AluOp::Src => ((u64::from(r[b]) << 32 | u64::from(r[c])) >> sar) as u32,
        AluOp::Sll => ((u64::from(r[b]) << 32) >> sar) as u32,
        AluOp::Srl => (u64::from(r[b]) >> sar) as u32,
        AluOp::Sra => (i64::from(r[b] as i32) >> sar) as u32,
        AluOp::Neg => r[b].wrapping_neg(),
        AluOp::Abs => (r[b] as i32).unsigned_abs(),
        AluOp::Mov => r[b],
        AluOp::Nsa => {
            let x = r[b] as i32;
            let x = if x < 0 { !x } else { x };
            if x == 0 {
                31
            } else {
                x.leading_zeros() - 1
            }
        }
        AluOp::Nsau => r[b].leading_zeros(),
        AluOp::Addi => r[b].wrapping_add(imm),
        AluOp::Slli => (u64::from(r[b]) << imm) as u32,
        AluOp::Srai => ((r[b] as i32) >> imm) as u32,
        AluOp::Srli => r[b] >> imm,
        AluOp::Extui => (r[b] >> (imm & 0xff)) & (u32::MAX >> (32 - (imm >> 8))),
        AluOp::Sext => {
            let drop = 31 - imm;
            (((r[b] << drop) as i32) >> drop) as u32
        }
        AluOp::Clamps => {
            let limit = 1i32 << imm;
            (r[b] as i32).clamp(-limit, limit - 1) as u32
        }
        AluOp::Movi => imm,
        AluOp::Nop => r[a],
    }
}

#[inline(always)]
fn select(take: bool, new: u32, old: u32) -> u32 {
    if take {
        new
    } else {
        old
    }
}

/// A register-only op: destination `a`, sources `b`, `c`, immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct PureOp {
    pub op: AluOp,
    pub a: u8,
    pub b: u8,
    pub c: u8,
    pub imm: u32,
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
    r[a] = eval(op.op, r, a, b, c, op.imm, sar);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-position form must do exactly what one dispatch site does.
    #[test]
    fn fixed_bodies_match_the_plain_loop() {
        let kinds = [AluOp::Add, AluOp::Xor, AluOp::Mull, AluOp::Addi, AluOp::Src, AluOp::Movnez];
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
                        op: kinds[(x % kinds.len() as u64) as usize],
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
