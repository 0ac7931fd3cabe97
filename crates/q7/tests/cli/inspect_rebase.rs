//! `q7 inspect rebase-diff` on the eight per-core fixture images (docs/FACTS.md):
//! identical modulo rebase, positions set-equal, deltas N·0x200000; and a
//! changed word is named by section, offset and address. Counts are checked
//! against `cmp -l`.

use crate::common;

use common::*;
use serde_json::Value;

fn cores(suffix: &str) -> Vec<String> {
    (0..8).map(|i| fixture(&format!("prog_cpu{i}{suffix}")).display().to_string()).collect()
}

fn rebase_json(paths: &[String]) -> Value {
    let mut args = vec!["inspect", "rebase-diff", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let out = q7(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn eight_cores_are_identical_modulo_rebase() {
    for suffix in [".stripped.so", ".so"] {
        let paths = cores(suffix);
        let r = rebase_json(&paths);
        assert_eq!(r["verdict"]["identical_modulo_rebase"], true, "{suffix}: {}", r["verdict"]);
        assert_eq!(r["word_positions_equal"], true);
        for p in r["pairs"].as_array().unwrap() {
            let n = p["image"].as_u64().unwrap();
            assert_eq!(p["base_delta"].as_u64().unwrap(), n * 0x20_0000);
            if suffix == ".so" && n == 7 {
                // The symbol table holds the window's end, 0x84200000: moved
                // to cpu7 it is 0x85000000, a carry into the top byte.
                assert_eq!(p["byte_deltas"], serde_json::json!([1, n * 0x20]));
                assert_eq!(p["same_positions_as_first_pair"], false);
            } else {
                assert_eq!(p["byte_deltas"], serde_json::json!([n * 0x20]));
                assert_eq!(p["same_positions_as_first_pair"], true);
            }
            for region in p["regions"].as_array().unwrap() {
                assert_eq!(region["non_rebase_words"], 0, "{region}");
                let deltas = region["word_deltas"].as_array().unwrap();
                assert!(deltas.is_empty() || *deltas == [serde_json::json!(n * 0x20_0000)], "{region}");
            }
            // The same count `cmp -l` prints, one line per differing byte.
            if let Some(cmp) = peer("cmp", &["-l", &paths[0], &paths[n as usize]]) {
                assert_eq!(
                    String::from_utf8_lossy(&cmp.stdout).lines().count() as u64,
                    p["differing_bytes"].as_u64().unwrap()
                );
            }
        }
        assert!(r["strings"].as_array().unwrap().iter().all(|s| s["identical"] == true));
        assert_eq!(r["positions_equal"], suffix == ".stripped.so");
        // The first differing byte is e_entry's third byte, as in the seed.
        assert_eq!(r["pairs"][0]["first_differing"], 0x1a);
    }
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

#[test]
fn a_changed_word_is_named_by_section_offset_and_address() {
    let base = std::fs::read(fixture("prog_cpu0.stripped.so")).unwrap();
    let mut one = std::fs::read(fixture("prog_cpu1.stripped.so")).unwrap();
    let elf = q7_elf::ElfFile::parse(&base).unwrap();
    let rodata = elf.section_by_name(".rodata").unwrap();
    // The third word of .rodata: bump it by one, as a baked constant would.
    let at = rodata.offset as usize + 8;
    let was = u32_at(&one, at);
    one[at..at + 4].copy_from_slice(&was.wrapping_add(1).to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let changed = dir.path().join("prog_cpu1.changed.so");
    std::fs::write(&changed, &one).unwrap();
    let paths = vec![fixture("prog_cpu0.stripped.so").display().to_string(), changed.display().to_string()];
    let r = rebase_json(&paths);
    assert_eq!(r["verdict"]["identical_modulo_rebase"], false);
    let c = &r["verdict"]["counter_example"];
    assert_eq!(c["region"], ".rodata");
    assert_eq!(c["file_offset"].as_u64().unwrap(), at as u64);
    assert_eq!(c["region_offset"], 8);
    assert_eq!(c["address"].as_u64().unwrap(), rodata.addr as u64 + 8);
    assert_eq!(c["address_here"].as_u64().unwrap(), rodata.addr as u64 + 8 + 0x20_0000);
    assert_eq!(c["value"].as_u64().unwrap(), was.wrapping_add(1) as u64);

    let mut args = vec!["inspect", "rebase-diff"];
    args.extend(paths.iter().map(String::as_str));
    let text = stdout(&q7(&args));
    let tail: String = text.lines().skip_while(|l| !l.contains("verdict")).collect::<Vec<_>>().join("\n");
    let tail = tail.replace(&dir.path().display().to_string(), "$DIR").replace(&root().display().to_string(), "$ROOT");
    assert_golden("rebase_counter_example.txt", &(tail + "\n"));
}

#[test]
fn a_changed_string_byte_breaks_the_string_sets_too() {
    let mut one = std::fs::read(fixture("prog_cpu1.stripped.so")).unwrap();
    let at = one.windows(5).position(|w| w == b"hello").unwrap();
    one[at] = b'j';
    let dir = tempfile::tempdir().unwrap();
    let changed = dir.path().join("cpu1.so");
    std::fs::write(&changed, &one).unwrap();
    let r = rebase_json(&[fixture("prog_cpu0.stripped.so").display().to_string(), changed.display().to_string()]);
    assert_eq!(r["verdict"]["identical_modulo_rebase"], false);
    assert_eq!(r["verdict"]["counter_example"]["region"], ".data");
    let data = r["strings"].as_array().unwrap().iter().find(|s| s["section"] == ".data").unwrap();
    assert_eq!(data["identical"], false);
}

#[test]
fn human_report_matches_golden_file() {
    // Relative names, run from the fixture directory, keep columns stable.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_q7"))
        .current_dir(fixture(""))
        .args(["inspect", "rebase-diff", "prog_cpu0.stripped.so", "prog_cpu1.stripped.so", "prog_cpu7.stripped.so"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_golden("rebase_cpu017.txt", &stdout(&out));
}

#[test]
fn bad_inputs_get_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.so");
    std::fs::write(&junk, b"not an image").unwrap();
    let out = q7(&["inspect", "rebase-diff", fixture("prog_cpu0.so").to_str().unwrap(), junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("junk.so: not an ELF file"));
    let out = q7(&["inspect", "rebase-diff", fixture("prog_cpu0.so").to_str().unwrap()]);
    // One path may be an archive of images, so the count is checked after reading.
    assert_eq!(out.status.code(), Some(1), "two images wanted");
    assert!(stderr(&out).contains("needs two or more images; 1 found"), "{}", stderr(&out));
    // Different sizes: a counter-example, not an error.
    let r = rebase_json(&[
        fixture("prog_cpu0.so").display().to_string(),
        fixture("prog_cpu1.stripped.so").display().to_string(),
    ]);
    assert!(r["verdict"]["counter_example"]["what"].as_str().unwrap().starts_with("file sizes differ"));
}
