//! Core-config cross-validation (docs/FACTS.md): the cleartext core configuration read from every source
//! given, normalised to one vocabulary, and cross-validated: a fact several
//! independent sources state alike is corroborated; a fact they state
//! differently is a conflict, shown side by side.

mod sources;
mod table;
mod text;

use serde::Serialize;

pub use sources::{
    detect_format, parse_core_isa, parse_params, parse_source, Entry, Source, SourceError, SourceFormat,
};
pub use table::{facts as fact_table, normalise, FactDef, ValueKind};
pub use text::write_report;

use crate::evidence::Evidence;

#[derive(Clone, Debug, Serialize)]
pub struct ConfigReport {
    pub sources: Vec<SourceSummary>,
    pub facts: Vec<Fact>,
    /// Facts reasoned from the stated ones.
    pub derived: Vec<DerivedFact>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SourceSummary {
    pub path: String,
    pub format: SourceFormat,
    pub entries: usize,
    /// The short name facts cite this source by (its file name, unless two
    /// sources share one).
    pub label: String,
    /// Entries that feed a normalised fact.
    pub mapped: usize,
    /// Keys no fact uses (kept for the record, not an error).
    pub unmapped_keys: Vec<String>,
    /// Keys given more than once (the first value is used).
    pub repeated_keys: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// Stated by one source only.
    Single,
    /// Stated alike by every source that states it (two or more).
    Corroborated,
    /// Stated differently by different sources.
    Conflict,
}

#[derive(Clone, Debug, Serialize)]
pub struct Fact {
    pub id: String,
    pub label: String,
    /// The normalised value, unless the sources conflict.
    pub value: Option<String>,
    pub agreement: Agreement,
    pub statements: Vec<Statement>,
    pub evidence: Evidence,
}

/// One source's statement of a fact.
#[derive(Clone, Debug, Serialize)]
pub struct Statement {
    pub source: String,
    pub line: u32,
    pub key: String,
    pub raw: String,
    /// The normalised value, or the raw text when it could not be read.
    pub normalised: String,
    pub readable: bool,
}

impl Statement {
    pub fn place(&self) -> String {
        format!("{}:{}", self.source, self.line)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct DerivedFact {
    pub label: String,
    pub value: String,
    pub evidence: Evidence,
}

impl ConfigReport {
    pub fn conflicts(&self) -> impl Iterator<Item = &Fact> {
        self.facts.iter().filter(|f| f.agreement == Agreement::Conflict)
    }

    pub fn fact(&self, id: &str) -> Option<&Fact> {
        self.facts.iter().find(|f| f.id == id)
    }
}

/// Normalises and cross-validates parsed sources.
pub fn cross_validate(sources: &[Source]) -> ConfigReport {
    let table = table::facts();
    let labels = short_labels(sources);
    let mut facts = Vec::new();
    for def in &table {
        let statements: Vec<Statement> =
            sources.iter().zip(&labels).filter_map(|(s, label)| statement(def, s, label)).collect();
        if statements.is_empty() {
            continue;
        }
        facts.push(judge(def, statements));
    }
    let summaries = sources
        .iter()
        .zip(labels)
        .map(|(s, label)| {
            let used = |key: &str| table.iter().any(|def| keys_for(def, s.format).iter().any(|k| k == key));
            // Valueless defines are include guards, not configuration.
            let unmapped_keys: Vec<String> =
                s.entries.iter().filter(|e| !used(&e.key) && !e.value.is_empty()).map(|e| e.key.clone()).collect();
            SourceSummary {
                path: s.path.clone(),
                format: s.format,
                label,
                mapped: s.entries.iter().filter(|e| used(&e.key)).count(),
                entries: s.entries.len(),
                unmapped_keys,
                repeated_keys: s.repeated_keys.clone(),
            }
        })
        .collect();
    let derived = derive(&facts);
    ConfigReport { sources: summaries, facts, derived }
}

/// File names when they are unique among the sources, else full paths.
fn short_labels(sources: &[Source]) -> Vec<String> {
    let name = |s: &Source| s.path.rsplit('/').next().unwrap_or(&s.path).to_string();
    sources
        .iter()
        .map(|s| {
            let short = name(s);
            let unique = sources.iter().filter(|other| name(other) == short).count() == 1;
            if unique {
                short
            } else {
                s.path.clone()
            }
        })
        .collect()
}

fn keys_for(def: &FactDef, format: SourceFormat) -> &[String] {
    match format {
        SourceFormat::Params => &def.params_keys,
        SourceFormat::CoreIsa => &def.core_isa_keys,
    }
}

fn statement(def: &FactDef, source: &Source, label: &str) -> Option<Statement> {
    let entry = keys_for(def, source.format).iter().find_map(|k| source.get(k))?;
    let (normalised, readable) = match table::normalise(def.kind, &entry.value) {
        Ok(v) => (v, true),
        Err(_) => (entry.value.clone(), false),
    };
    Some(Statement {
        source: label.to_string(),
        line: entry.line,
        key: entry.key.clone(),
        raw: entry.value.clone(),
        normalised,
        readable,
    })
}

fn judge(def: &FactDef, statements: Vec<Statement>) -> Fact {
    let first = statements[0].normalised.clone();
    let all_agree = statements.iter().all(|s| s.normalised == first);
    let places: Vec<String> = statements.iter().map(|s| format!("{} {}", s.place(), s.key)).collect();
    let (agreement, value, evidence) = match (all_agree, statements.len()) {
        (true, 1) => (
            Agreement::Single,
            Some(first),
            Evidence::observed(format!("read from {}; one source, not cross-checked", places[0])),
        ),
        (true, n) => (
            Agreement::Corroborated,
            Some(first),
            Evidence::observed(format!("{n} sources agree: {}", places.join(", "))),
        ),
        (false, _) => {
            (Agreement::Conflict, None, Evidence::observed(format!("sources disagree: {}", places.join(", "))))
        }
    };
    Fact { id: def.id.clone(), label: def.label.clone(), value, agreement, statements, evidence }
}

/// Facts reasoned from agreed facts, each with its reason.
fn derive(facts: &[Fact]) -> Vec<DerivedFact> {
    let value = |id: &str| facts.iter().find(|f| f.id == id).and_then(|f| f.value.as_deref());
    let yes = |id: &str| value(id) == Some("yes");
    let mut derived = Vec::new();
    if let Some(windowed) = value("isa.windowed") {
        let abi = if windowed == "yes" { "windowed (CALL4/8/12, ENTRY, RETW)" } else { "call0" };
        derived.push(DerivedFact {
            label: "default ABI".into(),
            value: abi.into(),
            evidence: Evidence::inferred(format!(
                "windowed registers = {windowed}; compilers default to the windowed ABI exactly when the core has them"
            )),
        });
    }
    // LLVM's Xtensa target names these options as subtarget features.
    let llvm_names = [
        ("isa.density", "density"),
        ("isa.windowed", "windowed"),
        ("isa.loops", "loop"),
        ("isa.mul16", "mul16"),
        ("isa.mul32", "mul32"),
        ("isa.mul32_high", "mul32high"),
        ("isa.div32", "div32"),
        ("isa.mac16", "mac16"),
        ("isa.nsa", "nsa"),
        ("isa.minmax", "minmax"),
        ("isa.sext", "sext"),
        ("isa.clamps", "clamps"),
        ("isa.booleans", "bool"),
        ("fp.single", "fp"),
    ];
    let features: Vec<String> =
        llvm_names.iter().filter(|(id, _)| yes(id)).map(|(_, name)| format!("+{name}")).collect();
    if !features.is_empty() {
        derived.push(DerivedFact {
            label: "clang target features".into(),
            value: features.join(","),
            evidence: Evidence::inferred("the options stated as present, spelled as LLVM Xtensa subtarget features"),
        });
    }
    if let Some(density) = value("isa.density") {
        let mut lengths = if density == "yes" { "16 and 24 bits" } else { "24 bits" }.to_string();
        if yes("vector.pipe") {
            lengths.push_str(", plus wide FLIX bundles");
        }
        derived.push(DerivedFact {
            label: "instruction lengths".into(),
            value: lengths,
            evidence: Evidence::inferred(
                "density adds the 16-bit narrow forms; the Vision vector pipe issues through FLIX bundles (docs/PLATFORM.md, \"Cores\")",
            ),
        });
    }
    derived
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_single_and_conflict() {
        let params =
            parse_params("p", "ConfigName = Xm_x\nIsaIsBigEndian = 0\nDataRAM0Size = 0x20000\nIsaUseLoops = 1\n")
                .unwrap();
        let isa = parse_core_isa(
            "c.h",
            "#define XCHAL_CORE_ID \"Xm_x\"\n#define XCHAL_HAVE_BE 0\n#define XCHAL_DATARAM0_SIZE 0x40000\n",
        )
        .unwrap();
        let r = cross_validate(&[params, isa]);
        let name = r.fact("config.name").unwrap();
        assert_eq!((name.agreement, name.value.as_deref()), (Agreement::Corroborated, Some("Xm_x")));
        assert!(name.evidence.is_observed() && name.evidence.basis.starts_with("2 sources agree"));
        assert_eq!(r.fact("isa.byte_order").unwrap().value.as_deref(), Some("little"));
        assert_eq!(r.fact("isa.loops").unwrap().agreement, Agreement::Single);
        let size = r.fact("memory.dram0.size").unwrap();
        assert_eq!((size.agreement, size.value.clone()), (Agreement::Conflict, None));
        let sides: Vec<&str> = size.statements.iter().map(|s| s.normalised.as_str()).collect();
        assert_eq!(sides, ["0x20000", "0x40000"]);
        assert_eq!(r.conflicts().count(), 1);
        assert_eq!(r.sources[0].mapped, 4);
        assert_eq!(r.sources[0].label, "p");
    }

    #[test]
    fn derived_facts_carry_reasons() {
        let params = parse_params(
            "p",
            "IsaUseWindowedRegisters = 1\nIsaUseDensityInstruction = 1\nHasVectorPipe = 1\nIsaUseFloatingPoint = 1\n",
        )
        .unwrap();
        let r = cross_validate(&[params]);
        let labels: Vec<(&str, &str)> = r.derived.iter().map(|d| (d.label.as_str(), d.value.as_str())).collect();
        assert_eq!(
            labels,
            [
                ("default ABI", "windowed (CALL4/8/12, ENTRY, RETW)"),
                ("clang target features", "+density,+windowed,+fp"),
                ("instruction lengths", "16 and 24 bits, plus wide FLIX bundles"),
            ]
        );
        assert!(r.derived.iter().all(|d| !d.evidence.is_observed()));
    }
}
