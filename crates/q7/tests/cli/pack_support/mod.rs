//! Helpers shared by the `pack*` integration tests.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use q7_pack::recipe::Binutils;

pub use q7_testkit::repo_root as root;

pub fn fixture(name: &str) -> PathBuf {
    root().join("fixtures/bin").join(name)
}

/// Every linked fixture image (`fixtures/bin/*.so`), in name order.
pub fn fixture_images() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/bin"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "so"))
        .collect();
    v.sort();
    assert!(v.len() >= 10, "expected the committed fixture images, found {v:?}");
    v
}

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
    let s = dir.join(format!("{name}.s"));
    let o = dir.join(format!("{name}.o"));
    std::fs::write(&s, source).unwrap();
    peer(tools, "as", &[s.as_os_str(), OsStr::new("-o"), o.as_os_str()]);
    o
}

/// A small shared object with the sections `-l` and the GOT rules are about:
/// `.hash .dynsym .dynstr .dynamic .got .got.loc` next to `.text` and `.data`,
/// in one segment that also holds the ELF header, and a `.comment`.
pub fn dynamic_image(tools: &Binutils, dir: &Path) -> PathBuf {
    let o = assemble(
        tools,
        dir,
        "dyn",
        concat!(
            ".text\n.global f\n.type f,@function\nf:\n ret.n\n.data\n.global x\nx: .word 1\n",
            ".section .got.loc,\"aw\"\n.word 0\n.section .comment\n.string \"test toolchain 1.0\"\n"
        ),
    );
    let so = dir.join("dyn.so");
    peer(
        tools,
        "ld",
        &[OsStr::new("-shared"), OsStr::new("--no-warn-rwx-segments"), o.as_os_str(), OsStr::new("-o"), so.as_os_str()],
    );
    so
}
