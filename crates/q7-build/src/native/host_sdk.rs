//! The device SDK built for the host, once per sanitizer, into the cache:
//! the tensor library from the device sources (`sdk/src/torch`, portable
//! once `Q7_NATIVE` widens the descriptor's address) and host implementations
//! of the runtime and the driver (`sdk/host/native`). Keyed, like the device
//! SDK, by the sources' contents and the compile command.

use std::path::{Path, PathBuf};

use super::{io_err, NativeError, Sanitizer};
use crate::command::Command;
use crate::driver::Observer;
use crate::exec;
use crate::sdk::{fnv64, SDK_FILES};

/// Host sources that replace the device runtime (sdk/host/native).
const NATIVE_FILES: &[(&str, &str)] = &[
    ("native/q7_native.h", include_str!("../../../../sdk/host/native/q7_native.h")),
    ("native/runtime.cpp", include_str!("../../../../sdk/host/native/runtime.cpp")),
    ("native/driver.cpp", include_str!("../../../../sdk/host/native/driver.cpp")),
];

/// The device headers the host build uses: the torch and neuron API and the
/// ABI types. The freestanding libc/C++ headers beside them are the device's
/// own; on the host the system's serve.
const HEADER_DIRS: &[&str] = &["include/ATen/", "include/c10/", "include/neuron/", "include/q7/", "include/torch/"];

pub(crate) struct HostSdk {
    include: PathBuf,
    native: PathBuf,
    pub(crate) objects: Vec<PathBuf>,
}

impl HostSdk {
    /// The compile command of one host source (C or C++), without `-o`.
    pub(crate) fn compile(
        &self,
        cxx: &Path,
        sanitizer: Sanitizer,
        src: &Path,
        includes: &[PathBuf],
        defines: &[String],
    ) -> Command {
        let c = src.extension().is_some_and(|e| e == "c");
        let lang: &[&str] = if c { &["-x", "c", "-std=c11"] } else { &["-std=c++17"] };
        // -O1 keeps the sanitizers' reports exact; Q7_NATIVE selects the host layout of the ABI types.
        let mut cmd = Command::new(cxx).args(lang).args(["-g", "-O1", "-fno-omit-frame-pointer", "-DQ7_NATIVE=1"]);
        // Plain char is unsigned on Xtensa (sdk/README.md); the host follows the device.
        cmd = cmd.arg("-funsigned-char");
        if !c {
            // Op code is written for the device's 32-bit size_t: `torch::zeros({num_elem})`
            // with a size_t widens there but narrows to int64_t here.
            cmd = cmd.arg("-Wno-c++11-narrowing");
        }
        cmd = cmd.args(sanitizer.flags()).path_arg("-I", &self.include).path_arg("-I", &self.native);
        for dir in includes {
            cmd = cmd.path_arg("-I", dir);
        }
        cmd.args(defines).arg("-c").operand(src)
    }
}

fn host_files() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    let device = SDK_FILES
        .iter()
        .filter(|(rel, _)| HEADER_DIRS.iter().any(|d| rel.starts_with(d)) || rel.starts_with("src/torch/"))
        .map(|(rel, bytes)| (*rel, *bytes));
    device.chain(NATIVE_FILES.iter().map(|(rel, text)| (*rel, text.as_bytes())))
}

/// Finds or builds the host SDK for `sanitizer` under `cache`; `obs` hears
/// of a build (a note) and sees its commands. A build of the same host SDK
/// in another process is waited for.
pub(crate) fn ensure(
    cxx: &Path,
    cache: &Path,
    sanitizer: Sanitizer,
    obs: &dyn Observer,
) -> Result<HostSdk, NativeError> {
    let mut parts: Vec<&[u8]> = Vec::new();
    for (rel, bytes) in host_files() {
        parts.push(rel.as_bytes());
        parts.push(bytes);
    }
    let probe = HostSdk { include: "I".into(), native: "N".into(), objects: Vec::new() };
    let fingerprint = probe.compile(cxx, sanitizer, Path::new("s.cpp"), &[], &[]).fingerprint();
    parts.push(fingerprint.as_bytes());
    // `.host-sdk-*.tmp-<pid>` directories a killed build left.
    q7_target::stale::remove(cache, q7_target::stale::tmp_pid, q7_target::stale::MIN_AGE);
    let key = fnv64(&parts);
    let dir = cache.join(format!("host-sdk-{key:016x}"));
    let sources: Vec<&str> =
        host_files().map(|(rel, _)| rel).filter(|rel| rel.ends_with(".cpp") || rel.ends_with(".c")).collect();
    let objects: Vec<PathBuf> = sources.iter().map(|rel| dir.join("obj").join(object_name(rel))).collect();
    let sdk = HostSdk { include: dir.join("include"), native: dir.join("native"), objects };
    if dir.join(".complete").exists() {
        return Ok(sdk);
    }
    // One builder at a time; the others wait and take its result.
    std::fs::create_dir_all(cache).map_err(io_err(cache))?;
    let lock_path = cache.join(format!(".host-sdk-{key:016x}.lock"));
    let _lock = crate::request::lock_file(&lock_path).map_err(io_err(&lock_path))?;
    if dir.join(".complete").exists() {
        return Ok(sdk); // built by whoever held the lock
    }
    obs.note(&format!("building q7's host SDK for native runs ({}; once per q7 version)", sanitizer.name()));
    let fill = |tmp: &Path| build_into(cxx, sanitizer, tmp, &sources, &|c| obs.command(c));
    q7_target::fs::publish_dir(&dir, ".complete", fill, |path, e| io_err(path)(e))?;
    Ok(sdk)
}

fn object_name(rel: &str) -> String {
    format!("{}.o", rel.replace(['/', '.'], "_"))
}

fn build_into(
    cxx: &Path,
    sanitizer: Sanitizer,
    tmp: &Path,
    sources: &[&str],
    on_command: &(dyn Fn(&Command) + Sync),
) -> Result<(), NativeError> {
    for (rel, bytes) in host_files() {
        let path = tmp.join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(tmp)).map_err(io_err(&path))?;
        std::fs::write(&path, bytes).map_err(io_err(&path))?;
    }
    let obj_dir = tmp.join("obj");
    std::fs::create_dir_all(&obj_dir).map_err(io_err(&obj_dir))?;
    let sdk = HostSdk { include: tmp.join("include"), native: tmp.join("native"), objects: Vec::new() };
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    q7_target::par::try_map(sources, jobs, |rel| -> Result<(), NativeError> {
        let src = tmp.join(rel);
        let cmd = sdk.compile(cxx, sanitizer, &src, &[], &[]).path_arg("-o", &obj_dir.join(object_name(rel)));
        on_command(&cmd);
        exec::run(&cmd).map(drop).map_err(|e| NativeError::Compile { src: rel.to_string(), output: e.tool_output() })
    })?;
    Ok(())
}
