//! scripts/csmith-diff.sh, the random-program campaign, on two csmith seeds
//! (1000 and 1001: short programs) with the q7 under test: QEMU, the
//! interpreter and the JIT agree on every run; and a q7 that prints nothing
//! is caught as a mismatch on every run, with the command that reproduces it
//! (the comparison is not vacuous).

use crate::common;

use std::process::{Command, Output};

use common::*;

fn campaign(q7_binary: &str) -> Output {
    // Mismatching programs' files are kept under TMPDIR.
    let tmp = tempfile::tempdir().expect("temp dir");
    Command::new("bash")
        .arg(root().join("scripts/csmith-diff.sh"))
        .args(["2", "1000"])
        .env("Q7", q7_binary)
        .env("JOBS", "1")
        .env("TMPDIR", tmp.path())
        .output()
        .expect("run scripts/csmith-diff.sh (csmith, clang-22, qemu: scripts/bootstrap.sh)")
}

#[test]
fn two_random_programs_agree_on_qemu_and_both_engines() {
    let out = campaign(env!("CARGO_BIN_EXE_q7"));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains(": 4 runs, 4 agree, 0 skipped (), 0 mismatches"), "{text}");
}

#[test]
fn a_wrong_simulator_is_a_mismatch_with_its_reproducer() {
    let out = campaign("/bin/true");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(": 4 runs, 0 agree, 0 skipped (), 4 mismatches"), "{text}");
    assert!(text.contains("MISMATCH seed 1001 de212 -O0: interp-output,jit-output (files: "), "{text}");
    assert!(text.contains("reproduce: BOARDS=de212 OPTS=2 scripts/csmith-diff.sh 1 1001"), "{text}");
}
