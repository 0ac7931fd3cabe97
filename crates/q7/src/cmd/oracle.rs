//! `q7 oracle`: the value oracle of docs/FACTS.md, "Value oracle". A leaf of a host library is
//! executed on a grid of inputs and compared with a reference expression or
//! another leaf. The calls run in a child process (this same binary,
//! re-executed with a hidden subcommand), so a leaf that crashes is reported
//! with the signal and the input, and q7 itself always finishes.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use q7_analyst::expr::{Expr, FUNCTIONS};
use q7_analyst::oracle::{self, inputs, OracleRequest, WorkerCommand};

/// The hidden subcommand the oracle re-executes q7 with.
pub const WORKER_SUBCOMMAND: &str = "__oracle-worker";

/// Run a library leaf on many inputs and compare it with a model or another
/// leaf (docs/FACTS.md's value oracle, crash-isolated).
///
/// Executes a leaf of a host shared library on many inputs and compares its
/// results with a reference expression (`--model`) and/or another leaf
/// (`--same-as`). A leaf has the C ABI
/// `int leaf(void *state, unsigned a, unsigned b, unsigned *result)` and is
/// called with state = NULL. The calls run in a separate process: a crash
/// is reported as "leaf X crashed with SIGSEGV on input (a, b)" and the run
/// goes on with the next input. Exits non-zero on any mismatch or crash.
#[derive(Debug, clap::Args)]
#[command(after_long_help = model_help())]
pub struct Args {
    /// The shared library (.so) that exports the leaf.
    #[arg(long, value_name = "LIB.so")]
    lib: PathBuf,
    /// The exported symbol to execute.
    #[arg(long, value_name = "SYMBOL")]
    leaf: String,
    /// Input pairs `A,B;A,B;…`; each value is a constant expression
    /// (`0x80`, `-1`, `1<<31`). Default: every pair of 0, 1, 2, 0x7f, 0x80,
    /// 0xff, 0x7fffffff, 0x80000000, 0xffffffff (81 pairs).
    #[arg(long, value_name = "PAIRS", conflicts_with = "random", allow_hyphen_values = true)]
    grid: Option<String>,
    /// Use N pseudo-random pairs instead of a grid.
    #[arg(long, value_name = "N")]
    random: Option<usize>,
    /// Seed for --random; the same seed gives the same pairs everywhere.
    #[arg(long, value_name = "S", requires = "random", value_parser = parse_seed)]
    seed: Option<u64>,
    /// The reference: a C expression over the unsigned 32-bit inputs `a`
    /// and `b`, e.g. `a < b` or `(a + b) & 0xff` (see below).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    model: Option<String>,
    /// Also run this symbol on the same inputs and compare the two leaves.
    #[arg(long, value_name = "OTHER_SYMBOL")]
    same_as: Option<String>,
    /// Seconds one call may run before it is reported as hung.
    #[arg(long, value_name = "SECS", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    timeout: u32,
    /// Stop after this many crashes (the remaining inputs are not run).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    max_crashes: u64,
    /// Mismatches listed per comparison.
    #[arg(long, value_name = "N", default_value_t = 10)]
    show: usize,
    /// Print the same content as JSON (every input's outcome included).
    #[arg(long)]
    json: bool,
}

fn parse_seed(text: &str) -> Result<u64, String> {
    q7_target::num::parse_u64(text).ok_or_else(|| format!("`{text}` is not a number"))
}

fn model_help() -> String {
    let mut text = String::from(
        "Model expressions: C operators and precedence over u32 (?: || && | ^ & == != < <= > >= << >> + - * / % ! ~), \
         wrapping arithmetic, literals in decimal, 0x hex, 0b binary or 0 octal. Shifts by 32 or more give 0; \
         division by zero is reported as a model error for that input. Functions:\n",
    );
    for f in FUNCTIONS {
        let args = if f.arity == 1 { "x" } else { "x, y" };
        text.push_str(&format!("  {}({args})  {}\n", f.name, f.meaning));
    }
    text
}

/// The hidden worker: loads the library and serves calls over stdin/stdout.
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    #[arg(long)]
    lib: PathBuf,
    #[arg(long, required = true)]
    leaf: Vec<String>,
    #[arg(long, default_value_t = 5)]
    timeout: u32,
}

pub fn run(args: Args) -> Result<()> {
    let model = args.model.as_deref().map(Expr::parse).transpose()?;
    let inputs = match (&args.grid, args.random) {
        (Some(grid), _) => inputs::parse_grid(grid).context("--grid")?,
        (None, Some(n)) => inputs::random_pairs(n, args.seed.unwrap_or(inputs::DEFAULT_RANDOM_SEED)),
        (None, None) => inputs::default_grid(),
    };
    let worker = WorkerCommand {
        program: std::env::current_exe().context("cannot locate the q7 executable to start the oracle worker")?,
        args: vec![WORKER_SUBCOMMAND.into()],
    };
    let request = OracleRequest {
        library: &args.lib,
        leaf: args.leaf,
        same_as: args.same_as,
        model,
        inputs,
        timeout_secs: args.timeout,
        max_crashes: args.max_crashes as usize,
        show: args.show,
    };
    let report = oracle::run(&worker, &request)?;
    if args.json {
        crate::io::print_json(&report)?;
    } else {
        oracle::write_report(&mut crate::io::text_stdout(), &report)?;
    }
    if let Some(problem) = report.problem_summary() {
        bail!("{problem}");
    }
    Ok(())
}

pub fn run_worker(args: WorkerArgs) -> Result<()> {
    let status = oracle::worker::serve(&args.lib, &args.leaf, args.timeout);
    std::process::exit(status);
}
