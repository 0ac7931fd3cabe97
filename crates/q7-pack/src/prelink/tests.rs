//! Unit tests on small synthetic images; the fixtures and GNU ld are the
//! oracle in crates/q7/tests/prelink_*.rs.

use q7_elf::consts::*;
use q7_elf::write::{ElfBuilder, NewReloc, NewSection, NewSegment};
use q7_elf::Endian;

use super::*;
use crate::{pack, PackOptions};

const BASE: u32 = 0x8400_0000;
const STRIDE: u32 = 0x20_0000;

/// `.text` (8 bytes, entry at +4), `.data` with one absolute word pointing
/// at `.text+4` (an `R_XTENSA_32`), `.bss` (0x20 bytes) in its own segment.
fn linked(with_relocations: bool) -> Vec<u8> {
    let mut b = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    b.entry = BASE + 4;
    let text = b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, BASE, 4, vec![0x36; 8]));
    let data = NewSection::progbits(".data", SHF_ALLOC | SHF_WRITE, BASE + 8, 4, (BASE + 4).to_le_bytes().to_vec());
    let data = b.add_section(data);
    let bss = b.add_section(NewSection::nobits(".bss", SHF_ALLOC | SHF_WRITE, BASE + 16, 8, 0x20));
    if with_relocations {
        let sym = b.add_section_symbol(text);
        b.section_mut(data).relocs.push(NewReloc { offset: BASE + 8, symbol: sym, r_type: 1, addend: 4 });
    }
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_W | PF_X, align: 4, sections: vec![text, data] });
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_W, align: 8, sections: vec![bss] });
    b.build().unwrap()
}

#[test]
fn header_layout_is_the_design_table() {
    let h = UcplHeader {
        magic: ucpl::MAGIC,
        version: 1,
        header_size: 32,
        load_base: 0x8460_0000,
        entry: 0x8460_007c,
        image_size: 0x250,
        memory_size: 0x358,
        core_id: 3,
        crc32: 0xdead_beef,
    };
    let bytes = h.encode();
    assert_eq!(&bytes[..8], b"UCPL \x01\x20\x00");
    assert_eq!(&bytes[8..12], &[0, 0, 0x60, 0x84]);
    assert_eq!(&bytes[24..32], &[3, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde]);
    assert_eq!(UcplHeader::decode(&bytes).unwrap(), h);
}

#[test]
fn moves_the_words_the_entry_and_keeps_the_bss() {
    let input = linked(true);
    for k in 0..8 {
        let u = prelink(&input, Target::core(k), None).unwrap();
        let h = u.header;
        let base = BASE + k * STRIDE;
        assert_eq!((h.load_base, h.entry, h.core_id), (base, base + 4, k));
        assert_eq!((h.image_size, h.memory_size), (12, 16 + 0x20));
        assert_eq!(&u.image[..8], &[0x36; 8]);
        assert_eq!(&u.image[8..12], &(base + 4).to_le_bytes());
        assert_eq!(u.provenance.kind, InputKind::Linked);
        assert_eq!(u.provenance.patched_words, Some(1));
        let bytes = u.to_bytes();
        let view = Ucpl::load(&bytes).unwrap();
        assert_eq!(view.image(), Some(&u.image[..]));
    }
}

#[test]
fn packed_and_linked_inputs_give_the_same_bytes() {
    let input = linked(true);
    let packed = pack(&input, &PackOptions::default(), &mut std::io::sink()).unwrap();
    for target in [Target::core(5), Target::single(), Target::core(2).at_base(BASE + 2 * STRIDE + 0x100)] {
        let a = prelink(&input, target, None).unwrap();
        let b = prelink(&packed.packed, target, None).unwrap();
        let c = prelink(&packed.stripped, target, Some("ignored")).unwrap();
        assert_eq!(a.to_bytes(), b.to_bytes());
        assert_eq!(a.to_bytes(), c.to_bytes());
        assert!(b.provenance.packed);
    }
    let err = prelink(&packed.packed, Target::core(1), Some("other")).unwrap_err().to_string();
    assert_eq!(err, "packed load-lib has no defined symbol `other`");
}

#[test]
fn images_without_relocations_stay_at_their_link_base() {
    let input = linked(false);
    let u = prelink(&input, Target::core(0), None).unwrap();
    assert_eq!((u.header.load_base, u.provenance.patched_words), (BASE, None));
    let single = prelink(&input, Target::single(), None).unwrap();
    assert_eq!(single.header.core_id, SINGLE_CORE_ID);
    let err = prelink(&input, Target::core(1), None).unwrap_err().to_string();
    assert!(err.contains("only to its own link base 0x84000000, not moved to 0x84200000"), "{err}");
}

#[test]
fn refuses_bad_targets() {
    let input = linked(true);
    let e = |t| prelink(&input, t, None).unwrap_err().to_string();
    assert_eq!(
        e(Target::core(8)),
        "core 8 does not exist: the SPMD cores are 0..7 (the fat core is the single-core target)"
    );
    assert!(e(Target::core(1).at_base(BASE + STRIDE + 2)).contains("breaks its 8-byte alignment"));
    assert!(e(Target::core(1).at_base(BASE)).contains("is not inside the cpu1 window"));
    assert!(e(Target::core(7).at_base(BASE + 8 * STRIDE - 8)).contains("is not inside the cpu7 window"));
}

#[test]
fn a_ucpl_input_rebinds_only_in_place() {
    let u = prelink(&linked(true), Target::core(0), None).unwrap().to_bytes();
    let same = prelink(&u, Target::core(0), None).unwrap();
    assert_eq!(same.to_bytes(), u);
    let fat = prelink(&u, Target::single(), None).unwrap();
    assert_eq!(fat.header.core_id, SINGLE_CORE_ID);
    let err = prelink(&u, Target::core(3), None).unwrap_err().to_string();
    assert!(err.starts_with("a UCPL image carries no relocations"), "{err}");
    let mut bad = u.clone();
    bad[40] ^= 1;
    let err = prelink(&bad, Target::core(0), None).unwrap_err().to_string();
    assert!(err.starts_with("UCPL image: crc-32: stored"), "{err}");
}

#[test]
fn validation_reports_every_failed_check() {
    let mut bytes = prelink(&linked(true), Target::core(2), None).unwrap().to_bytes();
    assert!(Ucpl::parse(&bytes).unwrap().validate().is_valid());
    bytes[5] = 2; // version
    bytes[24] = 9; // core id
    bytes.push(0); // file size
    let v = Ucpl::parse(&bytes).unwrap().validate();
    let failed: Vec<&str> = v.failures().map(|c| c.name).collect();
    assert_eq!(failed, ["version", "file size", "core id", "window"]);
    assert_eq!(
        Ucpl::parse(&bytes[..31]).unwrap_err().to_string(),
        "UCPL image: 31 bytes is shorter than the 32-byte header"
    );
}

#[test]
fn the_applier_checks_every_word_before_patching() {
    let mut image = MemoryImage::new(BASE, vec![0u8; 16]);
    let table = crate::RebaseTable { link_base: BASE, addresses: vec![BASE, BASE + 13] };
    let err = image.rebase(&table, BASE + STRIDE).unwrap_err().to_string();
    assert_eq!(err, ".q7.rebase entry 0x8400000d is not inside the image's loadable file bytes 0x84000000..0x84000010");
    assert_eq!((image.base, &image.bytes[..]), (BASE, &[0u8; 16][..]));
    let table = crate::RebaseTable { link_base: BASE, addresses: vec![BASE, BASE + 12] };
    assert_eq!(image.rebase(&table, BASE + STRIDE).unwrap(), 2);
    assert_eq!(&image.bytes[12..], &STRIDE.to_le_bytes());
}
