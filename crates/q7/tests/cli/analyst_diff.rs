//! `q7 inspect diff` on the fixture images: identical files, the rebased
//! cpu0/cpu1 pair (golden), an in-place edit, and sha256 agreeing with
//! coreutils.

use crate::analyst_support;
// Not every test file uses every shared helper.
#[allow(unused_imports)]
use crate::common;

use analyst_support::*;
use common::*;
use serde_json::Value;

#[test]
fn identical_files() {
    let out = q7_in(&root().join("fixtures/bin"), &["inspect", "diff", "prog_cpu0.so", "prog_cpu0.so"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("files     IDENTICAL  [OBSERVED: sha256 of both files: equal]"));
}

#[test]
fn rebased_pair_report() {
    let out =
        q7_in(&root().join("fixtures/bin"), &["inspect", "diff", "prog_cpu0.so", "prog_cpu1.so", "--max-ranges", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_golden("analyst_diff_cpu0_cpu1.txt", &stdout(&out));
}

#[test]
fn in_place_edit_is_localized_and_hashes_match_sha256sum() {
    let dir = tempfile::tempdir().unwrap();
    let original = fixture("prog_cpu0.so");
    let mut edited = std::fs::read(&original).unwrap();
    edited[0x100] ^= 0x5a;
    let edited_path = dir.path().join("edited.so");
    std::fs::write(&edited_path, &edited).unwrap();
    let out = q7(&["inspect", "diff", original.to_str().unwrap(), edited_path.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = json["sections"].as_array().unwrap().iter().find(|s| s["name"] == ".text").unwrap();
    assert_eq!(text["status"], "changed");
    assert_eq!(text["ranges"][0]["file_offset_a"], 0x100);
    assert_eq!(text["ranges"][0]["len"], 1);
    let changed = json["sections"].as_array().unwrap().iter().filter(|s| s["status"] != "identical").count();
    assert_eq!(changed, 1);

    let sums = std::process::Command::new("sha256sum").arg(&original).arg(&edited_path).output().unwrap();
    let sums: Vec<String> = stdout(&sums).lines().map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    assert_eq!(json["a"]["sha256"], sums[0].as_str());
    assert_eq!(json["b"]["sha256"], sums[1].as_str());
}
