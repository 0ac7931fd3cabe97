//! `cargo bench -p q7-pack`: q7's packer against the GNU binutils recipe on
//! the largest fixture image, as the median of several runs, two ways:
//!
//! * in process: `q7_pack::pack` on bytes in memory, against the recipe;
//! * as a process: `q7 pack -o … -s …` started, reading its input and writing
//!   both outputs, against the recipe (itself eight tool processes). This is
//!   what a user sees. The two alternate run by run, so a change in the load
//!   of the machine falls on both. Besides the wall-clock medians it prints
//!   the CPU time each side's processes used (`getrusage`), which
//!   a loaded machine does not inflate. It needs the release binary
//!   (`cargo build --release -p q7`; `scripts/bench.sh` builds it), or its
//!   path in `Q7_BIN`;
//! * start-up: `q7 pack` as a process against a Rust binary that does
//!   nothing (`examples/minimal_main.rs`, `cargo build --release -p q7-pack
//!   --example minimal_main`, or its path in `Q7_MINIMAL_BIN`), timed in the
//!   same alternating runs: what q7's own start adds to any whole-process
//!   figure.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use q7_pack::recipe::{pack_with_binutils, Binutils, RecipeOptions};
use q7_pack::PackOptions;

const IN_PROCESS_RUNS: usize = 200;
const RECIPE_RUNS: usize = 20;
const PROCESS_RUNS: usize = 40;

fn largest_fixture() -> PathBuf {
    let dir = q7_testkit::fixtures().join("bin");
    let mut images: Vec<(u64, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "so"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.len(), p)))
        .collect();
    images.sort();
    images.pop().expect("no fixture images in fixtures/bin").1
}

/// `Q7_BIN`, else `target/release/q7` beside this benchmark's own
/// `target/release/deps/` directory.
fn q7_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("Q7_BIN") {
        return PathBuf::from(path);
    }
    let q7 = release_dir().join("q7");
    assert!(q7.is_file(), "{}: not built; run `cargo build --release -p q7` or set Q7_BIN", q7.display());
    q7
}

/// `target/release`: this benchmark runs from its `deps/` directory.
fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    exe.parent().and_then(Path::parent).expect("benchmark under target/release/deps").to_path_buf()
}

/// `Q7_MINIMAL_BIN`, else `target/release/examples/minimal_main`, if built.
fn minimal_binary() -> Option<PathBuf> {
    let path = match std::env::var_os("Q7_MINIMAL_BIN") {
        Some(path) => PathBuf::from(path),
        None => release_dir().join("examples").join("minimal_main"),
    };
    path.is_file().then_some(path)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(f: impl FnOnce() -> T) -> Duration {
    let t = Instant::now();
    std::hint::black_box(f());
    t.elapsed()
}

fn main() {
    let input = largest_fixture();
    let bytes = std::fs::read(&input).expect("read fixture");
    let name = input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tools = Binutils::locate().unwrap_or_else(|e| panic!("{e}"));
    let recipe = || pack_with_binutils(&tools, &input, &RecipeOptions::default()).expect("binutils recipe");

    let opts = PackOptions::default();
    let in_process = median(
        (0..IN_PROCESS_RUNS)
            .map(|_| time(|| q7_pack::pack(&bytes, &opts, &mut std::io::sink()).expect("q7 pack")))
            .collect(),
    );
    let recipe_alone = median((0..RECIPE_RUNS).map(|_| time(recipe)).collect());
    print_row(&name, bytes.len(), "q7 pack", in_process, IN_PROCESS_RUNS, recipe_alone, RECIPE_RUNS);

    let q7 = q7_binary();
    let out = tempfile::tempdir().expect("temporary directory");
    let mut command = Command::new(&q7);
    command.arg("pack").arg("-o").arg(out.path().join("out.packed.so"));
    command.arg("-s").arg(out.path().join("out.stripped.so")).arg(&input);
    let mut run_q7 = || {
        let status = command.status().unwrap_or_else(|e| panic!("{}: {e}", q7.display()));
        assert!(status.success(), "q7 pack {}: {status}", input.display());
    };
    run_q7(); // warm the page cache for the binary
    let (mut process, mut recipe_side, mut floor) = (Vec::new(), Vec::new(), Vec::new());
    // What starting any process costs here: no single process can beat the
    // recipe by more than the recipe's time over this.
    let run_true = || {
        let status = Command::new("true").status().expect("run true");
        assert!(status.success());
    };
    let minimal_bin = minimal_binary();
    let run_minimal = |path: &Path| {
        let status = Command::new(path).status().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(status.success(), "{}: {status}", path.display());
    };
    let (mut minimal, mut q7_cpu, mut recipe_cpu, mut minimal_cpu) =
        (Vec::new(), Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for _ in 0..PROCESS_RUNS {
        let before = children_cpu();
        process.push(time(&mut run_q7));
        let between = children_cpu();
        recipe_side.push(time(recipe));
        q7_cpu += between - before;
        recipe_cpu += children_cpu() - between;
        floor.push(time(run_true));
        if let Some(path) = &minimal_bin {
            let before = children_cpu();
            minimal.push(time(|| run_minimal(path)));
            minimal_cpu += children_cpu() - before;
        }
    }
    let q7_median = median(process);
    let what = "q7 pack as a process";
    let (recipe_median, floor) = (median(recipe_side), median(floor));
    print_row(&name, bytes.len(), what, q7_median, PROCESS_RUNS, recipe_median, PROCESS_RUNS);
    println!(
        "process start floor (`true` as a process): {:.1} µs (median of {PROCESS_RUNS}); the recipe over it, the most any one process can reach: {:.0}×",
        floor.as_secs_f64() * 1e6,
        recipe_median.as_secs_f64() / floor.as_secs_f64().max(1e-9)
    );
    // The same format as the rows above, so scripts/bench.sh reads it too.
    let runs = PROCESS_RUNS as f64;
    println!(
        "{name} ({} bytes): q7 pack cpu time: {:.1} µs (mean of {PROCESS_RUNS}), binutils recipe: {:.2} ms (mean of {PROCESS_RUNS}), ratio {:.0}×",
        bytes.len(),
        q7_cpu.as_secs_f64() * 1e6 / runs,
        recipe_cpu.as_secs_f64() * 1e3 / runs,
        recipe_cpu.as_secs_f64() / q7_cpu.as_secs_f64().max(1e-9)
    );
    match minimal_bin {
        Some(_) => {
            let minimal_median = median(minimal);
            println!(
                "start-up: q7 pack as a process: {:.1} µs, a minimal Rust binary: {:.1} µs (medians of {PROCESS_RUNS}, alternating), q7 pack/minimal {:.2}×; cpu time: q7 pack {:.1} µs, minimal {:.1} µs (means), q7 pack/minimal {:.2}×",
                q7_median.as_secs_f64() * 1e6,
                minimal_median.as_secs_f64() * 1e6,
                q7_median.as_secs_f64() / minimal_median.as_secs_f64().max(1e-9),
                q7_cpu.as_secs_f64() * 1e6 / runs,
                minimal_cpu.as_secs_f64() * 1e6 / runs,
                q7_cpu.as_secs_f64() / minimal_cpu.as_secs_f64().max(1e-9)
            );
        }
        None => println!(
            "start-up: no minimal Rust binary to compare with (cargo build --release -p q7-pack --example minimal_main, or set Q7_MINIMAL_BIN)"
        ),
    }
}

/// User + system time of this process's waited-for children so far, to the
/// microsecond (`/proc/self/stat` would give 10 ms ticks, coarser than a
/// whole `q7 pack`).
fn children_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes only the struct it is given, which is large
    // enough; on success every field is initialised.
    let usage = unsafe {
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()), 0, "getrusage");
        usage.assume_init()
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn print_row(name: &str, size: usize, what: &str, q7: Duration, q7_runs: usize, recipe: Duration, recipe_runs: usize) {
    println!(
        "{name} ({size} bytes): {what}: {:.1} µs (median of {q7_runs}), binutils recipe: {:.1} ms (median of {recipe_runs}), ratio {:.0}×",
        q7.as_secs_f64() * 1e6,
        recipe.as_secs_f64() * 1e3,
        recipe.as_secs_f64() / q7.as_secs_f64()
    );
}
