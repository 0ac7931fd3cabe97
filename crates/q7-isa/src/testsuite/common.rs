//! Shared helpers of the q7-isa integration tests: a deterministic random
//! source, instruction-word generators, and drivers for the peer tools
//! (LLVM 22 and GNU binutils for the lx106 core).

#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::process::Command;

use q7_isa::{decode_word, instruction_length, IsaOptions, Opcode};
pub use q7_testkit::Rng;

/// A random word shaped like `op`'s encoding: its fixed bits, random elsewhere.
/// It may still be invalid (an absent special register, for instance).
pub fn template_word(op: Opcode, rng: &mut Rng) -> u32 {
    let pattern = op.pattern().expect("every opcode has an encoding");
    let width_mask = if pattern.len == 2 { 0xffff } else { 0xff_ffff };
    (rng.next_u32() & !pattern.mask & width_mask) | pattern.value
}

/// Test words: half uniform random 24-bit values, half shaped like a random
/// instruction of the table, so every opcode is exercised even when uniform
/// sampling would rarely hit it. Each word is cut to the length op0 gives it
/// under `opts` (3 bytes when the length is unknown).
pub fn mixed_words(count: usize, seed: u64, opts: &IsaOptions) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|i| {
            let word = if i % 2 == 0 {
                rng.next_u32() & 0xff_ffff
            } else {
                let op = Opcode::ALL[rng.below(Opcode::ALL.len())];
                template_word(op, &mut rng)
            };
            let bytes = word.to_le_bytes();
            let len = instruction_length(bytes[0], opts).unwrap_or(3).min(3);
            bytes[..usize::from(len)].to_vec()
        })
        .collect()
}

/// Words that decode under `opts`, up to `per_opcode` per available opcode,
/// with random operand bits. An opcode whose operands cannot exist under
/// `opts` (`rur` without user registers) gets none.
pub fn valid_words(per_opcode: usize, seed: u64, opts: &IsaOptions) -> Vec<(Opcode, u32)> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for &op in Opcode::ALL {
        if !op.available(opts) {
            continue;
        }
        let len = op.pattern().map_or(3, |p| p.len);
        let mut found = 0;
        for _ in 0..per_opcode * 64 {
            let word = template_word(op, &mut rng);
            if decode_word(word, len, 0x4000, opts).is_ok_and(|insn| insn.op == op) {
                out.push((op, word));
                found += 1;
                if found == per_opcode {
                    break;
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Peer tools
// ---------------------------------------------------------------------------

pub const LLVM_MC: &str = "llvm-mc-22";
pub const LLVM_OBJDUMP: &str = "llvm-objdump-22";
pub const GNU_AS: &str = "xtensa-lx106-elf-as";
pub const GNU_OBJDUMP: &str = "xtensa-lx106-elf-objdump";
pub const GNU_OBJCOPY: &str = "xtensa-lx106-elf-objcopy";

const BOOTSTRAP_HINT: &str = "install the peer toolchain with the project bootstrap \
     (apt-get install -y clang-22 llvm-22 binutils-xtensa-lx106 gcc-xtensa-lx106), \
     or set Q7_SKIP_PEERS=1 to skip the differential tests";

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// Checks that the peer tools exist. Returns false (the test should return
/// early) only when `Q7_SKIP_PEERS=1`; a missing tool otherwise fails the test.
pub fn peers_available(tools: &[&str]) -> bool {
    if q7_testkit::skip_peers() {
        eprintln!("Q7_SKIP_PEERS=1: skipping the comparison with {tools:?}");
        return false;
    }
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !on_path(t)).collect();
    assert!(missing.is_empty(), "peer tools missing from PATH: {missing:?}; {BOOTSTRAP_HINT}");
    true
}

/// Runs a command and returns its standard output, failing the test on error.
pub fn run(command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("cannot run {command:?}: {e}; {BOOTSTRAP_HINT}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr).lines().take(20).collect::<Vec<_>>().join("\n")
    );
    String::from_utf8(output.stdout).expect("tool output is UTF-8")
}

/// Assembles an object whose `.text` holds each byte string under its own
/// symbol `w<index>`, so a disassembler restarts at every one of them: a
/// misdecoded word cannot desynchronize the next.
pub fn words_object(dir: &Path, words: &[Vec<u8>]) -> PathBuf {
    let mut source = String::with_capacity(words.len() * 32);
    source.push_str("\t.text\n");
    for (i, bytes) in words.iter().enumerate() {
        let list: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        source.push_str(&format!("w{i}:\t.byte {}\n", list.join(",")));
    }
    let asm = dir.join("words.s");
    let obj = dir.join("words.o");
    std::fs::write(&asm, source).expect("write assembly");
    run(Command::new(LLVM_MC).args(["-triple=xtensa", "-filetype=obj", "-o"]).arg(&obj).arg(&asm));
    obj
}

/// The first instruction text after each `<w<index>>:` label of an objdump
/// listing, with its address: `(index, address, text)`. Works for both
/// `llvm-objdump --no-show-raw-insn` and GNU `objdump --no-show-raw-insn`.
pub fn first_line_per_word(listing: &str) -> Vec<Option<(u32, String)>> {
    let mut out: Vec<Option<(u32, String)>> = Vec::new();
    let mut current: Option<usize> = None;
    for line in listing.lines() {
        if let Some(rest) = line.split_once(" <w").map(|(_, r)| r) {
            if let Some(index) = rest.strip_suffix(">:").and_then(|n| n.parse::<usize>().ok()) {
                if out.len() <= index {
                    out.resize(index + 1, None);
                }
                current = Some(index);
                continue;
            }
        }
        let Some(index) = current else { continue };
        let Some((addr, text)) = line.trim_start().split_once(':') else { continue };
        let Ok(addr) = u32::from_str_radix(addr, 16) else { continue };
        if out[index].is_none() {
            out[index] = Some((addr, text.trim().to_string()));
        }
        current = None;
    }
    out
}

/// Collapses runs of whitespace to one space (LLVM prints `ldinc\t m0, a2`).
pub fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
