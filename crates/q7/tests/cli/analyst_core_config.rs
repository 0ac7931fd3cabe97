//! `q7 inspect core-config` on the committed ncore2gp-like sources: the
//! cross-validated report (golden) with the planted disagreement side by
//! side and a non-zero exit; a single source; the derived clang features
//! checked against LLVM's own list.

use crate::analyst_support;
// Not every test file uses every shared helper.
#[allow(unused_imports)]
use crate::common;

use analyst_support::*;
use common::*;
use serde_json::Value;

#[test]
fn two_sources_with_the_planted_conflict() {
    let dir = analyst_data("core_config");
    let out = q7_in(&dir, &["inspect", "core-config", "ncore2gp-params", "core-isa.h"]);
    assert_eq!(
        one_line_error(&out),
        "q7: error: 1 fact conflict between the sources; first: data RAM 1 size: ncore2gp-params:42 says 0x10000, \
         core-isa.h:54 says 0x20000"
    );
    assert_golden("analyst_core_config.txt", &stdout(&out));
}

#[test]
fn json_lists_both_sides_of_the_conflict() {
    let dir = analyst_data("core_config");
    let out = q7_in(&dir, &["inspect", "core-config", "core-isa.h", "ncore2gp-params", "--json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let facts = json["facts"].as_array().unwrap();
    let conflict = facts.iter().find(|f| f["agreement"] == "conflict").unwrap();
    assert_eq!(conflict["id"], "memory.dram1.size");
    assert_eq!(conflict["value"], Value::Null);
    let sides: Vec<&str> =
        conflict["statements"].as_array().unwrap().iter().map(|s| s["raw"].as_str().unwrap()).collect();
    assert_eq!(sides, ["0x20000UL", "0x10000"]);
    let corroborated = facts.iter().filter(|f| f["agreement"] == "corroborated").count();
    assert_eq!(corroborated, 29);
    assert!(facts.iter().all(|f| f["evidence"]["kind"] == "OBSERVED"));
}

#[test]
fn one_source_alone_is_not_cross_checked() {
    let dir = analyst_data("core_config");
    let out = q7_in(&dir, &["inspect", "core-config", "ncore2gp-params", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let facts = json["facts"].as_array().unwrap();
    assert!(facts.iter().all(|f| f["agreement"] == "single"));
    assert!(facts[0]["evidence"]["basis"].as_str().unwrap().contains("not cross-checked"));
}

#[test]
fn derived_clang_features_are_real_llvm_feature_names() {
    let dir = analyst_data("core_config");
    let out = q7_in(&dir, &["inspect", "core-config", "ncore2gp-params", "--json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let features = json["derived"].as_array().unwrap().iter().find(|d| d["label"] == "clang target features").unwrap();
    let Some(help) = peer("llc-22", &["-march=xtensa", "-mattr=help"]) else { return };
    let listed = format!("{}{}", stdout(&help), stderr(&help));
    for feature in features["value"].as_str().unwrap().split(',') {
        let name = feature.trim_start_matches('+');
        assert!(listed.lines().any(|l| l.split_whitespace().next() == Some(name)), "llc-22 does not know `{name}`");
    }
}
