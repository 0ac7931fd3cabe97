//! `q7 run --native`: the op built for the host (x86-64) with clang++-22 and
//! sanitizers, run on the same inputs as the simulator.
//!
//! `q7 build` leaves a manifest (`q7-native.json`: sources, include
//! directories, defines, functions and schemas) in the build directory;
//! [`build`] compiles the host SDK once per sanitizer into the cache
//! (`host_sdk`), the op's sources and a generated wrapper (`codegen`)
//! incrementally into `<build>/native-<sanitizer>/`, and links the host
//! driver (`sdk/host/native/driver.cpp`). [`NativeProgram::run`] writes a
//! launch file, runs the program on a leash (`child`: its own process group,
//! no processes of its own, killed with q7) with the sanitizers' reports on,
//! keeps a bounded copy of its output (`capture`), symbolizes the reports'
//! stacks (`symbolize`) and turns them into findings with the op's source
//! line (`report`); `compare` finds where two outputs differ.

mod capture;
mod child;
mod codegen;
pub mod compare;
mod host_sdk;
mod launch;
pub mod report;
mod symbolize;

use std::path::{Path, PathBuf};

pub use child::{signal_name, Interrupts};
pub use launch::{NativeArg, NativeLaunch, NativeReport, NativeTensor};

use crate::command::Command;
use crate::exec::ExecError;
use crate::incremental;
use crate::request::{self, BuildRequest, Observer};
use crate::toolchain::{self, Env};

/// The manifest `q7 build` writes beside the images.
pub const MANIFEST: &str = "q7-native.json";

/// The host compiler (sanitizer runtimes: Debian's libclang-rt-22-dev).
pub const HOST_CXX: &str = "clang++-22";

/// What the host build needs to know of the device build.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    pub name: String,
    pub functions: Vec<String>,
    pub schemas: Vec<String>,
    /// Absolute paths.
    pub sources: Vec<PathBuf>,
    pub includes: Vec<PathBuf>,
    /// The device cflags that mean the same on the host (-D, -U).
    pub defines: Vec<String>,
    pub multicore: bool,
}

/// Which sanitizers a host build carries: AddressSanitizer with
/// UndefinedBehaviorSanitizer, or MemorySanitizer (uninitialised reads; clang
/// cannot combine it with AddressSanitizer, so it is a build of its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sanitizer {
    AddressUndefined,
    Memory,
}

impl Sanitizer {
    pub fn flags(self) -> &'static [&'static str] {
        match self {
            Sanitizer::AddressUndefined => &["-fsanitize=address,undefined", "-fno-sanitize=vptr"],
            Sanitizer::Memory => &["-fsanitize=memory", "-fsanitize-memory-track-origins"],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Sanitizer::AddressUndefined => "asan+ubsan",
            Sanitizer::Memory => "msan",
        }
    }

    fn dir(self) -> &'static str {
        match self {
            Sanitizer::AddressUndefined => "native-asan",
            Sanitizer::Memory => "native-msan",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum NativeError {
    #[error("{0}: no {MANIFEST}; rebuild the op with this q7 (`q7 build`) to run it natively")]
    NoManifest(String),
    #[error("{path}: unreadable manifest: {error}")]
    BadManifest { path: String, error: String },
    #[error("{HOST_CXX} not found: the op's host build compiles with it (run scripts/bootstrap.sh)")]
    NoCompiler,
    #[error("{0}: assembly sources cannot run natively")]
    Assembly(String),
    // The compiler's output follows the first line (the CLI folds it).
    #[error("{src}: does not compile for the host\n{output}")]
    Compile { src: String, output: String },
    #[error("{name}: the host build does not link\n{output}")]
    Link { name: String, output: String },
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{program}: {error}")]
    Run { program: String, error: String },
    // 128 + signal is the exit code a shell would show.
    #[error("interrupted by {}; the host run was stopped", signal_name(*signal))]
    Interrupted { signal: i32 },
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> NativeError + '_ {
    move |error| NativeError::Io { path: path.display().to_string(), error }
}

/// A scratch directory for one run's launch file and tensors in
/// `build_dir`, named with this process's id; those of processes killed
/// before they could remove theirs are removed here.
pub fn run_dir(build_dir: &Path) -> PathBuf {
    q7_target::stale::remove(build_dir, q7_target::stale::pid_after(RUN_DIR_PREFIX), q7_target::stale::MIN_AGE);
    build_dir.join(format!("{RUN_DIR_PREFIX}{}", std::process::id()))
}

const RUN_DIR_PREFIX: &str = "native-run-";

/// Records the manifest of `req` in its build directory (unchanged bytes are
/// not rewritten, so the file's mtime says when the op last changed shape).
pub fn record_manifest(req: &BuildRequest) -> std::io::Result<()> {
    let absolute = |p: &PathBuf| std::path::absolute(p).unwrap_or_else(|_| p.clone());
    let defines = req.cflags.iter().filter(|f| f.starts_with("-D") || f.starts_with("-U")).cloned().collect();
    let manifest = Manifest {
        name: req.name.clone(),
        functions: req.functions.clone(),
        schemas: req.schemas.clone(),
        sources: req.sources.iter().map(absolute).collect(),
        includes: req.includes.iter().map(absolute).collect(),
        defines,
        multicore: req.multicore,
    };
    let path = req.build_dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).map_err(std::io::Error::other)? + "\n";
    if std::fs::read(&path).ok().as_deref() == Some(text.as_bytes()) {
        return Ok(());
    }
    q7_target::fs::write_generated(&path, text.as_bytes())
}

/// Reads the manifest of the build directory `dir` (or of the directory
/// holding the image `dir` names).
pub fn read_manifest(dir: &Path) -> Result<(PathBuf, Manifest), NativeError> {
    let build_dir =
        if dir.is_file() { dir.parent().unwrap_or(Path::new(".")).to_path_buf() } else { dir.to_path_buf() };
    let path = build_dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|_| NativeError::NoManifest(build_dir.display().to_string()))?;
    let manifest = serde_json::from_str(&text)
        .map_err(|e| NativeError::BadManifest { path: path.display().to_string(), error: e.to_string() })?;
    Ok((build_dir, manifest))
}

/// Builds (or finds) the host SDK of every sanitizer in `cache`, as the
/// first `q7 run --native` would (crate::prepare).
pub fn prepare(env: &dyn Env, cache: &Path, obs: &dyn Observer) -> Result<(), NativeError> {
    let cxx = toolchain::find_program(env, HOST_CXX, &[]).ok_or(NativeError::NoCompiler)?;
    for sanitizer in [Sanitizer::AddressUndefined, Sanitizer::Memory] {
        host_sdk::ensure(&cxx, cache, sanitizer, obs)?;
    }
    Ok(())
}

/// A host build of the op.
#[derive(Clone, Debug)]
pub struct NativeProgram {
    pub path: PathBuf,
    pub sanitizer: Sanitizer,
    /// The op's sources: findings point into these.
    pub sources: Vec<PathBuf>,
    pub steps_run: usize,
    pub steps_skipped: usize,
}

/// Builds (incrementally) the op of `manifest` for the host into
/// `<build_dir>/native-<sanitizer>/`.
pub fn build(
    env: &dyn Env,
    build_dir: &Path,
    manifest: &Manifest,
    sanitizer: Sanitizer,
    obs: &dyn Observer,
) -> Result<NativeProgram, NativeError> {
    if let Some(asm) = manifest.sources.iter().find(|s| s.extension().is_some_and(|e| e == "S" || e == "s")) {
        return Err(NativeError::Assembly(asm.display().to_string()));
    }
    let cxx = toolchain::find_program(env, HOST_CXX, &[]).ok_or(NativeError::NoCompiler)?;
    let cache = crate::sdk::cache_root(env, build_dir);
    obs.phase("host sdk", 1);
    let sdk = host_sdk::ensure(&cxx, &cache, sanitizer, obs)?;
    obs.step(&format!("host SDK ({})", sanitizer.name()), false);

    let work = build_dir.join(sanitizer.dir());
    std::fs::create_dir_all(&work).map_err(io_err(&work))?;
    let lock_path = work.join(".q7-native.lock");
    let _lock = request::lock_file(&lock_path).map_err(io_err(&lock_path))?;
    let wrapper = work.join("native_wrapper.cpp");
    let text = codegen::wrapper(manifest)
        .map_err(|e| NativeError::BadManifest { path: build_dir.join(MANIFEST).display().to_string(), error: e })?;
    if std::fs::read(&wrapper).ok().as_deref() != Some(text.as_bytes()) {
        q7_target::fs::write_generated(&wrapper, text.as_bytes()).map_err(io_err(&wrapper))?;
    }
    let units: Vec<PathBuf> = manifest.sources.iter().cloned().chain([wrapper]).collect();
    obs.phase("native", units.len() + 1);
    let (mut run, mut skipped) = (0, 0);
    let mut objs = Vec::new();
    for (i, src) in units.iter().enumerate() {
        let stem = src.file_stem().unwrap_or_default().to_string_lossy();
        let obj = work.join(format!("{i}-{stem}.o"));
        let dep = obj.with_extension("d");
        let cmd = sdk
            .compile(&cxx, sanitizer, src, &manifest.includes, &manifest.defines)
            .arg("-MMD")
            .path_arg("-MF", &dep)
            .path_arg("-o", &obj);
        let mut inputs = incremental::depfile_inputs(&dep).unwrap_or_else(|| vec![dep.clone()]);
        inputs.push(src.clone());
        let src_name = src.display().to_string();
        let compile_failed = |e: ExecError| NativeError::Compile { src: src_name, output: e.tool_output() };
        let ran = incremental::make(obs, &cmd, &obj, &inputs, compile_failed, io_err(&obj))?;
        obs.step(&format!("{} (host)", src.display()), !ran);
        if ran {
            run += 1
        } else {
            skipped += 1
        }
        objs.push(obj);
    }
    let program = work.join("q7-native");
    let mut link = Command::new(&cxx).args(sanitizer.flags()).args(objs.iter().map(|o| o.as_os_str()));
    link = link.args(sdk.objects.iter().map(|o| o.as_os_str())).path_arg("-o", &program);
    let inputs: Vec<PathBuf> = objs.iter().chain(&sdk.objects).cloned().collect();
    let link_failed = |e: ExecError| NativeError::Link { name: manifest.name.clone(), output: e.tool_output() };
    let ran = incremental::make(obs, &link, &program, &inputs, link_failed, io_err(&program))?;
    obs.step("q7-native", !ran);
    if ran {
        run += 1
    } else {
        skipped += 1
    }
    Ok(NativeProgram {
        path: program,
        sanitizer,
        sources: manifest.sources.clone(),
        steps_run: run,
        steps_skipped: skipped,
    })
}
