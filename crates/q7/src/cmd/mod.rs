//! Subcommand definitions and dispatch.

mod inspect;
mod layout;
mod lsp;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// q7: build, pack, inspect and run AWS Neuron GPSIMD (Xtensa Vision-Q7)
/// custom operators with open tools.
#[derive(Debug, Parser)]
#[command(name = "q7", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Layout(layout::Args),
    Lsp(lsp::Args),
    /// Analyse images and host libraries: layouts, kernel tables, rosters,
    /// carving, rebase proofs, strings.
    #[command(subcommand)]
    Inspect(inspect::InspectCommand),
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Layout(a) => layout::run(a),
        Command::Lsp(a) => lsp::run(a),
        Command::Inspect(c) => inspect::run(c),
    }
}
