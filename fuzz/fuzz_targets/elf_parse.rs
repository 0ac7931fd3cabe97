//! Any byte string through the ELF reader and the layout report: errors are
//! fine, panics and hangs are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(elf) = q7_elf::ElfFile::parse(data) {
        let _ = q7_image::layout::Layout::of(&elf);
        let _ = elf.symbols();
        for s in elf.relocation_sections() {
            let _ = elf.relocations(s);
        }
    }
});
