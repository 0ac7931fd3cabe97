//! `q7`: the command-line front end. Each subcommand lives in `cmd/` and only
//! parses flags, reads files and calls into the library crates.
#![forbid(unsafe_code)]

mod cmd;
mod io;
mod progress;

use clap::FromArgMatches;

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let matches = cmd::command(&args).get_matches_from(args);
    let cli = cmd::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Err(e) = cmd::run(cli, &matches) {
        // A closed pipe (`q7 layout … | head`) is the reader's choice, not an error.
        let broken_pipe = e
            .chain()
            .any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe));
        if broken_pipe {
            std::process::exit(0);
        }
        eprintln!("q7: error: {}", io::escape_text(&format!("{e:#}")));
        // Stopped by a signal it caught (a simulated run, or the native
        // child's leash): the status a shell gives a process the signal ended.
        let native = e.chain().find_map(|c| match c.downcast_ref::<q7_build::native::NativeError>() {
            Some(q7_build::native::NativeError::Interrupted { signal }) => Some(*signal),
            _ => None,
        });
        let signal = native.or_else(q7_sim::interrupt::received);
        std::process::exit(signal.map_or(1, |signal| 128 + signal));
    }
}
