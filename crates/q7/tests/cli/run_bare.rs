//! `q7 run-bare` against `qemu-system-xtensa -M sim` on the same ELF files
//! (q7-sim's test programs, built by their committed recipe): console output
//! and exit code agree under both engines (which agree on the counts too);
//! bad input gives one line naming the file.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::*;

fn build(out: &Path, board: &str, source: &str) -> PathBuf {
    let programs = root().join("crates/q7-sim/tests/programs");
    let status = Command::new("bash")
        .arg(programs.join("build.sh"))
        .arg(out)
        .arg(board)
        .arg(programs.join(source))
        .stdout(Stdio::null())
        .status()
        .expect("run build.sh");
    assert!(status.success(), "build.sh {board} {source} failed (run scripts/bootstrap.sh)");
    let stem = source.rsplit_once('.').unwrap().0;
    out.join(format!("{stem}.{board}-O2.elf"))
}

fn qemu(board: &str, elf: &Path) -> (Option<i32>, String) {
    let out = Command::new("qemu-system-xtensa")
        .args(["-M", "sim", "-cpu", board, "-semihosting", "-nographic", "-monitor", "none", "-kernel"])
        .arg(elf)
        .stdin(Stdio::null())
        .output()
        .expect("qemu-system-xtensa (run scripts/bootstrap.sh)");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// "N instructions, M cycles" of `--stats`.
fn counts(stats: &str) -> &str {
    stats.lines().last().and_then(|l| l.split(" in ").next()).unwrap_or_default()
}

#[test]
fn same_output_and_exit_code_as_qemu() {
    let dir = tempfile::tempdir().unwrap();
    for (board, source) in [("de212", "hello.c"), ("de212", "windows.c"), ("de233_fpu", "fp.c")] {
        let elf = build(dir.path(), board, source);
        let (code, text) = qemu(board, &elf);
        // Both engines, the same counts.
        let mut seen = Vec::new();
        for engine in ["interp", "jit"] {
            let ours = q7(&["run-bare", elf.to_str().unwrap(), "--board", board, "--engine", engine, "--stats"]);
            assert_eq!(stdout(&ours), text, "{source} on {board}, {engine}: console");
            assert_eq!(ours.status.code(), code, "{source} on {board}, {engine}: exit code");
            seen.push(counts(&stderr(&ours)).to_string());
        }
        assert!(seen[0].ends_with("cycles"), "{seen:?}");
        assert_eq!(seen[0], seen[1], "{source} on {board}: instruction and cycle counts of the engines");
    }
}

#[test]
fn bad_input_is_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let not_elf = dir.path().join("notes.txt");
    std::fs::write(&not_elf, "not a program\n").unwrap();
    // A de233_fpu program (RAM at 0) does not fit de212's memory map.
    let elf = build(dir.path(), "de233_fpu", "hello.c");
    for (path, why) in [(not_elf.as_path(), "not an ELF"), (elf.as_path(), "not in any region")] {
        let out = q7(&["run-bare", path.to_str().unwrap(), "--board", "de212"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(path.to_str().unwrap()) && err.contains(why), "{err}");
    }
    let deep = build(dir.path(), "de212", "windows.c");
    let out = q7(&["run-bare", deep.to_str().unwrap(), "--max-insns", "1000"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("budget"), "{}", stderr(&out));
}
