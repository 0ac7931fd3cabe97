//! File input and output shared by the subcommands: reads that name the file
//! in their errors, and atomic writes.

use std::path::Path;

use anyhow::{Context, Result};

/// Reads a whole input file; the error names the path. Devices, pipes and
/// directories are refused rather than read without end.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    // Inputs are images and host libraries: a few GiB at the very most.
    const MAX_INPUT: u64 = 4 << 30;
    Ok(q7_sim::op::read_regular_file(path, MAX_INPUT, "an input file")?)
}

/// Writes a file atomically ([`q7_target::fs::write_atomic`]: temp file +
/// rename in the same directory), creating parent directories as needed.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    write_output_parts(path, &[bytes])
}

/// [`write_output`] of the concatenation of `parts`, without joining them.
pub fn write_output_parts(path: &Path, parts: &[&[u8]]) -> Result<()> {
    q7_target::fs::write_atomic_parts(path, parts).with_context(|| format!("{}: cannot write", path.display()))
}

/// Prints a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    use std::io::Write;
    let text = serde_json::to_string_pretty(value)?;
    writeln!(std::io::stdout().lock(), "{text}")?;
    Ok(())
}

/// The images named by one input path: the file itself, or each ELF member
/// of an `ar` archive (named `lib.a(member.o)`, as objdump names them).
pub struct Images {
    data: Vec<u8>,
    /// Each image's name and byte range in `data`.
    pub parts: Vec<(String, std::ops::Range<usize>)>,
    /// Archive members that are not ELF files (listed by name, not read).
    pub skipped: Vec<String>,
    pub archive: bool,
}

impl Images {
    pub fn bytes(&self, range: &std::ops::Range<usize>) -> &[u8] {
        &self.data[range.clone()]
    }
}

/// Prints one report per image of `images`: as JSON, the report itself for a
/// plain image and the list of member reports for an archive; as text, each
/// report through `write`, separated by blank lines. `json` wraps a report
/// with its image's name.
pub fn print_per_image<'r, R, J: serde::Serialize>(
    images: &Images,
    reports: &'r [(String, R)],
    as_json: bool,
    json: impl Fn(&str, &'r R) -> J,
    write: impl Fn(&mut dyn std::io::Write, &str, &R) -> std::io::Result<()>,
) -> Result<()> {
    if as_json {
        let values: Vec<J> = reports.iter().map(|(name, r)| json(name, r)).collect();
        return match (images.archive, values.as_slice()) {
            (false, [one]) => print_json(one),
            _ => print_json(&values),
        };
    }
    let mut out = text_stdout();
    for (i, (name, report)) in reports.iter().enumerate() {
        if i > 0 {
            std::io::Write::write_all(&mut out, b"\n")?;
        }
        write(&mut out, name, report)?;
    }
    Ok(())
}

/// Reads every path as [`read_images`] does, noting skipped members on
/// stderr under `command`'s name.
pub fn read_image_lists(command: &str, paths: &[std::path::PathBuf]) -> Result<Vec<Images>> {
    let lists = paths.iter().map(|p| read_images(p)).collect::<Result<Vec<_>>>()?;
    for name in lists.iter().flat_map(|l| &l.skipped) {
        eprintln!("{command}: {name}: not an ELF file, skipped");
    }
    Ok(lists)
}

/// Reads `path` as one image, or as the ELF members of an `ar` archive.
pub fn read_images(path: &Path) -> Result<Images> {
    let data = read_input(path)?;
    let title = path.display().to_string();
    if !q7_elf::ar::is_archive(&data) {
        let parts = vec![(title, 0..data.len())];
        return Ok(Images { data, parts, skipped: Vec::new(), archive: false });
    }
    let members = q7_elf::ar::members(&data).with_context(|| title.clone())?;
    let (mut parts, mut skipped) = (Vec::new(), Vec::new());
    for member in members {
        let name = format!("{title}({})", member.name);
        if member.data.starts_with(b"\x7fELF") {
            parts.push((name, member.data_offset..member.data_offset + member.data.len()));
        } else {
            skipped.push(name);
        }
    }
    Ok(Images { data, parts, skipped, archive: true })
}

/// Standard output for text reports: bytes from the files being reported on
/// (section names, strings) cannot reach the terminal as control sequences.
pub fn text_stdout() -> Escaping<std::io::StdoutLock<'static>> {
    Escaping(std::io::stdout().lock())
}

/// A writer that shows C0 control bytes other than newline and tab, and DEL,
/// as `\xNN`. (ASCII bytes never occur inside a UTF-8 multi-byte sequence,
/// so escaping byte by byte keeps UTF-8 text intact.)
pub struct Escaping<W>(pub W);

fn needs_escape(b: u8) -> bool {
    (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f
}

impl<W: std::io::Write> std::io::Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Almost all text has no control bytes: one branch-free pass (which
        // the compiler vectorises) decides, and the bytes go out whole.
        if !buf.iter().fold(false, |seen, &b| seen | needs_escape(b)) {
            self.0.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut start = 0;
        for (i, &b) in buf.iter().enumerate() {
            if needs_escape(b) {
                self.0.write_all(&buf[start..i])?;
                write!(self.0, "\\x{b:02x}")?;
                start = i + 1;
            }
        }
        self.0.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// `text` with control characters escaped as [`Escaping`] does.
pub fn escape_text(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.bytes().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = Vec::new();
    let _ = std::io::Write::write_all(&mut Escaping(&mut out), text.as_bytes());
    std::borrow::Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bytes_are_shown_not_sent() {
        assert_eq!(escape_text(".te\x1b[2Jxt\tok\n"), ".te\\x1b[2Jxt\tok\n");
        assert_eq!(escape_text("plain ünïcode"), "plain ünïcode");
        assert_eq!(escape_text("del\x7f"), "del\\x7f");
    }
}
