//! `q7 inspect …`: the analysis kit. Each report has a module here that
//! parses its flags and calls into `q7-image` (or another library crate).

mod carve;
mod core_config;
mod diff;
mod kinfo;
mod rebase_diff;
mod roster;
mod strings;
mod struct_layout;
mod ucpl;

use anyhow::Result;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum InspectCommand {
    /// The layout report (same as `q7 layout`).
    Layout(super::layout::Args),
    StructLayout(struct_layout::Args),
    CoreConfig(core_config::Args),
    Diff(diff::Args),
    Carve(carve::Args),
    Kinfo(kinfo::Args),
    Roster(roster::Args),
    RebaseDiff(rebase_diff::Args),
    Strings(strings::Args),
    Ucpl(ucpl::Args),
}

pub fn run(command: InspectCommand) -> Result<()> {
    match command {
        InspectCommand::Layout(a) => super::layout::run(a),
        InspectCommand::StructLayout(a) => struct_layout::run(a),
        InspectCommand::CoreConfig(a) => core_config::run(a),
        InspectCommand::Diff(a) => diff::run(a),
        InspectCommand::Carve(a) => carve::run(a),
        InspectCommand::Kinfo(a) => kinfo::run(a),
        InspectCommand::Roster(a) => roster::run(a),
        InspectCommand::RebaseDiff(a) => rebase_diff::run(a),
        InspectCommand::Strings(a) => strings::run(a),
        InspectCommand::Ucpl(a) => ucpl::run(a),
    }
}
