//! `q7 debug`: scripted sessions (`-x`) on planted-bug ops reach the bug's
//! line and print the wrong values (golden transcripts, the same on both
//! engines), and the prompt works in a real terminal (tmux).

use std::process::Command;

use crate::common::assert_golden;
use crate::run_support::*;

fn overread_build() -> std::path::PathBuf {
    build_with(
        "debug_overread",
        &[("overread_backward", "overread_backward(Tensor grad, Tensor x) -> Tensor")],
        &["crates/q7-sim/tests/programs/ops/stray_reads.cpp"],
        false,
        &["--cflag", "-g"],
    )
}

fn q7_debug(args: &[&str], script: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("commands.txt");
    std::fs::write(&path, script).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_q7")).arg("debug").args(args).arg("-x").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// relu_backward's gradient smaller than its input: the first stray read
/// stops the run at the op's line, with the values that led there.
#[test]
fn a_stray_read_stops_at_the_ops_line_both_ways_on_both_engines() {
    let image = overread_build();
    let dir = tempfile::tempdir().unwrap();
    let grad = write_f32(dir.path(), "grad.npy", &[1.0; 6]);
    let x: Vec<f32> = (0..20).map(|i| (i % 3) as f32).collect();
    let x = write_f32(dir.path(), "x.npy", &x);
    let script = "\
info tensors
break overread_backward
continue
delete 1
continue
backtrace
print x[7]
print grad[5]
print dst[7]
next
print dst[7]
reverse-next
print dst[7]
reverse-stepi
stepi
watch dst[4]
reverse-continue
continue
info breakpoints
delete
continue
";
    let (image, grad, x) = (image.to_str().unwrap(), grad.to_str().unwrap(), x.to_str().unwrap());
    let args = [image, "--fn", "overread_backward", "--in", grad, "--in", x, "--dst-shape", "20", "--break-on-finding"];
    let jit = q7_debug(&[&args[..], &["--engine", "jit"]].concat(), script);
    let interp = q7_debug(&[&args[..], &["--engine", "interp"]].concat(), script);
    assert_eq!(jit, interp, "both engines tell the same session");
    let line = std::fs::read_to_string(root().join("crates/q7-sim/tests/programs/ops/stray_reads.cpp"))
        .unwrap()
        .lines()
        .position(|l| l.contains("reads past grad's end"))
        .unwrap()
        + 1;
    assert!(jit.contains(&format!("at stray_reads.cpp:{line}")), "{jit}");
    assert!(jit.contains("element 7 of grad (6 elements at"), "{jit}");
    assert_golden("debug_overread.txt", &jit);
}

/// A multicore op whose core 5 stores past the destination: every core
/// stops together at the finding, on core 5.
#[test]
fn a_stray_store_on_one_core_stops_all_eight() {
    let image = build(
        "oob_op",
        &[("oob_forward", "oob_forward(Tensor _0, int _1, int _2) -> Tensor")],
        &["crates/q7-sim/tests/programs/ops/oob_store.cpp"],
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(64, 3));
    let script = "\
break oob_forward
continue
info cores
delete 1
continue
info cores
backtrace
up
frame op
reverse-continue
continue
";
    let (image, x) = (image.to_str().unwrap(), x.to_str().unwrap());
    let session =
        q7_debug(&[image, "--fn", "oob_forward", "--in", x, "--arg", "5", "--arg", "2", "--break-on-finding"], script);
    assert!(session.contains("Breakpoint 1, core 0 at oob_forward"), "{session}");
    assert!(session.contains("Finding: core 5 pc"), "{session}");
    // `frame op` comes back from the wrapper to the op's own frame.
    assert!(session.contains("(q7) frame op\n#0 oob_forward("), "{session}");
    assert_golden("debug_oob_store.txt", &session);
}

/// The prompt in a real terminal: typed commands, their answers, quit.
#[test]
fn the_prompt_answers_in_a_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        panic!("tmux is missing: scripts/bootstrap.sh installs it");
    }
    let image = overread_build();
    let dir = tempfile::tempdir().unwrap();
    let grad = write_f32(dir.path(), "grad.npy", &[1.0; 6]);
    let x = write_f32(dir.path(), "x.npy", &[1.0; 20]);
    let socket = dir.path().join("tmux.sock");
    let tmux = |args: &[&str]| Command::new("tmux").arg("-S").arg(&socket).args(args).output().expect("tmux runs");
    let command = format!(
        "{} debug {} --fn overread_backward --in {} --in {} --dst-shape 20; sleep 30",
        env!("CARGO_BIN_EXE_q7"),
        overread_build().display(),
        grad.display(),
        x.display()
    );
    let _ = image;
    assert!(tmux(&["new-session", "-d", "-x", "160", "-y", "40", &command]).status.success());
    let screen = |want: &str| -> String {
        for _ in 0..200 {
            let shown = text(&tmux(&["capture-pane", "-p"]).stdout);
            if shown.contains(want) {
                return shown;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let shown = text(&tmux(&["capture-pane", "-p"]).stdout);
        tmux(&["kill-server"]);
        panic!("no `{want}` on the screen:\n{shown}");
    };
    screen("(q7)");
    tmux(&["send-keys", "break overread_backward", "Enter"]);
    screen("Breakpoint 1 at");
    // Completion: `cont` + Tab completes to `continue`.
    tmux(&["send-keys", "cont", "Tab", "Enter"]);
    screen("Breakpoint 1, core 0 at overread_backward");
    tmux(&["send-keys", "bt", "Enter"]);
    let shown = screen("overread_backward_wrapper()");
    assert!(shown.contains("#0 overread_backward"), "{shown}");
    tmux(&["send-keys", "quit", "Enter"]);
    tmux(&["kill-server"]);
}

/// `q7 run --debug-on-finding`: a run with findings opens the debugger at
/// the first (commands from stdin here), then fails as the run would.
#[test]
fn a_run_with_findings_opens_the_debugger_at_the_first() {
    use std::io::Write;
    let image = overread_build();
    let dir = tempfile::tempdir().unwrap();
    let grad = write_f32(dir.path(), "grad.npy", &[1.0; 6]);
    let x = write_f32(dir.path(), "x.npy", &[1.0; 20]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_q7"))
        .args(["run", image.to_str().unwrap(), "--fn", "overread_backward", "--dst-shape", "20", "--debug-on-finding"])
        .args(["--in", grad.to_str().unwrap(), "--in", x.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"print x[6]\nprint grad[5]\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stdout.contains("Finding: core 0 pc") && stdout.contains("element 6 of grad"), "{stdout}");
    assert!(stdout.contains("#0 overread_backward") && stdout.contains("x[6] = 1.0\ngrad[5] = 1.0"), "{stdout}");
    assert!(stderr.contains("14 stray loads"), "{stderr}");
}

fn bugs_build(multicore: bool) -> std::path::PathBuf {
    let name = if multicore { "debug_bugs8" } else { "debug_bugs" };
    build_with(
        name,
        &[
            ("stride_forward", "stride_forward(Tensor x) -> Tensor"),
            ("overlap_forward", "overlap_forward(Tensor x) -> Tensor"),
            ("uninit_forward", "uninit_forward(Tensor x) -> Tensor"),
            ("dtype_forward", "dtype_forward(Tensor x) -> Tensor"),
        ],
        &["crates/q7-sim/tests/programs/ops/debug_bugs.cpp"],
        multicore,
        &["--cflag", "-g", "--cflag", "-O0"],
    )
}

/// A stride error: watching one output element stops at the store that
/// wrote it, at the op's line, and the input shows where its value came
/// from (x[1][0], not x[1][4]).
#[test]
fn a_stride_error_shows_in_the_value_a_watchpoint_stops_at() {
    let image = bugs_build(false);
    let dir = tempfile::tempdir().unwrap();
    let x: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let x = write_npy_f32(dir.path(), "x.npy", &[4, 8], &x);
    let script = "\
watch dst[1][4]
continue
print x[1][4]
print x[1][0]
backtrace
";
    let session = q7_debug(&[image.to_str().unwrap(), "--fn", "stride_forward", "--in", x.to_str().unwrap()], script);
    assert!(session.contains("Watchpoint 1 dst[1][4]: 0.0 -> 16.0"), "{session}");
    assert!(session.contains("x[1][0] = 8.0") && session.contains("x[1][4] = 12.0"), "{session}");
    assert!(
        session.contains(&format!("debug_bugs.cpp:{}", source_line("debug_bugs.cpp", "stride: rows"))),
        "{session}"
    );
    assert_golden("debug_stride.txt", &session);
}

/// Eight cores each writing one element too many: the race stops every
/// core at the second store, on the core that made it.
#[test]
fn an_off_by_one_across_cores_stops_at_the_racing_store() {
    let image = bugs_build(true);
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(64, 5));
    let script = "\
continue
info cores
print dst[8]
backtrace
";
    let session = q7_debug(
        &[image.to_str().unwrap(), "--fn", "overlap_forward", "--in", x.to_str().unwrap(), "--break-on-finding"],
        script,
    );
    assert!(session.contains("Finding: core"), "{session}");
    assert!(session.contains(&format!("debug_bugs.cpp:{}", source_line("debug_bugs.cpp", "off by one"))), "{session}");
    assert_golden("debug_overlap.txt", &session);
}

fn source_line(file: &str, marker: &str) -> usize {
    let text = std::fs::read_to_string(root().join("crates/q7-sim/tests/programs/ops").join(file)).unwrap();
    text.lines().position(|l| l.contains(marker)).unwrap() + 1
}

/// A bare program (as `q7 run-bare` runs it): breakpoints by symbol, the
/// stack, a step out of a function without line information, and back.
#[test]
fn a_bare_program_debugs_by_its_symbols() {
    let dir = tempfile::tempdir().unwrap();
    let elf = crate::run_bare::build(dir.path(), "de212", "calls.c");
    let script = "\
break fib
continue
backtrace
finish
reverse-finish
info cores
delete
continue
";
    let session = q7_debug(&["--bare", elf.to_str().unwrap(), "--board", "de212"], script);
    assert!(session.contains("Breakpoint 1, core 0 at fib+0x3"), "{session}");
    assert!(session.contains("#1 main+"), "{session}");
    assert!(session.contains("fib27=196418"), "the console output: {session}");
    assert!(session.contains("The run ended (Exited)"), "{session}");
}

/// An accumulator never initialised: a conditional breakpoint on its line
/// shows the garbage it started from, and the frame's locals.
#[test]
fn an_uninitialised_local_shows_its_garbage_at_its_line() {
    let image = bugs_build(false);
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &[1.0; 16]);
    let line = source_line("debug_bugs.cpp", "uninitialised: sum");
    let script = format!(
        "break debug_bugs.cpp:{line} if i == 0\ncontinue\ninfo args\ninfo locals\nprint sum - in[0]\nup\nbacktrace\nframe 1\ninfo locals\n"
    );
    let session = q7_debug(&[image.to_str().unwrap(), "--fn", "uninit_forward", "--in", x.to_str().unwrap()], &script);
    assert!(session.contains("Breakpoint 1, core 0 at running_sum"), "{session}");
    assert!(session.contains("sum - in[0] = 1004"), "the garbage is scratch()'s pad[4]: {session}");
    assert_golden("debug_uninit.txt", &session);
}

/// A float tensor through an int32 accessor (SDK checks off, as on
/// hardware): the local holds the float's bits.
#[test]
fn a_wrong_accessor_dtype_shows_the_bits_it_read() {
    let image = bugs_build(false);
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &[0.5, 1.0, 2.0, 4.0]);
    let line = source_line("debug_bugs.cpp", "wrong dtype");
    let script =
        format!("break debug_bugs.cpp:{line} if i == 1\ncontinue\nprint v\nprint x[1]\nprint v == 0x3f800000\n");
    let args = [image.to_str().unwrap(), "--fn", "dtype_forward", "--in", x.to_str().unwrap(), "--no-sdk-checks"];
    let session = q7_debug(&args, &script);
    assert!(session.contains("v = 1065353216") && session.contains("x[1] = 1.0"), "{session}");
    assert!(session.contains("v == 0x3f800000 = true"), "{session}");
    assert_golden("debug_dtype.txt", &session);
}

/// `watch -r`: the load of one input element stops the run after it (both
/// engines), names the load's line, and runs backwards to before it.
#[test]
fn a_read_watchpoint_stops_at_the_load_both_ways() {
    let image = overread_build();
    let dir = tempfile::tempdir().unwrap();
    let grad = write_f32(dir.path(), "grad.npy", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let x = write_f32(dir.path(), "x.npy", &[1.0; 20]);
    let script = "watch -r grad[4]\ncontinue\ncontinue\nreverse-continue\nstepi\n";
    let (image, grad, x) = (image.to_str().unwrap(), grad.to_str().unwrap(), x.to_str().unwrap());
    let args = [image, "--fn", "overread_backward", "--in", grad, "--in", x, "--dst-shape", "20"];
    let jit = q7_debug(&[&args[..], &["--engine", "jit"]].concat(), script);
    let interp = q7_debug(&[&args[..], &["--engine", "interp"]].concat(), script);
    assert_eq!(jit, interp);
    let line = source_line_of("crates/q7-sim/tests/programs/ops/stray_reads.cpp", "reads past grad's end");
    assert!(jit.contains("Read watchpoint 1 grad[4]: 5.0\n  loaded by core 0 at "), "{jit}");
    assert!(jit.contains(&format!("stray_reads.cpp:{line}")), "{jit}");
    // Backwards it lands before the load: one stepi loads again.
    assert_eq!(jit.matches("Read watchpoint 1 grad[4]: 5.0").count(), 3, "{jit}");
    assert!(jit.contains("The run ended (Exited)"), "read once, then the end: {jit}");
}

fn source_line_of(path: &str, marker: &str) -> usize {
    std::fs::read_to_string(root().join(path)).unwrap().lines().position(|l| l.contains(marker)).unwrap() + 1
}

/// `origin`: an output element's value goes back through the store and the
/// load to the input element it came from; one nobody changed says so.
#[test]
fn origin_follows_a_value_back_to_the_input() {
    let image = overread_build();
    let dir = tempfile::tempdir().unwrap();
    let grad = write_f32(dir.path(), "grad.npy", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let x: Vec<f32> = (0..20).map(|i| (i % 3) as f32).collect();
    let x = write_f32(dir.path(), "x.npy", &x);
    let (image, grad, x) = (image.to_str().unwrap(), grad.to_str().unwrap(), x.to_str().unwrap());
    let session = q7_debug(
        &[image, "--fn", "overread_backward", "--in", grad, "--in", x, "--dst-shape", "20"],
        "continue\norigin dst[4]\norigin dst[3]\ninfo time\n",
    );
    let line = source_line_of("crates/q7-sim/tests/programs/ops/stray_reads.cpp", "reads past grad's end");
    let chain: Vec<&str> = session.lines().skip_while(|l| !l.starts_with("dst[4] = 5.0")).take(4).collect();
    assert!(chain.len() == 4, "{session}");
    assert!(
        chain[1].contains("stored by core 0 at") && chain[1].ends_with(&format!("stray_reads.cpp:{line}")),
        "{session}"
    );
    assert!(chain[2].contains("loaded by core 0 at") && chain[2].contains("from grad[4] (0x"), "{session}");
    assert!(chain[3].ends_with("grad[4] (0xc0000010): an input, as the host wrote it"), "{session}");
    // x[3] is 0: relu's zero went into dst[3], which already held zero.
    assert!(session.contains("dst[3] = 0.0\n  dst[3] (0x"), "{session}");
    assert!(session.contains("as it was at the start (no core changed it)"), "{session}");
    // Back where it was asked: the run's end.
    assert!(session.contains("steps over all cores"), "{session}");
}

/// A planted race: core 2 also writes an element of core 6's partition. The
/// session stops at the second store; one step back shows the first.
#[test]
fn a_race_stops_at_the_second_writer() {
    let image = build(
        "race_op",
        &[("race_forward", "race_forward(Tensor _0, int _1, int _2) -> Tensor")],
        &["crates/q7-sim/tests/programs/ops/race.cpp"],
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(64, 9));
    let script = "continue\nprint dst[50]\nprint x[50]\nreverse-stepi\nprint dst[50]\ncontinue\n";
    let args =
        [image.to_str().unwrap(), "--fn", "race_forward", "--in", x.to_str().unwrap(), "--int", "2", "--int", "50"];
    let session = q7_debug(&[&args[..], &["--break-on-finding"]].concat(), script);
    assert!(session.contains("races with core"), "{session}");
    // Core 6's store (x + 1) won; one step back, core 2's -1 was there.
    assert!(session.contains("dst[50] = 99.03671\n(q7) print x[50]\nx[50] = 98.03671"), "{session}");
    assert!(session.contains("(q7) reverse-stepi\ncore 6 at"), "{session}");
    assert!(session.contains("dst[50] = -1.0"), "core 2's -1 in core 6's element: {session}");
    assert_golden("debug_race.txt", &session);
}

/// Eight cores each waiting on a flag no core sets: `continue` ends in the
/// deadlock, where `info cores` says each core waits and Ctrl-C is not needed.
#[test]
fn cores_that_wait_on_memory_are_shown_waiting() {
    let image = build_with(
        "wait_forever",
        &[("wait_forever", "wait_forever(Tensor x) -> Tensor")],
        &["crates/q7-sim/tests/programs/ops/wait_forever.cpp"],
        true,
        &[],
    );
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &[1.0; 8]);
    let session = q7_debug(
        &[image.to_str().unwrap(), "--fn", "wait_forever", "--in", x.to_str().unwrap()],
        "continue\ninfo cores\n",
    );
    assert!(session.contains("The run ended (Deadlock)"), "{session}");
    let waiting = (session.lines())
        .filter(|l| l.contains("core") && l.contains(": waiting (spins on memory another core must change) at "))
        .count();
    assert_eq!(waiting, 8, "{session}");
}

/// A failed SDK check (core 7's TCM copy past a 1001-element tensor) stops
/// the session on that core, its stack down through the check to the op.
#[test]
fn a_failed_sdk_check_stops_on_its_core() {
    let image = build(
        "debug_relu8",
        &[("relu_forward", "relu_forward(Tensor _0) -> Tensor")],
        &["sdk/tests/ops/relu_multicore.cpp"],
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(1001, 4));
    let session = q7_debug(
        &[image.to_str().unwrap(), "--fn", "relu_forward", "--in", x.to_str().unwrap(), "--break-on-finding"],
        "continue\nbacktrace\ncontinue\n",
    );
    assert!(session.contains("core 7 exited with status 7 (abort or failed runtime check)"), "{session}");
    assert!(session.contains("[core 7] q7: tensor_to_tcm: elements [882, 1008) outside a tensor of 1001 elements"));
    assert!(session.contains(" q7_fail+") && session.contains(" relu_forward(at::Tensor const&)+"), "{session}");
    assert!(session.contains("The run ended (Exited)"), "{session}");
}
