//! Fuzzes the decoder: arbitrary bytes under several core configurations
//! must never panic, every decoded instruction must re-encode to its own
//! bytes, and a sweep must cover every byte exactly once.

#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_isa::{decode, encode, sweep, FeatureSet, IsaOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else { return };
    let mut opts = match selector % 4 {
        0 => IsaOptions::full(),
        1 => IsaOptions::vision_q7().with_lx_scalar(true),
        2 => IsaOptions::lx106(),
        _ => IsaOptions { features: FeatureSet::EMPTY, ..IsaOptions::full() },
    };
    opts.fp_post_increment = selector & 4 != 0;
    if selector & 8 != 0 {
        opts.bundle_lengths = [Some(8), Some(16)];
    }
    let pc = u32::from(selector).wrapping_mul(0x0101_0101);

    if let Ok(insn) = decode(bytes, pc, &opts) {
        let encoded = encode(&insn).expect("decoded instructions encode");
        assert_eq!(encoded.as_bytes(), &bytes[..usize::from(insn.len)]);
        let _ = insn.to_string();
    }

    let mut covered = 0;
    for item in sweep(bytes, pc, &opts) {
        assert!(!item.bytes.is_empty());
        covered += item.bytes.len();
    }
    assert_eq!(covered, bytes.len());
});
