//! What q7 owes a user when something goes wrong (issue: trust): Ctrl-C
//! stops a simulated run at once and is reported, a machine whose cores all
//! wait on memory no core writes stops as a deadlock naming every core, and
//! a failed run does not replace `--out`.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::run_checks::misc_build;
use crate::run_support::*;

fn input_file(dir: &Path) -> String {
    write_f32(dir, "x.npy", &input(64, 3)).to_str().unwrap().to_string()
}

/// Waits up to `limit` for `child` to end; kills it (and fails) if it does not.
fn wait_within(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("still running {limit:?} after the signal");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

/// Starts `q7 ARGS` on an op that never ends, lets it run, sends SIGINT and
/// returns (exit status, stderr, seconds from the signal to the exit); its
/// stdout goes to `stdout`.
fn interrupted(args: &[&str], stdout: &Path) -> (std::process::ExitStatus, String, f64) {
    let stdout = std::fs::File::create(stdout).unwrap();
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_q7")).args(args).stdout(stdout).stderr(Stdio::piped()).spawn().unwrap();
    // Long enough for the op to be loaded and running.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "ended before the signal");
    let sent = Instant::now();
    signal(&child, "INT");
    // The run stops within 100 ms; the bound leaves room for a machine
    // loaded several times over (a whole suite on two cores took 5 s once).
    let status = wait_within(&mut child, Duration::from_secs(20));
    let seconds = sent.elapsed().as_secs_f64();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (status, err, seconds)
}

#[test]
fn ctrl_c_stops_run_and_profile_and_is_reported() {
    let b = misc_build();
    let dir = tempfile::tempdir().unwrap();
    let x = input_file(dir.path());
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (out, svg, folded, stdout) = (file("y.npy"), file("f.svg"), file("f.folded"), file("stdout"));
    std::fs::write(&folded, b"the user's file").unwrap();
    let image = b.to_str().unwrap();
    // Every report output asked for, even --out-on-failure's: an interrupted
    // run writes none (`q7 profile --svg` wrote the partial flame graph).
    let outputs = ["--out", &out, "--out-on-failure"];
    for command in ["run", "profile"] {
        let mut args = vec![command, image, "--fn", "spin_forward", "--in", &x];
        args.extend(outputs);
        match command {
            "run" => args.push("--json"),
            _ => args.extend(["--svg", &svg, "--folded", &folded]),
        }
        let (status, err, seconds) = interrupted(&args, Path::new(&stdout));
        assert_eq!(status.code(), Some(130), "q7 {command}: {err}");
        assert!(err.contains("q7: error: interrupted after "), "q7 {command}: {err}");
        assert!(err.contains("core 0 at pc 0x") && err.contains("spin_forward"), "q7 {command}: {err}");
        assert_eq!(std::fs::read_to_string(&stdout).unwrap(), "", "q7 {command} printed a report");
        eprintln!("q7 {command}: stopped {seconds:.3} s after SIGINT");
    }
    assert!(!Path::new(&out).exists(), "an interrupted run wrote --out");
    assert!(!Path::new(&svg).exists(), "an interrupted profile wrote --svg");
    assert_eq!(std::fs::read(&folded).unwrap(), b"the user's file", "an interrupted profile wrote --folded");
}

#[test]
fn cores_waiting_on_memory_no_core_writes_stop_as_a_deadlock() {
    let b = build(
        "wait_forever",
        &[("wait_forever", "wait_forever(Tensor x) -> Tensor")],
        &["crates/q7-sim/tests/programs/ops/wait_forever.cpp"],
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let x = input_file(dir.path());
    for engine in ["jit", "interp"] {
        let out = q7_run(&[b.to_str().unwrap(), "--fn", "wait_forever", "--in", &x, "--engine", engine]);
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr);
        assert!(err.contains("deadlock: every running core waits forever on memory no core will write"), "{err}");
        for core in 0..8 {
            assert!(err.contains(&format!("core {core} at pc 0x")), "{engine}: core {core} not named: {err}");
        }
        // Each core spins inside the SDK's get_cpu_id; the report goes up the
        // call stack to the op's own function.
        assert_eq!(err.matches("called from wait_forever(at::Tensor const&)+0x").count(), 8, "{err}");
    }
}

#[test]
fn a_failed_run_leaves_out_alone_unless_asked() {
    let b = misc_build();
    let dir = tempfile::tempdir().unwrap();
    let x = input_file(dir.path());
    let out = dir.path().join("y.npy");
    std::fs::write(&out, b"the user's file").unwrap();
    // peek_forward reads output nobody wrote: a finding, so the run fails.
    let image = b.to_str().unwrap();
    let args = [image, "--fn", "peek_forward", "--in", &x, "--out", out.to_str().unwrap()];
    let run = q7_run(&args);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains("--out was not written"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"the user's file");
    let mut forced = args.to_vec();
    forced.push("--out-on-failure");
    let run = q7_run(&forced);
    assert_eq!(run.status.code(), Some(1));
    assert!(std::fs::read(&out).unwrap().starts_with(b"\x93NUMPY"));
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

#[test]
fn out_writes_through_devices_and_links_and_keeps_the_mode() {
    let b = build_once(&root().join("examples/relu"), "trust-tests", "relu", &[]);
    let dir = tempfile::tempdir().unwrap();
    let x = input_file(dir.path());
    let run =
        |out: &Path| q7_run(&[b.to_str().unwrap(), "--fn", "relu_forward", "--in", &x, "--out", out.to_str().unwrap()]);
    // A character device (the issue's `mknod F c 1 3`, a second /dev/null)
    // is written through and stays a device; as non-root, /dev/null itself
    // would be the only one to hand, and is left alone.
    if is_root() {
        let device = dir.path().join("null-device");
        assert!(Command::new("mknod").args(["-m666"]).arg(&device).args(["c", "1", "3"]).status().unwrap().success());
        let out = run(&device);
        assert!(out.status.success(), "{}", text(&out.stderr));
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&device).unwrap().file_type().is_char_device());
    } else {
        eprintln!("not root: the mknod case is skipped");
    }
    // A link is followed; the link stays; the replaced file keeps its mode.
    let target = dir.path().join("target.npy");
    std::fs::write(&target, b"old").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.path().join("link.npy");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = run(&link);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::read(&target).unwrap().starts_with(b"\x93NUMPY"));
    assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
    // A directory is refused with one line naming it.
    let out = run(dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("cannot write") && err.contains("a directory"), "{err}");
}

fn q7_build_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_q7"))
        .current_dir(dir)
        .env("Q7_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"))
        .args(["build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward"])
        .args(["--schema", "relu_forward(Tensor _0) -> Tensor"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_build_never_overwrites_its_own_sources() {
    // The vendor's build.py builds into the source directory; a source named
    // like a generated file is refused, not overwritten.
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read(root().join("examples/relu/relu.cpp")).unwrap();
    for name in ["wrapper.cpp", "librelu.so"] {
        std::fs::write(dir.path().join(name), &source).unwrap();
        let out = q7_build_in(dir.path(), &[name, "--build-dir", "."]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = text(&out.stderr);
        assert!(err.contains(&format!("q7: error: {name}: the build would overwrite this source")), "{err}");
        assert_eq!(std::fs::read(dir.path().join(name)).unwrap(), source, "{name} was changed");
        std::fs::remove_file(dir.path().join(name)).unwrap();
    }
}

#[test]
fn source_names_never_become_options_or_response_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("examples/relu/relu.cpp"), dir.path().join("-relu.cpp")).unwrap();
    // `@b.cpp` would make clang apply the options written in `b.cpp`.
    std::fs::write(dir.path().join("@b.cpp"), "int helper(int x) { return x + 1; }\n").unwrap();
    std::fs::write(dir.path().join("b.cpp"), "-include /nonexistent/planted.h\n").unwrap();
    let out = q7_build_in(dir.path(), &["--build-dir", "out", "--", "-relu.cpp"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = q7_build_in(dir.path(), &["--build-dir", "out", "--", "-relu.cpp", "@b.cpp"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("@b.cpp: a source whose name starts with `@` is read by clang as a response file"), "{err}");
    assert!(!err.contains("planted.h"), "{err}");
}

#[test]
fn a_link_planted_in_the_build_directory_redirects_no_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("examples/relu/relu.cpp"), dir.path().join("relu.cpp")).unwrap();
    let build = dir.path().join("b");
    std::fs::create_dir(&build).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&build, std::fs::Permissions::from_mode(0o700)).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"the user's").unwrap();
    for generated in ["relu.q7.s", "wrapper.cpp", "librelu.packed.so", "q7-native.json", "relu.o.q7cmd"] {
        std::os::unix::fs::symlink(&victim, build.join(generated)).unwrap();
    }
    let out = q7_build_in(dir.path(), &["--build-dir", "b", "--", "relu.cpp"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&victim).unwrap(), b"the user's");
}

#[test]
fn a_dangling_link_as_an_output_directory_is_named_as_one() {
    // Said "File exists" (files under it) or "No such file or directory" (a build directory).
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("made-by-q7", dir.path().join("out")).unwrap();
    let lsp =
        Command::new(env!("CARGO_BIN_EXE_q7")).current_dir(dir.path()).args(["lsp", "-o", "out"]).output().unwrap();
    assert_eq!(lsp.status.code(), Some(1));
    let err = text(&lsp.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.ends_with(": cannot write: out is a dangling symbolic link (to made-by-q7)\n"), "{err}");
    std::fs::copy(root().join("examples/relu/relu.cpp"), dir.path().join("relu.cpp")).unwrap();
    let build = q7_build_in(dir.path(), &["--build-dir", "out", "--", "relu.cpp"]);
    assert_eq!(build.status.code(), Some(1));
    assert_eq!(
        text(&build.stderr),
        "q7: error: out: build directory is a dangling symbolic link (to made-by-q7); make the directory it names, or use another\n"
    );
    assert!(!dir.path().join("made-by-q7").exists());
}
