//! The engine differential test: every program of tests/programs (both
//! boards, -O2 and -O0 where they build for it, the exception cases of
//! traps.c) runs under the interpreter and under the JIT (compiling every
//! block on its second run, or its first for the short exception cases, so
//! nearly all code runs compiled); output, exit
//! code, instruction and cycle counts, the final architectural state and all
//! memory must be identical.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use q7_sim::bare::{self, Board};
use q7_sim::jit::Engine;
use q7_sim::machine::{CoreState, RunEnd, RunLimits};
use q7_sim::zeroed::ZeroedBytes;

/// What a run leaves behind.
#[derive(Debug, PartialEq)]
struct Final {
    end: RunEnd,
    state: CoreState,
    stdout: String,
    stderr: String,
    pc: u32,
    ar: [u32; 16],
    windowbase: u32,
    windowstart: u32,
    ps: u32,
    sar: u32,
    loop_regs: (u32, u32, u32),
    br: u32,
    fr: [u32; 16],
    fcr_fsr: (u32, u32),
    exception_regs: (u32, u32, u32),
    insns: u64,
    cycles: u64,
    exceptions: u64,
    memory: Memory,
}

/// Every memory region (base, bytes), compared whole: a compare is a
/// memcmp, where hashing each run's 128 MiB cost most of this test's time.
struct Memory(Vec<(u32, ZeroedBytes)>);

impl PartialEq for Memory {
    fn eq(&self, other: &Memory) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(&other.0).all(|((base, a), (other_base, b))| base == other_base && a[..] == b[..])
    }
}

impl Memory {
    /// Where two memories that are not equal first differ.
    fn first_difference(&self, other: &Memory) -> String {
        for ((base, a), (other_base, b)) in self.0.iter().zip(&other.0) {
            if base != other_base || a.len() != b.len() {
                return format!("region {base:#x} ({} bytes) against {other_base:#x} ({} bytes)", a.len(), b.len());
            }
            if let Some(i) = a.iter().zip(b.iter()).position(|(x, y)| x != y) {
                return format!("address {:#x}: {:#04x} against {:#04x}", u64::from(*base) + i as u64, a[i], b[i]);
            }
        }
        format!("{} regions against {}", self.0.len(), other.0.len())
    }
}

/// Sizes only: the bytes would be hundreds of megabytes of text.
impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|(base, data)| format!("{base:#x}: {} bytes", data.len()))).finish()
    }
}

/// A run's final state, and the blocks and regions the JIT compiled.
fn run(board: &Board, elf: &[u8], engine: Engine) -> (Final, (u64, u64)) {
    let mut m = bare::load(board, elf).expect("load ELF");
    m.limits = RunLimits { max_insns: 400_000_000, wall: Duration::from_secs(120), engine, ..RunLimits::default() };
    let end = m.run();
    let cpu = &m.cores[0].cpu;
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let done = Final {
        end,
        state: m.states[0].clone(),
        stdout: text(&m.output.stdout),
        stderr: text(&m.output.stderr),
        pc: cpu.pc,
        ar: cpu.ar,
        windowbase: cpu.windowbase,
        windowstart: cpu.windowstart,
        ps: cpu.ps,
        sar: cpu.sar,
        loop_regs: (cpu.lbeg, cpu.lend, cpu.lcount),
        br: cpu.br,
        fr: cpu.fr,
        fcr_fsr: (cpu.fcr, cpu.fsr),
        exception_regs: (cpu.epc1, cpu.exccause, cpu.excvaddr),
        insns: cpu.insns,
        cycles: cpu.cycles,
        exceptions: cpu.exceptions,
        memory: Memory(m.mem.regions.iter_mut().map(|r| (r.base, std::mem::take(&mut r.data))).collect()),
    };
    (done, (m.cores[0].blocks_compiled(), m.cores[0].regions_compiled()))
}

/// Builds `sources` for `board` at `opt` with extra C flags into `out`.
fn build(out: &Path, board: &str, opt: &str, cflags: &str, sources: &[&str]) -> PathBuf {
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let dir = out.join(format!("{board}-O{opt}"));
    let status = Command::new("bash")
        .arg(programs.join("build.sh"))
        .arg(&dir)
        .arg(board)
        .args(["-O", opt])
        .args(sources.iter().map(|s| programs.join(s)))
        .env("CFLAGS", cflags)
        .stdout(Stdio::null())
        .status()
        .expect("run build.sh (clang-22, llvm-mc-22, GNU ld: scripts/bootstrap.sh)");
    assert!(status.success(), "build.sh {board} -O{opt} failed");
    dir
}

/// Runs one ELF under both engines and compares everything; the regions
/// the JIT compiled.
fn agree(board: &Board, elf: &[u8], what: &str, hot: u32) -> (Final, u64) {
    let (interp, _) = run(board, elf, Engine::Interp);
    let (jit, (compiled, regions)) = run(board, elf, Engine::Jit { hot });
    assert!(compiled > 0, "{what}: the JIT compiled nothing");
    if jit.memory != interp.memory {
        panic!(
            "{what}: the engines' memory differs (JIT against interpreter) first at {}",
            jit.memory.first_difference(&interp.memory)
        );
    }
    assert_eq!(jit, interp, "{what}: the engines differ");
    (interp, regions)
}

fn run_all(board_name: &str, board: &Board, opts: &[&str], sources: &[&str]) -> Vec<Final> {
    let out = tempfile::tempdir().expect("temp dir");
    // Small sizes of the benchmark programs keep the debug build quick.
    let cflags = "-DSORT_ELEMENTS=20000 -DRELU_ELEMENTS=65536";
    let mut results = Vec::new();
    let mut regions = 0;
    for opt in opts {
        let dir = build(out.path(), board_name, opt, cflags, sources);
        for source in sources {
            let stem = source.rsplit_once('.').map_or(*source, |(stem, _)| stem);
            let elf = std::fs::read(dir.join(format!("{stem}.{board_name}-O{opt}.elf"))).expect("read ELF");
            let what = format!("{source} ({board_name} -O{opt})");
            let (done, compiled) = agree(board, &elf, &what, 1);
            assert!(matches!(done.end, RunEnd::Exited), "{what}: {:?}", done.state);
            results.push(done);
            regions += compiled;
        }
    }
    assert!(regions > 0, "{board_name}: no program ran a compiled region");
    results
}

#[test]
fn de212_programs_agree_under_both_engines() {
    let sources = ["hello.c", "integer.c", "windows.c", "loops.c", "memory.c", "stackargs.c", "sort.c", "spin.S"];
    run_all("de212", &Board::de212(), &["2", "0"], &sources);
    // atomic.c does not link at -O0 (clang places a literal after its use).
    run_all("de212", &Board::de212(), &["2"], &["calls.c", "atomic.c"]);
    // Region attributes checked on every access once a program sets them.
    run_all("de212", &Board::de212(), &["2"], &["regions.c"]);
}

#[test]
fn de233_fpu_programs_agree_under_both_engines() {
    // paging.c: the MMU translating once the program maps pages.
    let sources = ["fp.c", "fpdiv.c", "atomic.c", "relu.c", "memory.c", "paging.c"];
    run_all("de233_fpu", &Board::de233_fpu(), &["2"], &sources);
}

#[test]
fn self_modifying_code_agrees_in_one_turn() {
    // smc.c's compiled loop stores into a function on a page that first
    // holds decoded code after the loop was compiled: in one turn (no new
    // Core::run to refresh the JIT's page table), the stores after that must
    // take the code-coherent path (without the refresh after decoding, the
    // JIT printed 14800d87).
    let out = tempfile::tempdir().expect("temp dir");
    let dir = build(out.path(), "de212", "2", "", &["smc.c"]);
    let elf = std::fs::read(dir.join("smc.de212-O2.elf")).expect("read ELF");
    let outputs = [Engine::Interp, Engine::Jit { hot: 1 }].map(|engine| {
        let mut m = bare::load(&Board::de212(), &elf).expect("load ELF");
        m.limits = RunLimits { max_insns: 10_000_000, quantum: 1 << 40, engine, ..RunLimits::default() };
        assert_eq!(m.run(), RunEnd::Exited, "{engine:?}");
        (String::from_utf8_lossy(&m.output.stdout).into_owned(), m.cores[0].cpu.insns)
    });
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0].0, "smc d81115f2\n");
}

/// The exception cases of traps.c (its `which` word patched), and the
/// faulting cases of atomic.c: exits through guest exception handlers.
#[test]
fn exceptions_agree_under_both_engines() {
    let out = tempfile::tempdir().expect("temp dir");
    for (board_name, board, source, cases) in [
        ("de212", Board::de212(), "traps.c", 0..8),
        ("de212", Board::de212(), "atomic.c", 1..5),
        ("de233_fpu", Board::de233_fpu(), "fpdiv.c", 1..3),
    ] {
        let dir = build(out.path(), board_name, "2", "", &[source]);
        let stem = source.trim_end_matches(".c");
        let bytes = std::fs::read(dir.join(format!("{stem}.{board_name}-O2.elf"))).expect("read ELF");
        let file = q7_elf::ElfFile::parse(&bytes).expect("parse");
        let which = file.symbols().expect("symbols").into_iter().find(|s| s.name == "which").expect("`which`");
        let offset = file.vaddr_to_offset(which.value).expect("`which` has file bytes") as usize;
        for case in cases {
            let mut patched = bytes.clone();
            patched[offset..offset + 4].copy_from_slice(&(case as u32).to_le_bytes());
            // Compiled on first sight: these runs are short.
            agree(&board, &patched, &format!("{source} case {case} ({board_name})"), 0);
        }
    }
}

/// Where `Core::run` hands back when its budget runs out, for budgets of
/// `quantum`: (instructions, pc) after every call. Multi-core schedules
/// (and so races and their findings) depend on these, so compiled regions
/// must stop exactly where the interpreter does. Simcalls are answered
/// just enough for the programs to run on.
fn slices(board: &Board, elf: &[u8], engine: Engine, quantum: u64) -> (Vec<(u64, u32)>, u64) {
    let mut m = bare::load(board, elf).expect("load ELF");
    let mut compiler = None;
    m.cores[0].set_engine(engine, &mut compiler).expect("engine");
    let core = &mut m.cores[0];
    let mut seen = Vec::new();
    while core.cpu.steps() < 200_000_000 {
        match core.run(&mut m.mem, quantum) {
            q7_sim::cpu::Event::Budget => seen.push((core.cpu.steps(), core.cpu.pc)),
            q7_sim::cpu::Event::Simcall if core.cpu.reg(2) == q7_sim::machine::sys::EXIT => break,
            q7_sim::cpu::Event::Simcall => {
                let written = core.cpu.reg(5);
                core.cpu.set_reg(2, written);
                core.cpu.set_reg(3, 0);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    (seen, core.regions_compiled())
}

#[test]
fn compiled_regions_stop_for_budgets_where_the_interpreter_does() {
    let out = tempfile::tempdir().expect("temp dir");
    // windows.c: regions that call, enter and return (the window rotating
    // inside compiled code) stop where the interpreter does too.
    let sources = ["loops.c", "sort.c", "windows.c"];
    let dir = build(out.path(), "de212", "2", "-DSORT_ELEMENTS=3000", &sources);
    for source in sources {
        let stem = source.trim_end_matches(".c");
        let elf = std::fs::read(dir.join(format!("{stem}.de212-O2.elf"))).expect("read ELF");
        for quantum in [7, 100, 1009] {
            let (interp, _) = slices(&Board::de212(), &elf, Engine::Interp, quantum);
            let (jit, regions) = slices(&Board::de212(), &elf, Engine::Jit { hot: 1 }, quantum);
            assert!(regions > 0, "{source}: no region compiled");
            assert!(interp.len() > 10, "{source}: too short to test");
            assert_eq!(jit.len(), interp.len(), "{source}, quantum {quantum}: slice count");
            let first = jit.iter().zip(&interp).position(|(a, b)| a != b);
            assert_eq!(first, None, "{source}, quantum {quantum}: slices differ from slice {first:?}");
        }
    }
}
