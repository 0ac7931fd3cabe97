//! GNU objdump's instruction text, normalised to compare with q7's by meaning.
//!
//! `rsr.sar a2` is `rsr a2, sar`; targets are bare hex (`84000040 <sym>`);
//! immediates may be `0x` hex; `l32r`'s `(value <sym>)` suffix is compared
//! with q7's literal value; GNU's `.byte` and `excw` (its fallback for
//! undecodable words) agree with q7's `.byte`.

use super::{Ours, Verdict};

/// GNU's text split into mnemonic, operand tokens (in q7's order, symbol
/// annotations dropped) and the `l32r` literal value.
pub fn gnu_parts(text: &str) -> (String, Vec<String>, Option<u32>) {
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
pub fn same_operand(ours: &str, theirs: &str) -> bool {
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

pub fn gnu_unknown(text: &str) -> bool {
    text.starts_with(".byte") || text == "excw"
}

pub fn judge_gnu(ours: &Ours, theirs: &str) -> Verdict {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
