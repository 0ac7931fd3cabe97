//! Runs a bare test program on a QEMU-like board:
//! `cargo run -p q7-sim --example bare -- de212|de233_fpu PROG.elf [--trace] [--interp]`
//! (stderr: the end, instructions and rate, exceptions and the JIT's work).
use q7_sim::bare::{self, Board};
use q7_sim::jit::Engine;
use q7_sim::machine::RunLimits;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let board = match args.get(1).map(String::as_str) {
        Some("de233_fpu") => Board::de233_fpu(),
        _ => Board::de212(),
    };
    let elf = std::fs::read(&args[2]).expect("read ELF");
    let trace = args.iter().any(|a| a == "--trace");
    let mut machine = bare::load(&board, &elf).expect("load");
    machine.cores[0].trace = trace;
    let engine = if args.iter().any(|a| a == "--interp") { Engine::Interp } else { Engine::JIT };
    machine.limits = RunLimits { max_insns: 2_000_000_000, engine, ..RunLimits::default() };
    let started = std::time::Instant::now();
    let end = machine.run();
    let secs = started.elapsed().as_secs_f64();
    print!("{}", String::from_utf8_lossy(&machine.output.stdout));
    let core = &machine.cores[0];
    let insns = core.cpu.insns;
    eprintln!("end {end:?} state {:?} insns {insns} ({:.1} M/s)", machine.states[0], insns as f64 / secs / 1e6);
    eprintln!(
        "exceptions {}, blocks decoded {}, compiled {} ({} regions) in {:?}",
        core.cpu.exceptions,
        core.blocks_built(),
        core.blocks_compiled(),
        core.regions_compiled(),
        core.compile_time().unwrap_or_default()
    );
}
