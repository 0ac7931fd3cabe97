//! Simulated instructions per second of q7's ISS against QEMU's TCG on the
//! same ELF files (tests/programs/, built for a QEMU sample board by
//! tests/programs/build.sh: clang-22, llvm-mc-22, GNU ld):
//!
//! | row | program | what it stresses |
//! |---|---|---|
//! | register loop | spin.S (de212) | a zero-overhead loop of six ALU ops |
//! | float streaming | relu.c (de233_fpu) | relu over 4M floats in memory, 4 passes |
//! | windowed calls | calls.c (de212) | deep recursion, window spills and refills |
//! | integer sort | sort.c (de212) | quicksort of 1M words |
//!
//! `cargo bench -p q7-sim` prints, per row and q7 engine (interpreter, JIT),
//! both rates and their ratio.
//! QEMU has no instruction counter without TCG plugins (Debian ships none),
//! so both rates divide q7's instruction count (the same program, checked by
//! the same exit code) by each simulator's time. QEMU's time is the wall time
//! of its process minus that of an empty program (hello.c), i.e. without its
//! start-up; q7's is the in-process load and run. Each time is the best of
//! [`RUNS`] runs (the machine is shared; the best run is the least disturbed).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use q7_sim::bare::{self, Board};
use q7_sim::jit::Engine;
use q7_sim::machine::{RunEnd, RunLimits};

/// Runs per program and simulator; the best time counts.
const RUNS: usize = 3;

/// Each row runs under both back ends.
const ENGINES: [(&str, Engine); 2] = [("interp", Engine::Interp), ("jit", Engine::JIT)];

/// Iterations of spin.S's six-instruction loop.
const SPIN_ITERATIONS: u64 = 200_000_000;

struct Row {
    title: &'static str,
    board: &'static str,
    source: &'static str,
}

const ROWS: [Row; 4] = [
    Row { title: "register loop", board: "de212", source: "spin.S" },
    Row { title: "float streaming (relu, 4M floats)", board: "de233_fpu", source: "relu.c" },
    Row { title: "windowed calls (deep recursion)", board: "de212", source: "calls.c" },
    Row { title: "integer sort (1M words)", board: "de212", source: "sort.c" },
];

fn build(out: &Path, board: &str, source: &str) -> Option<PathBuf> {
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let status = Command::new("bash")
        .arg(programs.join("build.sh"))
        .arg(out)
        .arg(board)
        .arg(programs.join(source))
        .env("ASFLAGS", format!("-DSPIN_ITERATIONS={SPIN_ITERATIONS}"))
        .stdout(Stdio::null())
        .status()
        .ok()?;
    let stem = source.rsplit_once('.').map_or(source, |(stem, _)| stem);
    status.success().then(|| out.join(format!("{stem}.{board}-O2.elf")))
}

fn board(name: &str) -> Board {
    match name {
        "de233_fpu" => Board::de233_fpu(),
        _ => Board::de212(),
    }
}

/// Wall time and exit code of one QEMU run.
fn qemu(board: &str, elf: &Path) -> Option<(f64, Option<i32>)> {
    let started = Instant::now();
    let status = Command::new("qemu-system-xtensa")
        .args(["-M", "sim", "-cpu", board, "-semihosting", "-nographic", "-monitor", "none", "-kernel"])
        .arg(elf)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    Some((started.elapsed().as_secs_f64(), status.code()))
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let Some(hello) = build(dir.path(), "de212", "hello.c") else {
        println!("iss_speed: cannot build tests/programs (clang-22, llvm-mc-22, xtensa-lx106-elf-ld): run scripts/bootstrap.sh");
        return;
    };
    // QEMU's start-up, subtracted from its times below (best of three).
    let startup = (0..3).filter_map(|_| qemu("de212", &hello)).map(|(secs, _)| secs).fold(f64::INFINITY, f64::min);
    if startup.is_finite() {
        println!("QEMU start-up (empty program): {:.3} s, subtracted from QEMU's times", startup);
    }
    for row in &ROWS {
        let Some(elf) = build(dir.path(), row.board, row.source) else {
            println!("{}: cannot build {}", row.title, row.source);
            continue;
        };
        let bytes = std::fs::read(&elf).expect("read ELF");
        let qemu_runs: Vec<_> = (0..RUNS).filter_map(|_| qemu(row.board, &elf)).collect();
        let best = qemu_runs.iter().copied().min_by(|a, b| a.0.total_cmp(&b.0));
        for (engine_name, engine) in ENGINES {
            let limits = RunLimits { max_insns: 20 * SPIN_ITERATIONS * 6, engine, ..RunLimits::default() };
            let mut q7_secs = f64::INFINITY;
            let mut last = None;
            for _ in 0..RUNS {
                let started = Instant::now();
                let run = bare::run(&board(row.board), &bytes, limits.clone()).expect("load ELF");
                q7_secs = q7_secs.min(started.elapsed().as_secs_f64());
                last = Some(run);
            }
            let run = last.expect("at least one run");
            assert_eq!(run.end, RunEnd::Exited, "{}: {:?}", row.title, run.stop.map(|s| s.to_string()));
            let q7_rate = run.insns as f64 / q7_secs / 1e6;
            let mut line = format!(
                "{}, {engine_name} ({} {}): q7 {} instructions in {q7_secs:.3} s = {q7_rate:.1} M instr/s",
                row.title, row.source, row.board, run.insns
            );
            match best {
                Some((secs, code)) if code == run.exit_code && qemu_runs.iter().all(|r| r.1 == code) => {
                    let secs = (secs - startup).max(1e-3);
                    let qemu_rate = run.insns as f64 / secs / 1e6;
                    line += &format!(
                        "; QEMU {secs:.3} s = {qemu_rate:.1} M instr/s; q7/QEMU = {:.2}x",
                        q7_rate / qemu_rate
                    );
                }
                Some((_, code)) => {
                    line += &format!("; QEMU exited with {code:?}, q7 with {:?}: not comparable", run.exit_code)
                }
                None => line += "; qemu-system-xtensa not found: run scripts/bootstrap.sh",
            }
            println!("{line}");
        }
    }
}
