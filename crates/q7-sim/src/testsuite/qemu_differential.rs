//! Differential tests: the same self-checking programs (tests/programs/,
//! built by tests/programs/build.sh with the open toolchain) run under
//! `qemu-system-xtensa -M sim -semihosting` and under q7's ISS configured
//! like the same sample core; exit codes and printed output must agree.
//!
//! Missing tools fail the tests with a pointer to scripts/bootstrap.sh.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use q7_sim::bare::{self, Board};
use q7_sim::jit::Engine;
use q7_sim::machine::{RunEnd, RunLimits};

const TOOLS: [&str; 4] = ["qemu-system-xtensa", "clang-22", "llvm-mc-22", "xtensa-lx106-elf-ld"];

fn require_tools() {
    for tool in TOOLS {
        let found = Command::new(tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
        assert!(found.is_ok(), "{tool} not found: run scripts/bootstrap.sh");
    }
}

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// Builds every program of `sources` for a board and optimisation level,
/// once per test process.
fn build(board: &str, opt: &str, sources: &[&str]) -> PathBuf {
    // Tests run in parallel threads; build.sh shares object files per board.
    static BUILDS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("temp dir"));
    let out = dir.path().join(format!("{board}-O{opt}"));
    let programs = programs_dir();
    for src in sources {
        let name = src.trim_end_matches(".c");
        let elf = out.join(format!("{name}.{board}-O{opt}.elf"));
        if elf.exists() {
            continue;
        }
        let status = Command::new("bash")
            .arg(programs.join("build.sh"))
            .arg(&out)
            .arg(board)
            .args(["-O", opt])
            .arg(programs.join(src))
            .stdout(Stdio::null())
            .status()
            .expect("run build.sh");
        assert!(status.success(), "build.sh {board} -O{opt} {src} failed");
    }
    out
}

fn elf_path(dir: &Path, name: &str, board: &str, opt: &str) -> PathBuf {
    dir.join(format!("{name}.{board}-O{opt}.elf"))
}

/// Runs QEMU with a deadline; returns (exit code, stdout).
fn run_qemu(cpu: &str, elf: &Path) -> (i32, Vec<u8>) {
    run_qemu_with(cpu, elf, &[])
}

/// [`run_qemu`] with more QEMU arguments.
fn run_qemu_with(cpu: &str, elf: &Path, extra: &[&str]) -> (i32, Vec<u8>) {
    let mut child = Command::new("qemu-system-xtensa")
        .args(["-M", "sim", "-cpu", cpu, "-semihosting", "-nographic", "-monitor", "none"])
        .args(extra)
        .arg("-kernel")
        .arg(elf)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start qemu-system-xtensa (run scripts/bootstrap.sh)");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut buf).ok();
        buf
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for qemu") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("qemu timed out on {}", elf.display());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (status.code().unwrap_or(-1), reader.join().expect("reader"))
}

fn board(cpu: &str) -> Board {
    match cpu {
        "de233_fpu" => Board::de233_fpu(),
        _ => Board::de212(),
    }
}

/// Runs the program under each engine (the JIT compiling every block on
/// its second run); they must agree with each other, to the instruction
/// and cycle counts, before either is compared with QEMU.
fn run_iss(cpu: &str, elf_bytes: &[u8]) -> (i32, Vec<u8>) {
    let mut results = [Engine::Interp, Engine::Jit { hot: 1 }].map(|engine| {
        let limits =
            RunLimits { max_insns: 500_000_000, wall: Duration::from_secs(60), engine, ..RunLimits::default() };
        let run = bare::run(&board(cpu), elf_bytes, limits).expect("load into the ISS");
        assert_eq!(run.end, RunEnd::Exited, "{engine:?} did not exit cleanly: {:?}", run.stop.map(|s| s.to_string()));
        (run.exit_code.expect("exit code"), run.stdout, run.insns, run.cycles)
    });
    let [interp, jit] = &mut results;
    assert_eq!(String::from_utf8_lossy(&jit.1), String::from_utf8_lossy(&interp.1), "JIT output differs");
    assert_eq!((jit.0, jit.2, jit.3), (interp.0, interp.2, interp.3), "JIT (exit code, insns, cycles) differ");
    (interp.0, std::mem::take(&mut interp.1))
}

/// Runs `name` under both and compares; returns the shared exit code.
fn compare(cpu: &str, opt: &str, name: &str, sources: &[&str]) -> (i32, String) {
    compare_with(cpu, opt, name, sources, &[])
}

/// [`compare`] with more QEMU arguments (`-icount` for timing).
fn compare_with(cpu: &str, opt: &str, name: &str, sources: &[&str], qemu: &[&str]) -> (i32, String) {
    require_tools();
    let dir = build(cpu, opt, sources);
    let elf = elf_path(&dir, name, cpu, opt);
    let (qemu_code, qemu_out) = run_qemu_with(cpu, &elf, qemu);
    let (iss_code, iss_out) = run_iss(cpu, &std::fs::read(&elf).expect("read ELF"));
    let qemu_text = String::from_utf8_lossy(&qemu_out).into_owned();
    let iss_text = String::from_utf8_lossy(&iss_out).into_owned();
    assert_eq!(iss_text, qemu_text, "{name} ({cpu} -O{opt}): output differs from QEMU");
    assert_eq!(iss_code, qemu_code, "{name} ({cpu} -O{opt}): exit code differs from QEMU");
    (iss_code, iss_text)
}

const DE212_PROGRAMS: [&str; 8] =
    ["hello.c", "integer.c", "windows.c", "loops.c", "memory.c", "traps.c", "spin.S", "stackargs.c"];

#[test]
fn hello_prints_and_exits() {
    let (code, out) = compare("de212", "2", "hello", &DE212_PROGRAMS);
    assert_eq!((code, out.as_str()), (3, "hello -42 beef\n"));
}

#[test]
fn integer_ops_match_qemu() {
    for opt in ["2", "0"] {
        let (code, out) = compare("de212", opt, "integer", &DE212_PROGRAMS);
        assert_eq!(code, 33);
        assert!(out.contains("intmin_div=-2147483648"), "{out}");
    }
}

#[test]
fn deep_windowed_calls_match_qemu() {
    // fib/ackermann/`wide` go far deeper than 32 physical registers, so the
    // overflow/underflow handlers and the Alloca path of movsp run; the exit
    // comes from 150 frames down.
    for opt in ["2", "0"] {
        let (code, out) = compare("de212", opt, "windows", &DE212_PROGRAMS);
        assert_eq!(code, 42);
        assert!(out.contains("ack36=509"), "{out}");
    }
}

#[test]
fn stack_arguments_after_spills_match_qemu() {
    // movsp moving the stack pointer up by 4 and 12 bytes while the caller's
    // frame is spilled: the save areas overlap.
    for opt in ["2", "0"] {
        let (code, out) = compare("de212", opt, "stackargs", &DE212_PROGRAMS);
        assert_eq!(code, 7, "{out}");
        assert!(out.starts_with("stackargs="), "{out}");
    }
}

#[test]
fn loops_match_qemu() {
    for opt in ["2", "0"] {
        assert_eq!(compare("de212", opt, "loops", &DE212_PROGRAMS).0, 5);
    }
}

#[test]
fn memory_access_matches_qemu() {
    for opt in ["2", "0"] {
        assert_eq!(compare("de212", opt, "memory", &DE212_PROGRAMS).0, 9);
    }
}

/// Runs program `name` with its `which` word patched to each case under
/// both, and checks output and exit code (`expected`) agree.
fn compare_patched(cpu: &str, opt: &str, name: &str, sources: &[&str], cases: &[(u32, i32)]) {
    require_tools();
    let dir = build(cpu, opt, sources);
    let bytes = std::fs::read(elf_path(&dir, name, cpu, opt)).expect("read ELF");
    let file = q7_elf::ElfFile::parse(&bytes).expect("parse");
    let which = file.symbols().expect("symbols").into_iter().find(|s| s.name == "which").expect("symbol `which`");
    let offset = file.vaddr_to_offset(which.value).expect("`which` has file bytes") as usize;
    for &(case, expected) in cases {
        let mut patched = bytes.clone();
        patched[offset..offset + 4].copy_from_slice(&case.to_le_bytes());
        let path = dir.join(format!("{name}-{case}.elf"));
        std::fs::write(&path, &patched).expect("write patched ELF");
        let (qemu_code, qemu_out) = run_qemu(cpu, &path);
        let (iss_code, iss_out) = run_iss(cpu, &patched);
        assert_eq!(iss_out, qemu_out, "{name} case {case}: output");
        assert_eq!((iss_code, qemu_code), (expected, expected), "{name} case {case}: exit codes");
    }
}

/// Patches the `which` word of traps.c and compares each exception.
#[test]
fn exceptions_match_qemu() {
    // 4 and 5: illegal retw (no call increment; the wrong one); 6 and 7: a
    // load and a store to unmapped memory.
    let cases = [(0, 0), (1, 70), (2, 73), (3, 64), (4, 64), (5, 64), (6, 79), (7, 79)];
    compare_patched("de212", "2", "traps", &DE212_PROGRAMS, &cases);
}

#[test]
fn register_only_loop_body_matches_qemu() {
    // The benchmark kernel: its loop body runs on the register-only path.
    let (code, out) = compare("de212", "2", "spin", &DE212_PROGRAMS);
    assert_eq!((code, out.as_str()), (45, ""));
}

#[test]
fn fp_matches_qemu_on_de233_fpu() {
    let (code, out) = compare("de233_fpu", "2", "fp", &["fp.c"]);
    assert_eq!(code, 11);
    assert!(out.contains("fcr_mask=127"), "{out}");
}

#[test]
fn fp_divide_and_sqrt_steps_match_qemu() {
    // The libgcc division and square-root sequences over edge and random
    // operands in all rounding modes, then each step alone: bit for bit,
    // FSR included (the checksum is QEMU's).
    let (code, out) = compare("de233_fpu", "2", "fpdiv", &["fpdiv.c"]);
    assert_eq!(code, 13);
    assert!(out.contains("\nsum 4abbcd68\n"), "{}", &out[out.len().saturating_sub(200)..]);
    assert!(out.lines().filter(|l| l.starts_with("d ")).count() > 4000, "every quotient printed");
    // recip0.s and rsqrt0.s: IllegalInstruction, as QEMU has no model.
    compare_patched("de233_fpu", "2", "fpdiv", &["fpdiv.c"], &[(1, 64), (2, 64)]);
}

#[test]
fn s32c1i_follows_atomctl_like_qemu() {
    // The reset policy, the writable bits, hits and misses under each
    // allowing policy; then LoadStoreError (67) where the bypass field is 0
    // and LoadStoreAlignment (73) for an unaligned word.
    for cpu in ["de212", "de233_fpu"] {
        let (code, out) = compare(cpu, "2", "atomic", &["atomic.c"]);
        assert_eq!(code, 21, "{out}");
        assert!(out.starts_with("atomctl_reset=40 0x28\natomctl_mask=63 0x3f\n"), "{out}");
        assert!(out.contains(" hit old=5 now=1234\n miss old=1234 now=1234\n"), "{out}");
        compare_patched(cpu, "2", "atomic", &["atomic.c"], &[(1, 67), (2, 67), (3, 73), (4, 67)]);
    }
}

#[test]
fn special_and_user_registers_match_qemu() {
    // rsr/wsr/xsr of all 256 special registers and rur/wur of all 256 user
    // registers: the ones a board lacks raise IllegalInstruction (resumed
    // by sysvec.inc); with CPENABLE = 0, rur/wur of FCR and FSR raise
    // Coprocessor0Disabled.
    let (code, out) = compare("de212", "2", "sregs", &["sregs.c"]);
    assert_eq!(code, 17, "{out}");
    assert!(out.contains("on rsr fffceff0 "), "{out}");
    let (code, out) = compare("de233_fpu", "2", "sregs", &["sregs.c"]);
    assert_eq!(code, 17, "{out}");
    assert!(out.contains("off rur 232 cause 32\noff wur 232 cause 32\n"), "{out}");
}

#[test]
fn fetch_from_unmapped_memory_matches_qemu() {
    // InstrPIFAddrError into the program, EPC1 and EXCVADDR the address.
    for cpu in ["de212", "de233_fpu"] {
        let (code, out) = compare(cpu, "2", "fetch", &["fetch.c"]);
        assert_eq!(code, 23, "{out}");
        assert!(out.starts_with("fetch 10000000: exceptions 1 cause 14 epc1 10000000 excvaddr 10000000\n"), "{out}");
    }
}

#[test]
fn cache_instructions_match_qemu() {
    // Every cache instruction on RAM and on an unmapped address: no-ops,
    // except the line-naming data-cache ones, which probe the address
    // (LoadStorePIFAddrError, resumed by sysvec.inc).
    for cpu in ["de212", "de233_fpu"] {
        let (code, out) = compare(cpu, "2", "cache", &["cache.c"]);
        assert_eq!(code, 19, "{out}");
        assert!(out.contains("\ndhwb ram:ok unmapped:1x cause 15\n"), "{out}");
        assert!(out.contains("\niii ram:ok unmapped:ok\n"), "{out}");
    }
}

#[test]
fn mac16_matches_qemu() {
    // Every MAC16 instruction over edge and pseudo-random operands and
    // accumulators (checksums per instruction), and LoadStoreAlignment
    // from an unaligned ldinc.
    for cpu in ["de212", "de233_fpu"] {
        let (code, out) = compare(cpu, "2", "mac16", &["mac16.c"]);
        assert_eq!(code, 29, "{out}");
        assert_eq!(out.lines().filter(|l| l.contains(" sum ")).count(), 70, "{out}");
        assert!(out.ends_with("unaligned ldinc: exceptions 1 cause 9 m3 4 ptr+1\n"), "{out}");
    }
}

/// QEMU's clock for the timing-dependent programs: one instruction per
/// nanosecond (the count q7's CCOUNT follows), and no real-time sleep in
/// `waiti`, which would make the time slept depend on the host.
const ICOUNT: [&str; 2] = ["-icount", "shift=0,sleep=off"];

#[test]
fn interrupts_and_timers_match_qemu() {
    // Software interrupts at levels 1 (user and kernel vector) and 3,
    // masking, rsil, EPCn/EPSn and
    // rfi, CCOUNT, CCOMPARE0..2 at levels 1, 3 and 5, waiti woken by a
    // timer; the timing in windows a cycle or two wide.
    for cpu in ["de212", "de233_fpu"] {
        let (code, out) = compare_with(cpu, "2", "irq", &["irq.c"], &ICOUNT);
        assert_eq!(code, 31, "{out}");
        let lines = ["kernel_vector=300", "l3_eps=20", "l3_ps=33", "masked_seq=0", "rsil0_seq=31", "waiti_slept=1"];
        for line in lines {
            assert!(out.contains(&format!("\n{line}\n")), "{line}: {out}");
        }
    }
}

#[test]
fn debug_exceptions_match_qemu() {
    // break/break.n below and at the debug level, ICOUNT wrapping at three
    // starting counts (where the exception lands, ICOUNT after), ICOUNT
    // counting, IBREAKA0 with IBREAKENABLE, DBREAK hits and misses on
    // every access kind.
    for cpu in ["de212", "de233_fpu"] {
        let (code, out) = compare(cpu, "2", "debug", &["debug.c"]);
        assert_eq!(code, 37, "{out}");
        for line in ["break_cause=8", "break_n_cause=10", "masked_break_seq=0", "icount_counted=c", "ibreak_cause=2"] {
            assert!(out.contains(&format!("\n{line}\n")), "{line}: {out}");
        }
        assert!(out.contains("icount fffffffc: seq=6 cause=1 at=9 icount=ffffffff\n"), "{out}");
        assert!(out.contains("\nstore_hit: seq=6 cause=104 epc_ok=1\nload_on_store_break: seq=0 "), "{out}");
        // s32c1i, ldinc/lddec (and a MAC16 op's load), dhwb.
        for hit in ["s32c1i_load", "s32c1i_store", "ldinc_hit", "lddec_hit", "mula_ldinc_hit", "dhwb_hit"] {
            assert!(out.contains(&format!("\n{hit}: seq=6 cause=4 epc_ok=1\n")), "{hit}: {out}");
        }
        for miss in ["s32c1i_other", "ldinc_store_break", "ldinc_other", "lddec_other", "dhwb_other"] {
            assert!(out.contains(&format!("\n{miss}: seq=0 cause=0 epc_ok=0\n")), "{miss}: {out}");
        }
    }
}

#[test]
fn region_protection_tlb_matches_qemu() {
    // de212's TLB instructions: reads and probes in every region, writes
    // per side, invalidation.
    let (code, out) = compare("de212", "2", "tlb", &["tlb.c"]);
    assert_eq!(code, 41, "{out}");
    assert!(out.starts_with("1234567: 0 2 0 2 1 1\n"), "{out}");
    assert!(out.contains("\n80000000: 80000000 80000001 80000000 8000000f 80000001 80000001\n"), "{out}");
}

#[test]
fn region_protection_rights_match_qemu() {
    // de212's region attributes restricting loads, stores and fetches
    // (all sixteen), before the bus error of a region without memory.
    let (code, out) = compare("de212", "2", "regions", &["regions.c"]);
    assert_eq!(code, 49, "{out}");
    for line in ["2 load rom 106 exc 0 0 0", "3 load rom 50000000 exc 1 28 50000000", "3 store 0 exc 1 29 80000010"] {
        assert!(out.contains(&format!("{line}\n")), "{line}: {out}");
    }
    for line in ["0 jump 0 exc 1 20 80000020", "3 jump 0 exc 1 14 80000020", "14 store 0 exc 1 15 80000010"] {
        assert!(out.contains(&format!("{line}\n")), "{line}: {out}");
    }
}

#[test]
fn mmu_tlb_instructions_match_qemu() {
    // de233_fpu's MMU TLBs: every way's entries at reset (way 6 the
    // identity map), writes in ways 1, 2, 4, 5, 7 and 9 read back and
    // probed (rings through RASID, a multi-hit's exception 25),
    // invalidation, the registers' masks and PTEVADDR as read.
    let (code, out) = compare("de233_fpu", "2", "mmu", &["mmu.c"]);
    assert_eq!(code, 45, "{out}");
    assert!(out.starts_with("reset 4030201 0 0 0\n"), "{out}");
    assert!(out.contains("\na0000006: 1 a0000003 1 a0000003 a000000e a0000016\n"), "{out}");
    assert!(out.contains("\n40003004: 0 0 40000001 50000001 4000300a dead exc 25 at v\n"), "{out}");
    assert!(out.ends_with("\nptevaddr 4030201 0 0 ffd00008\nitlbcfg 1130000 dtlbcfg 1130000\n"), "{out}");
}

#[test]
fn mmu_translation_matches_qemu() {
    // de233_fpu's MMU translating: ways 7..9 mapping data elsewhere, misses
    // with and without a page table, autorefill (the way it fills,
    // EXCVADDR), attributes refusing loads, stores and fetches, a
    // multi-hit access, calls through the ITLB, rings 0 and 1.
    let (code, out) = compare("de233_fpu", "2", "paging", &["paging.c"]);
    assert_eq!(code, 47, "{out}");
    for line in [
        "mapped store 11223344 exc 0 0 0",
        "miss 40005000 exc 1 24 40005000",
        "refill load cafe0001 exc 0 0 0",
        "refill excvaddr 40005024 exc 0 0 0",
        "way 2 vpn 40004002 exc 0 0 0",
        "store to attr 1 0 exc 1 29 40007004",
        "load attr 12 40008000 exc 1 28 40008000",
        "multi-hit 40001000 exc 1 25 40001000",
        "call mapped 5a5 exc 0 0 0",
        "call pte 0 fa1 exc 1 20 20011000",
        "call miss fa1 exc 1 16 20013000",
        " first 1a exc 2 1 40001014",
        "ring 0 call in ring 1 600d exc 2 1 20010000",
        " first 12 exc 2 1 20010000",
        "ring 1 call in ring 1 600d exc 1 1 20010000",
    ] {
        assert!(out.contains(&format!("{line}\n")), "{line}: {out}");
    }
}

#[test]
fn double_precision_matches_qemu() {
    // de233_fpu's DFP option: every double arithmetic, conversion and
    // compare over edge operands in all four rounding modes (checksums of
    // results and FSR), the step instructions, wfrd/rfrd, the high half
    // single ops leave, updating loads and stores, alignment, CPENABLE,
    // DBREAK on the double accesses.
    let (code, out) = compare("de233_fpu", "2", "dfp", &["dfp.c"]);
    assert_eq!(code, 43, "{out}");
    assert_eq!(out.lines().filter(|l| l.contains(" sum ")).count(), 160, "{out}");
    for line in ["wfrd 12345678 9abcdef0", "hi after wfr ffffffff bf800000", "hi after mov.s bf800000 deadbeef"] {
        assert!(out.contains(&format!("\n{line}\n")), "{line}: {out}");
    }
    assert!(out.contains("\ncp off: count cause 1 20\ncp off: cpenable 1 0\n"), "{out}");
    // DBREAK on the 8-byte loads and stores.
    assert!(out.contains("\ndbreak sdi byte 7: 6 4\n epc ok 1 0\n"), "{out}");
    assert!(out.ends_with("\ndbreak ldi next: 0 0\n epc ok 0 0\ndone\n"), "{out}");
}
