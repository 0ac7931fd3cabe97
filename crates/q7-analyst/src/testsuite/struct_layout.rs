//! `struct_layout::measure` on the committed headers: sizes, offsets,
//! bit-fields, padding and assertions as the host compiler lays them out,
//! cross-checked against an independent `offsetof` program, and the planted
//! wrong assertion reported with the real size.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use q7_analyst::struct_layout::{measure, LayoutError, LayoutReport, LayoutRequest, StructLayout};
use q7_analyst::EvidenceKind;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/struct_layout").join(name)
}

fn request(header: &str, structs: &[&str]) -> LayoutRequest {
    LayoutRequest {
        header: data(header),
        structs: structs.iter().map(|s| s.to_string()).collect(),
        include_dirs: vec![data("include")],
        defines: vec![],
        compiler: "cc".into(),
        cflags: vec![],
        max_elements: 64,
    }
}

fn offsets(s: &StructLayout) -> HashMap<&str, (u64, u64)> {
    s.fields.iter().map(|f| (f.path.as_str(), (f.offset, f.size))).collect()
}

fn measured(header: &str, structs: &[&str]) -> LayoutReport {
    measure(&request(header, structs)).unwrap_or_else(|e| panic!("{header}: {e}"))
}

#[test]
fn isa_ctrl_struct_is_64_bytes_with_the_expected_fields() {
    let report = measured("isa_ctrl.h", &["Q7_ISA_CTRL_MV_STRUCT"]);
    let s = &report.structs[0];
    assert_eq!((s.size, s.align), (64, 8));
    assert_eq!(s.evidence.kind, EvidenceKind::Observed);
    let f = offsets(s);
    assert_eq!(f["header"], (0, 4));
    assert_eq!(f["src[1].num_elem"], (0x12, 2));
    assert_eq!(f["dst.step"], (0x18, 2));
    assert_eq!(f["dtype"], (0x1c, 1));
    assert_eq!(f["imm_u32"], (0x20, 4), "anonymous union members sit at the parent level");
    assert_eq!(f["imm_bytes[3]"], (0x23, 1));
    assert_eq!(f["partition_mask[3]"], (0x30, 4));
    assert_eq!(f["cookie"], (0x38, 8));
    let semaphore = s.fields.iter().find(|f| f.path == "header.semaphore").unwrap();
    assert_eq!((semaphore.bit_offset, semaphore.bit_width), (Some(20), Some(6)));
    let padding: Vec<(u64, u64)> = s.padding.iter().map(|p| (p.offset, p.size)).collect();
    assert_eq!(padding, [(0x1d, 3), (0x34, 4)]);
    assert!(s.padding.iter().all(|p| p.evidence.kind == EvidenceKind::Inferred));
    assert_eq!(s.portability.same_on_ilp32, Some(true), "uint64_t is exact-width even though glibc spells it long");
    assert_eq!(report.assertions.len(), 3, "the -I header's assertion is checked too");
    assert!(report.assertions.iter().all(|a| a.holds && a.evidence.kind == EvidenceKind::Observed));
}

#[test]
fn the_planted_wrong_assertion_is_reported_with_the_real_size() {
    let report = measured("wrong_assert.h", &["q7_dma_desc", "struct q7_host_handle"]);
    assert_eq!(report.structs[0].size, 52);
    let failing: Vec<_> = report.failed_assertions().collect();
    assert_eq!(failing.len(), 1);
    assert_eq!(failing[0].condition, "sizeof(struct q7_dma_desc) == 48");
    assert_eq!((failing[0].left, failing[0].right), (Some(52), Some(48)));
    assert!(failing[0].location.ends_with("wrong_assert.h:16"));
    let host = &report.structs[1].portability;
    assert_eq!(host.same_on_ilp32, Some(false));
    assert_eq!(host.model_dependent_fields, ["buffer", "length"]);
}

#[test]
fn truncated_arrays_do_not_invent_padding() {
    let mut req = request("wrong_assert.h", &["q7_dma_desc"]);
    req.max_elements = 1;
    let report = measure(&req).unwrap();
    let queue = report.structs[0].fields.iter().find(|f| f.path == "queue").unwrap();
    assert_eq!((queue.count, queue.listed), (Some(8), Some(1)));
    assert!(report.structs[0].padding.is_empty());
}

/// The probe takes offsets as pointer differences; this program uses
/// `offsetof` and `sizeof` directly, so the two methods check each other.
#[test]
fn shapes_agree_with_an_independent_offsetof_program() {
    let report = measured("shapes.h", &["struct q7_shapes", "q7_packed"]);
    let checks = [
        ("grid[1][2].y", "offsetof(struct q7_shapes, grid[1][2].y)"),
        ("blocks[1][3]", "offsetof(struct q7_shapes, blocks[1][3])"),
        ("hi", "offsetof(struct q7_shapes, hi)"),
        ("colour", "offsetof(struct q7_shapes, colour)"),
        ("on_done", "offsetof(struct q7_shapes, on_done)"),
        ("table[1]", "offsetof(struct q7_shapes, table[1])"),
        ("count", "offsetof(struct q7_shapes, count)"),
        ("data", "offsetof(struct q7_shapes, data)"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut program = format!(
        "#include \"{}\"\n#include <stddef.h>\n#include <stdio.h>\nint main(void) {{\n",
        data("shapes.h").display()
    );
    program.push_str("  printf(\"sizeof %zu %zu\\n\", sizeof(struct q7_shapes), sizeof(struct q7_packed));\n");
    program.push_str("  printf(\"packed.value %zu\\n\", offsetof(struct q7_packed, value));\n");
    for (path, expr) in checks {
        program.push_str(&format!("  printf(\"{path} %zu\\n\", {expr});\n"));
    }
    program.push_str("  return 0;\n}\n");
    // The committed header's assertions are right, so a plain compile works.
    std::fs::write(dir.path().join("check.c"), program).unwrap();
    let exe = dir.path().join("check");
    let status = Command::new("cc").arg(dir.path().join("check.c")).arg("-o").arg(&exe).status().unwrap();
    assert!(status.success());
    let out = String::from_utf8(Command::new(&exe).output().unwrap().stdout).unwrap();
    let expected: HashMap<&str, Vec<u64>> = out
        .lines()
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap(), w.map(|n| n.parse().unwrap()).collect())
        })
        .collect();
    let (shapes, packed) = (&report.structs[0], &report.structs[1]);
    assert_eq!(vec![shapes.size, packed.size], expected["sizeof"]);
    assert_eq!(offsets(packed)["value"].0, expected["packed.value"][0]);
    let measured = offsets(shapes);
    for (path, _) in checks {
        assert_eq!(measured[path].0, expected[path][0], "{path}");
    }
    let flags = shapes.fields.iter().find(|f| f.path == "flags").unwrap();
    assert_eq!(flags.bit_width, Some(3));
    assert_eq!(shapes.fields.iter().find(|f| f.path == "table").unwrap().type_name, "int (*[2])(…)");
    assert_eq!(report.assertions.len(), 2, "the assertion inside the struct body is found");
}

#[test]
fn clear_errors_for_bad_requests() {
    let err = |req: LayoutRequest| measure(&req).unwrap_err();
    assert!(matches!(err(request("missing.h", &["x"])), LayoutError::ReadHeader { .. }));
    let unknown = err(request("isa_ctrl.h", &["NOPE"])).to_string();
    assert!(unknown.starts_with("unknown struct `NOPE` in "), "{unknown}");
    assert!(unknown.contains("Q7_ISA_CTRL_MV_STRUCT"), "{unknown}");
    let mut no_include = request("isa_ctrl.h", &["Q7_ISA_HEADER"]);
    no_include.include_dirs.clear();
    let message = err(no_include).to_string();
    assert!(message.starts_with("preprocessing ") && message.contains("q7_isa_common.h"), "{message}");
    let mut no_cc = request("isa_ctrl.h", &["Q7_ISA_HEADER"]);
    no_cc.compiler = "q7-no-such-compiler".into();
    assert!(matches!(err(no_cc), LayoutError::Compiler { .. }));
}
