//! `q7 inspect carve` on the host-library fixture (fixtures/host): the magic
//! scan, the getters and the flat container agree; 7 stored images collapse
//! to 5; every getter returns the image its slot was built from, with the
//! manifest or stub beside it; `.data` (VMA ≠ file offset) is mapped right.
//! Cross-checked against grep, objdump and the fixture files themselves.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use common::*;
use serde_json::Value;

fn host(name: &str) -> PathBuf {
    root().join("fixtures/host/bin").join(name)
}

fn carve_json(path: &str) -> Value {
    let out = q7(&["inspect", "carve", path, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn sha(path: &PathBuf) -> String {
    q7_target::digest::sha256_hex(&std::fs::read(path).unwrap())
}

/// Which fixture image each getter slot embeds (fixtures/host/src/host.s).
const SLOTS: &[(&str, &str, bool)] = &[
    ("SUNDA_Q7_POOL_0", "sunda.elf", true),
    ("CAYMAN_Q7_POOL_0", "cayman_lib0.elf", false),
    ("CAYMAN_Q7_POOL_1", "cayman_lib1.elf", false),
    ("MARIANA_Q7_POOL_0", "mariana_lib0.elf", false),
    ("MARIANA_Q7_POOL_1", "mariana_lib1.elf", false),
    ("MARIANA_PLUS_Q7_POOL_0", "mariana_lib0.elf", false),
    ("MARIANA_PLUS_Q7_POOL_1", "mariana_lib1.elf", false),
];

#[test]
fn host_library_modes_agree_and_collapse_seven_to_five() {
    let r = carve_json(host("libq7ucode_host.so").to_str().unwrap());
    assert_eq!(r["stored"], 7);
    assert_eq!(r["distinct"].as_array().unwrap().len(), 5);
    let hits = r["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 8, "the host's own header plus seven images");
    assert_eq!(hits[0]["offset"], 0);
    assert_eq!(hits[0]["xtensa"], false);
    let agreement = r["agreement"].as_array().unwrap();
    assert_eq!(agreement.len(), 1);
    assert_eq!(agreement[0]["agree"], true, "{agreement:?}");
    assert_eq!(agreement[0]["images"], 7);

    // Every accepted hit passes all five checks.
    for h in hits.iter().filter(|h| h["xtensa"] == true) {
        for c in h["checks"].as_array().unwrap() {
            assert_eq!(c["ok"], true, "{h}");
        }
    }
}

#[test]
fn every_getter_returns_its_slot_image_and_header() {
    let r = carve_json(host("libq7ucode_host.so").to_str().unwrap());
    let distinct = r["distinct"].as_array().unwrap();
    let getters = &r["getters"];
    let slots: BTreeMap<String, &Value> =
        getters["slots"].as_array().unwrap().iter().map(|s| (s["name"].as_str().unwrap().to_string(), s)).collect();
    assert_eq!(slots.len(), SLOTS.len());
    for (slot, file, has_manifest) in SLOTS {
        let s = slots[*slot];
        let image = s["image"].as_u64().unwrap() as usize;
        assert_eq!(distinct[image]["sha256"].as_str().unwrap(), sha(&host(file)), "{slot}");
        let header = s["header_kind"].as_str().unwrap();
        if *has_manifest {
            assert!(header.starts_with("JSON manifest (6 kernel names"), "{slot}: {header}");
        } else {
            assert_eq!(header, "stub {\"dummy_message\":\"hello world\"}", "{slot}");
        }
    }
    // The MARIANA_PLUS copies sit in .data, loaded 0x1000 above their file
    // offset: the getter's address and the carved offset differ, and the
    // bytes at the offset are the image.
    let data = std::fs::read(host("libq7ucode_host.so")).unwrap();
    let plus =
        getters["getters"].as_array().unwrap().iter().find(|g| g["name"] == "MARIANA_PLUS_Q7_POOL_0_SO_get").unwrap();
    let (va, off, size) = (
        plus["data_vaddr"].as_u64().unwrap(),
        plus["data_offset"].as_u64().unwrap() as usize,
        plus["size"].as_u64().unwrap() as usize,
    );
    assert_eq!(plus["data_section"], ".data");
    assert_ne!(va, off as u64);
    assert_eq!(&data[off..off + size], std::fs::read(host("mariana_lib0.elf")).unwrap().as_slice());
}

/// objdump's reading of every getter gives the same address and size.
#[test]
fn getters_decode_as_objdump_reads_them() {
    let path = host("libq7ucode_host.so");
    let r = carve_json(path.to_str().unwrap());
    let Some(dis) = peer("objdump", &["-d", "--no-show-raw-insn", path.to_str().unwrap()]) else { return };
    let text = String::from_utf8_lossy(&dis.stdout).into_owned();
    for g in r["getters"]["getters"].as_array().unwrap() {
        let name = g["name"].as_str().unwrap();
        let body: Vec<&str> = text
            .split(&format!("<{name}>:\n"))
            .nth(1)
            .unwrap_or_else(|| panic!("{name} not in objdump output"))
            .lines()
            .take_while(|l| !l.is_empty())
            .collect();
        let lea = body.iter().find(|l| l.contains("lea")).unwrap();
        let target = lea.split('#').nth(1).unwrap().split_whitespace().next().unwrap();
        assert_eq!(u64::from_str_radix(target, 16).unwrap(), g["data_vaddr"].as_u64().unwrap(), "{name}: {lea}");
        let movq = body.iter().find(|l| l.contains("movq")).unwrap();
        let imm = movq.split('$').nth(1).unwrap().split(',').next().unwrap();
        assert_eq!(u64::from_str_radix(imm.trim_start_matches("0x"), 16).unwrap(), g["size"].as_u64().unwrap());
    }
}

/// The magic scan finds exactly the offsets grep finds.
#[test]
fn magic_offsets_match_grep() {
    for file in ["libq7ucode_host.so", "ucode_flat.bin"] {
        let path = host(file);
        let r = carve_json(path.to_str().unwrap());
        let ours: Vec<u64> = r["hits"].as_array().unwrap().iter().map(|h| h["offset"].as_u64().unwrap()).collect();
        let Ok(out) = Command::new("grep")
            .env("LC_ALL", "C")
            .args(["-a", "-o", "-b", "-P", "\\x7fELF", path.to_str().unwrap()])
            .output()
        else {
            return;
        };
        let theirs: Vec<u64> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split(':').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ours, theirs, "{file}");
    }
}

#[test]
fn flat_container_pairs_headers_with_images() {
    let r = carve_json(host("ucode_flat.bin").to_str().unwrap());
    assert_eq!(r["stored"], 7);
    assert_eq!(r["distinct"].as_array().unwrap().len(), 5);
    assert_eq!(r["agreement"][0]["modes"], "magic scan vs flat container");
    assert_eq!(r["agreement"][0]["agree"], true);
    let items = r["flat"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 14);
    assert!(r["flat"]["stopped"].is_null());
    let distinct = r["distinct"].as_array().unwrap();
    for (i, (_, file, has_manifest)) in SLOTS.iter().enumerate() {
        let (header, image) = (&items[2 * i], &items[2 * i + 1]);
        assert_eq!(header["header"]["kind"], if *has_manifest { "manifest" } else { "stub" });
        let index = image["image"].as_u64().unwrap() as usize;
        assert_eq!(distinct[index]["sha256"].as_str().unwrap(), sha(&host(file)));
    }
}

/// The same five images, whichever container and mode found them.
#[test]
fn all_three_modes_find_the_same_distinct_images() {
    let shas = |r: &Value| -> Vec<String> {
        let mut v: Vec<String> =
            r["distinct"].as_array().unwrap().iter().map(|d| d["sha256"].as_str().unwrap().to_string()).collect();
        v.sort();
        v
    };
    let host_report = carve_json(host("libq7ucode_host.so").to_str().unwrap());
    let flat_report = carve_json(host("ucode_flat.bin").to_str().unwrap());
    let mut files: Vec<String> =
        ["sunda.elf", "cayman_lib0.elf", "cayman_lib1.elf", "mariana_lib0.elf", "mariana_lib1.elf"]
            .iter()
            .map(|f| sha(&host(f)))
            .collect();
    files.sort();
    assert_eq!(shas(&host_report), files);
    assert_eq!(shas(&flat_report), files);
}

#[test]
fn out_writes_each_distinct_image_once_by_sha_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        q7(&["inspect", "carve", host("libq7ucode_host.so").to_str().unwrap(), "--out", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let mut expected: Vec<String> =
        ["sunda.elf", "cayman_lib0.elf", "cayman_lib1.elf", "mariana_lib0.elf", "mariana_lib1.elf"]
            .iter()
            .map(|f| format!("{}.elf", &sha(&host(f))[..16]))
            .collect();
    expected.sort();
    assert_eq!(names, expected, "exactly the images, no temporary files");
    for f in ["sunda.elf", "mariana_lib1.elf"] {
        let written = dir.path().join(format!("{}.elf", &sha(&host(f))[..16]));
        assert_eq!(std::fs::read(written).unwrap(), std::fs::read(host(f)).unwrap());
    }
}

#[test]
fn human_reports_match_golden_files() {
    for (file, golden) in [("libq7ucode_host.so", "carve_host.txt"), ("ucode_flat.bin", "carve_flat.txt")] {
        let out = q7(&["inspect", "carve", host(file).to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out).replace(&root().display().to_string(), "$ROOT");
        assert_golden(golden, &text);
    }
}

/// Broken containers are reported, never a panic: a blob whose header lies
/// about its size, a getter that points past the file, a flat container
/// with garbage between items, plus the one-line errors of unreadable input.
#[test]
fn damaged_containers_are_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(host("ucode_flat.bin")).unwrap();
    let mut report = String::new();

    let mut lying = good.clone();
    let first_image = 0x174; // after the manifest (see carve_flat.txt)
    lying[first_image + 32..first_image + 36].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    let mut garbage = good.clone();
    garbage[0xa60] = b'#';
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("flat-with-lying-shoff", lying),
        ("flat-with-garbage", garbage),
        ("host-truncated", std::fs::read(host("libq7ucode_host.so")).unwrap()[..0x3000].to_vec()),
        ("magic-only", b"\x7fELF".to_vec()),
        ("no-magic", b"hello world\n".to_vec()),
    ];
    for (name, bytes) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = q7(&["inspect", "carve", path.to_str().unwrap(), "--json"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let notes: Vec<String> = r["hits"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|h| h["size_note"].as_str().map(|n| format!("hit {:#x}: {n}", h["offset"].as_u64().unwrap())))
            .collect();
        let stopped = r["flat"]["stopped"].as_str().map(|s| format!("; flat stopped: {s}")).unwrap_or_default();
        let getters = r["getters"]["getters"]
            .as_array()
            .map(|g| g.iter().filter(|x| x["returns"]["kind"] == "undecoded").count())
            .unwrap_or(0);
        report.push_str(&format!(
            "{name}: {} hits, {} stored, {} undecoded getters{}{stopped}\n",
            r["hits"].as_array().unwrap().len(),
            r["stored"],
            getters,
            notes.iter().map(|n| format!("; {n}")).collect::<String>()
        ));
    }
    for (name, path) in [("empty", dir.path().join("empty")), ("missing", dir.path().join("missing"))] {
        if name == "empty" {
            std::fs::write(&path, b"").unwrap();
        }
        let out = q7(&["inspect", "carve", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        report.push_str(&format!("{name}: {}\n", err.trim_end().replace(&dir.path().display().to_string(), "$DIR")));
    }
    assert_golden("carve_malformed.txt", &report);
}

/// fixtures/host/build.sh reproduces the committed files (byte for byte with
/// the same tool versions, by structure otherwise).
#[test]
fn host_fixtures_rebuild_from_the_recipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(root().join("fixtures/host/build.sh"))
        .arg(dir.path())
        .output()
        .expect("run fixtures/host/build.sh");
    assert!(out.status.success(), "fixtures/host/build.sh failed (run scripts/bootstrap.sh?):\n{}", stderr(&out));
    let same_tools = std::fs::read(host("TOOLS.txt")).ok() == std::fs::read(dir.path().join("TOOLS.txt")).ok();
    let mut names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names.len(), 8, "{names:?}");
    let mut total = 0;
    for name in names {
        let fresh = std::fs::read(dir.path().join(&name)).unwrap();
        let old = std::fs::read(host(&name.to_string_lossy()))
            .unwrap_or_else(|_| panic!("{name:?} is built by the recipe but not committed"));
        total += old.len();
        if same_tools {
            assert!(fresh == old, "{name:?} differs from the committed fixture: rerun fixtures/host/build.sh");
        } else if name.to_string_lossy().ends_with(".elf") {
            let a = q7_elf::ElfFile::parse_xtensa(&fresh).unwrap();
            let b = q7_elf::ElfFile::parse_xtensa(&old).unwrap();
            let names = |e: &q7_elf::ElfFile| e.sections().iter().map(|s| s.name.to_string()).collect::<Vec<_>>();
            assert_eq!(names(&a), names(&b), "{name:?}");
        }
    }
    assert!(total < 256 << 10, "host fixtures grew to {total} bytes");
}
