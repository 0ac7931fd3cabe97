//! Helpers of the packer's tests: fixtures (from q7-testkit) and the GNU
//! binutils peers, which fail the test with the bootstrap hint when missing.
//! The CLI's `pack*` tests include this same file (tests/cli/pack_support).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

pub use q7_testkit::{fixture, fixture_images};

use q7_pack::recipe::Binutils;

/// The GNU binutils peers; missing ones fail the test with the bootstrap hint.
pub fn binutils() -> Binutils {
    Binutils::locate().unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a binutils peer that must succeed.
pub fn peer<S: AsRef<OsStr>>(tools: &Binutils, name: &str, args: &[S]) -> Output {
    tools.run(name, args).unwrap_or_else(|e| panic!("{e}"))
}

/// Assembles `source` into `dir/name.o`.
#[allow(dead_code)] // the CLI's tests use it
pub fn assemble(tools: &Binutils, dir: &Path, name: &str, source: &str) -> PathBuf {
    tools.assemble(dir, name, source).unwrap_or_else(|e| panic!("{e}"))
}

pub fn file_name(p: &Path) -> String {
    p.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The recipe's sample shared object with dynamic sections.
pub fn dynamic_image(tools: &Binutils, dir: &Path) -> PathBuf {
    tools.sample_shared_object(dir).unwrap_or_else(|e| panic!("{e}"))
}
