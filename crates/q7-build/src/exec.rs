//! Running commands: capture their output, report failures with the tool's
//! stderr, and run independent jobs in parallel with fail-fast.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::command::Command;

/// A command that could not be run or exited non-zero.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    // The message carries the cause (not a `source` too: a chained report
    // would print it twice).
    #[error("cannot run {program}: {error}")]
    Spawn { program: String, error: std::io::Error },
    #[error("{program} exited with {status}{}", indent_output(.stderr))]
    Failed { program: String, status: String, stderr: String },
}

impl ExecError {
    /// What the tool said (its stderr), or why it could not run: the text
    /// a build error quotes.
    pub fn tool_output(self) -> String {
        match self {
            ExecError::Failed { stderr, .. } => stderr.trim_end().to_string(),
            ExecError::Spawn { .. } => self.to_string(),
        }
    }
}

fn indent_output(s: &str) -> String {
    let body: Vec<String> = s.lines().map(|l| format!("\n    {l}")).collect();
    body.concat()
}

/// Runs `cmd` to completion, capturing stdout and stderr.
pub fn run(cmd: &Command) -> Result<std::process::Output, ExecError> {
    let program = cmd.program.display().to_string();
    let out = cmd.to_std().output().map_err(|error| ExecError::Spawn { program: program.clone(), error })?;
    if out.status.success() {
        Ok(out)
    } else {
        let mut stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if stderr.trim().is_empty() {
            stderr = String::from_utf8_lossy(&out.stdout).into_owned();
        }
        Err(ExecError::Failed { program, status: out.status.to_string(), stderr })
    }
}

/// Runs `work(item)` over `items` on up to `jobs` threads. Stops starting new
/// items after the first error and returns the first error (in item order).
pub fn parallel<T: Sync, R: Send, E: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<R, E>>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| loop {
                if failed.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { return };
                let r = work(item);
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    let mut out = Vec::with_capacity(items.len());
    for r in results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten() {
        out.push(r?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_keeps_order_and_reports_the_first_error() {
        let items: Vec<u32> = (0..50).collect();
        let doubled = parallel(&items, 4, |&i| Ok::<_, String>(i * 2)).unwrap();
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let r = parallel(&items, 1, |&i| if i == 3 || i == 7 { Err(i) } else { Ok(i) });
        assert_eq!(r, Err(3));
    }

    #[test]
    fn failed_command_carries_its_stderr() {
        let cmd = Command::new("sh").arg("-c").arg("echo 'bad thing' >&2; exit 3");
        let e = run(&cmd).unwrap_err().to_string();
        assert_eq!(e, "sh exited with exit status: 3\n    bad thing");
    }
}
