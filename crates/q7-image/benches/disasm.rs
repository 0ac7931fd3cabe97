//! `cargo bench -p q7-image --bench disasm`: listing throughput of q7's
//! disassembler (instructions per second, human listing into memory) against
//! `llvm-objdump-22 -d --mattr=<vision-q7>` (output to /dev/null), the median
//! of several runs each, printed as a ratio. No assertions.
//!
//! Inputs: the largest clang/GNU fixture (a few hundred instructions, so LLVM's
//! time is mostly process start-up, printed separately); a synthetic ~1 MiB
//! image of prog_cpu0.so's .text repeated, with each copy's symbols; and the
//! same bytes without symbols, as a raw blob for q7 and a symbol-less ELF
//! for LLVM (which cannot read raw bytes). Inputs are generated into a
//! temporary directory; nothing is committed.

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
         q7/llvm = {:.1}x",
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
    let dir = tempfile::tempdir().unwrap();
    let startup = median(
        (0..LLVM_RUNS)
            .map(|_| {
                let t = Instant::now();
                Command::new(LLVM_OBJDUMP).arg("--version").stdout(Stdio::null()).status().unwrap();
                t.elapsed()
            })
            .collect(),
    );
    println!("llvm-objdump-22 process start-up (--version): {:.3} ms", startup.as_secs_f64() * 1e3);

    let (path, code) = largest_fixture();
    let data = std::fs::read(&path).unwrap();
    let name = format!("largest fixture {} ({code} code bytes)", path.file_name().unwrap().to_string_lossy());
    let llvm_fixture = time_llvm(&path);
    report(&name, time_q7(&data, &options(true, None)), llvm_fixture);
    let work = llvm_fixture.0.saturating_sub(startup).max(Duration::from_micros(1));
    println!(
        "  (llvm-objdump-22 without its start-up: {:.3} ms = {:.2} M insn/s)",
        work.as_secs_f64() * 1e3,
        per_second(llvm_fixture.1, work) / 1e6
    );

    let (image, _) = synthetic(true);
    let elf_path = dir.path().join("synthetic.so");
    std::fs::write(&elf_path, &image).unwrap();
    let name = format!("synthetic {} KiB image with symbols", image.len() >> 10);
    report(&name, time_q7(&image, &options(true, None)), time_llvm(&elf_path));

    let (bare, raw) = synthetic(false);
    let bare_path = dir.path().join("synthetic_bare.so");
    std::fs::write(&bare_path, &bare).unwrap();
    let name = format!("synthetic {} KiB raw blob (llvm: the same bytes as a symbol-less ELF)", raw.len() >> 10);
    report(&name, time_q7(&raw, &options(false, Some(0x8400_0000))), time_llvm(&bare_path));
}
