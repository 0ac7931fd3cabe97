//! Runs sdk/tests/check.sh: the SDK builds warning-free for Xtensa, the
//! documented example ops compile and link, and SDK-built programs run on
//! QEMU with output identical to a host build (see the script's header).

use crate::common;

use std::process::Command;

use common::*;

#[test]
fn sdk_builds_links_and_runs_on_qemu() {
    let out = Command::new("bash")
        .arg(root().join("sdk/tests/check.sh"))
        .env("Q7", env!("CARGO_BIN_EXE_q7"))
        .output()
        .expect("run sdk/tests/check.sh");
    assert!(
        out.status.success(),
        "sdk/tests/check.sh failed (run scripts/bootstrap.sh if a tool is missing):\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
}
