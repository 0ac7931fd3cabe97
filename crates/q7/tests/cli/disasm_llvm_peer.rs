//! `q7 disasm` against `llvm-objdump-22 -d -z --no-show-raw-insn
//! --mattr=<IsaOptions::vision_q7().llvm_mattr()>` on every code section of
//! every Xtensa fixture: the clang-22 windowed images and objects, their
//! stripped copies, the GNU call0 object and image, and the stripped host
//! microcode images. Two checks:
//!
//! 1. Listing against listing, address by address (see
//!    `disasm_support::compare_section`): the same instruction text wherever
//!    both list an address.
//! 2. Decoder against every address LLVM lists, including those where the
//!    sweeps are out of step: q7's decoder at that address gives LLVM's text.
//!
//! Normalisation (as crates/q7-isa/tests/llvm_peer.rs): whitespace squashed;
//! 64-bit targets LLVM prints for addresses below 0 cut to 32 bits; q7's
//! `.byte` agrees with LLVM's `<unknown>`. `--no-show-raw-insn` is needed
//! because LLVM 22 can crash printing the raw bytes of an undecodable word.
//!
//! Allow-list (each counted and printed):
//! * instructions LLVM 22 does not define (`simcall`, `ssa8b`, `rer`, `wer`,
//!   `l32ai`, `s32ri`): it prints `<unknown>`;
//! * `addmi`: LLVM 22 prints the immediate as 0;
//! * `l32r`: LLVM 22 sign-extends the offset from 17 bits, so literal
//!   addresses more than 128 KiB back print wrong; compared with its formula;
//! * sweep policy: after an undecodable word LLVM 22 advances by the previous
//!   instruction's size (the size is left unset), q7 by op0's length, so the
//!   listings step differently through literal pools until they meet again;
//!   LLVM decodes an instruction across the next symbol where q7 restarts the
//!   sweep at the symbol and lists the cut bytes as `.byte`; the same at a
//!   branch target or a property-table block end (q7 and GNU restart there);
//!   q7 lists an `l32r` literal word as `.word` where LLVM decodes its bytes;
//! * LLVM 22 lists nothing more of a section whose first word is
//!   undecodable; such a section is run again from q7's first instruction.

use crate::common;
use crate::disasm_support;

use std::path::PathBuf;

use common::*;
use disasm_support::*;
use q7_image::disasm::IsaOptions;

const LLVM_OBJDUMP: &str = "llvm-objdump-22";
const LLVM_LACKS: &[&str] = &["simcall", "ssa8b", "rer", "wer", "l32ai", "s32ri"];

/// The literal address llvm-objdump-22 prints for `l32r` at `pc` with offset
/// field `imm16`: it sign-extends `(imm16 << 2) + 0x40000 + (pc & 3)` from 17 bits.
fn llvm_l32r_target(imm16: u32, pc: u32) -> u32 {
    let raw = ((imm16 << 2) + 0x40000 + (pc & 3)) & 0x1_ffff;
    let value = ((raw << 15) as i32) >> 15;
    (pc.wrapping_add(3) & !3).wrapping_add_signed(value & !3)
}

/// LLVM's text with whitespace squashed and 64-bit addresses cut to 32 bits.
fn normalize_llvm(text: &str) -> String {
    let tokens: Vec<String> = squash(text)
        .split(", ")
        .map(|token| {
            let (head, last) = token.rsplit_once(' ').map_or(("", token), |(h, l)| (h, l));
            let wide = last.strip_prefix("0x").filter(|hex| hex.len() > 8);
            match wide.and_then(|hex| u64::from_str_radix(hex, 16).ok()) {
                Some(value) if head.is_empty() => format!("{:#x}", value as u32),
                Some(value) => format!("{head} {:#x}", value as u32),
                None => token.to_string(),
            }
        })
        .collect();
    tokens.join(", ")
}

fn with_last_operand(ours: &Ours, last: &str) -> String {
    let head = ours.operands.rsplit_once(", ").map_or("", |(h, _)| h);
    squash(&format!("{} {head}, {last}", ours.mnemonic))
}

fn judge_llvm(ours: &Ours, theirs: &str) -> Verdict {
    let theirs = normalize_llvm(theirs);
    if !ours.decoded() {
        return if theirs == "<unknown>" { Verdict::Agree } else { Verdict::Disagree };
    }
    if theirs == "<unknown>" && LLVM_LACKS.contains(&ours.mnemonic.as_str()) {
        return Verdict::Allowed("instruction unknown to LLVM 22");
    }
    if ours.text() == theirs {
        return Verdict::Agree;
    }
    match ours.mnemonic.as_str() {
        "addmi" if with_last_operand(ours, "0") == theirs => {
            Verdict::Allowed("LLVM 22 prints every addmi immediate as 0")
        }
        "l32r" => {
            let imm16 = u32::from(ours.bytes[1]) | u32::from(ours.bytes[2]) << 8;
            let quirky = format!("{:#x}", llvm_l32r_target(imm16, ours.address));
            if with_last_operand(ours, &quirky) == theirs {
                Verdict::Allowed("LLVM 22 l32r target uses a 17-bit sign extension")
            } else {
                Verdict::Disagree
            }
        }
        _ => Verdict::Disagree,
    }
}

fn llvm_unknown(text: &str) -> bool {
    text == "<unknown>"
}

fn fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["fixtures/bin", "fixtures/host/bin"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            // ELF32 (class 1), Xtensa (e_machine 94).
            if data.starts_with(b"\x7fELF\x01") && data.get(18..20) == Some(&[94, 0][..]) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// LLVM 22 lists nothing more of a section whose first word it cannot decode
/// (the stripped host images start with a literal pool): the size it leaves
/// unset swallows the section. For such a section, run it again from q7's
/// first decoded instruction and list both runs' lines.
fn resume_after_first_unknown(
    path: &std::path::Path,
    mattr: &str,
    ours: &OurSection,
    theirs: &PeerSection,
    tally: &mut Tally,
) -> PeerSection {
    let mut merged = theirs.clone();
    let stalled = theirs.lines.len() == 1 && theirs.lines.values().all(|t| llvm_unknown(t));
    let first_code = ours.lines.iter().skip(1).find(|l| l.decoded() && !l.is_word());
    let Some(resume) = first_code.filter(|_| stalled) else { return merged };
    let start = format!("--start-address={:#x}", resume.address);
    let section = format!("--section={}", ours.name);
    let args = ["-d", "-z", "--no-show-raw-insn", mattr, &section, &start, path.to_str().unwrap()];
    let out = peer(LLVM_OBJDUMP, &args).expect("llvm-objdump ran before");
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let rerun = parse_objdump(&stdout(&out));
    merged.lines.extend(rerun[&ours.name].lines.clone());
    tally.record(Verdict::Allowed("LLVM 22 stops after an undecodable first word (section resumed)"), String::new);
    merged
}

#[test]
fn every_fixture_code_section_matches_llvm_objdump() {
    let isa = IsaOptions::vision_q7();
    let mattr = format!("--mattr={}", isa.llvm_mattr());
    let files = fixtures();
    assert!(files.len() >= 20, "fixtures found: {files:?}");
    let mut listing = Tally::default();
    let mut decoder = Tally::default();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(out) = peer(LLVM_OBJDUMP, &["-d", "-z", "--no-show-raw-insn", &mattr, path.to_str().unwrap()]) else {
            return;
        };
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let theirs = parse_objdump(&stdout(&out));
        let ours = q7_listing(path, &[]);
        let our_names: Vec<&str> = ours.iter().map(|s| s.name.as_str()).collect();
        let their_names: Vec<&str> = theirs.keys().map(String::as_str).collect();
        let mut sorted = our_names.clone();
        sorted.sort();
        assert_eq!(sorted, their_names, "{name}: the same code sections");

        for section in &ours {
            let peer_section = &resume_after_first_unknown(path, &mattr, section, &theirs[&section.name], &mut listing);
            let labelled = OurSection { name: format!("{name} {}", section.name), ..section.clone() };
            compare_section(&labelled, peer_section, &llvm_unknown, &judge_llvm, &mut listing);

            let (bytes, base) = section_bytes(path, &section.name);
            for (&addr, text) in &peer_section.lines {
                let ours = Ours::decode(&bytes[(addr - base) as usize..], addr, &isa);
                decoder.record(judge_llvm(&ours, text), || {
                    format!("{name} {} {addr:#010x}: q7 decodes {:?}, llvm {text:?}", section.name, ours.text())
                });
            }
        }
    }
    listing.assert_clean("q7 disasm listing vs llvm-objdump-22");
    // Out-of-step stretches are literal pools and padding: short, and always
    // followed by agreement again (a label or a common instruction).
    assert!(listing.longest_desync <= 128, "out of step for {} bytes", listing.longest_desync);
    decoder.assert_clean("q7 decoder at every llvm-objdump-22 address");
}

#[test]
fn normalization() {
    assert_eq!(normalize_llvm("call0\t0xfffffffffffdc19c"), "call0 0xfffdc19c");
    assert_eq!(normalize_llvm("l32r\ta8, 0xffffffffffff81b8"), "l32r a8, 0xffff81b8");
    assert_eq!(normalize_llvm("ldinc\t m0, a2"), "ldinc m0, a2");
    assert_eq!(llvm_l32r_target(0x1000, 0x30003), 0x34004);
    assert_eq!(llvm_l32r_target(0x4000, 0x3000c), 0x2000c);
}
