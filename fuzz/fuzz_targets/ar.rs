//! Any byte string through the `ar` archive reader (with the magic prepended
//! half the time, so member headers get exercised): no panic, and every
//! member's data is the archive's bytes at its recorded offset. Each ELF
//! member then goes through the disassembler as `q7 disasm lib.a` would.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_elf::ar;
use q7_image::disasm::{DisasmOptions, Disassembly, IsaOptions};

fuzz_target!(|data: &[u8]| {
    let mut bytes = Vec::new();
    if data.first().is_some_and(|b| b & 1 == 0) {
        bytes.extend_from_slice(ar::AR_MAGIC);
    }
    bytes.extend_from_slice(data);
    let Ok(members) = ar::members(&bytes) else { return };
    let options = DisasmOptions { isa: IsaOptions::lx106(), symbols: true, empty_ok: true, ..DisasmOptions::default() };
    for member in members {
        assert_eq!(&bytes[member.data_offset..member.data_offset + member.data.len()], member.data);
        if let Ok(listing) = Disassembly::prepare(member.data, &options) {
            listing.write_text(std::io::sink(), &member.name).unwrap();
        }
    }
});
