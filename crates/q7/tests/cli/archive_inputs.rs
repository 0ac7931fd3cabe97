//! `ar` archives where q7 reads images: each ELF member is read under the
//! name objdump gives it (`lib.a(member.o)`), non-ELF members are skipped
//! with a note, and a broken archive or member is a one-line error naming it.

use crate::common;

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

/// The eight per-core images of the prog fixture, as files and as one archive.
fn per_core(dir: &Path) -> Option<(Vec<PathBuf>, PathBuf)> {
    let files: Vec<PathBuf> = (0..8).map(|i| fixture(&format!("prog_cpu{i}.so"))).collect();
    let archive = gnu_archive(dir, "libprog.a", &files)?;
    Some((files, archive))
}

/// `q7 ARGS... --json` on the files and on the archive give the same JSON
/// once each archive name `lib.a(x)` is written as the file's path.
fn same_json_as_files(command: &[&str], files: &[PathBuf], archive: &Path) {
    let run = |inputs: Vec<String>| {
        let mut args: Vec<String> = command.iter().map(|s| s.to_string()).collect();
        args.extend(inputs);
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = q7(&args);
        assert!(out.status.success(), "q7 {args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let mut from_archive = run(vec![archive.display().to_string()]);
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy();
        from_archive = from_archive.replace(&format!("{}({name})", archive.display()), &file.display().to_string());
    }
    let from_files = run(files.iter().map(|f| f.display().to_string()).collect());
    assert_eq!(from_archive, from_files, "q7 {command:?}");
}

#[test]
fn layout_and_rebase_diff_read_the_members_of_an_archive() {
    let dir = tempfile::tempdir().unwrap();
    let Some((files, archive)) = per_core(dir.path()) else { return };
    same_json_as_files(&["layout"], &files, &archive);
    same_json_as_files(&["inspect", "rebase-diff"], &files, &archive);
    let out = q7(&["inspect", "rebase-diff", archive.to_str().unwrap()]);
    assert!(stdout(&out).contains("identical modulo rebase"), "{}", stdout(&out));
}

#[test]
fn roster_strings_and_kinfo_report_each_member() {
    let dir = tempfile::tempdir().unwrap();
    // The host microcode images carry kernel tables and .xt.prop rosters.
    let files: Vec<PathBuf> = ["cayman_lib0.elf", "mariana_lib1.elf", "sunda.elf"]
        .iter()
        .map(|name| root().join("fixtures/host/bin").join(name))
        .collect();
    let Some(archive) = gnu_archive(dir.path(), "libucode.a", &files) else { return };
    for command in [["inspect", "roster"], ["inspect", "strings"], ["inspect", "kinfo"]] {
        // An archive's JSON is the list of its members' reports, in order.
        let mut args = command.to_vec();
        let path = archive.display().to_string();
        args.extend([path.as_str(), "--json"]);
        let out = q7(&args);
        assert!(out.status.success(), "q7 {args:?}: {}", stderr(&out));
        let list: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(list.len(), files.len());
        for (report, file) in list.iter().zip(&files) {
            let out = q7(&[command[0], command[1], file.to_str().unwrap(), "--json"]);
            let mut alone: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
            let name = file.file_name().unwrap().to_string_lossy();
            alone["path"] = format!("{path}({name})").into();
            assert_eq!(report, &alone, "q7 {command:?} on {name}");
        }
    }
    let out = q7(&["inspect", "kinfo", archive.to_str().unwrap(), "--opcode", "1"]);
    assert!(!out.status.success() && stderr(&out).contains("not an archive"), "{}", stderr(&out));
}
