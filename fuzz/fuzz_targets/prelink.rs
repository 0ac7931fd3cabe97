//! Any byte string through the prelinker and through the relocation applier
//! alone: errors are fine, panics are bugs.
//!
//! * `prelink`: the first byte picks the target (a core, the single core, an
//!   explicit base); whatever binds must load back as a valid UCPL file
//!   inside the target window.
//! * `MemoryImage::rebase`: a table decoded from the input applied to an
//!   image made of the input; on success exactly the listed words moved by
//!   the delta, on error nothing changed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_elf::Endian;
use q7_pack::prelink::{self, MemoryImage, Target, Ucpl};
use q7_pack::RebaseTable;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    bind(pick, rest);
    apply(rest);
});

fn bind(pick: u8, input: &[u8]) {
    let core = (pick & 7) as u32;
    let target = match pick >> 6 {
        0 => Target::core(core),
        1 => Target::single(),
        2 => Target::core(core).at_base(0x8400_0000 + core * 0x20_0000 + ((pick as u32 & 0x38) << 8)),
        _ => Target::core(8 + core),
    };
    let Ok(ucpl) = prelink::prelink(input, target, None) else { return };
    let bytes = ucpl.to_bytes();
    let view = Ucpl::load(&bytes).expect("prelinked output validates");
    assert_eq!(view.header.window(), Some(target.window));
    assert!(view.header.load_base >= target.window.base());
    assert!(view.header.load_base as u64 + view.header.memory_size as u64 <= target.window.end());
}

/// Input: [table length: u16 LE][.q7.rebase bytes][image bytes].
fn apply(input: &[u8]) {
    if input.len() < 2 {
        return;
    }
    let table_len = (u16::from_le_bytes([input[0], input[1]]) as usize).min(input.len() - 2);
    let (table, image) = input[2..].split_at(table_len);
    let Ok(table) = RebaseTable::decode(table, Endian::Little) else { return };
    let mut memory = MemoryImage::new(table.link_base, image.to_vec());
    let new_base = table.link_base.wrapping_add(0x20_0000);
    match memory.rebase(&table, new_base) {
        Err(_) => assert_eq!((memory.base, &memory.bytes[..]), (table.link_base, image)),
        Ok(n) => {
            assert_eq!((n, memory.base), (table.addresses.len(), new_base));
            let mut expected = image.to_vec();
            for &a in &table.addresses {
                let off = (a - table.link_base) as usize;
                let word = u32::from_le_bytes(expected[off..off + 4].try_into().unwrap());
                expected[off..off + 4].copy_from_slice(&word.wrapping_add(0x20_0000).to_le_bytes());
            }
            assert_eq!(memory.bytes, expected);
        }
    }
}
