//! Simulated instructions per second of q7's ISS against QEMU's TCG on the
//! same compute-bound program: tests/programs/spin.S, a zero-overhead loop of
//! six multiply/xor/add instructions, built for the de212 board by
//! tests/programs/build.sh (clang-22, llvm-mc-22, GNU ld).
//!
//! `cargo bench -p q7-sim` prints both rates and their ratio. QEMU's rate is
//! the program's instruction count over the wall time of the whole
//! `qemu-system-xtensa` run (start-up included, so the loop is long). The ISS
//! runs the same ELF in-process with checks off (bare machines have none).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use q7_sim::bare::{self, Board};
use q7_sim::machine::{RunEnd, RunLimits};

const ITERATIONS: u64 = 200_000_000;
/// Loop instructions plus the few around it (counted by the ISS).
const LOOP_INSNS: u64 = 6 * ITERATIONS;

fn build(out: &Path) -> Option<std::path::PathBuf> {
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let status = Command::new("bash")
        .arg(programs.join("build.sh"))
        .arg(out)
        .arg("de212")
        .arg(programs.join("spin.S"))
        .env("ASFLAGS", format!("-DSPIN_ITERATIONS={ITERATIONS}"))
        .stdout(Stdio::null())
        .status()
        .ok()?;
    status.success().then(|| out.join("spin.de212-O2.elf"))
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let Some(elf) = build(dir.path()) else {
        println!("iss_speed: cannot build tests/programs/spin.S (clang-22, llvm-mc-22, xtensa-lx106-elf-ld): run scripts/bootstrap.sh");
        return;
    };
    let bytes = std::fs::read(&elf).expect("read spin ELF");

    let limits = RunLimits { max_insns: 10 * LOOP_INSNS, ..RunLimits::default() };
    let started = Instant::now();
    let run = bare::run(&Board::de212(), &bytes, limits).expect("load spin ELF");
    let iss_secs = started.elapsed().as_secs_f64();
    assert_eq!(run.end, RunEnd::Exited, "{:?}", run.stop);
    let iss_rate = run.insns as f64 / iss_secs;
    println!("q7 ISS : {} instructions in {iss_secs:.3} s = {:.1} M instructions/s", run.insns, iss_rate / 1e6);

    let started = Instant::now();
    let qemu = Command::new("qemu-system-xtensa")
        .args(["-M", "sim", "-cpu", "de212", "-semihosting", "-nographic", "-monitor", "none", "-kernel"])
        .arg(&elf)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let qemu_secs = started.elapsed().as_secs_f64();
    match qemu {
        Ok(status) if status.code() == run.exit_code => {
            let qemu_rate = run.insns as f64 / qemu_secs;
            println!("QEMU   : same program in {qemu_secs:.3} s = {:.1} M instructions/s", qemu_rate / 1e6);
            println!("ratio  : q7 ISS / QEMU = {:.3}", iss_rate / qemu_rate);
        }
        Ok(status) => println!("QEMU exited with {status}, the ISS with {:?}: not comparable", run.exit_code),
        Err(_) => println!("qemu-system-xtensa not found: run scripts/bootstrap.sh (ISS rate only)"),
    }
}
