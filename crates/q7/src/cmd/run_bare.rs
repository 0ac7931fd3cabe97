//! `q7 run-bare`: run a bare-metal Xtensa program the way
//! `qemu-system-xtensa -M sim -cpu BOARD -semihosting -kernel ELF` does, so
//! the same ELF can be put through both.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use q7_sim::bare::{self, Board};
use q7_sim::machine::{RunEnd, RunLimits};
use q7_sim::output::{Output, OutputMode};

/// Run a bare-metal program on a QEMU sample board (`-M sim`).
///
/// The ELF's segments load where they are linked; the core starts at the
/// board's reset vector; `simcall` semihosting gives console output and the
/// exit code, which becomes q7's own exit code.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program (an Xtensa ELF linked for the board's memory map).
    #[arg(value_name = "ELF")]
    elf: PathBuf,
    /// The QEMU sample core and memory map: de212 (no FPU, RAM at
    /// 0x60000000) or de233_fpu (FPU, RAM at 0).
    #[arg(long, default_value = "de212", value_parser = ["de212", "de233_fpu"])]
    board: String,
    /// Print instructions, cycles and the simulation rate on stderr.
    #[arg(long)]
    stats: bool,
    /// Print a hash of the final architectural state and memory on stderr
    /// (`state HEX`): engines that agree print the same.
    #[arg(long)]
    state: bool,
    /// Instruction budget.
    #[arg(long = "max-insns", default_value_t = 20_000_000_000)]
    max_insns: u64,
    /// Wall-clock limit in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    timeout: u64,
    /// How the code runs: jit compiles hot blocks to host code (the
    /// interpreter runs the rest; same results and counts), interp
    /// interprets everything.
    #[arg(long, value_enum, default_value_t = super::session::EngineChoice::Jit)]
    engine: super::session::EngineChoice,
    /// With the jit: compile a block once it has run N instructions
    /// interpreted (runs times length; default 30000; 1 compiles nearly
    /// everything, as differential testing wants).
    #[arg(long = "jit-hot", value_name = "N")]
    jit_hot: Option<u32>,
}

pub fn run(args: Args) -> Result<()> {
    let bytes = crate::io::read_input(&args.elf)?;
    let board = match args.board.as_str() {
        "de233_fpu" => Board::de233_fpu(),
        _ => Board::de212(),
    };
    let limits = RunLimits {
        max_insns: args.max_insns,
        wall: Duration::from_secs(args.timeout),
        engine: match (args.engine.engine(), args.jit_hot) {
            (q7_sim::jit::Engine::Jit { .. }, Some(hot)) => q7_sim::jit::Engine::Jit { hot },
            (engine, _) => engine,
        },
        ..RunLimits::default()
    };
    let (_ctrl_c, interrupt) = q7_sim::interrupt::ctrl_c();
    let limits = RunLimits { interrupt: Some(interrupt), ..limits };
    let started = Instant::now();
    let mut machine = bare::load(&board, &bytes).map_err(|e| anyhow::anyhow!("{}: {e}", args.elf.display()))?;
    // Console output goes out as the program writes it, all of it, as
    // QEMU's does (the capture a library caller reads is capped).
    machine.output = Output::new(1, OutputMode { prefix: false, stream: true });
    let run = bare::finish(&mut machine, limits);
    let secs = started.elapsed().as_secs_f64();
    std::io::stdout().flush()?;
    if args.state {
        eprintln!("state {:016x}", bare::state_digest(&machine));
    }
    if args.stats {
        eprintln!(
            "{} instructions, {} cycles in {secs:.3} s = {:.1} M instr/s",
            run.insns,
            run.cycles,
            run.insns as f64 / secs.max(1e-9) / 1e6
        );
    }
    let elf = args.elf.display();
    match (run.end, run.exit_code) {
        (RunEnd::Exited, Some(code)) => std::process::exit(code),
        (RunEnd::Budget, _) => bail!("{elf}: stopped after {} instructions (the budget, --max-insns)", run.insns),
        (RunEnd::Timeout, _) => bail!("{elf}: stopped after {} s (--timeout)", args.timeout),
        (RunEnd::Interrupted, _) => bail!("{elf}: interrupted after {} instructions", run.insns),
        (RunEnd::Deadlock, _) => bail!(
            "{elf}: the core loops forever without writing memory (at pc {:#010x}, after {} instructions)",
            machine.cores[0].cpu.pc,
            run.insns
        ),
        _ => match run.stop {
            Some(stop) => bail!("{elf}: {stop}"),
            None => bail!("{elf}: the core stopped without exiting"),
        },
    }
}
