//! `q7 disasm` behaviour: golden listings, the JSON Lines shape, raw blobs,
//! the scalar-LX length rule, one-line errors and a closed pipe.

use crate::common;
use crate::disasm_support;

use std::io::Read;
use std::process::{Command, Stdio};

use common::*;
use disasm_support::*;

fn listing(args: &[&str]) -> String {
    let out = q7(args);
    assert!(out.status.success(), "q7 {args:?}: {}", stderr(&out));
    stdout(&out).replace(&root().display().to_string(), "$ROOT")
}

#[test]
fn golden_listing_of_prog_cpu3() {
    let path = fixture("prog_cpu3.so");
    assert_golden("disasm_prog_cpu3.txt", &listing(&["disasm", path.to_str().unwrap()]));
}

#[test]
fn golden_range_listing() {
    // From the middle of run_op's body to just inside _start: a synthesized
    // `<run_op+0x9>` label, then the restart at _start.
    let path = fixture("prog_cpu3.so");
    let text = listing(&["disasm", path.to_str().unwrap(), "--range", "0x84600041..0x84600088"]);
    assert!(text.contains("\n84600041 <run_op+0x9>:\n"), "{text}");
    assert!(text.contains("\n8460007c <_start>:\n"), "{text}");
    assert_golden("disasm_prog_cpu3_range.txt", &text);
}

#[test]
fn json_lines_shape() {
    let path = fixture("prog_cpu3.so");
    let text = listing(&["disasm", path.to_str().unwrap(), "--json"]);
    let records: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let file = &records[0];
    assert_eq!(file["type"], "file");
    assert_eq!(
        (file["format"].as_str(), file["isa"].as_str(), file["lx_scalar"].as_bool()),
        (Some("elf"), Some("vision-q7"), Some(false))
    );
    let section = &records[1];
    assert_eq!((section["type"].as_str(), section["name"].as_str()), (Some("section"), Some(".text")));
    assert_eq!((section["address"].as_u64(), section["size"].as_u64()), (Some(0x8460_0000), Some(0x1ac)));

    let insn_keys = [
        "address",
        "bytes",
        "error",
        "literal",
        "literal_symbol",
        "mnemonic",
        "operands",
        "target",
        "target_symbol",
        "type",
    ];
    let mut kinds = std::collections::BTreeMap::new();
    for record in &records {
        let kind = record["type"].as_str().unwrap();
        *kinds.entry(kind).or_insert(0) += 1;
        if kind == "insn" {
            let mut keys: Vec<&str> = record.as_object().unwrap().keys().map(String::as_str).collect();
            keys.sort();
            assert_eq!(keys, insn_keys);
            assert_eq!(record["error"].is_null(), record["mnemonic"] != ".byte", "{record}");
        }
    }
    assert_eq!(kinds["file"], 1);
    assert_eq!(kinds["section"], 1);
    assert_eq!(kinds["label"], 11, "{kinds:?}");

    let at = |addr: u64| records.iter().find(|r| r["type"] == "insn" && r["address"] == addr).unwrap();
    let l32r = at(0x8460_004a);
    assert_eq!(
        l32r.to_string(),
        r#"{"address":2220884042,"bytes":"91edff","error":null,"literal":2220884456,"literal_symbol":"kOps","mnemonic":"l32r","operands":"a9, 0x84600000","target":2220883968,"target_symbol":"_stext","type":"insn"}"#
    );
    let branch = at(0x8460_008b);
    assert_eq!((branch["mnemonic"].as_str(), branch["target_symbol"].as_str()), (Some("bgeu"), Some("_start+0x1e")));
    let padding = at(0x8460_00d3);
    assert_eq!((padding["mnemonic"].as_str(), padding["operands"].as_str()), (Some(".byte"), Some("0x00")));
    assert_eq!(padding["error"], "3-byte instruction truncated to 1 bytes");
    let retw = at(0x8460_007a);
    assert_eq!(
        (retw["mnemonic"].as_str(), retw["operands"].as_str(), retw["bytes"].as_str()),
        (Some("retw.n"), Some(""), Some("1df0"))
    );
}

/// Every line of every section: address, bytes, text, target, literal, error.
fn instructions(sections: &[OurSection]) -> Vec<Ours> {
    sections.iter().flat_map(|s| s.lines.clone()).collect()
}

#[test]
fn raw_text_bytes_list_like_the_elf() {
    let path = fixture("prog_cpu0.so");
    let (text, base) = section_bytes(&path, ".text");
    assert_eq!(base, 0x8400_0000);
    let dir = tempfile::tempdir().unwrap();
    let blob = dir.path().join("text.bin");
    std::fs::write(&blob, &text).unwrap();

    let raw = q7_listing(&blob, &["--base", "0x84000000"]);
    assert_eq!(raw.len(), 1);
    assert_eq!((raw[0].name.as_str(), raw[0].address), ("raw", 0x8400_0000));
    // Without symbols the ELF's .text sweeps straight through, as raw bytes do.
    let elf = q7_listing(&path, &["--no-symbols"]);
    assert_eq!(instructions(&raw), instructions(&elf));
    assert!(instructions(&raw).iter().filter(|i| i.literal.is_some()).count() > 10, "literal words read from the blob");

    // The human listing names targets by region and offset.
    let human = listing(&["disasm", blob.to_str().unwrap(), "--base", "0x84000000"]);
    assert!(human.contains("raw code, 428 bytes at 0x84000000; ISA vision-q7\n"), "{human}");
    assert!(human.contains("l32r\ta8, 0x8400000c <raw+0xc>  ; 0x840001bc\n"), "{human}");

    // With symbols the ELF listing restarts at each function; the raw sweep,
    // out of step through the literal pool and run_op, is back in step by
    // _start and lists it the same.
    let with_symbols = instructions(&q7_listing(&path, &[]));
    let raw_by_address: std::collections::BTreeMap<u32, _> =
        instructions(&raw).into_iter().map(|i| (i.address, i)).collect();
    let start = with_symbols.iter().filter(|i| (0x8400_007c..0x8400_00d3).contains(&i.address));
    for insn in start {
        assert_eq!(raw_by_address.get(&insn.address), Some(insn));
    }
}

#[test]
fn lx_scalar_rule_on_crafted_bytes() {
    // op0 0xe and 0xf words (FLIX bundle heads on Vision, 3-byte scalar words
    // on a scalar LX core), retw.n, entry; then a reserved word and bytes up
    // to the next retw.n.
    let bytes = [0x0e, 0x11, 0x22, 0x0f, 0x33, 0x44, 0x1d, 0xf0, 0x36, 0x41, 0x00, 0x20, 0x00, 0x00, 0x55, 0x1d, 0xf0];
    let dir = tempfile::tempdir().unwrap();
    let blob = dir.path().join("ncfw.bin");
    std::fs::write(&blob, bytes).unwrap();

    let scalar = q7_listing(&blob, &["--lx-scalar", "--base", "0x1000"]);
    let lines: Vec<(u32, usize, String)> =
        scalar[0].lines.iter().map(|l| (l.address, l.bytes.len(), l.text())).collect();
    assert_eq!(
        lines,
        [
            (0x1000, 3, ".byte 0x0e, 0x11, 0x22".to_string()),
            (0x1003, 3, ".byte 0x0f, 0x33, 0x44".to_string()),
            (0x1006, 2, "retw.n".to_string()),
            (0x1008, 3, "entry a1, 32".to_string()),
            (0x100b, 4, ".byte 0x20, 0x00, 0x00, 0x55".to_string()),
            (0x100f, 2, "retw.n".to_string()),
        ]
    );
    // The Vision rule reads op0 0xe as a bundle of unknown length and skips one byte.
    let vision = q7_listing(&blob, &["--base", "0x1000"]);
    assert_eq!(vision[0].lines[0].text(), ".byte 0x0e");
    assert_ne!(vision[0].lines[1].address, 0x1003);

    let human = listing(&["disasm", blob.to_str().unwrap(), "--lx-scalar"]);
    assert!(human.contains("; ISA vision-q7, scalar-LX length rule\n"), "{human}");
}

#[test]
fn section_and_symbol_options() {
    let path = fixture("prog_cpu3.so");
    let path = path.to_str().unwrap();
    let rodata = listing(&["disasm", path, "--section", ".rodata"]);
    assert!(rodata.contains("\nDisassembly of section .rodata:\n"), "{rodata}");
    assert!(rodata.contains("\n846001e8 <kOps>:\n"), "{rodata}");
    assert!(!rodata.contains("section .text"));

    let bare = listing(&["disasm", path, "--no-symbols"]);
    assert!(bare.contains("\n84600000 <.text>:\n"), "{bare}");
    assert!(bare.contains("l32r\ta8, 0x8460000c <.text+0xc>  ; 0x846001bc <.dtors>\n"), "{bare}");
    assert_eq!(bare.matches(" <").count(), bare.matches(">").count());
    assert!(!bare.contains("<run_op"));
    // --symbols is the default, and the later flag wins.
    assert_eq!(listing(&["disasm", path, "--no-symbols", "--symbols"]), listing(&["disasm", path]));

    // A stripped image is named by section and offset, like --no-symbols.
    let stripped = listing(&["disasm", fixture("prog_cpu3.stripped.so").to_str().unwrap()]);
    assert_eq!(stripped.lines().skip(1).collect::<Vec<_>>(), bare.lines().skip(1).collect::<Vec<_>>());

    // Objects: every executable section, targets named inside their section only.
    let object = listing(&["disasm", fixture("prog.o").to_str().unwrap()]);
    assert!(object.contains("\nDisassembly of section .text.run_op:\n\n00000000 <run_op>:\n"), "{object}");
    assert!(object.contains("\nDisassembly of section .literal.run_op:\n"), "{object}");
    assert!(!object.contains("; 0x"), "no literal values in a relocatable object");
}

#[test]
fn bad_inputs_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    let good = std::fs::read(fixture("prog_cpu0.so")).unwrap();
    let truncated = dir.path().join("truncated.so");
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    let elf = fixture("prog_cpu0.so");
    let elf = elf.to_str().unwrap();
    let host = root().join("fixtures/host/bin/libq7ucode_host.so");
    let missing = dir.path().join("missing");

    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![empty.to_str().unwrap()], "empty input (0 bytes)"),
        (vec![truncated.to_str().unwrap()], "section header table: out of range"),
        (vec![host.to_str().unwrap()], "wrong ELF class"),
        (vec![elf, "--section", ".nope"], "no section named `.nope` (sections: .text, .rela.text"),
        (vec![elf, "--section", ".bss"], "section `.bss` has no bytes"),
        (vec![elf, "--range", "0x84000010"], "--range: bad address range `0x84000010`: expected START..END"),
        (vec![elf, "--range", "0x20..0x10"], "START must be below END"),
        (vec![elf, "--range", "zz..0x10"], "START is not a 32-bit hex"),
        (
            vec![elf, "--range", "0..0x100"],
            "address range 0x0..0x100 covers no bytes of the executable sections (check --range)",
        ),
        (
            vec![elf, "--base", "0x1000"],
            "a load address applies to raw (non-ELF) input only; an ELF file has its own addresses (drop --base)",
        ),
        (vec![truncated.to_str().unwrap(), "--base", "nope"], "bad --base `nope`"),
        (vec![empty.to_str().unwrap(), "--section", ".text"], "empty input"),
        (vec![missing.to_str().unwrap()], "cannot read"),
    ];
    for (args, expected) in cases {
        let mut full = vec!["disasm"];
        full.extend(&args);
        let out = q7(&full);
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(out.stdout.is_empty(), "{args:?} wrote a listing");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("q7: error: ") && err.contains(expected), "{args:?}: {err}");
    }
    // Raw input with --section.
    let blob = dir.path().join("blob.bin");
    std::fs::write(&blob, [0x1d, 0xf0]).unwrap();
    let err = stderr(&q7(&["disasm", blob.to_str().unwrap(), "--section", ".text"]));
    assert!(
        err.contains("a section name applies to ELF input only; raw input has one region (drop --section)"),
        "{err}"
    );
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    // 256 KiB of code lists to far more than a pipe holds.
    let dir = tempfile::tempdir().unwrap();
    let blob = dir.path().join("big.bin");
    let code: Vec<u8> = [0x36, 0x41, 0x00, 0x1d, 0xf0].iter().copied().cycle().take(256 << 10).collect();
    std::fs::write(&blob, code).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_q7"))
        .args(["disasm", blob.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 256];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // Dropping the read end closes the pipe while q7 is still writing.
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "exit {:?}: {}", out.status, stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}
