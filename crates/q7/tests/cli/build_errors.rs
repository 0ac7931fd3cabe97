//! `q7 build`'s refusals before any tool runs (no sources, a directory, a
//! missing file, a build directory another user could write or owns: one
//! line each, no OS message twice) and two builds into one directory at once
//! (the second waits on the lock; both succeed; the directory is made 0700).

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
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o700);
}

/// Another local user must not be able to plant symlinks where the build
/// writes: a build directory others may write, or another user owns, is
/// refused before anything is written into it (the device build and the
/// `--shape` host build alike).
#[test]
fn build_directories_not_private_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let relu = root().join("examples/relu/relu.cpp");
    let shape = tmp.path().join("shape.cpp");
    std::fs::write(&shape, "#include \"torchneuron/register.h\"\n").unwrap();
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut cases = vec![(
        shared.clone(),
        format!(
            "q7: error: {}: build directory is writable by its group and others (mode 0777); make it private (chmod go-w) or use another\n",
            shared.display()
        ),
    )];
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    // Only root can give a directory away (the CI runs tests as root).
    if std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).is_ok() {
        let uid = std::fs::metadata(tmp.path()).map(|m| std::os::unix::fs::MetadataExt::uid(&m)).unwrap();
        cases.push((
            theirs.clone(),
            format!(
                "q7: error: {}: build directory is owned by uid 65534, not by this user (uid {uid}); use a directory of your own\n",
                theirs.display()
            ),
        ));
    } else {
        eprintln!("not root: the foreign-owner case is not checked");
    }
    for (dir, message) in cases {
        for with_shape in [false, true] {
            let mut cmd = build_cmd(&dir, &[&relu]);
            if with_shape {
                cmd.arg("--shape").arg(&shape);
            }
            let o = cmd.output().unwrap();
            assert!(!o.status.success());
            assert_eq!(stderr(&o), message, "shape: {with_shape}");
            assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing written into {}", dir.display());
        }
    }
}
