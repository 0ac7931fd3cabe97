//! Where `q7 disasm` starts instructions: the boundary source reported in
//! JSON, stripped images and raw blobs resynchronized at targets the same
//! way, and empty executable sections listing nothing.

use crate::common;
use crate::disasm_support;

use common::*;
use disasm_support::*;

fn boundaries(path: &std::path::Path) -> Vec<(String, String)> {
    q7_listing(path, &["--isa", "lx106"]).into_iter().map(|s| (s.name, s.boundaries)).collect()
}

#[test]
fn json_names_the_boundary_source() {
    // GNU's object carries .xt.prop tables; clang's image has none.
    let gnu = boundaries(&fixture("kernels_gnu.o"));
    assert!(!gnu.is_empty() && gnu.iter().all(|(_, b)| b == "xt.prop"), "{gnu:?}");
    assert_eq!(boundaries(&fixture("prog_cpu0.so")), [(".text".to_string(), "targets".to_string())]);
}

#[test]
fn raw_blob_resyncs_like_the_stripped_image() {
    // prog_cpu0's .text as a raw blob at its own address lists exactly what
    // the stripped image lists: the literal pool as words, then the code.
    let path = fixture("prog_cpu0.stripped.so");
    let (bytes, base) = section_bytes(&path, ".text");
    let dir = tempfile::tempdir().unwrap();
    let blob = dir.path().join("text.bin");
    std::fs::write(&blob, &bytes).unwrap();
    let from_elf = q7_listing(&path, &[]);
    let from_raw = q7_listing(&blob, &["--base", &format!("{base:#x}")]);
    let lines = |sections: &[OurSection]| -> Vec<(u32, String)> {
        sections.iter().flat_map(|s| s.lines.iter().map(|l| (l.address, l.text()))).collect()
    };
    assert_eq!(lines(&from_raw), lines(&from_elf));
    let words = from_raw[0].lines.iter().filter(|l| l.is_word()).count();
    assert_eq!(words, 14, "the 56-byte literal pool before run_op is listed as words");
    assert_eq!(from_raw[0].boundaries, "targets");
}

#[test]
fn empty_executable_section_lists_nothing_and_succeeds() {
    let Some(_) = peer("xtensa-lx106-elf-as", &["--version"]) else { return };
    let dir = tempfile::tempdir().unwrap();
    let (source, object) = (dir.path().join("empty.s"), dir.path().join("empty.o"));
    std::fs::write(&source, "\t.text\n").unwrap();
    let out = peer("xtensa-lx106-elf-as", &[source.to_str().unwrap(), "-o", object.to_str().unwrap()]).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = q7(&["disasm", object.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "only the header line: {text}");
    // objdump agrees: no instruction lines.
    let gnu = peer("xtensa-lx106-elf-objdump", &["-d", object.to_str().unwrap()]).unwrap();
    assert!(gnu.status.success() && !stdout(&gnu).contains(":\t"), "{}", stdout(&gnu));
}

#[test]
fn literal_table_alone_marks_literal_words() {
    // kernels_gnu.o without its .xt.prop tables but with .xt.lit: the literal
    // pool of _start is still listed as a word, the code around it as code.
    let Some(_) = peer("xtensa-lx106-elf-objcopy", &["--version"]) else { return };
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("lit_only.o");
    let args = ["--remove-section=.xt.prop*", "--remove-section=.rela.xt.prop*"];
    let mut args: Vec<&str> = args.to_vec();
    let original = fixture("kernels_gnu.o");
    args.extend([original.to_str().unwrap(), copy.to_str().unwrap()]);
    let out = peer("xtensa-lx106-elf-objcopy", &args).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let sections = q7_listing(&copy, &["--isa", "lx106"]);
    let literal = sections.iter().find(|s| s.name == ".literal._start").unwrap();
    assert_eq!(literal.boundaries, "xt.lit");
    assert!(literal.lines.iter().all(|l| l.is_word()), "{:?}", literal.lines);
    let start = sections.iter().find(|s| s.name == ".text._start").unwrap();
    assert_eq!(start.boundaries, "targets");
    // The code lists as it does with the full tables.
    let full = q7_listing(&original, &["--isa", "lx106"]);
    let full_start = full.iter().find(|s| s.name == ".text._start").unwrap();
    assert_eq!(start.lines, full_start.lines);
}
