//! Runs sdk/tests/check.sh: the SDK builds warning-free for Xtensa, the
//! documented example ops compile and link, and SDK-built programs run on
//! QEMU with output identical to a host build (see the script's header).

use std::path::Path;
use std::process::Command;

#[test]
fn sdk_builds_links_and_runs_on_qemu() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // The script needs a q7 binary for `q7 lsp`; build it as cargo would.
    let q7 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/q7");
    let mut cmd = Command::new("bash");
    cmd.arg(root.join("sdk/tests/check.sh"));
    if q7.exists() {
        cmd.env("Q7", &q7);
    }
    let out = cmd.output().expect("run sdk/tests/check.sh");
    assert!(
        out.status.success(),
        "sdk/tests/check.sh failed (run scripts/bootstrap.sh if a tool is missing):\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
