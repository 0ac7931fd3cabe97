//! Schemas from shape sources: `q7 build --shape shape.cpp` compiles the op's
//! shape sources for the host against q7's minimal host torch
//! (`sdk/host/include`) and `torchneuron/register.h` (the one the PyTorch
//! front end compiles against libtorch), links them with
//! `sdk/host/src/shape_main.cpp` into `<build>/q7-shape`, and asks that
//! program for the registrations: each op's namespace, name, compute function
//! and the schema torch would infer from the shape function's signature.
//! `q7 run` later asks the same program for the destination's shape and dtype
//! (q7_sim::op::shape_program). The PyTorch front end links the same objects
//! with `sdk/host/src/shape_abi.cpp` into a shared library instead
//! ([`build_library`]), which it calls through that file's C ABI. Compiles
//! and the links are incremental.

use std::path::{Path, PathBuf};

use crate::command::Command;
use crate::driver::Observer;
use crate::exec::{self, ExecError};
use crate::incremental;
use crate::toolchain::{self, Env};

pub use q7_target::artifacts::SHAPE_PROGRAM as PROGRAM;

/// Files written under `<build>/shape/` before the compile.
const HOST_FILES: &[(&str, &str)] = &[
    ("include/torch/torch.h", include_str!("../../../sdk/host/include/torch/torch.h")),
    ("include/torch/library.h", include_str!("../../../sdk/host/include/torch/library.h")),
    ("include/torchneuron/register.h", include_str!("../../../python/q7/include/torchneuron/register.h")),
    ("shape_main.cpp", include_str!("../../../sdk/host/src/shape_main.cpp")),
    ("shape_abi.cpp", include_str!("../../../sdk/host/src/shape_abi.cpp")),
];

/// Host C++ compilers, in order of preference.
const HOST_COMPILERS: &[&str] = &["clang++-22", "g++", "c++"];

/// One `m.def("op", &shape_fn, "compute_fn")`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Registration {
    pub namespace: String,
    pub op: String,
    pub compute_function: String,
    /// As torch infers it from the shape function, return unnamed:
    /// `relu_forward(Tensor _0) -> Tensor`.
    pub schema: String,
}

/// The built host program and what it registers.
#[derive(Clone, Debug)]
pub struct ShapeProgram {
    pub path: PathBuf,
    pub registrations: Vec<Registration>,
    pub steps_run: usize,
    pub steps_skipped: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    #[error("no host C++ compiler (clang++-22, g++ or c++) to build the shape sources; run scripts/bootstrap.sh")]
    NoCompiler,
    #[error("{0}: no such shape source")]
    Missing(String),
    #[error("{0}: a source whose name starts with `@` is read by clang as a response file of options; rename it")]
    ResponseFileName(String),
    // The tool's output follows the first line (the CLI folds it to one line).
    #[error("{src}: the shape source does not compile for the host\n{output}")]
    Compile { src: String, output: String },
    #[error("{srcs}: the shape sources do not link into a host program\n{output}")]
    Link { srcs: String, output: String },
    #[error("{srcs}: {message}")]
    Registrations { srcs: String, message: String },
    #[error("{srcs}: no NEURON_LIBRARY op has the compute function `{function}` (registered: {registered})")]
    UnknownFunction { srcs: String, function: String, registered: String },
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error(transparent)]
    BuildDir(#[from] crate::builddir::BuildDirError),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ShapeError + '_ {
    move |error| ShapeError::Io { path: path.display().to_string(), error }
}

fn names(sources: &[PathBuf]) -> String {
    sources.iter().map(|s| s.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Writes `text` unless the file already holds it (stable mtimes keep the
/// compiles up to date).
fn write_if_changed(path: &Path, text: &str) -> Result<(), ShapeError> {
    if std::fs::read(path).ok().as_deref() == Some(text.as_bytes()) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    }
    q7_target::fs::write_generated(path, text.as_bytes()).map_err(io_err(path))
}

/// Builds `<build_dir>/q7-shape` from `sources` (with the project's include
/// directories) and reads its registrations.
pub fn build(
    env: &dyn Env,
    build_dir: &Path,
    sources: &[PathBuf],
    includes: &[PathBuf],
    obs: &dyn Observer,
) -> Result<ShapeProgram, ShapeError> {
    let mut job = Job::start(env, build_dir, sources, includes, &[], "shape_main.cpp", obs)?;
    let program = build_dir.join(PROGRAM);
    let link = Command::new(&job.cxx).operands(&job.objs).path_arg("-o", &program);
    job.link(link, &program, obs)?;
    let registrations = list(&program, sources)?;
    Ok(ShapeProgram { path: program, registrations, steps_run: job.run, steps_skipped: job.skipped })
}

/// Builds the shape library `<build_dir>/shape/<file_name>` from `sources`
/// (with the project's include directories and `cflags`: only those that can
/// change what a shape function answers reach the compiler, so `-g` or `-O2`
/// rebuild nothing here) for the C ABI of `sdk/host/src/shape_abi.cpp`.
/// Returns its path; its registrations are read by whoever loads it.
pub fn build_library(
    env: &dyn Env,
    build_dir: &Path,
    file_name: &str,
    sources: &[PathBuf],
    includes: &[PathBuf],
    cflags: &[String],
    obs: &dyn Observer,
) -> Result<PathBuf, ShapeError> {
    let cflags = shape_flags(cflags);
    let mut job = Job::start(env, build_dir, sources, includes, &cflags, "shape_abi.cpp", obs)?;
    let library = build_dir.join("shape").join(file_name);
    // -z defs: a symbol the host torch declares but lacks fails here, where
    // the caller can fall back to libtorch, not in dlopen.
    let link = Command::new(&job.cxx).args(["-shared", "-Wl,-z,defs"]).operands(&job.objs).path_arg("-o", &library);
    job.link(link, &library, obs)?;
    Ok(library)
}

/// The flags of `cflags` that can change a shape function's answer: macro
/// definitions, include directories and the language standard. Debug
/// information, optimisation and warnings cannot.
fn shape_flags(cflags: &[String]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut flags = cflags.iter();
    while let Some(flag) = flags.next() {
        if ["-D", "-U", "-I", "-include"].contains(&flag.as_str()) {
            // The value is the next word.
            kept.push(flag.clone());
            kept.extend(flags.next().cloned());
        } else if ["-D", "-U", "-I", "-std="].iter().any(|p| flag.starts_with(p)) {
            kept.push(flag.clone());
        }
    }
    kept
}

/// A shape build in progress: the compiler, the compiled objects (the
/// sources', then the host main's or ABI's) and the counts of steps.
struct Job {
    cxx: PathBuf,
    objs: Vec<PathBuf>,
    run: usize,
    skipped: usize,
    sources: Vec<PathBuf>,
    _lock: std::fs::File,
}

impl Job {
    /// Checks the sources, writes the host files, takes the shape lock and
    /// compiles `sources` with `host_main` (a file of HOST_FILES).
    fn start(
        env: &dyn Env,
        build_dir: &Path,
        sources: &[PathBuf],
        includes: &[PathBuf],
        cflags: &[String],
        host_main: &str,
        obs: &dyn Observer,
    ) -> Result<Job, ShapeError> {
        if let Some(missing) = sources.iter().find(|s| !s.is_file()) {
            return Err(ShapeError::Missing(missing.display().to_string()));
        }
        if let Some(named) = sources.iter().find(|s| crate::command::read_as_response_file(s)) {
            return Err(ShapeError::ResponseFileName(named.display().to_string()));
        }
        let cxx =
            HOST_COMPILERS.iter().find_map(|c| toolchain::find_program(env, c, &[])).ok_or(ShapeError::NoCompiler)?;
        crate::builddir::ensure_private(build_dir)?;
        let host = build_dir.join("shape");
        // Two builds into one directory take turns here too (the device build
        // has its own lock in the driver).
        std::fs::create_dir_all(&host).map_err(|error| ShapeError::Io { path: host.display().to_string(), error })?;
        let lock_path = host.join(".q7-shape.lock");
        let lock = crate::request::lock_file(&lock_path)
            .map_err(|error| ShapeError::Io { path: lock_path.display().to_string(), error })?;
        for (rel, text) in HOST_FILES {
            write_if_changed(&host.join(rel), text)?;
        }
        let main = host.join(host_main);
        let units: Vec<PathBuf> = sources.iter().cloned().chain([main]).collect();
        obs.phase("shape", units.len() + 1);
        let mut job = Job { cxx, objs: Vec::new(), run: 0, skipped: 0, sources: sources.to_vec(), _lock: lock };
        for (i, src) in units.iter().enumerate() {
            // Numbered, so two sources with one stem never share an object.
            let stem = src.file_stem().unwrap_or_default().to_string_lossy();
            let obj = host.join(format!("{i}-{stem}.o"));
            let dep = obj.with_extension("d");
            // Position-independent: the same objects link into the program
            // and into the shared library.
            let mut cmd =
                Command::new(&job.cxx).args(["-std=c++17", "-O0", "-fPIC", "-c", "-MMD"]).path_arg("-MF", &dep);
            cmd = cmd.args(cflags.iter().map(String::as_str));
            cmd = cmd.arg("-I").arg(host.join("include").as_os_str());
            for dir in includes {
                cmd = cmd.arg("-I").arg(dir.as_os_str());
            }
            cmd = cmd.operand(src).path_arg("-o", &obj);
            let mut inputs = incremental::depfile_inputs(&dep).unwrap_or_else(|| vec![dep.clone()]);
            inputs.push(src.clone());
            let src_name = src.display().to_string();
            let compile_failed = |e: ExecError| ShapeError::Compile { src: src_name, output: e.tool_output() };
            let ran = incremental::make(obs, &cmd, &obj, &inputs, compile_failed, io_err(&obj))?;
            let label = if i == sources.len() { host_main.to_string() } else { src.display().to_string() };
            obs.step(&format!("{label} (host)"), !ran);
            job.count(ran);
            job.objs.push(obj);
        }
        Ok(job)
    }

    fn count(&mut self, ran: bool) {
        if ran {
            self.run += 1
        } else {
            self.skipped += 1
        }
    }

    /// Runs `link` to make `output` from the objects unless it is up to date.
    fn link(&mut self, link: Command, output: &Path, obs: &dyn Observer) -> Result<(), ShapeError> {
        let srcs = names(&self.sources);
        let link_failed = |e: ExecError| ShapeError::Link { srcs, output: e.tool_output() };
        let ran = incremental::make(obs, &link, output, &self.objs, link_failed, io_err(output))?;
        obs.step(&output.file_name().unwrap_or_default().to_string_lossy(), !ran);
        self.count(ran);
        Ok(())
    }
}

/// Runs `program list` and parses its lines.
fn list(program: &Path, sources: &[PathBuf]) -> Result<Vec<Registration>, ShapeError> {
    let failed = |message: String| ShapeError::Registrations { srcs: names(sources), message };
    let out = exec::run(&Command::new(program).arg("list")).map_err(|e| failed(e.tool_output()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut registrations = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [namespace, op, compute_function, schema] = fields[..] else {
            return Err(failed(format!("{PROGRAM} printed an unreadable registration `{line}`")));
        };
        registrations.push(Registration {
            namespace: namespace.into(),
            op: op.into(),
            compute_function: compute_function.into(),
            schema: schema.into(),
        });
    }
    Ok(registrations)
}

impl ShapeProgram {
    /// The functions to build and their schemas: `functions` in the order
    /// given (each the compute function of a registration), or every
    /// registration's compute function when none is given.
    pub fn schemas(&self, functions: &[String], sources: &[PathBuf]) -> Result<Vec<(String, String)>, ShapeError> {
        if functions.is_empty() {
            return Ok(self.registrations.iter().map(|r| (r.compute_function.clone(), r.schema.clone())).collect());
        }
        functions
            .iter()
            .map(|f| {
                let r = self.registrations.iter().find(|r| &r.compute_function == f).ok_or_else(|| {
                    ShapeError::UnknownFunction {
                        srcs: names(sources),
                        function: f.clone(),
                        registered: self
                            .registrations
                            .iter()
                            .map(|r| r.compute_function.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    }
                })?;
                Ok((f.clone(), r.schema.clone()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_flags_that_change_an_answer_reach_the_shape_library() {
        let given: Vec<String> =
            ["-g", "-O2", "-DN=4", "-D", "M", "-UX", "-Wall", "-I", "inc", "-Idir", "-std=c++20", "-include", "h.h"]
                .map(String::from)
                .to_vec();
        let kept = shape_flags(&given);
        assert_eq!(kept, ["-DN=4", "-D", "M", "-UX", "-I", "inc", "-Idir", "-std=c++20", "-include", "h.h"]);
        // -g alone: nothing, so switching it on rebuilds nothing here.
        assert!(shape_flags(&["-g".to_string()]).is_empty());
    }
}
