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

/// Deferred as the top-level subcommands are (`super::command`).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum InspectCommand {
    Layout(LayoutArgs),
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

/// The layout report (same as `q7 layout`).
// A struct of its own, not a doc comment on the variant: a deferred
// subcommand's struct doc comment would replace the variant's.
#[derive(Debug, clap::Args)]
pub struct LayoutArgs {
    #[command(flatten)]
    layout: super::layout::Args,
}

pub fn run(command: InspectCommand) -> Result<()> {
    match command {
        InspectCommand::Layout(a) => super::layout::run(a.layout),
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
