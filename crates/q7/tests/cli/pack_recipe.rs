//! The reference recipe test: xt-pkg-loadlib's packaging done with GNU
//! binutils (`q7_pack::recipe`: strip, objcopy --remove-section, --add-section
//! libdata=, --set-section-flags libdata=readonly,alloc, as, ld -r -T) and
//! `q7 pack` agree by meaning on every fixture and on a shared object with
//! dynamic sections (with and without -l).
//!
//! Agreement: the embedded images have the same ELF header facts, the same
//! program headers, the same loadable sections (name, type, address, size,
//! flags, alignment, bytes) and the same bytes in every loadable segment
//! (removed sections zero-filled alike; a segment that maps the ELF header
//! differs only in e_shoff/e_shnum/e_shstrndx); both objects define `lib_func` as a
//! global at `.rodata+0` and their `.rodata` has the same flags.
//!
//! Deliberate differences (see q7-pack's crate docs), asserted here too:
//! q7's image keeps no non-loadable section except `.q7.rebase` (present when
//! the input has static relocations) and `.shstrtab`, where `strip` keeps
//! e.g. `.comment`; q7's `lib_func` is an `STT_OBJECT` sized to the blob (the
//! recipe's is `NOTYPE`, size 0); q7's object has no empty `.text`/`.data`/
//! `.bss` nor the `.xtensa.info`/`.xt.prop` GNU `as` adds.

use crate::pack_support;

use std::path::Path;

use pack_support::*;
use q7_elf::consts::*;
use q7_elf::{ElfFile, Section};
use q7_pack::recipe::{pack_with_binutils, RecipeOptions};
use q7_pack::{embedded_image, PackOptions, StripOptions};

type LoadableSection = (String, u32, u32, u32, u32, u32, Vec<u8>);

fn loadable_sections(elf: &ElfFile) -> Vec<LoadableSection> {
    elf.sections()
        .iter()
        .filter(|s| s.is_alloc())
        .map(|s: &Section| (s.name.to_string(), s.sh_type, s.addr, s.size, s.flags, s.addralign, s.data().to_vec()))
        .collect()
}

fn segment_bytes(image: &[u8], p: &q7_elf::ProgramHeader) -> Vec<u8> {
    image[p.offset as usize..(p.offset + p.filesz) as usize].to_vec()
}

fn non_loadable_names(elf: &ElfFile) -> Vec<String> {
    elf.sections().iter().filter(|s| s.index > 0 && !s.is_alloc()).map(|s| s.name.to_string()).collect()
}

/// `lib_func` in a packed object: (bind, section name, value, type).
fn lib_func(obj: &ElfFile) -> (u8, String, u32, u8) {
    let sym = obj.symbols().unwrap().into_iter().find(|s| s.name == "lib_func").expect("lib_func");
    let section = obj.section(sym.shndx as usize).map(|s| s.name.to_string()).unwrap_or_default();
    (sym.bind(), section, sym.value, sym.kind())
}

fn assert_agree(what: &str, input: &Path, keep_symbol_lookup: bool) {
    let tools = binutils();
    let bytes = std::fs::read(input).unwrap();
    let opts = PackOptions { strip: StripOptions { keep_symbol_lookup, ..Default::default() }, ..Default::default() };
    let ours = q7_pack::pack(&bytes, &opts, &mut std::io::sink()).unwrap();
    let recipe_opts = RecipeOptions { keep_symbol_lookup, ..Default::default() };
    let theirs = pack_with_binutils(&tools, input, &recipe_opts).unwrap_or_else(|e| panic!("{what}: {e}"));

    let our_image = embedded_image(&ours.packed, "lib_func").unwrap();
    let their_image = embedded_image(&theirs.packed, "lib_func").unwrap();
    assert_eq!(our_image, &ours.stripped[..], "{what}: q7's blob is its -s file");
    assert_eq!(their_image, &theirs.stripped[..], "{what}: the recipe's blob is its -s file");

    let (a, b) = (ElfFile::parse_xtensa(our_image).unwrap(), ElfFile::parse_xtensa(their_image).unwrap());
    let facts = |e: &ElfFile| {
        let h = e.header();
        (h.endian, h.e_type, h.machine, h.entry, h.flags)
    };
    assert_eq!(facts(&a), facts(&b), "{what}: ELF header facts");
    assert_eq!(a.segments(), b.segments(), "{what}: program headers");
    let (sa, sb) = (loadable_sections(&a), loadable_sections(&b));
    assert_eq!(sa.len(), sb.len(), "{what}: number of loadable sections");
    for (x, y) in sa.iter().zip(&sb) {
        assert!(x == y, "{what}: loadable section {} differs from the recipe's {}", x.0, y.0);
    }
    for p in a.load_segments() {
        let (mut ours_seg, mut theirs_seg) = (segment_bytes(our_image, p), segment_bytes(their_image, p));
        if p.offset == 0 && p.filesz >= 52 {
            // A segment that maps the ELF header holds e_shoff/e_shnum/e_shstrndx,
            // which describe each file's own section table.
            for bytes in [&mut ours_seg, &mut theirs_seg] {
                bytes[32..36].fill(0);
                bytes[48..52].fill(0);
            }
        }
        let first_difference = ours_seg.iter().zip(&theirs_seg).position(|(x, y)| x != y);
        assert_eq!(first_difference, None, "{what}: bytes of segment {} differ", p.index);
    }
    for name in non_loadable_names(&a) {
        assert!(name == ".q7.rebase" || name == ".shstrtab", "{what}: q7 kept non-loadable {name}");
    }

    let (ao, bo) = (ElfFile::parse_xtensa(&ours.packed).unwrap(), ElfFile::parse_xtensa(&theirs.packed).unwrap());
    assert_eq!((ao.header().e_type, bo.header().e_type), (ET_REL, ET_REL));
    let (ours_sym, theirs_sym) = (lib_func(&ao), lib_func(&bo));
    assert_eq!((ours_sym.0, &ours_sym.1, ours_sym.2), (STB_GLOBAL, &".rodata".to_string(), 0), "{what}");
    assert_eq!((ours_sym.0, &ours_sym.1, ours_sym.2), (theirs_sym.0, &theirs_sym.1, theirs_sym.2), "{what}");
    assert_eq!((ours_sym.3, theirs_sym.3), (STT_OBJECT, STT_NOTYPE), "{what}: the documented symbol-type difference");
    let rodata_flags = |o: &ElfFile| o.section_by_name(".rodata").unwrap().flags;
    assert_eq!(rodata_flags(&ao), rodata_flags(&bo), "{what}: .rodata flags");
}

#[test]
fn q7_and_the_binutils_recipe_agree_on_every_fixture() {
    for image in fixture_images() {
        assert_agree(&file_name(&image), &image, false);
    }
}

#[test]
fn q7_and_the_binutils_recipe_agree_on_dynamic_sections_with_and_without_l() {
    let tools = binutils();
    let dir = tempfile::tempdir().unwrap();
    let so = dynamic_image(&tools, dir.path());
    assert_agree("dyn.so", &so, false);
    assert_agree("dyn.so -l", &so, true);

    let bytes = std::fs::read(&so).unwrap();
    let names = |keep_symbol_lookup| {
        let opts = StripOptions { keep_symbol_lookup, ..Default::default() };
        let out = q7_pack::strip_image(&bytes, &opts, &mut std::io::sink()).unwrap();
        ElfFile::parse(&out).unwrap().sections().iter().map(|s| s.name.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(names(false), ["", ".text", ".dynamic", ".data", ".shstrtab"]);
    assert_eq!(names(true), ["", ".hash", ".dynsym", ".dynstr", ".text", ".dynamic", ".data", ".shstrtab"]);

    // strip keeps .comment; q7 does not (a non-loadable difference).
    let theirs = pack_with_binutils(&tools, &so, &RecipeOptions::default()).unwrap();
    assert!(non_loadable_names(&ElfFile::parse(&theirs.stripped).unwrap()).contains(&".comment".to_string()));
}
