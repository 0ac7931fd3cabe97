//! Cores whose code differs only by rebase (the per-core images of an op)
//! share the JIT's compiled code: each block compiles once, and every core
//! runs it at its own addresses (its own literals, branch targets and pcs).

use q7_isa::{Opcode, Operand};
use q7_sim::config::CoreConfig;
use q7_sim::jit::Engine;
use q7_sim::machine::{CoreState, Machine};
use q7_sim::mem::{Memory, Perms, RegionKind};
use q7_sim::output::OutputMode;

use super::iss_reports::assemble;
use Opcode as O;
use Operand::{Ar, Imm, Target};

/// Where core `n`'s copy lives: a literal word, then the code.
fn copy_base(n: usize) -> u32 {
    0x8400_0000 + 0x2_0000 * n as u32
}

/// A counted loop adding a literal (read by `l32r`, as rebased literals
/// are): a5 ends as 50 × the literal.
fn program(base: u32) -> Vec<u8> {
    let code = vec![
        (O::Movi, vec![Ar(2), Imm(50)]),
        (O::Movi, vec![Ar(3), Imm(0)]),
        (O::L32r, vec![Ar(4), Target(base)]),
        (O::Add, vec![Ar(3), Ar(3), Ar(4)]),
        (O::Addi, vec![Ar(2), Ar(2), Imm(-1)]),
        (O::Bnez, vec![Ar(2), Target(2)]),
        // exit(0): the other cores still run (a break would stop them all).
        (O::MovN, vec![Ar(5), Ar(3)]),
        (O::Movi, vec![Ar(2), Imm(1)]),
        (O::Movi, vec![Ar(3), Imm(0)]),
        (O::Simcall, vec![]),
    ];
    assemble(base + 4, &code)
}

/// Runs `cores` copies, core n's literal being `literal(n)`: each core's
/// final pc and sum, and the blocks compiled.
fn run(cores: usize, engine: Engine) -> (Vec<(u32, u32)>, u64) {
    let literal = |n: usize| 1000 + 7 * n as u32;
    let mut mem = Memory::new(cores);
    for n in 0..cores {
        let base = copy_base(n);
        mem.add_region("window", RegionKind::Window { core: n }, base, 0x1_0000, Perms::RWX, None);
        mem.host_write(base, &literal(n).to_le_bytes()).expect("literal fits");
        mem.host_write(base + 4, &program(base)).expect("code fits");
    }
    let mut m = Machine::new(mem, &CoreConfig::vision_q7(), cores, OutputMode { prefix: false, stream: false });
    m.limits.engine = engine;
    m.limits.max_insns = 100_000;
    for n in 0..cores {
        m.cores[n].cpu.pc = copy_base(n) + 4;
    }
    m.run();
    assert!(m.states.iter().all(|s| *s == CoreState::Exited(0)), "{:?}", m.states);
    let ends: Vec<(u32, u32)> = m.cores.iter().map(|core| (core.cpu.pc, core.cpu.reg(5))).collect();
    for (n, &(_, sum)) in ends.iter().enumerate() {
        assert_eq!(sum, 50 * literal(n), "core {n} ({engine:?}) read its own literal");
    }
    (ends, m.cores[0].blocks_compiled())
}

#[test]
fn rebased_copies_compile_once_and_run_at_their_own_addresses() {
    let engine = Engine::Jit { hot: 0 };
    let (_, one_core) = run(1, engine);
    assert!(one_core > 0, "the loop compiled");
    let (jit, four_cores) = run(4, engine);
    assert_eq!(four_cores, one_core, "four rebased copies compile as one");
    let (interp, _) = run(4, Engine::Interp);
    assert_eq!(jit, interp, "each core exits from its own copy");
    assert_ne!(jit[0].0, jit[1].0);
}
