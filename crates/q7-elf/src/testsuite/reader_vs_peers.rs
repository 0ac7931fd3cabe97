//! The reader agrees with the `object` crate on every fixture, reads a
//! big-endian image built by q7's writer exactly as GNU readelf does, and
//! maps virtual addresses to file offsets correctly.

use std::path::PathBuf;
use std::process::Command;

use object::read::elf::{ElfFile32, FileHeader, SectionHeader as _};
use object::{Object, ObjectSection, ObjectSymbol};
use q7_elf::consts::*;
use q7_elf::write::{ElfBuilder, NewReloc, NewSection, NewSegment, NewSymbol};
use q7_elf::{ElfFile, Endian};

fn fixtures() -> Vec<PathBuf> {
    let dir = q7_testkit::fixtures().join("bin");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "so" || e == "o"))
        .collect();
    v.sort();
    assert!(v.len() >= 20, "fixtures missing: run fixtures/build.sh");
    v
}

#[test]
fn sections_and_symbols_agree_with_the_object_crate() {
    for path in fixtures() {
        let data = std::fs::read(&path).unwrap();
        let ours = ElfFile::parse_xtensa(&data).unwrap();
        let theirs = ElfFile32::<object::LittleEndian>::parse(&*data).unwrap();
        let endian = theirs.endian();
        let raw: Vec<_> = theirs.elf_section_table().iter().collect();
        assert_eq!(ours.sections().len(), raw.len(), "{path:?}");
        for (s, r) in ours.sections().iter().zip(&raw) {
            assert_eq!(s.addr, r.sh_addr(endian), "{path:?} {}", s.name);
            assert_eq!(s.offset, r.sh_offset(endian));
            assert_eq!(s.size, r.sh_size(endian));
            assert_eq!(s.sh_type, r.sh_type(endian).0);
            assert_eq!(u64::from(s.flags), r.sh_flags(endian).0);
        }
        for sec in theirs.sections() {
            let mine = ours.section(sec.index().0).unwrap();
            assert_eq!(mine.name, sec.name().unwrap());
        }
        assert_eq!(ours.header().entry, theirs.elf_header().e_entry(endian));
        let syms = ours.symbols().unwrap();
        let their_syms: Vec<_> = theirs.symbols().collect();
        // object skips the null symbol.
        assert_eq!(syms.len().saturating_sub(1), their_syms.len(), "{path:?}");
        for (s, t) in syms.iter().skip(1).zip(&their_syms) {
            assert_eq!(s.name, t.name().unwrap());
            assert_eq!(s.value as u64, t.address());
        }
        for rs in ours.relocation_sections() {
            let n = ours.relocations(rs).unwrap().len();
            assert_eq!(n as u32 * 12, rs.size, "{path:?} {}", rs.name);
        }
    }
}

#[test]
fn vaddr_and_offset_map_both_ways() {
    let data = std::fs::read(q7_testkit::fixtures().join("bin/prog_cpu3.so")).unwrap();
    let elf = ElfFile::parse_xtensa(&data).unwrap();
    for s in elf.sections().iter().filter(|s| s.is_alloc() && s.has_file_bytes()) {
        for delta in [0, s.size / 2, s.size - 1] {
            let va = s.addr + delta;
            assert_eq!(elf.vaddr_to_offset(va), Some(s.offset + delta), "{}", s.name);
            assert_eq!(elf.offset_to_vaddr(s.offset + delta), Some(va));
        }
    }
    let bss = elf.section_by_name(".bss").unwrap();
    assert_eq!(elf.vaddr_to_offset(bss.addr), None, ".bss has no file bytes");
    assert_eq!(elf.vaddr_to_offset(0x1000), None);
    let ctors = elf.section_by_name(".ctors").unwrap();
    assert_eq!(elf.read_u32_at(ctors.addr), Some(0xffff_ffff));
}

/// An image whose `.data` sits in a second segment at an address unrelated to
/// its file offset (docs/FACTS.md, ".data VMA ≠ file offset"), built in either byte order.
fn two_segment_image(endian: Endian) -> Vec<u8> {
    let mut b = ElfBuilder::new(endian, ET_EXEC, EM_XTENSA);
    b.entry = 0x8400_0010;
    b.flags = XTENSA_VENDOR_FLAGS;
    let text = b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, 0x8400_0000, 4, vec![0x36; 32]));
    let mut words = Vec::new();
    for w in [0xffff_ffffu32, 0x8400_0010, 0] {
        words.extend_from_slice(&endian.u32_bytes(w));
    }
    let ctors = b.add_section(NewSection::progbits(".ctors", SHF_ALLOC | SHF_WRITE, 0x8400_0020, 4, words));
    let data =
        b.add_section(NewSection::progbits(".data", SHF_ALLOC | SHF_WRITE, 0x8410_0000, 4, b"data!\0\0\0".to_vec()));
    let bss = b.add_section(NewSection::nobits(".bss", SHF_ALLOC | SHF_WRITE, 0x8410_0010, 8, 0x40));
    let sym = b.add_symbol(NewSymbol {
        name: "_start".into(),
        section: Some(text),
        value: 0x8400_0010,
        size: 4,
        bind: STB_GLOBAL,
        kind: STT_FUNC,
    });
    b.section_mut(ctors).relocs.push(NewReloc { offset: 0x8400_0024, symbol: sym, r_type: 1, addend: 0 });
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_W | PF_X, align: 4, sections: vec![text, ctors] });
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_W, align: 4, sections: vec![data, bss] });
    b.build().unwrap()
}

#[test]
fn big_endian_image_reads_like_readelf_says() {
    let be = two_segment_image(Endian::Big);
    let le = two_segment_image(Endian::Little);
    let elf_be = ElfFile::parse_xtensa(&be).unwrap();
    let elf_le = ElfFile::parse_xtensa(&le).unwrap();
    assert_eq!(elf_be.endian(), Endian::Big);
    assert_eq!(elf_be.header().entry, 0x8400_0010);
    assert_eq!(elf_be.header().flags, 0x300);
    // Same meaning in both byte orders.
    let facts = |e: &ElfFile| -> Vec<(String, u32, u32, u32)> {
        e.sections().iter().map(|s| (s.name.to_string(), s.addr, s.size, s.sh_type)).collect()
    };
    assert_eq!(facts(&elf_be), facts(&elf_le));
    assert_eq!(
        elf_be.segments().iter().map(|p| (p.vaddr, p.filesz, p.memsz)).collect::<Vec<_>>(),
        elf_le.segments().iter().map(|p| (p.vaddr, p.filesz, p.memsz)).collect::<Vec<_>>()
    );
    let ctors = elf_be.section_by_name(".ctors").unwrap();
    assert_eq!(elf_be.read_u32_at(ctors.addr + 4), Some(0x8400_0010));
    assert_eq!(&be[ctors.offset as usize + 4..ctors.offset as usize + 8], &[0x84, 0, 0, 0x10]);
    let data = elf_be.section_by_name(".data").unwrap();
    assert_ne!(data.addr, data.offset, ".data VMA differs from its offset");
    assert_eq!(elf_be.vaddr_to_offset(data.addr), Some(data.offset));
    let rela = elf_be.section_by_name(".rela.ctors").unwrap();
    let relocs = elf_be.relocations(rela).unwrap();
    assert_eq!(relocs.len(), 1);
    assert_eq!((relocs[0].offset, relocs[0].r_type), (0x8400_0024, 1));
    let syms = elf_be.symbols().unwrap();
    assert_eq!(syms.iter().find(|s| s.name == "_start").map(|s| s.value), Some(0x8400_0010));

    // GNU readelf reads the same file the same way.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("be.so");
    std::fs::write(&path, &be).unwrap();
    let out = match Command::new("xtensa-lx106-elf-readelf").args(["-hlSsrW"]).arg(&path).output() {
        Ok(o) => o,
        Err(e) => panic!("xtensa-lx106-elf-readelf not runnable ({e}); run scripts/bootstrap.sh"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.trim().is_empty(), "readelf complained: {err}");
    assert!(text.contains("big endian"), "{text}");
    assert!(text.contains("Entry point address:               0x84000010"));
    assert!(text.contains("Flags:                             0x300"));
    assert!(text.contains("LOAD           0x000074 0x84000000 0x84000000 0x0002c 0x0002c RWE 0x4"), "{text}");
    assert!(text.contains(" .data             PROGBITS        84100000"), "{text}");
    assert!(text.contains("84000024  00000101 R_XTENSA_32            84000010   _start + 0"), "{text}");
    assert!(text.contains("84000010     4 FUNC    GLOBAL DEFAULT    1 _start"), "{text}");
}

#[test]
fn written_little_endian_image_is_accepted_by_objdump() {
    let le = two_segment_image(Endian::Little);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("le.so");
    std::fs::write(&path, &le).unwrap();
    let out = Command::new("xtensa-lx106-elf-objdump")
        .args(["-h", "-t"])
        .arg(&path)
        .output()
        .expect("xtensa-lx106-elf-objdump not runnable; run scripts/bootstrap.sh");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).trim().is_empty());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("file format elf32-xtensa-le"), "{text}");
    assert!(text.contains(".bss          00000040  84100010"), "{text}");
}
