//! `q7 run`'s checks and limits: a seeded out-of-bounds store and a seeded
//! cross-core overlap are reported with the right core and element, reads of
//! never-written output are flagged, runaway ops stop at the instruction or
//! wall-clock limit, and malformed inputs end with one-line errors.

use crate::run_support;

use run_support::*;

fn oob_build() -> std::path::PathBuf {
    build(
        "oob_op",
        &[("oob_forward", "oob_forward(Tensor _0, int _1, int _2) -> Tensor")],
        &["crates/q7-sim/tests/programs/ops/oob_store.cpp"],
        true,
    )
}

/// The misc test ops (an endless loop, a read of unwritten output, printing).
pub(crate) fn misc_build() -> std::path::PathBuf {
    build(
        "misc_checks",
        &[
            ("spin_forward", "spin_forward(Tensor _0) -> Tensor"),
            ("peek_forward", "peek_forward(Tensor _0) -> Tensor"),
            ("scale_forward", "scale_forward(Tensor _0, Scalar _1, float _2, int _3) -> Tensor"),
        ],
        &["crates/q7-sim/tests/programs/ops/misc.cpp"],
        false,
    )
}

fn with_input(n: usize) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = write_f32(dir.path(), "x.npy", &input(n, 11));
    let path = path.to_str().unwrap().to_string();
    (dir, path)
}

#[test]
fn out_of_bounds_store_names_core_and_element() {
    let b = oob_build();
    let (_dir, x) = with_input(1000);
    for (core, past) in [("5", "3"), ("0", "0")] {
        let out = q7_run(&[b.to_str().unwrap(), "--fn", "oob_forward", "--in", &x, "--int", core, "--int", past]);
        assert!(!out.status.success());
        let err = text(&out.stderr);
        let index = 1000 + past.parse::<usize>().unwrap();
        let expected = format!("element {index} of dst (1000 elements at ");
        let line = err.lines().find(|l| l.contains("outside every live tensor")).unwrap_or_else(|| panic!("{err}"));
        assert!(line.starts_with(&format!("q7 run: check: core {core} pc 0x")), "{line}");
        assert!(line.contains(&expected) && line.contains(&format!("{past} past the end")), "{line}");
        assert!(err.contains("checks failed: 1 stray stores, 0 racing stores"), "{err}");
    }
    // A negative index too: core 7 writes 2 elements before the tensor.
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "oob_forward", "--in", &x, "--int", "7", "--int=-1002"]);
    let err = text(&out.stderr);
    assert!(
        err.contains("core 7 pc") && err.contains("element -2 of dst") && err.contains("8 bytes before its start"),
        "{err}"
    );
}

#[test]
fn checks_can_be_turned_off() {
    let b = oob_build();
    let (_dir, x) = with_input(64);
    let out =
        q7_run(&[b.to_str().unwrap(), "--fn", "oob_forward", "--in", &x, "--int", "2", "--int", "1", "--no-checks"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn cross_core_overlap_is_a_race() {
    let b = build(
        "race_op",
        &[("race_forward", "race_forward(Tensor _0, int _1, int _2) -> Tensor")],
        &["crates/q7-sim/tests/programs/ops/race.cpp"],
        true,
    );
    let (_dir, x) = with_input(800);
    // Core 2 also writes element 650, which is core 6's (100 per core).
    for seed in ["0", "99"] {
        let out = q7_run(&[
            b.to_str().unwrap(),
            "--fn",
            "race_forward",
            "--in",
            &x,
            "--int",
            "2",
            "--int",
            "650",
            "--seed",
            seed,
        ]);
        assert!(!out.status.success());
        let err = text(&out.stderr);
        let line = err.lines().find(|l| l.contains("races with")).unwrap_or_else(|| panic!("{err}"));
        assert!(line.contains("element 650 of dst (800 elements"), "{line}");
        let pair = (line.contains("core 2 pc") && line.contains("races with core 6"))
            || (line.contains("core 6 pc") && line.contains("races with core 2"));
        assert!(pair, "{line}");
        assert!(err.contains("0 stray stores, 1 racing stores"), "{err}");
    }
}

#[test]
fn reading_unwritten_output_is_flagged() {
    let b = misc_build();
    let (_dir, x) = with_input(16);
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "peek_forward", "--in", &x]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("core 0 pc 0x")
            && err.contains("element 0 of dst (16 elements")
            && err.contains("nothing has written yet"),
        "{err}"
    );
}

#[test]
fn runaway_ops_stop_at_the_limits() {
    let b = misc_build();
    let (_dir, x) = with_input(16);
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "spin_forward", "--in", &x, "--max-insns", "3000000"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("q7: error: instruction budget of 3000000 exhausted (core 0 at pc 0x"), "{err}");
    let started = std::time::Instant::now();
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "spin_forward", "--in", &x, "--timeout", "1"]);
    assert!(started.elapsed().as_secs() < 20);
    let err = text(&out.stderr);
    assert!(err.starts_with("q7: error: wall-clock limit of 1.0 s reached after "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn malformed_inputs_give_one_line_errors() {
    let b = misc_build();
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(16, 1));
    let x = x.to_str().unwrap();
    let so = std::fs::read(b.join("misc_checks.so")).unwrap();
    let packed = std::fs::read(b.join("misc_checks.packed.so")).unwrap();
    let ucpl_path = dir.path().join("good.ucpl");
    let prelink = std::process::Command::new(env!("CARGO_BIN_EXE_q7"))
        .args(["prelink", "--single", "-o"])
        .arg(&ucpl_path)
        .arg(b.join("misc_checks.packed.so"))
        .output()
        .unwrap();
    assert!(prelink.status.success());
    let ucpl = std::fs::read(&ucpl_path).unwrap();
    let mut bad_crc = ucpl.clone();
    bad_crc[100] ^= 0x55;
    let mut wrong_machine = so.clone();
    wrong_machine[18] = 3; // EM_386
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("junk.so", b"not an image at all".to_vec(), "not an ELF file"),
        ("short.so", so[..200].to_vec(), "program header"),
        ("machine.so", wrong_machine, "machine"),
        ("truncated.packed.so", packed[..packed.len() / 2].to_vec(), "misc"),
        ("truncated.ucpl", ucpl[..1000].to_vec(), "UCPL image"),
        ("crc.ucpl", bad_crc, "crc-32"),
        ("header.ucpl", ucpl[..20].to_vec(), "UCPL image"),
    ];
    for (name, bytes, needle) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let out = q7_run(&[path.to_str().unwrap(), "--fn", "scale_forward", "--in", x]);
        assert!(!out.status.success(), "{name}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.starts_with(&format!("q7: error: {}", path.display())), "{name}: {err}");
        if needle != "misc" {
            assert!(err.to_lowercase().contains(&needle.to_lowercase()), "{name}: {err}");
        }
    }
    // A missing function and a bad .npy.
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "nope", "--in", x]);
    let err = text(&out.stderr);
    assert!(err.contains("no function `nope`") && err.contains("spin_forward, peek_forward, scale_forward"), "{err}");
    let junk = dir.path().join("junk.npy");
    std::fs::write(&junk, b"\x93NUMPY\x01\x00\x10\x00{'descr': '<c8'}").unwrap();
    let out = q7_run(&[b.to_str().unwrap(), "--fn", "scale_forward", "--in", junk.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("junk.npy"), "{err}");
}

/// Findings made inside hot loops, which the JIT compiles (its inline
/// shadow tests then decide what the checker would): both engines report
/// the same findings in the same order, and every racing, stray and
/// unwritten access is counted.
#[test]
fn findings_in_compiled_loops_match_the_interpreter() {
    let b = build(
        "overlap_op",
        &[("overlap_forward", "overlap_forward(Tensor _0, int _1, int _2) -> Tensor")],
        &["crates/q7-sim/tests/programs/ops/overlap.cpp"],
        true,
    );
    // 8 cores, 1000 elements each; 600 overlap the next core's, 300 past the end.
    let (_dir, x) = with_input(8000);
    let reports: Vec<String> = ["interp", "jit"]
        .iter()
        .map(|engine| {
            let image = b.to_str().unwrap();
            let args =
                [image, "--fn", "overlap_forward", "--in", &x, "--int", "600", "--int", "300", "--engine", engine];
            let out = q7_run(&args);
            assert!(!out.status.success(), "--engine {engine}");
            text(&out.stderr)
        })
        .collect();
    let err = &reports[0];
    assert!(err.contains("checks failed: 300 stray stores, 4200 racing stores"), "{err}");
    // 4800 reads before the write loop, and most of the write loop's reads ahead.
    let unwritten = err.split("racing stores, ").nth(1).and_then(|rest| rest.split(' ').next()).unwrap_or("");
    assert!(unwritten.parse::<u32>().is_ok_and(|n| n > 4800 + 4000), "{err}");
    assert_eq!(reports[0], reports[1], "the engines' findings");
}

#[test]
fn findings_carry_their_call_stack_down_to_the_ops_line() {
    let functions = [("oob_forward", "oob_forward(Tensor _0, int _1, int _2) -> Tensor")];
    let image = build_with(
        "oob_debug",
        &functions,
        &["crates/q7-sim/tests/programs/ops/oob_store.cpp"],
        true,
        &["--cflag", "-g"],
    );
    let source = root().join("crates/q7-sim/tests/programs/ops/oob_store.cpp");
    let line = std::fs::read_to_string(&source).unwrap().lines().position(|l| l.contains("// the bug")).unwrap() + 1;
    let dir = tempfile::tempdir().unwrap();
    let x = write_f32(dir.path(), "x.npy", &input(1000, 11));
    for engine in ["jit", "interp"] {
        let args = [image.to_str().unwrap(), "--fn", "oob_forward", "--in", x.to_str().unwrap()];
        let out = q7_run(&[&args[..], &["--int", "5", "--int", "3", "--engine", engine, "--json"]].concat());
        assert_eq!(out.status.code(), Some(1));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let finding = &report["findings"][0];
        assert_eq!(finding["core"], 5, "{finding}");
        let top = &finding["stack"][0];
        assert_eq!(top["pc"], finding["pc"], "{finding}");
        assert_eq!(top["source"][0].as_str().unwrap().rsplit('/').next(), Some("oob_store.cpp"), "{finding}");
        assert_eq!(top["source"][1], line, "{finding}");
        // Down to the start-up code, through the generated wrapper.
        let frames: Vec<&str> =
            finding["stack"].as_array().unwrap().iter().map(|f| f["function"][0].as_str().unwrap()).collect();
        assert!(frames.first().unwrap().starts_with("oob_forward(") && frames.last() == Some(&"_start"), "{frames:?}");
    }
}

/// Line of `source` (under the repository) holding `marker`, 1-based.
fn line_of(source: &str, marker: &str) -> usize {
    let text = std::fs::read_to_string(root().join(source)).unwrap();
    text.lines().position(|l| l.contains(marker)).unwrap_or_else(|| panic!("{marker} in {source}")) + 1
}

/// The planted bugs, one per kind (issue #28): each is a finding that names
/// the op's line, on both engines, and `--no-checks` silences it.
#[test]
fn planted_bugs_one_per_kind_are_findings_at_the_ops_line() {
    let source = "crates/q7-sim/tests/programs/ops/stray_reads.cpp";
    let functions = [
        ("overread_backward", "overread_backward(Tensor grad, Tensor x) -> Tensor"),
        ("freed_tcm_forward", "freed_tcm_forward(Tensor x) -> Tensor"),
        ("uninit_tcm_forward", "uninit_tcm_forward(Tensor x) -> Tensor"),
        ("uninit_stack_forward", "uninit_stack_forward(Tensor x) -> Tensor"),
        ("deep_calls_forward", "deep_calls_forward(Tensor x) -> Tensor"),
        ("copy_past_end_forward", "copy_past_end_forward(Tensor x) -> Tensor"),
    ];
    let b = build_with("stray_reads", &functions, &[source], false, &["--cflag", "-g"]);
    let dir = tempfile::tempdir().unwrap();
    // All positive, so every element reads the gradient.
    let grad = write_f32(dir.path(), "grad.npy", &[1.0; 6]);
    let x = write_f32(dir.path(), "x.npy", &[1.0; 20]);
    let (grad, x, image) = (grad.to_str().unwrap(), x.to_str().unwrap(), b.to_str().unwrap());
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["--fn", "overread_backward", "--in", grad, "--in", x, "--dst-shape", "20"],
            "reads past grad's end",
            "load from",
        ),
        (&["--fn", "freed_tcm_forward", "--in", x], "reads freed TCM", "outside every live tensor and allocation (TCM"),
        (&["--fn", "uninit_tcm_forward", "--in", x], "reads TCM nothing wrote", "which nothing has written yet"),
        (
            &["--fn", "uninit_stack_forward", "--in", x],
            "reads a local nothing wrote",
            "bytes below its top), which nothing has written yet",
        ),
        (&["--fn", "copy_past_end_forward", "--in", x], "stores past out's end", "-byte store to"),
    ];
    for (args, marker, what) in cases {
        let line = line_of(source, marker);
        let mut reports = Vec::new();
        for engine in ["jit", "interp"] {
            let out = q7_run(&[&[image][..], args, &["--engine", engine]].concat());
            assert_eq!(out.status.code(), Some(1), "{marker}");
            let err = text(&out.stderr);
            let first = err.lines().find(|l| l.starts_with("q7 run: check:")).unwrap_or_else(|| panic!("{err}"));
            assert!(first.contains(what) && first.ends_with(&format!("stray_reads.cpp:{line}")), "{engine}: {first}");
            reports.push(err);
        }
        assert_eq!(reports[0], reports[1], "{marker}: the engines' findings");
        // --no-checks runs as the hardware would: silent.
        let out = q7_run(&[&[image][..], args, &["--no-checks"]].concat());
        assert!(out.status.success(), "{marker}: {}", text(&out.stderr));
    }
    // Ten odd elements of the scratch array, none written, are read once each.
    let out = q7_run(&[image, "--fn", "uninit_stack_forward", "--in", x]);
    let err = text(&out.stderr);
    assert!(err.contains("0 racing stores, 10 reads of unwritten memory, 0 stray loads"), "{err}");
    // The SDK's memcpy made the stores: its frame is innermost, the op's next.
    let out = q7_run(&[image, "--fn", "copy_past_end_forward", "--in", x]);
    let err = text(&out.stderr);
    assert!(err.contains("\n    #0 memcpy+0x") && err.contains("checks failed: 4 stray stores, 0 racing"), "{err}");
    // Spilled and reloaded frames (registers never set among them) are not
    // uninitialised stack reads.
    for engine in ["jit", "interp"] {
        let out = q7_run(&[image, "--fn", "deep_calls_forward", "--in", x, "--engine", engine]);
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
    }
    // The gradient's first element past its end is element 6, and it is said so.
    let out = q7_run(&[image, "--fn", "overread_backward", "--in", grad, "--in", x, "--dst-shape", "20"]);
    let err = text(&out.stderr);
    assert!(err.contains("(element 6 of grad (6 elements at 0x") && err.contains("0 past the end)"), "{err}");
    assert!(
        err.contains(
            "q7: error: checks failed: 0 stray stores, 0 racing stores, 0 reads of unwritten memory, 14 stray loads"
        ),
        "{err}"
    );
}
