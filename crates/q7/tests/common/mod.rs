//! Helpers shared by the CLI integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

pub fn fixture(name: &str) -> PathBuf {
    root().join("fixtures/bin").join(name)
}

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

/// Runs a peer tool (from the bootstrap); a missing tool fails the test with
/// a message that says how to get it, unless `Q7_SKIP_PEERS=1`.
pub fn peer(tool: &str, args: &[&str]) -> Option<Output> {
    match Command::new(tool).args(args).output() {
        Ok(o) => Some(o),
        Err(_) if std::env::var_os("Q7_SKIP_PEERS").is_some() => None,
        Err(e) => panic!("peer tool `{tool}` is not runnable ({e}); run scripts/bootstrap.sh"),
    }
}

/// Compares `actual` with the golden file `tests/snapshots/<name>`;
/// `Q7_BLESS=1` rewrites the golden file instead.
pub fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name);
    if std::env::var_os("Q7_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing golden file {}; run with Q7_BLESS=1", path.display()));
    if expected != actual {
        let first = expected.lines().zip(actual.lines()).position(|(a, b)| a != b);
        panic!(
            "{} differs from the output (first differing line: {:?}); run with Q7_BLESS=1 if the change is intended\n--- actual ---\n{actual}",
            path.display(),
            first.map(|i| i + 1)
        );
    }
}
