//! File input and output shared by the subcommands: reads that name the file
//! in their errors, and atomic writes.

use std::path::Path;

use anyhow::{Context, Result};

/// Reads a whole input file; the error names the path.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}

/// Writes a file atomically ([`q7_target::fs::write_atomic`]: temp file +
/// rename in the same directory), creating parent directories as needed.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    q7_target::fs::write_atomic(path, bytes).with_context(|| format!("{}: cannot write", path.display()))
}

/// Prints a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    use std::io::Write;
    let text = serde_json::to_string_pretty(value)?;
    writeln!(std::io::stdout().lock(), "{text}")?;
    Ok(())
}
