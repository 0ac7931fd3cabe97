//! `cargo bench -p q7-image --bench disasm`: listing throughput of `q7
//! disasm` against `llvm-objdump-22 -d --mattr=<vision-q7>`, both as whole
//! processes writing to /dev/null (instructions per second, the median of
//! several runs each), printed as a ratio. No assertions.
//!
//! The q7 process is the release binary `target/release/q7`, built first
//! with `cargo build --release -p q7` (so the figure includes q7's start-up,
//! reading the file and writing the listing, as LLVM's does). The library's
//! in-process time (listing into memory) is printed beside it.
//!
//! Inputs: the largest clang/GNU fixture (a few hundred instructions, so
//! both tools' time is mostly process start-up, printed separately); a
//! synthetic ~1 MiB image of prog_cpu0.so's .text repeated, with each copy's
//! symbols; and the same bytes without symbols, as a raw blob for q7 and a
//! symbol-less ELF for LLVM (which cannot read raw bytes). Inputs are
//! generated into a temporary directory (nothing is committed), or into
//! `$Q7_BENCH_INPUTS` when set, where they stay for profiling.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use q7_elf::consts::*;
use q7_elf::write::{ElfBuilder, NewSection, NewSegment, NewSymbol};
use q7_elf::{ElfFile, Endian};
use q7_image::disasm::{DisasmOptions, Disassembly, IsaOptions};

const LLVM_OBJDUMP: &str = "llvm-objdump-22";
const Q7_RUNS: usize = 7;
const LLVM_RUNS: usize = 5;
const SYNTHETIC_SIZE: usize = 1 << 20;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn fixtures_dir() -> PathBuf {
    q7_testkit::fixtures()
}

fn options(symbols: bool, base: Option<u32>) -> DisasmOptions {
    let isa = IsaOptions::vision_q7();
    DisasmOptions { isa, isa_name: "vision-q7".into(), symbols, base, ..DisasmOptions::default() }
}

/// The release `q7` binary, built (or brought up to date) by cargo first.
fn q7_binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "-p", "q7", "--bin", "q7"])
        .current_dir(&root)
        .status()
        .expect("run cargo build");
    assert!(status.success(), "cargo build --release -p q7 failed");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), PathBuf::from);
    target.join("release/q7")
}

/// Median time of the `q7 disasm ARGS` process to /dev/null, and its
/// instruction-line count (lines of a listing that start with an address).
fn time_q7_process(q7: &Path, args: &[&str]) -> (Duration, u64) {
    let run = |stdout: Stdio| Command::new(q7).arg("disasm").args(args).stdout(stdout).output().unwrap();
    let listing = run(Stdio::piped());
    assert!(listing.status.success(), "q7 disasm {args:?}: {}", String::from_utf8_lossy(&listing.stderr));
    let lines = listing.stdout.split(|&b| b == b'\n').filter(|l| l.len() > 9 && l[8] == b':').count();
    let times = (0..Q7_RUNS)
        .map(|_| {
            let t = Instant::now();
            assert!(run(Stdio::null()).status.success());
            t.elapsed()
        })
        .collect();
    (median(times), lines as u64)
}

/// Median time of q7's human listing of `data` into memory, and its line count.
fn time_q7(data: &[u8], options: &DisasmOptions) -> (Duration, u64) {
    let mut lines = 0;
    let mut out = Vec::with_capacity(64 << 20);
    let times = (0..Q7_RUNS)
        .map(|_| {
            out.clear();
            let t = Instant::now();
            let listing = Disassembly::prepare(data, options).unwrap();
            lines = listing.write_text(&mut out, "bench").unwrap();
            t.elapsed()
        })
        .collect();
    (median(times), lines)
}

fn llvm(args: &[&str], path: &Path, stdout: Stdio) -> std::process::Output {
    let mattr = format!("--mattr={}", IsaOptions::vision_q7().llvm_mattr());
    Command::new(LLVM_OBJDUMP).args(args).arg(&mattr).arg(path).stdout(stdout).output().unwrap()
}

/// Median time of llvm-objdump to /dev/null, and its instruction-line count.
fn time_llvm(path: &Path) -> (Duration, u64) {
    let listing =
        String::from_utf8_lossy(&llvm(&["-d", "--no-show-raw-insn"], path, Stdio::piped()).stdout).to_string();
    // Instruction lines start with a hex address and a colon; labels do not.
    let lines = listing
        .lines()
        .filter(|l| l.split_once(':').is_some_and(|(addr, _)| u64::from_str_radix(addr.trim(), 16).is_ok()))
        .count();
    let times = (0..LLVM_RUNS)
        .map(|_| {
            let t = Instant::now();
            let out = llvm(&["-d", "--no-show-raw-insn"], path, Stdio::null());
            assert!(out.status.success());
            t.elapsed()
        })
        .collect();
    (median(times), lines as u64)
}

fn per_second(count: u64, time: Duration) -> f64 {
    count as f64 / time.as_secs_f64()
}

fn report(name: &str, q7: (Duration, u64), llvm: (Duration, u64)) {
    let (q7_rate, llvm_rate) = (per_second(q7.1, q7.0), per_second(llvm.1, llvm.0));
    println!(
        "{name}: q7 {} lines in {:.3} ms = {:.2} M insn/s; llvm-objdump-22 {} lines in {:.3} ms = {:.2} M insn/s; \
         q7/llvm = {:.1}x (whole processes)",
        q7.1,
        q7.0.as_secs_f64() * 1e3,
        q7_rate / 1e6,
        llvm.1,
        llvm.0.as_secs_f64() * 1e3,
        llvm_rate / 1e6,
        q7_rate / llvm_rate
    );
}

/// The fixture (fixtures/bin) with the most executable bytes. The stripped
/// host images are left out: LLVM 22 stops listing a section whose first
/// word it cannot decode, and theirs start with a literal pool.
fn largest_fixture() -> (PathBuf, usize) {
    let mut best = (PathBuf::new(), 0);
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(fixtures_dir().join("bin")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        let data = std::fs::read(&path).unwrap();
        let Ok(elf) = ElfFile::parse_xtensa(&data) else { continue };
        let code: usize = elf.sections().iter().filter(|s| s.is_alloc() && s.is_exec()).map(|s| s.data().len()).sum();
        if code > best.1 {
            best = (path, code);
        }
    }
    best
}

/// prog_cpu0.so's .text repeated to about `SYNTHETIC_SIZE` bytes, as an ELF
/// (with every copy's function symbols when `symbols`), plus the raw bytes.
fn synthetic(symbols: bool) -> (Vec<u8>, Vec<u8>) {
    let data = std::fs::read(fixtures_dir().join("bin/prog_cpu0.so")).unwrap();
    let elf = ElfFile::parse_xtensa(&data).unwrap();
    let text = elf.section_by_name(".text").unwrap();
    let copies = SYNTHETIC_SIZE / text.data().len();
    let bytes = text.data().repeat(copies);
    let stride = text.data().len() as u32;

    let mut builder = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    let id = builder.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, text.addr, 4, bytes.clone()));
    builder.add_segment(NewSegment { p_type: PT_LOAD, flags: 5, align: 4, sections: vec![id] });
    if symbols {
        let functions: Vec<_> = elf.symbols().unwrap().into_iter().filter(|s| s.kind() == STT_FUNC).collect();
        for copy in 0..copies as u32 {
            for f in &functions {
                builder.add_symbol(NewSymbol {
                    name: format!("{}.{copy}", f.name),
                    section: Some(id),
                    value: f.value + copy * stride,
                    size: f.size,
                    bind: STB_GLOBAL,
                    kind: STT_FUNC,
                });
            }
        }
    }
    (builder.build().unwrap(), bytes)
}

fn main() {
    if Command::new(LLVM_OBJDUMP).arg("--version").output().is_err() {
        println!("{LLVM_OBJDUMP} not found; install llvm-22 (scripts/bootstrap.sh) to compare");
        return;
    }
    let q7 = q7_binary();
    let temp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("Q7_BENCH_INPUTS").map(PathBuf::from);
    if let Some(kept) = &kept {
        std::fs::create_dir_all(kept).unwrap();
    }
    let dir = kept.as_deref().unwrap_or(temp.path());
    let startup = |program: &Path, args: &[&str]| {
        median(
            (0..LLVM_RUNS)
                .map(|_| {
                    let t = Instant::now();
                    Command::new(program).args(args).stdout(Stdio::null()).status().unwrap();
                    t.elapsed()
                })
                .collect(),
        )
    };
    println!(
        "process start-up: llvm-objdump-22 --version {:.3} ms, q7 --version {:.3} ms",
        startup(Path::new(LLVM_OBJDUMP), &["--version"]).as_secs_f64() * 1e3,
        startup(&q7, &["--version"]).as_secs_f64() * 1e3
    );

    let (path, code) = largest_fixture();
    let data = std::fs::read(&path).unwrap();
    let name = format!("largest fixture {} ({code} code bytes)", path.file_name().unwrap().to_string_lossy());
    report(&name, time_q7_process(&q7, &[path.to_str().unwrap()]), time_llvm(&path));
    in_process(time_q7(&data, &options(true, None)));

    let (image, _) = synthetic(true);
    let elf_path = dir.join("synthetic.so");
    std::fs::write(&elf_path, &image).unwrap();
    let name = format!("synthetic {} KiB image with symbols", image.len() >> 10);
    report(&name, time_q7_process(&q7, &[elf_path.to_str().unwrap()]), time_llvm(&elf_path));
    in_process(time_q7(&image, &options(true, None)));

    let (bare, raw) = synthetic(false);
    let bare_path = dir.join("synthetic_bare.so");
    let raw_path = dir.join("synthetic.bin");
    std::fs::write(&bare_path, &bare).unwrap();
    std::fs::write(&raw_path, &raw).unwrap();
    let name = format!("synthetic {} KiB raw blob (llvm: the same bytes as a symbol-less ELF)", raw.len() >> 10);
    let q7_raw = time_q7_process(&q7, &[raw_path.to_str().unwrap(), "--base", "0x84000000"]);
    report(&name, q7_raw, time_llvm(&bare_path));
    in_process(time_q7(&raw, &options(false, Some(0x8400_0000))));
}

/// The library's time for the same listing into memory (no process, no I/O).
fn in_process((time, lines): (Duration, u64)) {
    println!(
        "  (q7 library in-process, listing into memory: {lines} lines in {:.3} ms = {:.2} M insn/s)",
        time.as_secs_f64() * 1e3,
        per_second(lines, time) / 1e6
    );
}
