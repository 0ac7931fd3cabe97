//! `q7 build --shape`: schemas derived from the shape sources'
//! `NEURON_LIBRARY` registrations (compiled for the host against q7's
//! minimal torch, sdk/host): a relu project with no --schema, and bad shape
//! sources.

use std::path::Path;
use std::process::{Command, Output};

use crate::run_support::{self, assert_bits_eq, q7_run, read_f32, relu, text, write_f32};

const RELU_SHAPE: &str = r#"#include "torchneuron/register.h"

torch::Tensor relu_fwd_shape(torch::Tensor t_in) {
  return torch::zeros(t_in.sizes(), torch::kFloat);
}

NEURON_LIBRARY(my_ops, m) {
  m.def("relu_forward", &relu_fwd_shape, "relu_forward");
}
"#;

fn q7_build(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_q7"))
        .current_dir(dir)
        .env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"))
        .args(["build", "--toolchain", "open"])
        .args(args)
        .output()
        .expect("run q7 build")
}

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn relu_project_builds_without_a_schema_and_runs() {
    let relu_src = std::fs::read_to_string(run_support::root().join("examples/relu/relu.cpp")).unwrap();
    let p = project(&[("relu.cpp", &relu_src), ("shape.cpp", RELU_SHAPE)]);
    let args = ["--name", "librelu", "--shape", "shape.cpp", "relu.cpp", "--build-dir", "b", "-v"];
    let out = q7_build(p.path(), &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // torch infers this schema from `torch::Tensor relu_fwd_shape(torch::Tensor)`.
    let derived = "q7 build: relu_forward: schema relu_forward(Tensor _0) -> Tensor (from the shape sources)";
    assert!(text(&out.stderr).lines().any(|l| l == derived), "{}", text(&out.stderr));
    assert!(p.path().join("b/q7-shape").is_file());

    let again = q7_build(p.path(), &args[..args.len() - 1]);
    assert!(text(&again.stdout).contains("(0 steps run,"), "{}", text(&again.stdout));

    let x = run_support::input(100_003, 5);
    let x_path = write_f32(p.path(), "x.npy", &x);
    let y_path = p.path().join("y.npy");
    let b = p.path().join("b");
    let run = q7_run(&[
        b.to_str().unwrap(),
        "--fn",
        "relu_forward",
        "--in",
        x_path.to_str().unwrap(),
        "--out",
        y_path.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_bits_eq(&read_f32(&y_path), &relu(&x), "relu built from shape sources");
}

#[test]
fn bad_shape_sources_give_one_line_errors_naming_the_file() {
    let register = "#include \"torchneuron/register.h\"\n";
    let reg = "NEURON_LIBRARY(ns, m) { m.def(\"relu_forward\", &f, \"relu_forward\"); }\n";
    let syntax = format!("{register}torch::Tensor f(torch::Tensor t) {{ return t }}\n{reg}");
    let int_param = format!("{register}torch::Tensor f(torch::Tensor t, int k) {{ return t; }}\n{reg}");
    let no_registration = format!("{register}torch::Tensor f(torch::Tensor t) {{ return t; }}\n");
    let undefined = format!("{register}torch::Tensor f(torch::Tensor t);\n{reg}");
    let good = format!("{register}torch::Tensor f(torch::Tensor t) {{ return t; }}\n{reg}");
    let p = project(&[
        ("relu.cpp", "int unused;\n"),
        ("syntax.cpp", &syntax),
        ("int_param.cpp", &int_param),
        ("no_registration.cpp", &no_registration),
        ("undefined.cpp", &undefined),
        ("good.cpp", &good),
    ]);
    let cases: [(&str, &[&str], &str); 6] = [
        ("syntax.cpp", &[], "syntax.cpp: the shape source does not compile for the host: syntax.cpp:2:"),
        ("int_param.cpp", &[], "must be torch::Tensor, double, int64_t or torch::Scalar"),
        ("missing.cpp", &[], "q7: error: missing.cpp: no such shape source"),
        ("no_registration.cpp", &[], "no_registration.cpp: no NEURON_LIBRARY registrations"),
        ("undefined.cpp", &[], "undefined.cpp: the shape sources do not link into a host program"),
        (
            "good.cpp",
            &["--fn", "relu_fwd"],
            "good.cpp: no NEURON_LIBRARY op has the compute function `relu_fwd` (registered: relu_forward)",
        ),
    ];
    for (shape, extra, want) in cases {
        let mut args = vec!["--name", "libbad", "--shape", shape, "relu.cpp", "--build-dir", "b"];
        args.extend(extra);
        let out = q7_build(p.path(), &args);
        assert!(!out.status.success(), "{shape}");
        let err = text(&out.stderr);
        let last = err.lines().last().unwrap_or_default();
        // Progress lines precede it; the error is the one line that starts with "q7: error:".
        assert_eq!(err.lines().filter(|l| l.starts_with("q7: error:")).count(), 1, "{shape}: {err}");
        assert!(last.starts_with("q7: error: ") && last.contains(shape) && last.contains(want), "{shape}: {err}");
    }
}
