//! Bad inputs to `q7 pack` and `q7 strip`: each gets exactly one line on
//! stderr that names the file (compared to the expected text below), a
//! non-zero exit, and no output file (neither -o nor -s, nor a temporary).
//! Paths with spaces and shell metacharacters work.

use crate::pack_support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use pack_support::*;
use q7_elf::consts::*;
use q7_elf::write::{ElfBuilder, NewSection, NewSegment};
use q7_elf::Endian;

/// An x86-64 object from the host C compiler.
fn host_object(dir: &Path) -> Vec<u8> {
    let c = dir.join("host.c");
    let o = dir.join("host.o");
    std::fs::write(&c, "int answer(void) { return 42; }\n").unwrap();
    let out = Command::new("cc")
        .args([OsStr::new("-c"), c.as_os_str(), OsStr::new("-o"), o.as_os_str()])
        .output()
        .unwrap_or_else(|e| panic!("peer tool `cc` is not runnable ({e}); run scripts/bootstrap.sh"));
    assert!(out.status.success(), "cc -c: {}", text(&out.stderr));
    std::fs::read(&o).unwrap()
}

/// A linked image whose only segment is `.bss`: nothing to load from the file.
fn bss_only_image() -> Vec<u8> {
    let mut b = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    let bss = b.add_section(NewSection::nobits(".bss", SHF_ALLOC | SHF_WRITE, 0x8400_0000, 4, 0x100));
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_W, align: 4, sections: vec![bss] });
    b.build().unwrap()
}

/// (file name, bytes, expected message after "q7: error: <path>: ").
fn cases(dir: &Path) -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let good = std::fs::read(fixture("prog_cpu0.so")).unwrap();
    let mut i386 = good.clone();
    i386[18..20].copy_from_slice(&EM_386.to_le_bytes());
    vec![
        ("empty.so", Vec::new(), "empty file (0 bytes)"),
        ("script.so", b"#!/bin/sh\necho hi\n".to_vec(), "not an ELF file: magic is [23, 21, 2f, 62], expected 7f 45 4c 46"),
        (
            "truncated-header.so",
            good[..40].to_vec(),
            "truncated: ELF32 header needs bytes 0x0..0x34 but the file is 0x28 bytes",
        ),
        (
            "truncated-half.so",
            good[..good.len() / 2].to_vec(),
            "section header table: out of range: 15 entries at 0xac0..0xd18, but the file is 0x68c bytes",
        ),
        ("host.o", host_object(dir), "wrong ELF class: ELFCLASS64 (64-bit); q7 reads 32-bit ELF (ELFCLASS32) only"),
        ("i386.so", i386, "wrong machine: Intel 80386 (e_machine 3); expected Tensilica Xtensa (94)"),
        (
            "prog.o",
            std::fs::read(fixture("prog.o")).unwrap(),
            "ELF type REL (relocatable object) (1) is not a linked image; q7 packs linked executables (EXEC or DYN), e.g. the name.so that the link step writes",
        ),
        ("bss-only.so", bss_only_image(), "no loadable content: no PT_LOAD program header has file bytes"),
    ]
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| file_name(&e.unwrap().path())).collect();
    v.sort();
    v
}

#[test]
fn bad_inputs_get_one_line_errors_and_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    let outputs = dir.path().join("out");
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::create_dir_all(&outputs).unwrap();
    let packed = outputs.join("x.packed.so");
    let stripped = outputs.join("x.stripped.so");

    let mut cases = cases(dir.path());
    cases.push(("missing.so", Vec::new(), "cannot read: No such file or directory (os error 2)"));
    for (name, bytes, message) in cases {
        let input = inputs.join(name);
        if name != "missing.so" {
            std::fs::write(&input, &bytes).unwrap();
        }
        let expected = format!("q7: error: {}: {message}\n", input.display());
        let runs: [Vec<&OsStr>; 2] = [
            vec![
                "pack".as_ref(),
                input.as_os_str(),
                "-o".as_ref(),
                packed.as_os_str(),
                "-s".as_ref(),
                stripped.as_os_str(),
            ],
            vec!["strip".as_ref(), input.as_os_str(), "-o".as_ref(), stripped.as_os_str()],
        ];
        for args in runs {
            let out = q7(&args);
            assert_eq!(out.status.code(), Some(1), "{name}: {args:?}");
            assert_eq!(text(&out.stderr), expected, "{name}: {args:?}");
            assert!(out.stdout.is_empty());
            assert_eq!(entries(&outputs), Vec::<String>::new(), "{name}: {args:?} left output behind");
        }
    }
}

#[test]
fn option_errors_are_one_line_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("prog_cpu0.so");
    let out_file = dir.path().join("x.so");
    let run = |extra: &[&OsStr]| {
        let mut args: Vec<&OsStr> = vec!["pack".as_ref(), input.as_os_str(), "-o".as_ref(), out_file.as_os_str()];
        args.extend_from_slice(extra);
        q7(&args)
    };

    let same = run(&["-s".as_ref(), out_file.as_os_str()]);
    assert_eq!(same.status.code(), Some(1));
    assert_eq!(
        text(&same.stderr),
        format!("q7: error: -o and -s both name {}; they must be two files\n", out_file.display())
    );

    let bad_symbol = run(&["-e".as_ref(), "9lives".as_ref()]);
    assert_eq!(bad_symbol.status.code(), Some(1));
    assert_eq!(text(&bad_symbol.stderr), "q7: error: symbol name \"9lives\": starts with a digit\n");

    let bad_page = run(&["-p".as_ref(), "3000".as_ref()]);
    assert_ne!(bad_page.status.code(), Some(0));
    assert!(
        text(&bad_page.stderr).contains("`3000` is not a power of two from 4 to 0x100000"),
        "{}",
        text(&bad_page.stderr)
    );

    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn paths_with_spaces_and_shell_metacharacters_work() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("dir with $(touch pwned); `x` & 'q'");
    std::fs::create_dir_all(&odd).unwrap();
    let input: PathBuf = odd.join("my $(touch pwned); img.so");
    std::fs::copy(fixture("prog_cpu3.so"), &input).unwrap();
    let packed = odd.join("out $(id);.packed.so");
    let stripped = odd.join("out $(id);.stripped.so");
    let out = q7(&[
        OsStr::new("pack"),
        input.as_os_str(),
        "-o".as_ref(),
        packed.as_os_str(),
        "-s".as_ref(),
        stripped.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let packed_bytes = std::fs::read(&packed).unwrap();
    assert_eq!(q7_pack::embedded_image(&packed_bytes, "lib_func").unwrap(), &std::fs::read(&stripped).unwrap()[..]);
    assert!(!odd.join("pwned").exists() && !Path::new("pwned").exists(), "nothing ran a shell");

    // The same path in an error message, verbatim.
    std::fs::write(&input, b"").unwrap();
    let out = q7(&[OsStr::new("strip"), input.as_os_str(), "-o".as_ref(), odd.join("o.so").as_os_str()]);
    assert_eq!(text(&out.stderr), format!("q7: error: {}: empty file (0 bytes)\n", input.display()));
}
