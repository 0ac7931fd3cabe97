//! The debugger's engine ([`q7_sim::debug::Timeline`]) on a two-core
//! program: breakpoints stop exactly (both engines at the same point),
//! going back and forth lands on identical states, watchpoints name the
//! store, reverse motion finds the previous event, and the run's results
//! are those of a plain run.

use q7_isa::Opcode as O;
use q7_isa::Operand::{Ar, Imm, Target};
use q7_sim::config::CoreConfig;
use q7_sim::debug::{Arrival, Motion, Timeline, Watch};
use q7_sim::jit::Engine;
use q7_sim::machine::{Machine, RunEnd, RunLimits};
use q7_sim::mem::{Memory, Perms, RegionKind};
use q7_sim::output::OutputMode;

use super::iss_reports::assemble;

const BASE: u32 = 0x8400_0000;
/// Core `i` counts in the word at `COUNTERS + 4 i`.
const COUNTERS: u32 = BASE + 0x1000;
/// The store of the counting loop.
const STORE_PC: u32 = BASE + 12;

/// Each core: `a5 = 0; do { a5 += 1; *a4 = a5; } while (a5 != 1000 + 100 i); exit(0)`.
fn machine(engine: Engine) -> Machine {
    let code = assemble(
        BASE,
        &[
            (O::Movi, vec![Ar(5), Imm(0)]),
            (O::Movi, vec![Ar(6), Imm(1000)]),
            (O::Add, vec![Ar(6), Ar(6), Ar(7)]),
            (O::Addi, vec![Ar(5), Ar(5), Imm(1)]),
            (O::S32i, vec![Ar(5), Ar(4), Imm(0)]),
            (O::Bne, vec![Ar(5), Ar(6), Target(3)]),
            (O::Movi, vec![Ar(2), Imm(1)]),
            (O::Movi, vec![Ar(3), Imm(0)]),
            (O::Simcall, vec![]),
        ],
    );
    let mut mem = Memory::new(2);
    mem.add_region("ram", RegionKind::Ram, BASE, 0x10_0000, Perms::RWX, None);
    mem.host_write(BASE, &code).unwrap();
    let mut m = Machine::new(mem, &CoreConfig::vision_q7(), 2, OutputMode { prefix: true, stream: false });
    for (i, core) in m.cores.iter_mut().enumerate() {
        core.cpu.pc = BASE;
        core.cpu.set_reg(4, COUNTERS + 4 * i as u32);
        core.cpu.set_reg(7, 100 * i as u32);
    }
    // Short turns: many turn boundaries inside the loops.
    m.limits = RunLimits { quantum: 97, engine, ..RunLimits::default() };
    m
}

fn word(m: &Machine, addr: u32) -> u32 {
    u32::from_le_bytes(m.mem.host_read_for(0, addr, 4).unwrap().try_into().unwrap())
}

/// Registers, pc and steps of every core, and the two counters.
fn state(t: &Timeline) -> Vec<u64> {
    let m = &t.machine;
    let mut s: Vec<u64> = m.cores.iter().flat_map(|c| [c.cpu.pc, c.cpu.reg(5), c.cpu.reg(6)]).map(u64::from).collect();
    s.extend(m.cores.iter().map(|c| c.cpu.steps()));
    s.extend([word(m, COUNTERS), word(m, COUNTERS + 4)].map(u64::from));
    s
}

#[test]
fn breakpoints_stop_exactly_and_both_engines_agree() {
    let mut hits = Vec::new();
    for engine in [Engine::JIT, Engine::Interp] {
        let mut t = Timeline::new(machine(engine));
        t.add_breakpoint(1, STORE_PC);
        let stop = Motion { breakpoints: true, ..Motion::default() };
        let mut seen = Vec::new();
        for _ in 0..3 {
            assert_eq!(t.forward(stop), Arrival::Breakpoint { core: 1, pc: STORE_PC });
            seen.push((t.time(), t.machine.cores[1].cpu.reg(5)));
        }
        // Core 1 stops before each of its stores: a5 counts 1, 2, 3.
        assert_eq!(seen.iter().map(|s| s.1).collect::<Vec<_>>(), [1, 2, 3]);
        // Let it run hot for a while, then stop again: the JIT's compiled
        // loop must still stop at the store.
        t.remove_breakpoint(1, STORE_PC);
        t.forward(Motion { total_steps: Some(1500), ..Motion::default() });
        t.add_breakpoint(1, STORE_PC);
        assert_eq!(t.forward(stop), Arrival::Breakpoint { core: 1, pc: STORE_PC });
        seen.push((t.time(), t.machine.cores[1].cpu.reg(5)));
        hits.push(seen);
    }
    assert_eq!(hits[0], hits[1], "the JIT and the interpreter stop at the same points");
}

#[test]
fn going_back_and_forth_lands_on_the_same_states() {
    let mut t = Timeline::new(machine(Engine::JIT));
    t.set_snapshots(500, usize::MAX);
    let mut states = Vec::new();
    for time in [0, 123, 777, 1999, 3003] {
        t.seek(time);
        assert_eq!(t.time(), time);
        states.push(state(&t));
    }
    for (i, time) in [3003, 123, 1999, 0, 777].into_iter().enumerate() {
        t.seek(time);
        let want = [0, 123, 777, 1999, 3003].iter().position(|&x| x == time).unwrap();
        assert_eq!(state(&t), states[want], "seek #{i} to {time}");
    }
    // One core steps back and forth.
    t.seek(2000);
    let core1 = t.machine.cores[1].cpu.steps();
    let before = state(&t);
    assert_eq!(t.reverse_step(1), Arrival::Reached);
    assert_eq!(t.machine.cores[1].cpu.steps(), core1 - 1);
    t.forward(Motion { core_steps: Some((1, core1)), ..Motion::default() });
    assert_eq!(t.machine.cores[1].cpu.steps(), core1);
    assert_eq!(state(&t)[3..6], before[3..6], "core 1's registers as before");
    let path = t.path(1, 8);
    assert_eq!(path.len(), 8);
    assert_eq!(path.last().unwrap().steps, core1 - 1);
    assert!(path.iter().all(|p| (BASE..BASE + 30).contains(&p.pc)), "{path:?}");
}

#[test]
fn watchpoints_name_the_store_and_run_backwards() {
    let mut t = Timeline::new(machine(Engine::JIT));
    t.set_snapshots(400, usize::MAX);
    t.watches.push(Watch { core: 0, addr: COUNTERS + 4, len: 4 });
    let watch = Motion { watches: true, ..Motion::default() };
    for n in 1..=3u32 {
        let arrival = t.forward(watch);
        let Arrival::Watch { core, pc, index, old, new } = arrival else { panic!("{arrival:?}") };
        assert_eq!((core, pc, index), (1, STORE_PC, 0));
        assert_eq!((old, new), ((n - 1).to_le_bytes().to_vec(), n.to_le_bytes().to_vec()));
        // Just after the store.
        assert_eq!(t.machine.cores[1].cpu.pc, STORE_PC + 3);
    }
    t.seek(2500);
    let counter = word(&t.machine, COUNTERS + 4);
    let arrival = t.reverse(watch);
    let Arrival::Watch { core: 1, new, .. } = arrival else { panic!("{arrival:?}") };
    // Lands before the store that wrote the value it had.
    assert_eq!(new, counter.to_le_bytes().to_vec());
    assert_eq!(t.machine.cores[1].cpu.pc, STORE_PC);
    assert_eq!(word(&t.machine, COUNTERS + 4), counter - 1);
    // Backwards past the first store: the start.
    t.watches.clear();
    assert_eq!(t.reverse(watch), Arrival::Start);
    assert_eq!(t.time(), 0);
}

#[test]
fn reverse_continue_finds_the_previous_breakpoint_and_the_run_ends_as_a_plain_one() {
    let mut plain = machine(Engine::JIT);
    assert_eq!(plain.run(), RunEnd::Exited);
    let mut t = Timeline::new(machine(Engine::JIT));
    t.set_snapshots(300, usize::MAX);
    t.add_breakpoint(0, STORE_PC);
    let stop = Motion { breakpoints: true, ..Motion::default() };
    let mut times = Vec::new();
    for _ in 0..5 {
        t.forward(stop);
        times.push(t.time());
    }
    t.forward(Motion { total_steps: Some(2000), ..Motion::default() });
    let at = t.time();
    assert_eq!(t.reverse(stop), Arrival::Breakpoint { core: 0, pc: STORE_PC });
    assert!(t.time() < at);
    let a5 = t.machine.cores[0].cpu.reg(5);
    // Continuing from there runs the store first, then stops at the next.
    assert_eq!(t.forward(stop), Arrival::Breakpoint { core: 0, pc: STORE_PC });
    assert_eq!(t.machine.cores[0].cpu.reg(5), a5 + 1);
    // Back from the fifth hit: the fourth.
    t.seek(times[4]);
    t.machine.cores[0].set_hook_reported(true);
    assert_eq!(t.reverse(stop), Arrival::Breakpoint { core: 0, pc: STORE_PC });
    assert_eq!(t.time(), times[3]);
    t.remove_breakpoint(0, STORE_PC);
    assert_eq!(t.forward(stop), Arrival::Ended(RunEnd::Exited));
    let want = [plain.cores[0].cpu.steps(), plain.cores[1].cpu.steps(), 1000, 1100];
    assert_eq!(state(&t)[6..], want[..]);
    let (count, bytes) = t.snapshot_memory();
    assert!(count >= 2 && bytes > 0, "{count} snapshots, {bytes} bytes");
}

#[test]
fn a_counters_origin_is_its_store_then_the_add_that_computed_it() {
    use q7_sim::debug::Link;
    let mut t = Timeline::new(machine(Engine::JIT));
    t.set_snapshots(500, usize::MAX);
    t.seek(1800);
    let counter = word(&t.machine, COUNTERS + 4);
    let links = t.origin(0, COUNTERS + 4, 4, 8);
    assert_eq!(t.time(), 1800, "origin comes back to where it was asked");
    assert_eq!(
        links,
        [
            Link::Stored { core: 1, pc: STORE_PC, addr: COUNTERS + 4, size: 4 },
            Link::Computed { core: 1, pc: STORE_PC - 3 },
        ],
        "counter {counter}"
    );
    // Bytes no core wrote.
    assert_eq!(t.origin(0, COUNTERS + 64, 4, 8), [Link::Unwritten { addr: COUNTERS + 64, size: 4 }]);
}
