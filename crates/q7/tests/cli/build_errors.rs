//! `q7 build`'s refusals before any tool runs (no sources, a directory, a
//! missing file: one line each, no OS message twice) and two builds into one
//! directory at once (the second waits on the lock; both succeed).

use std::process::Command;

use crate::common::{root, stderr};

fn build_cmd(build_dir: &std::path::Path, sources: &[&std::path::Path]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_q7"));
    cmd.env("Q7_CACHE_DIR", std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache"));
    cmd.args(["build", "--toolchain", "open", "--name", "librelu", "--fn", "relu_forward"]);
    cmd.args(["--schema", "relu_forward(Tensor _0) -> Tensor", "--build-dir"]).arg(build_dir);
    cmd.args(sources);
    cmd
}

#[test]
fn sources_are_checked_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let relu = root().join("examples/relu/relu.cpp");
    let cases: [(Vec<std::path::PathBuf>, String); 3] = [
        (vec![], "q7: error: no source files: give the op's .cpp/.c/.S files\n".into()),
        (
            vec![root().join("examples/relu")],
            format!("q7: error: {}: is a directory, not a source file\n", root().join("examples/relu").display()),
        ),
        (vec![relu.join("sub")], format!("q7: error: Cant find source file {}\n", relu.join("sub").display())),
    ];
    for (sources, message) in cases {
        let paths: Vec<&std::path::Path> = sources.iter().map(|p| p.as_path()).collect();
        let o = build_cmd(&out, &paths).output().unwrap();
        assert!(!o.status.success());
        assert_eq!(stderr(&o), message);
    }
}

#[test]
fn two_builds_into_one_directory_both_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shared build");
    let relu = root().join("examples/relu/relu.cpp");
    let children: Vec<_> =
        (0..2).map(|_| build_cmd(&out, &[&relu]).stderr(std::process::Stdio::piped()).spawn().unwrap()).collect();
    for child in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    for name in ["librelu.so", "librelu.stripped.so", "librelu.packed.so"] {
        assert!(out.join(name).is_file(), "{name}");
    }
}
