//! Every ALU operation through every dispatch path of the interpreter: a
//! block run op by op (`step`), and the same block as a zero-overhead loop
//! body, whose iterations run on the register-only path (`alu::run`, with
//! its per-length unrolled bodies). All must end in the same registers.

use crate::alu::AluOp;
use crate::block::Block;
use crate::config::CoreConfig;
use crate::cpu::Cpu;
use crate::mem::Memory;
use crate::uop::{Kind, Op};

const START: u32 = 0x1000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u32 {
        (self.next() % n) as u32
    }
}

/// An immediate the decoder can produce for `op`.
fn immediate(op: AluOp, rng: &mut Rng) -> u32 {
    match op {
        AluOp::Slli | AluOp::Srai => rng.below(32),
        AluOp::Srli => rng.below(16),
        AluOp::Extui => rng.below(32) | (1 + rng.below(16)) << 8,
        AluOp::Sext | AluOp::Clamps => 7 + rng.below(16),
        _ => rng.next() as u32,
    }
}

fn block_of(ops: &[(AluOp, u8, u8, u8, u32)]) -> Block {
    let ops: Vec<Op> = ops
        .iter()
        .enumerate()
        .map(|(i, &(op, a, b, c, imm))| Op {
            kind: Kind::Alu(op),
            a,
            b,
            c,
            frame: 0,
            len: 3,
            cycles: 1,
            imm,
            target: 0,
            pc: START + 3 * i as u32,
            opcode: q7_isa::Opcode::Nop,
        })
        .collect();
    let end = START + 3 * ops.len() as u32;
    let pure = ops.iter().map(Op::register_only).collect();
    Block {
        start: START,
        end,
        cycles: ops.len() as u64,
        ops: ops.into_boxed_slice(),
        max_frame: 0,
        straight: true,
        pure,
        translation: Default::default(),
    }
}

fn cpu(regs: [u32; 16], sar: u32) -> Cpu {
    let mut cpu = Cpu::new(0, CoreConfig::vision_q7());
    cpu.ar = regs;
    cpu.sar = sar;
    cpu.pc = START;
    cpu
}

#[test]
fn every_alu_op_agrees_on_every_dispatch_path() {
    let mut rng = Rng(0x243f_6a88_85a3_08d3);
    let mut mem = Memory::new(1);
    for round in 0..40 {
        // Bodies of 1..=10 ops: lengths up to 8 take the unrolled runner.
        let len = 1 + round % 10;
        for &first in &AluOp::ALL {
            let body: Vec<_> = (0..len)
                .map(|i| {
                    let op = if i == 0 { first } else { AluOp::ALL[rng.below(AluOp::ALL.len() as u64) as usize] };
                    (op, rng.below(16) as u8, rng.below(16) as u8, rng.below(16) as u8, immediate(op, &mut rng))
                })
                .collect();
            let block = block_of(&body);
            let regs: [u32; 16] = std::array::from_fn(|_| rng.next() as u32);
            let sar = rng.below(33);
            let iterations = 1 + rng.below(5);

            // Op by op: the block run `iterations` times, no loop.
            let mut stepped = cpu(regs, sar);
            for _ in 0..iterations {
                stepped.pc = START;
                stepped.exec_block(&mut mem, &block, u64::MAX, true).expect("ALU ops do not trap");
            }
            // The same block as a loop body: LCOUNT = iterations - 1.
            let mut looped = cpu(regs, sar);
            (looped.lbeg, looped.lend, looped.lcount) = (START, block.end, iterations - 1);
            while looped.insns < u64::from(iterations) * len as u64 {
                looped.exec_block(&mut mem, &block, u64::MAX, true).expect("ALU ops do not trap");
            }
            assert_eq!(looped.ar, stepped.ar, "{body:x?} x{iterations}, SAR {sar}, from {regs:x?}");
            assert_eq!((looped.pc, looped.lcount), (block.end, 0));
        }
    }
}
