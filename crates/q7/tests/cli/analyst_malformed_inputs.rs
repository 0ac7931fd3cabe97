//! Every malformed input to the analyst commands gets one clear line on
//! stderr and exit status 1, never a panic (messages in
//! snapshots/analyst_malformed.txt).

use crate::analyst_support;
// Not every test file uses every shared helper.
#[allow(unused_imports)]
use crate::common;

use analyst_support::*;
use common::*;

#[test]
fn malformed_inputs_give_one_line_errors() {
    let layout = analyst_data("struct_layout");
    let config = analyst_data("core_config");
    let bin = root().join("fixtures/bin");
    let lib = leaves_library().to_str().unwrap().to_string();
    let not_a_library = root().join("Cargo.toml");
    let not_a_library = not_a_library.to_str().unwrap();
    let cases: Vec<(&str, &std::path::Path, Vec<&str>)> = vec![
        ("missing header", &layout, vec!["inspect", "struct-layout", "missing.h", "X"]),
        ("unknown struct", &layout, vec!["inspect", "struct-layout", "wrong_assert.h", "no_such_struct"]),
        ("malformed params line", &config, vec!["inspect", "core-config", "malformed-params"]),
        ("missing config file", &config, vec!["inspect", "core-config", "no-such-params"]),
        ("unreadable library", &bin, vec!["oracle", "--lib", "no-such-lib.so", "--leaf", "f"]),
        ("not a library", &bin, vec!["oracle", "--lib", not_a_library, "--leaf", "f"]),
        ("missing symbol", &bin, vec!["oracle", "--lib", &lib, "--leaf", "no_such_leaf"]),
        ("missing --same-as symbol", &bin, vec!["oracle", "--lib", &lib, "--leaf", "leaf_ltu_8", "--same-as", "nope"]),
        ("bad expression", &bin, vec!["oracle", "--lib", &lib, "--leaf", "leaf_ltu_8", "--model", "a <> b"]),
        ("unknown model name", &bin, vec!["oracle", "--lib", &lib, "--leaf", "leaf_ltu_8", "--model", "a < c"]),
        ("bad grid pair", &bin, vec!["oracle", "--lib", &lib, "--leaf", "leaf_ltu_8", "--grid", "1,2,3"]),
        ("bad grid value", &bin, vec!["oracle", "--lib", &lib, "--leaf", "leaf_ltu_8", "--grid", "1,0x1ffffffff"]),
        ("diff of a non-ELF file", &bin, vec!["inspect", "diff", "prog_cpu0.so", "TOOLS.txt"]),
        ("diff of a missing file", &bin, vec!["inspect", "diff", "prog_cpu0.so", "no-such.so"]),
    ];
    let mut transcript = String::new();
    for (name, dir, args) in cases {
        let line = one_line_error(&q7_in(dir, &args));
        transcript
            .push_str(&format!("{name}: {}\n", line.replace(&lib, "<lib>").replace(not_a_library, "<Cargo.toml>")));
    }
    assert_golden("analyst_malformed.txt", &transcript);
}
