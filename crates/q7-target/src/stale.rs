//! Temporaries named with the pid of the process that made them
//! (`.host-sdk.tmp-<pid>`, `native-run-<pid>`, ...) are removed by that
//! process; one killed with SIGKILL leaves them behind, so the next process
//! to use the directory removes those whose pid is gone.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// How old a dead process's temporary must be before it is removed: a pid
/// alive in another pid namespace sharing the directory looks dead here,
/// and its work in progress is younger than this.
pub const MIN_AGE: Duration = Duration::from_secs(60);

/// Whether a process with this pid exists (Linux /proc).
pub fn alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes the entries of `dir` that `pid_of` names as some process's
/// temporary when that process is no longer alive and the entry was last
/// changed at least `min_age` ago. Best effort: what cannot be removed stays.
pub fn remove(dir: &Path, pid_of: impl Fn(&str) -> Option<u32>, min_age: Duration) {
    // Without /proc every pid would look dead.
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(&pid_of) else { continue };
        if pid == std::process::id() || alive(pid) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else { continue };
        let old = meta.modified().ok().and_then(|m| now.duration_since(m).ok()).is_some_and(|age| age >= min_age);
        if !old {
            continue;
        }
        let _ = if meta.is_dir() { std::fs::remove_dir_all(entry.path()) } else { std::fs::remove_file(entry.path()) };
    }
}

/// A temporary's name, `<stem>-<n>.tmp-<pid>`: unique among this process's
/// threads (two building the same thing at once must not share one) and
/// carrying the pid [`remove`] reads.
pub fn tmp_name(stem: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{stem}-{}.tmp-{}", NEXT.fetch_add(1, Ordering::Relaxed), std::process::id())
}

/// The pid of a name `<prefix><pid>`.
pub fn pid_after<'a>(prefix: &'a str) -> impl Fn(&str) -> Option<u32> + 'a {
    move |name| name.strip_prefix(prefix)?.parse().ok()
}

/// The pid of a name `<anything>.tmp-<pid>`.
pub fn tmp_pid(name: &str) -> Option<u32> {
    name.rsplit_once(".tmp-")?.1.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pid no process has (a child that has been waited for).
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn only_old_temporaries_of_dead_processes_go() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dead_pid();
        let mine = std::process::id();
        for name in [format!(".host-sdk.tmp-{dead}"), format!(".host-sdk.tmp-{mine}"), format!("keep-{dead}")] {
            std::fs::create_dir_all(dir.path().join(&name).join("obj")).unwrap();
        }
        std::fs::write(dir.path().join(format!("x.tmp-{dead}")), b"").unwrap();
        // Young: kept even though its process is gone.
        remove(dir.path(), tmp_pid, MIN_AGE);
        assert!(dir.path().join(format!(".host-sdk.tmp-{dead}")).exists());
        remove(dir.path(), tmp_pid, Duration::ZERO);
        assert!(!dir.path().join(format!(".host-sdk.tmp-{dead}")).exists());
        assert!(!dir.path().join(format!("x.tmp-{dead}")).exists());
        assert!(dir.path().join(format!(".host-sdk.tmp-{mine}")).exists(), "this process's own");
        assert!(dir.path().join(format!("keep-{dead}")).exists(), "not a temporary's name");
        remove(dir.path(), pid_after("keep-"), Duration::ZERO);
        assert!(!dir.path().join(format!("keep-{dead}")).exists());
    }

    #[test]
    fn temporaries_are_unique_and_name_their_process() {
        let (a, b) = (tmp_name(".host-sdk"), tmp_name(".host-sdk"));
        assert_ne!(a, b);
        assert!(a.starts_with(".host-sdk-"));
        assert_eq!(tmp_pid(&a), Some(std::process::id()));
    }
}
