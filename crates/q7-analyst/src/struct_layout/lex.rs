//! Tokens of preprocessed C (`cc -E` output), each with its byte span and the
//! source file and line the preprocessor's line markers attribute it to.

/// Where a token came from, per the `# <line> "<file>" <flags>` markers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u32,
    /// The marker carried flag 3: the text comes from a system header.
    pub system: bool,
}

impl Location {
    pub fn label(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Ident,
    Number,
    Literal,
    Punct,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
    /// Index into [`Tokens::locations`].
    pub location: usize,
}

/// The token stream plus the distinct locations its tokens point at.
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    pub tokens: Vec<Token>,
    pub locations: Vec<Location>,
}

const PUNCTUATORS: &[&str] = &[
    "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=", "/=", "%=", "+=",
    "-=", "&=", "^=", "|=", "##",
];

/// Splits preprocessed text into tokens. Directives other than line markers
/// (e.g. `#pragma pack`) are skipped: they matter to the compiler, which
/// sees the text, not to the declaration parser.
pub fn tokenize(text: &str, default_file: &str) -> Tokens {
    let bytes = text.as_bytes();
    let mut out = Tokens::default();
    let mut file = default_file.to_string();
    let mut system = false;
    let mut line: u32 = 1;
    let mut at_line_start = true;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line += 1;
            at_line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if at_line_start && c == b'#' {
            let end = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            if let Some((marker_line, marker_file, marker_system)) = parse_line_marker(&text[i + 1..end]) {
                // The marker names the line number of the *next* line.
                line = marker_line.saturating_sub(1);
                file = marker_file;
                system = marker_system;
            }
            i = end;
            continue;
        }
        at_line_start = false;
        if text[i..].starts_with("/*") {
            let end = text[i + 2..].find("*/").map_or(bytes.len(), |n| i + 2 + n + 2);
            line += text[i..end].matches('\n').count() as u32;
            i = end;
            continue;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'$') {
                i += 1;
            }
            TokenKind::Ident
        } else if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            // A pp-number: digits, letters, dots, and signs after an exponent.
            i += 1;
            while i < bytes.len() {
                let d = bytes[i];
                let exponent_sign = (d == b'+' || d == b'-') && matches!(bytes[i - 1], b'e' | b'E' | b'p' | b'P');
                if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || exponent_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            TokenKind::Number
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != c && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
            TokenKind::Literal
        } else {
            i += PUNCTUATORS
                .iter()
                .find(|p| text[i..].starts_with(**p))
                .map_or_else(|| text[i..].chars().next().map_or(1, char::len_utf8), |p| p.len());
            TokenKind::Punct
        };
        let location = Location { file: file.clone(), line, system };
        let index = match out.locations.last() {
            Some(last) if *last == location => out.locations.len() - 1,
            _ => {
                out.locations.push(location);
                out.locations.len() - 1
            }
        };
        out.tokens.push(Token { kind, start, end: i, location: index });
    }
    out
}

/// `# 12 "file.h" 1 3` or `#line 12 "file.h"` → (12, file.h, system?).
fn parse_line_marker(directive: &str) -> Option<(u32, String, bool)> {
    let rest = directive.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits_end = rest.find(|c: char| !c.is_ascii_digit())?;
    let line: u32 = rest[..digits_end].parse().ok()?;
    let rest = rest[digits_end..].trim_start().strip_prefix('"')?;
    let close = rest.find('"')?;
    let file = rest[..close].to_string();
    let flags: Vec<&str> = rest[close + 1..].split_whitespace().collect();
    Some((line, file, flags.contains(&"3")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_file_and_line_from_markers() {
        let text = "# 1 \"a.h\"\nint x;\n# 5 \"/usr/include/b.h\" 1 3 4\nlong y; /* c\n */ z\n";
        let t = tokenize(text, "?");
        let words: Vec<&str> = t.tokens.iter().map(|k| &text[k.start..k.end]).collect();
        assert_eq!(words, ["int", "x", ";", "long", "y", ";", "z"]);
        let loc = |i: usize| &t.locations[t.tokens[i].location];
        assert_eq!(loc(0), &Location { file: "a.h".into(), line: 1, system: false });
        assert_eq!(loc(3), &Location { file: "/usr/include/b.h".into(), line: 5, system: true });
        assert_eq!(loc(6).line, 6);
    }

    #[test]
    fn numbers_strings_and_punctuators() {
        let text = "x = 0x1fUL + 1e+5 - 'a' ... \"s\\\"t\" >>= ->";
        let t = tokenize(text, "f");
        let words: Vec<&str> = t.tokens.iter().map(|k| &text[k.start..k.end]).collect();
        assert_eq!(words, ["x", "=", "0x1fUL", "+", "1e+5", "-", "'a'", "...", "\"s\\\"t\"", ">>=", "->"]);
    }
}
