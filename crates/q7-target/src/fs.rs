//! How q7 puts a file on disk: every output, whether an artefact of `q7 build`
//! or a report of the CLI, lands through [`write_atomic`], so a reader never
//! sees a half-written file, a failed write leaves the old one in place, and
//! nothing but the named output is ever replaced or removed.
//!
//! What an output path may name, and what happens to it:
//!
//! | at the path            | what q7 does                                           |
//! |------------------------|--------------------------------------------------------|
//! | nothing                | a new file (0666 less the umask), by temp file + rename |
//! | a regular file         | replaced by temp file + rename, keeping its mode (and, where allowed, owner) |
//! | a symbolic link        | followed: its final target is written as above          |
//! | a character device or FIFO | written through (`/dev/null`, a pipe to a reader)   |
//! | a directory, block device or socket | refused                                    |
//!
//! Missing parent directories are made; a dangling symbolic link where one
//! belongs is refused, named as one ([`create_dir_all`]).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Temporary files are named `.q7-<pid>-<random>.tmp`: short (an output name
/// of any length still leaves room), and owned by a process whose death
/// makes them safe to remove.
const TEMP_PREFIX: &str = ".q7-";
const TEMP_SUFFIX: &str = ".tmp";
/// How old a dead process's temporary must be before it is removed.
const STALE_AFTER: Duration = crate::stale::MIN_AGE;
/// Symbolic links followed before giving up (as the kernel's ELOOP).
const MAX_LINKS: usize = 40;

/// Writes `bytes` to `path` as the table in the module documentation says,
/// creating missing parent directories.
///
/// No `fsync`: the rename already makes the file appear whole or not at all
/// if q7 dies; surviving a power cut is not asked of build outputs (compilers
/// and linkers do not sync either), and a sync costs most of a small command's
/// time. The new file is renamed over the old one, so a reader (or a q7
/// killed at any point) always finds one of the two, whole. (Unlinking first
/// saved the 2-3 ms ext4's `auto_da_alloc` spends on a file renamed over
/// another, but a kill between the two calls lost the output.)
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// Writes a file a build generates inside its own directory: as
/// [`write_atomic`], except that a symbolic link at `path` is replaced, not
/// followed (a link planted in a build directory must not redirect q7's
/// writes elsewhere). User-named outputs (`--out`) follow links instead.
pub fn write_generated(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => replace(path, &[bytes], None),
        _ => write_atomic(path, bytes),
    }
}

/// [`write_atomic`] of the concatenation of `parts` (a header and a large
/// body kept where they are, not copied into one buffer first).
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let path = follow_links(path)?;
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() => replace(&path, parts, Some(&meta)),
        Ok(meta) if writes_through(&meta.file_type()) => {
            let mut file = std::fs::OpenOptions::new().write(true).open(&path)?;
            parts.iter().try_for_each(|part| file.write_all(part))
        }
        Ok(meta) => Err(refusal(&meta.file_type())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => replace(&path, parts, None),
        Err(e) => Err(e),
    }
}

/// `path` with every symbolic link at its end followed (a dangling link
/// gives the path it points to, which is then created).
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other(format!("more than {MAX_LINKS} symbolic links")))
}

/// `std::fs::create_dir_all`, whose error names a dangling symbolic link
/// on the way (it would say only "File exists"): q7 makes no directory at a
/// link's missing target, as `mkdir -p` makes none.
pub fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| match dangling_link(dir) {
        Some((link, target)) => std::io::Error::new(
            e.kind(),
            format!("{} is a dangling symbolic link (to {})", link.display(), target.display()),
        ),
        None => e,
    })
}

/// The first of `path` and its ancestors (deepest first) that is a symbolic
/// link to nothing, and what it points to.
pub fn dangling_link(path: &Path) -> Option<(PathBuf, PathBuf)> {
    path.ancestors().filter(|p| !p.as_os_str().is_empty()).find_map(|p| {
        if !std::fs::symlink_metadata(p).ok()?.file_type().is_symlink() {
            return None;
        }
        match std::fs::metadata(p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some((p.to_path_buf(), std::fs::read_link(p).ok()?)),
            _ => None,
        }
    })
}

#[cfg(unix)]
fn writes_through(kind: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_char_device() || kind.is_fifo()
}

#[cfg(not(unix))]
fn writes_through(_: &std::fs::FileType) -> bool {
    false
}

fn refusal(kind: &std::fs::FileType) -> std::io::Error {
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;
    let what = match () {
        _ if kind.is_dir() => "a directory",
        #[cfg(unix)]
        _ if kind.is_block_device() => "a block device",
        #[cfg(unix)]
        _ if kind.is_socket() => "a socket",
        _ => "not a regular file",
    };
    std::io::Error::other(format!("{what}: q7 writes only regular files, character devices and FIFOs"))
}

/// Temp file + rename; `old` is the regular file being replaced.
fn replace(path: &Path, parts: &[&[u8]], old: Option<&std::fs::Metadata>) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    create_dir_all(dir)?;
    remove_stale_temporaries(dir);
    let mut builder = tempfile::Builder::new();
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    builder.prefix(&prefix).suffix(TEMP_SUFFIX);
    // The replaced file's mode, else an ordinary file's (0666 less the
    // umask, as `File::create` gives), not the 0600 of a private temporary.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = old.map_or(0o666, |m| m.permissions().mode() & 0o777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    #[cfg(unix)]
    if let Some(old) = old {
        keep_owner(tmp.as_file(), old);
    }
    for part in parts {
        tmp.write_all(part)?;
    }
    // Renamed over the old file, never after removing it: a process killed
    // in between would leave nothing at the path. On error the temporary
    // file is removed when `persist` hands it back.
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Gives the new file the replaced one's owner where the process may (as
/// root, a file of another user stays that user's).
#[cfg(unix)]
fn keep_owner(new: &std::fs::File, old: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let Ok(now) = new.metadata() else { return };
    if (now.uid(), now.gid()) != (old.uid(), old.gid()) {
        // Not allowed (not root): the file is the writer's, as any new file.
        let _ = std::os::unix::fs::fchown(new, Some(old.uid()), Some(old.gid()));
    }
}

/// Removes, once per directory and process, the temporaries of q7
/// processes that died before their rename (a SIGKILL, a power cut).
fn remove_stale_temporaries(dir: &Path) {
    static CLEANED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    {
        let mut cleaned = CLEANED.lock().unwrap_or_else(|e| e.into_inner());
        if !cleaned.get_or_insert_with(HashSet::new).insert(dir.to_path_buf()) {
            return;
        }
    }
    crate::stale::remove(dir, temporary_owner, STALE_AFTER);
}

/// The pid in a temporary's name `.q7-<pid>-<random>.tmp`.
fn temporary_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?.strip_suffix(TEMP_SUFFIX)?;
    let (pid, random) = rest.split_once('-')?;
    (!random.is_empty() && random.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(())?;
    pid.parse().ok()
}

/// Publishes the directory `dir` whole (a cache entry): unless `dir/marker`
/// exists, `fill` writes the contents into a temporary sibling, `marker` is
/// written last and the sibling is renamed to `dir`. Two processes at it at
/// once both build; one rename wins and both use the winner's identical
/// copy. A killed process leaves only its temporary, `*.tmp-<pid>`, which
/// [`crate::stale::remove`] clears. `io_err` makes the caller's error of a
/// failed write, or of a rename lost to a copy without its marker.
pub fn publish_dir<E>(
    dir: &Path,
    marker: &str,
    fill: impl FnOnce(&Path) -> Result<(), E>,
    io_err: impl Fn(&Path, std::io::Error) -> E,
) -> Result<(), E> {
    if dir.join(marker).exists() {
        return Ok(());
    }
    let name = dir.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let tmp = dir.with_file_name(crate::stale::tmp_name(&format!(".{name}")));
    let _ = std::fs::remove_dir_all(&tmp);
    let filled = fill(&tmp).and_then(|()| {
        let path = tmp.join(marker);
        std::fs::write(&path, b"").map_err(|e| io_err(&path, e))
    });
    if let Err(e) = filled {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    if std::fs::rename(&tmp, dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.join(marker).exists() {
            return Err(io_err(
                dir,
                std::io::Error::other("could not place the directory (another copy is incomplete)"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
