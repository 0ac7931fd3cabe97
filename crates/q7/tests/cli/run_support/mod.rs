//! Helpers of the `q7 run` tests: building ops with `q7 build`, writing
//! `.npy` inputs and reading outputs (through q7-sim's codec, which has its
//! own unit tests), and running `q7 run`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub use q7_sim::npy::{self, Array};

pub use q7_testkit::repo_root as root;

/// Builds `sources` (relative to the repository root) with the open
/// toolchain into a directory of this test binary, once per process and name.
pub fn build(name: &str, functions: &[(&str, &str)], sources: &[&str], multicore: bool) -> PathBuf {
    build_with(name, functions, sources, multicore, &[])
}

/// [`build`] with extra `q7 build` flags (e.g. `--cflag -g`).
pub fn build_with(
    name: &str,
    functions: &[(&str, &str)],
    sources: &[&str],
    multicore: bool,
    flags: &[&str],
) -> PathBuf {
    // Tests of one binary run in parallel threads and share builds.
    static BUILDS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("run-tests").join(name);
    // Once per process and name; across runs `q7 build` itself is
    // incremental (sources, SDK, flags), so a changed test or SDK rebuilds.
    static DONE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let recipe = format!("{name} {functions:?} {sources:?} {multicore} {flags:?}");
    if DONE.lock().unwrap_or_else(|e| e.into_inner()).contains(&recipe) {
        return dir;
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_q7"));
    cmd.env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"));
    cmd.args(["build", "--toolchain", "open", "--name", name, "--build-dir"]).arg(&dir);
    for (function, schema) in functions {
        cmd.args(["--fn", function, "--schema", schema]);
    }
    if multicore {
        cmd.arg("--multicore");
    }
    cmd.args(flags);
    for src in sources {
        cmd.arg(root().join(src));
    }
    let out = cmd.output().expect("run q7 build");
    assert!(out.status.success(), "q7 build {name}: {}", String::from_utf8_lossy(&out.stderr));
    DONE.lock().unwrap_or_else(|e| e.into_inner()).push(recipe);
    dir
}

/// A deterministic f32 input of `n` elements in [-100, 100) with the
/// special values relu must get right at fixed places.
pub fn input(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = q7_testkit::Rng::new(seed);
    let mut v: Vec<f32> = (0..n).map(|_| rng.uniform(-100.0, 100.0)).collect();
    let specials = [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE / 4.0, -1e-40, f32::MAX];
    for (i, s) in specials.iter().enumerate() {
        if i * 7919 < n {
            v[i * 7919] = *s;
        }
    }
    v
}

pub fn write_f32(dir: &Path, name: &str, data: &[f32]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, npy::write(&Array::from_f32(vec![data.len()], data))).unwrap();
    path
}

/// A float32 `.npy` of `shape`.
pub fn write_npy_f32(dir: &Path, name: &str, shape: &[usize], data: &[f32]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, npy::write(&Array::from_f32(shape.to_vec(), data))).unwrap();
    path
}

pub fn read_f32(path: &Path) -> Vec<f32> {
    npy::read(&std::fs::read(path).unwrap()).unwrap().to_f32().expect("float32 output")
}

/// Runs `q7 run` with `args`.
pub fn q7_run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7")).arg("run").args(args).output().expect("run q7")
}

/// `q7 run IMAGE --fn FUNCTION --in INPUT --out OUTPUT`: one tensor in, one out.
pub fn q7_run_io(image: &Path, function: &str, input: &Path, output: &Path) -> Output {
    let (image, input, output) = (image.to_str().unwrap(), input.to_str().unwrap(), output.to_str().unwrap());
    q7_run(&[image, "--fn", function, "--in", input, "--out", output])
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The host reference: `x > 0.0 ? x : 0.0` as the ops write it.
pub fn relu(x: &[f32]) -> Vec<f32> {
    x.iter().map(|&v| if f64::from(v) > 0.0 { v } else { 0.0 }).collect()
}

/// Bit-exact comparison with the first difference in the message.
pub fn assert_bits_eq(actual: &[f32], expected: &[f32], what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: length");
    if let Some(i) = (0..actual.len()).find(|&i| actual[i].to_bits() != expected[i].to_bits()) {
        panic!(
            "{what}: element {i} is {} ({:#010x}), expected {} ({:#010x})",
            actual[i],
            actual[i].to_bits(),
            expected[i],
            expected[i].to_bits()
        );
    }
}

/// Builds the op in `source` with `q7 build --toolchain open` plus `flags`
/// into `CARGO_TARGET_TMPDIR/{group}/{name}`, once per process and kept
/// across runs (a `done` marker); one build at a time.
pub fn build_once(source: &Path, group: &str, name: &str, flags: &[&str]) -> PathBuf {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group).join(name);
    if dir.join("done").exists() {
        return dir;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_q7"))
        .current_dir(source)
        .env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"))
        .args(["build", "--toolchain", "open"])
        .args(flags)
        .arg("--build-dir")
        .arg(&dir)
        .output()
        .expect("run q7 build");
    assert!(out.status.success(), "{}: {}", source.display(), text(&out.stderr));
    std::fs::write(dir.join("done"), "").unwrap();
    dir
}
