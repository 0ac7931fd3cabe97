//! How q7 puts a file on disk: every output, whether an artefact of `q7 build`
//! or a report of the CLI, lands through [`write_atomic`], so a reader never
//! sees a half-written file, and a failed write leaves the old one in place.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a uniquely named temporary file in the
/// same directory and a rename, creating missing parent directories.
///
/// No `fsync`: the rename already makes the file appear whole or not at all
/// if q7 dies; surviving a power cut is not asked of build outputs (compilers
/// and linkers do not sync either), and a sync costs most of a small command's
/// time. For the same reason an existing file is unlinked just before the
/// rename rather than renamed over: ext4 starts writing out a file renamed
/// over another at once (`auto_da_alloc`, its power-cut guard), which cost
/// 2-3 ms per output here, 30 times the rest of the write. Between the
/// two calls a reader finds no file, never a partial one (GNU ld, by
/// contrast, unlinks and then writes in place).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// [`write_atomic`] of the concatenation of `parts` (a header and a large
/// body kept where they are, not copied into one buffer first).
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".q7-tmp");
    // An ordinary file's mode (0666 less the umask, as `File::create` gives),
    // not the 0600 of a private temporary file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir)?;
    for part in parts {
        tmp.write_all(part)?;
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    // On error the temporary file is removed when `persist` hands it back.
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/dir/out.so");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        write_atomic_parts(&path, &[b"head", b"", b"body"]).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"headbody");
        let names: Vec<_> =
            std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["out.so"]);
    }

    #[cfg(unix)]
    #[test]
    fn gives_the_mode_of_an_ordinary_new_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::File::create(&plain).unwrap();
        let ours = dir.path().join("ours");
        write_atomic(&ours, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&ours), mode(&plain));
    }

    #[test]
    fn a_directory_in_the_way_is_an_error_and_nothing_is_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("taken");
        std::fs::create_dir_all(path.join("inner")).unwrap();
        assert!(write_atomic(&path, b"x").is_err());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["taken"]);
    }
}
