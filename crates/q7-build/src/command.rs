//! External commands as argv lists (never a shell string), with the
//! environment they need and a copy-pasteable rendering for `-v`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `path` as [`Command::operand`] passes it.
pub fn operand(path: &Path) -> OsString {
    let bytes = path.as_os_str().as_encoded_bytes();
    if matches!(bytes.first(), Some(b'-' | b'@')) {
        Path::new(".").join(path).into_os_string()
    } else {
        path.as_os_str().to_owned()
    }
}

/// Whether clang would read a source at `path` as a response file whatever
/// its directory: the driver hands cc1 the bare file name (`-main-file-name
/// @x.cpp`), and cc1 expands that against its working directory (measured
/// with clang-22: `./@b.cpp` applied the options in `b.cpp`). Such sources
/// are refused rather than compiled.
pub fn read_as_response_file(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name.as_encoded_bytes().starts_with(b"@"))
}

/// One program invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Variables set (or overridden) in the child's environment.
    pub env: Vec<(String, OsString)>,
}

impl Command {
    pub fn new(program: impl Into<PathBuf>) -> Command {
        Command { program: program.into(), args: Vec::new(), env: Vec::new() }
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Command {
        self.args.push(a.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, items: I) -> Command {
        self.args.extend(items.into_iter().map(Into::into));
        self
    }

    /// A path as a positional operand (a source, an object). A relative
    /// path that starts with `-` or `@` would be taken for an option or a
    /// response file (`@rsp.cpp` applies the options inside it), so it is
    /// passed as `./-x.cpp`: file names never become options.
    pub fn operand(self, path: &Path) -> Command {
        self.arg(operand(path))
    }

    /// [`Command::operand`] for each of `paths`.
    pub fn operands<'p>(mut self, paths: impl IntoIterator<Item = &'p PathBuf>) -> Command {
        self.args.extend(paths.into_iter().map(|p| operand(p)));
        self
    }

    /// `-o`-style pair helper: `flag` then a path.
    pub fn path_arg(self, flag: &str, path: &Path) -> Command {
        self.arg(flag).arg(path.as_os_str())
    }

    /// The command as a POSIX shell line that reproduces it exactly.
    pub fn display(&self) -> String {
        let mut parts: Vec<String> =
            self.env.iter().map(|(k, v)| format!("{k}={}", shell_quote(&v.to_string_lossy()))).collect();
        parts.push(shell_quote(&self.program.to_string_lossy()));
        parts.extend(self.args.iter().map(|a| shell_quote(&a.to_string_lossy())));
        parts.join(" ")
    }

    /// A stable fingerprint of what the command does (for incremental builds).
    pub fn fingerprint(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in &self.args {
            s.push('\0');
            s.push_str(&a.to_string_lossy());
        }
        for (k, v) in &self.env {
            s.push('\0');
            s.push_str(k);
            s.push('=');
            s.push_str(&v.to_string_lossy());
        }
        s
    }

    pub fn to_std(&self) -> std::process::Command {
        let mut c = std::process::Command::new(&self.program);
        c.args(&self.args);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }
}

/// Quotes `s` for a POSIX shell when it holds anything but safe characters.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_quotes_what_a_shell_would_split() {
        let c = Command::new("clang-22").arg("-c").arg("my op $(x);.cpp").arg("it's");
        assert_eq!(c.display(), r"clang-22 -c 'my op $(x);.cpp' 'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
