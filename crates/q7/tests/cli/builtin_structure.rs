//! The builtin op library (`builtin/`) built with `q7 build --multicore`
//! reproduces the structural facts docs/FACTS.md states for the vendor's
//! `libbuiltincustomop_cpu{0..7}.stripped.so`: eight images that are one
//! program relinked (identical modulo rebase), two LOAD segments each, a
//! constant entry offset, a `.ctors` table with head sentinel, real
//! constructor and NULL terminator, windows that tile
//! `[0x84000000, 0x85000000)` with headroom in each, and the four op names as
//! strings in every image's `.data`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::*;
use serde_json::Value;

const LIB: &str = "libbuiltincustomop";
const OP_NAMES: [&str; 4] = [
    "sort_singlecore_compute",
    "sort_multicore_compute",
    "partial_sort_multicore_compute",
    "partial_merge_multicore_compute",
];

/// Builds `builtin/` once per test run (incrementally across runs) and
/// returns the build directory.
fn built() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let b = tmp.join("builtin-structure");
        let out = Command::new(env!("CARGO_BIN_EXE_q7"))
            .current_dir(root().join("builtin"))
            .env("Q7_CACHE_DIR", tmp.join("q7-cache"))
            .args(["build", "--toolchain", "open", "--build-dir"])
            .arg(&b)
            .output()
            .expect("run q7");
        assert!(out.status.success(), "{}", stderr(&out));
        b
    })
}

fn images(suffix: &str) -> Vec<String> {
    (0..8).map(|i| built().join(format!("{LIB}_cpu{i}{suffix}")).display().to_string()).collect()
}

fn q7_json(args: &[&str]) -> Value {
    let out = q7(args);
    assert!(out.status.success(), "q7 {}: {}", args.join(" "), stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn eight_images_are_identical_modulo_rebase() {
    for suffix in [".stripped.so", ".so"] {
        let paths = images(suffix);
        let mut args = vec!["inspect", "rebase-diff", "--json"];
        args.extend(paths.iter().map(String::as_str));
        let r = q7_json(&args);
        assert_eq!(r["verdict"]["identical_modulo_rebase"], true, "{suffix}: {}", r["verdict"]);
        assert_eq!(r["word_positions_equal"], true);
        for (n, pair) in r["pairs"].as_array().unwrap().iter().enumerate() {
            assert_eq!(pair["base_delta"], (n as u64 + 1) * 0x20_0000);
        }
        // The byte-level facts of docs/FACTS.md hold for the stripped images (in the
        // unlinked .so a symbol-table word may carry into a second byte).
        if suffix == ".stripped.so" {
            assert_eq!(r["positions_equal"], true);
            for (n, pair) in r["pairs"].as_array().unwrap().iter().enumerate() {
                let n = n as u64 + 1;
                assert_eq!(pair["byte_deltas"], serde_json::json!([n * 0x20]), "every differing byte moves by N·0x20");
            }
        }
        for s in r["strings"].as_array().unwrap() {
            assert_eq!(s["identical"], true, "{suffix}: strings of {} differ", s["section"]);
        }
    }
    // The text verdict, as the README tour shows it.
    let paths = images(".stripped.so");
    let mut args = vec!["inspect", "rebase-diff"];
    args.extend(paths.iter().map(String::as_str));
    let out = q7(&args);
    assert!(stdout(&out).contains("verdict: identical modulo rebase"), "{}", stdout(&out));
}

#[test]
fn layout_reproduces_seed_002() {
    for suffix in [".so", ".stripped.so"] {
        let paths = images(suffix);
        let mut args = vec!["layout", "--json"];
        args.extend(paths.iter().map(String::as_str));
        let r = q7_json(&args);
        let imgs = r["images"].as_array().unwrap();
        assert_eq!(imgs.len(), 8);
        for (i, img) in imgs.iter().enumerate() {
            let base = 0x8400_0000u64 + i as u64 * 0x20_0000;
            assert_eq!(img["elf"]["e_type"], "EXEC");
            assert_eq!(img["elf"]["e_machine"], 94);
            // Two LOAD segments: the RWE image and the RW .bss.
            let loads: Vec<&Value> =
                img["segments"].as_array().unwrap().iter().filter(|s| s["kind"] == "LOAD").collect();
            assert_eq!(loads.len(), 2, "cpu{i}{suffix}");
            assert_eq!(loads[0]["flags"], "RWE");
            assert_eq!(loads[0]["vaddr"], base);
            assert!(loads[0]["sections"].as_array().unwrap().contains(&".text".into()));
            assert_eq!(loads[1]["flags"], "RW");
            assert_eq!(loads[1]["filesz"], 0);
            assert_eq!(loads[1]["sections"], serde_json::json!([".bss"]));
            // The window, and the headroom above the image in it.
            let w = &img["window"];
            assert_eq!(w["label"], format!("cpu{i}"));
            assert_eq!(w["base"], base);
            let end = img["span"]["end"].as_u64().unwrap();
            let headroom = w["headroom"].as_u64().unwrap();
            assert_eq!(headroom, base + 0x20_0000 - end);
            assert!(headroom > 0x10_0000, "cpu{i}: headroom {headroom:#x}");
            // The constructor table: head sentinel, real constructors, NULL.
            let ctors = &img["ctors"];
            assert_eq!(ctors["head_sentinel"], true, "cpu{i}{suffix}");
            assert_eq!(ctors["null_terminated"], true);
            let words = ctors["words"].as_array().unwrap();
            assert_eq!(words.first().unwrap(), 0xffff_ffffu32);
            assert_eq!(words.last().unwrap(), 0);
            let pointers = ctors["pointers"].as_array().unwrap();
            assert!(!pointers.is_empty(), "the op-name table's constructor is registered");
            for p in pointers {
                let v = p["value"].as_u64().unwrap();
                assert!(v >= base && v < base + 0x20_0000, "ctor {v:#x} outside cpu{i}'s window");
                assert!(p["target"].as_str().unwrap().starts_with(".text+"));
            }
        }
        let set = &r["set"];
        let off = set["constant_entry_offset"].as_u64().expect("constant entry offset");
        for img in imgs {
            assert_eq!(img["entry"]["window_offset"], off);
        }
        assert_eq!(set["tiled_range"], serde_json::json!([0x8400_0000u32, 0x8500_0000u64]));
        assert_eq!(set["gaps"], serde_json::json!([]));
        assert_eq!(set["overlaps"], serde_json::json!([]));
    }
    // The human report says the same.
    let paths = images(".so");
    let mut args = vec!["layout"];
    args.extend(paths.iter().map(String::as_str));
    let text = stdout(&q7(&args));
    assert!(text.contains("program headers (2 LOAD)"));
    assert!(text.contains("head sentinel, 1 pointer, NULL"), "{text}");
    assert!(text.contains("headroom  0x"));
    assert!(text.contains("entry offset  constant: window base + 0x"));
    assert!(text.contains("tile 0x84000000..0x85000000 (16.00 MiB) with no gaps or overlaps"));
}

#[test]
fn op_names_are_in_every_images_data() {
    for path in images(".stripped.so") {
        let r = q7_json(&["inspect", "strings", "--section", ".data", "--json", &path]);
        let strings: Vec<&str> =
            r["sections"][0]["strings"].as_array().unwrap().iter().map(|s| s["text"].as_str().unwrap()).collect();
        for name in OP_NAMES.iter().chain(&["topk_multicore_compute"]) {
            assert!(strings.contains(name), "{name} not in .data of {path}: {strings:?}");
        }
        // Contiguous and NUL-terminated, as in the vendor images.
        let addrs: Vec<u64> =
            r["sections"][0]["strings"].as_array().unwrap().iter().map(|s| s["addr"].as_u64().unwrap()).collect();
        for (k, pair) in addrs.windows(2).enumerate().take(4) {
            assert_eq!(pair[1], pair[0] + strings[k].len() as u64 + 1, "{path}: name table not contiguous");
        }
    }
}

#[test]
fn the_project_file_lists_the_four_entry_points_and_topk() {
    let text = std::fs::read_to_string(root().join("builtin/q7.toml")).unwrap();
    let v: toml::Value = toml::from_str(&text).unwrap();
    let fns: Vec<&str> = v["functions"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(&fns[..4], &OP_NAMES);
    assert_eq!(fns[4], "topk_multicore_compute");
    assert_eq!(v["multicore"].as_bool(), Some(true));
    assert_eq!(v["name"].as_str(), Some(LIB));
}
