//! Any byte string through the carver (magic scan, header sizing, getter
//! decoding of x86-64 hosts, flat-container walk) and the report renderer:
//! findings are fine, panics and hangs are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let report = q7_image::carve::carve(data, &mut |_, _| {});
    let _ = q7_image::carve::write_carve(&mut std::io::sink(), "fuzz", &report);
    // Each accepted image through the per-image reports too.
    for d in &report.distinct {
        let start = d.offsets[0] as usize;
        if let Ok(elf) = q7_elf::ElfFile::parse(&data[start..start + d.size as usize]) {
            let _ = q7_image::roster::Roster::of(&elf, None);
        }
    }
});
