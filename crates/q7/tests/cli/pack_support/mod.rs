//! Helpers shared by the `pack*` integration tests: the packer's own test
//! helpers (one file, included from q7-pack), and the q7 binary under test.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::process::{Command, Output};

#[path = "../../../../q7-pack/src/testsuite/support.rs"]
mod shared;
pub use shared::*;

/// Runs the q7 binary under test.
pub fn q7<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7")).args(args).output().expect("run q7")
}
