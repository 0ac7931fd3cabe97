//! Every malformed input gets one clear line on stderr and a non-zero exit,
//! never a panic (snapshot of the messages in snapshots/malformed.txt).

use crate::common;

use common::*;

fn put_u16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

/// The malformed variants of a real fixture image, each with a name.
fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let good = std::fs::read(fixture("prog_cpu0.so")).unwrap();
    let shoff = u32_at(&good, 32) as usize;
    let mut v: Vec<(&'static str, Vec<u8>)> = vec![
        ("zero-length", Vec::new()),
        ("not-elf", b"#!/bin/sh\necho hi\n".to_vec()),
        ("truncated-ident", good[..10].to_vec()),
        ("truncated-header", good[..40].to_vec()),
        ("truncated-middle", good[..good.len() / 2].to_vec()),
    ];
    let mut b = good.clone();
    b[4] = 2;
    v.push(("wrong-class-elf64", b));
    let mut b = good.clone();
    b[5] = 7;
    v.push(("bad-encoding", b));
    let mut b = good.clone();
    put_u16(&mut b, 18, 62);
    v.push(("wrong-machine-x86-64", b));
    let mut b = good.clone();
    put_u32(&mut b, 32, good.len() as u32 - 8);
    v.push(("section-table-out-of-range", b));
    let mut b = good.clone();
    put_u16(&mut b, 48, 0xffff);
    v.push(("huge-section-count", b));
    let mut b = good.clone();
    put_u16(&mut b, 44, 0xffff);
    v.push(("huge-program-header-count", b));
    let mut b = good.clone();
    put_u16(&mut b, 46, 64);
    v.push(("lying-shentsize", b));
    let mut b = good.clone();
    put_u16(&mut b, 50, 200);
    v.push(("shstrndx-out-of-range", b));
    // Section 2 claims section 1's file offset: the two overlap.
    let mut b = good.clone();
    let sh1_offset = u32_at(&good, shoff + 40 + 16);
    put_u32(&mut b, shoff + 2 * 40 + 16, sh1_offset);
    v.push(("overlapping-offsets", b));
    // Section 1's size runs past the end of the file.
    let mut b = good.clone();
    put_u32(&mut b, shoff + 40 + 20, 0x7fff_0000);
    v.push(("section-data-past-eof", b));
    // A LOAD segment whose file size exceeds its memory size.
    let mut b = good.clone();
    let phoff = u32_at(&good, 28) as usize;
    put_u32(&mut b, phoff + 20, 1);
    v.push(("segment-filesz-over-memsz", b));
    v
}

#[test]
fn malformed_images_get_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = String::new();
    for (name, bytes) in cases() {
        let path = dir.path().join(format!("{name}.so"));
        std::fs::write(&path, &bytes).unwrap();
        let out = q7(&["layout", path.to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: exit status, stderr {err}");
        assert!(out.stdout.is_empty(), "{name}: printed a report: {}", stdout(&out));
        assert_eq!(err.lines().count(), 1, "{name}: not one line: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        let shown = err.trim_end().replace(&dir.path().display().to_string(), "$DIR");
        report.push_str(&format!("{name}: {shown}\n"));
    }
    assert_golden("malformed.txt", &report);
}

#[test]
fn missing_file_names_the_path() {
    let out = q7(&["layout", "/nonexistent dir/$(x);.so"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("q7: error: /nonexistent dir/$(x);.so: cannot read"), "{}", stderr(&out));
}

#[test]
fn paths_with_spaces_and_metacharacters_work() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("my image $(rm -rf x); `y` & z.so");
    std::fs::copy(fixture("prog_cpu2.so"), &path).unwrap();
    let out = q7(&["layout", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("window    cpu2"));
}
