//! Helpers shared by the `pack*` integration tests.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use q7_pack::recipe::Binutils;

pub use q7_testkit::{fixture, fixture_images};

pub fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Runs the q7 binary under test.
pub fn q7<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7")).args(args).output().expect("run q7")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The GNU binutils peers; missing ones fail the test with the bootstrap hint.
pub fn binutils() -> Binutils {
    Binutils::locate().unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a peer tool that must succeed.
pub fn peer<S: AsRef<OsStr>>(tools: &Binutils, tool: &str, args: &[S]) -> Output {
    tools.run(tool, args).unwrap_or_else(|e| panic!("{e}"))
}

/// Assembles `source` into `dir/name.o`.
pub fn assemble(tools: &Binutils, dir: &Path, name: &str, source: &str) -> PathBuf {
    tools.assemble(dir, name, source).unwrap_or_else(|e| panic!("{e}"))
}

/// The recipe's sample shared object with dynamic sections.
pub fn dynamic_image(tools: &Binutils, dir: &Path) -> PathBuf {
    tools.sample_shared_object(dir).unwrap_or_else(|e| panic!("{e}"))
}
