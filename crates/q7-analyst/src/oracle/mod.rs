//! The value oracle of docs/FACTS.md, "Value oracle", driven safely: a leaf with the
//! `int leaf(void *state, unsigned a, unsigned b, unsigned *result)` ABI is
//! executed on a grid of inputs in a separate process and its results are
//! compared with a reference expression and/or another leaf.

mod driver;
pub mod inputs;
mod text;
pub mod worker;

use std::path::Path;

use serde::Serialize;

pub use driver::{signal_name, Crash, DriverError, Outcome, RunRequest, RunResult, WorkerCommand};
pub use inputs::InputSet;
pub use text::write_report;

use crate::evidence::Evidence;
use crate::expr::Expr;

/// What to run and what to compare it with.
#[derive(Clone, Debug)]
pub struct OracleRequest<'a> {
    pub library: &'a Path,
    pub leaf: String,
    pub same_as: Option<String>,
    pub model: Option<Expr>,
    pub inputs: InputSet,
    pub timeout_secs: u32,
    pub max_crashes: usize,
    /// How many mismatches each comparison keeps as examples.
    pub show: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct OracleReport {
    pub library: String,
    pub library_sha256: String,
    pub leaves: Vec<LeafFacts>,
    pub model: Option<String>,
    pub inputs: InputFacts,
    /// Calls that returned (crashed calls are in `crashes`).
    pub calls_returned: usize,
    pub workers: usize,
    pub execution: Evidence,
    pub comparisons: Vec<Comparison>,
    pub crashes: Vec<CrashFacts>,
    /// Inputs some leaf never ran on (after a crash, or once the run stopped).
    pub inputs_not_run: usize,
    /// The run stopped at the crash limit before every input was tried.
    pub stopped_early: bool,
    pub model_errors: ModelErrors,
    /// Every input with each leaf's outcome and the model's value.
    pub samples: Vec<Sample>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LeafFacts {
    pub symbol: String,
    /// Offset from the library's load base (what `nm -D` prints).
    pub offset: Option<u64>,
    /// Calls that returned a non-zero status (the ABI's int return).
    pub nonzero_status_calls: usize,
    pub evidence: Evidence,
}

#[derive(Clone, Debug, Serialize)]
pub struct InputFacts {
    pub description: String,
    pub count: usize,
}

/// One side-by-side comparison over the inputs both sides produced a value for.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub left: String,
    pub right: String,
    pub agree: usize,
    pub disagree: usize,
    /// Inputs where either side had no value (crash, not run, model error).
    pub incomparable: usize,
    pub first_mismatches: Vec<Mismatch>,
    pub evidence: Evidence,
}

impl Comparison {
    pub fn holds(&self) -> bool {
        self.disagree == 0 && self.agree > 0
    }
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Mismatch {
    pub a: u32,
    pub b: u32,
    pub left: u32,
    pub right: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CrashFacts {
    #[serde(flatten)]
    pub crash: Crash,
    pub message: String,
    pub evidence: Evidence,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ModelErrors {
    pub count: usize,
    pub first: Vec<ModelError>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ModelError {
    pub a: u32,
    pub b: u32,
    pub error: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Sample {
    pub a: u32,
    pub b: u32,
    pub leaves: Vec<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<Result<u32, String>>,
}

#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("{}: cannot read: {error}", path.display())]
    Read { path: std::path::PathBuf, error: std::io::Error },
    #[error(transparent)]
    Driver(#[from] DriverError),
}

impl OracleReport {
    /// One line summing up what went wrong, for the exit status message.
    pub fn problem_summary(&self) -> Option<String> {
        let mut problems = Vec::new();
        for c in self.comparisons.iter().filter(|c| c.disagree > 0) {
            problems.push(format!(
                "{} disagrees with {} on {} of {} inputs",
                c.left,
                c.right,
                c.disagree,
                c.agree + c.disagree
            ));
        }
        if let Some(first) = self.crashes.first() {
            let more = self.crashes.len() - 1;
            problems.push(if more > 0 {
                format!("{} (and {more} more crashes)", first.message)
            } else {
                first.message.clone()
            });
        }
        (!problems.is_empty()).then(|| problems.join("; "))
    }
}

/// Runs the request: hashes the library, executes the leaves in worker
/// processes, evaluates the model, and compares.
pub fn run(worker: &WorkerCommand, request: &OracleRequest) -> Result<OracleReport, OracleError> {
    let bytes = std::fs::read(request.library)
        .map_err(|error| OracleError::Read { path: request.library.to_path_buf(), error })?;
    let library_sha256 = q7_target::digest::sha256_hex(&bytes);
    let mut symbols = vec![request.leaf.clone()];
    symbols.extend(request.same_as.iter().cloned());
    let run = driver::run(
        worker,
        &RunRequest {
            library: request.library,
            leaves: &symbols,
            inputs: &request.inputs.pairs,
            timeout_secs: request.timeout_secs,
            max_crashes: request.max_crashes,
        },
    )?;
    Ok(build_report(request, &symbols, library_sha256, run))
}

fn build_report(request: &OracleRequest, symbols: &[String], library_sha256: String, run: RunResult) -> OracleReport {
    let library = request.library.display().to_string();
    let short_hash = &library_sha256[..12];
    let samples: Vec<Sample> = request
        .inputs
        .pairs
        .iter()
        .zip(&run.outcomes)
        .map(|(&(a, b), outcomes)| Sample {
            a,
            b,
            leaves: outcomes.clone(),
            model: request.model.as_ref().map(|m| m.eval(a, b).map_err(|e| e.to_string())),
        })
        .collect();

    let mut model_errors = ModelErrors::default();
    for s in &samples {
        if let Some(Err(error)) = &s.model {
            model_errors.count += 1;
            if model_errors.first.len() < request.show {
                model_errors.first.push(ModelError { a: s.a, b: s.b, error: error.clone() });
            }
        }
    }

    let leaf_value = |i: usize| move |s: &Sample| returned_value(s.leaves[i]);
    let model_value = |s: &Sample| s.model.as_ref().and_then(|m| m.as_ref().ok().copied());
    let mut comparisons = Vec::new();
    if let Some(model) = &request.model {
        for (i, symbol) in symbols.iter().enumerate() {
            let basis = format!("executed {symbol} in {library} (sha256 {short_hash}…) and evaluated `{model}`");
            comparisons.push(compare(
                symbol,
                &format!("model `{model}`"),
                &samples,
                leaf_value(i),
                model_value,
                request.show,
                basis,
            ));
        }
    }
    if symbols.len() == 2 {
        let basis = format!("executed {} and {} on the same inputs in {library}", symbols[0], symbols[1]);
        comparisons.push(compare(
            &symbols[0],
            &symbols[1],
            &samples,
            leaf_value(0),
            leaf_value(1),
            request.show,
            basis,
        ));
    }

    let calls_returned = run.outcomes.iter().flatten().filter(|o| matches!(o, Outcome::Returned { .. })).count();
    let leaves = symbols
        .iter()
        .enumerate()
        .map(|(i, symbol)| LeafFacts {
            symbol: symbol.clone(),
            offset: run.symbol_offsets[i],
            nonzero_status_calls: run
                .outcomes
                .iter()
                .filter(|o| matches!(o[i], Outcome::Returned { status, .. } if status != 0))
                .count(),
            evidence: Evidence::observed(format!("resolved with dlsym in {library}; offset from dladdr")),
        })
        .collect();
    let crashes = run
        .crashes
        .iter()
        .map(|crash| CrashFacts {
            crash: crash.clone(),
            message: crash.sentence(),
            evidence: Evidence::observed(format!(
                "the worker process died with {} during this call",
                crash.signal_name
            )),
        })
        .collect();
    let inputs_not_run = run.outcomes.iter().filter(|o| o.contains(&Outcome::NotRun)).count();
    OracleReport {
        library: library.clone(),
        library_sha256,
        leaves,
        model: request.model.as_ref().map(|m| m.source().to_string()),
        inputs: InputFacts { description: request.inputs.description.clone(), count: request.inputs.pairs.len() },
        calls_returned,
        workers: run.workers,
        execution: Evidence::observed(format!(
            "{calls_returned} calls executed in {} worker process{} (the seed's C ABI, state = NULL)",
            run.workers,
            if run.workers == 1 { "" } else { "es" }
        )),
        comparisons,
        crashes,
        inputs_not_run,
        stopped_early: run.stopped_early,
        model_errors,
        samples,
    }
}

fn returned_value(outcome: Outcome) -> Option<u32> {
    match outcome {
        Outcome::Returned { value, .. } => Some(value),
        _ => None,
    }
}

fn compare(
    left: &str,
    right: &str,
    samples: &[Sample],
    left_value: impl Fn(&Sample) -> Option<u32>,
    right_value: impl Fn(&Sample) -> Option<u32>,
    show: usize,
    basis: String,
) -> Comparison {
    let mut comparison = Comparison {
        left: left.to_string(),
        right: right.to_string(),
        agree: 0,
        disagree: 0,
        incomparable: 0,
        first_mismatches: Vec::new(),
        evidence: Evidence::observed(basis),
    };
    for s in samples {
        match (left_value(s), right_value(s)) {
            (Some(l), Some(r)) if l == r => comparison.agree += 1,
            (Some(l), Some(r)) => {
                comparison.disagree += 1;
                if comparison.first_mismatches.len() < show {
                    comparison.first_mismatches.push(Mismatch { a: s.a, b: s.b, left: l, right: r });
                }
            }
            _ => comparison.incomparable += 1,
        }
    }
    comparison
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(a: u32, b: u32, leaf: Outcome, model: Option<Result<u32, String>>) -> Sample {
        Sample { a, b, leaves: vec![leaf], model }
    }

    #[test]
    fn comparison_counts_agreements_mismatches_and_gaps() {
        let ok = |v| Outcome::Returned { status: 0, value: v };
        let samples = vec![
            sample(0, 1, ok(1), Some(Ok(1))),
            sample(1, 0, ok(1), Some(Ok(0))),
            sample(2, 2, Outcome::Crashed { signal: libc::SIGSEGV }, Some(Ok(0))),
            sample(3, 0, ok(0), Some(Err("division by zero".into()))),
        ];
        let c = compare(
            "leaf",
            "model",
            &samples,
            |s| returned_value(s.leaves[0]),
            |s| s.model.clone().and_then(Result::ok),
            10,
            "test".into(),
        );
        assert_eq!((c.agree, c.disagree, c.incomparable), (1, 1, 2));
        assert_eq!(c.first_mismatches, vec![Mismatch { a: 1, b: 0, left: 1, right: 0 }]);
        assert!(!c.holds());
    }

    #[test]
    fn crash_sentences_name_the_signal_and_input() {
        let crash =
            Crash { leaf: "f".into(), a: 0, b: 0x80, signal: libc::SIGSEGV, signal_name: signal_name(libc::SIGSEGV) };
        assert_eq!(crash.sentence(), "leaf f crashed with SIGSEGV on input (0x0, 0x80)");
        let hang = Crash { signal: libc::SIGALRM, signal_name: "SIGALRM".into(), ..crash };
        assert!(hang.sentence().contains("timed out"));
    }
}
