//! Any byte string through the UCPL reader: errors are fine, panics are
//! bugs. A file `load` accepts passes every check, holds exactly its image
//! bytes, re-encodes to the same header, and `prelink` rebinds it in place
//! to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_pack::prelink::{self, Target, Ucpl, UcplHeader};

fuzz_target!(|data: &[u8]| {
    let Ok(view) = Ucpl::parse(data) else {
        assert!(data.len() < 32);
        return;
    };
    assert_eq!(&view.header.encode()[..], &data[..32]);
    assert_eq!(UcplHeader::decode(data).unwrap(), view.header);
    let validation = view.validate();
    let _ = prelink::write_ucpl_report(&mut std::io::sink(), "fuzz", &view, &validation);
    let loaded = Ucpl::load(data);
    assert_eq!(loaded.is_ok(), validation.is_valid());
    let Ok(view) = loaded else { return };
    let image = view.image().expect("a valid file holds its image");
    assert_eq!(32 + image.len(), data.len());
    assert_eq!(crc32fast::hash(image), view.header.crc32);
    let window = view.header.window().expect("a valid core id");
    let rebound = prelink::prelink(data, Target { window, base: None }, None).expect("a valid file rebinds in place");
    assert_eq!(rebound.to_bytes(), data);
});
