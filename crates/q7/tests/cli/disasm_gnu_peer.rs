//! `q7 disasm --isa lx106` against GNU `xtensa-lx106-elf-objdump -d -z
//! --no-show-raw-insn` on the GNU call0 fixtures (kernels_gnu.o, kernels_gnu.so),
//! listing against listing address by address, and q7's decoder at every
//! address GNU lists.
//!
//! GNU objdump reads the `.xt.prop` property tables and prints what they call
//! data as raw words (and asserts on the object's grouped tables); q7 does not
//! read them. The peer therefore runs on a copy without `.xt.prop*`/`.xt.lit*`
//! (made by `xtensa-lx106-elf-objcopy`), so it decodes every byte as code too.
//!
//! Normalisation, operand by operand (as crates/q7-isa/tests/gnu_peer.rs):
//! `rsr.sar a2` is `rsr a2, sar`; targets are bare hex (`84000040 <sym>`);
//! immediates may be `0x` hex; `l32r`'s `(value <sym>)` suffix is compared
//! with q7's literal value; GNU's `.byte` and `excw` (its fallback for
//! undecodable words) agree with q7's `.byte`.
//!
//! Allowed: the two sweeps' policy differences shared with the LLVM test
//! (a cut at the next symbol, stepping out of step after undecodable bytes).

use crate::common;
use crate::disasm_support;

use common::*;
use disasm_support::*;
use q7_image::disasm::IsaOptions;

const GNU_OBJDUMP: &str = "xtensa-lx106-elf-objdump";
const GNU_OBJCOPY: &str = "xtensa-lx106-elf-objcopy";

/// GNU's text split into mnemonic, operand tokens (in q7's order, symbol
/// annotations dropped) and the `l32r` literal value.
fn gnu_parts(text: &str) -> (String, Vec<String>, Option<u32>) {
    let (text, literal) = match text.rsplit_once(" (") {
        Some((head, tail)) if tail.ends_with(')') => {
            let value = tail.split(' ').next().and_then(|v| u32::from_str_radix(v.trim_end_matches(')'), 16).ok());
            (head, value)
        }
        _ => (text, None),
    };
    let (mnemonic, operands) = text.split_once(' ').unwrap_or((text, ""));
    let mut tokens: Vec<String> = operands
        .split(", ")
        .filter(|t| !t.is_empty())
        .map(|t| t.split_once(" <").map_or(t, |(head, _)| head).to_string())
        .collect();
    let mnemonic = match mnemonic.split_once('.') {
        Some((base @ ("rsr" | "wsr" | "xsr" | "rur" | "wur"), register)) => {
            tokens.push(register.to_string());
            base.to_string()
        }
        _ => mnemonic.to_string(),
    };
    (mnemonic, tokens, literal)
}

/// Whether q7's operand token and GNU's denote the same value.
fn same_operand(ours: &str, theirs: &str) -> bool {
    if ours == theirs {
        return true;
    }
    if let Some(hex) = ours.strip_prefix("0x") {
        // A target: GNU prints bare hex.
        return u32::from_str_radix(hex, 16).ok() == u32::from_str_radix(theirs, 16).ok();
    }
    let Ok(value) = ours.parse::<i64>() else { return false };
    match theirs.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).is_ok_and(|v| i64::from(v) == value || i64::from(v as i32) == value),
        None => theirs.parse::<i64>() == Ok(value),
    }
}

fn gnu_unknown(text: &str) -> bool {
    text.starts_with(".byte") || text == "excw"
}

fn judge_gnu(ours: &Ours, theirs: &str) -> Verdict {
    let (mnemonic, tokens, literal) = gnu_parts(theirs);
    if !ours.decoded() {
        return if gnu_unknown(theirs) { Verdict::Agree } else { Verdict::Disagree };
    }
    let our_tokens: Vec<&str> = ours.operands.split(", ").filter(|t| !t.is_empty()).collect();
    let same = mnemonic == ours.mnemonic
        && tokens.len() == our_tokens.len()
        && our_tokens.iter().zip(&tokens).all(|(o, t)| same_operand(o, t))
        && (literal.is_none() || ours.literal.is_none() || literal == ours.literal);
    if same {
        Verdict::Agree
    } else {
        Verdict::Disagree
    }
}

#[test]
fn gnu_call0_fixtures_match_gnu_objdump() {
    let isa = IsaOptions::lx106();
    let dir = tempfile::tempdir().unwrap();
    let mut listing = Tally::default();
    let mut decoder = Tally::default();
    let mut literals = 0;
    for name in ["kernels_gnu.o", "kernels_gnu.so"] {
        let path = fixture(name);
        let bare = dir.path().join(name);
        let strip =
            ["-R", ".xt.lit", "-R", ".rela.xt.lit", "--remove-section=.xt.prop*", "--remove-section=.rela.xt.prop*"];
        let mut args: Vec<&str> = strip.to_vec();
        args.extend([path.to_str().unwrap(), bare.to_str().unwrap()]);
        let Some(out) = peer(GNU_OBJCOPY, &args) else { return };
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let out = peer(GNU_OBJDUMP, &["-d", "-z", "--no-show-raw-insn", bare.to_str().unwrap()]).unwrap();
        assert!(out.status.success() && stderr(&out).is_empty(), "{name}: {}", stderr(&out));
        let theirs = parse_objdump(&stdout(&out));

        let ours = q7_listing(&path, &["--isa", "lx106"]);
        let mut our_names: Vec<&str> = ours.iter().map(|s| s.name.as_str()).collect();
        our_names.sort();
        assert_eq!(our_names, theirs.keys().map(String::as_str).collect::<Vec<_>>(), "{name}: the same code sections");
        for section in &ours {
            let peer_section = &theirs[&section.name];
            let labelled = OurSection { name: format!("{name} {}", section.name), ..section.clone() };
            compare_section(&labelled, peer_section, &gnu_unknown, &judge_gnu, &mut listing);
            literals += section.lines.iter().filter(|l| l.literal.is_some()).count();

            let (bytes, base) = section_bytes(&path, &section.name);
            for (&addr, text) in &peer_section.lines {
                // GNU, like q7, cuts an instruction short at the next symbol.
                let next_label =
                    peer_section.labels.range(addr + 1..).next().map_or(bytes.len(), |&l| (l - base) as usize);
                let ours = Ours::decode(&bytes[(addr - base) as usize..next_label], addr, &isa);
                decoder.record(judge_gnu(&ours, text), || {
                    format!("{name} {} {addr:#010x}: q7 decodes {:?}, gnu {text:?}", section.name, ours.text())
                });
            }
        }
    }
    listing.assert_clean("q7 disasm --isa lx106 listing vs GNU objdump");
    decoder.assert_clean("q7 lx106 decoder at every GNU objdump address");
    assert!(literals > 0, "an l32r literal value was compared");
}

#[test]
fn gnu_text_normalisation() {
    let (m, t, lit) = gnu_parts("l32r a12, 84000000 <_memmap_seg_sram0_0_start> (840000e0 <g_buffer>)");
    assert_eq!((m.as_str(), t, lit), ("l32r", vec!["a12".to_string(), "84000000".to_string()], Some(0x840000e0)));
    let (m, t, _) = gnu_parts("rsr.sar a2");
    assert_eq!((m.as_str(), t), ("rsr", vec!["a2".to_string(), "sar".to_string()]));
    assert!(same_operand("0x84000040", "84000040"));
    assert!(same_operand("-32768", "0xffff8000"));
    assert!(same_operand("256", "0x100"));
    assert!(!same_operand("16", "10"));
}
