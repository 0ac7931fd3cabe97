//! The `.q7.rebase` table is right and complete on the fixtures:
//!
//! * it lists exactly the `R_XTENSA_32` words GNU readelf shows in relocation
//!   sections that patch allocated sections, plus the words between the
//!   symbols `_bss_table_start` and `_bss_table_end` (the LSP's `LONG`s,
//!   which carry no relocation);
//! * for every listed word, prog_cpuK's word equals prog_cpu0's + K·0x200000,
//!   and no other byte of the loadable segments differs between the cleaned
//!   per-core images, so applying the table to cpu0 gives cpuK exactly;
//! * vendor-style images (no relocations) carry no table, and cleaning an
//!   already cleaned image changes nothing.

use crate::pack_support;

use std::collections::BTreeSet;

use pack_support::*;
use q7_elf::ElfFile;
use q7_pack::{RebaseTable, StripOptions};

const WINDOW_STRIDE: u32 = 0x20_0000;

fn cleaned(name: &str) -> Vec<u8> {
    let bytes = std::fs::read(fixture(name)).unwrap();
    q7_pack::strip_image(&bytes, &StripOptions::default(), &mut std::io::sink()).unwrap()
}

fn table(image: &[u8]) -> Option<RebaseTable> {
    RebaseTable::of_image(&ElfFile::parse(image).unwrap()).unwrap()
}

/// `R_XTENSA_32` offsets GNU readelf lists in `.rela.<X>` tables whose
/// target `<X>` is an allocated section of `name`, and the words of the
/// `_bss_table` as readelf's symbol table brackets it.
fn readelf_absolute_words(name: &str) -> BTreeSet<u32> {
    let tools = binutils();
    let path = fixture(name);
    let input = std::fs::read(&path).unwrap();
    let elf = ElfFile::parse(&input).unwrap();
    let out = peer(&tools, "readelf", &["-r".as_ref(), "-s".as_ref(), "-W".as_ref(), path.as_os_str()]);
    let mut words = BTreeSet::new();
    let mut target_alloc = false;
    for line in text(&out.stdout).lines() {
        if let Some(rest) = line.strip_prefix("Relocation section '") {
            let table = rest.split('\'').next().unwrap();
            let target = table.strip_prefix(".rela").unwrap();
            target_alloc = elf.section_by_name(target).is_some_and(|s| s.is_alloc());
            continue;
        }
        if line.starts_with("Symbol table") {
            target_alloc = false;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if target_alloc && f.get(2) == Some(&"R_XTENSA_32") {
            words.insert(u32::from_str_radix(f[0], 16).unwrap());
        }
    }
    let symbol = |name: &str| {
        let out = text(&out.stdout);
        let line = out.lines().find(|l| l.ends_with(&format!(" {name}"))).unwrap_or_else(|| panic!("{name}"));
        u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
    };
    let (start, end) = (symbol("_bss_table_start"), symbol("_bss_table_end"));
    assert_eq!(end - start, 8, "{name}: the LSP writes LONG(_bss_start) LONG(_bss_end)");
    words.extend((start..end).step_by(4));
    words
}

#[test]
fn the_table_lists_exactly_the_absolute_words_readelf_shows() {
    for name in ["prog_cpu0.so", "prog_cpu5.so", "prog_single.so", "kernels_gnu.so"] {
        let expected = readelf_absolute_words(name);
        assert!(!expected.is_empty(), "{name}: the fixture has absolute words");
        let image = cleaned(name);
        let t = table(&image).unwrap_or_else(|| panic!("{name}: no .q7.rebase"));
        assert_eq!(t.addresses.iter().copied().collect::<BTreeSet<u32>>(), expected, "{name}");
        let elf = ElfFile::parse(&image).unwrap();
        assert_eq!(Some(t.link_base), elf.load_segments().map(|p| p.vaddr).min(), "{name}");
    }
}

#[test]
fn per_core_images_differ_exactly_in_the_listed_words() {
    let cpu0 = cleaned("prog_cpu0.so");
    let t0 = table(&cpu0).unwrap();
    let elf0 = ElfFile::parse(&cpu0).unwrap();
    let word_offsets: Vec<usize> = t0.addresses.iter().map(|&va| elf0.vaddr_to_offset(va).unwrap() as usize).collect();
    let in_listed_word = |off: usize| word_offsets.iter().any(|&w| (w..w + 4).contains(&off));
    let u32_at = |b: &[u8], off: usize| u32::from_le_bytes(b[off..off + 4].try_into().unwrap());

    for k in 1..8u32 {
        let name = format!("prog_cpu{k}.so");
        let cpuk = cleaned(&name);
        let delta = k * WINDOW_STRIDE;
        let tk = table(&cpuk).unwrap();
        assert_eq!(tk.link_base, t0.link_base + delta, "{name}");
        assert_eq!(tk.addresses, t0.addresses.iter().map(|a| a + delta).collect::<Vec<_>>(), "{name}");

        let elfk = ElfFile::parse(&cpuk).unwrap();
        let (segs0, segsk): (Vec<_>, Vec<_>) = (elf0.load_segments().collect(), elfk.load_segments().collect());
        assert_eq!(segs0.len(), segsk.len());
        for (p0, pk) in segs0.iter().zip(&segsk) {
            assert_eq!((p0.offset, p0.filesz, p0.vaddr + delta), (pk.offset, pk.filesz, pk.vaddr), "{name}");
            for off in p0.offset as usize..(p0.offset + p0.filesz) as usize {
                assert!(
                    cpu0[off] == cpuk[off] || in_listed_word(off),
                    "{name}: byte {off:#x} differs outside the table"
                );
            }
        }
        for &off in &word_offsets {
            assert_eq!(
                u32_at(&cpuk, off),
                u32_at(&cpu0, off).wrapping_add(delta),
                "{name}: word at file offset {off:#x}"
            );
        }

        let mut moved = cpu0.clone();
        t0.apply(&mut moved, t0.link_base + delta).unwrap();
        for p in &segs0 {
            let range = p.offset as usize..(p.offset + p.filesz) as usize;
            assert_eq!(&moved[range.clone()], &cpuk[range], "{name}: cpu0 rebased by the table is cpu{k}");
        }
    }
}

#[test]
fn vendor_style_images_carry_no_table_and_cleaning_is_idempotent() {
    for image in fixture_images() {
        let name = file_name(&image);
        let once = cleaned(&name);
        let twice = q7_pack::strip_image(&once, &StripOptions::default(), &mut std::io::sink()).unwrap();
        assert_eq!(once, twice, "{name}: cleaning a cleaned image changes nothing");
        if name.ends_with(".stripped.so") {
            assert_eq!(table(&once), None, "{name}: no relocations, no table");
        } else {
            assert!(table(&once).is_some(), "{name}: linked with -q, so a table");
        }
    }
}
