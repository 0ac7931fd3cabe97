//! The parent side of the oracle: starts the worker process, feeds it the
//! inputs, collects one outcome per (input, leaf) call, and turns a worker
//! killed by a signal into a recorded crash on the exact call that was
//! running. After a crash a fresh worker resumes with the next input, so one
//! bad input does not hide the behaviour on the others.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

use super::worker::EXIT_LOAD_ERROR;

/// How to start a worker: a program plus the arguments that select its
/// worker mode; the driver appends `--lib`, `--leaf` and `--timeout`.
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

/// What one call of one leaf did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The leaf returned `status` and wrote `value` to `*result`.
    Returned { status: i32, value: u32 },
    /// The worker died with this signal during the call.
    Crashed { signal: i32 },
    /// Not called: an earlier leaf crashed on this input, or the run stopped.
    NotRun,
}

/// A crash, located on the call that caused it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Crash {
    pub leaf: String,
    pub a: u32,
    pub b: u32,
    pub signal: i32,
    pub signal_name: String,
}

impl Crash {
    pub fn sentence(&self) -> String {
        if self.signal == libc::SIGALRM {
            format!("leaf {} timed out (killed by SIGALRM) on input ({:#x}, {:#x})", self.leaf, self.a, self.b)
        } else {
            format!("leaf {} crashed with {} on input ({:#x}, {:#x})", self.leaf, self.signal_name, self.a, self.b)
        }
    }
}

#[derive(Clone, Debug)]
pub struct RunRequest<'a> {
    pub library: &'a Path,
    pub leaves: &'a [String],
    pub inputs: &'a [(u32, u32)],
    /// Seconds one call may take before the worker's alarm kills it.
    pub timeout_secs: u32,
    /// Crashes after which the remaining inputs are not run.
    pub max_crashes: usize,
}

#[derive(Clone, Debug)]
pub struct RunResult {
    /// Each leaf's offset from the library's load base, when dladdr knew it.
    pub symbol_offsets: Vec<Option<u64>>,
    /// `outcomes[input][leaf]`.
    pub outcomes: Vec<Vec<Outcome>>,
    pub crashes: Vec<Crash>,
    /// Worker processes started (one, plus one per crash that was resumed).
    pub workers: usize,
    /// The crash limit was reached with inputs left untried.
    pub stopped_early: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("cannot start the oracle worker {program}: {error}")]
    Spawn { program: String, error: std::io::Error },
    #[error("{0}")]
    Load(String),
    #[error("{library} crashed with {signal} while loading (before any leaf was called)")]
    LoadCrash { library: String, signal: String },
    #[error("the oracle worker failed ({status}){detail}")]
    Worker { status: String, detail: String },
    #[error("the oracle worker sent an unexpected line: `{0}`")]
    Protocol(String),
    #[error("reading from the oracle worker: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs every input through every leaf, in worker processes.
pub fn run(worker: &WorkerCommand, request: &RunRequest) -> Result<RunResult, DriverError> {
    let leaf_count = request.leaves.len();
    let mut result = RunResult {
        symbol_offsets: vec![None; leaf_count],
        outcomes: vec![vec![Outcome::NotRun; leaf_count]; request.inputs.len()],
        crashes: Vec::new(),
        workers: 0,
        stopped_early: false,
    };
    let mut next_input = 0;
    while next_input < request.inputs.len() {
        result.workers += 1;
        let session = run_one_worker(worker, request, next_input, &mut result)?;
        match session {
            WorkerEnd::Finished => break,
            WorkerEnd::Crashed { input, leaf, signal } => {
                let (a, b) = request.inputs[input];
                result.outcomes[input][leaf] = Outcome::Crashed { signal };
                result.crashes.push(Crash {
                    leaf: request.leaves[leaf].clone(),
                    a,
                    b,
                    signal,
                    signal_name: signal_name(signal),
                });
                if result.crashes.len() >= request.max_crashes {
                    result.stopped_early = input + 1 < request.inputs.len();
                    break;
                }
                next_input = input + 1;
            }
        }
    }
    Ok(result)
}

enum WorkerEnd {
    Finished,
    Crashed { input: usize, leaf: usize, signal: i32 },
}

fn run_one_worker(
    worker: &WorkerCommand,
    request: &RunRequest,
    first_input: usize,
    result: &mut RunResult,
) -> Result<WorkerEnd, DriverError> {
    let mut command = Command::new(&worker.program);
    command.args(&worker.args).arg("--lib").arg(request.library);
    for leaf in request.leaves {
        command.arg("--leaf").arg(leaf);
    }
    command.arg("--timeout").arg(request.timeout_secs.to_string());
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| DriverError::Spawn { program: worker.program.display().to_string(), error })?;

    // Feed and drain on threads so neither pipe can fill up and stall the
    // worker while this thread reads its protocol lines.
    let mut stdin = child.stdin.take().expect("piped stdin");
    let feed: Vec<(u32, u32)> = request.inputs[first_input..].to_vec();
    let feeder = std::thread::spawn(move || {
        let mut text = String::new();
        for (a, b) in feed {
            text.push_str(&format!("{a} {b}\n"));
        }
        // The worker may die before reading everything; that is reported
        // from its exit status, not from this write.
        let _ = stdin.write_all(text.as_bytes());
    });
    let mut stderr = child.stderr.take().expect("piped stderr");
    let drainer = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });

    let leaf_count = request.leaves.len();
    let mut ready = false;
    let mut load_error = None;
    let mut calls_done = 0usize;
    let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    for line in stdout.lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["symbol", i, offset] => {
                let i: usize = i.parse().map_err(|_| DriverError::Protocol(line.clone()))?;
                if i < leaf_count {
                    result.symbol_offsets[i] = u64::from_str_radix(offset, 16).ok();
                }
            }
            ["ready"] => ready = true,
            ["error", ..] => load_error = Some(line["error ".len()..].to_string()),
            ["result", leaf, status, value] if ready => {
                let input = first_input + calls_done / leaf_count;
                let expected_leaf = calls_done % leaf_count;
                let parsed = (leaf.parse::<usize>(), status.parse::<i32>(), value.parse::<u32>());
                let (Ok(leaf), Ok(status), Ok(value)) = parsed else {
                    return Err(DriverError::Protocol(line.clone()));
                };
                if leaf != expected_leaf || input >= request.inputs.len() {
                    return Err(DriverError::Protocol(line.clone()));
                }
                result.outcomes[input][leaf] = Outcome::Returned { status, value };
                calls_done += 1;
            }
            _ => return Err(DriverError::Protocol(line.clone())),
        }
    }
    let status = child.wait()?;
    let _ = feeder.join();
    let stderr_text = drainer.join().unwrap_or_default();

    if let Some(message) = load_error {
        return Err(DriverError::Load(message));
    }
    if let Some(signal) = status.signal() {
        if !ready {
            return Err(DriverError::LoadCrash {
                library: request.library.display().to_string(),
                signal: signal_name(signal),
            });
        }
        let input = first_input + calls_done / leaf_count;
        if input >= request.inputs.len() {
            return Err(DriverError::Worker { status: signal_name(signal), detail: " after the last call".into() });
        }
        return Ok(WorkerEnd::Crashed { input, leaf: calls_done % leaf_count, signal });
    }
    let expected_calls = (request.inputs.len() - first_input) * leaf_count;
    if status.success() && ready && calls_done == expected_calls {
        return Ok(WorkerEnd::Finished);
    }
    let code = status.code().unwrap_or(-1);
    let detail = match stderr_text.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(last) => format!(": {}", last.trim()),
        None if code == EXIT_LOAD_ERROR => ": it could not load the library".to_string(),
        None => format!(": {calls_done} of {expected_calls} calls answered"),
    };
    Err(DriverError::Worker { status: format!("exit status {code}"), detail })
}

/// `SIGSEGV`-style names for the signals a leaf can plausibly die of.
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGALRM => "SIGALRM",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGSYS => "SIGSYS",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGINT => "SIGINT",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}
