//! `q7 run --native` and `--compare`: every example op built for the host
//! (clang++-22 with sanitizers) agrees with the simulator bit for bit on
//! 1M-element inputs (and, multicore, on sizes that are not a multiple of 8);
//! the fixtures in `fixtures/native/` show what only one side sees: a use
//! after free and an uninitialised read the sanitizers name by source line,
//! and a clang-22 Xtensa miscompile `--compare` catches.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use q7_sim::npy::{self, Array};
use q7_target::DType;
use q7_testkit::Rng;

const MILLION: usize = 1 << 20;

pub(crate) fn tmp() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("native-run")
}

/// q7 with the test binary's cache (the device and host SDKs are built once).
pub(crate) fn q7_cached(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7"))
        .env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"))
        .args(args)
        .output()
        .expect("run q7")
}

/// `q7 build` in an example folder, into a build directory of this module.
fn build_example(folder: &str) -> PathBuf {
    let dir = tmp().join(folder);
    let out = Command::new(env!("CARGO_BIN_EXE_q7"))
        .current_dir(root().join("examples").join(folder))
        .env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"))
        .args(["build", "--toolchain", "open", "--build-dir"])
        .arg(&dir)
        .output()
        .expect("run q7");
    assert!(out.status.success(), "{folder}: {}", stderr(&out));
    dir
}

/// `q7 build` of one fixture in fixtures/native with its function and schema.
fn build_fixture(source: &str, function: &str, schema: &str, extra: &[&str], env: &[(&str, &str)]) -> PathBuf {
    build_fixture_in(&format!("fixture-{function}"), source, function, schema, extra, env)
}

/// `build_fixture` into the build directory `name` of this module's.
pub(crate) fn build_fixture_in(
    name: &str,
    source: &str,
    function: &str,
    schema: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> PathBuf {
    let dir = tmp().join(name);
    let src = root().join("fixtures/native").join(source);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_q7"));
    cmd.env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let d = dir.to_str().unwrap();
    cmd.args([
        "build",
        "--toolchain",
        "open",
        "--name",
        function,
        "--fn",
        function,
        "--schema",
        schema,
        "--build-dir",
        d,
    ]);
    let out = cmd.args(extra).arg(&src).output().expect("run q7");
    assert!(out.status.success(), "{source}: {}", stderr(&out));
    dir
}

/// A float32 `.npy` of `shape` with values in [-100, 100).
pub(crate) fn input(name: &str, shape: &[usize], seed: u64) -> PathBuf {
    let mut rng = Rng::new(seed);
    let n: usize = shape.iter().product();
    let data = (0..n).flat_map(|_| rng.uniform(-100.0, 100.0).to_le_bytes()).collect();
    write_npy(name, shape, data)
}

fn write_npy(name: &str, shape: &[usize], data: Vec<u8>) -> PathBuf {
    std::fs::create_dir_all(tmp()).unwrap();
    let path = tmp().join(name);
    std::fs::write(&path, npy::write(&Array { dtype: DType::F32, shape: shape.to_vec(), data })).unwrap();
    path
}

/// `[n, 4]` boxes (x1, y1, x2, y2) with x2 > x1 and y2 > y1.
fn boxes(name: &str, n: usize, seed: u64) -> PathBuf {
    let mut rng = Rng::new(seed);
    let mut data = Vec::new();
    for _ in 0..n {
        let (x, y) = (rng.uniform(0.0, 100.0), rng.uniform(0.0, 100.0));
        let (w, h) = (rng.uniform(0.5, 20.0), rng.uniform(0.5, 20.0));
        for v in [x, y, x + w, y + h] {
            data.extend(v.to_le_bytes());
        }
    }
    write_npy(name, &[n, 4], data)
}

/// `q7 run IMAGE --fn F --compare` with `args`: succeeds, and says how many
/// elements were identical.
fn assert_compare_agrees(image: &Path, function: &str, args: &[&str], elements: usize) {
    let mut argv = vec!["run", image.to_str().unwrap(), "--fn", function, "--compare"];
    argv.extend(args);
    let out = q7_cached(&argv);
    let err = stderr(&out);
    assert!(out.status.success(), "q7 {}: {err}", argv.join(" "));
    assert!(err.contains(&format!("compare: {elements} elements identical")), "{err}");
    assert!(!err.contains("Sanitizer"), "{err}");
}

pub(crate) fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn single_core_examples_agree_on_a_million_elements() {
    let x = input("x1m.npy", &[MILLION], 1);
    for folder in ["relu", "relu_stream", "relu_tcm"] {
        let b = build_example(folder);
        assert_compare_agrees(&b, "relu_forward", &["--in", path(&x)], MILLION);
    }
    let b = build_example("scale_add");
    assert_compare_agrees(&b, "scale_add", &["--in", path(&x), "--arg", "0.3"], MILLION);
    let b = build_example("reduce");
    assert_compare_agrees(&b, "reduce_sum", &["--in", path(&x)], 1);
    assert_compare_agrees(&b, "reduce_max", &["--in", path(&x)], 1);
    let m = input("m1k.npy", &[1024, 1024], 2);
    let g = input("g1k.npy", &[1024, 1024], 3);
    let b = build_example("torch_mlp");
    assert_compare_agrees(&b, "relu_forward", &["--in", path(&m)], MILLION);
    assert_compare_agrees(&b, "relu_backward", &["--in", path(&g), "--in", path(&m)], MILLION);
}

#[test]
fn multicore_examples_agree_on_a_million_elements_and_on_odd_sizes() {
    let x = input("x1m-mc.npy", &[MILLION], 4);
    let b = build_example("relu_multicore");
    assert_compare_agrees(&b, "relu_forward", &["--in", path(&x)], MILLION);
    let b = build_example("torch_mlp_multicore");
    let odd = input("x1003.npy", &[1003], 5);
    let odd_grad = input("g1003.npy", &[1003], 6);
    for (x, g, n) in [(&x, &x, MILLION), (&odd, &odd_grad, 1003)] {
        assert_compare_agrees(&b, "relu_forward", &["--in", path(x)], n);
        // --seed runs the host's cores in a shuffled order; the output does not depend on it.
        assert_compare_agrees(&b, "relu_backward", &["--in", path(g), "--in", path(x), "--seed", "7"], n);
    }
    let b = build_example("giou_multicore");
    for n in [MILLION / 4, 1001] {
        let (a, c) = (boxes(&format!("a{n}.npy"), n, 10), boxes(&format!("c{n}.npy"), n, 11));
        let shape = n.to_string();
        assert_compare_agrees(&b, "giou_forward", &["--in", path(&a), "--in", path(&c), "--dst-shape", &shape], n);
    }
}

#[test]
fn tutorial_relu_multicore_fails_alike_on_an_odd_size() {
    // examples/relu_multicore is the Neuron tutorial's code: the last core's
    // offset is partition * cpu_id with its enlarged partition, so for 1003
    // elements it copies [896, 1024). Both runs stop on the SDK's range check.
    let b = build_example("relu_multicore");
    let x = input("x1003-tutorial.npy", &[1003], 8);
    let out = q7_cached(&["run", path(&b), "--fn", "relu_forward", "--in", path(&x), "--compare"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("both runs failed"), "{err}");
    assert_eq!(
        err.matches("tensor_to_tcm: elements [896, 1024) outside a tensor of 1003 elements").count(),
        2,
        "{err}"
    );
    assert!(err.contains("native: core 7 ended with status 7"), "{err}");
}

/// The line of `source` holding `marker`.
pub(crate) fn marked_line(source: &str, marker: &str) -> usize {
    let text = std::fs::read_to_string(root().join("fixtures/native").join(source)).unwrap();
    text.lines().position(|l| l.contains(marker)).expect("marker") + 1
}

#[test]
fn use_after_free_is_reported_with_its_source_line() {
    let b = build_fixture("use_after_free.cpp", "doubled", "doubled(Tensor x) -> Tensor", &[], &[]);
    let x = input("x1003-uaf.npy", &[1003], 9);
    // The simulator's heap keeps the freed bytes, so the device run would
    // look right; q7's checks see the reads of the freed block as stray loads.
    let sim = q7_cached(&["run", path(&b), "--fn", "doubled", "--in", path(&x)]);
    let sim_err = stderr(&sim);
    assert!(!sim.status.success(), "{sim_err}");
    assert!(
        sim_err.contains("load from 0x") && sim_err.contains("outside every live tensor and allocation"),
        "{sim_err}"
    );
    assert!(sim_err.contains(", in doubled(at::Tensor const&)+0x"), "{sim_err}");
    let quiet = q7_cached(&["run", path(&b), "--fn", "doubled", "--in", path(&x), "--no-checks"]);
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    let out = q7_cached(&["run", path(&b), "--fn", "doubled", "--in", path(&x), "--native"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    let line = marked_line("use_after_free.cpp", "NATIVE-FINDING");
    let at = format!(
        "AddressSanitizer: heap-use-after-free: READ of size 4 at {}:{line}:",
        root().join("fixtures/native/use_after_free.cpp").display()
    );
    assert!(err.contains(&at), "want `{at}` in:\n{err}");
    assert!(err.contains("in doubled(at::Tensor const&)"), "{err}");
    assert!(
        err.trim_end().ends_with("q7: error: native run: stopped by AddressSanitizer: heap-use-after-free"),
        "{err}"
    );
}

#[test]
fn an_overflow_inside_the_sdk_is_placed_at_the_op_line_that_asked_for_it() {
    let b = build_fixture("tcm_overflow.cpp", "relu_tcm_small", "relu_tcm_small(Tensor x) -> Tensor", &[], &[]);
    let x = input("x1003-tcm.npy", &[1003], 17);
    // The simulator's checks see the stores past the TCM block too.
    let sim = q7_cached(&["run", path(&b), "--fn", "relu_tcm_small", "--in", path(&x)]);
    assert!(stderr(&sim).contains("past the end"), "{}", stderr(&sim));
    let out = q7_cached(&["run", path(&b), "--fn", "relu_tcm_small", "--in", path(&x), "--native"]);
    let err = stderr(&out);
    let line = marked_line("tcm_overflow.cpp", "NATIVE-FINDING");
    let src = root().join("fixtures/native/tcm_overflow.cpp");
    // The write happens in the SDK's memcpy; the finding names the op's call.
    let at = format!("AddressSanitizer: heap-buffer-overflow: WRITE of size 4012 at {}:{line}:", src.display());
    assert!(err.contains(&at), "want `{at}` in:\n{err}");
}

#[test]
fn uninitialised_read_is_reported_by_memory_sanitizer_with_its_line() {
    let b = build_fixture(
        "uninitialised_read.cpp",
        "staged_copy",
        "staged_copy(Tensor x) -> Tensor",
        &["--multicore"],
        &[],
    );
    let x = input("x1024-uninit.npy", &[1024], 12);
    let out = q7_cached(&["run", path(&b), "--fn", "staged_copy", "--in", path(&x), "--native", "--json"]);
    assert!(!out.status.success());
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("--json prints one JSON value");
    let runs = report["native"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "ASan+UBSan, then MSan");
    assert_eq!(runs[0]["sanitizer"], "address-undefined");
    assert!(runs[0]["findings"].as_array().unwrap().is_empty(), "ASan cannot see it: {}", runs[0]);
    assert_eq!(runs[0]["core_order"], serde_json::json!([0, 1, 2, 3, 4, 5, 6, 7]));
    let finding = &runs[1]["findings"][0];
    assert_eq!(finding["tool"], "MemorySanitizer");
    assert_eq!(finding["kind"], "use-of-uninitialized-value");
    let line = marked_line("uninitialised_read.cpp", "NATIVE-FINDING");
    assert_eq!(finding["location"]["line"], line as u64, "{finding}");
    assert_eq!(
        finding["location"]["file"],
        root().join("fixtures/native/uninitialised_read.cpp").display().to_string()
    );
}

#[test]
fn xtensa_miscompile_is_caught_by_compare() {
    // Q7_DIRECT_ASM=1 skips the IR step that refuses va_start, so clang-22's
    // Xtensa miscompile (sdk/README.md, defect 2) reaches the image.
    let env = [("Q7_DIRECT_ASM", "1")];
    let b = build_fixture("variadic_sum.cpp", "weigh", "weigh(Tensor x) -> Tensor", &[], &env);
    let x = write_npy("ones.npy", &[20], (0..20).flat_map(|_| 1.0f32.to_le_bytes()).collect());
    let out = q7_cached(&["run", path(&b), "--fn", "weigh", "--in", path(&x), "--compare"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    // The host sums 1 + 2 + 3; the miscompiled device code does not.
    assert!(err.contains("compare: element 0 [0]: native 6.0 simulated "), "{err}");
    assert!(!err.contains("simulated 6.0"), "{err}");
    assert!(err.contains("element 9 [9]"), "the first ten differences are listed: {err}");
    assert!(!err.contains("element 10 [10]"), "{err}");
    assert!(err.contains("outputs differ in 20 of 20 elements"), "{err}");
}

#[test]
fn plain_char_is_unsigned_on_both_sides() {
    let b = build_fixture("plain_char.cpp", "as_char", "as_char(Tensor x) -> Tensor", &[], &[]);
    let x = input("x-char.npy", &[1000], 15);
    assert_compare_agrees(&b, "as_char", &["--in", path(&x)], 1000);
    let y = tmp().join("y-char.npy");
    let out = q7_cached(&["run", path(&b), "--fn", "as_char", "--in", path(&x), "--out", path(&y), "--native"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let data = npy::read(&std::fs::read(&y).unwrap()).unwrap().data;
    let values: Vec<f32> = data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert!(values.iter().all(|&v| (0.0..=255.0).contains(&v)), "no negative chars");
    assert!(values.iter().any(|&v| v > 127.0), "negative inputs wrap to 128..255");
}

#[test]
fn libm_differences_need_a_tolerance() {
    // expf is the SDK's libm on the device and glibc's on the host: a few
    // ulps apart on some inputs, so exact comparison fails and a relative
    // tolerance of 1e-6 (about 8 float ulps) accepts every element.
    let b = build_fixture("sigmoid.cpp", "sigmoid_exp", "sigmoid_exp(Tensor x) -> Tensor", &[], &[]);
    let n = 20_000;
    let ramp = (0..n).flat_map(|i| (-20.0 + 40.0 * i as f32 / n as f32).to_le_bytes()).collect();
    let x = write_npy("ramp.npy", &[n], ramp);
    let run = |extra: &[&str]| {
        let mut argv = vec!["run", path(&b), "--fn", "sigmoid_exp", "--in", path(&x), "--compare"];
        argv.extend(extra);
        q7_cached(&argv)
    };
    let exact = run(&[]);
    let err = stderr(&exact);
    assert!(!exact.status.success());
    assert!(err.contains(&format!(" of {n} elements (exact comparison; --tolerance REL for float ops)")), "{err}");
    assert_eq!(err.matches("q7 run: compare: element ").count(), 10, "{err}");
    let loose = run(&["--tolerance", "1e-6"]);
    assert!(loose.status.success(), "{}", stderr(&loose));
    assert!(stderr(&loose).contains(&format!("{n} elements identical within relative tolerance 0.000001")));
    let tight = run(&["--tolerance", "1e-9"]);
    assert!(stderr(&tight).contains("(beyond relative tolerance 0.000000001)"), "{}", stderr(&tight));
}

#[test]
fn a_native_run_that_never_ends_is_stopped_by_the_timeout() {
    let b = build_fixture("spin.cpp", "spin", "spin(Tensor x) -> Tensor", &[], &[]);
    let x = input("x-spin.npy", &[4], 16);
    let spin =
        |limit: &str| q7_cached(&["run", path(&b), "--fn", "spin", "--in", path(&x), "--native", "--timeout", limit]);
    // The first run also builds the host SDK and the op (minutes on a cold
    // cache and a busy machine); the timed one only runs.
    spin("1");
    let started = std::time::Instant::now();
    let out = spin("2");
    assert!(started.elapsed().as_secs() < 60, "the limit held");
    let err = stderr(&out);
    assert!(!out.status.success());
    assert_eq!(err.trim_end(), "q7: error: native run: the host run passed the 2 s time limit; raise --timeout");
}

#[test]
fn bad_native_requests_fail_in_one_line() {
    let b = build_example("relu");
    let x = input("x10.npy", &[10], 13);
    // A directory holding an image but no manifest (an image copied away from its build).
    let lone = tmp().join("lone");
    std::fs::create_dir_all(&lone).unwrap();
    std::fs::copy(b.join("librelu.so"), lone.join("librelu.so")).unwrap();
    let out = q7_cached(&["run", path(&lone), "--fn", "relu_forward", "--in", path(&x), "--native"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(&format!("{}: no q7-native.json", lone.display())), "{err}");
    let out = q7_cached(&["run", path(&b), "--fn", "relu_forward", "--in", path(&x), "--compare", "--tolerance", "-1"]);
    assert!(stderr(&out).contains("--tolerance -1: give a relative tolerance >= 0"), "{}", stderr(&out));
    let out = q7_cached(&["run", path(&b), "--fn", "relu_forward", "--in", path(&x), "--native", "--tolerance", "0.1"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--compare"), "{}", stderr(&out));
    // An unknown function is refused as the simulator refuses it.
    let out = q7_cached(&["run", path(&b), "--fn", "relu_backward", "--in", path(&x), "--native"]);
    let sim = q7_cached(&["run", path(&b), "--fn", "relu_backward", "--in", path(&x)]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no function `relu_backward` in the op; it exports: relu_forward"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out), stderr(&sim));
    // A source edited after the device build that no longer compiles: one line, and -v shows all.
    let src = tmp().join("edited.cpp");
    std::fs::copy(root().join("examples/relu/relu.cpp"), &src).unwrap();
    let edited = tmp().join("edited");
    let schema = "relu_forward(Tensor x) -> Tensor";
    let built = q7_cached(&[
        "build",
        "--name",
        "libe",
        "--fn",
        "relu_forward",
        "--schema",
        schema,
        "--build-dir",
        path(&edited),
        path(&src),
    ]);
    assert!(built.status.success(), "{}", stderr(&built));
    std::fs::write(&src, std::fs::read_to_string(&src).unwrap() + "int broken(\n").unwrap();
    let out = q7_cached(&["run", path(&edited), "--fn", "relu_forward", "--in", path(&x), "--native"]);
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(&format!("{}: does not compile for the host: ", src.display())), "{err}");
    assert!(err.contains("error: expected expression (-v shows the compiler's output)"), "{err}");
    let out = q7_cached(&["run", path(&edited), "--fn", "relu_forward", "--in", path(&x), "--native", "-v"]);
    assert!(stderr(&out).lines().count() > 2, "{}", stderr(&out));
    // Wrong arguments are refused against the schema before anything is built.
    let out = q7_cached(&["run", path(&b), "--fn", "relu_forward", "--native"]);
    assert!(!out.status.success());
    assert_eq!(stderr(&out).trim_end().lines().count(), 1, "{}", stderr(&out));
}

#[test]
fn native_output_is_the_op_result() {
    let b = build_example("relu");
    let x = input("x4099.npy", &[4099], 14);
    let y = tmp().join("y4099.npy");
    let out = q7_cached(&["run", path(&b), "--fn", "relu_forward", "--in", path(&x), "--out", path(&y), "--native"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let read = |p: &Path| npy::read(&std::fs::read(p).unwrap()).unwrap();
    let (input, output) = (read(&x), read(&y));
    assert_eq!(output.shape, vec![4099]);
    let floats =
        |a: &Array| a.data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
    let want: Vec<f32> = floats(&input).iter().map(|&v| if v > 0.0 { v } else { 0.0 }).collect();
    assert_eq!(floats(&output), want);
}
