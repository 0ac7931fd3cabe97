//! How a build is watched: progress, notes and commands (the CLI's
//! progress line, `-v`, Python's log); below the steps that report to it.

use crate::command::Command;
use crate::timeline::PhaseTime;

/// Observes the build: progress and, under `-v`, each command.
pub trait Observer: Sync {
    /// A phase begins with `steps` steps.
    fn phase(&self, name: &str, steps: usize);
    /// One step finished (`skipped` when it was up to date).
    fn step(&self, label: &str, skipped: bool);
    fn command(&self, cmd: &Command);
    /// A long step begins that the caller should hear of even without `-v`
    /// (the device SDK's one-off build): one line.
    fn note(&self, _line: &str) {}
    /// The finished build's phases (for `-v`).
    fn timeline(&self, _phases: &[PhaseTime], _jobs: usize) {}
}

/// An observer that says nothing.
pub struct Quiet;

impl Observer for Quiet {
    fn phase(&self, _: &str, _: usize) {}
    fn step(&self, _: &str, _: bool) {}
    fn command(&self, _: &Command) {}
}
