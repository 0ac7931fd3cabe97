//! `cargo bench -p q7-build --bench build`: wall time (median of 5
//! interleaved runs) of an 8-core build of the multicore relu with `-j1`
//! against the default parallelism, and of a no-op rebuild. The SDK is built
//! once before timing (it is cached across builds).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use q7_build::driver::{build, BuildRequest, Quiet, ToolchainChoice};
use q7_build::toolchain::ProcessEnv;

fn request(dir: &Path, jobs: usize) -> BuildRequest {
    let root = q7_testkit::repo_root();
    BuildRequest {
        name: "librelu".into(),
        functions: vec!["relu_forward".into()],
        schemas: vec!["relu_forward(Tensor _0) -> Tensor".into()],
        sources: vec![root.join("sdk/tests/ops/relu_multicore.cpp")],
        build_dir: dir.to_path_buf(),
        multicore: true,
        toolchain: ToolchainChoice::Open,
        jobs,
        ..BuildRequest::default()
    }
}

fn timed(dir: &Path, jobs: usize) -> Duration {
    let start = Instant::now();
    build(&request(dir, jobs), &ProcessEnv, &Quiet).expect("build");
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let fresh = |n: usize| -> PathBuf { scratch.path().join(format!("b{n}")) };
    timed(&fresh(0), 1); // warm the SDK cache
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Interleaved, so a change in the machine's load hits both settings alike.
    let runs = 5;
    let (mut serial, mut parallel) = (Vec::new(), Vec::new());
    for i in 0..runs {
        serial.push(timed(&fresh(10 + i), 1));
        parallel.push(timed(&fresh(20 + i), jobs));
    }
    let (serial, parallel) = (median(serial), median(parallel));
    let noop = median((0..runs).map(|_| timed(&fresh(20), jobs)).collect());
    println!("8-core build, -j1:           {:>8.1} ms", serial.as_secs_f64() * 1e3);
    println!(
        "8-core build, -j{jobs}:           {:>8.1} ms  (speed-up {:.2}x over -j1)",
        parallel.as_secs_f64() * 1e3,
        serial.as_secs_f64() / parallel.as_secs_f64()
    );
    println!(
        "no-op rebuild:               {:>8.1} ms  ({:.0}x less than a full -j{jobs} build)",
        noop.as_secs_f64() * 1e3,
        parallel.as_secs_f64() / noop.as_secs_f64()
    );
}
