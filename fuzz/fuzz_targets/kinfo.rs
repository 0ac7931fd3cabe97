//! Any byte string as an image through the kernel_info_table decoder, the
//! roster (with the input's tail as a manifest) and the strings report; and
//! as a mangled name through the demangler.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(elf) = q7_elf::ElfFile::parse(data) {
        if let Ok(table) = q7_image::kinfo::KernelTable::of(&elf) {
            let _ = q7_image::kinfo::write_kinfo(&mut std::io::sink(), "fuzz", &table);
            let _ = table.lookup(0xe7);
        }
        let manifest = &data[data.len() / 2..];
        let roster = q7_image::roster::Roster::of(&elf, Some(manifest));
        let _ = q7_image::roster::write_roster(&mut std::io::sink(), "fuzz", &roster);
        let _ = q7_image::strings::StringsReport::of(&elf, 4, None);
        let _ = q7_image::rebase_diff::rebase_diff(&[elf.clone(), elf]);
    }
    if let Ok(name) = std::str::from_utf8(data) {
        let _ = q7_elf::demangle::demangle(name);
    }
});
