//! `q7 oracle` against leaves built from the committed `leaves.c`: a right
//! leaf and its wrapper agree with the model and each other; the leaf that
//! is wrong on purpose is caught with its first mismatches; the leaf that
//! segfaults on purpose is reported as such while q7 exits normally with a
//! non-zero status; hangs, noise on stdout, model errors and random inputs.

use crate::analyst_support;
// Not every test file uses every shared helper.
#[allow(unused_imports)]
use crate::common;

use analyst_support::*;
use common::*;
use serde_json::Value;

fn oracle(args: &[&str]) -> std::process::Output {
    let lib = leaves_library().to_str().unwrap().to_string();
    let mut all = vec!["oracle", "--lib", lib.as_str()];
    all.extend_from_slice(args);
    q7(&all)
}

/// The report with the library's path, hash and symbol offsets masked.
fn masked(out: &std::process::Output) -> String {
    let text = stdout(out).replace(leaves_library().to_str().unwrap(), "<lib>");
    let text = mask_hex_after(&text, "(sha256 ", "<sha256>");
    mask_hex_after(&text, "base + ", "<offset>")
}

#[test]
fn right_leaf_and_wrapper_agree_with_the_model_and_each_other() {
    let out = oracle(&["--leaf", "leaf_ltu_8", "--model", "(a & 0xff) < (b & 0xff)", "--same-as", "leaf_fs0ltu_8"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("calls     162 returned"), "{text}");
    assert_eq!(text.matches(": AGREE\n").count(), 3, "{text}");
}

#[test]
fn wrong_leaf_is_caught() {
    let out = oracle(&["--leaf", "leaf_ltu_wrong", "--model", "a < b", "--show", "4"]);
    assert_eq!(one_line_error(&out), "q7: error: leaf_ltu_wrong disagrees with model `a < b` on 28 of 81 inputs");
    assert_golden("analyst_oracle_wrong_leaf.txt", &masked(&out));
}

#[test]
fn segfaulting_leaf_is_reported_and_q7_exits_normally() {
    let out = oracle(&["--leaf", "leaf_segfault", "--model", "a + b"]);
    let err = one_line_error(&out);
    assert_eq!(err, "q7: error: leaf leaf_segfault crashed with SIGSEGV on input (0x0, 0x0) (and 2 more crashes)");
    assert_golden("analyst_oracle_segfault.txt", &masked(&out));

    let out = oracle(&["--leaf", "leaf_segfault", "--grid", "5,6", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["crashes"][0]["signal_name"], "SIGSEGV");
    assert_eq!(json["crashes"][0]["message"], "leaf leaf_segfault crashed with SIGSEGV on input (0x5, 0x6)");
    assert_eq!(json["crashes"][0]["evidence"]["kind"], "OBSERVED");
    assert_eq!(json["samples"][0]["leaves"][0]["outcome"], "crashed");
}

#[test]
fn input_dependent_crashes_do_not_hide_the_other_inputs() {
    let out = oracle(&["--leaf", "leaf_crash_on_0x80", "--model", "a + b", "--max-crashes", "20", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["crashes"].as_array().unwrap().len(), 9, "one per input with b == 0x80");
    assert!(json["crashes"].as_array().unwrap().iter().all(|c| c["b"] == 0x80));
    assert_eq!(json["comparisons"][0]["agree"], 72);
    assert_eq!(json["comparisons"][0]["disagree"], 0);
    assert_eq!(json["stopped_early"], false);
}

#[test]
fn a_hanging_leaf_times_out() {
    let out = oracle(&["--leaf", "leaf_hang", "--grid", "1,2", "--timeout", "1"]);
    assert_eq!(one_line_error(&out), "q7: error: leaf leaf_hang timed out (killed by SIGALRM) on input (0x1, 0x2)");
}

#[test]
fn a_leaf_printing_to_stdout_cannot_corrupt_the_protocol() {
    let out = oracle(&["--leaf", "leaf_noisy", "--model", "a ^ b", "--grid", "1,2;3,5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 agree, 0 disagree"));
}

#[test]
fn values_without_a_reference_and_nonzero_status() {
    let out = oracle(&["--leaf", "leaf_status", "--grid", "0,1;1,2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("(0x0, 0x1) -> 0x1 (status 7)") && text.contains("(0x1, 0x2) -> 0x3"), "{text}");
    assert!(text.contains("leaf_status returned non-zero on 1 call"), "{text}");
}

#[test]
fn model_errors_are_per_input() {
    let out = oracle(&["--leaf", "leaf_add_8", "--model", "b ? (a + b) & 0xff : a / b", "--json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["model_errors"]["count"], 9, "every input with b == 0");
    assert_eq!(json["model_errors"]["first"][0]["error"], "division by zero");
    assert_eq!(json["comparisons"][0]["incomparable"], 9);
    assert_eq!(json["comparisons"][0]["agree"], 72);
    assert!(out.status.success(), "model errors alone are not mismatches");
}

#[test]
fn random_inputs_are_reproducible() {
    let run = |seed: &str| {
        let out = oracle(&["--leaf", "leaf_ltu_32", "--model", "a < b", "--random", "40", "--seed", seed, "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        json["samples"].clone()
    };
    assert_eq!(run("7"), run("7"));
    assert_ne!(run("7"), run("0x8"));
}
