//! The evidence vocabulary of the reverse-engineering study (docs/FACTS.md, "Evidence vocabulary"),
//! as a value every report can attach to every fact it states, so a reader can
//! audit a report claim by claim.

use std::fmt;

use serde::Serialize;

/// How a fact was established.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum EvidenceKind {
    /// Read from bytes or files, or produced by executing code, in this run.
    Observed,
    /// Reasoned from observed facts; the basis states the reasoning.
    Inferred,
    /// Re-used from another report at that report's confidence; the basis
    /// names the report.
    Carried,
}

impl EvidenceKind {
    pub fn label(self) -> &'static str {
        match self {
            EvidenceKind::Observed => "OBSERVED",
            EvidenceKind::Inferred => "INFERRED",
            EvidenceKind::Carried => "CARRIED",
        }
    }
}

/// An evidence tag: the kind plus what it rests on (the source that was read
/// or executed, or the reasoning that was applied).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Evidence {
    pub kind: EvidenceKind,
    /// For OBSERVED: the source (file, line, tool run). For INFERRED: the
    /// reason. For CARRIED: the report it comes from.
    pub basis: String,
}

impl Evidence {
    pub fn observed(source: impl Into<String>) -> Evidence {
        Evidence { kind: EvidenceKind::Observed, basis: source.into() }
    }

    pub fn inferred(reason: impl Into<String>) -> Evidence {
        Evidence { kind: EvidenceKind::Inferred, basis: reason.into() }
    }

    pub fn carried(report: impl Into<String>) -> Evidence {
        Evidence { kind: EvidenceKind::Carried, basis: report.into() }
    }

    pub fn is_observed(&self) -> bool {
        self.kind == EvidenceKind::Observed
    }
}

/// The text form used by every human report: `[OBSERVED: basis]`.
impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}: {}]", self.kind.label(), self.basis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_json_forms() {
        let e = Evidence::inferred("no field covers these bytes");
        assert_eq!(e.to_string(), "[INFERRED: no field covers these bytes]");
        let json = serde_json::to_string(&Evidence::observed("a.h:3")).unwrap();
        assert_eq!(json, r#"{"kind":"OBSERVED","basis":"a.h:3"}"#);
    }
}
