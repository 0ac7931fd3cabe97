//! The forensics analyses on images built here with q7-elf's writer, for the
//! cases the compiled fixtures do not reach: pointer words whose low bytes
//! are printable (the strings filter), rebased images with a non-rebase
//! word, and deterministic mutations of the fixtures through every report
//! (errors fine, panics not).

use q7_elf::consts::*;
use q7_elf::demangle::demangle;
use q7_elf::write::{ElfBuilder, NewSection, NewSegment};
use q7_elf::{ElfFile, Endian};
use q7_image::carve;
use q7_image::kinfo::KernelTable;
use q7_image::rebase_diff::rebase_diff;
use q7_image::roster::Roster;
use q7_image::strings::StringsReport;

/// An EXEC image at `base`: `.text`, then `.rodata` holding `rodata`, then a
/// large `.bss` so that addresses up to `base + 0x10000` are in the image.
fn image(base: u32, rodata: Vec<u8>) -> Vec<u8> {
    let mut b = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    b.entry = base;
    let text = b.add_section(NewSection::progbits(
        ".text",
        SHF_ALLOC | SHF_EXECINSTR,
        base,
        4,
        vec![0x36, 0x41, 0, 0x1d, 0xf0, 0, 0, 0],
    ));
    let ro = b.add_section(NewSection::progbits(".rodata", SHF_ALLOC, base + 0x100, 4, rodata));
    b.add_section(NewSection::nobits(".bss", SHF_ALLOC | SHF_WRITE, base + 0x1000, 4, 0xf000));
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: 7, align: 4, sections: vec![text, ro] });
    b.build().unwrap()
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn pointer_words_are_not_string_bytes() {
    let base = 0x8420_0000;
    // "xyz!" then a pointer into .bss whose low three bytes read "al ".
    let mut ro = b"xyz!".to_vec();
    ro.extend(words(&[base + 0x6c61]));
    ro.extend(b"real text\0\0\0");
    let bytes = image(base, ro);
    let elf = ElfFile::parse(&bytes).unwrap();
    let r = StringsReport::of(&elf, 4, Some(".rodata")).unwrap();
    let texts: Vec<&str> = r.sections[0].strings.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["xyz!", "real text"]);
    assert_eq!(r.sections[0].address_words, 1);
    // Without an in-image value the same bytes run on: "xyz!al ".
    let mut ro = b"xyz!".to_vec();
    ro.extend(words(&[0x9420_6c61]));
    let bytes = image(base, ro);
    let elf = ElfFile::parse(&bytes).unwrap();
    let r = StringsReport::of(&elf, 4, Some(".rodata")).unwrap();
    assert_eq!(r.sections[0].strings[0].text, "xyz!al ");
}

#[test]
fn rebase_diff_finds_the_one_baked_constant() {
    let table = |base: u32, id: u32| words(&[base + 0x100, base + 0x1004, 42, id, base]);
    let a = image(0x8400_0000, table(0x8400_0000, 7));
    let b = image(0x8420_0000, table(0x8420_0000, 7));
    let c = image(0x8440_0000, table(0x8440_0000, 9));
    let elfs: Vec<ElfFile> = [&a, &b, &c].iter().map(|x| ElfFile::parse(x).unwrap()).collect();
    let r = rebase_diff(&elfs[..2]);
    assert!(r.verdict.identical_modulo_rebase, "{:?}", r.verdict);
    assert_eq!(r.base_source, "core windows (layout report)");
    let r = rebase_diff(&elfs);
    let c = r.verdict.counter_example.unwrap();
    assert_eq!(
        (c.image, c.region.as_deref(), c.region_offset, c.address),
        (2, Some(".rodata"), Some(12), Some(0x8400_010c))
    );
    assert_eq!((c.first_value, c.value), (Some(7), Some(9)));
}

#[test]
fn carve_sizes_and_collapses_synthetic_blobs() {
    let blob = image(0x0100_0000, words(&[1, 2, 3]));
    let other = image(0x0100_0000, words(&[4, 5, 6]));
    let mut host = b"padding".to_vec();
    for b in [&blob, &other, &blob] {
        host.extend_from_slice(b);
        host.extend_from_slice(b"\0\0\0");
    }
    let r = carve::carve(&host, &mut |_, _| {});
    assert_eq!(r.hits.len(), 3);
    assert!(r.hits.iter().all(|h| h.size == Some(blob.len() as u64)));
    // The writer leaves e_flags 0: reported, not rejected.
    assert!(r.hits.iter().all(|h| h.xtensa && h.checks.iter().any(|c| c.field == "flags" && !c.ok)));
    assert_eq!((r.stored, r.distinct.len()), (3, 2));
    assert_eq!(r.distinct[0].offsets.len(), 2);
    assert!(r.getters.is_none() && r.flat.is_none());
}

#[test]
fn progress_reaches_the_end() {
    let data = vec![0u8; carve::PROGRESS_STEP * 2 + 5];
    let mut calls = Vec::new();
    let hits = carve::scan_magic(&data, &mut |done, total| calls.push((done, total)));
    assert!(hits.is_empty());
    assert_eq!(calls.len(), 3);
    assert_eq!(calls.last(), Some(&(data.len() as u64, data.len() as u64)));
    // A magic straddling a step boundary is found once.
    let mut data = data;
    data[carve::PROGRESS_STEP - 2..carve::PROGRESS_STEP + 2].copy_from_slice(carve::ELF_MAGIC);
    assert_eq!(carve::scan_magic(&data, &mut |_, _| {}), [carve::PROGRESS_STEP as u64 - 2]);
}

/// The smoke version of the `carve` and `kinfo` fuzz targets.
#[test]
fn mutated_fixtures_never_panic() {
    let root = q7_testkit::fixtures();
    let seeds =
        ["host/bin/sunda.elf", "host/bin/cayman_lib0.elf", "host/bin/ucode_flat.bin", "bin/prog_cpu1.stripped.so"];
    let mut rng = q7_testkit::Rng::new(0x2545_f491_4f6c_dd1d);
    let mut tables = 0;
    for seed in seeds {
        let good = std::fs::read(root.join(seed)).unwrap();
        for _ in 0..500 {
            let mut b = good.clone();
            rng.mutate(&mut b, 0);
            let r = carve::carve(&b, &mut |_, _| {});
            carve::write_carve(&mut std::io::sink(), "m", &r).unwrap();
            if let Ok(elf) = ElfFile::parse(&b) {
                if KernelTable::of(&elf).is_ok() {
                    tables += 1;
                }
                let roster = Roster::of(&elf, Some(&b[b.len() / 2..]));
                q7_image::roster::write_roster(&mut std::io::sink(), "m", &roster).unwrap();
                let _ = StringsReport::of(&elf, 4, None);
                let _ = rebase_diff(&[elf.clone(), elf]);
            }
        }
    }
    assert!(tables > 150, "mutations too destructive: {tables}");
    // Mangled-name mutations.
    let name = b"_Z28tensor_tensor_64bit_dispatchI11VectorInt64ET_RKS1_S3_21NEURON_ISA_TPB_ALU_OP";
    for _ in 0..20000 {
        let mut n = name.to_vec();
        let at = rng.below(n.len());
        n[at] = b"_ZNSILTEKPRv0123456789abcdefijx"[rng.below(31)];
        n.truncate(rng.below(n.len() + 1));
        let _ = demangle(&String::from_utf8_lossy(&n));
    }
}
