//! `ar` archives where q7 reads images: each ELF member is read under the
//! name objdump gives it (`lib.a(member.o)`), non-ELF members are skipped
//! with a note, and a broken archive or member is a one-line error naming it.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// An archive of `members` (paths) built by GNU ar; `None` without it.
fn gnu_archive(dir: &Path, name: &str, members: &[PathBuf]) -> Option<PathBuf> {
    let archive = dir.join(name);
    let mut args = vec!["rcs".to_string(), archive.display().to_string()];
    args.extend(members.iter().map(|m| m.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = peer("xtensa-lx106-elf-ar", &args)?;
    assert!(out.status.success(), "{}", stderr(&out));
    Some(archive)
}

/// kernels_gnu.o and prog.o plus a JSON file, as a torch-style archive mixes them.
fn mixed_archive(dir: &Path) -> Option<PathBuf> {
    let json = dir.join("metadata.json");
    std::fs::write(&json, "{}\n").unwrap();
    gnu_archive(dir, "libmixed.a", &[fixture("kernels_gnu.o"), fixture("prog.o"), json])
}

#[test]
fn disasm_lists_each_member_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let Some(archive) = mixed_archive(dir.path()) else { return };
    let out = q7(&["disasm", archive.to_str().unwrap(), "--isa", "lx106"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let a = archive.display();
    for member in ["kernels_gnu.o", "prog.o"] {
        let alone = q7(&["disasm", fixture(member).to_str().unwrap(), "--isa", "lx106"]);
        // The member's listing is the file's listing under the archive name.
        let body = stdout(&alone).split_once('\n').unwrap().1.to_string();
        let header = format!("{a}({member}): ELF32 little-endian REL, Tensilica Xtensa; ISA lx106\n");
        assert!(text.contains(&format!("{header}{body}")), "{member} in:\n{text}");
    }
    assert!(stderr(&out).contains(&format!("{a}(metadata.json): not an ELF file, skipped")), "{}", stderr(&out));
}

#[test]
fn broken_archives_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let Some(archive) = mixed_archive(dir.path()) else { return };
    let mut data = std::fs::read(&archive).unwrap();
    // Cut the archive inside its last member.
    data.truncate(data.len() - 2);
    let cut = dir.path().join("cut.a");
    std::fs::write(&cut, &data).unwrap();
    let out = q7(&["disasm", cut.to_str().unwrap()]);
    assert!(!out.status.success());
    let error = stderr(&out);
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(error.contains("cut.a") && error.contains("past the end of the archive"), "{error}");

    // A member that is a broken ELF is named as objdump names it.
    let bad = dir.path().join("bad.o");
    std::fs::write(&bad, b"\x7fELF\x01\x01\x01").unwrap();
    let Some(archive) = gnu_archive(dir.path(), "libbad.a", &[bad]) else { return };
    let out = q7(&["disasm", archive.to_str().unwrap()]);
    let error = stderr(&out);
    assert!(!out.status.success() && error.lines().count() == 1, "{error}");
    assert!(error.contains(&format!("{}(bad.o)", archive.display())), "{error}");
}
