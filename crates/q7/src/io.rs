//! File input and output shared by the subcommands: reads that name the file
//! in their errors, and atomic writes.

use std::path::Path;

use anyhow::{Context, Result};

/// Reads a whole input file; the error names the path.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}

/// Writes a file atomically (temp file + rename in the same directory),
/// creating parent directories as needed.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create directory", dir.display()))?;
    }
    q7_elf::write::write_file_atomic(path, bytes).with_context(|| format!("{}: cannot write", path.display()))
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
