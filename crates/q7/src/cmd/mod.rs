//! Subcommand definitions and dispatch.

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
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Layout(a) => layout::run(a),
        Command::Lsp(a) => lsp::run(a),
    }
}
