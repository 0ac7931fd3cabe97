//! The committed ncore2gp-like sources, one in each format, read and
//! cross-validated: every shared fact corroborated except the one planted
//! disagreement.

use std::path::Path;

use q7_analyst::core_config::{cross_validate, parse_source, Agreement, SourceFormat};
use q7_analyst::EvidenceKind;

fn source(name: &str) -> q7_analyst::core_config::Source {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/core_config").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    parse_source(name, &text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn formats_are_recognised() {
    assert_eq!(source("ncore2gp-params").format, SourceFormat::Params);
    assert_eq!(source("core-isa.h").format, SourceFormat::CoreIsa);
}

#[test]
fn the_planted_disagreement_is_the_only_conflict() {
    let report = cross_validate(&[source("ncore2gp-params"), source("core-isa.h")]);
    let conflicts: Vec<&str> = report.conflicts().map(|f| f.id.as_str()).collect();
    assert_eq!(conflicts, ["memory.dram1.size"]);
    let conflict = report.fact("memory.dram1.size").unwrap();
    let sides: Vec<(&str, u32, &str)> =
        conflict.statements.iter().map(|s| (s.source.as_str(), s.line, s.normalised.as_str())).collect();
    assert_eq!(sides, [("ncore2gp-params", 42, "0x10000"), ("core-isa.h", 54, "0x20000")]);

    for fact in report.facts.iter().filter(|f| f.statements.len() == 2 && f.id != "memory.dram1.size") {
        assert_eq!(fact.agreement, Agreement::Corroborated, "{}", fact.id);
        assert_eq!(fact.evidence.kind, EvidenceKind::Observed);
    }
    let expect = [
        ("config.name", "Xm_ncore2gp"),
        ("isa.byte_order", "little"),
        ("isa.windowed", "yes"),
        ("vector.pipe", "yes"),
        ("memory.iram0.size", "0x8000"),
    ];
    for (id, value) in expect {
        let fact = report.fact(id).unwrap();
        assert_eq!((fact.value.as_deref(), fact.agreement), (Some(value), Agreement::Corroborated), "{id}");
    }
    let single = report.fact("config.uarch").unwrap();
    assert_eq!((single.value.as_deref(), single.agreement), (Some("Cairo"), Agreement::Single));
    assert!(report.derived.iter().all(|d| d.evidence.kind == EvidenceKind::Inferred));
    assert_eq!(report.sources[0].unmapped_keys, ["IcacheLineBytes"]);
}

#[test]
fn a_malformed_params_line_is_named_by_line() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/core_config/malformed-params");
    let text = std::fs::read_to_string(path).unwrap();
    let err = parse_source("malformed-params", &text).unwrap_err().to_string();
    assert_eq!(err, "malformed-params:3: malformed params line `IsaUseWindowedRegisters 1`: expected `Key = value`");
}
