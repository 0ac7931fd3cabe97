//! `q7 build` with the open toolchain, end to end: the documented Neuron
//! example ops compile unmodified against the open SDK, link into the right
//! windows (single and 8×), pack, rebuild incrementally, and bad inputs fail
//! with clear messages and no half-written outputs.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::Value;

const RELU_SCHEMA: &str = "relu_forward(Tensor _0) -> Tensor";

fn op_source(name: &str) -> PathBuf {
    root().join("sdk/tests/ops").join(name)
}

/// Runs q7 with a cache shared by this test binary's runs.
fn q7_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7"))
        .current_dir(dir)
        .env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"))
        .args(args)
        .output()
        .expect("run q7")
}

fn build(dir: &Path, extra: &[&str], src: &Path) -> Output {
    let mut args =
        vec!["build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward", "--schema", RELU_SCHEMA];
    args.extend(extra);
    args.push(src.to_str().unwrap());
    q7_in(dir, &args)
}

fn layout(paths: &[PathBuf]) -> Value {
    let mut args = vec!["layout".to_string(), "--json".to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = q7(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn accessor_relu_single_core() {
    let dir = tempfile::tempdir().unwrap();
    let out = build(dir.path(), &[], &op_source("relu_accessor.cpp"));
    assert!(out.status.success(), "{}", stderr(&out));
    let b = dir.path().join("build");
    for f in ["librelu.so", "librelu.stripped.so", "librelu.packed.so", "wrapper.cpp", "relu_accessor.o", "wrapper.o"] {
        assert!(b.join(f).is_file(), "{f} missing");
    }
    let report = layout(&[b.join("librelu.so")]);
    assert_eq!(report["images"][0]["window"]["label"], "single");
    assert_eq!(report["images"][0]["segments"].as_array().unwrap().iter().filter(|s| s["kind"] == "LOAD").count(), 2);
    // The packed object embeds the stripped image byte for byte.
    let packed = std::fs::read(b.join("librelu.packed.so")).unwrap();
    let stripped = std::fs::read(b.join("librelu.stripped.so")).unwrap();
    assert_eq!(q7_pack::embedded_image(&packed, "lib_func").unwrap(), &stripped[..]);
    // GNU binutils read the packed object cleanly, and ld -r accepts it.
    if let Some(readelf) =
        peer("xtensa-lx106-elf-readelf", &["-a", "-W", b.join("librelu.packed.so").to_str().unwrap()])
    {
        assert!(readelf.status.success() && stderr(&readelf).trim().is_empty(), "{}", stderr(&readelf));
        assert!(stdout(&readelf).contains(" GLOBAL DEFAULT    1 lib_func"), "{}", stdout(&readelf));
        let relinked = dir.path().join("relinked.o");
        let ld = peer(
            "xtensa-lx106-elf-ld",
            &["-r", b.join("librelu.packed.so").to_str().unwrap(), "-o", relinked.to_str().unwrap()],
        )
        .unwrap();
        assert!(ld.status.success(), "{}", stderr(&ld));
    }
    // The wrapper exports the dispatch trio and the thunk.
    let nm = peer("xtensa-lx106-elf-nm", &[b.join("librelu.so").to_str().unwrap()]);
    if let Some(nm) = nm {
        let syms = stdout(&nm);
        for s in ["get_func_cnt", "get_func_name", "get_func_ptr", "relu_forward_stack_switch", "_start"] {
            assert!(syms.lines().any(|l| l.ends_with(&format!(" {s}"))), "{s} not in the image");
        }
    }
}

#[test]
fn multicore_relu_links_eight_windows() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        build(dir.path(), &["--multicore", "--build-dir", "out dir", "-v", "-j2"], &op_source("relu_multicore.cpp"));
    assert!(out.status.success(), "{}", stderr(&out));
    // -v ends with the phase timeline: the tools, both compiles in one pool,
    // then the eight links, each followed by its pack.
    let err = stderr(&out);
    let timeline = &err[err.find("q7 build: timeline (-j2)").unwrap_or_else(|| panic!("no timeline in {err}"))..];
    let phases: Vec<(&str, &str)> = timeline
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((
                w.next()?,
                l.split("  ").find(|c| c.trim_end().ends_with("steps") || c.trim_end().ends_with("step"))?,
            ))
        })
        .collect();
    let names: Vec<&str> = phases.iter().map(|p| p.0).collect();
    assert_eq!(names, ["tools+sdk", "compile", "link+pack"], "{timeline}");
    assert_eq!(phases[1].1.trim(), "2 steps", "{timeline}");
    assert_eq!(phases[2].1.trim(), "16 steps", "{timeline}");
    let tail: Vec<&str> = timeline.lines().rev().take(2).map(str::trim_start).collect();
    assert!(tail[1].starts_with("total") && tail[0].starts_with("these jobs on 2 free cores: at least"), "{timeline}");
    let b = dir.path().join("out dir");
    let libs: Vec<PathBuf> = (0..8).map(|i| b.join(format!("librelu_cpu{i}.so"))).collect();
    let mut count = 0;
    for i in 0..8 {
        for suffix in [".so", ".stripped.so", ".packed.so"] {
            assert!(b.join(format!("librelu_cpu{i}{suffix}")).is_file());
            count += 1;
        }
    }
    assert_eq!(count, 24);
    let report = layout(&libs);
    for (i, img) in report["images"].as_array().unwrap().iter().enumerate() {
        assert_eq!(img["window"]["label"], format!("cpu{i}"));
    }
    assert!(report["set"]["constant_entry_offset"].is_u64());
    assert_eq!(report["set"]["tiled_range"], serde_json::json!([0x8400_0000u32, 0x8500_0000u64]));
    // The eight images are one program re-linked (docs/FACTS.md, "Identical modulo rebase").
    let stripped: Vec<String> =
        (0..8).map(|i| b.join(format!("librelu_cpu{i}.stripped.so")).display().to_string()).collect();
    let mut args = vec!["inspect", "rebase-diff"];
    args.extend(stripped.iter().map(String::as_str));
    let out = q7(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("identical modulo rebase"), "{}", stdout(&out));
}

#[test]
fn tcm_relu_compiles_unmodified() {
    let dir = tempfile::tempdir().unwrap();
    let out = build(dir.path(), &[], &op_source("relu_tcm.cpp"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("build/librelu.packed.so").is_file());
}

#[test]
fn rebuilds_are_incremental_and_debug_builds_skip_packing() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("relu.cpp");
    std::fs::copy(op_source("relu_accessor.cpp"), &src).unwrap();
    let first = build(dir.path(), &["--json"], &src);
    assert!(first.status.success(), "{}", stderr(&first));
    let r: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(r["steps_skipped"], 0);
    let again: Value = serde_json::from_slice(&build(dir.path(), &["--json"], &src).stdout).unwrap();
    assert_eq!(again["steps_run"], 0, "a no-op rebuild does no work");
    // Change the source: it recompiles, relinks and repacks; the wrapper does not.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let text = std::fs::read_to_string(&src).unwrap();
    std::fs::write(&src, format!("{text}\nint q7_edited() {{ return 7; }}\n")).unwrap();
    let third: Value = serde_json::from_slice(&build(dir.path(), &["--json"], &src).stdout).unwrap();
    assert_eq!((third["steps_run"].as_u64(), third["steps_skipped"].as_u64()), (Some(3), Some(1)));
    // A comment: clang runs again, but its IR is the object's, so the object,
    // the image and the packed image stay as they are.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let image = dir.path().join("build/librelu.packed.so");
    let before = std::fs::metadata(&image).unwrap().modified().unwrap();
    std::fs::write(&src, format!("{text}\nint q7_edited() {{ return 7; }}  // edited\n")).unwrap();
    let fourth: Value = serde_json::from_slice(&build(dir.path(), &["--json"], &src).stdout).unwrap();
    assert_eq!(fourth["steps_run"], 0, "{fourth}");
    assert_eq!(std::fs::metadata(&image).unwrap().modified().unwrap(), before);
    // -g among the caller's cflags: link only.
    let dbg = tempfile::tempdir().unwrap();
    let out = build(dbg.path(), &["--cflag", "-g"], &src);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dbg.path().join("build/librelu.so").is_file());
    assert!(!dbg.path().join("build/librelu.packed.so").exists());
    assert!(!dbg.path().join("build/librelu.stripped.so").exists());
}

/// A define among the caller's cflags rebuilds only the objects whose code
/// it changes (and what links them); one it does not change rebuilds nothing.
#[test]
fn a_define_rebuilds_only_what_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("relu.cpp");
    let text = std::fs::read_to_string(op_source("relu_accessor.cpp")).unwrap();
    std::fs::write(&src, format!("{text}\n#ifdef Q7_EXTRA\nint q7_extra() {{ return Q7_EXTRA; }}\n#endif\n")).unwrap();
    let steps = |extra: &[&str]| -> (u64, u64) {
        let out = build(dir.path(), &[&["--json"], extra].concat(), &src);
        assert!(out.status.success(), "{}", stderr(&out));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        (r["steps_run"].as_u64().unwrap(), r["steps_skipped"].as_u64().unwrap())
    };
    assert_eq!(steps(&[]), (4, 0)); // relu.cpp, wrapper.cpp, the link, the pack
    assert_eq!(steps(&["--cflag", "-DQ7_UNUSED=1"]), (0, 4));
    assert_eq!(steps(&["--cflag", "-DQ7_EXTRA=3"]), (3, 1)); // not the wrapper
    assert_eq!(steps(&["--cflag", "-DQ7_EXTRA=3"]), (0, 4));
    assert_eq!(steps(&[]), (3, 1)); // back: the function goes
    let syms = std::process::Command::new("xtensa-lx106-elf-nm").arg(dir.path().join("build/relu.o")).output().unwrap();
    assert!(!String::from_utf8_lossy(&syms.stdout).contains("q7_extra"));
}

#[test]
fn project_file_drives_the_build() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(op_source("relu_accessor.cpp"), dir.path().join("relu.cpp")).unwrap();
    std::fs::write(
        dir.path().join("q7.toml"),
        format!("name = \"librelu\"\nfunctions = [\"relu_forward\"]\nschemas = [\"{RELU_SCHEMA}\"]\nsources = [\"relu.cpp\"]\nbuild_dir = \"out\"\ntoolchain = \"open\"\n"),
    )
    .unwrap();
    let out = q7_in(dir.path(), &["build"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("out/librelu.packed.so").is_file());
    std::fs::write(dir.path().join("q7.toml"), "name = \"x\"\nfunctoins = []\n").unwrap();
    let out = q7_in(dir.path(), &["build"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("q7: error: q7.toml:2: unknown field `functoins`"), "{}", stderr(&out));
}

#[test]
fn bad_inputs_fail_clearly_without_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Progress lines ("q7 build: …") come first; the error is the rest.
    let err = |out: &Output| {
        let text = stderr(out).replace(&d.display().to_string(), "$DIR");
        let at = text.find("q7: error:").unwrap_or(0);
        text[at..].trim_end().to_string()
    };

    let out = build(d, &[], &d.join("missing.cpp"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(err(&out), "q7: error: Cant find source file $DIR/missing.cpp");

    let src = d.join("relu.cpp");
    std::fs::copy(op_source("relu_accessor.cpp"), &src).unwrap();
    let out = q7_in(
        d,
        &[
            "build",
            "--toolchain",
            "open",
            "--name",
            "x",
            "--fn",
            "f",
            "--schema",
            "f(Tensor a, flaot b) -> Tensor",
            src.to_str().unwrap(),
        ],
    );
    assert_eq!(err(&out), "q7: error: schema 'f(Tensor a, flaot b) -> Tensor': column 13: unsupported type 'flaot' (q7 marshals Tensor, Scalar, int, float and long long)");

    let long = "f".repeat(32);
    let schema = format!("{long}(Tensor a) -> Tensor");
    let out = q7_in(
        d,
        &["build", "--toolchain", "open", "--name", "x", "--fn", &long, "--schema", &schema, src.to_str().unwrap()],
    );
    assert_eq!(
        err(&out),
        format!("q7: error: function name '{long}' has 32 characters; the runtime allows fewer than 32")
    );

    let out = q7_in(
        d,
        &[
            "build",
            "--toolchain",
            "open",
            "--name",
            "x",
            "--fn",
            "g,g",
            "--schema",
            "g(Tensor a) -> Tensor",
            "--schema",
            "g(Tensor b) -> Tensor",
            src.to_str().unwrap(),
        ],
    );
    assert_eq!(err(&out), "q7: error: two ops are named 'g'");

    // A compiler error: its diagnostic is shown and nothing is left half-made.
    let broken = d.join("my op $(x);.cpp");
    std::fs::write(
        &broken,
        "#include <torch/torch.h>\ntorch::Tensor relu_forward(const torch::Tensor& t) { return undefined_thing; }\n",
    )
    .unwrap();
    let out = build(d, &["--build-dir", "b"], &broken);
    assert_eq!(out.status.code(), Some(1));
    let e = err(&out);
    assert!(e.starts_with("q7: error: Error compiling $DIR/my op $(x);.cpp: "), "{e}");
    assert!(e.contains("use of undeclared identifier 'undefined_thing'"), "{e}");
    assert_eq!(e.lines().count(), 1, "the diagnostic folds into one line without -v: {e}");
    // (wrapper.o may be there: the wrapper compiles beside the op's source,
    // and a whole object is reused by the next build.)
    let leftovers: Vec<_> = std::fs::read_dir(d.join("b")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(
        !leftovers.iter().any(|f| {
            let f = f.to_string_lossy();
            (f.ends_with(".o") && f != "wrapper.o") || f.ends_with(".so") || f.contains(".tmp")
        }),
        "{leftovers:?}"
    );
    assert!(d.join("my op $(x);.cpp").exists(), "no shell ever ran the name");
}

#[test]
fn source_paths_with_spaces_and_metacharacters_build() {
    let dir = tempfile::tempdir().unwrap();
    let src_dir = dir.path().join("src dir; $(touch pwned) `x` & y");
    std::fs::create_dir_all(&src_dir).unwrap();
    let src = src_dir.join("relu op.cpp");
    std::fs::copy(op_source("relu_accessor.cpp"), &src).unwrap();
    let out = build(dir.path(), &["-I", src_dir.to_str().unwrap(), "--build-dir", "b $(x)"], &src);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("b $(x)/librelu.packed.so").is_file());
    assert!(!dir.path().join("pwned").exists());
}

/// `q7 prepare` builds the device SDK where builds look for it (the cache
/// the CLI and the Python package share): a second run and a build after it
/// find it built, and the build links the very archive it named.
#[test]
fn prepare_leaves_the_sdk_the_builds_link() {
    let dir = tempfile::tempdir().unwrap();
    let first = q7_in(dir.path(), &["prepare"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let said = stdout(&first);
    let archive = PathBuf::from(said.trim().strip_prefix("device SDK ready: ").expect("names the archive"));
    assert!(archive.is_file() && archive.starts_with(Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache")));
    let again = q7_in(dir.path(), &["prepare"]);
    assert!(again.status.success() && stdout(&again) == said, "{}", stderr(&again));
    assert!(!stderr(&again).contains("building q7's device SDK"), "{}", stderr(&again));
    let out = build(dir.path(), &["-v", "--build-dir", "b"], &op_source("relu_accessor.cpp"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("building q7's device SDK"), "{}", stderr(&out));
    let link = stderr(&out)
        .lines()
        .find(|l| l.contains("xtensa-lx106-elf-ld"))
        .map(str::to_string)
        .expect("-v shows the link");
    assert!(link.contains(archive.to_str().unwrap()), "{link}");
    assert!(q7_in(dir.path(), &["prepare", "-q"]).stdout.is_empty());
}
