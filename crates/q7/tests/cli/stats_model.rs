//! `q7 run --stats` runs on the normal engines yet prices the run with the
//! memory-class model exactly as `q7 profile`'s profiling path does: on
//! every example op (and the builtin multicore sort, whose barriers spin in
//! shared DRAM), under `--engine interp` and `--engine jit`, checks on and
//! off, the per-core instructions and modelled cycles and the predicted
//! cycles of `q7 run --stats --json` equal those of `q7 profile --json`.
//! Cores that spin waiting on each other are the exception: the profiling
//! path ends a core's turn between ops, the engines between blocks, so the
//! spins (and only they) differ in length.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::run_support::{build_once, input, npy, root, text, write_f32, Array};

/// Builds `folder` (relative to the repository root) once per process.
fn build(folder: &str) -> PathBuf {
    build_once(&root().join(folder), "stats-tests", &folder.replace('/', "-"), &[])
}

/// `q7 SUBCOMMAND IMAGE --fn F ARGS... --json FLAGS...` as JSON.
fn json(subcommand: &str, image: &Path, function: &str, args: &[String], flags: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_q7"))
        .arg(subcommand)
        .arg(image)
        .args(["--fn", function])
        .args(args)
        .arg("--json")
        .args(flags)
        .output()
        .expect("run q7");
    let what = format!("q7 {subcommand} {} --fn {function} {flags:?}", image.display());
    assert!(out.status.success(), "{what}: {}", text(&out.stderr));
    serde_json::from_str(&text(&out.stdout)).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// (instructions, cycles) per core of a report's `stats`.
fn per_core(stats: &serde_json::Value) -> Vec<(u64, u64)> {
    let rows = stats.as_array().expect("stats rows");
    rows.iter().map(|s| (s["instructions"].as_u64().unwrap(), s["cycles"].as_u64().unwrap())).collect()
}

/// Positive-size boxes, `n` rows of (x1, y1, x2, y2).
fn boxes(n: usize, seed: u64) -> Vec<f32> {
    let mut r = q7_testkit::Rng::new(seed);
    let mut v = Vec::with_capacity(4 * n);
    for _ in 0..n {
        let (x, y) = (r.uniform(-50.0, 50.0), r.uniform(-50.0, 50.0));
        v.extend([x, y, x + r.uniform(0.5, 30.0), y + r.uniform(0.5, 30.0)]);
    }
    v
}

#[test]
fn run_stats_equals_the_profile_on_every_example() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str, data: &[f32]| write_f32(dir.path(), name, data).to_str().unwrap().to_string();
    let x = path("x.npy", &input(20_000, 5));
    let tensor = |name: &str, shape: Vec<usize>, data: &[f32]| {
        let file = dir.path().join(name);
        std::fs::write(&file, npy::write(&Array::from_f32(shape, data))).unwrap();
        file.to_str().unwrap().to_string()
    };
    let boxes_file = |name: &str, seed| tensor(name, vec![3000, 4], &boxes(3000, seed));
    // The PyTorch examples' ops take matrices.
    let (x2, grad2) =
        (tensor("x2.npy", vec![100, 200], &input(20_000, 5)), tensor("g2.npy", vec![100, 200], &input(20_000, 6)));
    let (a, b) = (boxes_file("a.npy", 7), boxes_file("b.npy", 8));
    let sort_x = path("sort.npy", &input(5000, 9));
    let arg = |flag: &str, value: &str| vec![flag.to_string(), value.to_string()];
    let one = arg("--in", &x);
    let ops: Vec<(&str, &str, Vec<String>)> = vec![
        ("examples/relu", "relu_forward", one.clone()),
        ("examples/relu_stream", "relu_forward", one.clone()),
        ("examples/relu_tcm", "relu_forward", one.clone()),
        ("examples/relu_multicore", "relu_forward", one.clone()),
        ("examples/scale_add", "scale_add", [one.clone(), arg("--double", "0.5")].concat()),
        ("examples/reduce", "reduce_sum", one.clone()),
        ("examples/reduce", "reduce_max", one.clone()),
        (
            "examples/giou_multicore",
            "giou_forward",
            [arg("--in", &a), arg("--in", &b), arg("--dst-shape", "3000")].concat(),
        ),
        ("examples/torch_mlp", "relu_forward", arg("--in", &x2)),
        ("examples/torch_mlp", "relu_backward", [arg("--in", &grad2), arg("--in", &x2)].concat()),
        ("examples/torch_mlp_multicore", "relu_forward", arg("--in", &x2)),
        ("examples/torch_mlp_multicore", "relu_backward", [arg("--in", &grad2), arg("--in", &x2)].concat()),
        // One core: its barriers still read and write shared DRAM. With
        // more, how long cores spin depends on where turns end, which the
        // profiling path (one op at a time) cuts differently: see below.
        ("builtin", "sort_multicore_compute", [arg("--in", &sort_x), arg("--cores", "1")].concat()),
    ];
    let mut transfers = 0;
    for (folder, function, args) in &ops {
        let image = build(folder);
        for checks in [&[][..], &["--no-checks"][..]] {
            let profile = json("profile", &image, function, args, checks);
            let expected = per_core(&profile["report"]["stats"]);
            let predicted = profile["profile"]["cycles"].as_f64().unwrap();
            transfers += profile["profile"]["cores"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["transfers"].as_u64().unwrap())
                .sum::<u64>();
            for engine in ["interp", "jit"] {
                let flags = [&["--stats", "--engine", engine][..], checks].concat();
                let run = json("run", &image, function, args, &flags);
                let what = format!("{folder} {function} --engine {engine} {checks:?}");
                assert_eq!(per_core(&run["stats"]), expected, "{what}: per-core instructions and cycles");
                assert_eq!(run["predicted_cycles"].as_f64(), Some(predicted), "{what}: predicted cycles");
                assert_eq!(run["model"]["name"], "q7-memclass", "{what}");
                let seconds = run["predicted_seconds"].as_f64().unwrap();
                assert!((seconds - profile["profile"]["predicted_seconds"].as_f64().unwrap()).abs() < 1e-15, "{what}");
            }
        }
    }
    // The TCM and stream examples made transfer calls: their spans were priced.
    assert!(transfers > 0, "no transfer calls in any example");
}

/// Without `--stats` the JSON report carries no estimate.
#[test]
fn run_without_stats_has_no_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(100, 1));
    let run =
        json("run", &build("examples/relu_tcm"), "relu_forward", &["--in".into(), x.to_str().unwrap().into()], &[]);
    assert!(run.get("predicted_cycles").is_none() && run.get("model").is_none(), "{run}");
}

/// The 8-core sort spins in barriers as long as the schedule makes it: the
/// engines agree exactly with each other, and with the profiling path's
/// differently cut schedule within a small margin.
#[test]
fn run_stats_on_spinning_cores_tracks_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(5000, 9));
    let args = ["--in".to_string(), x.to_str().unwrap().to_string()];
    let image = build("builtin");
    let function = "sort_multicore_compute";
    let predicted = json("profile", &image, function, &args, &[])["profile"]["cycles"].as_f64().unwrap();
    let runs: Vec<_> = ["interp", "jit"]
        .iter()
        .map(|engine| json("run", &image, function, &args, &["--stats", "--engine", engine]))
        .collect();
    assert_eq!(per_core(&runs[0]["stats"]), per_core(&runs[1]["stats"]));
    assert_eq!(runs[0]["predicted_cycles"], runs[1]["predicted_cycles"]);
    let cycles = runs[0]["predicted_cycles"].as_f64().unwrap();
    assert!((cycles / predicted - 1.0).abs() < 0.01, "--stats {cycles} cycles, q7 profile {predicted}");
}

/// The report says what the JIT compiled and the time that took (a part of
/// the run's wall time); the interpreter compiles nothing and says so.
#[test]
fn run_reports_what_the_jit_compiled() {
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(20_000, 3));
    let args = ["--in".to_string(), x.to_str().unwrap().to_string()];
    let image = build("examples/relu_tcm");
    for checks in [&[][..], &["--no-checks"][..]] {
        let jit = json("run", &image, "relu_forward", &args, &[&["--engine", "jit"][..], checks].concat());
        let (blocks, regions) = (jit["jit"]["blocks_compiled"].as_u64(), jit["jit"]["regions_compiled"].as_u64());
        let (seconds, wall) = (jit["jit"]["compile_seconds"].as_f64().unwrap(), jit["wall_seconds"].as_f64().unwrap());
        assert!(blocks.unwrap() > 0 && regions.unwrap() <= blocks.unwrap(), "{checks:?}: {}", jit["jit"]);
        assert!(seconds > 0.0 && seconds < wall, "{checks:?}: compile {seconds} s of a {wall} s run");
        let interp = json("run", &image, "relu_forward", &args, &[&["--engine", "interp"][..], checks].concat());
        assert!(interp["jit"].is_null(), "{}", interp["jit"]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_q7"))
        .arg("run")
        .arg(&image)
        .args(["--fn", "relu_forward"])
        .args(&args)
        .args(["--stats", "--engine", "jit"])
        .output()
        .expect("run q7");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let line = stderr.lines().find(|l| l.starts_with(" jit  ")).unwrap_or_else(|| panic!("no jit line: {stderr}"));
    assert!(line.contains(" compiled (") && line.ends_with(" s"), "{line}");
}
