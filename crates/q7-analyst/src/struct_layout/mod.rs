//! Struct layouts proven by compilation (docs/FACTS.md, "Compile-verified struct layouts"). The header is
//! preprocessed by the C compiler, its struct definitions are parsed for
//! their shape, and a generated probe (compiled and run with the same
//! compiler) prints `sizeof` and every member's offset. The header's own
//! `_Static_assert`s are blanked out of the probe's copy — a wrong one would
//! otherwise stop the compile — and evaluated by the probe instead, so a
//! wrong assertion is reported next to the real value.

mod decl;
mod layouts;
mod lex;
mod probe;
mod text;
mod unit;

use std::path::PathBuf;
use std::process::Command;

use serde::Serialize;

pub use text::write_report;

use crate::evidence::Evidence;
use probe::{ProbeLine, Root};
use unit::{Resolved, Unit};

/// What to measure and with which compiler.
#[derive(Clone, Debug)]
pub struct LayoutRequest {
    pub header: PathBuf,
    /// Typedef names, `struct tag`/`union tag`, or bare tags.
    pub structs: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    /// `-D` definitions (`NAME` or `NAME=VALUE`).
    pub defines: Vec<String>,
    /// The compiler program (run directly, never through a shell).
    pub compiler: String,
    /// Extra flags for both preprocessing and compiling (e.g. `-m32`).
    pub cflags: Vec<String>,
    /// Array elements listed per array (the array's own line always shows
    /// its count and size).
    pub max_elements: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct LayoutReport {
    pub header: String,
    pub compiler: CompilerFacts,
    pub structs: Vec<StructLayout>,
    pub assertions: Vec<AssertionCheck>,
    /// Declarations in the header the parser skipped (not in system headers).
    pub skipped_declarations: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompilerFacts {
    pub program: String,
    pub version: String,
    pub target: String,
    pub evidence: Evidence,
}

#[derive(Clone, Debug, Serialize)]
pub struct StructLayout {
    pub name: String,
    pub c_type: String,
    pub kind: &'static str,
    pub defined_at: String,
    pub size: u64,
    pub align: u64,
    /// Covers `size`, `align` and every field's offset and size.
    pub evidence: Evidence,
    pub fields: Vec<FieldLayout>,
    pub padding: Vec<Padding>,
    pub portability: Portability,
}

#[derive(Clone, Debug, Serialize)]
pub struct FieldLayout {
    /// Dotted path: `a.b`, `arr[3]`, `arr[3].x`.
    pub path: String,
    pub offset: u64,
    pub size: u64,
    /// `scalar`, `struct`, `array`, `bit-field` or `flexible array`.
    pub kind: &'static str,
    pub type_name: String,
    pub depth: usize,
    /// Arrays: the element count, and how many elements are listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listed: Option<u64>,
    /// Bit-fields: first bit (from the struct's start) and width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bit_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bit_width: Option<u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Padding {
    pub offset: u64,
    pub size: u64,
    pub evidence: Evidence,
}

/// Whether the measured layout carries over to the device (ILP32 Xtensa).
#[derive(Clone, Debug, Serialize)]
pub struct Portability {
    /// `true`: same layout expected; `false`: differs; `None`: not assessed.
    pub same_on_ilp32: Option<bool>,
    /// Fields whose type size depends on the data model.
    pub model_dependent_fields: Vec<String>,
    pub evidence: Evidence,
}

#[derive(Clone, Debug, Serialize)]
pub struct AssertionCheck {
    pub location: String,
    pub condition: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub holds: bool,
    /// The values of both sides of a `==` condition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub right: Option<u64>,
    pub evidence: Evidence,
}

impl LayoutReport {
    pub fn failed_assertions(&self) -> impl Iterator<Item = &AssertionCheck> {
        self.assertions.iter().filter(|a| !a.holds)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    #[error("{}: cannot read: {error}", path.display())]
    ReadHeader { path: PathBuf, error: std::io::Error },
    #[error("cannot run the C compiler `{program}`: {error}")]
    Compiler { program: String, error: std::io::Error },
    #[error("preprocessing {header} failed: {message}")]
    Preprocess { header: String, message: String },
    #[error("unknown struct `{name}` in {header} ({known})")]
    UnknownStruct { name: String, header: String, known: String },
    #[error("the generated probe did not compile: {message}")]
    ProbeCompile { message: String },
    #[error("the probe did not run: {message}")]
    ProbeRun { message: String },
    #[error("reading the probe's output: {0}")]
    ProbeOutput(String),
    #[error("temporary directory: {0}")]
    Temp(std::io::Error),
}

/// Measures the requested structs and checks the header's assertions.
pub fn measure(request: &LayoutRequest) -> Result<LayoutReport, LayoutError> {
    std::fs::File::open(&request.header)
        .map_err(|error| LayoutError::ReadHeader { path: request.header.clone(), error })?;
    let header_label = request.header.display().to_string();
    let work = tempfile::Builder::new().prefix("q7-struct-layout").tempdir().map_err(LayoutError::Temp)?;
    let compiler = compiler_facts(request)?;

    let preprocessed_path = work.path().join("header.i");
    let mut preprocess = Command::new(&request.compiler);
    preprocess.args(["-E", "-x", "c"]).args(&request.cflags);
    for dir in &request.include_dirs {
        preprocess.arg("-I").arg(dir);
    }
    for define in &request.defines {
        preprocess.arg(format!("-D{define}"));
    }
    preprocess.arg(&request.header).arg("-o").arg(&preprocessed_path);
    let output = run_tool(&request.compiler, &mut preprocess)?;
    if !output.status.success() {
        return Err(LayoutError::Preprocess { header: header_label, message: first_error(&output.stderr) });
    }
    let text = std::fs::read_to_string(&preprocessed_path)
        .map_err(|e| LayoutError::Preprocess { header: header_label.clone(), message: e.to_string() })?;

    let tokens = lex::tokenize(&text, &header_label);
    let unit = decl::parse(&text, &tokens);
    let roots: Vec<(String, Root)> = request
        .structs
        .iter()
        .map(|name| resolve_root(&unit, name, &header_label).map(|root| (name.clone(), root)))
        .collect::<Result<_, _>>()?;

    // Assertions from the caller's headers are re-checked by the probe;
    // those in system headers are left alone for the compiler.
    let checked: Vec<&unit::Assertion> = unit.assertions.iter().filter(|a| !a.location.system).collect();
    let cleaned = blank_spans(&text, checked.iter().map(|a| a.span));
    let probe_roots: Vec<Root> = roots.iter().map(|(_, r)| r.clone()).collect();
    let probe = probe::generate(&cleaned, &unit, &probe_roots, &checked, request.max_elements);

    let source_path = work.path().join("probe.c");
    let binary_path = work.path().join("probe");
    std::fs::write(&source_path, &probe.source).map_err(LayoutError::Temp)?;
    let mut compile = Command::new(&request.compiler);
    compile.args(["-x", "c", "-w"]).args(&request.cflags).arg(&source_path).arg("-o").arg(&binary_path);
    let output = run_tool(&request.compiler, &mut compile)?;
    if !output.status.success() {
        return Err(LayoutError::ProbeCompile { message: first_error(&output.stderr) });
    }
    let output = Command::new(&binary_path)
        .output()
        .map_err(|e| LayoutError::ProbeRun { message: format!("{e} (a cross compiler's output cannot run here)") })?;
    if !output.status.success() {
        return Err(LayoutError::ProbeRun { message: format!("it exited with {}", output.status) });
    }
    let lines = probe::parse_output(&String::from_utf8_lossy(&output.stdout)).map_err(LayoutError::ProbeOutput)?;

    let basis = format!("compiled and ran a probe with {} ({})", request.compiler, compiler.target);
    let structs = layouts::build_layouts(&unit, &roots, &probe.entries, &lines, &basis, &compiler.target)?;
    let assertions = checked
        .iter()
        .enumerate()
        .map(|(index, assertion)| {
            let result = lines.iter().find_map(|l| match l {
                ProbeLine::Assertion { index: i, holds, sides } if *i == index => Some((*holds, *sides)),
                _ => None,
            });
            let (holds, sides) =
                result.ok_or_else(|| LayoutError::ProbeOutput(format!("no result for assertion {index}")))?;
            Ok(AssertionCheck {
                location: assertion.location.label(),
                condition: assertion.condition.clone(),
                message: assertion.message.clone(),
                holds,
                left: sides.map(|s| s.0),
                right: sides.map(|s| s.1),
                evidence: Evidence::observed(format!("evaluated by the probe ({})", compiler.target)),
            })
        })
        .collect::<Result<Vec<_>, LayoutError>>()?;
    let skipped_declarations = unit
        .skipped
        .iter()
        .filter(|(l, _)| !l.system)
        .map(|(l, message)| format!("{}: {message}", l.label()))
        .collect();
    Ok(LayoutReport { header: header_label, compiler, structs, assertions, skipped_declarations })
}

fn run_tool(program: &str, command: &mut Command) -> Result<std::process::Output, LayoutError> {
    command.output().map_err(|error| LayoutError::Compiler { program: program.to_string(), error })
}

/// The first line of compiler diagnostics that says `error`, else the first.
fn first_error(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().find(|l| l.contains("error")).or_else(|| text.lines().find(|l| !l.trim().is_empty()));
    line.unwrap_or("no diagnostics").trim().to_string()
}

fn compiler_facts(request: &LayoutRequest) -> Result<CompilerFacts, LayoutError> {
    let ask = |flag: &str| -> Result<String, LayoutError> {
        let output = run_tool(&request.compiler, Command::new(&request.compiler).args(&request.cflags).arg(flag))?;
        Ok(String::from_utf8_lossy(&output.stdout).lines().next().unwrap_or("unknown").trim().to_string())
    };
    let version = ask("--version")?;
    let target = ask("-dumpmachine")?;
    Ok(CompilerFacts {
        program: request.compiler.clone(),
        evidence: Evidence::observed(format!("`{} --version` and `-dumpmachine`", request.compiler)),
        version,
        target,
    })
}

/// Finds a requested struct: a typedef name, `struct tag`, `union tag`, or
/// a bare tag.
fn resolve_root(unit: &Unit, name: &str, header: &str) -> Result<Root, LayoutError> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let found = match words.as_slice() {
        [kind @ ("struct" | "union"), tag] => {
            let kind = if *kind == "struct" { unit::AggregateKind::Struct } else { unit::AggregateKind::Union };
            unit.tags.get(&(kind, tag.to_string())).map(|&id| Root { c_type: name.to_string(), aggregate: id })
        }
        [single] => {
            let by_typedef = unit.typedefs.get(*single).and_then(|(ty, _)| match unit.resolve(ty) {
                (Resolved::Aggregate(id), 0, _) => Some(Root { c_type: single.to_string(), aggregate: id }),
                _ => None,
            });
            by_typedef.or_else(|| {
                [unit::AggregateKind::Struct, unit::AggregateKind::Union].into_iter().find_map(|kind| {
                    unit.tags
                        .get(&(kind, single.to_string()))
                        .map(|&id| Root { c_type: format!("{} {single}", kind.keyword()), aggregate: id })
                })
            })
        }
        _ => None,
    };
    found.ok_or_else(|| LayoutError::UnknownStruct {
        name: name.to_string(),
        header: header.to_string(),
        known: known_structs(unit),
    })
}

/// The struct names defined outside system headers, for error messages.
fn known_structs(unit: &Unit) -> String {
    let mut names: Vec<String> = unit
        .typedefs
        .iter()
        .filter(|(_, (ty, location))| !location.system && matches!(unit.resolve(ty), (Resolved::Aggregate(_), 0, _)))
        .map(|(name, _)| name.clone())
        .collect();
    names.extend(
        unit.aggregates
            .iter()
            .filter(|a| !a.location.system)
            .filter_map(|a| a.tag.as_ref().map(|t| format!("{} {t}", a.kind.keyword()))),
    );
    names.sort();
    names.dedup();
    if names.is_empty() {
        "it defines no structs".to_string()
    } else {
        format!("defined there: {}", names.join(", "))
    }
}

/// Replaces the given byte spans with spaces, keeping newlines so the
/// compiler's line numbers stay those of the header.
fn blank_spans(text: &str, spans: impl Iterator<Item = (usize, usize)>) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (start, end) in spans {
        for b in &mut bytes[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only ASCII bytes inside token spans were replaced, with ASCII.
    String::from_utf8(bytes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::unit::Base;
    use super::*;

    #[test]
    fn blanking_keeps_lines_and_length() {
        let text = "a;\n_Static_assert(1,\n\"m\");\nb;";
        let start = text.find('_').unwrap();
        let end = text.find("\");").unwrap() + 3;
        let out = blank_spans(text, [(start, end)].into_iter());
        assert_eq!(out.len(), text.len());
        assert_eq!(out.lines().count(), text.lines().count());
        assert!(!out.contains("assert"));
    }

    #[test]
    fn root_lookup_by_typedef_tag_and_keyword() {
        let text = "typedef struct s { int a; } s_t; union u { int i; };";
        let unit = decl::parse(text, &lex::tokenize(text, "h"));
        assert_eq!(resolve_root(&unit, "s_t", "h").unwrap().c_type, "s_t");
        assert_eq!(resolve_root(&unit, "s", "h").unwrap().c_type, "struct s");
        assert_eq!(resolve_root(&unit, "union u", "h").unwrap().c_type, "union u");
        let err = resolve_root(&unit, "nope", "h").unwrap_err().to_string();
        assert_eq!(err, "unknown struct `nope` in h (defined there: s_t, struct s, union u)");
        assert!(matches!(unit.aggregates[0].members[0].ty.base, Base::Builtin(_)));
    }
}
