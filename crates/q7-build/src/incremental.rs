//! Incremental builds: an output is up to date when it exists, was made by
//! the same command (a `.q7cmd` stamp beside it), is still the file that
//! command made (its size and mtime, recorded in the stamp: a truncated or
//! edited `.o` is rebuilt), and is newer than every input, including the
//! headers a compiler's depfile (`-MMD`) lists.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::command::Command;
use crate::exec::{self, ExecError};
use crate::request::Observer;

fn stamp_path(output: &Path) -> PathBuf {
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(".q7cmd");
    output.with_file_name(name)
}

fn mtime(p: &Path) -> Option<SystemTime> {
    p.metadata().and_then(|m| m.modified()).ok()
}

/// The size and modification time of `output`, as the stamp records them.
fn identity(output: &Path) -> Option<String> {
    let meta = output.metadata().ok()?;
    let since = meta.modified().ok()?.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    Some(format!("{} bytes, modified {}.{:09}", meta.len(), since.as_secs(), since.subsec_nanos()))
}

/// Whether `output` is newer than all `inputs`, was made by `fingerprint`
/// and has not changed since.
pub fn up_to_date(output: &Path, fingerprint: &str, inputs: &[PathBuf]) -> bool {
    let (Some(made), Some(now)) = (mtime(output), identity(output)) else { return false };
    let stamp = std::fs::read_to_string(stamp_path(output)).unwrap_or_default();
    if stamp.split_once('\n') != Some((now.as_str(), fingerprint)) {
        return false;
    }
    inputs.iter().all(|i| mtime(i).is_some_and(|t| t <= made))
}

/// Whether `output` is still the file its stamp records (whatever command
/// made it): nothing truncated or rewrote it since.
pub fn intact(output: &Path) -> bool {
    let Some(now) = identity(output) else { return false };
    let stamp = std::fs::read_to_string(stamp_path(output)).unwrap_or_default();
    stamp.split_once('\n').is_some_and(|(recorded, _)| recorded == now)
}

/// Records that `output`, as it is now, was made by `fingerprint`.
pub fn record(output: &Path, fingerprint: &str) -> std::io::Result<()> {
    let now = identity(output).ok_or_else(|| std::io::Error::other("the output vanished before its stamp"))?;
    q7_target::fs::write_generated(&stamp_path(output), format!("{now}\n{fingerprint}").as_bytes())
}

/// The prerequisites listed in a make-style depfile (`target: a b \` …),
/// with `\ ` unescaped to a space. A missing or unreadable file yields
/// `None`, which makes the output out of date.
pub fn depfile_inputs(depfile: &Path) -> Option<Vec<PathBuf>> {
    let text = std::fs::read_to_string(depfile).ok()?;
    let joined = text.replace("\\\n", " ");
    let mut inputs = Vec::new();
    for rule in joined.lines() {
        // The target ends at the first colon followed by whitespace.
        let body = match rule.find(": ") {
            Some(i) => &rule[i + 2..],
            None => match rule.strip_suffix(':') {
                Some(_) => "",
                None => continue,
            },
        };
        let mut current = String::new();
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => {
                    current.push(' ');
                    chars.next();
                }
                c if c.is_whitespace() => {
                    if !current.is_empty() {
                        inputs.push(PathBuf::from(std::mem::take(&mut current)));
                    }
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            inputs.push(PathBuf::from(current));
        }
    }
    Some(inputs)
}

/// Runs `cmd` unless `output` is up to date with `inputs`, then stamps it;
/// returns whether it ran. A failed command leaves no output behind, so the
/// next build runs it again. `fail` and `stamp` turn the two failures into
/// the caller's error.
pub fn make<E>(
    obs: &dyn Observer,
    cmd: &Command,
    output: &Path,
    inputs: &[PathBuf],
    fail: impl FnOnce(ExecError) -> E,
    stamp: impl FnOnce(std::io::Error) -> E,
) -> Result<bool, E> {
    let fingerprint = cmd.fingerprint();
    if up_to_date(output, &fingerprint, inputs) {
        return Ok(false);
    }
    obs.command(cmd);
    if let Err(e) = exec::run(cmd) {
        let _ = std::fs::remove_file(output);
        return Err(fail(e));
    }
    record(output, &fingerprint).map_err(stamp)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depfile_with_continuations_and_escaped_spaces() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("x.d");
        std::fs::write(&d, "build/x.o: src/my\\ op.cpp \\\n  /sdk/include/torch/torch.h \\\n  a.h\nb.h:\n").unwrap();
        let got = depfile_inputs(&d).unwrap();
        let want: Vec<PathBuf> =
            ["src/my op.cpp", "/sdk/include/torch/torch.h", "a.h"].iter().map(PathBuf::from).collect();
        assert_eq!(got, want);
        assert_eq!(depfile_inputs(&dir.path().join("missing.d")), None);
    }

    #[test]
    fn stamp_and_times_decide() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.c");
        let output = dir.path().join("out.o");
        std::fs::write(&input, "x").unwrap();
        assert!(!up_to_date(&output, "cmd", std::slice::from_ref(&input)));
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&output, "o").unwrap();
        record(&output, "cmd").unwrap();
        assert!(up_to_date(&output, "cmd", std::slice::from_ref(&input)));
        assert!(!up_to_date(&output, "other cmd", std::slice::from_ref(&input)));
        // An output cut short (or edited) later, newer than its inputs, is
        // not what the command made.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&output, "").unwrap();
        assert!(!up_to_date(&output, "cmd", std::slice::from_ref(&input)));
        record(&output, "cmd").unwrap();
        assert!(up_to_date(&output, "cmd", std::slice::from_ref(&input)));
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&input, "y").unwrap();
        assert!(!up_to_date(&output, "cmd", &[input]));
    }
}
