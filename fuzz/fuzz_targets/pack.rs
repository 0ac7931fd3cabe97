//! Any byte string through strip + pack, with and without -l and -p, and the
//! outputs back through the readers: errors are fine, panics and hangs are
//! bugs. Whatever packs must embed exactly the cleaned image, and cleaning a
//! cleaned image must change nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_pack::{PackOptions, StripOptions};

fuzz_target!(|data: &[u8]| {
    let variants = [
        StripOptions::default(),
        StripOptions { keep_symbol_lookup: true, page_size: None },
        StripOptions { keep_symbol_lookup: false, page_size: Some(0x1000) },
    ];
    for strip in variants {
        let opts = PackOptions { strip: strip.clone(), ..PackOptions::default() };
        let Ok(packed) = q7_pack::pack(data, &opts, &mut std::io::sink()) else { continue };
        let embedded =
            q7_pack::embedded_image(&packed.packed, q7_pack::DEFAULT_SYMBOL).expect("packed output reads back");
        assert_eq!(embedded, &packed.stripped[..]);
        let again =
            q7_pack::strip_image(&packed.stripped, &strip, &mut std::io::sink()).expect("cleaned image cleans again");
        if strip.page_size.is_none() {
            assert_eq!(again, packed.stripped);
        }
    }
});
