//! The op-running library API and what `q7 run` builds on it: the same call
//! serves the CLI and a caller without it; arguments are checked against the
//! schema the build embeds; ranks, shapes and inputs that cannot be run are
//! refused with one line before launch.

use crate::run_support;

use std::path::Path;

use q7_sim::op::{ArgValue, OpLibrary, OpOptions, TensorArg};
use run_support::*;

fn stream_relu() -> std::path::PathBuf {
    build(
        "relu_stream_api",
        &[("relu_forward", "relu_forward(Tensor _0) -> Tensor")],
        &["examples/relu_stream/relu.cpp"],
        false,
    )
}

fn misc() -> std::path::PathBuf {
    build(
        "misc_api",
        &[
            ("spin_forward", "spin_forward(Tensor _0) -> Tensor"),
            ("peek_forward", "peek_forward(Tensor _0) -> Tensor"),
            ("scale_forward", "my_ops::scale(Tensor _0, Scalar _1, float _2, int _3) -> Tensor"),
        ],
        &["crates/q7-sim/tests/programs/ops/misc.cpp"],
        false,
    )
}

fn one_line_error(out: &std::process::Output) -> String {
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn the_library_call_is_what_q7_run_does() {
    let b = stream_relu();
    let x = input(1000, 3);
    let dir = tempfile::tempdir().unwrap();
    let x_path = write_f32(dir.path(), "x.npy", &x);
    let y_path = dir.path().join("y.npy");
    let out = q7_run_io(&b, "relu_forward", &x_path, &y_path);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let library = OpLibrary::open(&b, None).unwrap();
    let entry = library.entry("relu_forward").expect("the build embeds a schema table");
    assert_eq!(entry.schema.to_string(), "relu_forward(Tensor _0) -> Tensor");
    let array = Array::from_f32(vec![x.len()], &x);
    let args = [ArgValue::Tensor(TensorArg::from_array("x", &array))];
    let report = library.run("relu_forward", &args, &OpOptions::default()).unwrap();
    assert!(report.ok(), "{:?}", report.failure);
    let output = report.output.expect("an output tensor");
    assert_eq!(output.shape, vec![1000]);
    assert_eq!(output.data, npy::read(&std::fs::read(&y_path).unwrap()).unwrap().data);
    assert_bits_eq(&output.into_array().to_f32().unwrap(), &relu(&x), "library relu");
}

#[test]
fn arguments_are_bound_to_the_schema() {
    let b = misc();
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(64, 5));
    let x = x.to_str().unwrap();
    let b = b.to_str().unwrap();
    // Plain numbers take the schema's kinds; the op is found by its op name.
    let out = q7_run(&[b, "--fn", "my_ops::scale", "--in", x, "--arg", "1.5", "--arg", "2", "--arg=-3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "[core 0] scaled 64 elements by 3000/1000 plus -3\n");
    let out = q7_run(&[b, "--fn", "scale", "--in", x, "--scalar", "1.5", "--double", "2", "--int", "-3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let cases: [(&[&str], &str); 5] = [
        (
            &["--in", x, "--scalar", "1"],
            "`scale_forward` takes 4 argument(s) (my_ops::scale(Tensor _0, Scalar _1, float _2, int _3) -> Tensor), 2 given",
        ),
        (
            &["--in", x, "--scalar", "1", "--scalar", "2", "--int", "3"],
            "`scale_forward` argument 3 `_2` is a float (double) (schema type float), but a Scalar was given (pass it with --double or --arg)",
        ),
        (
            &["--scalar", "1", "--in", x, "--double", "2", "--int", "3"],
            "`scale_forward` argument 1 `_0` is a tensor (schema type Tensor), but a Scalar was given (pass it with --in FILE.npy)",
        ),
        (
            &["--in", x, "--scalar", "1", "--double", "2", "--arg", "2.5"],
            "`scale_forward` argument 4 `_3` is an int, but 2.5 is not a whole number in range",
        ),
        (
            &["--in", x, "--scalar", "1", "--double", "2", "--int", "3", "--int", "4"],
            "`scale_forward` takes 4 argument(s) (my_ops::scale(Tensor _0, Scalar _1, float _2, int _3) -> Tensor), 5 given",
        ),
    ];
    for (extra, message) in cases {
        let mut argv = vec![b, "--fn", "scale_forward"];
        argv.extend_from_slice(extra);
        let err = one_line_error(&q7_run(&argv));
        assert_eq!(err.trim_end(), format!("q7: error: {message}"), "{extra:?}");
    }
    let err = one_line_error(&q7_run(&[b, "--fn", "nope", "--in", x]));
    assert_eq!(
        err.trim_end(),
        "q7: error: no function `nope` in the op; it exports: spin_forward, peek_forward, scale_forward"
    );
}

fn tensor_of_rank(dir: &Path, rank: usize) -> std::path::PathBuf {
    let shape: Vec<usize> = (0..rank).map(|i| if i < 3 { 2 } else { 1 }).collect();
    let n: usize = shape.iter().product();
    let path = dir.join(format!("rank{rank}.npy"));
    std::fs::write(&path, npy::write(&Array::from_f32(shape, &input(n, rank as u64)))).unwrap();
    path
}

#[test]
fn ranks_up_to_eight_run_and_larger_are_refused() {
    let b = stream_relu();
    let dir = tempfile::tempdir().unwrap();
    for rank in 0..=8 {
        let x = tensor_of_rank(dir.path(), rank);
        let y = dir.path().join(format!("y{rank}.npy"));
        let out = q7_run_io(&b, "relu_forward", &x, &y);
        assert!(out.status.success(), "rank {rank}: {}", text(&out.stderr));
        let (input, output) =
            (npy::read(&std::fs::read(&x).unwrap()).unwrap(), npy::read(&std::fs::read(&y).unwrap()).unwrap());
        assert_eq!(output.shape, input.shape, "rank {rank}");
        assert_bits_eq(&output.to_f32().unwrap(), &relu(&input.to_f32().unwrap()), &format!("rank {rank}"));
    }
    for rank in [9, 11, 5001] {
        let shape = vec![1usize; rank];
        let path = dir.path().join(format!("big{rank}.npy"));
        std::fs::write(&path, npy::write(&Array::from_f32(shape, &[1.0]))).unwrap();
        let err =
            one_line_error(&q7_run(&[b.to_str().unwrap(), "--fn", "relu_forward", "--in", path.to_str().unwrap()]));
        // Named by its path, as every other error of a .npy input (was: tensor `big9`).
        assert_eq!(
            err.trim_end(),
            format!(
                "q7: error: {}: the array has rank {rank}; a tensor descriptor holds at most 8 dimensions",
                path.display()
            )
        );
        let shape = vec!["1"; rank].join(",");
        let x = tensor_of_rank(dir.path(), 1);
        let argv = [b.to_str().unwrap(), "--fn", "relu_forward", "--in", x.to_str().unwrap(), "--dst-shape", &shape];
        let err = one_line_error(&q7_run(&argv));
        assert!(err.contains(&format!("the destination` has rank {rank}")), "{err}");
    }
}

#[test]
fn impossible_sizes_and_inputs_are_refused() {
    let b = stream_relu();
    let b = b.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(8, 1));
    let x = x.to_str().unwrap();
    for shape in ["268435456", "1073741824", "4294967296", "1099511627776", "65536,65536"] {
        let err = one_line_error(&q7_run(&[b, "--fn", "relu_forward", "--in", x, "--dst-shape", shape]));
        assert!(err.contains("more than the 536870912 bytes of tensor memory (check --dst-shape)"), "{shape}: {err}");
    }
    let err = one_line_error(&q7_run(&[b, "--fn", "relu_forward", "--in", "/dev/zero"]));
    assert_eq!(err.trim_end(), "q7: error: /dev/zero: not a regular file");
    let err = one_line_error(&q7_run(&["/dev/zero", "--fn", "relu_forward", "--in", x]));
    assert_eq!(err.trim_end(), "q7: error: /dev/zero: not a regular file");
}

#[test]
fn a_lone_per_core_image_says_what_to_pass() {
    let b = build(
        "relu_multicore_api",
        &[("relu_forward", "relu_forward(Tensor _0) -> Tensor")],
        &["examples/relu_multicore/relu.cpp"],
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let lone = dir.path().join("relu_multicore_api_cpu3.so");
    std::fs::copy(b.join("relu_multicore_api_cpu3.so"), &lone).unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(64, 1));
    let err = one_line_error(&q7_run(&[lone.to_str().unwrap(), "--fn", "relu_forward", "--in", x.to_str().unwrap()]));
    assert_eq!(
        err.trim_end(),
        format!(
            "q7: error: {}: this image is linked for core 3's window and runs only beside the other seven; \
             pass its build directory, or build for one core",
            lone.display()
        )
    );
}

#[test]
fn ops_with_six_seven_and_ten_tensor_arguments() {
    let schema = |name: &str, n: usize| {
        let args: Vec<String> = (0..n).map(|k| format!("Tensor t{k}")).collect();
        format!("{name}({}) -> Tensor", args.join(", "))
    };
    let (s6, s7, s10) = (schema("six_forward", 6), schema("seven_forward", 7), schema("ten_forward", 10));
    let b = build(
        "many_args",
        &[("six_forward", &s6), ("seven_forward", &s7), ("ten_forward", &s10)],
        &["crates/q7-sim/tests/programs/ops/many_args.cpp"],
        false,
    );
    let dir = tempfile::tempdir().unwrap();
    let n = 257;
    let inputs: Vec<Vec<f32>> =
        (0..10).map(|k| input(n, 100 + k as u64).iter().map(|v| v.clamp(-1e6, 1e6)).collect()).collect();
    let paths: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(k, v)| write_f32(dir.path(), &format!("t{k}.npy"), v).to_str().unwrap().to_string())
        .collect();
    for (function, count) in [("six_forward", 6), ("seven_forward", 7), ("ten_forward", 10)] {
        let y = dir.path().join(format!("{function}.npy"));
        let mut argv = vec![b.to_str().unwrap(), "--fn", function, "--out", y.to_str().unwrap()];
        for p in &paths[..count] {
            argv.extend(["--in", p.as_str()]);
        }
        let out = q7_run(&argv);
        assert!(out.status.success(), "{function}: {}", text(&out.stderr));
        // The same sum, in the same order, in f32: bit-exact.
        let expected: Vec<f32> =
            (0..n).map(|i| (0..count).fold(0.0f32, |acc, k| acc + (k + 1) as f32 * inputs[k][i])).collect();
        assert_bits_eq(&read_f32(&y), &expected, function);
    }
}

const PARTIAL_OPS: &[(&str, &str)] = &[
    ("evens_forward", "evens_forward(Tensor x) -> Tensor"),
    ("fault_forward", "fault_forward(Tensor x) -> Tensor"),
    ("huge_forward", "huge_forward(Tensor x) -> Tensor"),
    ("chatty_forward", "chatty_forward(Tensor x) -> Tensor"),
];

#[test]
fn a_tensor_too_big_for_32_bits_stops_the_op() {
    let b = build("partial_api", PARTIAL_OPS, &["crates/q7-sim/tests/programs/ops/partial.cpp"], true);
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(8, 2));
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "huge_forward", "--in", x.to_str().unwrap(), "--cores", "1"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("tensor factory: 1073741825 elements of 4 bytes exceed the 4 GiB address space"), "{err}");
    assert!(err.ends_with("q7: error: core 0 exited with status 7 (abort or failed runtime check)\n"), "{err}");
}

#[test]
fn never_written_output_is_a_note_or_with_strict_an_error() {
    let b = build("partial_api", PARTIAL_OPS, &["crates/q7-sim/tests/programs/ops/partial.cpp"], true);
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(80, 2));
    let argv = [b.to_str().unwrap(), "--fn", "evens_forward", "--in", x.to_str().unwrap()];
    let out = q7_run(&argv);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "q7 run: note: 40 of 80 output elements were never written (indices 1, 3, 5, 7, 9, 11, 13, 15, ...) \
         (--strict makes this an error)\n"
    );
    let out = q7_run(&[&argv[..], &["--strict"]].concat());
    let err = one_line_error(&out);
    assert_eq!(
        err,
        "q7: error: 40 of 80 output elements were never written (indices 1, 3, 5, 7, 9, 11, 13, 15, ...)\n"
    );
    let out = q7_run(&[&argv[..], &["--json"]].concat());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["unwritten_output"]["elements"], 40);
    assert_eq!(report["unwritten_output"]["first"][0], 1);
    // A complete op reports nothing.
    let relu = stream_relu();
    let out = q7_run(&[relu.to_str().unwrap(), "--fn", "relu_forward", "--in", x.to_str().unwrap()]);
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn faults_name_the_function_and_with_g_the_source_line() {
    let b = build("partial_api", PARTIAL_OPS, &["crates/q7-sim/tests/programs/ops/partial.cpp"], true);
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(8, 2));
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "fault_forward", "--in", x.to_str().unwrap()]);
    let err = one_line_error(&out);
    assert!(err.starts_with("q7: error: core 0: memory fault at pc 0x"), "{err}");
    assert!(err.contains(", in poke(int volatile*, int)+0x"), "{err}");
    assert!(!err.contains(" at partial.cpp:"), "{err}");

    // A -g build: the DWARF line table names the store's line.
    let debug = dir.path().join("debug build");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_q7"))
        .env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"))
        .args(["build", "--toolchain", "open", "--name", "faulty", "--cflag", "-g", "--build-dir"])
        .arg(&debug)
        .args(["--fn", "fault_forward", "--schema", "fault_forward(Tensor x) -> Tensor"])
        .arg(root().join("crates/q7-sim/tests/programs/ops/partial.cpp"))
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", text(&status.stderr));
    let out = q7_run(&[debug.to_str().unwrap(), "--fn", "fault_forward", "--in", x.to_str().unwrap()]);
    let err = one_line_error(&out);
    let line = std::fs::read_to_string(root().join("crates/q7-sim/tests/programs/ops/partial.cpp"))
        .unwrap()
        .lines()
        .position(|l| l.contains("*where = value"))
        .unwrap()
        + 1;
    assert!(
        err.contains(", in poke(int volatile*, int)+0x") && err.ends_with(&format!(" at partial.cpp:{line}\n")),
        "{err}"
    );
    // -v adds the memory map.
    let out = q7_run(&[debug.to_str().unwrap(), "--fn", "fault_forward", "--in", x.to_str().unwrap(), "-v"]);
    assert!(text(&out.stderr).contains("memory map of core 0:"), "{}", text(&out.stderr));
}

#[test]
fn sdk_checks_stop_a_bad_copy_and_without_them_q7_checks_see_it() {
    // The tutorial's multicore relu runs its last core past the end when the
    // size is not a multiple of 8 (docs: examples/relu_multicore).
    let b = build(
        "relu_multicore_api",
        &[("relu_forward", "relu_forward(Tensor _0) -> Tensor")],
        &["examples/relu_multicore/relu.cpp"],
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(1003, 4));
    let argv = [b.to_str().unwrap(), "--fn", "relu_forward", "--in", x.to_str().unwrap()];
    let err = text(&q7_run(&argv).stderr);
    assert!(
        err.contains("[core 7] q7: tensor_to_tcm: elements [") && err.contains("outside a tensor of 1003 elements"),
        "{err}"
    );
    assert!(err.ends_with("q7: error: core 7 exited with status 7 (abort or failed runtime check)\n"), "{err}");
    let out = q7_run(&[&argv[..], &["--no-sdk-checks"]].concat());
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(!err.contains("tensor_to_tcm:"), "{err}");
    assert!(err.contains("q7 run: check: core 7 pc 0x") && err.contains("outside every live tensor"), "{err}");
    assert!(err.contains("q7: error: checks failed: "), "{err}");
    // The store is the SDK's memcpy; the finding names the op's function
    // that asked for the copy, and lists the call stack down from memcpy.
    let first = err.lines().find(|l| l.starts_with("q7 run: check:")).unwrap();
    assert!(first.contains("past the end), in relu_forward(at::Tensor const&)+0x"), "{first}");
    assert!(err.contains("\n    #0 memcpy+0x") && err.contains("\n    #3 relu_forward(at::Tensor const&)+0x"), "{err}");
}

#[test]
fn console_capture_is_capped_with_a_note() {
    let b = build("partial_api", PARTIAL_OPS, &["crates/q7-sim/tests/programs/ops/partial.cpp"], true);
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(8, 2));
    let out =
        q7_run(&[b.to_str().unwrap(), "--fn", "chatty_forward", "--in", x.to_str().unwrap(), "--cores", "1", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let captured = report["stdout"].as_str().unwrap().len() as u64;
    let dropped = report["console_dropped"].as_u64().unwrap();
    assert_eq!(captured, 1 << 20);
    // 3 MiB of text, in lines of at most 4096 bytes, each with "[core 0] " and a newline.
    let lines = (3u64 << 20).div_ceil(4096);
    assert_eq!(captured + dropped, (3 << 20) + lines * 10);
    assert!(text(&out.stderr).contains(&format!(
        "q7 run: note: the JSON report keeps the first 1048576 bytes of each console stream; {dropped} bytes more were not kept"
    )));
    // Streamed to the terminal, the console arrives whole and no note claims otherwise.
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "chatty_forward", "--in", x.to_str().unwrap(), "--cores", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(out.stdout.len() as u64, captured + dropped);
    assert!(!text(&out.stderr).contains("not kept"), "{}", text(&out.stderr));
}

#[test]
fn the_python_front_ends_archive_runs_alone_and_beside_its_images() {
    // lib<name>.so as custom_op.load writes it (GNU ar): a host shape
    // library, the compute images (one, or eight), metadata.json; beside
    // them in the build directory, the images themselves.
    for (name, multicore) in [("relu_single_api", false), ("relu_multicore_api", true)] {
        let source = if multicore { "examples/relu_multicore/relu.cpp" } else { "examples/relu/relu.cpp" };
        let b = build(name, &[("relu_forward", "relu_forward(Tensor _0) -> Tensor")], &[source], multicore);
        let dir = tempfile::tempdir().unwrap();
        let images: Vec<String> = match multicore {
            true => (0..8).map(|k| format!("{name}_cpu{k}.so")).collect(),
            false => vec![format!("{name}.so")],
        };
        for image in &images {
            std::fs::copy(b.join(image), dir.path().join(image)).unwrap();
        }
        std::fs::copy("/bin/true", dir.path().join("librelu_shape.so")).unwrap();
        std::fs::write(dir.path().join("metadata.json"), "{}\n").unwrap();
        let ar = std::process::Command::new("xtensa-lx106-elf-ar")
            .current_dir(dir.path())
            .args(["rc", "librelu.so", "librelu_shape.so"])
            .args(&images)
            .arg("metadata.json")
            .status()
            .unwrap();
        assert!(ar.success());
        let x = write_f32(dir.path(), "x.npy", &input(1000, 5));
        for target in [dir.path().join("librelu.so"), dir.path().to_path_buf()] {
            let y = dir.path().join("y.npy");
            let out = q7_run_io(&target, "relu_forward", &x, &y);
            assert!(out.status.success(), "{}: {}", target.display(), text(&out.stderr));
            assert_bits_eq(&read_f32(&y), &relu(&read_f32(&x)), "relu through the archive");
            std::fs::remove_file(&y).unwrap();
        }
        // The author's folder as custom_op.load leaves it: the archive, and
        // the build's files in a subdirectory.
        let inner = dir.path().join(".q7-build");
        std::fs::create_dir(&inner).unwrap();
        for loose in images.iter().map(String::as_str).chain(["librelu_shape.so", "metadata.json"]) {
            std::fs::rename(dir.path().join(loose), inner.join(loose)).unwrap();
        }
        let y = dir.path().join("y.npy");
        let out = q7_run_io(dir.path(), "relu_forward", &x, &y);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_bits_eq(&read_f32(&y), &relu(&read_f32(&x)), "relu through the folder's archive");
    }
}

#[test]
fn a_npy_of_a_format_version_numpy_never_wrote_is_refused_naming_it() {
    let b = stream_relu();
    let dir = tempfile::tempdir().unwrap();
    let path = tensor_of_rank(dir.path(), 1);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[7] = 1; // version 1.1: the minor byte went unchecked
    std::fs::write(&path, bytes).unwrap();
    let err = one_line_error(&q7_run(&[b.to_str().unwrap(), "--fn", "relu_forward", "--in", path.to_str().unwrap()]));
    assert_eq!(
        err.trim_end(),
        format!("q7: error: {}: .npy format version 1.1 is not supported (1.0, 2.0 or 3.0)", path.display())
    );
}
