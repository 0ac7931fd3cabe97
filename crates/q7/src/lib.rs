//! `q7`: the command-line front end. Each subcommand lives in `cmd/` and only
//! parses flags, reads files and calls into the library crates. [`main`]
//! runs it on an argument list: the `q7` binary calls it, and so does the
//! Python package's `q7` command (q7-py's `cli`), so that installing the
//! package installs the CLI.
#![forbid(unsafe_code)]

mod cmd;
mod io;
mod progress;

use std::ffi::OsString;
use std::io::Write;

use clap::FromArgMatches;

/// Runs the CLI on `args` (the program name first) and returns its exit
/// status. Help, `--version` and flag errors end the process, as clap does.
pub fn main(args: Vec<OsString>) -> i32 {
    let status = run(args);
    // Rust flushes its stdout when a Rust main returns; under Python nothing would.
    let _ = std::io::stdout().flush();
    status
}

fn run(args: Vec<OsString>) -> i32 {
    let matches = cmd::command(&args).get_matches_from(args);
    let cli = cmd::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let Err(e) = cmd::run(cli, &matches) else { return 0 };
    // A closed pipe (`q7 layout … | head`) is the reader's choice, not an error.
    let broken_pipe = e
        .chain()
        .any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe));
    if broken_pipe {
        return 0;
    }
    eprintln!("q7: error: {}", io::escape_text(&format!("{e:#}")));
    // Stopped by a signal it caught (a simulated run, or the native
    // child's leash): the status a shell gives a process the signal ended.
    let native = e.chain().find_map(|c| match c.downcast_ref::<q7_build::native::NativeError>() {
        Some(q7_build::native::NativeError::Interrupted { signal }) => Some(*signal),
        _ => None,
    });
    let signal = native.or_else(q7_sim::interrupt::received);
    signal.map_or(1, |signal| 128 + signal)
}
