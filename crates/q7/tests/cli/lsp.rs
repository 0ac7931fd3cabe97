//! `q7 lsp` writes the nine LSPs (or one with --core), and GNU ld accepts the
//! relocatable scripts as well as the executable ones (the fixture rebuild
//! covers `.x`).

use crate::common;

use common::*;

#[test]
fn writes_nine_lsps_with_identical_specs() {
    let dir = tempfile::tempdir().unwrap();
    let out = q7(&["lsp", "--out", dir.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(written.len(), 54);
    let specs0 = std::fs::read(dir.path().join("lsp_fll_load_cpu0/specs")).unwrap();
    for name in (0..8).map(|i| format!("lsp_fll_load_cpu{i}")).chain(["lsp_fll_load_cpu_single".into()]) {
        assert_eq!(std::fs::read(dir.path().join(&name).join("specs")).unwrap(), specs0, "{name}");
        for v in ["x", "xbn", "xn", "xr", "xu"] {
            assert!(dir.path().join(&name).join(format!("ldscripts/elf32xtensa.{v}")).is_file());
        }
    }
}

#[test]
fn core_flag_writes_one_lsp_and_rejects_bad_cores() {
    let dir = tempfile::tempdir().unwrap();
    let out = q7(&["lsp", "--out", dir.path().to_str().unwrap(), "--core", "6"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).trim(), format!("wrote 6 files under {}", dir.path().display()));
    let x = std::fs::read_to_string(dir.path().join("lsp_fll_load_cpu6/ldscripts/elf32xtensa.x")).unwrap();
    assert!(x.contains("sram0_0_seg : org = 0x84c00000, len = 0x200000"));
    let out = q7(&["lsp", "--core", "8"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`8` is not a core: use 0..7 or `single`"), "{}", stderr(&out));
}

#[test]
fn relocatable_scripts_link_with_gnu_ld() {
    let dir = tempfile::tempdir().unwrap();
    assert!(q7(&["lsp", "--out", dir.path().to_str().unwrap(), "--core", "0"]).status.success());
    for v in ["xr", "xu"] {
        let script = dir.path().join(format!("lsp_fll_load_cpu0/ldscripts/elf32xtensa.{v}"));
        let out = dir.path().join(format!("combined_{v}.o"));
        let flag = if v == "xr" { "-r" } else { "-Ur" };
        let Some(ld) = peer(
            "xtensa-lx106-elf-ld",
            &[
                flag,
                "-T",
                script.to_str().unwrap(),
                fixture("prog.o").to_str().unwrap(),
                fixture("util.o").to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
        ) else {
            return;
        };
        assert!(ld.status.success(), "{v}: {}", stderr(&ld));
        let bytes = std::fs::read(&out).unwrap();
        let elf = q7_elf::ElfFile::parse_xtensa(&bytes).unwrap();
        assert_eq!(elf.header().e_type, q7_elf::consts::ET_REL);
        assert!(elf.section_by_name(".text").is_some_and(|s| s.size > 0));
    }
}
