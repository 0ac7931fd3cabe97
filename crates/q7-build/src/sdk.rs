//! The open device SDK, embedded in the binary and built on demand into a
//! cache keyed by its contents and the compile commands, so every build after
//! the first links a ready `libq7sdk.a`.

use std::path::{Path, PathBuf};

use crate::command::Command;
use crate::exec::{self, ExecError};
use crate::profile::{assembly_for_mc, AsmJob, CompileFlags, Env, Language, OpenSetup};

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

/// Writes the embedded headers into `<cache>/sdk-include-<key>` (they are
/// needed before the archive, to compile the op's own sources).
fn materialise(root: &Path, key: u64) -> Result<PathBuf, SdkError> {
    let dir = root.join(format!("sdk-{key:016x}"));
    let include = dir.join("include");
    if include.join(".complete").exists() {
        return Ok(dir);
    }
    let tmp = root.join(format!(".sdk-{key:016x}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    for (rel, bytes) in SDK_FILES {
        let path = tmp.join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(&tmp)).map_err(io_err(&path))?;
        std::fs::write(&path, bytes).map_err(io_err(&path))?;
    }
    std::fs::write(tmp.join("include/.complete"), b"").map_err(io_err(&tmp))?;
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another build got there first; its copy is identical.
        let _ = std::fs::remove_dir_all(&tmp);
        if !include.join(".complete").exists() {
            return Err(SdkError::Io {
                path: dir.display().to_string(),
                error: std::io::Error::other("could not place the SDK sources"),
            });
        }
    }
    Ok(dir)
}

/// Builds (or finds) the SDK for `open`, running up to `jobs` compiles at once.
/// `on_command` sees each command before it runs (for `-v`).
pub fn ensure(
    open: &OpenSetup,
    cache: &Path,
    jobs: usize,
    on_command: &(dyn Fn(&Command) + Sync),
) -> Result<Sdk, SdkError> {
    std::fs::create_dir_all(cache).map_err(io_err(cache))?;
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
    let sdk = Sdk { include: dir.join("include"), archive: dir.join("libq7sdk.a") };
    if sdk.archive.exists() {
        return Ok(sdk);
    }
    let sources: Vec<PathBuf> = SDK_FILES
        .iter()
        .map(|(rel, _)| dir.join(rel))
        .filter(|p| p.starts_with(dir.join("src")) && Language::of(p).is_some())
        .collect();
    let work = dir.join(format!("obj.tmp-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(io_err(&work))?;
    let built = build_archive(open, &sdk, &dir, &sources, &work, jobs, on_command);
    let _ = std::fs::remove_dir_all(&work);
    built.map(|()| sdk)
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
    let objects = exec::parallel(sources, jobs, |src| -> Result<PathBuf, SdkError> {
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
