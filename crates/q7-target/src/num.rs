//! Numbers as users and tool listings write them: `0x` hexadecimal or
//! decimal. Every flag, manifest and table field that takes an address or a
//! count parses through here, so all of them accept the same spellings.

/// Parses `0x`/`0X` hexadecimal or decimal, ignoring surrounding white space.
pub fn parse_u64(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        // `from_str_radix` would take a sign; a number here never has one.
        Some(hex) if !hex.starts_with(['+', '-']) => u64::from_str_radix(hex, 16).ok(),
        Some(_) => None,
        None if !text.starts_with('+') => text.parse().ok(),
        None => None,
    }
}

/// [`parse_u64`] for values that must fit in 32 bits (addresses, sizes).
pub fn parse_u32(text: &str) -> Option<u32> {
    parse_u64(text).and_then(|v| u32::try_from(v).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_decimal_spellings() {
        assert_eq!(parse_u64("0x60000000"), Some(0x6000_0000));
        assert_eq!(parse_u64("0XfF"), Some(255));
        assert_eq!(parse_u64(" 4096\n"), Some(4096));
        assert_eq!(parse_u64("0"), Some(0));
        assert_eq!(parse_u64("0xffffffffffffffff"), Some(u64::MAX));
    }

    #[test]
    fn rejects_what_is_not_a_plain_number() {
        for bad in ["", "0x", "x10", "0x-1", "0x+1", "+1", "-1", "1k", "0x1g", "0b101", "0x10000000000000000"] {
            assert_eq!(parse_u64(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn u32_rejects_wider_values() {
        assert_eq!(parse_u32("0xffffffff"), Some(u32::MAX));
        assert_eq!(parse_u32("0x100000000"), None);
        assert_eq!(parse_u32("4294967296"), None);
    }
}
