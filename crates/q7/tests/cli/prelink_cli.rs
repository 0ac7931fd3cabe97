//! `q7 prelink` and `q7 inspect ucpl` on the fixtures: the golden report,
//! `--all-cores` (a directory and a pattern), `--single`, images bound at
//! their own base, the CRC against Python's zlib, and the same bytes from a
//! linked, a cleaned and a packed input.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;

fn q7_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7")).current_dir(dir).args(args).output().expect("run q7")
}

fn ok_in(dir: &Path, args: &[&str]) -> Output {
    let out = q7_in(dir, args);
    assert!(out.status.success(), "q7 {args:?}: {}", stderr(&out));
    out
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// A scratch directory holding prog_cpu0.so.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("prog_cpu0.so"), dir.path().join("prog_cpu0.so")).unwrap();
    dir
}

#[test]
fn inspect_ucpl_golden_text_and_json() {
    let dir = scratch();
    ok_in(dir.path(), &["prelink", "prog_cpu0.so", "--core", "3", "-o", "prog.cpu3.ucpl"]);
    let text = ok_in(dir.path(), &["inspect", "ucpl", "prog.cpu3.ucpl"]);
    assert_golden("prelink_inspect_ucpl.txt", &stdout(&text));
    let json = ok_in(dir.path(), &["inspect", "ucpl", "prog.cpu3.ucpl", "--json"]);
    assert_golden("prelink_inspect_ucpl.json", &stdout(&json));
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(v["header"]["load_base"], 0x8460_0000u32);
    assert_eq!(v["checks"].as_array().unwrap().len(), 9);
}

#[test]
fn all_cores_writes_eight_valid_files() {
    let dir = scratch();
    ok_in(dir.path(), &["pack", "prog_cpu0.so", "-o", "prog_cpu0.packed.so"]);
    ok_in(dir.path(), &["prelink", "prog_cpu0.packed.so", "--all-cores", "-o", "out"]);
    ok_in(dir.path(), &["prelink", "prog_cpu0.so", "--all-cores", "-o", "pattern/op-{core}.ucpl"]);
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, (0..8).map(|k| format!("prog.cpu{k}.ucpl")).collect::<Vec<_>>());
    for k in 0..8u32 {
        let file = format!("out/prog.cpu{k}.ucpl");
        let json = ok_in(dir.path(), &["inspect", "ucpl", &file, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
        assert_eq!((v["valid"].as_bool(), v["header"]["core_id"].as_u64()), (Some(true), Some(k as u64)), "{file}");
        let from_pattern = std::fs::read(dir.path().join(format!("pattern/op-cpu{k}.ucpl"))).unwrap();
        assert_eq!(std::fs::read(dir.path().join(&file)).unwrap(), from_pattern, "packed and linked inputs agree");
    }
    // A file where a directory is needed is refused before anything is written.
    std::fs::write(dir.path().join("plain"), b"").unwrap();
    let out = q7_in(dir.path(), &["prelink", "prog_cpu0.so", "--all-cores", "-o", "plain"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("-o must be a directory or a pattern with {core}"), "{}", stderr(&out));
}

#[test]
fn linked_cleaned_and_packed_inputs_give_the_same_file() {
    let dir = scratch();
    ok_in(dir.path(), &["pack", "prog_cpu0.so", "-o", "p.packed.so", "-s", "p.stripped.so", "-e", "my_image"]);
    ok_in(dir.path(), &["prelink", "prog_cpu0.so", "--core", "6", "-o", "a.ucpl"]);
    ok_in(dir.path(), &["prelink", "p.stripped.so", "--core", "6", "-o", "b.ucpl"]);
    let log = ok_in(dir.path(), &["prelink", "p.packed.so", "-e", "my_image", "--core", "6", "-o", "c.ucpl", "-v"]);
    let a = std::fs::read(dir.path().join("a.ucpl")).unwrap();
    assert_eq!(a, std::fs::read(dir.path().join("b.ucpl")).unwrap());
    assert_eq!(a, std::fs::read(dir.path().join("c.ucpl")).unwrap());
    let log = stderr(&log);
    assert!(
        log.starts_with("p.packed.so: packed load-lib (cleaned image with .q7.rebase), link base 0x84000000 -> 0x84c00000 (delta 0xc00000, "),
        "{log}"
    );
    assert!(log.trim_end().ends_with("wrote c.ucpl"), "{log}");
}

#[test]
fn images_bind_at_their_own_base_without_relocations() {
    let dir = tempfile::tempdir().unwrap();
    for k in [0u32, 3, 7] {
        let input = fixture(&format!("prog_cpu{k}.stripped.so"));
        let out = format!("v{k}.ucpl");
        ok_in(dir.path(), &["prelink", input.to_str().unwrap(), "--core", &k.to_string(), "-o", &out]);
        let bytes = std::fs::read(dir.path().join(&out)).unwrap();
        assert_eq!(u32_at(&bytes, 8), 0x8400_0000 + k * 0x20_0000);
        // The same bytes as binding the relocatable cpu0 image there.
        let moved = format!("m{k}.ucpl");
        ok_in(
            dir.path(),
            &["prelink", fixture("prog_cpu0.so").to_str().unwrap(), "--core", &k.to_string(), "-o", &moved],
        );
        assert_eq!(bytes, std::fs::read(dir.path().join(&moved)).unwrap(), "cpu{k}");
    }
    let single = fixture("prog_single.stripped.so");
    ok_in(dir.path(), &["prelink", single.to_str().unwrap(), "--single", "-o", "single.ucpl"]);
    let bytes = std::fs::read(dir.path().join("single.ucpl")).unwrap();
    assert_eq!((u32_at(&bytes, 8), u32_at(&bytes, 24)), (0x8400_0000, 0xffff_ffff));
    ok_in(dir.path(), &["inspect", "ucpl", "single.ucpl"]);
}

#[test]
fn explicit_base_places_the_first_byte() {
    let dir = scratch();
    ok_in(dir.path(), &["prelink", "prog_cpu0.so", "--core", "2", "--base", "0x84410000", "-o", "at.ucpl"]);
    let bytes = std::fs::read(dir.path().join("at.ucpl")).unwrap();
    assert_eq!((u32_at(&bytes, 8), u32_at(&bytes, 12), u32_at(&bytes, 24)), (0x8441_0000, 0x8441_007c, 2));
    ok_in(dir.path(), &["inspect", "ucpl", "at.ucpl"]);
    let bad = q7_in(dir.path(), &["prelink", "prog_cpu0.so", "--core", "8", "-o", "x.ucpl"]);
    assert!(!bad.status.success() && !dir.path().join("x.ucpl").exists());
    let both = q7_in(dir.path(), &["prelink", "prog_cpu0.so", "--all-cores", "--base", "0x84000000", "-o", "d"]);
    assert!(!both.status.success(), "--base with --all-cores is refused");
}

#[test]
fn crc_matches_python_zlib() {
    let dir = scratch();
    ok_in(dir.path(), &["prelink", "prog_cpu0.so", "--core", "4", "-o", "c.ucpl"]);
    let path = dir.path().join("c.ucpl");
    let bytes = std::fs::read(&path).unwrap();
    let script = "import sys, zlib; print(zlib.crc32(open(sys.argv[1], 'rb').read()[32:]))";
    let Some(out) = peer("python3", &["-c", script, path.to_str().unwrap()]) else { return };
    assert!(out.status.success(), "{}", stderr(&out));
    let python: u32 = stdout(&out).trim().parse().unwrap();
    assert_eq!(u32_at(&bytes, 28), python);
}
