//! `q7 run` on the three ReLU ops of sdk/tests/ops (element-wise accessor,
//! TCM staging, eight cores writing through get_dst_tensor), built with
//! `q7 build` here, on a one-million-element tensor: the outputs equal the
//! host reference bit for bit.

use crate::run_support;

use run_support::*;

const N: usize = 1_000_000;
const SCHEMA: (&str, &str) = ("relu_forward", "relu_forward(Tensor _0) -> Tensor");

fn check_relu(build_dir: &std::path::Path, extra: &[&str], what: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let x = input(N, 7);
    let input_path = write_f32(dir.path(), "x.npy", &x);
    let out_path = dir.path().join("y.npy");
    let mut args = vec![build_dir.to_str().unwrap(), "--fn", "relu_forward", "--in"];
    args.push(input_path.to_str().unwrap());
    args.extend(["--out", out_path.to_str().unwrap()]);
    args.extend(extra);
    let out = q7_run(&args);
    assert!(out.status.success(), "{what}: {}", text(&out.stderr));
    assert_bits_eq(&read_f32(&out_path), &relu(&x), what);
    text(&out.stderr)
}

#[test]
fn accessor_relu_matches_host_reference() {
    let b = build("relu_accessor", &[SCHEMA], &["sdk/tests/ops/relu_accessor.cpp"], false);
    let stats = check_relu(&b, &["--stats"], "accessor relu");
    assert!(stats.contains("core  instructions"), "{stats}");
}

#[test]
fn tcm_relu_matches_host_reference() {
    let b = build("relu_tcm", &[SCHEMA], &["sdk/tests/ops/relu_tcm.cpp"], false);
    check_relu(&b, &[], "TCM relu");
}

#[test]
fn multicore_relu_matches_host_reference_on_eight_cores() {
    let b = build("relu_multicore", &[SCHEMA], &["sdk/tests/ops/relu_multicore.cpp"], true);
    let stats = check_relu(&b, &["--stats"], "8-core relu");
    // Every core did a share of the work.
    let busy = stats.lines().filter(|l| l.trim_start().starts_with(char::is_numeric)).count();
    assert_eq!(busy, 8, "{stats}");
    // Other interleavings give the same result; one core alone too.
    check_relu(&b, &["--seed", "12345"], "8-core relu, seeded schedule");
    check_relu(&b, &["--cores", "1"], "multicore relu on one core");
}

#[test]
fn packed_stripped_and_ucpl_images_run_the_same() {
    let b = build("relu_accessor_images", &[SCHEMA], &["sdk/tests/ops/relu_accessor.cpp"], false);
    let dir = tempfile::tempdir().unwrap();
    let ucpl = dir.path().join("relu.ucpl");
    let prelink = std::process::Command::new(env!("CARGO_BIN_EXE_q7"))
        .args(["prelink", "--single", "-o"])
        .arg(&ucpl)
        .arg(b.join("relu_accessor_images.packed.so"))
        .output()
        .unwrap();
    assert!(prelink.status.success(), "{}", text(&prelink.stderr));
    let x = input(4096, 3);
    let input_path = write_f32(dir.path(), "x.npy", &x);
    // A stripped image alone has no symbols: the function is found through
    // the wrapper's name table in the image bytes.
    let lonely = dir.path().join("alone.stripped.so");
    std::fs::copy(b.join("relu_accessor_images.stripped.so"), &lonely).unwrap();
    for image in [b.join("relu_accessor_images.packed.so"), b.join("relu_accessor_images.so"), lonely, ucpl] {
        let out_path = dir.path().join("y.npy");
        let out = q7_run_io(&image, "relu_forward", &input_path, &out_path);
        assert!(out.status.success(), "{}: {}", image.display(), text(&out.stderr));
        assert_bits_eq(&read_f32(&out_path), &relu(&x), &image.display().to_string());
    }
}

#[test]
fn json_report_and_prefixed_console_output() {
    let b = build(
        "misc_ops",
        &[
            ("spin_forward", "spin_forward(Tensor _0) -> Tensor"),
            ("peek_forward", "peek_forward(Tensor _0) -> Tensor"),
            ("scale_forward", "scale_forward(Tensor _0, Scalar _1, float _2, int _3) -> Tensor"),
        ],
        &["crates/q7-sim/tests/programs/ops/misc.cpp"],
        false,
    );
    let dir = tempfile::tempdir().unwrap();
    let x = input(64, 5);
    let input_path = write_f32(dir.path(), "x.npy", &x);
    let out_path = dir.path().join("y.npy");
    // Scalar, double and int arguments in command-line order.
    let out = q7_run(&[
        b.to_str().unwrap(),
        "--fn",
        "scale_forward",
        "--in",
        input_path.to_str().unwrap(),
        "--scalar",
        "1.5",
        "--double=2",
        "--int",
        "-3",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "[core 0] scaled 64 elements by 3000/1000 plus -3\n");
    let expected: Vec<f32> = x.iter().map(|&v| v * 3.0f32 + -3.0).collect();
    assert_bits_eq(&read_f32(&out_path), &expected, "scale_forward");

    let out = q7_run(&[
        b.to_str().unwrap(),
        "--fn",
        "scale_forward",
        "--in",
        input_path.to_str().unwrap(),
        "--scalar",
        "1",
        "--double",
        "1",
        "--int",
        "0",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["function_index"], 2);
    assert_eq!(report["end"], "exited");
    assert_eq!(report["output"]["shape"][0], 64);
    assert!(report["stats"][0]["instructions"].as_u64().unwrap() > 100);
    assert!(report["stdout"].as_str().unwrap().starts_with("[core 0] scaled 64"));
}
