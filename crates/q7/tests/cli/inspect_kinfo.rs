//! `q7 inspect kinfo` on the host fixture's images, checked against GNU
//! readelf's hex dump of kernel_info_table and llvm-objdump's disassembly at
//! every entry (the `entry a1,N` instruction and the first `retw.n`).

use crate::common;

use std::path::PathBuf;

use common::*;
use serde_json::Value;

const IMAGES: &[&str] = &["sunda.elf", "cayman_lib0.elf", "cayman_lib1.elf", "mariana_lib0.elf", "mariana_lib1.elf"];

fn host(name: &str) -> PathBuf {
    root().join("fixtures/host/bin").join(name)
}

fn kinfo_json(path: &str) -> Value {
    let out = q7(&["inspect", "kinfo", path, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `(opcode, entry)` pairs read from `readelf -x kernel_info_table`: each
/// dump line shows words as stored, so the opcode word reads big-endian as
/// printed and the entry word must be byte-swapped.
fn readelf_records(path: &str) -> Option<Vec<(u32, u32)>> {
    let out = peer("xtensa-lx106-elf-readelf", &["-x", "kernel_info_table", path])?;
    let mut words = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.trim_start().starts_with("0x")) {
        let fields: Vec<&str> = line.split_whitespace().skip(1).take(4).collect();
        words.extend(fields.iter().filter(|w| w.len() == 8).map(|w| u32::from_str_radix(w, 16).unwrap()));
    }
    Some(words.chunks(2).map(|w| (w[0], w[1].swap_bytes())).collect())
}

#[test]
fn records_match_readelf_hex_dump() {
    for image in IMAGES {
        let path = host(image);
        let r = kinfo_json(path.to_str().unwrap());
        let ours: Vec<(u32, u32)> = r["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| (x["opcode"].as_u64().unwrap() as u32, x["entry"].as_u64().unwrap() as u32))
            .collect();
        let Some(theirs) = readelf_records(path.to_str().unwrap()) else { return };
        assert_eq!(ours, theirs, "{image}");
    }
}

#[test]
fn entries_disassemble_to_entry_and_retw_n() {
    for image in IMAGES {
        let path = host(image);
        let r = kinfo_json(path.to_str().unwrap());
        for e in r["entries"].as_array().unwrap() {
            let addr = e["address"].as_u64().unwrap();
            let p = &e["prologue"];
            assert_eq!(p["windowed"], true, "{image} {addr:#x}");
            let ret = p["ret"]["address"].as_u64().unwrap();
            assert_eq!(p["ret"]["mnemonic"], "retw.n");
            // llvm-objdump crashes on a whole stripped .text (literal pools
            // decode as garbage); disassembling each kernel's range works.
            let Some(out) = peer(
                "llvm-objdump-22",
                &[
                    "-d",
                    "--mattr=+windowed,+density,+mul32,+div32,+nsa,+minmax,+sext,+loop",
                    &format!("--start-address={addr:#x}"),
                    &format!("--stop-address={:#x}", ret + 2),
                    path.to_str().unwrap(),
                ],
            ) else {
                return;
            };
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let insns: Vec<&str> = text.lines().filter(|l| l.contains(":\t") || l.contains(": ")).collect();
            let first = insns.iter().find(|l| l.trim_start().starts_with(&format!("{addr:x}:"))).unwrap();
            let frame = p["frame_size"].as_u64().unwrap();
            assert!(first.contains(&format!("entry\ta1, {frame}")), "{image} {addr:#x}: {first}");
            let first_ret = insns.iter().find(|l| l.contains("retw")).unwrap();
            assert!(first_ret.trim_start().starts_with(&format!("{ret:x}:")), "{image}: {first_ret}");
            assert!(first_ret.contains("retw.n"));
        }
    }
}

#[test]
fn shared_entries_and_frames() {
    let r = kinfo_json(host("sunda.elf").to_str().unwrap());
    assert_eq!(r["records"].as_array().unwrap().len(), 6);
    assert_eq!(r["entries"].as_array().unwrap().len(), 5);
    let shared: Vec<&Value> =
        r["entries"].as_array().unwrap().iter().filter(|e| e["opcodes"] == serde_json::json!([67, 68])).collect();
    assert_eq!(shared.len(), 1, "ops 67 and 68 share one kernel");
    // pool_memset's 64-word scratch array gives it a frame over 256 bytes.
    let memset = r["entries"].as_array().unwrap().iter().find(|e| e["opcodes"] == serde_json::json!([9])).unwrap();
    assert!(memset["prologue"]["frame_size"].as_u64().unwrap() > 256);
}

#[test]
fn opcode_lookup_hit_miss_and_strict() {
    let path = host("sunda.elf");
    let p = path.to_str().unwrap();
    let hit = q7(&["inspect", "kinfo", p, "--opcode", "0xe7"]);
    assert!(hit.status.success());
    assert!(stdout(&hit).starts_with("opcode 231 (0xe7) -> entry 0x01000140"), "{}", stdout(&hit));
    let miss = q7(&["inspect", "kinfo", p, "--opcode", "999"]);
    assert_eq!(miss.status.code(), Some(0));
    assert!(stdout(&miss).starts_with("DISPATCH_MISS: opcode 999"), "{}", stdout(&miss));
    let strict = q7(&["inspect", "kinfo", p, "--opcode", "999", "--strict"]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(stdout(&strict).starts_with("DISPATCH_MISS"));
    assert_eq!(stderr(&strict).lines().count(), 1);
    let strict_hit = q7(&["inspect", "kinfo", p, "--opcode", "68", "--strict"]);
    assert!(strict_hit.status.success());
    let json = q7(&["inspect", "kinfo", p, "--opcode", "999", "--json"]);
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["dispatch_miss"], true);
}

#[test]
fn human_report_matches_golden_file() {
    let out = q7(&["inspect", "kinfo", host("sunda.elf").to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out).replace(&host("sunda.elf").display().to_string(), "sunda.elf");
    assert_golden("kinfo_sunda.txt", &text);
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

/// Section header of `kernel_info_table` in a fixture image.
fn kinfo_header(b: &[u8]) -> usize {
    let elf = q7_elf::ElfFile::parse(b).unwrap();
    let index = elf.section_by_name("kernel_info_table").unwrap().index;
    u32_at(b, 32) as usize + index * 40
}

#[test]
fn malformed_images_get_one_line_errors() {
    let good = std::fs::read(host("sunda.elf")).unwrap();
    let sh = kinfo_header(&good);
    let mut odd = good.clone();
    odd[sh + 20..sh + 24].copy_from_slice(&(u32_at(&good, sh + 20) - 3).to_le_bytes());
    let mut nobits = good.clone();
    nobits[sh + 4..sh + 8].copy_from_slice(&8u32.to_le_bytes());
    let mut wild_entry = good.clone();
    let table = u32_at(&good, sh + 16) as usize;
    wild_entry[table + 4..table + 8].copy_from_slice(&0x7000_0000u32.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("not-elf", b"{\"dummy_message\":\"hello world\"}".to_vec()),
        ("host-x86-64", std::fs::read(host("libq7ucode_host.so")).unwrap()),
        ("no-table", std::fs::read(fixture("prog_cpu0.so")).unwrap()),
        ("table-size-not-multiple-of-8", odd),
        ("table-nobits", nobits),
        ("truncated", good[..good.len() / 3].to_vec()),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut report = String::new();
    for (name, bytes) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = q7(&["inspect", "kinfo", path.to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(!err.contains("panicked"));
        report.push_str(&format!("{name}: {}\n", err.trim_end().replace(&dir.path().display().to_string(), "$DIR")));
    }
    // An entry outside the image is a finding in the report, not an error.
    let path = dir.path().join("wild-entry");
    std::fs::write(&path, wild_entry).unwrap();
    let out = q7(&["inspect", "kinfo", path.to_str().unwrap()]);
    assert!(out.status.success());
    let line = stdout(&out).lines().find(|l| l.contains("0x70000000") && l.contains("no section")).map(str::to_string);
    report.push_str(&format!("wild-entry: {}\n", line.expect("entry row").trim()));
    assert_golden("kinfo_malformed.txt", &report);
}
