//! `q7 run-bare` against `qemu-system-xtensa -M sim` on the same ELF files
//! (q7-sim's test programs, built by their committed recipe): console output
//! and exit code agree under both engines (which agree on the counts too);
//! bad input gives one line naming the file.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::*;

pub(crate) fn build(out: &Path, board: &str, source: &str) -> PathBuf {
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

/// "N instructions, M cycles" of `--stats`, after the `state HASH` line of
/// `--state`.
fn counts(stats: &str) -> String {
    let state = stats.lines().find(|l| l.starts_with("state ")).unwrap_or_default();
    let counts = stats.lines().last().and_then(|l| l.split(" in ").next()).unwrap_or_default();
    format!("{state}; {counts}")
}

#[test]
fn same_output_and_exit_code_as_qemu() {
    let dir = tempfile::tempdir().unwrap();
    let mut states = Vec::new();
    for (board, source) in [("de212", "hello.c"), ("de212", "windows.c"), ("de233_fpu", "fp.c")] {
        let elf = build(dir.path(), board, source);
        let (code, text) = qemu(board, &elf);
        // Both engines, the same counts.
        let mut seen = Vec::new();
        for engine in [&["--engine", "interp"][..], &["--engine", "jit"], &["--engine", "jit", "--jit-hot", "1"]] {
            let mut args = vec!["run-bare", elf.to_str().unwrap(), "--board", board, "--stats", "--state"];
            args.extend_from_slice(engine);
            let ours = q7(&args);
            assert_eq!(stdout(&ours), text, "{source} on {board}, {engine:?}: console");
            assert_eq!(ours.status.code(), code, "{source} on {board}, {engine:?}: exit code");
            seen.push(counts(&stderr(&ours)));
        }
        assert!(seen[0].starts_with("state ") && seen[0].ends_with("cycles"), "{seen:?}");
        assert!(seen.iter().all(|s| *s == seen[0]), "{source} on {board}: counts and final state of the engines");
        states.push(seen[0].clone());
    }
    // The state hash tells programs apart.
    assert!(states[0] != states[1] && states[1] != states[2], "{states:?}");
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

#[test]
fn console_output_past_a_mebibyte_arrives_whole_as_from_qemu() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "de212", "flood.c");
    let (code, text) = qemu("de212", &elf);
    assert!(text.len() > 3 << 20, "{}", text.len());
    let ours = q7(&["run-bare", elf.to_str().unwrap(), "--board", "de212"]);
    assert_eq!(ours.status.code(), code);
    assert_eq!(ours.stdout.len(), text.len());
    assert!(stdout(&ours) == text, "the consoles differ");
}

#[test]
fn programs_qemu_refuses_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let elf = std::fs::read(build(dir.path(), "de212", "hello.c")).unwrap();
    // e_machine 3 (i386) at offset 18, little-endian.
    let mut x86 = elf.clone();
    x86[18..20].copy_from_slice(&3u16.to_le_bytes());
    // The second program header given the first one's addresses.
    let mut overlapping = elf.clone();
    let phoff = u32::from_le_bytes(elf[28..32].try_into().unwrap()) as usize;
    let phentsize = u16::from_le_bytes(elf[42..44].try_into().unwrap()) as usize;
    let first_vaddr = phoff + 8;
    let second_vaddr = phoff + phentsize + 8;
    let (vaddr, paddr) = (elf[first_vaddr..first_vaddr + 8].to_vec(), second_vaddr..second_vaddr + 8);
    overlapping[paddr].copy_from_slice(&vaddr);
    for (name, bytes, why) in [("x86.elf", x86, "expected Tensilica Xtensa"), ("overlap.elf", overlapping, "overlap")] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = q7(&["run-bare", path.to_str().unwrap(), "--board", "de212"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(name) && err.contains(why), "{name}: {err}");
    }
}
