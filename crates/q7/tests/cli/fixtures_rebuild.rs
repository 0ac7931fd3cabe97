//! The committed fixtures are reproducible from their committed recipe
//! (fixtures/build.sh): a rebuild with the same tool versions gives the same
//! bytes; with other versions, the same structure. It also proves GNU ld
//! accepts every script `q7 lsp` generates that the recipe links with.

use crate::common;

use std::process::Command;

use common::*;

#[test]
fn fixtures_rebuild_from_the_recipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(root().join("fixtures/build.sh"))
        .arg(dir.path())
        .env("Q7", env!("CARGO_BIN_EXE_q7"))
        .output()
        .expect("run fixtures/build.sh");
    assert!(out.status.success(), "fixtures/build.sh failed (run scripts/bootstrap.sh?):\n{}", stderr(&out));
    let committed = root().join("fixtures/bin");
    let same_tools =
        std::fs::read(committed.join("TOOLS.txt")).ok() == std::fs::read(dir.path().join("TOOLS.txt")).ok();
    let mut names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert!(names.len() >= 23, "{names:?}");
    for name in names {
        let fresh = std::fs::read(dir.path().join(&name)).unwrap();
        let old = std::fs::read(committed.join(&name))
            .unwrap_or_else(|_| panic!("{name:?} is built by the recipe but not committed"));
        if same_tools {
            assert!(fresh == old, "{name:?} differs from the committed fixture: rerun fixtures/build.sh and commit");
        } else if name.to_string_lossy().ends_with(".so") {
            eprintln!("note: tool versions differ from fixtures/bin/TOOLS.txt; comparing {name:?} by structure");
            let a = q7_elf::ElfFile::parse_xtensa(&fresh).unwrap();
            let b = q7_elf::ElfFile::parse_xtensa(&old).unwrap();
            let names = |e: &q7_elf::ElfFile| e.sections().iter().map(|s| s.name.to_string()).collect::<Vec<_>>();
            assert_eq!(names(&a), names(&b), "{name:?}");
            assert_eq!(a.load_segments().count(), b.load_segments().count());
        }
    }
}
