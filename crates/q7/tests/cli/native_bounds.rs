//! `q7 run --native` within the device's bounds and q7's lifetime: an op
//! whose heap grows past the device heap stops there with a finding; ten
//! million printed lines stream through q7 without growing it; SIGINT,
//! SIGTERM and SIGKILL to q7 leave no process of the op and (for SIGKILL,
//! after the next run) no files; a fork on the host is a finding and
//! nothing outlives q7.

use crate::common;
use crate::native_run::{build_fixture_in, input, marked_line, path, q7_cached};

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant, SystemTime};

use common::*;

/// q7 with the test binary's cache, its output piped.
fn spawn_q7(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_q7"))
        .env("Q7_CACHE_DIR", cache())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run q7")
}

fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache")
}

/// A finished q7: its status, stderr, stdout (or only its length, for
/// floods), and the most memory it held (VmHWM, KiB).
struct Watched {
    status: ExitStatus,
    stdout: Vec<u8>,
    stdout_bytes: u64,
    stderr: String,
    peak_kib: u64,
}

/// Runs q7 to its end, reading its peak resident memory as it goes; keeps
/// stdout only up to `keep` bytes (it counts the rest).
fn watch(args: &[&str], keep: usize) -> Watched {
    let mut child = spawn_q7(args);
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut kept, mut total, mut buf) = (Vec::new(), 0u64, vec![0u8; 1 << 16]);
        while let Ok(n @ 1..) = out.read(&mut buf) {
            total += n as u64;
            let room = keep.saturating_sub(kept.len()).min(n);
            kept.extend_from_slice(&buf[..room]);
        }
        (kept, total)
    });
    let mut err = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut peak_kib = 0;
    let status = loop {
        if let Some(hwm) = status_field(child.id(), "VmHWM:") {
            peak_kib = peak_kib.max(hwm);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let (stdout, stdout_bytes) = reader.join().unwrap();
    Watched { status, stdout, stdout_bytes, stderr: err_reader.join().unwrap(), peak_kib }
}

/// A `/proc/PID/status` field in KiB.
fn status_field(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok()
}

/// Live (not zombie) processes running `program`.
fn processes_of(program: &Path) -> Vec<u32> {
    let canon = program.canonicalize().unwrap_or_else(|_| program.to_path_buf());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == canon))
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
        .collect()
}

/// Waits up to `limit` for `check`; whether it held.
fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The bytes of `printf("line %lld\n", i)` for i in 0..n.
fn flood_bytes(n: u64) -> u64 {
    (0..n).map(|i| 6 + i.to_string().len() as u64).sum()
}

/// q7 itself stays far below this (it holds a bounded copy of the op's output).
const Q7_PEAK_KIB: u64 = 100 * 1024;

#[test]
fn heap_growth_stops_at_the_device_heap_with_a_finding() {
    let b = build_fixture_in("bounds-grow", "heap_growth.cpp", "grow", "grow(Tensor x) -> Tensor", &[], &[]);
    let x = input("x-grow.npy", &[16], 30);
    let argv = ["run", path(&b), "--fn", "grow", "--in", path(&x), "--native"];
    // The first run builds the host program; the second only runs.
    q7_cached(&argv);
    let started = Instant::now();
    let run = watch(&argv, 1 << 20);
    assert!(started.elapsed() < Duration::from_secs(30), "stopped at the heap, not by a time limit");
    assert!(!run.status.success());
    let line = marked_line("heap_growth.cpp", "NATIVE-FINDING");
    let src = common::root().join("fixtures/native/heap_growth.cpp");
    let message = "the op allocated more than the device heap's 64 MiB, where the device's malloc returns null";
    let at = format!("q7-native: heap-limit: {message} at {}:{line}:", src.display());
    assert!(run.stderr.contains(&at), "want `{at}` in:\n{}", run.stderr);
    let last = format!("q7: error: native run: core 0 ended with status 5 (out of heap memory): {message}");
    assert_eq!(run.stderr.trim_end().lines().last(), Some(last.as_str()), "{}", run.stderr);
    assert!(run.peak_kib < Q7_PEAK_KIB, "q7 held {} KiB", run.peak_kib);
}

#[test]
fn a_printing_flood_streams_through_a_bounded_q7() {
    let schema = "flood(Tensor x, int lines) -> Tensor";
    let b = build_fixture_in("bounds-flood", "print_flood.cpp", "flood", schema, &[], &[]);
    let x = input("x-flood.npy", &[16], 31);
    let lines = 10_000_000u64;
    let count = lines.to_string();
    let run =
        watch(&["run", path(&b), "--fn", "flood", "--in", path(&x), "--int", &count, "--native", "--json"], 1 << 24);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(run.peak_kib < Q7_PEAK_KIB, "q7 held {} KiB for {lines} lines", run.peak_kib);
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON value");
    let total = flood_bytes(lines);
    for native in report["native"].as_array().unwrap() {
        assert_eq!(native["console_bytes"], total);
        let cut = native["console_cut"].as_u64().unwrap();
        assert_eq!(cut, total - 2 * 64 * 1024, "the first and last 64 KiB are kept");
        let console = native["console"].as_str().unwrap();
        assert!(console.starts_with("line 0\nline 1\n"), "{}", &console[..40]);
        assert!(console.contains(&format!("\n[q7: {cut} bytes of output cut here]\n")));
        assert!(console.ends_with("line 9999999\n"));
    }
    // Without --json every byte streams through to q7's stdout.
    let lines = 1_000_000u64;
    let count = lines.to_string();
    let run = watch(&["run", path(&b), "--fn", "flood", "--in", path(&x), "--int", &count, "--native"], 64);
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout_bytes, flood_bytes(lines));
    assert!(run.peak_kib < Q7_PEAK_KIB, "q7 held {} KiB", run.peak_kib);
}

#[test]
fn a_signal_to_q7_ends_the_op_and_leaves_no_files() {
    let b = build_fixture_in("bounds-spin", "spin.cpp", "spin", "spin(Tensor x) -> Tensor", &[], &[]);
    let x = input("x-bounds-spin.npy", &[4], 32);
    let program = b.join("native-asan/q7-native");
    let argv = ["run", path(&b), "--fn", "spin", "--in", path(&x), "--native", "--timeout", "600"];
    for (signal, code) in [("INT", Some(130)), ("TERM", Some(143)), ("KILL", None)] {
        let mut q7 = spawn_q7(&argv);
        let pid = q7.id();
        // The op runs once the host program is built (minutes on a cold cache).
        let mut ops = Vec::new();
        assert!(eventually(Duration::from_secs(600), || {
            ops = processes_of(&program);
            !ops.is_empty() || q7.try_wait().unwrap().is_some()
        }));
        assert!(!ops.is_empty(), "the op never ran: {}", stderr(&q7.wait_with_output().unwrap()));
        let sent = Instant::now();
        let kill = Command::new("kill").arg(format!("-{signal}")).arg(pid.to_string()).status().unwrap();
        assert!(kill.success());
        assert!(eventually(Duration::from_secs(5), || q7.try_wait().unwrap().is_some()), "SIG{signal}: q7 lives on");
        let out = q7.wait_with_output().unwrap();
        assert!(sent.elapsed() < Duration::from_secs(5));
        let run_dir = b.join(format!("native-run-{pid}"));
        match code {
            Some(code) => {
                assert_eq!(out.status.code(), Some(code), "SIG{signal}: {}", stderr(&out));
                assert!(stderr(&out).contains(&format!("interrupted by SIG{signal}")), "{}", stderr(&out));
                assert!(!run_dir.exists(), "SIG{signal} left {}", run_dir.display());
            }
            None => assert!(run_dir.exists(), "SIGKILL leaves its run directory to the next run"),
        }
        // No process of the op is left (SIGKILL: the parent-death signal ends it).
        assert!(
            eventually(Duration::from_secs(5), || processes_of(&program).is_empty()),
            "SIG{signal} left {:?}",
            processes_of(&program)
        );
        for op in ops {
            assert!(eventually(Duration::from_secs(5), || status_field(op, "VmRSS:").is_none()), "op {op} lives");
        }
        if code.is_none() {
            // The next run removes what the killed one left (once a minute old),
            // and a host SDK temporary of a build killed the same way.
            let sdk_tmp = cache().join(format!(".host-sdk-0.tmp-{pid}"));
            std::fs::create_dir_all(sdk_tmp.join("obj")).unwrap();
            let old = SystemTime::now() - Duration::from_secs(120);
            for dir in [&run_dir, &sdk_tmp] {
                std::fs::File::open(dir).unwrap().set_modified(old).unwrap();
            }
            let quick = q7_cached(&["run", path(&b), "--fn", "spin", "--in", path(&x), "--native", "--timeout", "1"]);
            assert!(stderr(&quick).contains("1 s time limit"), "{}", stderr(&quick));
            assert!(!run_dir.exists(), "the next run removed {}", run_dir.display());
            assert!(!sdk_tmp.exists(), "the next run removed {}", sdk_tmp.display());
        }
    }
}

#[test]
fn a_fork_on_the_host_is_a_finding_and_nothing_outlives_q7() {
    let b = build_fixture_in("bounds-fork", "fork_child.cpp", "forked", "forked(Tensor x) -> Tensor", &[], &[]);
    let x = input("x-fork.npy", &[8], 33);
    // The device has no fork: the simulated run just returns its input.
    let sim = q7_cached(&["run", path(&b), "--fn", "forked", "--in", path(&x)]);
    assert!(sim.status.success(), "{}", stderr(&sim));
    let out = q7_cached(&["run", path(&b), "--fn", "forked", "--in", path(&x), "--native"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    let line = marked_line("fork_child.cpp", "NATIVE-FINDING");
    let src = common::root().join("fixtures/native/fork_child.cpp");
    let at = format!("; the device has none at {}:{line}:", src.display());
    assert!(err.contains("q7-native: process: the op tried to create a process (a "), "{err}");
    assert!(err.contains(&at), "want `{at}` in:\n{err}");
    assert!(err.contains("in forked(at::Tensor const&)"), "{err}");
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("q7: error: native run: core 0 ended with status 7 (abort or failed runtime check): the op tried to create a process"), "{err}");
    assert!(processes_of(&b.join("native-asan/q7-native")).is_empty(), "a process of the op outlived q7");
}
