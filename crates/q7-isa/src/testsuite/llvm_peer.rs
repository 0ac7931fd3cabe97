//! Differential tests against LLVM 22's Xtensa disassembler.
//!
//! Each test word sits under its own symbol in an object assembled by
//! `llvm-mc-22`, and one `llvm-objdump-22 -d --no-show-raw-insn --mattr=<ours>`
//! run disassembles them all; the first line under each symbol is compared
//! with our `Display` text.
//!
//! Normalisation: runs of whitespace are squashed to one space (LLVM prints
//! `ldinc\t m0, a2`); targets below address 0, which LLVM prints as 64-bit
//! values (`0xfffffffffffdc19c`), are cut to 32 bits; `<unknown>` on both
//! sides is agreement.
//!
//! Known disagreements (allow-list, each counted and reported):
//! * `simcall`, `ssa8b`, `rer`, `wer`, `l32ai`, `s32ri`, the cache
//!   instructions (`dhwb`, `iii`...) and the double-precision ones (`add.d`,
//!   `ldi`...): ISA instructions LLVM 22 does not define; it prints `<unknown>`.
//! * `addmi`: LLVM 22 prints the immediate as 0 whatever the encoding; we
//!   compare with 0 in its place (GNU objdump checks the real value).
//! * `l32r`: LLVM 22 sign-extends the 18-bit offset from 17 bits and so prints
//!   wrong literal addresses; we compare with its formula applied to our
//!   decoded offset (GNU objdump checks the ISA formula).
//!
//! `--no-show-raw-insn` is required: LLVM 22's Xtensa disassembler leaves the
//! size of an undecodable instruction unset, and printing its raw bytes can
//! crash `llvm-objdump`.

use super::common;

use std::collections::BTreeMap;
use std::process::Command;

use common::*;
use q7_isa::{decode, Feature, FeatureSet, Insn, IsaOptions, Opcode, Operand, Operands};

/// Instructions LLVM 22 does not know.
const LLVM_LACKS: &[Opcode] = &[
    Opcode::Simcall,
    Opcode::Ssa8b,
    Opcode::Rer,
    Opcode::Wer,
    Opcode::L32ai,
    Opcode::S32ri,
    Opcode::Dpfr,
    Opcode::Dpfw,
    Opcode::Dpfro,
    Opcode::Dpfwo,
    Opcode::Dhwb,
    Opcode::Dhwbi,
    Opcode::Dhi,
    Opcode::Dii,
    Opcode::Dpfl,
    Opcode::Dhu,
    Opcode::Diu,
    Opcode::Diwb,
    Opcode::Diwbi,
    Opcode::Ipf,
    Opcode::Ipfl,
    Opcode::Ihu,
    Opcode::Iiu,
    Opcode::Ihi,
    Opcode::Iii,
    // The double-precision option (LLVM 22's `dfpaccel` is another thing).
    Opcode::AddD,
    Opcode::SubD,
    Opcode::MulD,
    Opcode::MaddD,
    Opcode::MsubD,
    Opcode::MaddnD,
    Opcode::DivnD,
    Opcode::RoundD,
    Opcode::TruncD,
    Opcode::FloorD,
    Opcode::CeilD,
    Opcode::FloatD,
    Opcode::UfloatD,
    Opcode::UtruncD,
    Opcode::MovD,
    Opcode::AbsD,
    Opcode::CvtsD,
    Opcode::CvtdS,
    Opcode::ConstD,
    Opcode::Rfrd,
    Opcode::Wfrd,
    Opcode::NegD,
    Opcode::Div0D,
    Opcode::Recip0D,
    Opcode::Sqrt0D,
    Opcode::Rsqrt0D,
    Opcode::Nexp01D,
    Opcode::MksadjD,
    Opcode::MkdadjD,
    Opcode::AddexpD,
    Opcode::AddexpmD,
    Opcode::UnD,
    Opcode::OeqD,
    Opcode::UeqD,
    Opcode::OltD,
    Opcode::UltD,
    Opcode::OleD,
    Opcode::UleD,
    Opcode::Ldi,
    Opcode::Sdi,
    Opcode::Ldip,
    Opcode::Sdip,
    Opcode::Ldx,
    Opcode::Sdx,
    Opcode::Ldxp,
    Opcode::Sdxp,
];

/// How our text for `insn` compares with LLVM's.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Agree,
    Allowed(&'static str),
    Disagree,
}

/// The literal address `llvm-objdump-22` prints for `l32r` at `pc` with offset
/// field `imm16`: it sign-extends `(imm16 << 2) + 0x40000 + (pc & 3)` from 17 bits.
fn llvm_l32r_target(imm16: u32, pc: u32) -> u32 {
    let raw = ((imm16 << 2) + 0x40000 + (pc & 3)) & 0x1_ffff;
    let value = ((raw << 15) as i32) >> 15;
    (pc.wrapping_add(3) & !3).wrapping_add_signed(value & !3)
}

/// Our instruction as LLVM 22 would print it, for the instructions it misprints.
fn with_llvm_quirks(insn: &Insn, word: u32) -> Option<(Insn, &'static str)> {
    let mut quirky = *insn;
    match insn.op {
        Opcode::Addmi => {
            quirky.operands = Operands::from_slice(&[insn.operands[0], insn.operands[1], Operand::Imm(0)])?;
            Some((quirky, "LLVM 22 prints every addmi immediate as 0"))
        }
        Opcode::L32r => {
            let target = llvm_l32r_target(word >> 8 & 0xffff, insn.pc);
            quirky.operands = Operands::from_slice(&[insn.operands[0], Operand::Target(target)])?;
            Some((quirky, "LLVM 22 l32r target uses a 17-bit sign extension"))
        }
        _ => None,
    }
}

/// LLVM's text with whitespace squashed and 64-bit addresses cut to 32 bits.
fn normalize_llvm(text: &str) -> String {
    let text = squash(text);
    let mut out = String::with_capacity(text.len());
    for (i, token) in text.split(", ").enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        // The last space-separated word of the token is the operand proper.
        let (head, last) = token.rsplit_once(' ').map_or(("", token), |(h, l)| (h, l));
        let wide = last.strip_prefix("0x").filter(|hex| hex.len() > 8);
        match wide.and_then(|hex| u64::from_str_radix(hex, 16).ok()) {
            Some(value) => {
                if !head.is_empty() {
                    out.push_str(head);
                    out.push(' ');
                }
                out.push_str(&format!("{:#x}", value as u32));
            }
            None => out.push_str(token),
        }
    }
    out
}

fn judge(bytes: &[u8], pc: u32, opts: &IsaOptions, theirs: &str) -> (Verdict, String) {
    let theirs = normalize_llvm(theirs);
    let ours = decode(bytes, pc, opts);
    let ours_text = ours.as_ref().map_or("<unknown>".to_string(), |insn| squash(&insn.to_string()));
    let verdict = match &ours {
        Err(_) if theirs == "<unknown>" => Verdict::Agree,
        Err(_) => Verdict::Disagree,
        Ok(insn) if theirs == "<unknown>" && LLVM_LACKS.contains(&insn.op) => {
            Verdict::Allowed("instruction unknown to LLVM 22")
        }
        Ok(_) if ours_text == theirs => Verdict::Agree,
        Ok(insn) => {
            let word = bytes.iter().rev().fold(0u32, |acc, &b| acc << 8 | u32::from(b));
            match with_llvm_quirks(insn, word) {
                Some((quirky, reason)) if squash(&quirky.to_string()) == theirs => Verdict::Allowed(reason),
                _ => Verdict::Disagree,
            }
        }
    };
    (verdict, ours_text)
}

/// Disassembles `words` with llvm-objdump under `opts` and compares them all.
/// Returns the per-reason counts of allowed disagreements.
fn compare_with_llvm(words: &[Vec<u8>], opts: &IsaOptions) -> BTreeMap<&'static str, usize> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let obj = words_object(dir.path(), words);
    let listing = run(Command::new(LLVM_OBJDUMP)
        .args(["-d", "-z", "--no-show-raw-insn"])
        .arg(format!("--mattr={}", opts.llvm_mattr()))
        .arg(&obj));
    let lines = first_line_per_word(&listing);
    assert_eq!(lines.len(), words.len(), "every word has a symbol in the listing");

    let mut allowed: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for (bytes, line) in words.iter().zip(&lines) {
        let (pc, theirs) = line.as_ref().expect("a line under every symbol");
        match judge(bytes, *pc, opts, theirs) {
            (Verdict::Agree, _) => {}
            (Verdict::Allowed(reason), _) => *allowed.entry(reason).or_default() += 1,
            (Verdict::Disagree, ours) => {
                disagreements.push(format!("{bytes:02x?} at {pc:#x}: ours {ours:?}, llvm {theirs:?}"))
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements with llvm-objdump (mattr {}), first ones:\n{}",
        disagreements.len(),
        opts.llvm_mattr(),
        disagreements.iter().take(25).cloned().collect::<Vec<_>>().join("\n")
    );
    allowed
}

#[test]
fn a_million_random_words_match_llvm_objdump() {
    if !peers_available(&[LLVM_MC, LLVM_OBJDUMP]) {
        return;
    }
    let opts = IsaOptions::full();
    let words = mixed_words(1_000_000, 0x51_7e57, &opts);
    let allowed = compare_with_llvm(&words, &opts);
    eprintln!("allowed disagreements with llvm-objdump: {allowed:#?}");
}

#[test]
fn feature_gating_matches_llvm_objdump() {
    if !peers_available(&[LLVM_MC, LLVM_OBJDUMP]) {
        return;
    }
    // Valid words of every instruction plus every special and user register
    // number, disassembled with one option removed at a time: both decoders
    // must drop the same instructions and registers.
    let full = IsaOptions::full();
    let mut words: Vec<Vec<u8>> =
        valid_words(3, 0x9a7e, &full).into_iter().map(|(op, w)| w.to_le_bytes()[..op_len(op)].to_vec()).collect();
    for n in 0..=255u32 {
        for fixed in [0x03_0020, 0x13_0020, 0x61_0020] {
            words.push((fixed | n << 8).to_le_bytes()[..3].to_vec()); // rsr/wsr/xsr a2, n
        }
        words.push((0xe3_0200 | n << 4).to_le_bytes()[..3].to_vec()); // rur a2, n
        words.push((0xf3_0020 | n << 8).to_le_bytes()[..3].to_vec()); // wur a2, n
    }
    for &feature in Feature::ALL {
        if feature.llvm_names().is_empty() {
            continue; // LLVM cannot express this option
        }
        compare_with_llvm(&words, &full.without(feature));
    }
    compare_with_llvm(&words, &IsaOptions { features: FeatureSet::EMPTY, ..full });
}

#[test]
fn normalization() {
    assert_eq!(normalize_llvm("call0\t0xfffffffffffdc19c"), "call0 0xfffdc19c");
    assert_eq!(normalize_llvm("l32r\ta8, 0xffffffffffff81b8"), "l32r a8, 0xffff81b8");
    assert_eq!(normalize_llvm("ldinc\t m0, a2"), "ldinc m0, a2");
    assert_eq!(llvm_l32r_target(0, 0x30000), 0x30000);
    assert_eq!(llvm_l32r_target(0x1000, 0x30003), 0x34004);
    assert_eq!(llvm_l32r_target(0x4000, 0x3000c), 0x2000c);
}

fn op_len(op: Opcode) -> usize {
    op.pattern().map_or(3, |p| usize::from(p.len))
}
