//! Every example under `examples/` builds with `q7 build --toolchain open`
//! from its own `q7.toml` (into a temporary build directory), produces the
//! library files the project file promises, and every linked image sits in
//! the window it was linked for (`q7 layout --json`): the single fat core's
//! window for single-core ops, the eight tiled core windows for multicore
//! ones. The ops' wrappers export each function named in the project file.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::Value;

/// The settings of an example's `q7.toml` the test checks against.
struct Project {
    name: String,
    functions: Vec<String>,
    multicore: bool,
}

fn project(dir: &Path) -> Project {
    let text = std::fs::read_to_string(dir.join("q7.toml")).unwrap();
    let v: toml::Value = toml::from_str(&text).unwrap();
    Project {
        name: v["name"].as_str().unwrap().to_string(),
        functions: v["functions"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_string()).collect(),
        multicore: v.get("multicore").and_then(toml::Value::as_bool).unwrap_or(false),
    }
}

/// `q7 build` in the example's folder, with a build cache shared by the
/// test binaries (the SDK archive is built once).
fn build(dir: &Path, build_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7"))
        .current_dir(dir)
        .env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"))
        .args(["build", "--toolchain", "open", "--build-dir"])
        .arg(build_dir)
        .output()
        .expect("run q7")
}

fn layout(paths: &[PathBuf]) -> Value {
    let mut args = vec!["layout".to_string(), "--json".to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = q7(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check_example(folder: &str) {
    let dir = root().join("examples").join(folder);
    let p = project(&dir);
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("build");
    let out = build(&dir, &b);
    assert!(out.status.success(), "{folder}: {}", stderr(&out));

    let stems: Vec<String> =
        if p.multicore { (0..8).map(|i| format!("{}_cpu{i}", p.name)).collect() } else { vec![p.name.clone()] };
    for stem in &stems {
        for suffix in [".so", ".stripped.so", ".packed.so"] {
            assert!(b.join(format!("{stem}{suffix}")).is_file(), "{folder}: {stem}{suffix} missing");
        }
    }
    let libs: Vec<PathBuf> = stems.iter().map(|s| b.join(format!("{s}.so"))).collect();
    let report = layout(&libs);
    let images = report["images"].as_array().unwrap();
    for (i, img) in images.iter().enumerate() {
        let w = &img["window"];
        let (label, base, size) = if p.multicore {
            (format!("cpu{i}"), 0x8400_0000 + i as u64 * 0x20_0000, 0x20_0000)
        } else {
            ("single".into(), 0x8400_0000, 0x200_0000)
        };
        assert_eq!(w["label"], label, "{folder}: image {i} window");
        assert_eq!(w["base"], base, "{folder}: image {i} window base");
        assert_eq!(w["size"], size, "{folder}: image {i} window size");
        // The whole image, .bss included, lies inside the window.
        let (start, end) = (img["span"]["start"].as_u64().unwrap(), img["span"]["end"].as_u64().unwrap());
        assert!(start >= base && end <= base + size, "{folder}: span {start:#x}..{end:#x} outside the window");
        assert_eq!(w["headroom"].as_u64().unwrap(), base + size - end, "{folder}: headroom");
        let loads = img["segments"].as_array().unwrap().iter().filter(|s| s["kind"] == "LOAD").count();
        assert_eq!(loads, 2, "{folder}: image {i} has {loads} LOAD segments");
        assert_eq!(img["entry"]["section"], ".text", "{folder}: entry");
    }
    if p.multicore {
        assert!(report["set"]["constant_entry_offset"].is_u64(), "{folder}: entry offset varies");
        assert_eq!(report["set"]["tiled_range"], serde_json::json!([0x8400_0000u32, 0x8500_0000u64]));
    }
    // The generated wrapper dispatches every function of the project file.
    let bytes = std::fs::read(&libs[0]).unwrap();
    let elf = q7_elf::ElfFile::parse_xtensa(&bytes).unwrap();
    let symbols: Vec<String> = elf.symbols().unwrap().iter().map(|s| s.name.to_string()).collect();
    for f in &p.functions {
        let thunk = format!("{f}_stack_switch");
        assert!(symbols.contains(&thunk), "{folder}: {thunk} not in {}", libs[0].display());
    }
}

#[test]
fn every_example_folder_has_a_project_file_and_a_test() {
    let mut folders: Vec<String> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    for f in &folders {
        assert!(root().join("examples").join(f).join("q7.toml").is_file(), "examples/{f} has no q7.toml");
    }
    let tested = [
        "giou_multicore",
        "reduce",
        "relu",
        "relu_multicore",
        "relu_stream",
        "relu_tcm",
        "scale_add",
        "torch_mlp",
        "torch_mlp_multicore",
    ];
    assert_eq!(folders, tested, "a new example needs its own test here and in examples_run.rs");
}

#[test]
fn relu() {
    check_example("relu");
}

// The PyTorch examples' compute sources; python/tests runs them from PyTorch.
#[test]
fn torch_mlp() {
    check_example("torch_mlp");
}

#[test]
fn torch_mlp_multicore() {
    check_example("torch_mlp_multicore");
}

#[test]
fn relu_multicore() {
    check_example("relu_multicore");
}

#[test]
fn relu_stream() {
    check_example("relu_stream");
}

#[test]
fn relu_tcm() {
    check_example("relu_tcm");
}

#[test]
fn scale_add() {
    check_example("scale_add");
}

#[test]
fn reduce() {
    check_example("reduce");
}

#[test]
fn giou_multicore() {
    check_example("giou_multicore");
}
