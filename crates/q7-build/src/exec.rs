//! Running commands: capture their output, report failures with the tool's
//! stderr (jobs run in parallel through `q7_target::par::try_map`).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_command_carries_its_stderr() {
        let cmd = Command::new("sh").arg("-c").arg("echo 'bad thing' >&2; exit 3");
        let e = run(&cmd).unwrap_err().to_string();
        assert_eq!(e, "sh exited with exit status: 3\n    bad thing");
    }
}
