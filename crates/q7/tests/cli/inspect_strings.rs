//! `q7 inspect strings`: strings per allocated section with address and file
//! offset, pointer words filtered, compared with GNU readelf's `-p` dump.

use crate::common;

use common::*;
use serde_json::Value;

fn strings_json(args: &[&str]) -> Value {
    let mut all = vec!["inspect", "strings", "--json"];
    all.extend_from_slice(args);
    let out = q7(&all);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// readelf -p lists NUL-terminated printable runs with their section
/// offsets; every one of ours of the same text is among them.
#[test]
fn strings_match_readelf_string_dump() {
    let path = fixture("prog_cpu3.stripped.so");
    let p = path.to_str().unwrap();
    for section in [".rodata", ".data"] {
        let r = strings_json(&[p, "--section", section]);
        let s = &r["sections"][0];
        let ours: Vec<(u64, String)> = s["strings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (x["addr"].as_u64().unwrap() - s["addr"].as_u64().unwrap(), x["text"].as_str().unwrap().to_string())
            })
            .collect();
        assert!(!ours.is_empty());
        let Some(out) = peer("xtensa-lx106-elf-readelf", &["-p", section, p]) else { return };
        let theirs: Vec<(u64, String)> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let rest = l.trim_start().strip_prefix('[')?;
                let (off, text) = rest.split_once(']')?;
                Some((u64::from_str_radix(off.trim(), 16).ok()?, text.trim_start().to_string()))
            })
            .collect();
        for o in &ours {
            assert!(theirs.contains(o), "{section}: {o:?} not in readelf's {theirs:?}");
        }
        for x in s["strings"].as_array().unwrap() {
            let off = x["file_offset"].as_u64().unwrap() as usize;
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(&bytes[off..off + x["text"].as_str().unwrap().len()], x["text"].as_str().unwrap().as_bytes());
        }
    }
}

#[test]
fn min_and_section_filters() {
    let p = fixture("prog_cpu0.stripped.so");
    let r = strings_json(&[p.to_str().unwrap(), "--section", ".rodata", "--min", "3"]);
    let texts: Vec<&str> =
        r["sections"][0]["strings"].as_array().unwrap().iter().map(|x| x["text"].as_str().unwrap()).collect();
    for t in ["alpha", "beta", "gamma", "add", "sub", "mul", "xor"] {
        assert!(texts.contains(&t), "{t} in {texts:?}");
    }
    let all = strings_json(&[p.to_str().unwrap()]);
    assert_eq!(all["sections"].as_array().unwrap().len(), 5);
}

#[test]
fn errors_and_golden_report() {
    let p = fixture("prog_cpu0.stripped.so");
    let out = q7(&["inspect", "strings", p.to_str().unwrap(), "--section", ".nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).lines().count(), 1);
    assert!(stderr(&out).contains("no section named .nope"));
    let out = q7(&["inspect", "strings", p.to_str().unwrap(), "--section", ".shstrtab"]);
    assert!(stderr(&out).contains("not allocated"));
    let out = q7(&["inspect", "strings", p.to_str().unwrap()]);
    assert_golden("strings_prog_cpu0.txt", &stdout(&out).replace(&fixture("").display().to_string(), ""));
}
