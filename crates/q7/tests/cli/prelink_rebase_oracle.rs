//! GNU ld is the oracle for the prelinker: binding the cpu0 image to window
//! k must give exactly the loadable bytes ld writes when it links the same
//! objects at window k.
//!
//! * the committed `prog_cpuK.so` (K = 1…7), read by a small loader written
//!   here (not q7-elf), against `q7 prelink` of `prog_cpu0.so` and of the
//!   `.packed.so` that `q7 pack` makes of it;
//! * a fresh `xtensa-lx106-elf-ld` link of prog.o + util.o with the cpu5 LSP
//!   that `q7 lsp` writes;
//! * the eight `--all-cores` outputs differ from each other only by rebase:
//!   the same word positions, every delta N·0x200000.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::*;

const WINDOW_BASE: u32 = 0x8400_0000;
const STRIDE: u32 = 0x20_0000;

/// What a loader puts in memory, per the ELF program headers alone.
struct Loaded {
    base: u32,
    bytes: Vec<u8>,
    memory_size: u32,
    entry: u32,
}

/// A minimal ELF32 little-endian loader: the PT_LOAD segments from the
/// lowest address to the end of the last file-backed byte, gaps zero.
fn load_elf(file: &[u8]) -> Loaded {
    let u16_at = |o: usize| u16::from_le_bytes(file[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(file[o..o + 4].try_into().unwrap());
    assert_eq!(&file[..6], b"\x7fELF\x01\x01", "ELF32 little-endian");
    let (phoff, phnum) = (u32_at(28) as usize, u16_at(44));
    // (vaddr, offset, filesz, memsz) of each PT_LOAD
    let loads: Vec<(u32, u32, u32, u32)> = (0..phnum)
        .map(|i| phoff + 32 * i)
        .filter(|&ph| u32_at(ph) == 1)
        .map(|ph| (u32_at(ph + 8), u32_at(ph + 4), u32_at(ph + 16), u32_at(ph + 20)))
        .filter(|l| l.3 > 0)
        .collect();
    let base = loads.iter().map(|l| l.0).min().unwrap();
    let file_end = loads.iter().filter(|l| l.2 > 0).map(|l| l.0 + l.2).max().unwrap();
    let memory_end = loads.iter().map(|l| l.0 + l.3).max().unwrap();
    let mut bytes = vec![0u8; (file_end - base) as usize];
    for &(vaddr, offset, filesz, _) in loads.iter().filter(|l| l.2 > 0) {
        let at = (vaddr - base) as usize;
        bytes[at..at + filesz as usize].copy_from_slice(&file[offset as usize..(offset + filesz) as usize]);
    }
    Loaded { base, bytes, memory_size: memory_end - base, entry: u32_at(24) }
}

/// The header fields and image of a UCPL file (q7's layout, docs/FORMATS.md, "UCPL image").
fn read_ucpl(path: &Path) -> Loaded {
    let file = std::fs::read(path).unwrap();
    let u32_at = |o: usize| u32::from_le_bytes(file[o..o + 4].try_into().unwrap());
    assert_eq!(&file[..8], b"UCPL \x01\x20\x00", "{}", path.display());
    assert_eq!(file.len(), 32 + u32_at(16) as usize);
    Loaded { base: u32_at(8), bytes: file[32..].to_vec(), memory_size: u32_at(20), entry: u32_at(12) }
}

fn assert_same_memory(ucpl: &Loaded, oracle: &Loaded, what: &str) {
    assert_eq!(ucpl.base, oracle.base, "{what}: load base");
    assert_eq!(ucpl.entry, oracle.entry, "{what}: entry");
    assert_eq!(ucpl.memory_size, oracle.memory_size, "{what}: memory size");
    assert_eq!(ucpl.bytes.len(), oracle.bytes.len(), "{what}: image bytes");
    if let Some(i) = (0..ucpl.bytes.len()).find(|&i| ucpl.bytes[i] != oracle.bytes[i]) {
        panic!("{what}: first differing byte at {:#x}", ucpl.base as usize + i);
    }
}

fn run_ok(args: &[&str]) {
    let out = q7(args);
    assert!(out.status.success(), "q7 {args:?}: {}", stderr(&out));
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn prelinked_cpu0_is_what_ld_links_at_each_window() {
    let dir = tempfile::tempdir().unwrap();
    let so = fixture("prog_cpu0.so");
    let packed = dir.path().join("prog_cpu0.packed.so");
    run_ok(&["pack", path_str(&so), "-o", path_str(&packed)]);
    for (input, tag) in [(&so, "so"), (&packed, "packed")] {
        let out = dir.path().join(tag);
        run_ok(&["prelink", path_str(input), "--all-cores", "-o", path_str(&out)]);
        for k in 0..8u32 {
            let ucpl = read_ucpl(&out.join(format!("prog.cpu{k}.ucpl")));
            let oracle = load_elf(&std::fs::read(fixture(&format!("prog_cpu{k}.so"))).unwrap());
            assert_eq!(oracle.base, WINDOW_BASE + k * STRIDE);
            assert_same_memory(&ucpl, &oracle, &format!("{tag} -> cpu{k}"));
        }
    }
}

#[test]
fn prelinked_cpu0_is_what_a_fresh_ld_link_writes_at_cpu5() {
    let dir = tempfile::tempdir().unwrap();
    let lsp = dir.path().join("lsp");
    run_ok(&["lsp", "--out", path_str(&lsp)]);
    let script = lsp.join("lsp_fll_load_cpu5/ldscripts/elf32xtensa.x");
    let linked = dir.path().join("prog_cpu5.so");
    let (prog, util) = (fixture("prog.o"), fixture("util.o"));
    let ld_args = [
        "-q",
        "--no-warn-rwx-segments",
        "-z",
        "max-page-size=4",
        "-z",
        "common-page-size=4",
        "-T",
        path_str(&script),
        path_str(&prog),
        path_str(&util),
        "-o",
        path_str(&linked),
    ];
    let Some(out) = peer("xtensa-lx106-elf-ld", &ld_args) else { return };
    assert!(out.status.success(), "ld: {}", stderr(&out));
    let oracle = load_elf(&std::fs::read(&linked).unwrap());
    assert_eq!(oracle.base, WINDOW_BASE + 5 * STRIDE);

    let ucpl_path = dir.path().join("prog.cpu5.ucpl");
    run_ok(&["prelink", path_str(&fixture("prog_cpu0.so")), "--core", "5", "-o", path_str(&ucpl_path)]);
    assert_same_memory(&read_ucpl(&ucpl_path), &oracle, "fresh ld link at cpu5");
    // And the fresh link, prelinked to cpu2, is the committed cpu2 image.
    let back = dir.path().join("back.ucpl");
    run_ok(&["prelink", path_str(&linked), "--core", "2", "-o", path_str(&back)]);
    let cpu2 = load_elf(&std::fs::read(fixture("prog_cpu2.so")).unwrap());
    assert_same_memory(&read_ucpl(&back), &cpu2, "cpu5 link -> cpu2");
}

#[test]
fn the_eight_outputs_differ_only_by_rebase() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all");
    run_ok(&["prelink", path_str(&fixture("prog_cpu0.so")), "--all-cores", "-o", path_str(&out)]);
    let images: Vec<Loaded> = (0..8).map(|k| read_ucpl(&out.join(format!("prog.cpu{k}.ucpl")))).collect();
    let word = |img: &Loaded, i: usize| u32::from_le_bytes(img.bytes[4 * i..4 * i + 4].try_into().unwrap());
    let words = images[0].bytes.len() / 4;
    assert_eq!(images[0].bytes.len() % 4, 0);
    let mut positions: Option<BTreeSet<usize>> = None;
    for (k, img) in images.iter().enumerate().skip(1) {
        let delta = k as u32 * STRIDE;
        assert_eq!((img.base, img.entry), (images[0].base + delta, images[0].entry + delta));
        assert_eq!(img.memory_size, images[0].memory_size);
        let differing: BTreeSet<usize> = (0..words).filter(|&i| word(img, i) != word(&images[0], i)).collect();
        for &i in &differing {
            assert_eq!(word(img, i).wrapping_sub(word(&images[0], i)), delta, "cpu{k}: word {:#x}", 4 * i);
        }
        match &positions {
            None => positions = Some(differing),
            Some(p) => assert_eq!(p, &differing, "cpu{k}: the same positions differ in every pair"),
        }
    }
    assert!(positions.unwrap().len() >= 20, "the fixture has many absolute words");
}
