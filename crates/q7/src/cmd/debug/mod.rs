//! `q7 debug`: `q7 run`'s arguments, then a prompt (or a command file) that
//! stops, steps, looks and goes backwards through the op's run.

mod dap;

use q7_debug as commands;

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::ArgMatches;

/// Debug a built op in the simulator: the same arguments as `q7 run`, then
/// a prompt.
///
/// All eight cores stop together: when one reaches a breakpoint, a
/// watchpoint or a finding, every core stops where it is; `core N` selects
/// the one commands look at. The run is deterministic, so it can also go
/// backwards (`reverse-continue`, `reverse-step`, ...): q7 keeps machine
/// snapshots and runs forward again from the nearest one, at full speed.
///
/// Commands (gdb's names; `help` at the prompt lists them): break, delete,
/// continue, step, next, stepi, finish, reverse-continue, reverse-step,
/// reverse-next, reverse-stepi, reverse-finish, watch, backtrace, frame,
/// core, info (cores, breakpoints, registers, tensors), print, x, quit.
///
/// -x FILE runs the commands in FILE and prints the session (each command
/// after the prompt), for tests and bug reports; the session ends at the
/// end of the file.
#[derive(Debug, clap::Args)]
#[group(id = "debug_args")]
// `--dap` alone: the op's arguments may come in the `launch` request.
#[command(
    mut_arg("image", |a| a.required(false).required_unless_present_any(["dap", "bare"])),
    mut_arg("function", |a| a.required(false).required_unless_present_any(["dap", "bare"]))
)]
pub struct Args {
    #[command(flatten)]
    run: Option<super::session::Args>,
    /// Debug a bare-metal Xtensa ELF (as `q7 run-bare` runs it) instead of an op.
    #[arg(long, value_name = "ELF", conflicts_with = "Args")]
    bare: Option<PathBuf>,
    /// The board of --bare: de212 or de233_fpu.
    #[arg(long, default_value = "de212", value_parser = ["de212", "de233_fpu"], requires = "bare")]
    board: String,
    /// Run the debugger commands in FILE instead of a prompt.
    #[arg(short = 'x', long = "command", value_name = "FILE")]
    script: Option<PathBuf>,
    /// Stop at the first finding of q7's checks (stray store or read, race,
    /// read of unwritten output), as at a breakpoint.
    #[arg(long = "break-on-finding")]
    break_on_finding: bool,
    /// Speak the Debug Adapter Protocol on stdin/stdout (for editors) instead
    /// of a prompt; the op's arguments come from here or from the `launch`
    /// request (docs/DEBUGGING.md lists its keys).
    #[arg(long, conflicts_with_all = ["script", "bare"])]
    dap: bool,
}

pub fn run(args: Args, matches: Option<&ArgMatches>) -> Result<()> {
    let script = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
            Some(text)
        }
        None => None,
    };
    if args.dap {
        return dap::serve(args.run.as_ref(), matches, args.break_on_finding);
    }
    match (&args.run, &args.bare) {
        (Some(run), _) => open(run, matches, args.break_on_finding, script.as_deref(), &[]),
        (None, Some(elf)) => open_bare(elf, &args.board, script.as_deref()),
        (None, None) => anyhow::bail!("say what to debug: a build directory or image and --fn, or --bare ELF"),
    }
}

/// A session over a bare program.
fn open_bare(elf: &std::path::Path, board: &str, script: Option<&str>) -> Result<()> {
    let bytes = crate::io::read_input(elf)?;
    let board = if board == "de233_fpu" { q7_sim::bare::Board::de233_fpu() } else { q7_sim::bare::Board::de212() };
    let (_ctrl_c, interrupt) = q7_sim::interrupt::ctrl_c();
    let mut machine = q7_sim::bare::load(&board, &bytes).map_err(|e| anyhow::anyhow!("{}: {e}", elf.display()))?;
    machine.limits.interrupt = Some(interrupt);
    let image = [q7_sim::op::OpImage::symbols_of(&bytes)];
    let session = commands::Session::new(q7_sim::op::debug::OpDebug::bare(machine, &image), false);
    drive(session, script, &[])
}

/// `q7 run --debug-on-finding`: the session that stops at the run's first
/// finding, then the prompt.
pub fn at_first_finding(args: &super::session::Args, matches: Option<&ArgMatches>) -> Result<()> {
    open(args, matches, true, None, &["continue", "backtrace"])
}

/// A session over the op `run_args` name: `first` commands, then `script`'s
/// (each echoed after the prompt) or the prompt's.
fn open(
    run_args: &super::session::Args,
    matches: Option<&ArgMatches>,
    break_on_finding: bool,
    script: Option<&str>,
    first: &[&str],
) -> Result<()> {
    // Ctrl-C interrupts a command, not q7 (cleared after each command).
    let (_ctrl_c, interrupt) = q7_sim::interrupt::ctrl_c();
    let mut run_args = run_args.clone();
    run_args.json = true; // console output is captured and shown by the session
    super::session::with_prepared(&run_args, matches, Some(interrupt), |_, _, _, session| {
        drive(commands::Session::new(session.into_debug(), break_on_finding), script, first)
    })
}

/// Runs `first`, then `script`'s commands (each echoed after the prompt) or
/// the prompt's.
fn drive(mut session: commands::Session<'_>, script: Option<&str>, first: &[&str]) -> Result<()> {
    {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for line in first.iter().copied().chain(script.into_iter().flat_map(str::lines)) {
            writeln!(out, "(q7) {line}")?;
            if session.execute(line, &mut out)? == commands::Flow::Quit {
                return Ok(());
            }
        }
    }
    match script {
        Some(_) => Ok(()),
        None => interactive(&mut session),
    }
}

/// The prompt: a line editor with history when stdin is a terminal, plain
/// lines otherwise.
fn interactive(session: &mut commands::Session<'_>) -> Result<()> {
    use std::io::IsTerminal;
    let mut out = std::io::stdout();
    if !std::io::stdin().is_terminal() {
        for line in std::io::stdin().lock().lines() {
            if session.execute(&line?, &mut out)? == commands::Flow::Quit {
                break;
            }
        }
        return Ok(());
    }
    let mut editor = rustyline::Editor::<Completer, rustyline::history::DefaultHistory>::new()
        .context("starting the line editor")?;
    editor.set_helper(Some(Completer));
    let mut last = String::new();
    loop {
        match editor.readline("(q7) ") {
            Ok(line) => {
                // An empty line repeats the last command, as in gdb.
                let line = if line.trim().is_empty() { last.clone() } else { line };
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                if session.execute(&line, &mut out)? == commands::Flow::Quit {
                    return Ok(());
                }
                out.flush()?;
                last = line;
            }
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => return Ok(()),
            Err(e) => return Err(e).context("reading a command"),
        }
    }
}

/// Command-name completion at the prompt.
struct Completer;

impl rustyline::completion::Completer for Completer {
    type Candidate = String;
    fn complete(&self, line: &str, pos: usize, _: &rustyline::Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let head = &line[..pos];
        if head.contains(char::is_whitespace) {
            return Ok((pos, Vec::new()));
        }
        Ok((0, commands::COMMAND_NAMES.iter().filter(|n| n.starts_with(head)).map(|n| n.to_string()).collect()))
    }
}

impl rustyline::hint::Hinter for Completer {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for Completer {}
impl rustyline::validate::Validator for Completer {}
impl rustyline::Helper for Completer {}
