//! `q7 pack` on every fixture image, checked by GNU binutils: readelf and
//! objdump read the packed object without a warning, `lib_func` is a global
//! at `.rodata+0`, the blob is the `-s` file byte for byte, `ld -r` accepts
//! the object, and a stub that refers to `lib_func` links against it.

use crate::pack_support;

use std::ffi::OsStr;
use std::path::Path;

use pack_support::*;
use q7_elf::consts::*;
use q7_elf::ElfFile;

const LINK_AT: u32 = 0x10000;

/// A stub whose `.data` word refers to `lib_func`, and a script that places
/// the packed `.rodata` at `LINK_AT` and the stub's data after it.
const STUB: &str = ".data\n.global ref_to_lib\nref_to_lib:\n.word lib_func\n";
const SCRIPT: &str = "SECTIONS { . = 0x10000; .rodata : { *(.rodata) } . = ALIGN(4); .data : { *(.data) } }\n";

fn assert_reads_cleanly(tools: &q7_pack::recipe::Binutils, tool: &str, args: &[&str], file: &Path) -> String {
    let mut argv: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    argv.push(file.as_os_str());
    let out = peer(tools, tool, &argv);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stderr.is_empty(), "{tool} {args:?} {}: stderr {stderr}", file.display());
    assert!(!stdout.contains("Warning"), "{tool} {args:?} {}: {stdout}", file.display());
    stdout
}

#[test]
fn every_fixture_packs_into_an_object_gnu_binutils_accept() {
    let tools = binutils();
    let dir = tempfile::tempdir().unwrap();
    let stub = assemble(&tools, dir.path(), "stub", STUB);
    let script = dir.path().join("place.ld");
    std::fs::write(&script, SCRIPT).unwrap();

    for image in fixture_images() {
        let name = file_name(&image);
        let packed = dir.path().join(format!("{name}.packed.so"));
        let stripped = dir.path().join(format!("{name}.stripped.so"));
        let out = q7(&[
            OsStr::new("pack"),
            image.as_os_str(),
            "-o".as_ref(),
            packed.as_os_str(),
            "-s".as_ref(),
            stripped.as_os_str(),
        ]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{name}: q7 pack without -v is quiet: {}", text(&out.stderr));

        let readelf = assert_reads_cleanly(&tools, "readelf", &["-a", "-W"], &packed);
        assert!(
            readelf.contains("REL (Relocatable file)") && readelf.contains("Tensilica Xtensa"),
            "{name}: {readelf}"
        );
        let objdump = assert_reads_cleanly(&tools, "objdump", &["-h", "-t"], &packed);

        // lib_func, as objdump shows it: global, in .rodata, value 0.
        let line = objdump.lines().find(|l| l.ends_with(" lib_func")).unwrap_or_else(|| panic!("{name}: {objdump}"));
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((f[0], f[1], f[3]), ("00000000", "g", ".rodata"), "{name}: {line}");
        // ... and as readelf shows it.
        let sym = readelf.lines().find(|l| l.ends_with(" lib_func")).unwrap();
        assert!(sym.contains(" GLOBAL ") && sym.split_whitespace().nth(1) == Some("00000000"), "{name}: {sym}");

        // The bytes at lib_func are the -s file, byte for byte.
        let packed_bytes = std::fs::read(&packed).unwrap();
        let stripped_bytes = std::fs::read(&stripped).unwrap();
        let obj = ElfFile::parse_xtensa(&packed_bytes).unwrap();
        let rodata = obj.section_by_name(".rodata").unwrap();
        assert_eq!((rodata.flags, rodata.addralign), (SHF_ALLOC, 4), "{name}");
        let lib_func = obj.symbols().unwrap().into_iter().find(|s| s.name == "lib_func").unwrap();
        assert_eq!((lib_func.bind(), lib_func.shndx as usize, lib_func.value), (STB_GLOBAL, rodata.index, 0));
        assert_eq!(rodata.data(), &stripped_bytes[..], "{name}: blob differs from the -s file");

        // ld -r accepts the object.
        let relinked = dir.path().join(format!("{name}.relinked.o"));
        let ld = peer(&tools, "ld", &[OsStr::new("-r"), packed.as_os_str(), "-o".as_ref(), relinked.as_os_str()]);
        assert!(ld.stderr.is_empty(), "{name}: ld -r: {}", text(&ld.stderr));

        // A stub that refers to lib_func links against it and gets the blob's address.
        let linked = dir.path().join(format!("{name}.linked"));
        let ld = peer(
            &tools,
            "ld",
            &[
                "-T".as_ref(),
                script.as_os_str(),
                "-e".as_ref(),
                "lib_func".as_ref(),
                stub.as_os_str(),
                packed.as_os_str(),
                "-o".as_ref(),
                linked.as_os_str(),
            ],
        );
        assert!(ld.stderr.is_empty(), "{name}: ld: {}", text(&ld.stderr));
        let linked_bytes = std::fs::read(&linked).unwrap();
        let exe = ElfFile::parse_xtensa(&linked_bytes).unwrap();
        let blob_at = exe.symbols().unwrap().into_iter().find(|s| s.name == "lib_func").unwrap().value;
        let ref_at = exe.symbols().unwrap().into_iter().find(|s| s.name == "ref_to_lib").unwrap().value;
        assert_eq!(blob_at, LINK_AT, "{name}");
        assert_eq!(exe.read_u32_at(ref_at), Some(LINK_AT), "{name}: the stub's word resolves to the blob");
        let placed = exe.vaddr_to_offset(blob_at).unwrap() as usize;
        assert_eq!(&linked_bytes[placed..placed + stripped_bytes.len()], &stripped_bytes[..], "{name}");
    }
}

/// A big-endian image (written with q7-elf's builder: no installed tool
/// makes one) packs into a big-endian object that GNU readelf reads cleanly.
#[test]
fn big_endian_images_pack_into_big_endian_objects() {
    use q7_elf::write::{ElfBuilder, NewSection, NewSegment};
    use q7_elf::Endian;
    let tools = binutils();
    let dir = tempfile::tempdir().unwrap();
    let mut b = ElfBuilder::new(Endian::Big, ET_EXEC, EM_XTENSA);
    let text_id =
        b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, 0x8400_0000, 4, vec![0x36; 12]));
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_X, align: 4, sections: vec![text_id] });
    let input = dir.path().join("be.so");
    std::fs::write(&input, b.build().unwrap()).unwrap();
    let packed = dir.path().join("be.packed.so");
    let out = q7(&[OsStr::new("pack"), input.as_os_str(), "-o".as_ref(), packed.as_os_str()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let readelf = assert_reads_cleanly(&tools, "readelf", &["-a", "-W"], &packed);
    assert!(readelf.contains("big endian"), "{readelf}");
    let bytes = std::fs::read(&packed).unwrap();
    let blob = q7_pack::embedded_image(&bytes, "lib_func").unwrap();
    assert_eq!(ElfFile::parse_xtensa(blob).unwrap().endian(), Endian::Big);
}
