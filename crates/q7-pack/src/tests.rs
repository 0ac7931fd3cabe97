//! Unit tests on small synthetic images in both byte orders (no installed
//! tool writes big-endian Xtensa images; the fixtures cover real ones).

use q7_elf::consts::*;
use q7_elf::write::{ElfBuilder, NewReloc, NewSection, NewSegment, NewSymbol};
use q7_elf::{ElfFile, Endian};

use crate::*;

const BASE: u32 = 0x8400_0000;

/// `.text` (16 bytes), `.got` (4), `.data` (one absolute word), a linker
/// script's `_bss_table` (two words, no relocations) and `.bss` in one RWX
/// segment, plus a `.comment`, an empty `.rodata` and static relocations: one
/// `R_XTENSA_32` in `.data`, one in `.got`, one PC-relative `SLOT0_OP` in `.text`.
fn image(endian: Endian) -> Vec<u8> {
    let mut b = ElfBuilder::new(endian, ET_EXEC, EM_XTENSA);
    b.entry = BASE;
    let text = b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, BASE, 4, vec![0x36; 16]));
    let got = b.add_section(NewSection::progbits(".got", SHF_ALLOC | SHF_WRITE, BASE + 16, 4, vec![0xaa; 4]));
    let data = b.add_section(NewSection::progbits(
        ".data",
        SHF_ALLOC | SHF_WRITE,
        BASE + 20,
        4,
        endian.u32_bytes(BASE + 4).to_vec(),
    ));
    let bss_table = [endian.u32_bytes(BASE + 32), endian.u32_bytes(BASE + 64)].concat();
    let lsp = b.add_section(NewSection::progbits(".lsp.rodata", SHF_ALLOC, BASE + 24, 4, bss_table));
    let bss = b.add_section(NewSection::nobits(".bss", SHF_ALLOC | SHF_WRITE, BASE + 32, 8, 0x20));
    b.add_section(NewSection::progbits(".rodata", SHF_ALLOC, BASE + 32, 4, Vec::new()));
    b.add_section(NewSection::progbits(".comment", 0, 0, 1, b"clang version 22\0".to_vec()));
    for (name, value) in [("_bss_table_start", BASE + 24), ("_bss_table_end", BASE + 32)] {
        let kind = STT_NOTYPE;
        b.add_symbol(NewSymbol { name: name.into(), section: Some(lsp), value, size: 0, bind: STB_GLOBAL, kind });
    }
    let sym = b.add_section_symbol(text);
    let reloc = |offset, r_type| NewReloc { offset, symbol: sym, r_type, addend: 4 };
    b.section_mut(data).relocs.push(reloc(BASE + 20, 1));
    b.section_mut(got).relocs.push(reloc(BASE + 16, 1));
    b.section_mut(text).relocs.push(reloc(BASE + 3, 20));
    b.add_segment(NewSegment {
        p_type: PT_LOAD,
        flags: PF_R | PF_W | PF_X,
        align: 4,
        sections: vec![text, got, data, lsp, bss],
    });
    b.build().unwrap()
}

fn strip(input: &[u8], opts: &StripOptions) -> Result<Vec<u8>> {
    strip_image(input, opts, &mut std::io::sink())
}

fn names(elf: &ElfFile) -> Vec<String> {
    elf.sections().iter().map(|s| s.name.to_string()).collect()
}

#[test]
fn strips_cleans_and_keeps_rebase_words_in_both_byte_orders() {
    for endian in [Endian::Little, Endian::Big] {
        let input = image(endian);
        let out = strip(&input, &StripOptions::default()).unwrap();
        let elf = ElfFile::parse_xtensa(&out).unwrap();
        assert_eq!(elf.endian(), endian);
        assert_eq!(names(&elf), ["", ".text", ".data", ".lsp.rodata", ".bss", ".q7.rebase", ".shstrtab"]);
        // The rebase word in the removed .got is dropped with it (its bytes are
        // zero); the linker script's table words join the relocated one.
        let table = RebaseTable::of_image(&elf).unwrap().unwrap();
        assert_eq!(table, RebaseTable { link_base: BASE, addresses: vec![BASE + 20, BASE + 24, BASE + 28] });
        let src = ElfFile::parse(&input).unwrap();
        let got = src.section_by_name(".got").unwrap();
        assert_eq!(&out[got.offset as usize..][..4], &[0; 4]);
        assert_eq!(elf.segments()[0], src.segments()[0], "program headers are the input's");
        for name in [".text", ".data"] {
            assert_eq!(elf.section_by_name(name).unwrap().data(), src.section_by_name(name).unwrap().data());
        }

        let packed = pack(&input, &PackOptions::default(), &mut std::io::sink()).unwrap();
        assert_eq!(packed.stripped, out);
        let obj = ElfFile::parse_xtensa(&packed.packed).unwrap();
        assert_eq!((obj.endian(), obj.header().e_type, obj.header().flags), (endian, ET_REL, 0x300));
        assert_eq!(embedded_image(&packed.packed, "lib_func").unwrap(), &out[..]);
    }
}

#[test]
fn stripping_twice_changes_nothing() {
    let once = strip(&image(Endian::Little), &StripOptions::default()).unwrap();
    let twice = strip(&once, &StripOptions::default()).unwrap();
    assert_eq!(once, twice);
}

#[test]
fn rebase_apply_moves_exactly_the_listed_words() {
    let mut out = strip(&image(Endian::Big), &StripOptions::default()).unwrap();
    let table = RebaseTable::of_image(&ElfFile::parse(&out).unwrap()).unwrap().unwrap();
    let before = out.clone();
    table.apply(&mut out, BASE + 3 * 0x20_0000).unwrap();
    let off = ElfFile::parse(&before).unwrap().vaddr_to_offset(BASE + 20).unwrap() as usize;
    assert_eq!(&out[off..off + 4], &(BASE + 4 + 3 * 0x20_0000).to_be_bytes());
    let differing: Vec<usize> = (0..out.len()).filter(|&i| out[i] != before[i]).collect();
    assert!(differing.iter().all(|&i| (off..off + 12).contains(&i)), "{differing:?}");
    assert_eq!(&out[off + 8..off + 12], &(BASE + 64 + 3 * 0x20_0000).to_be_bytes());
}

#[test]
fn page_size_path_aligns_load_offsets_and_keeps_contents() {
    let input = image(Endian::Little);
    let plain = strip(&input, &StripOptions::default()).unwrap();
    let paged = strip(&input, &StripOptions { page_size: Some(0x1000), ..Default::default() }).unwrap();
    let (plain, paged) = (ElfFile::parse(&plain).unwrap(), ElfFile::parse(&paged).unwrap());
    let p = paged.segments()[0];
    assert_eq!((p.offset % 0x1000, p.align), (p.vaddr % 0x1000, 0x1000));
    assert_eq!(
        (p.vaddr, p.filesz, p.memsz),
        (plain.segments()[0].vaddr, plain.segments()[0].filesz, plain.segments()[0].memsz)
    );
    for (a, b) in plain.sections().iter().zip(paged.sections()) {
        assert_eq!((&a.name, a.addr, a.size, a.data()), (&b.name, b.addr, b.size, b.data()));
    }
    assert_eq!(RebaseTable::of_image(&plain).unwrap(), RebaseTable::of_image(&paged).unwrap());
}

#[test]
fn a_segment_holding_the_elf_header_must_already_be_page_aligned() {
    let mut input = image(Endian::Little);
    let elf = ElfFile::parse(&input).unwrap();
    let p = elf.segments()[0];
    let phoff = elf.header().phoff as usize;
    // Stretch the segment back to file offset 0, keeping every address.
    let fields = [0, p.vaddr - p.offset, p.vaddr - p.offset, p.filesz + p.offset, p.memsz + p.offset];
    for (k, v) in fields.iter().enumerate() {
        input[phoff + 4 + 4 * k..][..4].copy_from_slice(&v.to_le_bytes());
    }
    strip(&input, &StripOptions::default()).unwrap();
    let e = strip(&input, &StripOptions { page_size: Some(0x1000), ..Default::default() }).unwrap_err();
    assert_eq!(
        e.to_string(),
        "page size 0x1000: segment 0 holds the ELF header, so it cannot move to a page-aligned offset"
    );
    let e = strip(&input, &StripOptions { page_size: Some(3), ..Default::default() }).unwrap_err();
    assert_eq!(e.to_string(), "page size 0x3: must be a power of two from 4 to 0x100000");
}

#[test]
fn inputs_without_loadable_content_are_refused() {
    let mut b = ElfBuilder::new(Endian::Little, ET_REL, EM_XTENSA);
    b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, 0, 4, vec![0; 4]));
    let e = strip(&b.build().unwrap(), &StripOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with("ELF type REL (relocatable object) (1) is not a linked image"), "{e}");

    let mut b = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    let bss = b.add_section(NewSection::nobits(".bss", SHF_ALLOC | SHF_WRITE, BASE, 4, 0x100));
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_W, align: 4, sections: vec![bss] });
    let e = strip(&b.build().unwrap(), &StripOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), "no loadable content: no PT_LOAD program header has file bytes");
}

#[test]
fn bad_relocations_are_named() {
    let mut b = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    let text = b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, BASE, 4, vec![0; 8]));
    let sym = b.add_section_symbol(text);
    b.section_mut(text).relocs.push(NewReloc { offset: BASE + 6, symbol: sym, r_type: 1, addend: 0 });
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_X, align: 4, sections: vec![text] });
    let e = strip(&b.build().unwrap(), &StripOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "relocation section [4] .rela.text, entry 0: R_XTENSA_32 word at 0x84000006 is not inside the file bytes of [1] .text (0x84000000..0x84000008)"
    );
    b.section_mut(text).relocs[0] = NewReloc { offset: BASE, symbol: sym, r_type: 7, addend: 0 };
    let e = strip(&b.build().unwrap(), &StripOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), "relocation section [4] .rela.text, entry 0: unknown Xtensa relocation type 7");
}

#[test]
fn a_linker_script_table_must_be_whole_words_inside_a_section() {
    let mut b = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    let text = b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, BASE, 4, vec![0; 8]));
    let sym = b.add_section_symbol(text);
    b.section_mut(text).relocs.push(NewReloc { offset: BASE, symbol: sym, r_type: 1, addend: 0 });
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_X, align: 4, sections: vec![text] });
    for (name, value) in [("_bss_table_start", BASE + 2), ("_bss_table_end", BASE + 8)] {
        let kind = STT_NOTYPE;
        b.add_symbol(NewSymbol { name: name.into(), section: Some(text), value, size: 0, bind: STB_GLOBAL, kind });
    }
    let e = strip(&b.build().unwrap(), &StripOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        ".q7.rebase: linker-script table _bss_table_start.._bss_table_end = 0x84000002..0x84000008 is not a whole number of 32-bit words"
    );
}

#[test]
fn symbol_names_must_be_writable_in_assembly() {
    let opts = |symbol: &str| PackOptions { symbol: symbol.into(), ..Default::default() };
    let input = image(Endian::Little);
    let e = pack(&input, &opts("1abc"), &mut std::io::sink()).unwrap_err();
    assert_eq!(e.to_string(), "symbol name \"1abc\": starts with a digit");
    assert!(pack(&input, &opts("lib func"), &mut std::io::sink()).is_err());
    let p = pack(&input, &opts("_my.lib$1"), &mut std::io::sink()).unwrap();
    assert_eq!(embedded_image(&p.packed, "_my.lib$1").unwrap(), &p.stripped[..]);
}
