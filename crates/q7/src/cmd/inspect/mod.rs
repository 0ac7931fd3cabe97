//! `q7 inspect …`: the analysis kit. Each report has a module here that
//! parses its flags and calls into `q7-image` (or another library crate).

use anyhow::Result;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum InspectCommand {
    /// The seed 002 layout report (same as `q7 layout`).
    Layout(super::layout::Args),
}

pub fn run(command: InspectCommand) -> Result<()> {
    match command {
        InspectCommand::Layout(a) => super::layout::run(a),
    }
}
