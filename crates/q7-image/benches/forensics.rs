//! `cargo bench -p q7-image --bench forensics`: carve throughput on a
//! synthetic 256 MiB host file against `grep -abo` of the ELF magic, and
//! rebase-diff over eight synthetic per-core images (the vendor's size, docs/FACTS.md)
//! against `cmp -l` on the seven pairs. Inputs are generated into a
//! temporary directory at run time (nothing is committed), or into
//! `$Q7_BENCH_INPUTS` when set, where they stay for `scripts/bench.sh` to
//! time the whole `q7` process against the same peers.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use q7_elf::consts::*;
use q7_elf::write::{ElfBuilder, NewSection, NewSegment};
use q7_elf::{ElfFile, Endian};
use q7_testkit::Rng;

const HOST_SIZE: usize = 256 << 20;
const IMAGE_SIZE: usize = 579_380;
const RUNS: usize = 5;

/// Median wall time of `RUNS` runs.
fn median_of_runs<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut out = None;
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let v = f();
        times.push(t.elapsed());
        out = Some(v);
    }
    times.sort();
    (times[RUNS / 2], out.unwrap())
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / (1 << 20) as f64 / d.as_secs_f64()
}

fn fixtures() -> PathBuf {
    q7_testkit::fixtures()
}

/// Random bytes with the host fixture's five images sprinkled through them.
fn host_file(dir: &Path) -> PathBuf {
    let images: Vec<Vec<u8>> = ["sunda", "cayman_lib0", "cayman_lib1", "mariana_lib0", "mariana_lib1"]
        .iter()
        .map(|n| std::fs::read(fixtures().join(format!("host/bin/{n}.elf"))).unwrap())
        .collect();
    let mut data = vec![0u8; HOST_SIZE];
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    rng.fill(&mut data);
    let stride = HOST_SIZE / 256;
    for i in 0..255 {
        let img = &images[i % images.len()];
        let at = i * stride + 4096;
        data[at..at + img.len()].copy_from_slice(img);
    }
    let path = dir.join("host.bin");
    std::fs::write(&path, &data).unwrap();
    path
}

fn grep_magic(path: &Path) -> Option<usize> {
    let out = Command::new("grep")
        .env("LC_ALL", "C")
        .args(["-a", "-o", "-b", "-P", "\\x7fELF"])
        .arg(path)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    Some(out.stdout.iter().filter(|&&b| b == b'\n').count())
}

/// One program "linked" at core `id`'s window: code-like random bytes with
/// a literal word every 48 bytes, a pointer table and strings, every
/// absolute address moved by the window base (the vendor images' shape and size, docs/FACTS.md).
fn core_image(id: u32) -> Vec<u8> {
    let base = 0x8400_0000 + id * 0x20_0000;
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let text_len = (IMAGE_SIZE - (64 << 10)) & !3;
    let mut text = vec![0u8; text_len];
    rng.fill(&mut text);
    for at in (0..text_len).step_by(48) {
        let target = (rng.next_u64() % text_len as u64) as u32 & !3;
        text[at..at + 4].copy_from_slice(&(base + target).to_le_bytes());
    }
    let mut rodata = Vec::new();
    for i in 0..4096u32 {
        rodata.extend_from_slice(&(base + (i * 97 % text_len as u32)).to_le_bytes());
    }
    for i in 0..2000 {
        rodata.extend_from_slice(format!("kernel_name_{i}\0").as_bytes());
    }
    let mut b = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    b.entry = base + 0xcd94;
    b.flags = 0x300;
    let t = b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, base, 4, text));
    let r = b.add_section(NewSection::progbits(".rodata", SHF_ALLOC, base + text_len as u32, 4, rodata));
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: 7, align: 4, sections: vec![t, r] });
    b.build().unwrap()
}

fn main() {
    let temp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("Q7_BENCH_INPUTS").map(PathBuf::from);
    if let Some(k) = &kept {
        std::fs::create_dir_all(k).unwrap();
    }
    let dir = kept.as_deref().unwrap_or(temp.path());

    // Carve.
    let host = host_file(dir);
    let (ours, report) = median_of_runs(|| {
        let data = q7_image::carve::map_file(&host).unwrap();
        q7_image::carve::carve(&data, &mut |_, _| {})
    });
    println!(
        "carve: {} MiB synthetic host, {} magic hits, {} stored, {} distinct",
        HOST_SIZE >> 20,
        report.hits.len(),
        report.stored,
        report.distinct.len()
    );
    println!(
        "  q7 carve (scan, size, validate, sha256, collapse): {:>8.1} ms  {:>7.0} MB/s",
        ours.as_secs_f64() * 1e3,
        mbps(HOST_SIZE, ours)
    );
    let (grep, count) = median_of_runs(|| grep_magic(&host));
    match count {
        Some(n) => {
            println!(
                "  grep -abo '\\x7fELF' (offsets only):                {:>8.1} ms  {:>7.0} MB/s  ({n} hits)",
                grep.as_secs_f64() * 1e3,
                mbps(HOST_SIZE, grep)
            );
            println!("  ratio: q7 carve is {:.2}x grep's speed", grep.as_secs_f64() / ours.as_secs_f64());
            if n != report.hits.len() {
                println!("  WARNING: grep counted {n} hits, carve {}", report.hits.len());
            }
        }
        None => println!("  grep not runnable: no comparison"),
    }

    // Rebase diff.
    let images: Vec<Vec<u8>> = (0..8).map(core_image).collect();
    let paths: Vec<PathBuf> = images
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let p = dir.join(format!("core_cpu{i}.so"));
            std::fs::write(&p, b).unwrap();
            p
        })
        .collect();
    let (ours, verdict) = median_of_runs(|| {
        let bytes: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
        let elfs: Vec<ElfFile> = bytes.iter().map(|b| ElfFile::parse(b).unwrap()).collect();
        let r = q7_image::rebase_diff::rebase_diff(&elfs);
        (r.verdict.identical_modulo_rebase, r.pairs[0].differing_bytes)
    });
    println!(
        "\nrebase-diff: 8 synthetic images of {} bytes, {} differing bytes per pair, identical modulo rebase: {}",
        images[0].len(),
        verdict.1,
        verdict.0
    );
    println!("  q7 rebase-diff (8 images: bytes, words, strings, verdict): {:>7.1} ms", ours.as_secs_f64() * 1e3);
    let elfs: Vec<ElfFile> = images.iter().map(|b| ElfFile::parse(b).unwrap()).collect();
    let (strings, _) = median_of_runs(|| {
        elfs.iter().map(|e| q7_image::strings::StringsReport::of(e, 4, None).unwrap().sections.len()).sum::<usize>()
    });
    println!("    of which the 8 strings reports take about               {:>7.1} ms", strings.as_secs_f64() * 1e3);
    let (cmp, lines) = median_of_runs(|| {
        let mut lines = 0;
        for p in &paths[1..] {
            let out = Command::new("cmp").arg("-l").arg(&paths[0]).arg(p).output().ok()?;
            lines += out.stdout.iter().filter(|&&b| b == b'\n').count();
        }
        Some(lines)
    });
    match lines {
        Some(n) => {
            println!(
                "  cmp -l on the 7 pairs ({n} lines):                          {:>7.1} ms",
                cmp.as_secs_f64() * 1e3
            );
            println!("  ratio: q7 rebase-diff takes {:.2}x the time of cmp -l", ours.as_secs_f64() / cmp.as_secs_f64());
        }
        None => println!("  cmp not runnable: no comparison"),
    }
}
