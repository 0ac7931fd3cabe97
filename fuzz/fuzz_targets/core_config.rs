//! Any bytes through the core-config reader (both formats), the
//! cross-validation and the text report: errors are fine, panics and hangs
//! are bugs. The first byte picks the format, the rest is the file text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_analyst::core_config;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let parsed = match selector % 3 {
        0 => core_config::parse_params("fuzz-params", &text),
        1 => core_config::parse_core_isa("fuzz-core-isa.h", &text),
        _ => core_config::parse_source("fuzz", &text),
    };
    if let Ok(source) = parsed {
        // The same source twice exercises the agreement path; with a
        // second reading in the other format, the conflict path too.
        let mut sources = vec![source.clone(), source];
        if let Ok(other) = core_config::parse_core_isa("other.h", &text) {
            sources.push(other);
        }
        let report = core_config::cross_validate(&sources);
        let _ = core_config::write_report(&mut std::io::sink(), &report);
    }
});
