//! Differential tests against GNU binutils for the ESP8266 `lx106` core
//! (`xtensa-lx106-elf-as`/`-objdump`: call0 ABI, density, no windowed
//! registers), decoding with [`IsaOptions::lx106`].
//!
//! GNU prints differently from LLVM, so its text is compared operand by
//! operand against our decoded operands (normalisation):
//! * `rsr.sar a2` is `rsr a2, sar`; numeric names (`rsr.176`) are numbers;
//! * immediates may be hex (`0x100`, `0xffff8000` = −32768 as 32 bits);
//! * targets are bare hex (`150c04 <w5+0x1>`), and `l32r` appends the literal
//!   value in parentheses, which is ignored;
//! * lx106 objdump prints `excw` for encodings it cannot decode (its opcode
//!   table's first entry) and `.byte` for unknown lengths: both mean unknown.
//!
//! Known disagreements (allow-list, counted and reported):
//! * GNU ignores the reserved `s` field of `ret`/`ret.n` (LLVM and we require 0);
//! * GNU decodes `rfdo`/`rfdd` (on-chip-debug returns) and `wsr.mmid`
//!   (trace), which are not modelled here;
//! * GNU lets DEBUGCAUSE be written; LLVM and we treat it as read-only;
//! * lx106 has one instruction and one data breakpoint, three interrupt
//!   levels, one timer and no `lddr32.p`/`sddr32.p`, while our debug,
//!   interrupt and timer options have the LLVM-sized register sets;
//! * lx106 objdump prints `rer`/`wer` without operands.

use super::common;

use std::collections::BTreeMap;
use std::process::Command;

use common::*;
use q7_isa::regs::special_register_number;
use q7_isa::{decode, sweep, Insn, IsaOptions, Opcode, Operand};

/// Special registers our options include but the lx106 configuration lacks.
const LX106_ABSENT_SRS: &[u8] = &[129, 145, 161, 180, 181, 182, 183, 196, 197, 198, 199, 212, 213, 214, 215, 241, 242];
/// Instructions our options include but the lx106 configuration lacks.
const LX106_ABSENT_OPS: &[Opcode] = &[Opcode::Lddr32P, Opcode::Sddr32P];

#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Agree,
    Allowed(&'static str),
    Disagree,
}

/// Parses an integer as GNU prints it: decimal, or `0x` hex read as 32 bits.
fn gnu_int(token: &str) -> Option<i64> {
    match token.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok().map(|v| i64::from(v as i32)),
        None => token.parse().ok(),
    }
}

/// True when GNU's operand text `token` denotes `operand` of `insn`.
fn operand_matches(operand: Operand, token: &str) -> bool {
    match operand {
        Operand::Ar(n) => token == format!("a{n}"),
        Operand::Fr(n) => token == format!("f{n}"),
        Operand::Br(n) => token == format!("b{n}"),
        Operand::Mr(n) => token == format!("m{n}"),
        Operand::Imm(v) => gnu_int(token) == Some(i64::from(v)) || gnu_int(token) == Some(i64::from(v as u32)),
        Operand::Target(addr) => {
            let hex = token.split(' ').next().unwrap_or_default();
            u32::from_str_radix(hex, 16) == Ok(addr)
        }
        Operand::Sr(n) => token.parse::<u8>().ok().or_else(|| special_register_number(token)) == Some(n),
        Operand::Ur(n) => token.parse::<u8>().ok().or_else(|| q7_isa::regs::user_register_number(token)) == Some(n),
    }
}

/// Splits GNU text into a mnemonic and operand tokens in our operand order.
fn gnu_parts(text: &str) -> (String, Vec<String>) {
    let text = text.trim();
    // l32r appends "(<literal value> <symbol>)".
    let text = match text.find(" (") {
        Some(pos) if text.ends_with(')') => &text[..pos],
        _ => text,
    };
    let (mnemonic, operands) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let mut tokens: Vec<String> =
        operands.split(", ").map(str::trim).filter(|t| !t.is_empty()).map(String::from).collect();
    // rsr.sar a2 → rsr a2, sar
    let mnemonic = match mnemonic.split_once('.') {
        Some((base @ ("rsr" | "wsr" | "xsr" | "rur" | "wur"), register)) => {
            tokens.push(register.to_string());
            base.to_string()
        }
        _ => mnemonic.to_string(),
    };
    (mnemonic, tokens)
}

fn gnu_unknown(text: &str, word: u32) -> bool {
    // lx106 objdump falls back to its first opcode, excw, for undecodable words.
    text.starts_with(".byte") || (text.trim() == "excw" && word != 0x00_2080)
}

fn judge(ours: &Result<Insn, q7_isa::DecodeError>, word: u32, theirs: &str) -> Verdict {
    let (mnemonic, tokens) = gnu_parts(theirs);
    match ours {
        Err(_) if gnu_unknown(theirs, word) => Verdict::Agree,
        Err(_) => match mnemonic.as_str() {
            "ret" | "ret.n" => Verdict::Allowed("GNU ignores the reserved s field of ret and ret.n"),
            "rfdo" | "rfdd" => Verdict::Allowed("rfdo/rfdd (on-chip debug) not modelled"),
            "wsr" if tokens.last().is_some_and(|t| t == "mmid") => Verdict::Allowed("MMID not modelled"),
            "wsr" | "xsr" if tokens.last().is_some_and(|t| t == "debugcause") => {
                Verdict::Allowed("DEBUGCAUSE is read-only for LLVM and us")
            }
            _ => Verdict::Disagree,
        },
        Ok(insn) if gnu_unknown(theirs, word) => {
            let absent_sr = matches!(insn.operands(), [_, Operand::Sr(n)] if LX106_ABSENT_SRS.contains(n));
            if absent_sr || LX106_ABSENT_OPS.contains(&insn.op) {
                Verdict::Allowed("register or instruction absent from lx106")
            } else {
                Verdict::Disagree
            }
        }
        Ok(insn) if mnemonic != insn.mnemonic() => Verdict::Disagree,
        Ok(insn) if matches!(insn.op, Opcode::Rer | Opcode::Wer) && tokens.is_empty() => {
            Verdict::Allowed("lx106 objdump prints rer/wer without operands")
        }
        Ok(insn) => {
            let same = tokens.len() == insn.operands().len()
                && insn.operands().iter().zip(&tokens).all(|(&op, token)| operand_matches(op, token));
            if same {
                Verdict::Agree
            } else {
                Verdict::Disagree
            }
        }
    }
}

fn report(allowed: &BTreeMap<&'static str, usize>, disagreements: &[String], what: &str) {
    eprintln!("allowed disagreements with GNU objdump ({what}): {allowed:#?}");
    assert!(
        disagreements.is_empty(),
        "{} disagreements with GNU objdump ({what}), first ones:\n{}",
        disagreements.len(),
        disagreements.iter().take(25).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn random_words_match_gnu_objdump() {
    if !peers_available(&[LLVM_MC, GNU_OBJDUMP]) {
        return;
    }
    let opts = IsaOptions::lx106();
    let words = mixed_words(400_000, 0x6e_u64, &opts);
    let dir = tempfile::tempdir().expect("temporary directory");
    let obj = words_object(dir.path(), &words);
    let listing = run(Command::new(GNU_OBJDUMP).args(["-d", "-z", "--no-show-raw-insn"]).arg(&obj));
    let lines = first_line_per_word(&listing);
    assert_eq!(lines.len(), words.len());

    let mut allowed: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for (bytes, line) in words.iter().zip(&lines) {
        let (pc, theirs) = line.as_ref().expect("a line under every symbol");
        let word = bytes.iter().rev().fold(0u32, |acc, &b| acc << 8 | u32::from(b));
        let ours = decode(bytes, *pc, &opts);
        match judge(&ours, word, theirs) {
            Verdict::Agree => {}
            Verdict::Allowed(reason) => *allowed.entry(reason).or_default() += 1,
            Verdict::Disagree => {
                let ours = ours.map_or("<unknown>".to_string(), |i| i.to_string());
                disagreements.push(format!("{bytes:02x?} at {pc:#x}: ours {ours:?}, gnu {theirs:?}"));
            }
        }
    }
    report(&allowed, &disagreements, "random words");
}

/// Appends an instruction line, then the labels whose countdown it ends.
fn emit(source: &mut String, line: String, pending: &mut Vec<(usize, usize)>) {
    source.push_str(&line);
    source.push('\n');
    for (label, left) in pending.iter_mut() {
        *left -= 1;
        if *left == 0 {
            source.push_str(&format!("{label}:\n"));
        }
    }
    pending.retain(|&(_, left)| left > 0);
}

/// Our text for `insn` as GNU assembler input: special registers by number,
/// PC-relative targets replaced by `target` (a label).
fn gnu_source(insn: &Insn, target: &str) -> String {
    let mut line = insn.mnemonic().to_string();
    for (i, operand) in insn.operands().iter().enumerate() {
        line.push_str(if i == 0 { "\t" } else { ", " });
        match *operand {
            Operand::Target(_) => line.push_str(target),
            Operand::Sr(n) => line.push_str(&n.to_string()),
            Operand::Ar(n) => line.push_str(&format!("a{n}")),
            Operand::Imm(v) => line.push_str(&v.to_string()),
            other => panic!("lx106 has no {other:?} operands"),
        }
    }
    line
}

#[test]
fn gnu_assembled_code_matches_gnu_objdump() {
    if !peers_available(&[GNU_AS, GNU_OBJDUMP, GNU_OBJCOPY]) {
        return;
    }
    // Every lx106 instruction with random operands, written as assembly,
    // assembled by GNU as without transformations (no relaxation, no density
    // substitution), then disassembled by GNU objdump and swept by us.
    let opts = IsaOptions::lx106();
    let mut source = String::from("\t.text\n\t.align 4\n\t.global func\nfunc:\n");
    let mut count = 0;
    // Branch labels are placed two instructions after their branch so that
    // forward-only forms (beqz.n, bnez.n) are in range.
    let mut pending: Vec<(usize, usize)> = Vec::new(); // (label, instructions left)
    for (i, (op, word)) in valid_words(24, 0xa55e, &opts).into_iter().enumerate() {
        if LX106_ABSENT_OPS.contains(&op) {
            continue;
        }
        let len = op.pattern().map_or(3, |p| p.len);
        let insn = q7_isa::decode_word(word, len, 0, &opts).expect("valid word");
        if matches!(insn.operands(), [_, Operand::Sr(n)] if LX106_ABSENT_SRS.contains(n)) {
            continue;
        }
        // Encodings GNU as refuses to write: shift amount 32 (field value 0),
        // extracted fields reaching past bit 31, and rer/wer, which the lx106
        // tables define without operands.
        let refused = match op {
            Opcode::Slli => insn.imm(2) == Some(32),
            Opcode::Extui => insn.imm(2).unwrap_or(0) + insn.imm(3).unwrap_or(0) > 32,
            Opcode::Rer | Opcode::Wer => true,
            _ => false,
        };
        if refused {
            continue;
        }
        let target = match op {
            Opcode::Call0 => "func".to_string(),
            Opcode::L32r => "literal".to_string(),
            _ => format!("{i}f"),
        };
        let line = format!("\t{}", gnu_source(&insn, &target));
        emit(&mut source, line, &mut pending);
        if insn.target().is_some() && !matches!(op, Opcode::Call0 | Opcode::L32r) {
            pending.push((i, 2));
        }
        count += 1;
    }
    // Land the remaining labels.
    for _ in 0..2 {
        emit(&mut source, "\tnop.n".to_string(), &mut pending);
        count += 1;
    }
    source.push_str("\t.section .rodata\n\t.align 4\nliteral:\n\t.word 0x12345678\n");

    let dir = tempfile::tempdir().expect("temporary directory");
    let asm = dir.path().join("corpus.s");
    let obj = dir.path().join("corpus.o");
    let bin = dir.path().join("corpus.bin");
    std::fs::write(&asm, &source).expect("write assembly");
    run(Command::new(GNU_AS).arg("--no-transform").arg("-o").arg(&obj).arg(&asm));
    run(Command::new(GNU_OBJCOPY).args(["-O", "binary", "--only-section=.text"]).arg(&obj).arg(&bin));
    let text = std::fs::read(&bin).expect("read .text");
    let listing = run(Command::new(GNU_OBJDUMP).args(["-d", "-z", "--no-show-raw-insn", "-j", ".text"]).arg(&obj));
    let gnu: BTreeMap<u32, String> = listing
        .lines()
        .filter_map(|line| {
            let (addr, text) = line.trim_start().split_once(":\t")?;
            Some((u32::from_str_radix(addr, 16).ok()?, text.to_string()))
        })
        .collect();

    let mut allowed: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut swept = 0;
    for item in sweep(&text, 0, &opts) {
        swept += 1;
        let word = item.bytes.iter().rev().fold(0u32, |acc, &b| acc << 8 | u32::from(b));
        let Some(theirs) = gnu.get(&item.pc) else {
            disagreements.push(format!("{:#x}: GNU has no instruction here", item.pc));
            continue;
        };
        match judge(&item.result, word, theirs) {
            Verdict::Agree => {}
            Verdict::Allowed(reason) => *allowed.entry(reason).or_default() += 1,
            Verdict::Disagree => {
                let ours = item.result.map_or("<unknown>".to_string(), |i| i.to_string());
                disagreements.push(format!("{:02x?} at {:#x}: ours {ours:?}, gnu {theirs:?}", item.bytes, item.pc));
            }
        }
    }
    assert_eq!(swept, count, "one swept instruction per assembled line");
    report(&allowed, &disagreements, "GNU-assembled corpus");
}
