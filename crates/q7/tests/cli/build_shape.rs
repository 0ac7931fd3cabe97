//! `q7 build --shape`: schemas derived from the shape sources'
//! `NEURON_LIBRARY` registrations (compiled for the host against q7's
//! minimal torch, sdk/host), and `q7 run`'s default destination from the
//! shape function: a relu project with no --schema, a row reduction whose
//! output shape and dtype differ from its input's, and bad shape sources.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::run_support::{self, assert_bits_eq, npy, q7_run, q7_run_io, read_f32, relu, text, write_f32, Array};

const RELU_SHAPE: &str = r#"#include "torchneuron/register.h"

torch::Tensor relu_fwd_shape(torch::Tensor t_in) {
  return torch::zeros(t_in.sizes(), torch::kFloat);
}

NEURON_LIBRARY(my_ops, m) {
  m.def("relu_forward", &relu_fwd_shape, "relu_forward");
}
"#;

/// Two row reductions of a float matrix [R, C]: sums ([R] float32) and counts
/// above a threshold ([R] int32), each written through get_dst_tensor().
const ROWS_COMPUTE: &str = r#"#include <stdint.h>
#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor row_sum_kernel(const torch::Tensor& x) {
  torch::Tensor out = get_dst_tensor();
  auto xa = x.accessor<float, 2>();
  auto oa = out.accessor<float, 1>();
  for (int64_t r = 0; r < x.size(0); r++) {
    float sum = 0.0f;
    for (int64_t c = 0; c < x.size(1); c++) sum += xa[r][c];
    oa[r] = sum;
  }
  return out;
}

torch::Tensor row_count_kernel(const torch::Tensor& x, double threshold) {
  torch::Tensor out = get_dst_tensor();
  auto xa = x.accessor<float, 2>();
  auto oa = out.accessor<int32_t, 1>();
  for (int64_t r = 0; r < x.size(0); r++) {
    int32_t n = 0;
    for (int64_t c = 0; c < x.size(1); c++) n += xa[r][c] > threshold;
    oa[r] = n;
  }
  return out;
}
"#;

const ROWS_SHAPE: &str = r#"#include "torchneuron/register.h"

torch::Tensor row_sum_shape(torch::Tensor x) {
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.pop_back();
  return torch::empty(sizes, x.options());
}

torch::Tensor row_count_shape(const torch::Tensor& x, double threshold) {
  TORCH_CHECK(x.dim() == 2, "row_count takes a matrix, not a ", x.dim(), "-d tensor");
  return torch::zeros({x.size(0)}, torch::TensorOptions().dtype(torch::kInt));
}

NEURON_LIBRARY(rows, m) {
  m.def("row_sum", &row_sum_shape, "row_sum_kernel");
  m.def("row_count", &row_count_shape, "row_count_kernel");
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
    // An edited shape source rebuilds the program (its registrations change).
    std::thread::sleep(std::time::Duration::from_millis(20));
    let edited = RELU_SHAPE.replace("m.def(", "m.def(\"relu_again\", &relu_fwd_shape, \"relu_again\");\n  m.def(");
    std::fs::write(p.path().join("shape.cpp"), edited).unwrap();
    let edited_build = q7_build(p.path(), &[&args[..args.len() - 1], &["--fn", "relu_forward"]].concat());
    assert!(edited_build.status.success(), "{}", text(&edited_build.stderr));
    let list = Command::new(p.path().join("b/q7-shape")).arg("list").output().unwrap();
    assert_eq!(
        text(&list.stdout),
        "my_ops\trelu_again\trelu_again\trelu_again(Tensor _0) -> Tensor\n\
         my_ops\trelu_forward\trelu_forward\trelu_forward(Tensor _0) -> Tensor\n"
    );

    let x = run_support::input(100_003, 5);
    let x_path = write_f32(p.path(), "x.npy", &x);
    let y_path = p.path().join("y.npy");
    let b = p.path().join("b");
    let run = q7_run_io(&b, "relu_forward", &x_path, &y_path);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_bits_eq(&read_f32(&y_path), &relu(&x), "relu built from shape sources");

    // --schema overrides the derived one: the image embeds its parameter name.
    let args = ["--name", "librelu", "--shape", "shape.cpp", "relu.cpp", "--build-dir", "c", "-v"];
    let out = q7_build(
        p.path(),
        &[&args[..], &["--fn", "relu_forward", "--schema", "relu_forward(Tensor x) -> Tensor"]].concat(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("(from the shape sources)"), "{}", text(&out.stderr));
    let c = p.path().join("c");
    let run = q7_run(&[c.to_str().unwrap(), "--fn", "relu_forward"]);
    assert_eq!(
        text(&run.stderr),
        "q7: error: `relu_forward` takes 1 argument(s) (relu_forward(Tensor x) -> Tensor), 0 given\n"
    );
}

fn write_matrix(dir: &Path, rows: usize, cols: usize) -> (PathBuf, Vec<f32>) {
    let x = run_support::input(rows * cols, 11);
    let x: Vec<f32> = x.iter().map(|v| if v.is_finite() { *v } else { 1.0 }).collect();
    let path = dir.join("m.npy");
    std::fs::write(&path, npy::write(&Array::from_f32(vec![rows, cols], &x))).unwrap();
    (path, x)
}

#[test]
fn shape_function_sets_the_destination_shape_and_dtype() {
    let toml = "name = \"librows\"\nsources = [\"rows.cpp\"]\nshape_sources = [\"shape.cpp\"]\nbuild_dir = \"b\"\n";
    let p = project(&[("rows.cpp", ROWS_COMPUTE), ("shape.cpp", ROWS_SHAPE), ("q7.toml", toml)]);
    let out = q7_build(p.path(), &["-v"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("row_sum_kernel: schema row_sum(Tensor _0) -> Tensor"), "{err}");
    assert!(err.contains("row_count_kernel: schema row_count(Tensor _0, float _1) -> Tensor"), "{err}");

    let (rows, cols) = (37, 29);
    let (m, x) = write_matrix(p.path(), rows, cols);
    let b = p.path().join("b");
    let (b, m) = (b.to_str().unwrap(), m.to_str().unwrap());
    let sums = p.path().join("sums.npy");
    // By op name; the destination is [37] float32, not the input's [37, 29].
    let run = q7_run(&[b, "--fn", "row_sum", "--in", m, "--out", sums.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let got = npy::read(&std::fs::read(&sums).unwrap()).unwrap();
    assert_eq!(got.shape, vec![rows]);
    let want: Vec<f32> = x.chunks(cols).map(|row| row.iter().fold(0.0f32, |s, v| s + v)).collect();
    assert_bits_eq(&got.to_f32().unwrap(), &want, "row sums");

    // By compute function, with a float argument; the destination is int32.
    let counts = p.path().join("counts.npy");
    let run = q7_run(&[b, "--fn", "row_count_kernel", "--in", m, "--arg", "12.5", "--out", counts.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let got = npy::read(&std::fs::read(&counts).unwrap()).unwrap();
    assert_eq!((got.dtype, got.shape.clone()), (q7_target::DType::I32, vec![rows]));
    let want: Vec<i32> =
        x.chunks(cols).map(|row| row.iter().filter(|v| f64::from(**v) > 12.5).count() as i32).collect();
    let have: Vec<i32> = got.data.chunks(4).map(|b| i32::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(have, want);

    // --dst-dtype still overrides: the kernel's int32 accessor refuses a float destination.
    let run = q7_run(&[b, "--fn", "row_count", "--in", m, "--arg", "1", "--dst-dtype", "f32"]);
    assert!(!run.status.success());
    assert!(text(&run.stderr).contains("dtype"), "{}", text(&run.stderr));

    // A shape function that refuses these inputs: one line naming the program and the op.
    let v = write_f32(p.path(), "v.npy", &[1.0, 2.0]);
    let run = q7_run(&[b, "--fn", "row_count", "--in", v.to_str().unwrap(), "--arg", "1"]);
    assert!(!run.status.success());
    let program = p.path().join("b/q7-shape");
    let want = format!(
        "q7: error: {}: the shape function of `row_count_kernel`: row_count takes a matrix, not a 1-d tensor \
         (--dst-shape with --dst-dtype skips the shape function)\n",
        program.display()
    );
    assert_eq!(text(&run.stderr), want);
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

/// Shape functions with every parameter type a schema can carry, by value
/// and by reference; torch's own inference is the reference.
const PEER_SHAPE: &str = r#"#include "torchneuron/register.h"

torch::Tensor plain_shape(torch::Tensor x) { return torch::zeros(x.sizes(), torch::kFloat); }
torch::Tensor mixed_shape(const torch::Tensor& x, double s, int64_t n) { return torch::empty({n}, x.options()); }
torch::Tensor scalars_shape(torch::Tensor x, torch::Scalar a, const torch::Tensor& y, const c10::Scalar& b) {
  return torch::ones(y.sizes(), torch::kInt);
}

NEURON_LIBRARY(peer_ops, m) {
  m.def("plain", &plain_shape, "plain_k");
  m.def("mixed", &mixed_shape, "mixed_k");
  m.def("scalars", &scalars_shape, "scalars_k");
}
"#;

const PEER_COMPUTE: &str = r#"#include <torch/torch.h>
#include <neuron/neuron-utils.hpp>

torch::Tensor plain_k(const torch::Tensor& x) { return get_dst_tensor(); }
torch::Tensor mixed_k(const torch::Tensor& x, double s, int64_t n) { return get_dst_tensor(); }
torch::Tensor scalars_k(const torch::Tensor& x, torch::Scalar a, const torch::Tensor& y, torch::Scalar b) {
  return get_dst_tensor();
}
"#;

/// Prints each named operator's schema as libtorch registered it.
const LIBTORCH_MAIN: &str = r#"#include <ATen/core/dispatch/Dispatcher.h>
#include <iostream>
int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) std::cout << c10::Dispatcher::singleton().findSchemaOrThrow(argv[i], "").schema() << "\n";
}
"#;

#[test]
fn derived_schemas_match_what_libtorch_infers_from_the_same_source() {
    let p = project(&[("shape.cpp", PEER_SHAPE), ("ops.cpp", PEER_COMPUTE), ("libtorch_main.cpp", LIBTORCH_MAIN)]);
    let out = q7_build(p.path(), &["--name", "libpeer", "--shape", "shape.cpp", "ops.cpp", "--build-dir", "b", "-v"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ours: Vec<String> = text(&out.stderr)
        .lines()
        .filter_map(|l| {
            l.strip_prefix("q7 build: ")?.split_once(": schema ")?.1.strip_suffix(" (from the shape sources)")
        })
        .map(str::to_string)
        .collect();

    // The same shape source and register.h against Debian's libtorch.
    let register = run_support::root().join("python/q7/include");
    let peer_bin = p.path().join("libtorch_schemas");
    let compile = Command::new("clang++-22")
        .current_dir(p.path())
        .args(["-std=c++17", "-O0", "-I/usr/include/torch/csrc/api/include", "-I"])
        .arg(&register)
        .args(["shape.cpp", "libtorch_main.cpp", "-ltorch", "-ltorch_cpu", "-lc10", "-o"])
        .arg(&peer_bin)
        .output()
        .expect("clang++-22 (scripts/bootstrap.sh)");
    assert!(compile.status.success(), "libtorch build: {}", text(&compile.stderr));
    let peer =
        Command::new(&peer_bin).args(["peer_ops::plain", "peer_ops::mixed", "peer_ops::scalars"]).output().unwrap();
    assert!(peer.status.success(), "{}", text(&peer.stderr));
    // torch prints `peer_ops::plain(Tensor _0) -> Tensor _0`; q7 builds with
    // the op's name and the return unnamed (docs/PYTORCH.md, "Schemas").
    let theirs: Vec<String> = text(&peer.stdout)
        .lines()
        .map(|l| l.trim_start_matches("peer_ops::").trim_end_matches(" _0").to_string())
        .collect();
    assert_eq!(ours, theirs);
    assert_eq!(ours[2], "scalars(Tensor _0, Scalar _1, Tensor _2, Scalar _3) -> Tensor");
}

/// The repository's own shape sources (the PyTorch examples and the Python
/// suite's ops, written for libtorch) build unmodified against the host
/// torch, and give the schemas their projects type by hand.
#[test]
fn the_repositorys_shape_sources_give_the_schemas_their_projects_state() {
    let cases = [
        (
            "examples/torch_mlp",
            "relu.cpp",
            vec!["relu_forward(Tensor _0) -> Tensor", "relu_backward(Tensor _0, Tensor _1) -> Tensor"],
        ),
        (
            "python/tests/ops",
            "ops.cpp",
            vec![
                "copy_bytes(Tensor _0) -> Tensor",
                "affine(Tensor _0, float _1, int _2, Scalar _3) -> Tensor",
                "write_past_end(Tensor _0) -> Tensor",
                "say_hello(Tensor _0) -> Tensor",
                "write_everywhere(Tensor _0) -> Tensor",
                "write_half(Tensor _0) -> Tensor",
                "print_lines(Tensor _0, int _1) -> Tensor",
                "spin_forever(Tensor _0) -> Tensor",
            ],
        ),
    ];
    for (dir, compute, want) in &cases {
        let build_dir = tempfile::tempdir().unwrap();
        let args = ["--name", "libx", "--shape", "shape.cpp", compute, "-v", "--build-dir"];
        let out =
            q7_build(&run_support::root().join(dir), &[&args[..], &[build_dir.path().to_str().unwrap()]].concat());
        assert!(out.status.success(), "{dir}: {}", text(&out.stderr));
        let got: Vec<String> = text(&out.stderr)
            .lines()
            .filter_map(|l| l.split_once(": schema ")?.1.strip_suffix(" (from the shape sources)").map(str::to_string))
            .collect();
        assert_eq!(&got, want, "{dir}");
    }
    // torch_mlp's q7.toml types the same schemas by hand (namespaced).
    let toml = std::fs::read_to_string(run_support::root().join("examples/torch_mlp/q7.toml")).unwrap();
    let line = toml.lines().find(|l| l.starts_with("schemas = ")).expect("schemas in q7.toml");
    let typed: Vec<&str> = line.split('"').skip(1).step_by(2).map(|s| s.trim_start_matches("my_ops::")).collect();
    assert_eq!(typed, cases[0].2);
}
