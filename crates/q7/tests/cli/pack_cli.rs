//! The `q7 pack` / `q7 strip` command lines: help text for every flag, the
//! -v narration, `q7 strip` = `q7 pack -s`, the page-size path (-p) and -l.

use crate::pack_support;

use std::ffi::OsStr;

use pack_support::*;
use q7_elf::consts::*;
use q7_elf::ElfFile;

#[test]
fn help_describes_every_flag() {
    let pack = text(&q7(&["pack", "--help"]).stdout);
    for flag in [
        "-o, --output <OUT.packed.so>",
        "-s, --save-stripped <OUT.stripped.so>",
        "-e, --symbol <SYMBOL>",
        "[default: lib_func]",
        "-l, --symlookup",
        "-p, --shared-pagesize <PAGESIZE>",
        "-v, --verbose",
        "--xtensa-core <CORE>",
        "--xtensa-params <DIR>",
        "--xtensa-system <DIR>",
        "xt-pkg-loadlib",
        "p_offset ≡ p_vaddr",
        "Accepted and ignored",
    ] {
        assert!(pack.contains(flag), "q7 pack --help lacks {flag:?}:\n{pack}");
    }
    let strip = text(&q7(&["strip", "--help"]).stdout);
    for flag in
        ["-o, --output <OUT.stripped.so>", "-l, --symlookup", "-p, --shared-pagesize", "-v, --verbose", ".q7.rebase"]
    {
        assert!(strip.contains(flag), "q7 strip --help lacks {flag:?}:\n{strip}");
    }
}

#[test]
fn verbose_narrates_each_step_and_quiet_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("prog_cpu0.so");
    let packed = dir.path().join("p.packed.so");
    let stripped = dir.path().join("p.stripped.so");
    let args = |verbose: bool| {
        let mut v: Vec<&OsStr> = vec![
            "pack".as_ref(),
            "--xtensa-core=ncore2gp".as_ref(),
            "--xtensa-system=/opt/xtensa/config".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            packed.as_os_str(),
            "-s".as_ref(),
            stripped.as_os_str(),
        ];
        if verbose {
            v.push("-v".as_ref());
        }
        v
    };
    let quiet = q7(&args(false));
    assert!(quiet.status.success() && quiet.stderr.is_empty() && quiet.stdout.is_empty());

    let loud = q7(&args(true));
    assert!(loud.status.success());
    let log = text(&loud.stderr);
    let stripped_len = std::fs::metadata(&stripped).unwrap().len();
    for expected in [
        "note: --xtensa-core=ncore2gp ignored: q7 packs without an Xtensa core configuration".to_string(),
        "note: --xtensa-system=/opt/xtensa/config ignored".to_string(),
        "input: 3352 bytes, ELF32 little-endian EXEC, 15 sections, 2 program headers".to_string(),
        "strip: remove [2] .rela.text (RELA, 0x1d4 bytes): not loaded (static relocations)".to_string(),
        "strip: remove [12] .symtab (SYMTAB, 0x310 bytes): not loaded (symbol table)".to_string(),
        "keep: .text .ctors .dtors .rodata .data .bss".to_string(),
        "29 absolute R_XTENSA_32 words".to_string(),
        "plus 2 words of the linker script's _bss_table: 31 words -> .q7.rebase (140 bytes)".to_string(),
        "layout: loadable bytes 0x0..0x2c4 keep their file offsets".to_string(),
        format!("cleaned image: 3352 -> {stripped_len} bytes"),
        format!("wrote {} ({stripped_len} bytes)", stripped.display()),
        format!("wrote {} (", packed.display()),
    ] {
        assert!(log.contains(&expected), "-v lacks {expected:?}:\n{log}");
    }

    let kernels = q7(&[
        OsStr::new("strip"),
        fixture("kernels_gnu.so").as_os_str(),
        "-o".as_ref(),
        dir.path().join("k.so").as_os_str(),
        "-v".as_ref(),
    ]);
    let log = text(&kernels.stderr);
    assert!(log.contains("clean: remove [6] .data (PROGBITS): empty"), "{log}");
    assert!(log.contains("strip: remove [8] .xtensa.info (NOTE, 0x38 bytes): not loaded (note)"), "{log}");
}

#[test]
fn q7_strip_writes_what_q7_pack_saves() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["prog_cpu2.so", "kernels_gnu.so", "prog_single.stripped.so"] {
        let input = fixture(name);
        let (a, b, c) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"));
        assert!(q7(&[OsStr::new("strip"), input.as_os_str(), "-o".as_ref(), a.as_os_str()]).status.success());
        let pack =
            q7(&[OsStr::new("pack"), input.as_os_str(), "-o".as_ref(), c.as_os_str(), "-s".as_ref(), b.as_os_str()]);
        assert!(pack.status.success());
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "{name}");
    }
}

#[test]
fn page_size_path_page_aligns_segments_that_gnu_readelf_reads_cleanly() {
    let tools = binutils();
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("prog_cpu4.so");
    let (plain, paged) = (dir.path().join("plain.so"), dir.path().join("paged.so"));
    assert!(q7(&[OsStr::new("strip"), input.as_os_str(), "-o".as_ref(), plain.as_os_str()]).status.success());
    let out = q7(&[
        OsStr::new("strip"),
        input.as_os_str(),
        "-o".as_ref(),
        paged.as_os_str(),
        "-p".as_ref(),
        "0x1000".as_ref(),
        "-v".as_ref(),
    ]);
    assert!(out.status.success());
    assert!(text(&out.stderr).contains("moved to 0x1000 to page-align them"), "{}", text(&out.stderr));

    let (plain_bytes, paged_bytes) = (std::fs::read(&plain).unwrap(), std::fs::read(&paged).unwrap());
    let (a, b) = (ElfFile::parse_xtensa(&plain_bytes).unwrap(), ElfFile::parse_xtensa(&paged_bytes).unwrap());
    for (pa, pb) in a.load_segments().zip(b.load_segments()) {
        assert_eq!((pa.vaddr, pa.filesz, pa.memsz, pa.flags), (pb.vaddr, pb.filesz, pb.memsz, pb.flags));
        assert_eq!(pb.align, 0x1000);
        assert_eq!(pb.offset % 0x1000, pb.vaddr % 0x1000, "p_offset ≡ p_vaddr (mod p_align), .bss too");
        if pb.filesz > 0 {
            let (ra, rb) = (pa.offset as usize.., pb.offset as usize..);
            assert_eq!(&plain_bytes[ra][..pa.filesz as usize], &paged_bytes[rb][..pb.filesz as usize]);
        }
    }
    let alloc = |e: &ElfFile| {
        e.sections()
            .iter()
            .filter(|s| s.flags & SHF_ALLOC != 0)
            .map(|s| (s.name.to_string(), s.addr, s.data().to_vec()))
            .collect::<Vec<_>>()
    };
    assert_eq!(alloc(&a), alloc(&b));

    let readelf = peer(&tools, "readelf", &["-a".as_ref(), "-W".as_ref(), paged.as_os_str()]);
    assert!(readelf.stderr.is_empty() && !text(&readelf.stdout).contains("Warning"), "{}", text(&readelf.stderr));
    assert!(text(&readelf.stdout).contains("00     .text .ctors .dtors .rodata .data"), "{}", text(&readelf.stdout));
}

#[test]
fn symlookup_keeps_the_dynamic_symbol_tables() {
    let tools = binutils();
    let dir = tempfile::tempdir().unwrap();
    let so = dynamic_image(&tools, dir.path());
    let sections = |extra: &[&str]| {
        let out = dir.path().join("o.so");
        let mut args: Vec<&OsStr> = vec!["strip".as_ref(), so.as_os_str(), "-o".as_ref(), out.as_os_str()];
        args.extend(extra.iter().map(OsStr::new));
        let run = q7(&args);
        assert!(run.status.success(), "{}", text(&run.stderr));
        let bytes = std::fs::read(&out).unwrap();
        let names: Vec<String> =
            ElfFile::parse(&bytes).unwrap().sections().iter().map(|s| s.name.to_string()).collect();
        names
    };
    let without = sections(&[]);
    let with = sections(&["-l"]);
    for name in [".hash", ".dynsym", ".dynstr"] {
        assert!(!without.iter().any(|n| n == name) && with.iter().any(|n| n == name), "{name}: {without:?} / {with:?}");
    }
    for name in [".got", ".got.loc", ".comment"] {
        assert!(!with.iter().any(|n| n == name), "{name} is removed even with -l");
    }
}
