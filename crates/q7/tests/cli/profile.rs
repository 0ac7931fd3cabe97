//! `q7 profile` on the repository's three relu examples (accessor, TCM,
//! 8-core TCM), built with `-g`, on 1,048,576 elements: the memory-class
//! model ranks them as trn1 does (docs/COST_MODEL.md), each profile names
//! its hot function and the source line of its hot loop, the flame graph's
//! frames carry the per-function table's cycles, `q7 run --stats` prints the
//! same model's cycles, the builtin multicore sort's cores are seen waiting
//! in its barrier, and the text report keeps its shape
//! (`snapshots/profile_report.txt`, `Q7_BLESS=1` rewrites it).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::assert_golden;
use crate::run_support::{build_once, input, root, text, write_f32};

const N: usize = 1 << 20;
const HOT_FUNCTION: &str = "relu_forward(at::Tensor const&)";

/// Builds `examples/{folder}` with `-g` once per process.
fn build(folder: &str) -> PathBuf {
    build_at(&root().join("examples").join(folder), folder)
}

fn build_at(source: &Path, folder: &str) -> PathBuf {
    build_once(source, "profile-tests", folder, &["--cflag", "-g"])
}

fn input_file(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = write_f32(dir.path(), "x.npy", &input(n, 3));
    (dir, path)
}

/// `q7 profile` of relu_forward with `extra` flags; stdout.
fn profile(build_dir: &Path, x: &Path, extra: &[&str]) -> String {
    profile_fn(build_dir, "relu_forward", x, extra)
}

fn profile_fn(build_dir: &Path, function: &str, x: &Path, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_q7"))
        .arg("profile")
        .arg(build_dir)
        .args(["--fn", function, "--in"])
        .arg(x)
        .args(extra)
        .output()
        .expect("run q7 profile");
    assert!(out.status.success(), "{}: {}", build_dir.display(), text(&out.stderr));
    text(&out.stdout)
}

fn profile_json(build_dir: &Path, x: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--json"];
    args.extend(extra);
    serde_json::from_str(&profile(build_dir, x, &args)).expect("profile JSON")
}

/// The source text of `file:line` in `examples/{folder}`.
fn source_line(folder: &str, file: &str, line: u64) -> String {
    let source = std::fs::read_to_string(root().join("examples").join(folder).join(file)).unwrap();
    source.lines().nth(line as usize - 1).unwrap_or_default().to_string()
}

#[test]
fn relu_examples_rank_as_on_trn1_and_name_their_hot_loop() {
    let (_dir, x) = input_file(N);
    let mut cycles = Vec::new();
    for folder in ["relu", "relu_tcm", "relu_multicore"] {
        let json = profile_json(&build(folder), &x, &[]);
        let p = &json["profile"];
        assert_eq!(p["model"]["name"], "q7-memclass", "{folder}");
        assert_eq!(p["functions"][0]["function"], HOT_FUNCTION, "{folder}: {}", p["functions"]);
        // The hot line is the relu loop's body (the ternary), in relu.cpp.
        let hot = &p["lines"][0];
        assert_eq!(hot["file"], "relu.cpp", "{folder}: {}", p["lines"]);
        let text = source_line(folder, "relu.cpp", hot["line"].as_u64().unwrap());
        assert!(text.contains("> 0.0"), "{folder}: hot line {hot} is `{text}`");
        // Issue cycles split by instruction class add up.
        for core in p["cores"].as_array().unwrap() {
            let by_class: u64 = core["issue_by_class"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
            assert_eq!(by_class, core["issue_cycles"].as_u64().unwrap(), "{folder}: {core}");
        }
        cycles.push(p["cycles"].as_f64().unwrap());
    }
    let (accessor, tcm, eight) = (cycles[0], cycles[1], cycles[2]);
    assert!(accessor > tcm && tcm > eight, "accessor {accessor}, TCM {tcm}, 8-core {eight} cycles");
    let ratio = accessor / tcm;
    assert!((13.5..=54.0).contains(&ratio), "accessor/TCM = {ratio} (trn1: 27)");
}

#[test]
fn flame_graph_frames_carry_the_function_table() {
    let (dir, x) = input_file(1 << 16);
    let b = build("relu_multicore");
    let svg = dir.path().join("flame.svg");
    let folded = dir.path().join("stacks.folded");
    let json = profile_json(&b, &x, &["--svg", svg.to_str().unwrap(), "--folded", folded.to_str().unwrap()]);
    let folded = std::fs::read_to_string(&folded).unwrap();
    // Self cycles per leaf frame, from the flame graph's input.
    let mut leaves = std::collections::HashMap::<String, (f64, usize)>::new();
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').expect("`stack count`");
        assert!(stack.starts_with("core "), "{line}");
        let leaf = leaves.entry(stack.rsplit(';').next().unwrap().to_string()).or_default();
        leaf.0 += count.parse::<f64>().unwrap();
        leaf.1 += 1;
    }
    let functions = json["profile"]["functions"].as_array().unwrap();
    for f in functions.iter().filter(|f| f["cycles"].as_f64().unwrap() >= 10.0) {
        let name = f["function"].as_str().unwrap();
        let cycles = f["cycles"].as_f64().unwrap();
        let (leaf_cycles, stacks) = leaves.get(name).copied().unwrap_or_default();
        // Each stack's count is rounded (and sub-cycle stacks dropped).
        assert!(
            (leaf_cycles - cycles).abs() <= stacks as f64 + 1.0,
            "{name}: table {cycles}, flame graph {leaf_cycles}"
        );
    }
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("relu_forward(at::Tensor const&amp;)"), "hot function missing from the SVG");
    for core in 0..8 {
        assert!(svg.contains(&format!("<title>core {core} (")), "core {core} missing from the SVG");
    }
}

/// The flame graph opens in a browser: headless Chromium renders it.
#[test]
fn flame_graph_renders_in_headless_chromium() {
    let (dir, x) = input_file(4096);
    let svg = dir.path().join("flame.svg");
    profile(&build("relu_tcm"), &x, &["--svg", svg.to_str().unwrap()]);
    let png = dir.path().join("flame.png");
    let screenshot = format!("--screenshot={}", png.display());
    let url = format!("file://{}", svg.display());
    // A fresh profile and no background networking: this machine's network
    // is closed, and Chromium would otherwise keep trying to reach it.
    let profile_dir = format!("--user-data-dir={}", dir.path().join("chromium-profile").display());
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        &profile_dir,
        "--window-size=1200,400",
        &screenshot,
        &url,
    ];
    let Some(out) = q7_testkit::peer("chromium", &args) else { return };
    assert!(out.status.success(), "chromium: {}", text(&out.stderr));
    let bytes = std::fs::read(&png).expect("chromium wrote no screenshot");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    // A blank page compresses to about 2 KB; the drawn frames take more.
    assert!(bytes.len() > 12_000, "screenshot of {} bytes: nothing drawn?", bytes.len());
}

#[test]
fn run_stats_prints_the_profile_model() {
    let (_dir, x) = input_file(1 << 16);
    let b = build("relu_tcm");
    let json = profile_json(&b, &x, &[]);
    let modelled = json["profile"]["cores"][0]["cycles"].as_f64().unwrap().round() as u64;
    let out = Command::new(env!("CARGO_BIN_EXE_q7"))
        .arg("run")
        .arg(&b)
        .args(["--fn", "relu_forward", "--stats", "--in"])
        .arg(&x)
        .output()
        .unwrap();
    let stats = text(&out.stderr);
    assert!(out.status.success(), "{stats}");
    let core0 = stats.lines().find(|l| l.trim_start().starts_with("0 ")).expect("core 0 row");
    let cycles: u64 = core0.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(cycles, modelled, "{stats}");
    assert!(stats.contains("estimate of cost model q7-memclass v1"), "{stats}");
}

/// The report with every number replaced by `#` and runs of blanks by one.
fn shape(report: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in report.chars() {
        if c.is_ascii_digit() || (in_number && (c == '.' || c == ',')) {
            if !in_number {
                out.push('#');
            }
            in_number = true;
            continue;
        }
        in_number = false;
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        out.push(c);
    }
    out
}

#[test]
fn text_report_keeps_its_shape() {
    let (_dir, x) = input_file(4096);
    let report = profile(&build("relu_tcm"), &x, &["--top", "3"]);
    assert_golden("profile_report.txt", &shape(&report));
}

#[test]
fn cores_waiting_in_the_builtin_sort_barrier_are_counted() {
    let (_dir, x) = input_file(8192);
    let b = build_at(&root().join("builtin"), "builtin");
    let json: serde_json::Value =
        serde_json::from_str(&profile_fn(&b, "sort_multicore_compute", &x, &["--json"])).unwrap();
    let p = &json["profile"];
    let functions = p["functions"].as_array().unwrap();
    assert!(functions.iter().any(|f| f["function"].as_str().unwrap().contains("Barrier::wait")), "{functions:?}");
    let cores = p["cores"].as_array().unwrap();
    assert_eq!(cores.len(), 8);
    let slowest = p["cycles"].as_f64().unwrap();
    for c in cores {
        let (cycles, waiting, barrier) = (
            c["cycles"].as_f64().unwrap(),
            c["waiting_cycles"].as_f64().unwrap(),
            c["barrier_cycles"].as_f64().unwrap(),
        );
        assert!(barrier > 0.0, "core {} never waited in a barrier: {c}", c["core"]);
        assert!((waiting - (slowest - cycles + barrier)).abs() < 1e-6, "{c}");
        // Barrier spins read the other cores' counters in shared DRAM.
        assert!(c["shared_dram_cycles"].as_f64().unwrap() > 0.0, "{c}");
    }
}
