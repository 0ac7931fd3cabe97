//! Any byte string through `q7 disasm`'s library: as an ELF or raw input,
//! under every ISA choice, with and without the scalar-LX rule and symbols,
//! with and without an address range, to both the text and the JSON sink.
//! The last byte picks the options (and is still part of the input).
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_image::disasm::{AddrRange, DisasmOptions, Disassembly, IsaOptions};

fuzz_target!(|data: &[u8]| {
    let selector = data.last().copied().unwrap_or(0);
    let isa = match selector % 3 {
        0 => IsaOptions::vision_q7(),
        1 => IsaOptions::lx106(),
        _ => IsaOptions::full(),
    };
    let start = u64::from(u32::from_le_bytes([selector, selector, 0, 0x84]));
    let options = DisasmOptions {
        isa: isa.with_lx_scalar(selector & 4 != 0),
        isa_name: "fuzz".into(),
        symbols: selector & 8 == 0,
        section: None,
        range: (selector & 16 != 0).then_some(AddrRange { start, end: start + 0x100 }),
        base: (selector & 32 != 0 && !data.starts_with(b"\x7fELF")).then_some(0x8400_0000),
        empty_ok: selector & 64 != 0,
    };
    if let Ok(listing) = Disassembly::prepare(data, &options) {
        listing.write_text(std::io::sink(), "fuzz").unwrap();
        listing.write_json(std::io::sink(), "fuzz").unwrap();
    }
});
