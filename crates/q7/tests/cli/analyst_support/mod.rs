//! Helpers for the analyst-kit CLI tests: running q7 in a data directory,
//! masking the machine-specific parts of reports before golden comparison,
//! and building the oracle's test library.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The analyst crate's committed test inputs.
pub fn analyst_data(sub: &str) -> PathBuf {
    q7_testkit::repo_root().join("crates/q7-analyst/tests/data").join(sub)
}

/// Runs q7 with `dir` as the working directory, so reports name inputs by
/// short relative paths.
pub fn q7_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7")).current_dir(dir).args(args).output().expect("run q7")
}

/// Asserts the shape every failure must have: non-zero exit, exactly one
/// line on stderr starting `q7: error: `, no panic. Returns that line.
pub fn one_line_error(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "expected a failure, stderr: {err}");
    assert_eq!(out.status.code(), Some(1), "a clean exit, not a signal: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("q7: error: "), "{err}");
    err.trim_end().to_string()
}

/// `cc -dumpmachine`, to mask the host triple in goldens.
pub fn host_target() -> String {
    let out = Command::new("cc").arg("-dumpmachine").output().expect("cc");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Replaces the compiler identity line and the host triple.
pub fn mask_compiler(report: &str) -> String {
    let target = host_target();
    report
        .lines()
        .map(|l| {
            if l.starts_with("  compiler  ") {
                "  compiler  <masked>".to_string()
            } else {
                l.replace(&target, "<target>")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Replaces every run of `len` lowercase hex digits that follows `marker`.
pub fn mask_hex_after(text: &str, marker: &str, placeholder: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(marker) {
        out.push_str(&rest[..i + marker.len()]);
        rest = &rest[i + marker.len()..];
        let digits = rest.find(|c: char| !(c.is_ascii_hexdigit() || c == 'x')).unwrap_or(rest.len());
        if digits > 0 {
            out.push_str(placeholder);
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// Builds `leaves.c` into a shared library once per test process.
pub fn leaves_library() -> &'static Path {
    static LIBRARY: OnceLock<PathBuf> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        let dir = tempfile::Builder::new().prefix("q7-oracle-test").tempdir().unwrap().keep();
        let lib = dir.join("libleaves.so");
        let source = analyst_data("oracle").join("leaves.c");
        let status = Command::new("cc")
            .args(["-shared", "-fPIC", "-O1", "-o"])
            .arg(&lib)
            .arg(&source)
            .status()
            .expect("cc builds the oracle test library");
        assert!(status.success());
        lib
    })
}
