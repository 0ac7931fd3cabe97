//! The `xtensa-tools` profile runs exactly the commands of docs/PLATFORM.md,
//! "Vendor build driver": recording stand-ins for `xt-clang++` and `xt-pkg-loadlib` log their
//! argv, which must equal the documented ones, phase by phase — the flag bundles, the
//! include order, the library order, `-mlsp=` per core, the `_cpuX` naming,
//! the `-g` gate and the environment knobs. The expected argv are written out
//! here by hand from the seed, not derived from q7's code.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

const STAND_IN: &str = r#"#!/bin/sh
# Records its name, argv and LM_LICENSE_FILE, then creates what -o/-s name.
{
  printf '%s' "$(basename "$0")"
  for a in "$@"; do printf '\037%s' "$a"; done
  printf '\037LM_LICENSE_FILE=%s\n' "$LM_LICENSE_FILE"
} >> "$Q7_RECORD"
prev=""
for a in "$@"; do
  case "$prev" in -o|-s) : > "$a" ;; esac
  prev="$a"
done
"#;

struct Rig {
    dir: tempfile::TempDir,
    bin: PathBuf,
    src: PathBuf,
    build: PathBuf,
    record: PathBuf,
}

fn rig() -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("vendor bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["xt-clang++", "xt-pkg-loadlib"] {
        let p = bin.join(tool);
        std::fs::write(&p, STAND_IN).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let src = dir.path().join("relu.cpp");
    std::fs::write(&src, "// op\n").unwrap();
    let build = dir.path().join("build");
    let record = dir.path().join("record.log");
    Rig { dir, bin, src, build, record }
}

impl Rig {
    fn run(&self, extra: &[&str], env: &[(&str, &str)]) -> Vec<Vec<String>> {
        let _ = std::fs::remove_file(&self.record);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_q7"));
        cmd.env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("HOME", self.dir.path())
            .env("Q7_RECORD", &self.record)
            .args(["build", "--toolchain", "xtensa-tools", "-j", "1", "--name", "librelu", "--fn", "relu_forward"])
            .args(["--schema", "relu_forward(Tensor _0) -> Tensor", "--build-dir"])
            .arg(&self.build)
            .arg(&self.src)
            .args(extra);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read_to_string(&self.record)
            .unwrap()
            .lines()
            .map(|l| l.split('\u{1f}').map(str::to_string).collect())
            .collect()
    }
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

const ROOT: &str = "/opt/aws/neuron/gpsimd/custom_op";
const SYSTEM: &str = "--xtensa-system=/opt/aws/neuron/gpsimd/tools/ncore2gp/config";
const LICENSE: &str = "LM_LICENSE_FILE=/opt/aws/neuron/gpsimd/tools/licenses/amzn_vq7_us_582883.out";

fn compile_argv(b: &Path, src: &Path, stem: &str, cflags: &[&str], includes: &[&str]) -> Vec<String> {
    let mut v = strs(&[
        "xt-clang++",
        "-g",
        "-std=c++14",
        "-stdlib=libc++-e",
        "-fno-jump-tables",
        "-Os",
        "-Wall",
        "-Werror",
        "-Wno-c99-designator",
        "-mcoproc",
        "-MMD",
        "-MP",
        "-fpic",
        "-mlongcalls",
        "-c",
        "--xtensa-core=ncore2gp",
        SYSTEM,
    ]);
    v.extend(strs(cflags));
    v.extend(strs(&[&format!("-I{ROOT}"), &format!("-I{ROOT}/torch/include"), &format!("-I{ROOT}/c10/include")]));
    v.extend(includes.iter().map(|i| format!("-I{i}")));
    v.extend(strs(&["-o", &format!("{}/{stem}.o", b.display()), &src.display().to_string(), LICENSE]));
    v
}

fn link_argv(b: &Path, lib: &str, lsp: &str) -> Vec<String> {
    let mut v = strs(&[
        "xt-clang++",
        "-g",
        "-std=c++14",
        "-stdlib=libc++-e",
        "-fno-jump-tables",
        "-Os",
        "-Wall",
        "-Werror",
        "-Wno-c99-designator",
        "-mcoproc",
        "--xtensa-core=ncore2gp",
        SYSTEM,
    ]);
    v.extend(strs(&[&format!("-I{ROOT}"), &format!("-I{ROOT}/torch/include"), &format!("-I{ROOT}/c10/include")]));
    v.extend(strs(&["-o", &format!("{}/{lib}.so", b.display())]));
    v.extend(strs(&[&format!("{}/relu.o", b.display()), &format!("{}/wrapper.o", b.display())]));
    v.extend(strs(&[
        &format!("{ROOT}/neuron/libneuroncustomop.a"),
        &format!("{ROOT}/c10/lib/libc10.a"),
        "-lloader",
        &format!("-mlsp={ROOT}/lsp_fll_load_cpus/{lsp}"),
        "-lxmem",
        "-lhal",
        "-lc++-e",
        "-lm",
        "-lgcc",
        &format!("{ROOT}/neuron/libcweak.a"),
        LICENSE,
    ]));
    v
}

fn pack_argv(b: &Path, lib: &str) -> Vec<String> {
    let p = |suffix: &str| format!("{}/{lib}{suffix}", b.display());
    strs(&[
        "xt-pkg-loadlib",
        "-e",
        "lib_func",
        "--xtensa-core=ncore2gp",
        SYSTEM,
        "-o",
        &p(".packed.so"),
        "-s",
        &p(".stripped.so"),
        &p(".so"),
        LICENSE,
    ])
}

#[test]
fn single_core_build_runs_the_seed_commands() {
    let r = rig();
    let log = r.run(&["-I", "/my inc", "--cflag", "-DFOO=1"], &[]);
    let wrapper = r.build.join("wrapper.cpp");
    let expected = vec![
        compile_argv(&r.build, &r.src, "relu", &["-DFOO=1"], &["/my inc"]),
        compile_argv(&r.build, &wrapper, "wrapper", &["-DFOO=1"], &[]),
        link_argv(&r.build, "librelu", "lsp_fll_load_cpu_single"),
        pack_argv(&r.build, "librelu"),
    ];
    assert_eq!(log, expected);
}

#[test]
fn multicore_build_links_eight_cpu_images_and_packs_each() {
    let r = rig();
    let log = r.run(&["--multicore"], &[]);
    assert_eq!(log.len(), 2 + 8 + 8);
    // The seed's commands; q7 packs each image right after linking it (the
    // seed links all eight first), so at -j1 links and packs alternate.
    for i in 0..8 {
        let lib = format!("librelu_cpu{i}");
        assert_eq!(log[2 + 2 * i], link_argv(&r.build, &lib, &format!("lsp_fll_load_cpu{i}")));
        assert_eq!(log[3 + 2 * i], pack_argv(&r.build, &lib));
    }
}

#[test]
fn debug_cflag_skips_strip_and_pack() {
    let r = rig();
    let log = r.run(&["--cflag", "-g", "--multicore"], &[]);
    assert_eq!(log.len(), 2 + 8, "no xt-pkg-loadlib after a -g build");
    assert!(log.iter().all(|l| l[0] == "xt-clang++"));
    assert_eq!(log[0], compile_argv(&r.build, &r.src, "relu", &["-g"], &[]));
}

#[test]
fn environment_knobs_move_the_paths() {
    let r = rig();
    let tools = r.dir.path().join("xt");
    std::fs::create_dir_all(tools.join("XtensaTools/bin")).unwrap();
    let log = r.run(
        &[],
        &[("NEURON_CUSTOM_OP", "/nc"), ("Q7_CORE", "mycore"), ("Q7_TOOLS", "/sys"), ("LM_LICENSE_FILE", "/lic.dat")],
    );
    assert!(log[0].contains(&"--xtensa-core=mycore".to_string()), "{:?}", log[0]);
    assert!(log[0].contains(&"--xtensa-system=/sys".to_string()));
    assert!(log[0].contains(&"-I/nc/torch/include".to_string()));
    assert_eq!(log[0].last().unwrap(), "LM_LICENSE_FILE=/lic.dat");
    assert!(log[2].contains(&"-mlsp=/nc/lsp_fll_load_cpus/lsp_fll_load_cpu_single".to_string()));
    // Without the core knob, --xtensa-system follows the default core.
    let log = r.run(&[], &[("Q7_CORE", "other")]);
    assert!(log[0].contains(&"--xtensa-system=/opt/aws/neuron/gpsimd/tools/other/config".to_string()));
}

#[test]
fn compiler_found_under_xtensa_tools() {
    let r = rig();
    // Not on PATH, but under $XTENSA_TOOLS/XtensaTools/bin.
    let tools = r.dir.path().join("XT");
    let bin = tools.join("XtensaTools/bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["xt-clang++", "xt-pkg-loadlib"] {
        std::fs::rename(r.bin.join(tool), bin.join(tool)).unwrap();
    }
    let log = r.run(&[], &[("XTENSA_TOOLS", tools.to_str().unwrap())]);
    assert_eq!(log.len(), 4);
}

#[test]
fn missing_vendor_compiler_uses_the_seed_message() {
    let r = rig();
    std::fs::remove_file(r.bin.join("xt-clang++")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_q7"))
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", r.bin.display()))
        .args(["build", "--toolchain", "xtensa-tools", "--name", "x", "--fn", "f", "--schema", "f(Tensor a) -> Tensor"])
        .arg("--build-dir")
        .arg(r.src.with_file_name("out"))
        .arg(&r.src)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "q7: error: Could not find xt-clang++\n");
}
