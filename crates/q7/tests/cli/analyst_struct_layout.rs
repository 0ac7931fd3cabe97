//! `q7 inspect struct-layout` on the committed headers: the text report
//! (golden, compiler identity masked), the planted wrong assertion found
//! with the real size and a non-zero exit, and the evidence tags in JSON.

use crate::analyst_support;
// Not every test file uses every shared helper.
#[allow(unused_imports)]
use crate::common;

use analyst_support::*;
use common::*;
use serde_json::Value;

#[test]
fn isa_ctrl_report() {
    let dir = analyst_data("struct_layout");
    let out = q7_in(
        &dir,
        &["inspect", "struct-layout", "isa_ctrl.h", "Q7_ISA_CTRL_MV_STRUCT", "Q7_ISA_HEADER", "-I", "include"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_golden("analyst_struct_layout_isa_ctrl.txt", &mask_compiler(&stdout(&out)));
}

#[test]
fn wrong_assertion_is_reported_with_the_real_size() {
    let dir = analyst_data("struct_layout");
    let out = q7_in(&dir, &["inspect", "struct-layout", "wrong_assert.h", "q7_dma_desc"]);
    assert_eq!(
        one_line_error(&out),
        "q7: error: 1 of 2 header assertions fail; first: wrong_assert.h:16: sizeof(struct q7_dma_desc) == 48 \
         (the left side is 52, not 48)"
    );
    assert_golden("analyst_struct_layout_wrong_assert.txt", &mask_compiler(&stdout(&out)));
}

#[test]
fn assertions_alone_and_json_evidence() {
    let dir = analyst_data("struct_layout");
    let out = q7_in(&dir, &["inspect", "struct-layout", "shapes.h", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["structs"].as_array().unwrap().len(), 0);
    assert_eq!(json["assertions"].as_array().unwrap().len(), 2);

    let out =
        q7_in(&dir, &["inspect", "struct-layout", "shapes.h", "struct q7_shapes", "--json", "--max-elements", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &json["structs"][0];
    assert_eq!(s["size"], 72);
    assert_eq!(s["evidence"]["kind"], "OBSERVED");
    assert_eq!(s["padding"][0]["evidence"]["kind"], "INFERRED");
    assert_eq!(s["portability"]["evidence"]["kind"], "INFERRED");
    assert_eq!(json["assertions"][0]["evidence"]["kind"], "OBSERVED");
    assert_eq!(json["compiler"]["evidence"]["kind"], "OBSERVED");
    let grid = s["fields"].as_array().unwrap().iter().find(|f| f["path"] == "grid").unwrap();
    assert_eq!((grid["count"].as_u64(), grid["listed"].as_u64()), (Some(2), Some(1)));
}

#[test]
fn compiler_and_include_errors_are_one_line() {
    let dir = analyst_data("struct_layout");
    let err = one_line_error(&q7_in(&dir, &["inspect", "struct-layout", "isa_ctrl.h", "Q7_ISA_HEADER"]));
    assert!(
        err.starts_with("q7: error: preprocessing isa_ctrl.h failed: ") && err.contains("q7_isa_common.h"),
        "{err}"
    );
    let err =
        one_line_error(&q7_in(&dir, &["inspect", "struct-layout", "shapes.h", "q7_packed", "--cc", "q7-no-such-cc"]));
    assert!(err.starts_with("q7: error: cannot run the C compiler `q7-no-such-cc`: "), "{err}");
    assert!(err.ends_with(" (choose one with --cc)"), "{err}");
}
