//! Tampered and unbindable inputs: each gives one clear line on stderr, a
//! failing exit, and writes nothing. The messages are snapshotted in
//! `snapshots/prelink_errors.txt` (`Q7_BLESS=1` rewrites it).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;
use q7_elf::ElfFile;

/// Runs q7 in `dir`, so messages name files relative to it.
fn q7_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7")).current_dir(dir).args(args).output().expect("run q7")
}

fn ok_in(dir: &Path, args: &[&str]) {
    let out = q7_in(dir, args);
    assert!(out.status.success(), "q7 {args:?}: {}", stderr(&out));
}

fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// The inputs, each written into `dir`; returns (case, prelink arguments).
fn tampered_inputs(dir: &Path) -> Vec<(&'static str, Vec<String>)> {
    let cpu0 = std::fs::read(fixture("prog_cpu0.so")).unwrap();
    std::fs::write(dir.join("prog_cpu0.so"), &cpu0).unwrap();
    ok_in(dir, &["prelink", "prog_cpu0.so", "--core", "1", "-o", "good.ucpl"]);
    ok_in(dir, &["strip", "prog_cpu0.so", "-o", "clean.stripped.so"]);
    ok_in(dir, &["pack", "prog_cpu0.so", "-e", "other_entry", "-o", "other.packed.so"]);
    let good = std::fs::read(dir.join("good.ucpl")).unwrap();
    let clean = std::fs::read(dir.join("clean.stripped.so")).unwrap();

    let mut bad_crc = good.clone();
    bad_crc[32 + 0x40] ^= 0x01;
    std::fs::write(dir.join("bad_crc.ucpl"), bad_crc).unwrap();

    let mut lying = good.clone();
    put_u32(&mut lying, 16, (good.len() - 32 + 0x100) as u32);
    std::fs::write(dir.join("lying_size.ucpl"), lying).unwrap();

    let mut reloc = cpu0.clone();
    let rela = ElfFile::parse(&cpu0).unwrap().section_by_name(".rela.data").unwrap().offset as usize;
    put_u32(&mut reloc, rela, 0x8410_0000);
    std::fs::write(dir.join("reloc_outside.so"), reloc).unwrap();

    let mut huge = clean.clone();
    let elf = ElfFile::parse(&clean).unwrap();
    let bss = elf.load_segments().find(|p| p.filesz == 0).unwrap();
    put_u32(&mut huge, elf.header().phoff as usize + 32 * bss.index + 20, 0x30_0000);
    std::fs::write(dir.join("huge_bss.stripped.so"), huge).unwrap();

    let mut table = clean.clone();
    let rebase = elf.section_by_name(".q7.rebase").unwrap();
    put_u32(&mut table, (rebase.offset + rebase.size - 4) as usize, 0x8410_0000);
    std::fs::write(dir.join("rebase_outside.stripped.so"), table).unwrap();

    std::fs::copy(fixture("prog_cpu0.stripped.so"), dir.join("vendor.stripped.so")).unwrap();

    let core1 = |input: &str| vec![input.to_string(), "--core".into(), "1".into()];
    let with = |mut v: Vec<String>, extra: &[&str]| {
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    vec![
        ("bad CRC", core1("bad_crc.ucpl")),
        ("image bytes larger than the file", core1("lying_size.ucpl")),
        ("relocation outside the image", core1("reloc_outside.so")),
        ("image larger than the window", core1("huge_bss.stripped.so")),
        ("missing lib_func", core1("other.packed.so")),
        (".q7.rebase entry outside the image", core1("rebase_outside.stripped.so")),
        ("moving a relocation-less image", core1("vendor.stripped.so")),
        (
            "moving a UCPL image",
            core1("good.ucpl").into_iter().map(|s| if s == "1" { "2".into() } else { s }).collect(),
        ),
        ("misaligned base", with(core1("prog_cpu0.so"), &["--base", "0x84200002"])),
        ("base outside the window", with(core1("prog_cpu0.so"), &["--base", "0x84000000"])),
    ]
}

#[test]
fn tampered_inputs_give_one_line_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cases = tampered_inputs(dir.path());
    let before = std::fs::read_dir(dir.path()).unwrap().count();
    let mut report = String::new();
    for (case, mut args) in cases {
        args.insert(0, "prelink".into());
        args.extend(["-o".into(), "out.ucpl".into()]);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = q7_in(dir.path(), &argv);
        let err = stderr(&out);
        assert!(!out.status.success(), "{case}: q7 {argv:?} succeeded");
        assert_eq!(err.lines().count(), 1, "{case}: one line, got {err:?}");
        assert!(err.starts_with("q7: error: "), "{case}: {err}");
        assert!(!dir.path().join("out.ucpl").exists(), "{case}: nothing written");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), before, "{case}: no stray files");
        report.push_str(&format!("{case}:\n  q7 {}\n  {err}", argv.join(" ")));
    }
    assert_golden("prelink_errors.txt", &report);
}

#[test]
fn all_cores_writes_nothing_when_one_core_fails() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("prog_cpu0.stripped.so"), dir.path().join("vendor.stripped.so")).unwrap();
    // cpu0 binds (delta 0), cpu1 cannot: no file may appear.
    let out = q7_in(dir.path(), &["prelink", "vendor.stripped.so", "--all-cores", "-o", "out"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not moved to 0x84200000"), "{}", stderr(&out));
    assert!(!dir.path().join("out").exists());
}

#[test]
fn inspect_reports_each_failed_check_and_exits_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    tampered_inputs(dir.path());
    let mut bytes = std::fs::read(dir.path().join("good.ucpl")).unwrap();
    bytes[0] = b'X';
    bytes[24] = 9;
    std::fs::write(dir.path().join("damaged.ucpl"), bytes).unwrap();
    let mut report = String::new();
    for name in ["bad_crc.ucpl", "lying_size.ucpl", "damaged.ucpl"] {
        let out = q7_in(dir.path(), &["inspect", "ucpl", name]);
        assert!(!out.status.success(), "{name}");
        assert_eq!(stderr(&out).lines().count(), 1, "{name}: {}", stderr(&out));
        report.push_str(&stdout(&out));
        report.push_str(&stderr(&out));
        report.push('\n');
    }
    let short = q7_in(dir.path(), &["inspect", "ucpl", "prog_cpu0.so"]);
    assert!(!short.status.success());
    report.push_str(&stderr(&short));
    assert_golden("prelink_inspect_tampered.txt", &report);
}
