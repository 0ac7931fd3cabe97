//! The JIT against the interpreter, one translated op family at a time:
//! random hand-assembled blocks (q7-isa's encoder) on random register
//! states, run once by each engine (the JIT compiling every block on first
//! sight); registers, SAR, the pc, memory, the stop and the instruction,
//! cycle and exception counts must agree exactly.

use q7_isa::{Opcode, Operand};
use q7_sim::config::CoreConfig;
use q7_sim::jit::Engine;
use q7_sim::machine::{CoreState, Machine, RunLimits};
use q7_sim::mem::{Memory, Perms, RegionKind};
use q7_sim::output::OutputMode;
use q7_testkit::Rng;

use super::iss_reports::assemble;
use Opcode as O;
use Operand::{Ar, Br, Imm, Target};

const CODE: u32 = 0x8400_0000;
/// Data: a region ending inside its second 64 KiB page, so the partial-page
/// bound of the host page table is exercised.
const DATA: u32 = 0x9000_0000;
const DATA_SIZE: u32 = 0x1_8000;

type Code = Vec<(Opcode, Vec<Operand>)>;

/// Everything a run leaves that the engines must agree on.
#[derive(Debug, PartialEq)]
struct Outcome {
    state: CoreState,
    pc: u32,
    ar: [u32; 16],
    sar: u32,
    lcount: u32,
    fr: [u32; 16],
    fsr: u32,
    br: u32,
    insns: u64,
    cycles: u64,
    exceptions: u64,
    data: Vec<u8>,
    code: Vec<u8>,
}

/// The FP state a run starts from: registers, FCR, FSR, CPENABLE.
#[derive(Clone, Copy, Default)]
struct FpStart {
    fr: [u32; 16],
    fcr: u32,
    fsr: u32,
    cpenable: u32,
}

fn run(engine: Engine, code: &[u8], start: &Start, data: &[u8], quantum: u64) -> (Outcome, u64) {
    let mut mem = Memory::new(1);
    mem.add_region("code", RegionKind::Window { core: 0 }, CODE, 0x2_0000, Perms::RWX, None);
    mem.add_region("data", RegionKind::Tensor, DATA, DATA_SIZE, Perms::RW, None);
    mem.host_write(CODE, code).expect("code fits");
    mem.host_write(DATA, data).expect("data fits");
    let mut m = Machine::new(mem, &CoreConfig::vision_q7(), 1, OutputMode { prefix: false, stream: false });
    m.limits = RunLimits { max_insns: 100_000, quantum, engine, ..RunLimits::default() };
    let cpu = &mut m.cores[0].cpu;
    (cpu.pc, cpu.ar, cpu.sar, cpu.br) = (CODE, start.regs, start.sar, start.br);
    (cpu.fr, cpu.fcr, cpu.fsr, cpu.cpenable) = (start.fp.fr, start.fp.fcr, start.fp.fsr, start.fp.cpenable);
    m.run();
    let cpu = &m.cores[0].cpu;
    let outcome = Outcome {
        state: m.states[0].clone(),
        pc: cpu.pc,
        ar: cpu.ar,
        sar: cpu.sar,
        lcount: cpu.lcount,
        fr: cpu.fr,
        fsr: cpu.fsr,
        br: cpu.br,
        insns: cpu.insns,
        cycles: cpu.cycles,
        exceptions: cpu.exceptions,
        data: m.mem.host_read(DATA, DATA_SIZE as usize).expect("data").to_vec(),
        code: m.mem.host_read(CODE, 0x1000).expect("code").to_vec(),
    };
    (outcome, m.cores[0].blocks_compiled())
}

/// The state a run starts from.
#[derive(Debug)]
struct Start {
    regs: [u32; 16],
    sar: u32,
    br: u32,
    fp: FpStart,
}

impl std::fmt::Debug for FpStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fr {:x?} fcr {:x} fsr {:x} cpenable {}", self.fr, self.fcr, self.fsr, self.cpenable)
    }
}

/// Runs `code` under both engines from the same random state and compares.
fn agree(rng: &mut Rng, code: &Code, regs: [u32; 16], what: &str) {
    agree_fp(rng, code, regs, FpStart::default(), what);
}

fn agree_fp(rng: &mut Rng, code: &Code, regs: [u32; 16], fp: FpStart, what: &str) {
    let bytes = assemble(CODE, code);
    let start = Start { regs, sar: rng.below(33) as u32, br: rng.next_u32(), fp };
    let mut data = vec![0u8; DATA_SIZE as usize];
    rng.fill(&mut data);
    let quantum = 1 + rng.below(40) as u64;
    let (interp, _) = run(Engine::Interp, &bytes, &start, &data, quantum);
    let (jit, compiled) = run(Engine::Jit { hot: 0 }, &bytes, &start, &data, quantum);
    assert!(compiled > 0, "{what}: nothing compiled for {code:?}");
    assert!(jit == interp, "{what}: engines differ on {code:?} from {start:x?}:\n jit {jit:x?}\n interp {interp:x?}");
}

fn reg(rng: &mut Rng) -> u8 {
    rng.below(16) as u8
}

/// Register values that hit the edges often: 0, ±1, extremes, small.
fn value(rng: &mut Rng) -> u32 {
    match rng.below(6) {
        0 => [0, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff, 0xffff, 0x8000][rng.below(7)],
        1 => rng.below(64) as u32,
        _ => rng.next_u32(),
    }
}

fn random_regs(rng: &mut Rng) -> [u32; 16] {
    std::array::from_fn(|_| value(rng))
}

fn alu_op(rng: &mut Rng) -> (Opcode, Vec<Operand>) {
    const RRR: [Opcode; 25] = [
        O::Add,
        O::Addx2,
        O::Addx4,
        O::Addx8,
        O::Sub,
        O::Subx2,
        O::Subx4,
        O::Subx8,
        O::And,
        O::Or,
        O::Xor,
        O::Mull,
        O::Mul16u,
        O::Mul16s,
        O::Mulsh,
        O::Muluh,
        O::Min,
        O::Max,
        O::Minu,
        O::Maxu,
        O::Moveqz,
        O::Movnez,
        O::Movltz,
        O::Movgez,
        O::Src,
    ];
    let (a, b, c) = (reg(rng), reg(rng), reg(rng));
    match rng.below(20) {
        0..=7 => (RRR[rng.below(RRR.len())], vec![Ar(a), Ar(b), Ar(c)]),
        8 => ([O::Sll, O::Srl, O::Sra, O::Neg, O::Abs][rng.below(5)], vec![Ar(a), Ar(b)]),
        9 => ([O::Nsa, O::Nsau][rng.below(2)], vec![Ar(a), Ar(b)]),
        10 => (O::Addi, vec![Ar(a), Ar(b), Imm(rng.below(256) as i32 - 128)]),
        11 => (O::Addmi, vec![Ar(a), Ar(b), Imm((rng.below(256) as i32 - 128) * 256)]),
        12 => (O::Slli, vec![Ar(a), Ar(b), Imm(1 + rng.below(31) as i32)]),
        13 => (O::Srai, vec![Ar(a), Ar(b), Imm(rng.below(32) as i32)]),
        14 => (O::Srli, vec![Ar(a), Ar(b), Imm(rng.below(16) as i32)]),
        15 => (O::Extui, vec![Ar(a), Ar(b), Imm(rng.below(32) as i32), Imm(1 + rng.below(16) as i32)]),
        16 => ([O::Sext, O::Clamps][rng.below(2)], vec![Ar(a), Ar(b), Imm(7 + rng.below(16) as i32)]),
        17 => (O::Movi, vec![Ar(a), Imm(rng.below(4096) as i32 - 2048)]),
        18 => (O::Nop, vec![]),
        _ => (O::MovN, vec![Ar(a), Ar(b)]),
    }
}

fn sar_op(rng: &mut Rng) -> (Opcode, Vec<Operand>) {
    match rng.below(7) {
        0 => (O::Ssai, vec![Imm(rng.below(32) as i32)]),
        1..=3 => ([O::Ssr, O::Ssl, O::Ssa8l, O::Ssa8b][rng.below(4)], vec![Ar(reg(rng))]),
        5 => (O::Src, vec![Ar(reg(rng)), Ar(reg(rng)), Ar(reg(rng))]),
        _ => ([O::Sll, O::Srl, O::Sra][rng.below(3)], vec![Ar(reg(rng)), Ar(reg(rng))]),
    }
}

fn stop() -> (Opcode, Vec<Operand>) {
    (O::Break, vec![Imm(1), Imm(2)])
}

#[test]
fn alu_ops_agree() {
    let mut rng = Rng::new(0x0a1);
    for round in 0..300 {
        let mut code: Code = (0..1 + round % 12).map(|_| alu_op(&mut rng)).collect();
        code.push(stop());
        let regs = random_regs(&mut rng);
        agree(&mut rng, &code, regs, "ALU");
    }
}

#[test]
fn sar_setters_and_funnel_shifts_agree() {
    let mut rng = Rng::new(0x5a2);
    for round in 0..200 {
        let mut code: Code = (0..1 + round % 10).map(|_| sar_op(&mut rng)).collect();
        code.push(stop());
        let regs = random_regs(&mut rng);
        agree(&mut rng, &code, regs, "SAR");
    }
}

/// Loads and stores through base registers a12..a15 pointing into the data
/// region (near its end too), the code region (beside and into the
/// running code), or nowhere; sometimes misaligned.
#[test]
fn loads_and_stores_agree() {
    let mut rng = Rng::new(0x10ad);
    for round in 0..400 {
        let mut regs = random_regs(&mut rng);
        for base in &mut regs[12..16] {
            *base = match rng.below(8) {
                0 => DATA + DATA_SIZE - 1 - rng.below(1100) as u32,
                1 => CODE + rng.below(0x180) as u32,
                2 => 0x1000_0000 + rng.below(64) as u32,
                3 => DATA + 0x1_0000 - rng.below(8) as u32,
                _ => DATA + rng.below(0x1_7000) as u32,
            } & if rng.below(4) == 0 { !0 } else { !3 };
        }
        let mut code: Code = Vec::new();
        for _ in 0..1 + round % 10 {
            let base = Ar(12 + rng.below(4) as u8);
            let a = Ar(reg(&mut rng) % 12);
            let op = match rng.below(9) {
                0 => (O::L8ui, vec![a, base, Imm(rng.below(256) as i32)]),
                1 => (O::L16ui, vec![a, base, Imm(2 * rng.below(256) as i32)]),
                2 => (O::L16si, vec![a, base, Imm(2 * rng.below(256) as i32)]),
                3 => (O::L32i, vec![a, base, Imm(4 * rng.below(256) as i32)]),
                4 => (O::S8i, vec![a, base, Imm(rng.below(256) as i32)]),
                5 => (O::S16i, vec![a, base, Imm(2 * rng.below(256) as i32)]),
                6 => (O::S32i, vec![a, base, Imm(4 * rng.below(256) as i32)]),
                7 => (O::L32r, vec![a, Target(CODE)]),
                _ => alu_op(&mut rng),
            };
            code.push(op);
        }
        code.push(stop());
        // l32r needs its literal below the code: start with a jump over it.
        let mut program: Code = vec![(O::J, vec![Target(2)]), (O::Nop, vec![])];
        program.extend(code);
        agree(&mut rng, &program, regs, "memory");
    }
}

#[test]
fn branches_agree() {
    const B4CONST: [i32; 16] = [-1, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256];
    const B4CONSTU: [i32; 16] = [32768, 65536, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256];
    let mut rng = Rng::new(0xb7a);
    for _ in 0..600 {
        let mut regs = random_regs(&mut rng);
        // Equal and bit-pattern cases come up often enough.
        regs[3] = if rng.below(3) == 0 { regs[2] } else { regs[3] };
        let (x, y) = (Ar(2), Ar(3));
        let taken = Target(3);
        let branch = match rng.below(7) {
            0 | 1 => {
                let ops = [O::Beq, O::Bne, O::Blt, O::Bge, O::Bltu, O::Bgeu, O::Ball, O::Bany, O::Bnall, O::Bnone];
                (ops[rng.below(ops.len())], vec![x, y, taken])
            }
            2 => ([O::Bbc, O::Bbs][rng.below(2)], vec![x, y, taken]),
            3 => ([O::Beqi, O::Bnei, O::Blti, O::Bgei][rng.below(4)], vec![x, Imm(B4CONST[rng.below(16)]), taken]),
            4 => ([O::Bltui, O::Bgeui][rng.below(2)], vec![x, Imm(B4CONSTU[rng.below(16)]), taken]),
            5 => ([O::Bbci, O::Bbsi][rng.below(2)], vec![x, Imm(rng.below(32) as i32), taken]),
            _ => match rng.below(3) {
                0 => ([O::Bf, O::Bt][rng.below(2)], vec![Br(rng.below(16) as u8), taken]),
                1 => (O::J, vec![taken]),
                _ => ([O::Beqz, O::Bnez, O::Bltz, O::Bgez][rng.below(4)], vec![x, taken]),
            },
        };
        let code: Code = vec![alu_op(&mut rng), branch, (O::Break, vec![Imm(3), Imm(4)]), stop()];
        agree(&mut rng, &code, regs, "branch");
    }
}

/// Zero-overhead loops whose bodies compile as loops: ALU ops and memory
/// through a12 (which walks), LCOUNT cut by random quanta.
#[test]
fn loop_bodies_agree() {
    let mut rng = Rng::new(0x100b);
    for round in 0..150 {
        let mut regs = random_regs(&mut rng);
        regs[12] = DATA + 4 * rng.below(0x100) as u32;
        regs[11] = rng.below(60) as u32;
        // A base that sometimes walks off the end of the data region.
        if round % 5 == 0 {
            regs[12] = DATA + DATA_SIZE - 4 * rng.below(40) as u32;
        }
        let body_len = 1 + round % 6;
        let mut code: Code = vec![(O::Loop, vec![Ar(11), Target(2 + body_len as u32)])];
        code.push((O::Addi, vec![Ar(12), Ar(12), Imm(4)]));
        for _ in 0..body_len {
            let a = Ar(reg(&mut rng) % 11);
            code.push(match rng.below(4) {
                0 => (O::L32i, vec![a, Ar(12), Imm(0)]),
                1 => (O::S32i, vec![a, Ar(12), Imm(0)]),
                _ => {
                    let (op, mut operands) = alu_op(&mut rng);
                    // Keep the loop registers out of the body's destinations.
                    if let Some(Ar(d)) = operands.first_mut() {
                        *d %= 11;
                    }
                    (op, operands)
                }
            });
        }
        code.push(stop());
        agree(&mut rng, &code, regs, "loop");
    }
}

/// Blocks that branch (or jump) back to their own start, run as loops in
/// compiled code: a2 counts down (from 0 it runs until the instruction
/// budget), a12 walks memory (sometimes off the data region, leaving to the
/// interpreter mid-pass); random quanta cut the passes.
#[test]
fn self_loops_agree() {
    let mut rng = Rng::new(0x5e1f);
    for round in 0..150 {
        let mut regs = random_regs(&mut rng);
        regs[2] = rng.below(40) as u32;
        regs[12] = if round % 5 == 0 { DATA + DATA_SIZE - 4 * rng.below(40) as u32 } else { DATA };
        let mut code: Code = vec![(O::Addi, vec![Ar(12), Ar(12), Imm(4)])];
        for _ in 0..1 + round % 5 {
            let a = Ar(3 + reg(&mut rng) % 8);
            code.push(match rng.below(4) {
                0 => (O::L32i, vec![a, Ar(12), Imm(0)]),
                1 => (O::S32i, vec![a, Ar(12), Imm(0)]),
                _ => {
                    let (op, mut operands) = alu_op(&mut rng);
                    // Keep the counter and the walking base out of the destinations.
                    if let Some(Ar(d)) = operands.first_mut() {
                        *d = 3 + *d % 8;
                    }
                    (op, operands)
                }
            });
        }
        code.push((O::Addi, vec![Ar(2), Ar(2), Imm(-1)]));
        code.push(match round % 10 {
            9 => (O::J, vec![Target(0)]),
            _ => (O::Bnez, vec![Ar(2), Target(0)]),
        });
        code.push(stop());
        agree(&mut rng, &code, regs, "self-loop");
    }
}

/// FP values that hit the edges: zeros, infinities, NaNs (quiet and
/// signalling), denormals, the extremes, and ordinary numbers.
fn fp_value(rng: &mut Rng) -> u32 {
    const EDGES: [u32; 12] = [
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0x0000_0001,
        0x807f_ffff,
        0x7f7f_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x3380_0000,
    ];
    match rng.below(4) {
        0 => EDGES[rng.below(EDGES.len())],
        1 => rng.uniform(-8.0, 8.0).to_bits(),
        _ => rng.next_u32(),
    }
}

fn fp_op(rng: &mut Rng) -> (Opcode, Vec<Operand>) {
    use Operand::Fr;
    const FFF: [Opcode; 5] = [O::AddS, O::SubS, O::MulS, O::MaddS, O::MsubS];
    const FF: [Opcode; 3] = [O::MovS, O::AbsS, O::NegS];
    const CMP: [Opcode; 7] = [O::UnS, O::OeqS, O::UeqS, O::OltS, O::UltS, O::OleS, O::UleS];
    const TO_INT: [Opcode; 5] = [O::RoundS, O::TruncS, O::FloorS, O::CeilS, O::UtruncS];
    const LOAD_STORE_I: [Opcode; 6] = [O::Lsi, O::Lsiu, O::Lsip, O::Ssi, O::Ssiu, O::Ssip];
    const LOAD_STORE_X: [Opcode; 6] = [O::Lsx, O::Lsxu, O::Lsxp, O::Ssx, O::Ssxu, O::Ssxp];
    let (a, b, c) = (rng.below(16) as u8, rng.below(16) as u8, rng.below(16) as u8);
    let base = Ar(12 + rng.below(2) as u8);
    match rng.below(16) {
        0..=3 => (FFF[rng.below(FFF.len())], vec![Fr(a), Fr(b), Fr(c)]),
        4 => (FF[rng.below(FF.len())], vec![Fr(a), Fr(b)]),
        5 | 6 => (CMP[rng.below(CMP.len())], vec![Br(a), Fr(b), Fr(c)]),
        7 => (TO_INT[rng.below(TO_INT.len())], vec![Ar(a % 12), Fr(b), Imm(rng.below(16) as i32)]),
        8 => ([O::FloatS, O::UfloatS][rng.below(2)], vec![Fr(a), Ar(b), Imm(rng.below(16) as i32)]),
        9 => (O::Rfr, vec![Ar(a % 12), Fr(b)]),
        10 => (O::Wfr, vec![Fr(a), Ar(b)]),
        11 => ([O::MoveqzS, O::MovnezS, O::MovltzS, O::MovgezS][rng.below(4)], vec![Fr(a), Fr(b), Ar(c)]),
        12 => ([O::MovfS, O::MovtS][rng.below(2)], vec![Fr(a), Fr(b), Br(c)]),
        13 => (O::ConstS, vec![Fr(a), Imm(rng.below(4) as i32)]),
        14 => (LOAD_STORE_I[rng.below(6)], vec![Fr(a), base, Imm(4 * rng.below(256) as i32)]),
        _ => (LOAD_STORE_X[rng.below(6)], vec![Fr(a), base, Ar(14)]),
    }
}

/// FP arithmetic (through the interpreter's rounding), compares into
/// booleans read by bt/bf in the same block, moves, selects, conversions
/// and FP loads and stores (base registers a12, a13 walking; one sometimes
/// near the end of memory), in all four rounding modes; CPENABLE off now
/// and then (the interpreter raises the exception).
#[test]
fn fp_ops_agree() {
    let mut rng = Rng::new(0xf10a7);
    for round in 0..300 {
        let mut regs = random_regs(&mut rng);
        regs[12] = DATA + 4 * rng.below(0x5000) as u32;
        regs[13] = if rng.below(6) == 0 { DATA + DATA_SIZE - 4 * rng.below(300) as u32 } else { DATA + 0x100 };
        regs[14] = 4 * rng.below(64) as u32;
        let mut code: Code = (0..1 + round % 8).map(|_| fp_op(&mut rng)).collect();
        let taken = Target(code.len() as u32 + 2);
        code.push(([O::Bt, O::Bf][rng.below(2)], vec![Br(rng.below(16) as u8), taken]));
        code.push((O::Break, vec![Imm(3), Imm(4)]));
        code.push(stop());
        let fp = FpStart {
            fr: std::array::from_fn(|_| fp_value(&mut rng)),
            fcr: rng.below(4) as u32,
            fsr: 0,
            cpenable: u32::from(rng.below(10) != 0),
        };
        agree_fp(&mut rng, &code, regs, fp, "FP");
    }
}

/// An FCR rounding mode: round-to-nearest (the inline fast path's) half
/// the time, else any of the four.
fn rounding_mode(rng: &mut Rng) -> u32 {
    if rng.below(2) == 0 {
        0
    } else {
        rng.below(4) as u32
    }
}

/// Binary32 values where the inline fast path of FP arithmetic meets the
/// interpreter's cases: around the smallest normal and the largest finite
/// magnitude, products and sums landing there, denormals, zeros,
/// infinities, NaNs (quiet and signalling, either sign), small integers and
/// short mantissas (exact results and exact cancellation), integer-range
/// limits and halves (conversions), and random numbers.
fn arith_value(rng: &mut Rng) -> u32 {
    const EDGES: [u32; 24] = [
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        0xffa0_0000,
        0x0000_0001,
        0x807f_ffff,
        0x0080_0000,
        0x8080_0001,
        0x00ff_ffff,
        0x7f7f_ffff,
        0xff7f_fffe,
        0x7f00_0000,
        0x4f00_0000, // 2^31
        0x4eff_ffff,
        0xcf00_0000, // -2^31
        0x4f80_0000, // 2^32
        0x4f7f_ffff,
        0x3f00_0000, // 0.5
        0xbfc0_0000, // -1.5
        0x4020_0000, // 2.5
    ];
    let sign = (rng.below(2) as u32) << 31;
    match rng.below(9) {
        0 => EDGES[rng.below(EDGES.len())],
        1 => ((rng.below(129) as i32 - 64) as f32).to_bits(),
        2 => {
            // An edge mantissa at an exponent near the ends or the middle:
            // products of two such land on or near 2^-126 and 2^128.
            const EXPONENTS: [u32; 14] = [0, 1, 2, 3, 62, 63, 64, 65, 126, 127, 128, 190, 253, 254];
            let exponent = EXPONENTS[rng.below(EXPONENTS.len())];
            sign | exponent << 23 | edge_mantissa(rng)
        }
        // Around ±2^31 and 2^32 after the conversions' scaling by 2^0..2^15.
        3 => sign | (143 + rng.below(17) as u32) << 23 | edge_mantissa(rng),
        4 => sign | (rng.next_u32() & 0x007f_ffff),
        5 => rng.uniform(-8.0, 8.0).to_bits(),
        _ => rng.next_u32(),
    }
}

/// Mantissas of few bits (exact results), all ones (products just below a
/// power of two, rounding up to it), or either with a low bit or two.
fn edge_mantissa(rng: &mut Rng) -> u32 {
    let high = match rng.below(3) {
        0 => 0x007f_ffff,
        _ => (rng.below(16) as u32) << 19,
    };
    let low = if rng.below(3) == 0 { rng.below(4) as u32 } else { 0 };
    high ^ low
}

fn arith_op(rng: &mut Rng) -> (Opcode, Vec<Operand>) {
    use Operand::Fr;
    const FFF: [Opcode; 5] = [O::AddS, O::SubS, O::MulS, O::MaddS, O::MsubS];
    const TO_INT: [Opcode; 5] = [O::RoundS, O::TruncS, O::FloorS, O::CeilS, O::UtruncS];
    let (a, b, c) = (rng.below(16) as u8, rng.below(16) as u8, rng.below(16) as u8);
    match rng.below(8) {
        0..=4 => (FFF[rng.below(FFF.len())], vec![Fr(a), Fr(b), Fr(c)]),
        5 | 6 => (TO_INT[rng.below(TO_INT.len())], vec![Ar(a % 12), Fr(b), Imm(rng.below(16) as i32)]),
        _ => ([O::FloatS, O::UfloatS][rng.below(2)], vec![Fr(a), Ar(b), Imm(rng.below(16) as i32)]),
    }
}

/// FP arithmetic and conversions, whose common case compiled code runs on
/// the host's FP unit: result bits and FSR (starting with random sticky
/// flags) must be the interpreter's for edge-case operands in every
/// rounding mode (round-to-nearest, the fast path's mode, half the time;
/// FCR's other bits random).
#[test]
fn fp_arithmetic_agrees() {
    let mut rng = Rng::new(0xa417);
    for round in 0..500 {
        let mut regs = random_regs(&mut rng);
        for r in &mut regs {
            if rng.below(3) == 0 {
                *r = [0, 1, u32::MAX, 0x0100_0001, 0x8000_0000, 0x7fff_ffff, 0xffff_ff81][rng.below(7)];
            }
        }
        let mut code: Code = (0..1 + round % 12).map(|_| arith_op(&mut rng)).collect();
        code.push(stop());
        let mode = rounding_mode(&mut rng);
        let fp = FpStart {
            fr: std::array::from_fn(|_| arith_value(&mut rng)),
            fcr: mode | (rng.next_u32() & 0x7c),
            fsr: rng.next_u32() & 0xf80 & if rng.below(2) == 0 { 0 } else { !0 },
            cpenable: 1,
        };
        agree_fp(&mut rng, &code, regs, fp, "FP arithmetic");
    }
}

/// `x`'s bits moved by up to two ulps either way (the sign kept; either
/// sign for zero, so exact zero results of both signs come up).
fn near(rng: &mut Rng, x: f32) -> u32 {
    let bits = x.to_bits();
    let moved = (bits & 0x7fff_ffff).saturating_add_signed(rng.below(5) as i32 - 2).min(0x7f80_0000);
    let sign = if x == 0.0 { (rng.below(2) as u32) << 31 } else { bits & 0x8000_0000 };
    sign | moved
}

/// Operands aimed at the fast path's boundaries: for a random `x`, the `y`
/// (and for `madd.s`/`msub.s` the accumulator) that put the exact result a
/// few ulps from ±2^-126, ±2^128 or zero, so rounding decides whether the
/// result is normal, tiny or overflowing.
#[test]
fn fp_arithmetic_near_the_boundaries_agrees() {
    use Operand::Fr;
    let tiny = f64::from(f32::MIN_POSITIVE);
    let targets = [tiny, -tiny, 2f64.powi(128), -f64::from(f32::MAX), 1.0, 2f64.powi(-149), 0.0];
    let mut rng = Rng::new(0xb0d5);
    for _ in 0..400 {
        let mut fr = [0u32; 16];
        let mut code: Code = Vec::new();
        for k in 0..5u8 {
            let (d, b, c) = (3 * k, 3 * k + 1, 3 * k + 2);
            let kind = [O::AddS, O::SubS, O::MulS, O::MaddS, O::MsubS][rng.below(5)];
            let x = match rng.below(8) {
                0 => 0.0,
                _ => f32::from_bits(arith_value(&mut rng) & 0x7fff_ffff),
            } * if rng.below(2) == 0 { 1.0 } else { -1.0 };
            let target = targets[rng.below(targets.len())];
            let (xd, y, acc) =
                (f64::from(x), f32::from_bits(arith_value(&mut rng)), f32::from_bits(arith_value(&mut rng)));
            // The partner, then (for the fused forms) the accumulator.
            let (y, acc) = match kind {
                O::AddS => (near(&mut rng, (target - xd) as f32), acc.to_bits()),
                O::SubS => (near(&mut rng, (xd - target) as f32), acc.to_bits()),
                O::MulS => (near(&mut rng, (target / xd) as f32), acc.to_bits()),
                O::MaddS => (y.to_bits(), near(&mut rng, (target - xd * f64::from(y)) as f32)),
                _ => (y.to_bits(), near(&mut rng, (target + xd * f64::from(y)) as f32)),
            };
            (fr[usize::from(b)], fr[usize::from(c)], fr[usize::from(d)]) = (x.to_bits(), y, acc);
            code.push((kind, vec![Fr(d), Fr(b), Fr(c)]));
        }
        code.push(stop());
        let mode = rounding_mode(&mut rng);
        let fp = FpStart { fr, fcr: mode, fsr: 0, cpenable: 1 };
        let regs = random_regs(&mut rng);
        agree_fp(&mut rng, &code, regs, fp, "FP arithmetic near the boundaries");
    }
}

/// Every sign combination of zero results: sources ±0 and ±1 (f0..f3),
/// accumulators ±0 (f4..f15), each arithmetic op in each rounding mode.
#[test]
fn fp_arithmetic_signed_zeros_agree() {
    use Operand::Fr;
    let mut rng = Rng::new(0x5e20);
    let sources = [0.0f32, -0.0, 1.0, -1.0].map(f32::to_bits);
    for mode in 0..4 {
        for kind in [O::AddS, O::SubS, O::MulS, O::MaddS, O::MsubS] {
            let cases: Vec<(u8, u8, u32)> =
                (0..4).flat_map(|b| (0..4).flat_map(move |c| [(b, c, 0), (b, c, 0x8000_0000)])).collect();
            for chunk in cases.chunks(12) {
                let mut fr = [0u32; 16];
                fr[..4].copy_from_slice(&sources);
                let mut code: Code = Vec::new();
                for (k, &(b, c, acc)) in chunk.iter().enumerate() {
                    let d = 4 + k as u8;
                    fr[usize::from(d)] = acc;
                    code.push((kind, vec![Fr(d), Fr(b), Fr(c)]));
                }
                code.push(stop());
                let fp = FpStart { fr, fcr: mode, fsr: 0, cpenable: 1 };
                agree_fp(&mut rng, &code, [0; 16], fp, "FP signed zeros");
            }
        }
    }
}

/// Zero-overhead loop bodies (compiled as loops) of FP loads and
/// arithmetic over random data, so passes alternate between the inline
/// path and the interpreter's as operands change; every rounding mode.
#[test]
fn fp_loop_bodies_agree() {
    use Operand::Fr;
    let mut rng = Rng::new(0xf1007);
    for round in 0..120 {
        let mut regs = random_regs(&mut rng);
        regs[12] = DATA + 4 * rng.below(0x100) as u32;
        regs[11] = rng.below(60) as u32;
        let body_len = 2 + round % 6;
        let mut code: Code = vec![(O::Loop, vec![Ar(11), Target(2 + body_len as u32)])];
        code.push((O::Addi, vec![Ar(12), Ar(12), Imm(4)]));
        for _ in 0..body_len {
            let (a, b, c) = (rng.below(8) as u8, rng.below(8) as u8, rng.below(8) as u8);
            code.push(match rng.below(4) {
                0 => (O::Lsi, vec![Fr(a), Ar(12), Imm(4 * rng.below(4) as i32)]),
                // Destinations of the conversions stay clear of a11, a12.
                1 if rng.below(2) == 0 => {
                    ([O::TruncS, O::RoundS][rng.below(2)], vec![Ar(2 + a), Fr(b), Imm(rng.below(16) as i32)])
                }
                _ => ([O::AddS, O::SubS, O::MulS, O::MaddS, O::MsubS][rng.below(5)], vec![Fr(a), Fr(b), Fr(c)]),
            });
        }
        code.push(stop());
        let mode = rounding_mode(&mut rng);
        let fp = FpStart { fr: std::array::from_fn(|_| arith_value(&mut rng)), fcr: mode, fsr: 0, cpenable: 1 };
        agree_fp(&mut rng, &code, regs, fp, "FP loop");
    }
}
