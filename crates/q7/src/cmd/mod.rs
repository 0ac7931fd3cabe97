//! Subcommand definitions and dispatch.

mod build;
mod debug;
mod disasm;
mod inspect;
mod layout;
mod legalize_ir;
mod lsp;
mod oracle;
mod pack;
mod prelink;
mod prepare;
mod profile;
mod run;
mod run_bare;
mod run_native;
mod session;
mod strip;

use anyhow::Result;
use clap::{ArgMatches, Parser, Subcommand};

/// q7: build, pack, inspect and run AWS Neuron GPSIMD (Xtensa Vision-Q7)
/// custom operators with open tools.
#[derive(Debug, Parser)]
#[command(name = "q7", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Each subcommand's flags are defined when it is invoked (`defer`): start-up
/// builds one subcommand's parser, not all of them ([`command`]).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    Build(build::Args),
    Debug(debug::Args),
    Disasm(disasm::Args),
    Layout(layout::Args),
    #[command(name = "legalize-ir")]
    LegalizeIr(legalize_ir::Args),
    Lsp(lsp::Args),
    /// Analyse images and host libraries: layouts, kernel tables, rosters,
    /// carving, rebase proofs, strings, UCPL images, image diffs, struct
    /// layouts and core configurations.
    #[command(subcommand)]
    Inspect(inspect::InspectCommand),
    Oracle(oracle::Args),
    /// Internal: the oracle's crash-isolated worker process.
    #[command(name = oracle::WORKER_SUBCOMMAND, hide = true)]
    OracleWorker(oracle::WorkerArgs),
    Pack(pack::Args),
    Prelink(prelink::Args),
    Prepare(prepare::Args),
    Profile(profile::Args),
    Run(run::RunArgs),
    RunBare(run_bare::Args),
    Strip(strip::Args),
}

/// The parser for `args` (the process's arguments): with the invoked
/// subcommand's flags only, unless the arguments stop short of naming one
/// (help, `--version`, `q7 inspect`, a typo), which lists or searches them all.
pub fn command(args: &[std::ffi::OsString]) -> clap::Command {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut at = &command;
    for name in args.iter().skip(1) {
        match at.find_subcommand(name) {
            Some(sub) => at = sub,
            None => break,
        }
    }
    if at.has_subcommands() {
        command.build();
    }
    command
}

/// Runs a parsed command; `matches` are the parsed flags (for flag order).
pub fn run(cli: Cli, matches: &ArgMatches) -> Result<()> {
    match cli.command {
        Command::Build(a) => build::run(a),
        Command::Debug(a) => debug::run(a, matches.subcommand_matches("debug")),
        Command::Disasm(a) => disasm::run(a),
        Command::Layout(a) => layout::run(a),
        Command::LegalizeIr(a) => legalize_ir::run(a),
        Command::Lsp(a) => lsp::run(a),
        Command::Inspect(c) => inspect::run(c),
        Command::Oracle(a) => oracle::run(a),
        Command::OracleWorker(a) => oracle::run_worker(a),
        Command::Pack(a) => pack::run(a),
        Command::Prelink(a) => prelink::run(a),
        Command::Prepare(a) => prepare::run(a),
        Command::Profile(a) => profile::run(a, matches.subcommand_matches("profile")),
        Command::Run(a) => run::run(a, matches.subcommand_matches("run")),
        Command::RunBare(a) => run_bare::run(a),
        Command::Strip(a) => strip::run(a),
    }
}
