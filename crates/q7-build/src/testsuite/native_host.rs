//! `q7_build::native` through its public API, with the real clang++-22 and
//! sanitizer runtimes: a host build from a manifest alone (no device build),
//! its incremental rebuild, a clean run's output, and UndefinedBehaviorSanitizer's
//! report of fixtures/native/signed_overflow.cpp turned into a finding on
//! the marked line while the run continues to its wrapped result; and the
//! memory limit that stops a run whose memory grows without a heap limit.

use std::path::{Path, PathBuf};
use std::time::Duration;

use q7_build::driver::Quiet;
use q7_build::native::{self, Manifest, NativeArg, NativeLaunch, Sanitizer};
use q7_build::toolchain::{Env, ProcessEnv};
use q7_target::DType;

fn overflow_source() -> PathBuf {
    q7_testkit::repo_root().join("fixtures/native/signed_overflow.cpp")
}

fn manifest() -> Manifest {
    Manifest {
        name: "libint_sum".into(),
        functions: vec!["int_sum".into()],
        schemas: vec!["int_sum(Tensor x) -> Tensor".into()],
        sources: vec![overflow_source()],
        includes: vec![],
        defines: vec![],
        multicore: false,
    }
}

/// The process environment with the CLI tests' SDK cache (built once for both).
struct CachedEnv;

impl Env for CachedEnv {
    fn var(&self, key: &str) -> Option<std::ffi::OsString> {
        if key == "Q7_CACHE_DIR" {
            return Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/tmp/q7-cache").into());
        }
        ProcessEnv.var(key)
    }
}

fn ints(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn launch<'a>(args: &'a [NativeArg<'a>], work: &'a Path) -> NativeLaunch<'a> {
    NativeLaunch {
        function: "int_sum",
        args,
        dst: None,
        cores: 1,
        seed: 0,
        sdk_checks: true,
        timeout: Duration::from_secs(60),
        heap_per_core: 64 << 20,
        memory_limit: None,
        echo: false,
        work_dir: work,
    }
}

#[test]
fn host_build_runs_and_reports_undefined_behaviour_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let program = native::build(&CachedEnv, dir.path(), &manifest(), Sanitizer::AddressUndefined, &Quiet)
        .expect("clang++-22 and libclang-rt-22-dev (scripts/bootstrap.sh)");
    assert_eq!(program.steps_run, 3, "the source, the wrapper and the link");
    let again = native::build(&CachedEnv, dir.path(), &manifest(), Sanitizer::AddressUndefined, &Quiet).unwrap();
    assert_eq!((again.steps_run, again.steps_skipped), (0, 3), "nothing changed");

    let work = dir.path().join("run");
    let clean = ints(&[1, -2, 40]);
    let args = [NativeArg::Tensor { dtype: DType::I32, shape: &[3], data: &clean }];
    let report = program.run(&launch(&args, &work)).unwrap();
    assert!(report.findings.is_empty() && report.failure.is_none(), "{report:?}");
    let out = report.output.unwrap();
    assert_eq!((out.dtype, out.shape.as_slice(), out.data), (DType::I32, &[1usize][..], ints(&[39])));

    let overflowing = ints(&[i32::MAX, 1]);
    let args = [NativeArg::Tensor { dtype: DType::I32, shape: &[2], data: &overflowing }];
    let report = program.run(&launch(&args, &work)).unwrap();
    assert_eq!(report.findings.len(), 1, "{report:?}");
    let finding = &report.findings[0];
    assert_eq!(finding.tool, "UndefinedBehaviorSanitizer");
    assert!(finding.detail.starts_with("signed integer overflow: 2147483647 + 1"), "{}", finding.detail);
    let text = std::fs::read_to_string(overflow_source()).unwrap();
    let line = text.lines().position(|l| l.contains("NATIVE-FINDING")).unwrap() + 1;
    let at = finding.location.as_ref().unwrap();
    assert_eq!((Path::new(&at.file), at.line), (overflow_source().as_path(), line as u32));
    // UBSan reports and goes on: the result is the wrapped sum.
    assert!(report.failure.is_none());
    assert_eq!(report.output.unwrap().data, ints(&[i32::MIN]));
}

#[test]
fn a_run_past_its_memory_limit_is_stopped() {
    // fixtures/native/heap_growth.cpp grows 1 MiB at a time for ever; with
    // no device heap to stop it, q7's resident-memory limit does.
    let dir = tempfile::tempdir().unwrap();
    let manifest = Manifest {
        name: "grow".into(),
        functions: vec!["grow".into()],
        schemas: vec!["grow(Tensor x) -> Tensor".into()],
        sources: vec![q7_testkit::repo_root().join("fixtures/native/heap_growth.cpp")],
        ..manifest()
    };
    let program = native::build(&CachedEnv, dir.path(), &manifest, Sanitizer::AddressUndefined, &Quiet).unwrap();
    let data = [0u8; 16];
    let args = [NativeArg::Tensor { dtype: DType::F32, shape: &[4], data: &data }];
    let work = dir.path().join("run");
    let limit =
        NativeLaunch { function: "grow", heap_per_core: 0, memory_limit: Some(200 << 20), ..launch(&args, &work) };
    let report = program.run(&limit).unwrap();
    let failure = report.failure.as_deref().unwrap_or_default();
    assert!(failure.starts_with("the host run's memory passed its limit of 200 MiB"), "{report:?}");
    assert!(!report.timed_out && report.wall < Duration::from_secs(30), "{report:?}");
}
