//! What a run produced, as a typed value every front end renders its own
//! way (`q7 run` as text or `--json`, the Python package as exceptions).

use std::time::Duration;

use serde::Serialize;

use q7_target::launch::status_meaning;
use q7_target::DType;

use super::symbols::CodeLocation;
use crate::machine::RunEnd;

/// Per-core counters.
#[derive(Clone, Debug, Serialize)]
pub struct CoreStats {
    pub core: usize,
    pub instructions: u64,
    pub cycles: u64,
    pub blocks_decoded: u64,
    pub exit_status: Option<i32>,
}

/// Findings by kind, including those past the kept list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FindingCounts {
    pub stray_stores: u64,
    pub races: u64,
    pub unwritten_reads: u64,
    pub stray_loads: u64,
}

impl FindingCounts {
    pub fn total(&self) -> u64 {
        self.stray_stores + self.races + self.unwritten_reads + self.stray_loads
    }
}

impl std::fmt::Display for FindingCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} stray stores, {} racing stores, {} reads of unwritten memory, {} stray loads",
            self.stray_stores, self.races, self.unwritten_reads, self.stray_loads
        )
    }
}

/// How the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every core exited (with any status).
    Exited,
    Fault,
    /// The instruction budget ran out.
    Budget,
    Timeout,
    /// Stopped from outside (Ctrl-C).
    Interrupted,
    /// Every running core waited on memory no core would write.
    Deadlock,
}

impl From<&RunEnd> for Outcome {
    fn from(end: &RunEnd) -> Outcome {
        match end {
            RunEnd::Exited => Outcome::Exited,
            RunEnd::Fault(_) => Outcome::Fault,
            RunEnd::Budget => Outcome::Budget,
            RunEnd::Timeout => Outcome::Timeout,
            RunEnd::Interrupted => Outcome::Interrupted,
            RunEnd::Deadlock => Outcome::Deadlock,
        }
    }
}

/// A core that was still running when a limit stopped the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunningCore {
    pub core: usize,
    pub pc: u32,
    /// `pc` named (function, and source line in a `-g` build).
    pub location: CodeLocation,
    /// The calls that led there, innermost first (the windowed call stack).
    pub callers: Vec<CodeLocation>,
}

/// The first problem of a run.
#[derive(Clone, Debug, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Failure {
    #[error("core {core}: {message}{}", describe_where(location.as_ref(), called_from.as_ref(), callers))]
    Fault {
        core: usize,
        pc: u32,
        message: String,
        /// The op code at `pc`, named.
        location: Option<CodeLocation>,
        /// For a fault inside q7's firmware (window exception handlers),
        /// the op code whose exception it was handling.
        called_from: Option<CodeLocation>,
        /// The calls that led to `pc`, innermost first (not for a fault
        /// inside the firmware).
        callers: Vec<CodeLocation>,
    },
    #[error("instruction budget of {max_insns} exhausted ({})", where_cores_are(running))]
    Budget { max_insns: u64, running: Vec<RunningCore> },
    #[error(
        "wall-clock limit of {seconds:.1} s reached after {instructions} instructions ({})",
        where_cores_are(running)
    )]
    Timeout { seconds: f64, instructions: u64, running: Vec<RunningCore> },
    #[error("interrupted after {instructions} instructions ({})", where_cores_are(running))]
    Interrupted { instructions: u64, running: Vec<RunningCore> },
    #[error("deadlock: every running core waits forever on memory no core will write ({})", where_cores_are(running))]
    Deadlock { instructions: u64, running: Vec<RunningCore> },
    #[error("core {core} exited with status {status} ({meaning})")]
    ExitStatus {
        core: usize,
        status: i32,
        meaning: &'static str,
        /// The call stack at the exit, innermost first (the SDK's `q7_fail`
        /// for a failed runtime check; the op's line further out).
        stack: Vec<CodeLocation>,
    },
}

fn describe_where(
    location: Option<&CodeLocation>,
    called_from: Option<&CodeLocation>,
    callers: &[CodeLocation],
) -> String {
    match (location, called_from) {
        (_, Some(from)) => format!(", in q7's window-exception firmware handling {from}"),
        (Some(at), None) if at.function.is_some() || at.source.is_some() => {
            format!(", in {at}{}", caller_note(at, callers))
        }
        _ => String::new(),
    }
}

/// For a location inside code without lines (the SDK): the nearest caller
/// with one (the op's own line in a `-g` build), else the next caller.
fn caller_note(at: &CodeLocation, callers: &[CodeLocation]) -> String {
    if at.source.is_some() {
        return String::new();
    }
    match callers.iter().find(|c| c.source.is_some()).or(callers.first()) {
        Some(caller) => format!(", called from {caller}"),
        None => String::new(),
    }
}

fn where_cores_are(running: &[RunningCore]) -> String {
    let list: Vec<String> = running
        .iter()
        .map(|r| {
            let text = match (&r.location.function, &r.location.source) {
                (None, None) => format!("core {} at pc {:#010x}", r.core, r.pc),
                _ => format!("core {} at pc {:#010x} in {}", r.core, r.pc, r.location),
            };
            text + &caller_note(&r.location, &r.callers)
        })
        .collect();
    list.join(", ")
}

impl Failure {
    pub fn exit_status(core: usize, status: i32, stack: Vec<CodeLocation>) -> Failure {
        Failure::ExitStatus { core, status, meaning: status_meaning(status), stack }
    }
}

/// Where the output tensor came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputSource {
    /// Core 0 returned a tensor other than the destination.
    ReturnedTensor,
    /// The destination tensor (returned, or nothing returned).
    DestinationTensor,
}

impl OutputSource {
    pub fn describe(self) -> &'static str {
        match self {
            OutputSource::ReturnedTensor => "returned tensor",
            OutputSource::DestinationTensor => "destination tensor",
        }
    }
}

/// The op's result tensor.
#[derive(Clone, Debug, Serialize)]
pub struct OutputTensor {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub source: OutputSource,
    /// C-order little-endian elements.
    #[serde(skip)]
    pub data: Vec<u8>,
}

impl OutputTensor {
    pub fn into_array(self) -> crate::npy::Array {
        crate::npy::Array { dtype: self.dtype, shape: self.shape, data: self.data }
    }
}

/// Output elements no core wrote: a finding that does not fail a run by
/// itself (an op may mean to leave zeros), but usually a bug in how work is
/// split between cores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnwrittenOutput {
    /// How many elements were never written.
    pub elements: u64,
    /// Of how many.
    pub of: usize,
    /// The first few indices (C order).
    pub first: Vec<usize>,
}

impl std::fmt::Display for UnwrittenOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let first: Vec<String> = self.first.iter().map(|i| i.to_string()).collect();
        let more = if self.elements > self.first.len() as u64 { ", ..." } else { "" };
        write!(
            f,
            "{} of {} output elements were never written (indices {}{more})",
            self.elements,
            self.of,
            first.join(", ")
        )
    }
}

/// One finding of q7's checks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FindingReport {
    /// One line: core, pc, the access and what it hit.
    pub message: String,
    pub core: usize,
    pub pc: u32,
    /// The call stack at the access, innermost first, when it was located
    /// ([`super::OpLibrary::locate_findings`]); else empty.
    pub stack: Vec<CodeLocation>,
}

impl FindingReport {
    /// The frame to name in one line ([`op_frame`]).
    pub fn where_in_source(&self) -> Option<&CodeLocation> {
        op_frame(&self.stack)
    }
}

/// The frame of `stack` (innermost first) to name as the op's: the
/// innermost with a source line (the op's own code in a `-g` build; the
/// generated wrapper's lines only when no other has one), else the
/// innermost outside the SDK, else the innermost named one.
pub fn op_frame(stack: &[CodeLocation]) -> Option<&CodeLocation> {
    let named = |f: &&CodeLocation| f.function.is_some();
    (stack.iter().find(|f| f.source.is_some() && !in_sdk(f)))
        .or_else(|| stack.iter().find(|f| f.source.is_some()))
        .or_else(|| stack.iter().filter(named).find(|f| !in_sdk(f)))
        .or_else(|| stack.iter().find(named))
}

/// Whether `frame` is in q7's SDK or the generated wrapper rather than the
/// op's own code, by its name: the SDK's C++ lives in `at::`, `c10::` and
/// `torch::`; its C runtime is `q7_*`, the string functions and the start-up
/// code; the wrapper's functions end in `_wrapper` and `_stack_switch`.
pub fn in_sdk(frame: &CodeLocation) -> bool {
    let Some((name, _)) = &frame.function else { return false };
    let base = name.split('(').next().unwrap_or(name);
    const PREFIXES: [&str; 6] = ["at::", "c10::", "torch::", "q7_", "customop_", "__"];
    const NAMES: [&str; 10] =
        ["memcpy", "memmove", "memset", "memcmp", "strlen", "malloc", "free", "abort", "exit", "_start"];
    PREFIXES.iter().any(|p| base.starts_with(p))
        || NAMES.contains(&base)
        || base.ends_with("_wrapper")
        || base.ends_with("_stack_switch")
}

impl std::fmt::Display for FindingReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match self.where_in_source() {
            Some(at) => write!(f, ", in {at}"),
            None => Ok(()),
        }
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, Serialize)]
pub struct OpReport {
    /// The compute function (`get_func_name`).
    pub function: String,
    /// The op's name from its schema, when the image has a schema table.
    pub op: Option<String>,
    pub function_index: u32,
    pub cores: usize,
    /// Host threads the cores ran on (1: the deterministic round-robin).
    pub threads: usize,
    #[serde(rename = "end")]
    pub outcome: Outcome,
    pub failure: Option<Failure>,
    pub output: Option<OutputTensor>,
    pub stats: Vec<CoreStats>,
    /// As many as the checker keeps.
    pub findings: Vec<FindingReport>,
    pub finding_counts: FindingCounts,
    /// Output elements nobody wrote (with checks on).
    pub unwritten_output: Option<UnwrittenOutput>,
    /// Console output, `[core N] `-prefixed.
    pub stdout: String,
    pub stderr: String,
    /// Bytes of console output dropped past the capture limit.
    pub console_dropped: u64,
    #[serde(rename = "wall_seconds", serialize_with = "seconds")]
    pub wall: Duration,
    /// What the JIT compiled for the run (`None` on the interpreter).
    pub jit: Option<JitStats>,
    /// Each core's memory map when a core faulted, for the fault report
    /// (empty otherwise; not serialised).
    #[serde(skip)]
    pub memory_maps: Vec<String>,
}

/// The JIT's share of a run: how much it compiled, and the time that took
/// (part of the run's wall time). The cores of a machine share one
/// compiler, so these are machine totals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct JitStats {
    /// Compiled functions: blocks, loop bodies and regions.
    pub blocks_compiled: u64,
    /// Of them, regions (a hot block with the blocks it reaches).
    pub regions_compiled: u64,
    #[serde(rename = "compile_seconds", serialize_with = "seconds")]
    pub compile_time: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl OpReport {
    /// Instructions over all cores.
    pub fn instructions(&self) -> u64 {
        self.stats.iter().map(|s| s.instructions).sum()
    }

    /// The run failed or a check found something.
    pub fn ok(&self) -> bool {
        self.failure.is_none() && self.finding_counts.total() == 0
    }
}
