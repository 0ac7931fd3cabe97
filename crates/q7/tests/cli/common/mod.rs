//! Helpers shared by the CLI integration tests.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

pub use q7_testkit::{fixture, repo_root as root};

/// Runs the q7 binary under test.
pub fn q7(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7")).args(args).output().expect("run q7")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[allow(unused_imports)]
pub use q7_testkit::peer;

/// Compares `actual` with `tests/snapshots/<name>` (`Q7_BLESS=1` rewrites it).
pub fn assert_golden(name: &str, actual: &str) {
    q7_testkit::assert_golden(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name), actual);
}
