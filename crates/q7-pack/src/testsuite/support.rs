//! Helpers of the packer's tests: fixtures (from q7-testkit) and the GNU
//! binutils peers, which fail the test with the bootstrap hint when missing.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Output;

pub use q7_testkit::{fixture, fixture_images};

use q7_pack::recipe::Binutils;

pub fn binutils() -> Binutils {
    Binutils::locate().unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a binutils peer that must succeed.
pub fn peer<S: AsRef<OsStr>>(tools: &Binutils, name: &str, args: &[S]) -> Output {
    tools.run(name, args).unwrap_or_else(|e| panic!("{e}"))
}

pub fn file_name(p: &Path) -> String {
    p.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn dynamic_image(tools: &Binutils, dir: &Path) -> std::path::PathBuf {
    tools.sample_shared_object(dir).unwrap_or_else(|e| panic!("{e}"))
}
