//! `q7 layout` on the fixture images agrees with values read independently by
//! GNU `xtensa-lx106-elf-readelf`, and reproduces the structural facts of docs/FACTS.md:
//! two LOAD segments, the right window per core, a constant entry offset
//! across the eight, windows tiling [0x84000000, 0x85000000), the ctor list.

use crate::common;

use common::*;
use serde_json::Value;

const READELF: &str = "xtensa-lx106-elf-readelf";

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("not hex: {s}"))
}

struct ReadelfFacts {
    entry: u64,
    loads: Vec<(u64, u64, u64, u64, u64)>,
    sections: Vec<(String, u64, u64, u64)>,
}

fn readelf(path: &str) -> Option<ReadelfFacts> {
    let out = peer(READELF, &["-hlSW", path])?;
    assert!(out.status.success());
    let text = stdout(&out);
    let entry = text
        .lines()
        .find(|l| l.contains("Entry point address:"))
        .map(|l| hex(l.split(':').nth(1).unwrap().trim()))
        .unwrap();
    let loads = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.first() == Some(&"LOAD"))
        .map(|f| (hex(f[1]), hex(f[2]), hex(f[4]), hex(f[5]), 0))
        .collect();
    // Section lines: "[ 1] .text PROGBITS 84600000 000074 000190 00 AX 0 0 4"
    let sections = text
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix('[')?;
            let (_, rest) = rest.split_once(']')?;
            let f: Vec<&str> = rest.split_whitespace().collect();
            (f.len() >= 7 && f[6].contains('A')).then(|| (f[0].to_string(), hex(f[2]), hex(f[3]), hex(f[4])))
        })
        .collect();
    Some(ReadelfFacts { entry, loads, sections })
}

/// The words of a section from `readelf -x`, in little-endian order.
fn readelf_words(path: &str, section: &str) -> Vec<u32> {
    let out = peer(READELF, &["-x", section, path]).unwrap();
    stdout(&out)
        .lines()
        .filter(|l| l.trim_start().starts_with("0x"))
        .flat_map(|l| l.split_whitespace().skip(1).take(4).map(str::to_string).collect::<Vec<_>>())
        .filter(|g| g.len() == 8 && g.chars().all(|c| c.is_ascii_hexdigit()))
        .map(|g| u32::from_str_radix(&g, 16).unwrap().swap_bytes())
        .collect()
}

fn layout_json(paths: &[String]) -> Value {
    let mut args = vec!["layout", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let out = q7(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn per_core_images(suffix: &str) -> Vec<String> {
    (0..8).map(|i| fixture(&format!("prog_cpu{i}{suffix}")).display().to_string()).collect()
}

#[test]
fn each_image_agrees_with_readelf() {
    let mut paths = per_core_images(".so");
    paths.extend(per_core_images(".stripped.so"));
    paths.push(fixture("prog_single.so").display().to_string());
    paths.push(fixture("kernels_gnu.so").display().to_string());
    let report = layout_json(&paths);
    for (path, image) in paths.iter().zip(report["images"].as_array().unwrap()) {
        let Some(facts) = readelf(path) else { return };
        assert_eq!(image["entry"]["address"].as_u64().unwrap(), facts.entry, "{path}");
        let loads: Vec<&Value> = image["segments"].as_array().unwrap().iter().filter(|s| s["kind"] == "LOAD").collect();
        assert_eq!(loads.len(), facts.loads.len(), "{path}: LOAD count");
        assert_eq!(loads.len(), 2, "{path}: the LSP makes two LOAD segments");
        for (ours, theirs) in loads.iter().zip(&facts.loads) {
            let ours = (
                ours["offset"].as_u64().unwrap(),
                ours["vaddr"].as_u64().unwrap(),
                ours["filesz"].as_u64().unwrap(),
                ours["memsz"].as_u64().unwrap(),
                0,
            );
            assert_eq!(&ours, theirs, "{path}: LOAD segment");
        }
        let mut ours: Vec<(String, u64, u64, u64)> = image["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_string(),
                    s["addr"].as_u64().unwrap(),
                    s["offset"].as_u64().unwrap(),
                    s["size"].as_u64().unwrap(),
                )
            })
            .collect();
        let mut theirs = facts.sections.clone();
        ours.sort();
        theirs.sort();
        assert_eq!(ours, theirs, "{path}: allocated sections");
        // The segment holding .bss has no file bytes; the first holds the rest.
        let first: Vec<&str> = loads[0]["sections"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert!(
            first.contains(&".text") && first.contains(&".rodata") && !first.contains(&".bss"),
            "{path}: {first:?}"
        );
        assert_eq!(loads[1]["sections"], serde_json::json!([".bss"]), "{path}");
    }
}

#[test]
fn per_core_windows_entry_offset_and_tiling() {
    for suffix in [".so", ".stripped.so"] {
        let paths = per_core_images(suffix);
        let report = layout_json(&paths);
        let images = report["images"].as_array().unwrap();
        let mut offsets = Vec::new();
        for (i, (path, image)) in paths.iter().zip(images).enumerate() {
            let base = 0x8400_0000u64 + i as u64 * 0x20_0000;
            assert_eq!(image["window"]["label"], format!("cpu{i}"), "{path}");
            assert_eq!(image["window"]["base"].as_u64().unwrap(), base);
            // Independently: readelf's entry minus the aperture law's base.
            if let Some(facts) = readelf(path) {
                offsets.push(facts.entry - base);
                assert_eq!(image["entry"]["window_offset"].as_u64().unwrap(), facts.entry - base);
            }
        }
        assert!(offsets.windows(2).all(|w| w[0] == w[1]), "readelf entry offsets differ: {offsets:x?}");
        let set = &report["set"];
        assert_eq!(set["constant_entry_offset"].as_u64(), offsets.first().copied());
        assert_eq!(set["tiled_range"], serde_json::json!([0x8400_0000u32, 0x8500_0000u64]));
        assert_eq!(set["gaps"], serde_json::json!([]));
    }
    // Stripped images carry no LSP symbols: the window is inferred, and says so.
    let report = layout_json(&[fixture("prog_cpu5.stripped.so").display().to_string()]);
    assert!(report["images"][0]["window"]["evidence"].as_str().unwrap().starts_with("INFERRED"));
    let report = layout_json(&[fixture("prog_single.so").display().to_string()]);
    assert_eq!(report["images"][0]["window"]["label"], "single");
    assert!(report["images"][0]["window"]["evidence"].as_str().unwrap().starts_with("OBSERVED"));
}

#[test]
fn a_missing_core_breaks_the_tiling() {
    let mut paths = per_core_images(".so");
    paths.remove(4);
    let set = &layout_json(&paths)["set"];
    assert_eq!(set["tiled_range"], Value::Null);
    assert_eq!(set["gaps"], serde_json::json!([[0x8480_0000u64, 0x84a0_0000u64]]));
}

#[test]
fn ctor_table_matches_readelf_bytes() {
    for i in 0..8 {
        let path = fixture(&format!("prog_cpu{i}.so")).display().to_string();
        let report = layout_json(std::slice::from_ref(&path));
        let ctors = &report["images"][0]["ctors"];
        let words: Vec<u32> = ctors["words"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        if peer(READELF, &["--version"]).is_some() {
            assert_eq!(words, readelf_words(&path, ".ctors"), "{path}");
        }
        assert_eq!(ctors["head_sentinel"], true);
        assert_eq!(ctors["null_terminated"], true);
        let pointers = ctors["pointers"].as_array().unwrap();
        assert_eq!(pointers.len(), 2, "one constructor per translation unit");
        for p in pointers {
            assert!(p["target"].as_str().unwrap().starts_with(".text+"), "{p}");
        }
        let dtors = &report["images"][0]["dtors"];
        assert_eq!(dtors["words"], serde_json::json!([0xffff_ffffu32, 0]));
    }
}

#[test]
fn human_report_snapshot() {
    let out = q7(&["layout", fixture("prog_cpu3.so").to_str().unwrap()]);
    assert!(out.status.success());
    let text = stdout(&out).replace(&root().display().to_string(), "$ROOT");
    assert_golden("layout_prog_cpu3.txt", &text);
    let paths = per_core_images(".stripped.so");
    let mut args = vec!["layout"];
    args.extend(paths.iter().map(String::as_str));
    let text = stdout(&q7(&args));
    let summary = &text[text.find("across 8 images").expect("set summary")..];
    assert_golden("layout_set_summary.txt", summary);
}
