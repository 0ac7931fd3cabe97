//! Build directories are private to the user who builds. Every generated
//! file (objects, `.s`, `.ll`, `.d`, the temporaries tools write in place)
//! lands there, so a directory another local user could write to would let
//! them plant a symlink and have the build overwrite any file the builder
//! can write. A fresh directory is created 0700; an existing one must belong
//! to this user and be writable by no one else.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum BuildDirError {
    #[error(
        "{path}: build directory is owned by uid {owner}, not by this user (uid {user}); use a directory of your own"
    )]
    Foreign { path: String, owner: u32, user: u32 },
    #[error("{path}: build directory is a symbolic link owned by uid {owner}, not by this user (uid {user}); use a directory of your own")]
    ForeignLink { path: String, owner: u32, user: u32 },
    #[error(
        "{path}: build directory is writable by {who} (mode {mode:04o}); make it private (chmod go-w) or use another"
    )]
    Shared { path: String, who: &'static str, mode: u32 },
    #[error("{0}: build directory is not a directory")]
    NotADirectory(String),
    #[error("{path}: build directory is a dangling symbolic link (to {target}); make the directory it names, or use another")]
    DanglingLink { path: String, target: String },
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BuildDirError + '_ {
    move |error| BuildDirError::Io { path: path.display().to_string(), error }
}

/// Makes `dir` (0700, its missing parents with the usual mode) unless it
/// exists, then checks that it is private: a directory owned by this user
/// that neither its group nor others may write. A symbolic link is followed
/// only when this user made it (one another user planted is refused).
pub fn ensure_private(dir: &Path) -> Result<(), BuildDirError> {
    match std::fs::symlink_metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                // Named by the build directory asked for (the error may name a link on the way).
                q7_target::fs::create_dir_all(parent).map_err(io_err(dir))?;
            }
            match std::fs::DirBuilder::new().mode(0o700).create(dir) {
                // Another builder made it first: checked like any other.
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(io_err(dir)(e)),
                _ => {}
            }
        }
        Err(e) => return Err(io_err(dir)(e)),
    }
    check_private(dir)
}

/// The checks of [`ensure_private`] on an existing directory.
pub fn check_private(dir: &Path) -> Result<(), BuildDirError> {
    let path = || dir.display().to_string();
    let user = rustix::process::geteuid().as_raw();
    let link = std::fs::symlink_metadata(dir).map_err(io_err(dir))?;
    if link.file_type().is_symlink() && link.uid() != user {
        return Err(BuildDirError::ForeignLink { path: path(), owner: link.uid(), user });
    }
    let meta = std::fs::metadata(dir).map_err(|e| match q7_target::fs::dangling_link(dir) {
        Some((_, target)) if link.file_type().is_symlink() => {
            BuildDirError::DanglingLink { path: path(), target: target.display().to_string() }
        }
        _ => io_err(dir)(e),
    })?;
    if !meta.is_dir() {
        return Err(BuildDirError::NotADirectory(path()));
    }
    if meta.uid() != user {
        return Err(BuildDirError::Foreign { path: path(), owner: meta.uid(), user });
    }
    let mode = meta.permissions().mode() & 0o7777;
    let who = match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (false, false) => return Ok(()),
        (true, false) => "its group",
        (false, true) => "others",
        (true, true) => "its group and others",
    };
    Err(BuildDirError::Shared { path: path(), who, mode })
}

/// Removes whatever is at each of `paths` (a stale output, or a symlink)
/// before a tool writes it, so the tool creates the file anew instead of
/// writing through what was there. Missing files are fine.
pub(crate) fn clear(paths: &[&Path]) -> Result<(), BuildDirError> {
    for path in paths {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io_err(path)(e)),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn a_fresh_directory_is_private_and_its_parents_ordinary() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/build");
        ensure_private(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&tmp.path().join("a")) & 0o700, 0o700);
        ensure_private(&dir).unwrap(); // existing and private: accepted
    }

    #[test]
    fn writable_by_others_is_refused_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        for (bits, who) in [(0o770, "its group"), (0o707, "others"), (0o777, "its group and others")] {
            std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(bits)).unwrap();
            let e = ensure_private(tmp.path()).unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "{}: build directory is writable by {who} (mode {bits:04o}); make it private (chmod go-w) or use another",
                    tmp.path().display()
                )
            );
        }
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        ensure_private(tmp.path()).unwrap();
    }

    #[test]
    fn owned_by_another_user_is_refused() {
        if rustix::process::geteuid().as_raw() != 0 {
            eprintln!("skipped: only root can give a directory to another user");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let theirs = tmp.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let e = ensure_private(&theirs).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}: build directory is owned by uid 65534, not by this user (uid 0)",
                theirs.display()
            )),
            "{e}"
        );
        // A link of one's own to their directory: the directory decides.
        let to_theirs = tmp.path().join("to_theirs");
        std::os::unix::fs::symlink(&theirs, &to_theirs).unwrap();
        assert!(matches!(ensure_private(&to_theirs), Err(BuildDirError::Foreign { owner: 65534, .. })));
        // Their link to one's own directory: refused all the same.
        let mine = tmp.path().join("mine");
        ensure_private(&mine).unwrap();
        let planted = tmp.path().join("planted");
        std::os::unix::fs::symlink(&mine, &planted).unwrap();
        std::os::unix::fs::lchown(&planted, Some(65534), Some(65534)).unwrap();
        let e = ensure_private(&planted).unwrap_err().to_string();
        assert!(e.contains("build directory is a symbolic link owned by uid 65534"), "{e}");
    }

    #[test]
    fn a_file_is_not_a_build_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(ensure_private(&file).unwrap_err().to_string().ends_with("f: build directory is not a directory"));
    }

    #[test]
    fn a_dangling_link_is_named_as_one() {
        // Said "No such file or directory" (and, below it, "File exists").
        let tmp = tempfile::tempdir().unwrap();
        let link = tmp.path().join("out");
        std::os::unix::fs::symlink("made-by-q7", &link).unwrap();
        let e = ensure_private(&link).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{}: build directory is a dangling symbolic link (to made-by-q7); make the directory it names, or use another",
                link.display()
            )
        );
        let e = ensure_private(&link.join("sub")).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("{}/sub: {} is a dangling symbolic link (to made-by-q7)", link.display(), link.display())
        );
        assert!(!tmp.path().join("made-by-q7").exists());
    }

    #[test]
    fn clear_removes_a_symlink_not_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("precious");
        std::fs::write(&target, "keep").unwrap();
        let link = tmp.path().join("x.s");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        clear(&[&link, &tmp.path().join("absent.d")]).unwrap();
        assert!(std::fs::symlink_metadata(&link).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }
}
