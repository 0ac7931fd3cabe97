//! The ISS on hand-assembled code (q7-isa's encoder) on a Vision-Q7 core
//! with the built-in firmware: the reports a fault gives, the firmware's
//! window handlers, zero-overhead loops split by the budget, code that
//! rewrites itself, and the stack guard.

use q7_isa::{encode, Insn, Opcode, Operand};
use q7_sim::config::CoreConfig;
use q7_sim::cpu::{StackGuard, Stop};
use q7_sim::firmware;
use q7_sim::machine::{CoreState, Machine, RunEnd};
use q7_sim::mem::{Memory, Perms, RegionKind};
use q7_sim::output::OutputMode;

use Opcode as O;
use Operand::{Ar, Imm, Sr, Target};

const BASE: u32 = 0x8400_0000;
const STACK: u32 = BASE + 0x1f_f000;

/// Assembles `code` at `at`. A `Target` operand below 0x1000 is the index
/// of an instruction of `code`; above, an absolute address.
pub(super) fn assemble(at: u32, code: &[(Opcode, Vec<Operand>)]) -> Vec<u8> {
    let mut pcs = Vec::new();
    let mut pc = at;
    for (op, operands) in code {
        pcs.push(pc);
        pc += u32::from(Insn::new(*op, pc, operands).unwrap().len);
    }
    pcs.push(pc);
    let mut bytes = Vec::new();
    for (i, (op, operands)) in code.iter().enumerate() {
        let resolved: Vec<Operand> = operands
            .iter()
            .map(|o| match *o {
                Target(index) if index < 0x1000 => Target(pcs[index as usize]),
                other => other,
            })
            .collect();
        let insn = Insn::new(*op, pcs[i], &resolved).unwrap();
        bytes.extend_from_slice(&encode(&insn).unwrap_or_else(|e| panic!("{op:?}: {e}")));
    }
    bytes
}

fn machine(code: &[u8]) -> Machine {
    let mut mem = Memory::new(1);
    mem.add_region("vectors", RegionKind::Vectors, 0, 0x1000, Perms::RX, None);
    mem.host_write(0, &firmware::vector_block()).unwrap();
    mem.add_region("core 0 window", RegionKind::Window { core: 0 }, BASE, 0x20_0000, Perms::RWX, None);
    mem.host_write(BASE, code).unwrap();
    let mut m = Machine::new(mem, &CoreConfig::vision_q7(), 1, OutputMode { prefix: false, stream: false });
    m.cores[0].cpu.pc = BASE;
    m.cores[0].cpu.set_reg(1, STACK);
    m
}

fn exit_with(reg: u8) -> Vec<(Opcode, Vec<Operand>)> {
    vec![(O::MovN, vec![Ar(3), Ar(reg)]), (O::Movi, vec![Ar(2), Imm(1)]), (O::Simcall, vec![])]
}

fn stopped(m: &Machine) -> &Stop {
    match &m.states[0] {
        CoreState::Stopped(stop) => stop,
        other => panic!("expected a stop, got {other:?}"),
    }
}

#[test]
fn recursion_deeper_than_the_register_file_uses_the_firmware_handlers() {
    // f(n) = n == 0 ? 0 : f(n - 1) + n with call8 frames, 100 deep: 800
    // registers of frames through a 64-register file. The outermost frame
    // calls with call4, as crt0's _start does: its spill (WindowOverflow4)
    // does not read a caller's stack pointer, which it has none of.
    let f = BASE + 0x40;
    let mut image = assemble(BASE, &[(O::Movi, vec![Ar(6), Imm(100)]), (O::Call4, vec![Target(f)])]);
    let tail = BASE + image.len() as u32;
    image.extend(assemble(tail, &exit_with(6)));
    image.resize(0x40, 0);
    image.extend(assemble(
        f,
        &[
            (O::Entry, vec![Ar(1), Imm(32)]),
            (O::Beqz, vec![Ar(2), Target(5)]),
            (O::Addi, vec![Ar(10), Ar(2), Imm(-1)]),
            (O::Call8, vec![Target(f)]),
            (O::Add, vec![Ar(2), Ar(10), Ar(2)]),
            (O::RetwN, vec![]),
        ],
    ));
    let mut m = machine(&image);
    let end = m.run();
    assert_eq!(end, RunEnd::Exited, "{:?}", m.states[0]);
    assert_eq!(m.states[0], CoreState::Exited(5050));
    // Every frame was spilled and refilled by the firmware: 100 calls and
    // returns plus 9-instruction handlers for most of them.
    assert!(m.cores[0].cpu.insns > 100 * 6 + 80 * 18, "{}", m.cores[0].cpu.insns);
}

#[test]
fn faults_are_reported_with_address_and_region_map() {
    let code = assemble(
        BASE,
        &[
            (O::Movi, vec![Ar(4), Imm(1024)]),
            (O::Slli, vec![Ar(4), Ar(4), Imm(2)]),
            (O::L32i, vec![Ar(5), Ar(4), Imm(0)]),
        ],
    );
    let mut m = machine(&code);
    assert_eq!(m.run(), RunEnd::Fault(0));
    let text = stopped(&m).to_string();
    let expected = "4-byte load from 0x00001000: the access runs past the end of vectors (0x00000000..0x00001000)";
    assert_eq!(text, format!("memory fault at pc {:#010x}: {expected}", BASE + 6));
    let code = assemble(BASE, &[(O::Movi, vec![Ar(4), Imm(-4)]), (O::S32i, vec![Ar(5), Ar(4), Imm(0)])]);
    let mut m = machine(&code);
    m.run();
    assert!(
        stopped(&m).to_string().ends_with("4-byte store to 0xfffffffc: nothing is mapped there"),
        "{}",
        stopped(&m)
    );
    assert!(m.mem.describe_map(0).contains("0x84000000..0x84200000 rwx core 0 window"));

    let code = assemble(BASE, &[(O::Movi, vec![Ar(4), Imm(0x102)]), (O::L32i, vec![Ar(5), Ar(4), Imm(0)])]);
    let mut m = machine(&code);
    m.run();
    assert_eq!(stopped(&m).to_string(), format!("unaligned 4-byte load from 0x00000102 at pc {:#010x}", BASE + 3));

    let code = assemble(
        BASE,
        &[(O::Movi, vec![Ar(4), Imm(0)]), (O::Movi, vec![Ar(5), Imm(7)]), (O::Quou, vec![Ar(6), Ar(5), Ar(4)])],
    );
    let mut m = machine(&code);
    m.run();
    assert_eq!(stopped(&m).to_string(), format!("integer divide by zero at pc {:#010x}", BASE + 6));

    let mut m = machine(&[0x0f, 0x00, 0x00, 0x00]);
    m.run();
    assert!(stopped(&m).to_string().starts_with("illegal instruction at 0x84000000 (bytes 0f"), "{}", stopped(&m));

    let mut m = machine(&assemble(BASE, &[(O::Break, vec![Imm(1), Imm(2)])]));
    m.run();
    assert_eq!(stopped(&m).to_string(), "breakpoint `break 1, 2` at pc 0x84000000");

    // PRID is read-only and is the core id; wsr to it is not an instruction.
    let code = assemble(BASE, &[(O::Rsr, vec![Ar(7), Sr(235)])]);
    let mut code = code;
    code.extend(assemble(BASE + 3, &exit_with(7)));
    let mut m = machine(&code);
    m.run();
    assert_eq!(m.states[0], CoreState::Exited(0));
}

#[test]
fn zero_overhead_loops_survive_any_budget_split() {
    // a3 = sum of a6 * k for 1000 iterations, with a load in the body.
    let code = assemble(
        BASE,
        &[
            (O::Movi, vec![Ar(2), Imm(1000)]),     // 0
            (O::Movi, vec![Ar(3), Imm(0)]),        // 1
            (O::Movi, vec![Ar(6), Imm(3)]),        // 2
            (O::Loop, vec![Ar(2), Target(7)]),     // 3
            (O::L32i, vec![Ar(7), Ar(8), Imm(0)]), // 4 (a zero word)
            (O::Add, vec![Ar(3), Ar(3), Ar(6)]),   // 5
            (O::Add, vec![Ar(3), Ar(3), Ar(7)]),   // 6
            (O::MovN, vec![Ar(3), Ar(3)]),         // 7
            (O::Movi, vec![Ar(2), Imm(1)]),        // 8
            (O::Simcall, vec![]),                  // 9
        ],
    );
    for quantum in [1, 2, 3, 7, 1000, 1_000_000] {
        let mut m = machine(&code);
        m.cores[0].cpu.set_reg(8, BASE + 0x800);
        m.limits.quantum = quantum;
        assert_eq!(m.run(), RunEnd::Exited);
        assert_eq!(m.states[0], CoreState::Exited(3000), "quantum {quantum}");
        assert_eq!(m.cores[0].cpu.insns, 4 + 3 * 1000 + 3, "quantum {quantum}");
    }
}

#[test]
fn stores_into_decoded_code_are_seen() {
    // The first pass runs `movi a3, 1`, then stores `movi a3, 2` over it and
    // jumps back: the second pass must run the new instruction.
    let data = 0x80u32;
    let mut image = assemble(
        BASE,
        &[
            (O::Movi, vec![Ar(3), Imm(1)]),                  // 0 (patched)
            (O::Bnez, vec![Ar(4), Target(6)]),               // 1
            (O::L32i, vec![Ar(5), Ar(8), Imm(data as i32)]), // 2
            (O::S32i, vec![Ar(5), Ar(8), Imm(0)]),           // 3
            (O::Movi, vec![Ar(4), Imm(1)]),                  // 4
            (O::J, vec![Target(0)]),                         // 5
            (O::MovN, vec![Ar(3), Ar(3)]),                   // 6
            (O::Movi, vec![Ar(2), Imm(1)]),                  // 7
            (O::Simcall, vec![]),                            // 8
        ],
    );
    let patched = encode(&Insn::new(O::Movi, BASE, &[Ar(3), Imm(2)]).unwrap()).unwrap();
    let word = [patched[0], patched[1], patched[2], image[3]];
    image.resize(data as usize, 0);
    image.extend_from_slice(&word);
    let mut m = machine(&image);
    m.cores[0].cpu.set_reg(8, BASE);
    assert_eq!(m.run(), RunEnd::Exited);
    assert_eq!(m.states[0], CoreState::Exited(2));
}

#[test]
fn stack_growing_into_bss_is_reported() {
    // Each frame takes 1 KiB; the guard puts the end of .bss 64 KiB below the stack.
    let code = assemble(BASE + 0x100, &[(O::Entry, vec![Ar(1), Imm(1024)]), (O::Call4, vec![Target(0)])]);
    let mut image = vec![0u8; 0x100];
    image.extend(code);
    let mut m = machine(&image);
    let start = BASE + 0x100;
    let cpu = &mut m.cores[0].cpu;
    cpu.pc = start;
    cpu.ps |= 1 << 16; // as after a call4
    cpu.set_reg(4, 1 << 30 | (BASE & 0x3fff_ffff));
    cpu.stack_guard = Some(StackGuard { window_base: BASE, floor: STACK - 0x1_0000 });
    assert_eq!(m.run(), RunEnd::Fault(0));
    match stopped(&m) {
        Stop::StackOverflow { pc, sp, floor } => {
            assert_eq!((*pc, *floor), (start, STACK - 0x1_0000));
            assert!(*sp < *floor);
        }
        other => panic!("{other}"),
    }
    assert!(stopped(&m).to_string().contains("below the end of .bss"));
}

#[test]
fn a_fault_inside_a_loop_body_stops_at_the_exact_iteration() {
    // a8 walks up from 8 bytes below the window's end: the third load faults.
    let code = assemble(
        BASE,
        &[
            (O::Movi, vec![Ar(2), Imm(1000)]),     // 0
            (O::Loop, vec![Ar(2), Target(4)]),     // 1
            (O::L32i, vec![Ar(7), Ar(8), Imm(0)]), // 2
            (O::Addi, vec![Ar(8), Ar(8), Imm(4)]), // 3
            (O::Movi, vec![Ar(2), Imm(1)]),        // 4
            (O::Simcall, vec![]),                  // 5
        ],
    );
    for quantum in [1, 5, 1_000_000] {
        let mut m = machine(&code);
        m.limits.quantum = quantum;
        m.cores[0].cpu.set_reg(8, BASE + 0x20_0000 - 8);
        assert_eq!(m.run(), RunEnd::Fault(0));
        let cpu = &m.cores[0].cpu;
        assert_eq!((cpu.pc, cpu.insns, cpu.lcount), (BASE + 6, 2 + 2 * 2, 999 - 2), "quantum {quantum}");
        assert!(stopped(&m).to_string().contains("4-byte load from 0x84200000"), "{}", stopped(&m));
    }
}

#[test]
fn the_call_stack_is_read_through_live_and_spilled_frames() {
    // main: call4 f(20); f(n): n == 0 ? spin : f(n - 1). 20 call8 frames
    // are 160 registers: most frames are spilled to their save areas by the
    // time the innermost spins, the rest are live in the register file. (The
    // outermost call is a call4, as crt0's: see the recursion test above.)
    let f = BASE + 0x40;
    let mut image = assemble(BASE, &[(O::Movi, vec![Ar(6), Imm(20)]), (O::Call4, vec![Target(f)])]);
    let main_call = BASE + 3;
    image.resize(0x40, 0);
    image.extend(assemble(
        f,
        &[
            (O::Entry, vec![Ar(1), Imm(32)]),
            (O::Beqz, vec![Ar(2), Target(5)]),
            (O::Addi, vec![Ar(10), Ar(2), Imm(-1)]),
            (O::Call8, vec![Target(f)]),
            (O::RetwN, vec![]),
            (O::J, vec![Target(5)]),
        ],
    ));
    let recursive_call = f + 3 + 3 + 3;
    let spin = f + 3 + 3 + 3 + 3 + 2;
    let mut m = machine(&image);
    m.limits.max_insns = 100_000;
    m.run();
    let cpu = &m.cores[0].cpu;
    assert_eq!(cpu.pc, spin);
    let stack = cpu.call_stack(&m.mem, 64);
    let pcs: Vec<u32> = stack.iter().map(|frame| frame.pc).collect();
    let mut expected = vec![spin];
    expected.extend(std::iter::repeat_n(recursive_call, 20));
    expected.push(main_call);
    assert_eq!(pcs, expected);
    // Each caller's stack pointer is 32 bytes above its callee's.
    for pair in stack[..21].windows(2) {
        assert_eq!(pair[1].sp, pair[0].sp + 32, "{stack:x?}");
    }
    assert_eq!(m.cores[0].cpu.call_stack(&m.mem, 5).len(), 5);
}
