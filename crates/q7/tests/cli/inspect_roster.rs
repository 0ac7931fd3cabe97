//! `q7 inspect roster`: the `.xt.prop.<mangled>` names demangled exactly as
//! GNU c++filt does, the raw name where the demangler does not apply, and the
//! opcode -> entry -> name join (manifest vs stub).

use crate::common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::*;
use q7_elf::demangle::demangle;
use serde_json::Value;

fn host(name: &str) -> PathBuf {
    root().join("fixtures/host/bin").join(name)
}

/// Names beyond the fixtures: the kernel-name shapes, and some of the grammar
/// beyond them (function, array and member-pointer types, local names,
/// expressions in template arguments).
const EXTRA: &[&str] = &[
    "_Z3fooPFviE",
    "_ZZ3foovE1x",
    "_Z1fRA4_i",
    "_Z1fM3FooFivE",
    "_Z1fILi2EEvPAplT_Li1E_i",
    "_ZN3FooD0Ev",
    "_ZNKSt6vectorIiSaIiEEixEj",
    "_Z16cptc_decode_implILh1EEvj25_TIE_xt_ivp32_xb_vec2Nx8US0_ttthb",
    "_Z22cross_lane_reduce_implb",
    "_ZN4kern5scaleEii",
    "_ZN4kern6uscaleEj",
    "_ZN4kern4fillEPiib",
    "_Z11iota_kernelILb1EEvPii",
    "_Z11iota_kernelILb0EEvPii",
    "_Z11clamp_valueIjET_S0_S0_S0_",
    "_ZNK3Foo3getEv",
    "_ZN3FooC1Ev",
    "_ZN3FooD2Ev",
    "_ZN3FooIiEC2ERKS0_",
    "_ZN2ns3BarIiE4sizeEv",
    "_Z4sortIPiEvT_S1_",
    "_Z1fILi3ELj4ELl5ELm6ELx7ELy8EEvv",
    "_Z1fILin3EEvv",
    "_Z1fILc65ELs1ELt2ELa3EEvv",
    "_Z3maxIfET_S0_S0_",
    "_Z3sumPKfjRd",
    "_Z5printPKcz",
    "_Z3getRKSt6vectorIiSaIiEE",
    "_ZNSt6vectorIiSaIiEE9push_backERKi",
    "_Z3useP6ObjectS0_RS_",
    "_Z5applyI4PairIiiEEvRKT_",
    "_Z6nestedI4PairIS0_IiiEiEEvv",
    "_ZN12_GLOBAL__N_16helperEv",
    "_Z3addii.isra.0",
    "_Z3addii.constprop.0",
    "_ZplRK3VecS1_",
    "_ZN3VecixEj",
    "_Z4idlev",
    "_Z5flagsPVKi",
    "_Z4dataPKPc",
    "_Z2idOi",
    "_ZL6staticv",
];

/// c++filt's reading of each name, one per line in, one per line out.
fn cxxfilt(names: &[String]) -> Option<Vec<String>> {
    let mut child = match Command::new("xtensa-lx106-elf-c++filt").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()
    {
        Ok(c) => c,
        Err(_) if q7_testkit::skip_peers() => return None,
        Err(e) => panic!("xtensa-lx106-elf-c++filt is not runnable ({e}); run scripts/bootstrap.sh"),
    };
    child.stdin.take().unwrap().write_all((names.join("\n") + "\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    Some(String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect())
}

fn prop_names(path: &PathBuf) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap();
    let elf = q7_elf::ElfFile::parse(&bytes).unwrap();
    elf.sections().iter().filter_map(|s| s.name.strip_prefix(".xt.prop.").map(str::to_string)).collect()
}

#[test]
fn demangler_agrees_with_cxxfilt_on_every_fixture_name_and_the_extras() {
    let mut names: Vec<String> = Vec::new();
    for f in ["sunda.elf", "cayman_lib0.elf", "cayman_lib1.elf", "mariana_lib0.elf", "mariana_lib1.elf"] {
        names.extend(prop_names(&host(f)));
    }
    names.extend(prop_names(&fixture("kernels_gnu.o")));
    let fixture_count = names.len();
    assert!(fixture_count >= 25, "{fixture_count}");
    names.extend(EXTRA.iter().map(|s| s.to_string()));
    names.sort();
    names.dedup();
    let Some(theirs) = cxxfilt(&names) else { return };
    assert_eq!(theirs.len(), names.len());
    let differ: Vec<String> = names
        .iter()
        .zip(&theirs)
        .filter(|(name, expected)| demangle(name) != Some(cast_spelling(expected)))
        .map(|(name, expected)| format!("{name}\n  c++filt: {expected}\n  q7:      {:?}", demangle(name)))
        .collect();
    assert!(differ.is_empty(), "{} of {} names differ:\n{}", differ.len(), names.len(), differ.join("\n"));
}

/// c++filt writes integer template arguments of type `unsigned`, `long`,
/// `unsigned long`, `long long` and `unsigned long long` with a literal
/// suffix (`4u`, `5l`); cpp_demangle writes a cast (`(unsigned int)4`), as
/// both do for the other integer types. Same meaning: this rewrites the
/// suffixes as casts so the two compare.
fn cast_spelling(text: &str) -> String {
    const SUFFIXES: [(&str, &str); 5] = [
        ("ull", "unsigned long long"),
        ("ul", "unsigned long"),
        ("ll", "long long"),
        ("u", "unsigned int"),
        ("l", "long"),
    ];
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let starts_argument = out.ends_with(['<', ' ']) || rest[..at].ends_with(['<', ' ', '-']);
        let (head, tail) = rest.split_at(at);
        let digits = tail.find(|c: char| !c.is_ascii_digit()).unwrap_or(tail.len());
        let after = &tail[digits..];
        let suffix = SUFFIXES.iter().find(|(s, _)| after.starts_with(s) && after[s.len()..].starts_with([',', '>']));
        match suffix {
            Some((s, ty)) if starts_argument => {
                let (head, sign) = head.strip_suffix('-').map_or((head, ""), |h| (h, "-"));
                out.push_str(&format!("{head}({ty}){sign}{}", &tail[..digits]));
                rest = &after[s.len()..];
            }
            _ => {
                out.push_str(head);
                out.push_str(&tail[..digits]);
                rest = after;
            }
        }
    }
    out + rest
}

#[test]
fn cast_spelling_rewrites_only_suffixed_literal_arguments() {
    assert_eq!(
        cast_spelling("void f<3, 4u, -5l, 6ul, 7ll, 8ull>()"),
        "void f<3, (unsigned int)4, (long)-5, (unsigned long)6, (long long)7, (unsigned long long)8>()"
    );
    assert_eq!(cast_spelling("vec2Nx8U f<(unsigned char)1>(int, x86l)"), "vec2Nx8U f<(unsigned char)1>(int, x86l)");
}

#[test]
fn undecodable_names_fall_back_to_the_raw_name() {
    // Not mangled names: c++filt leaves them alone too.
    for raw in ["_Z9iota_implILb1EEvX", "kernel_main"] {
        assert_eq!(demangle(raw), None, "{raw}");
    }
    if let Some(out) = peer("xtensa-lx106-elf-c++filt", &["_Z9iota_implILb1EEvX", "kernel_main"]) {
        assert_eq!(stdout(&out), "_Z9iota_implILb1EEvX\nkernel_main\n", "c++filt leaves them alone too");
    }
    // An image whose property section name is damaged shows the raw name.
    let mut bytes = std::fs::read(host("cayman_lib1.elf")).unwrap();
    let needle = b".xt.prop._Z9iota_implILb1EEvv";
    let at = bytes.windows(needle.len()).position(|w| w == needle).unwrap();
    bytes[at + needle.len() - 1] = b'X';
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.elf");
    std::fs::write(&path, bytes).unwrap();
    let out = q7(&["inspect", "roster", path.to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let damaged = v["names"].as_array().unwrap().iter().find(|n| n["mangled"] == "_Z9iota_implILb1EEvX").unwrap();
    assert!(damaged["demangled"].is_null());
    let text = stdout(&q7(&["inspect", "roster", path.to_str().unwrap()]));
    assert!(text.lines().any(|l| l.trim_end().ends_with(" _Z9iota_implILb1EEvX")), "{text}");
}

#[test]
fn manifest_joins_opcodes_to_names_and_stubs_are_flagged() {
    let manifest = root().join("fixtures/host/src/sunda_manifest.json");
    let out = q7(&[
        "inspect",
        "roster",
        host("sunda.elf").to_str().unwrap(),
        "--manifest",
        manifest.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["manifest"]["kind"], "manifest");
    let join = v["join"].as_array().unwrap();
    assert!(join.iter().all(|r| r["status"] == "joined"), "{join:?}");
    let by_opcode = |op: u64| join.iter().find(|r| r["opcode"] == op).unwrap();
    assert_eq!(by_opcode(67)["name"], "pool_tensor_scalar_arith_op");
    assert_eq!(by_opcode(67)["entry"], by_opcode(68)["entry"]);
    assert_eq!(by_opcode(231)["name"], "pool_indirect_copy");

    let dir = tempfile::tempdir().unwrap();
    let stub = dir.path().join("stub.json");
    std::fs::write(&stub, b"{\"dummy_message\":\"hello world\"}\0").unwrap();
    let out = q7(&[
        "inspect",
        "roster",
        host("cayman_lib0.elf").to_str().unwrap(),
        "--manifest",
        stub.to_str().unwrap(),
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["manifest"]["kind"], "stub");
    assert!(v["join"].as_array().unwrap().iter().all(|r| r["status"] == "no manifest (stub)" && r["name"].is_null()));
}

/// Each name's code address is the function readelf's symbol table of the
/// unstripped link gives; here checked through the .xt.prop records against
/// llvm-objdump: the address holds a function start (a call0 prologue or an
/// `entry`), never a literal.
#[test]
fn names_point_at_code_in_text() {
    let out = q7(&["inspect", "roster", host("cayman_lib0.elf").to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bytes = std::fs::read(host("cayman_lib0.elf")).unwrap();
    let elf = q7_elf::ElfFile::parse(&bytes).unwrap();
    let text = elf.section_by_name(".text").unwrap();
    let mut last = 0;
    for n in v["names"].as_array().unwrap() {
        let a = n["address"].as_u64().unwrap() as u32;
        assert!(text.contains_vaddr(a), "{n}");
        assert_eq!(n["file_offset"].as_u64().unwrap() as u32, elf.vaddr_to_offset(a).unwrap());
        assert!(a > last, "names in link order: {n}");
        last = a;
    }
}

#[test]
fn human_reports_match_golden_files() {
    let manifest = root().join("fixtures/host/src/sunda_manifest.json");
    let out = q7(&["inspect", "roster", host("sunda.elf").to_str().unwrap(), "--manifest", manifest.to_str().unwrap()]);
    assert!(out.status.success());
    assert_golden("roster_sunda.txt", &stdout(&out).replace(&root().display().to_string(), "$ROOT"));
    let out = q7(&["inspect", "roster", host("cayman_lib0.elf").to_str().unwrap()]);
    assert_golden("roster_cayman_lib0.txt", &stdout(&out).replace(&root().display().to_string(), "$ROOT"));
}
