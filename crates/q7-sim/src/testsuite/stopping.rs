//! How a run that would not end stops: an [`Interrupt`] (Ctrl-C) between
//! rounds, and a deadlock found exactly (every running core in a cycle that
//! writes no memory), never guessed (a loop that counts or stores runs on).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use q7_isa::Opcode as O;
use q7_isa::Operand::{Ar, Imm, Target};
use q7_sim::config::CoreConfig;
use q7_sim::interrupt::Interrupt;
use q7_sim::machine::{Machine, RunEnd, RunLimits, DEADLOCK_CHECK_EVERY};
use q7_sim::mem::{Memory, Perms, RegionKind};
use q7_sim::output::OutputMode;

use super::iss_reports::assemble;

const BASE: u32 = 0x8400_0000;
/// A word the loops below read: zero, and nothing writes it.
const FLAG: u32 = BASE + 0x1000;
const STACK: u32 = BASE + 0x1f_f000;

fn machine(code: &[(O, Vec<q7_isa::Operand>)], limits: RunLimits) -> Machine {
    let mut mem = Memory::new(1);
    mem.add_region("core 0 window", RegionKind::Window { core: 0 }, BASE, 0x20_0000, Perms::RWX, None);
    mem.host_write(BASE, &assemble(BASE, code)).unwrap();
    let mut m = Machine::new(mem, &CoreConfig::vision_q7(), 1, OutputMode { prefix: false, stream: false });
    m.cores[0].cpu.pc = BASE;
    m.cores[0].cpu.set_reg(1, STACK);
    m.limits = limits;
    m
}

/// `a4 = FLAG; loop: a5 = *a4; extra; if a5 == 0 goto loop`.
fn wait_on_flag(extra: Vec<(O, Vec<q7_isa::Operand>)>) -> Vec<(O, Vec<q7_isa::Operand>)> {
    let mut code = vec![
        (O::Movi, vec![Ar(4), Imm(0x84)]),
        (O::Slli, vec![Ar(4), Ar(4), Imm(24)]),
        (O::Addmi, vec![Ar(4), Ar(4), Imm((FLAG - BASE) as i32)]),
    ];
    let head = code.len() as u32;
    code.push((O::L32i, vec![Ar(5), Ar(4), Imm(0)]));
    code.extend(extra);
    code.push((O::Beqz, vec![Ar(5), Target(head)]));
    code
}

fn limits(max_insns: u64) -> RunLimits {
    RunLimits { max_insns, engine: q7_sim::jit::Engine::Interp, ..RunLimits::default() }
}

#[test]
fn an_interrupt_stops_the_run_between_rounds() {
    let polls = Arc::new(AtomicU32::new(0));
    let seen = polls.clone();
    let interrupt = Interrupt::new(move || seen.fetch_add(1, Ordering::SeqCst) >= 3);
    // A loop that stores on every turn: no deadlock, it would run to the budget.
    let code = wait_on_flag(vec![(O::S32i, vec![Ar(5), Ar(1), Imm(0)])]);
    let mut m = machine(&code, RunLimits { interrupt: Some(interrupt), ..limits(u64::MAX) });
    assert_eq!(m.run(), RunEnd::Interrupted);
    assert_eq!(polls.load(Ordering::SeqCst), 4);
    // Four rounds of one quantum each, not the budget.
    assert!(m.total_steps() <= 4 * (RunLimits::default().quantum + 8), "{}", m.total_steps());
}

#[test]
fn a_core_waiting_on_memory_nothing_writes_is_a_deadlock() {
    for engine in [q7_sim::jit::Engine::Interp, q7_sim::jit::Engine::JIT] {
        let mut m = machine(&wait_on_flag(vec![]), RunLimits { engine, ..limits(u64::MAX) });
        assert_eq!(m.run(), RunEnd::Deadlock, "{engine:?}");
        // Found at the first look after the run began.
        assert!(m.total_steps() < DEADLOCK_CHECK_EVERY + 2 * RunLimits::default().quantum, "{}", m.total_steps());
        assert_eq!(m.cores[0].cpu.reg(5), 0);
    }
}

#[test]
fn a_loop_that_counts_or_stores_is_no_deadlock() {
    let counting = wait_on_flag(vec![(O::Addi, vec![Ar(6), Ar(6), Imm(1)])]);
    let storing = wait_on_flag(vec![(O::S32i, vec![Ar(5), Ar(1), Imm(0)])]);
    for code in [counting, storing] {
        // Past the first look for a deadlock, which must find none.
        let budget = DEADLOCK_CHECK_EVERY + 4 * RunLimits::default().quantum;
        let mut m = machine(&code, RunLimits { engine: q7_sim::jit::Engine::JIT, ..limits(budget) });
        assert_eq!(m.run(), RunEnd::Budget);
    }
}

#[test]
fn looking_for_a_deadlock_changes_nothing() {
    let code = wait_on_flag(vec![(O::Addi, vec![Ar(6), Ar(6), Imm(1)])]);
    let mut looked = machine(&code, limits(1000));
    looked.run();
    let before = (looked.cores[0].cpu.pc, looked.cores[0].cpu.reg(6), looked.total_steps());
    assert!(!looked.deadlocked());
    assert_eq!((looked.cores[0].cpu.pc, looked.cores[0].cpu.reg(6), looked.total_steps()), before);
    assert_eq!(looked.mem.host_read(FLAG, 4).unwrap(), [0; 4]);
}
