//! Host numerics of the open device SDK (`sdk/`): its soft-float, integer
//! builtins, 16-bit float conversions and math library are portable C, so
//! they are compiled for the host with `cc` (under `-DQ7_HOST_TEST`, which
//! renames every symbol to `q7_test_<name>`) and compared with the host's
//! hardware and libm by the drivers in `sdk/tests/host/`:
//!
//! * `numerics_exact.c`: soft-double arithmetic, comparisons and conversions,
//!   `__divsf3`, float/int64 conversions and the 64-bit integer helpers must be
//!   bit-identical to the hardware (NaNs compared by class) over specials and
//!   hundreds of thousands of random operands; binary16/bfloat16 conversions
//!   exhaustively.
//! * `numerics_math.c`: every math function stays within its documented ulp
//!   bound of the correctly rounded result.
//!
//! Each driver prints `PASS <check> <cases> <max error>` or
//! `FAIL <check> <cases> <failures> <first failing case>` per check.

use std::path::{Path, PathBuf};
use std::process::Command;

fn sdk_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk").canonicalize().expect("sdk/ directory")
}

/// The portable C sources under `sdk/src/<dir>`.
fn sources(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(sdk_dir().join("src").join(dir))
        .unwrap_or_else(|e| panic!("sdk/src/{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

/// Compiles `driver` with the given SDK source directories for the host and
/// runs it; returns its stdout.
fn build_and_run(driver: &str, dirs: &[&str]) -> String {
    let sdk = sdk_dir();
    let work = tempfile::tempdir().unwrap();
    let exe = work.path().join("numerics");
    let mut cmd = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cmd.args(["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-DQ7_HOST_TEST", "-ffp-contract=off"])
        .args(["-fno-builtin", "-fno-fast-math", "-frounding-math"])
        .arg("-iquote")
        .arg(sdk.join("include"))
        .arg("-iquote")
        .arg(sdk.join("tests/host"))
        .arg(sdk.join("tests/host").join(driver));
    for dir in dirs {
        cmd.args(sources(dir));
    }
    cmd.arg("-lm").arg("-o").arg(&exe);
    let out = cmd.output().expect("run cc");
    assert!(out.status.success(), "host compile of the SDK sources failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().expect("run the numerics driver");
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    eprintln!("{stdout}");
    stdout
}

/// Asserts that every line is a PASS and that the named checks all ran.
fn assert_all_pass(output: &str, expected: &[&str]) {
    let failures: Vec<&str> = output.lines().filter(|l| !l.starts_with("PASS ")).collect();
    assert!(failures.is_empty(), "SDK numerics failures:\n{}", failures.join("\n"));
    for name in expected {
        assert!(
            output.lines().any(|l| l.starts_with(&format!("PASS {name} "))),
            "check `{name}` did not run; output:\n{output}"
        );
    }
    for line in output.lines() {
        let cases: u64 = line.split_whitespace().nth_back(1).and_then(|n| n.parse().ok()).unwrap_or(0);
        assert!(cases >= 1000, "too few cases: {line}");
    }
}

#[test]
fn soft_float_and_integer_builtins_are_bit_exact() {
    let out = build_and_run("numerics_exact.c", &["builtins"]);
    assert_all_pass(
        &out,
        &[
            "__adddf3",
            "__subdf3",
            "__muldf3",
            "__divdf3",
            "__negdf2",
            "dcmp(eq,ne,lt,le,gt,ge,unord)",
            "double<->float/int",
            "__divsf3",
            "64-bit",
            "binary16/bfloat16",
        ],
    );
}

#[test]
fn math_library_meets_its_ulp_bounds() {
    let out = build_and_run("numerics_math.c", &["builtins", "math"]);
    let checks = std::fs::read_to_string(sdk_dir().join("tests/host/math_checks.inc")).unwrap();
    let names: Vec<String> = checks
        .lines()
        .filter_map(|l| l.strip_prefix("RUN(\""))
        .filter_map(|l| l.split('"').next())
        .map(|name| match name {
            "float misc" => "fminf/fmaxf/fmaf/ldexpf/frexpf/modff".to_string(),
            other => other.to_string(),
        })
        .collect();
    assert!(names.len() >= 60, "math_checks.inc lists {} checks", names.len());
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_all_pass(&out, &refs);
}
