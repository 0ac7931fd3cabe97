//! The open device SDK, embedded in the binary and built on demand into a
//! cache keyed by its contents and the compile commands, so every build after
//! the first links a ready `libq7sdk.a`. The CLI and the Python package share
//! that cache; one builds while the others wait (a lock per SDK), and
//! `q7 prepare` (crate::prepare) builds it ahead of the first op.

use std::path::{Path, PathBuf};

use crate::command::Command;
use crate::exec::{self, ExecError};
use crate::observer::Observer;
use crate::toolchain::{assembly_for_mc, AsmJob, CompileFlags, Env, Language, OpenSetup};

include!(concat!(env!("OUT_DIR"), "/sdk_files.rs"));

/// A built SDK: its headers and its archive.
#[derive(Clone, Debug)]
pub struct Sdk {
    pub include: PathBuf,
    pub archive: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum SdkError {
    #[error("SDK cache {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("building the SDK: {0}")]
    Tool(#[from] ExecError),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SdkError + '_ {
    move |error| SdkError::Io { path: path.display().to_string(), error }
}

/// FNV-1a: a stable, dependency-free content key (not a security hash).
pub fn fnv64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Where built SDKs are kept: `$Q7_CACHE_DIR`, `$XDG_CACHE_HOME/q7`,
/// `$HOME/.cache/q7`, or `<fallback>/.q7-cache`.
pub fn cache_root(env: &dyn Env, fallback: &Path) -> PathBuf {
    if let Some(d) = env.var("Q7_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = env.var("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("q7");
    }
    if let Some(d) = env.var("HOME") {
        return PathBuf::from(d).join(".cache/q7");
    }
    fallback.join(".q7-cache")
}

/// Clang's own header directory (`<resource dir>/include`), remembered in
/// `cache` per compiler binary (path, size, mtime): asking clang costs a
/// process start on every build, on the serial path before any compile.
pub fn resource_include(cc: &Path, cache: &Path) -> Result<PathBuf, ExecError> {
    let stamp = std::fs::metadata(cc).ok().map(|m| {
        let mtime = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).unwrap_or_default();
        format!("{} {} {}", cc.display(), m.len(), mtime.as_nanos())
    });
    let remembered = stamp.as_ref().map(|s| cache.join(format!("clang-resource-{:016x}", fnv64(&[s.as_bytes()]))));
    if let Some(dir) = remembered.as_ref().and_then(|p| std::fs::read_to_string(p).ok()).map(PathBuf::from) {
        if dir.is_dir() {
            return Ok(dir);
        }
    }
    let out = exec::run(&Command::new(cc).arg("-print-resource-dir"))?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("include");
    if let Some(path) = remembered {
        // Best effort: without the note the next build asks clang again.
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let tmp = path.with_file_name(q7_target::stale::tmp_name(&name));
        let _ = std::fs::create_dir_all(cache);
        if std::fs::write(&tmp, dir.as_os_str().as_encoded_bytes()).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    Ok(dir)
}

/// Writes the embedded headers into `<cache>/sdk-include-<key>` (they are
/// needed before the archive, to compile the op's own sources).
fn materialise(root: &Path, key: u64) -> Result<PathBuf, SdkError> {
    let dir = root.join(format!("sdk-{key:016x}"));
    let fill = |tmp: &Path| {
        for (rel, bytes) in SDK_FILES {
            let path = tmp.join(rel);
            std::fs::create_dir_all(path.parent().unwrap_or(tmp)).map_err(io_err(&path))?;
            std::fs::write(&path, bytes).map_err(io_err(&path))?;
        }
        Ok(())
    };
    q7_target::fs::publish_dir(&dir, "include/.complete", fill, |path, e| io_err(path)(e))?;
    Ok(dir)
}

/// What the first build with `open` would say it builds (a progress note).
pub const BUILDING: &str = "building q7's device SDK (once per q7 version and compiler)";

/// Builds (or finds) the SDK for `open`, running up to `jobs` compiles at
/// once; `obs` hears of the build (a note) and sees each command before it
/// runs (for `-v`). A build of the same SDK in another process is waited for.
pub fn ensure(open: &OpenSetup, cache: &Path, jobs: usize, obs: &dyn Observer) -> Result<Sdk, SdkError> {
    let (sdk, dir) = locate(open, cache)?;
    if sdk.archive.exists() {
        return Ok(sdk);
    }
    let lock_path = dir.join(".q7-sdk.lock");
    let _lock = lock_waiting(&lock_path, obs).map_err(io_err(&lock_path))?;
    if sdk.archive.exists() {
        return Ok(sdk); // built by whoever held the lock
    }
    obs.note(BUILDING);
    let sources: Vec<PathBuf> = SDK_FILES
        .iter()
        .map(|(rel, _)| dir.join(rel))
        .filter(|p| p.starts_with(dir.join("src")) && Language::of(p).is_some())
        .collect();
    q7_target::stale::remove(&dir, q7_target::stale::tmp_pid, q7_target::stale::MIN_AGE);
    let work = dir.join(q7_target::stale::tmp_name("obj"));
    std::fs::create_dir_all(&work).map_err(io_err(&work))?;
    let built = build_archive(open, &sdk, &dir, &sources, &work, jobs, &|c| obs.command(c));
    let _ = std::fs::remove_dir_all(&work);
    built.map(|()| sdk)
}

/// Locks `path` for building the SDK; when another build holds it, says so
/// (a note) and waits.
fn lock_waiting(path: &Path, obs: &dyn Observer) -> std::io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
    match file.try_lock() {
        Ok(()) => return Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => obs.note("waiting for q7's device SDK, which another q7 is building"),
        Err(std::fs::TryLockError::Error(e)) => return Err(e),
    }
    file.lock()?;
    Ok(file)
}

/// The SDK for `open` in `cache` and its directory: the headers in place,
/// the archive there only once built (`Sdk::archive` exists).
pub fn locate(open: &OpenSetup, cache: &Path) -> Result<(Sdk, PathBuf), SdkError> {
    std::fs::create_dir_all(cache).map_err(io_err(cache))?;
    // `.sdk-*.tmp-<pid>` and notes' temporaries a killed build left.
    q7_target::stale::remove(cache, q7_target::stale::tmp_pid, q7_target::stale::MIN_AGE);
    let mut parts: Vec<&[u8]> = Vec::new();
    for (rel, bytes) in SDK_FILES {
        parts.push(rel.as_bytes());
        parts.push(bytes);
    }
    let (i, s, a, d, t) = (Path::new("I"), Path::new("s"), Path::new("a"), Path::new("d"), Path::new("t"));
    let probe_flags = CompileFlags { sdk_include: i, cflags: &[], includes: &[] };
    let probe =
        open.compile_to_asm(&probe_flags, &AsmJob { lang: Language::Cpp, src: s, asm: a, depfile: d, dep_target: t });
    let fingerprint = format!("{}{}", probe.fingerprint(), OpenSetup::mattr());
    parts.push(fingerprint.as_bytes());
    let key = fnv64(&parts);
    let dir = materialise(cache, key)?;
    Ok((Sdk { include: dir.join("include"), archive: dir.join("libq7sdk.a") }, dir))
}

/// Compiles the SDK sources in `work` and renames the archive into place.
fn build_archive(
    open: &OpenSetup,
    sdk: &Sdk,
    dir: &Path,
    sources: &[PathBuf],
    work: &Path,
    jobs: usize,
    on_command: &(dyn Fn(&Command) + Sync),
) -> Result<(), SdkError> {
    let objects = q7_target::par::try_map(sources, jobs, |src| -> Result<PathBuf, SdkError> {
        let rel = src.strip_prefix(dir.join("src")).unwrap_or(src);
        let stem = rel.to_string_lossy().replace(['/', '.'], "_");
        let obj = work.join(format!("{stem}.o"));
        let lang = Language::of(src).unwrap_or(Language::C);
        let asm = work.join(format!("{stem}.s"));
        let c = if lang == Language::Asm {
            open.preprocess_asm(&sdk.include, src, &asm)
        } else {
            let flags = CompileFlags { sdk_include: &sdk.include, cflags: &[], includes: &[] };
            let depfile = work.join(format!("{stem}.d"));
            open.compile_to_asm(&flags, &AsmJob { lang, src, asm: &asm, depfile: &depfile, dep_target: &obj })
        };
        on_command(&c);
        exec::run(&c)?;
        let fixed = assembly_for_mc(lang, &asm, &work.join(format!("{stem}.q7.s")))
            .map_err(|(path, source)| io_err(&path)(source))?;
        let c = open.assemble(&fixed, &obj);
        on_command(&c);
        exec::run(&c)?;
        Ok(obj)
    })?;
    let tmp_archive = work.join("libq7sdk.a");
    let c = open.archive(&objects, &tmp_archive);
    on_command(&c);
    exec::run(&c)?;
    std::fs::rename(&tmp_archive, &sdk.archive).map_err(io_err(&sdk.archive))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_include_is_asked_once_and_rechecked() {
        let cc = Path::new("/usr/bin/clang-22");
        if !cc.exists() {
            eprintln!("clang-22 not installed (scripts/bootstrap.sh): skipped");
            return;
        }
        let cache = tempfile::tempdir().unwrap();
        let asked = exec::run(&Command::new(cc).arg("-print-resource-dir")).unwrap();
        let truth = PathBuf::from(String::from_utf8_lossy(&asked.stdout).trim()).join("include");
        assert_eq!(resource_include(cc, cache.path()).unwrap(), truth);
        let notes: Vec<PathBuf> = std::fs::read_dir(cache.path()).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(notes.len(), 1, "{notes:?}");
        // A note naming a directory that is gone is not believed.
        std::fs::write(&notes[0], "/nonexistent/clang/include").unwrap();
        assert_eq!(resource_include(cc, cache.path()).unwrap(), truth);
        assert_eq!(std::fs::read_to_string(&notes[0]).unwrap(), truth.display().to_string());
    }
}
