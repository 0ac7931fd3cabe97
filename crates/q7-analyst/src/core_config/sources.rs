//! Reading the two cleartext core-description formats into key/value
//! entries: a `*-params` file (`Key = value` lines, `#` comments) and a
//! `core-isa.h` (`#define XCHAL_NAME value` lines, C comments).

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SourceFormat {
    #[serde(rename = "params")]
    Params,
    #[serde(rename = "core-isa.h")]
    CoreIsa,
}

impl SourceFormat {
    pub fn label(self) -> &'static str {
        match self {
            SourceFormat::Params => "params",
            SourceFormat::CoreIsa => "core-isa.h",
        }
    }
}

/// One `Key = value` or `#define KEY value`, as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub key: String,
    pub value: String,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    pub path: String,
    pub format: SourceFormat,
    pub entries: Vec<Entry>,
    /// Keys given again later in the file; the first value is used.
    pub repeated_keys: Vec<String>,
}

impl Source {
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("{path}:{line}: malformed params line `{text}`: expected `Key = value`")]
    ParamsLine { path: String, line: u32, text: String },
    #[error("{path}:{line}: malformed #define `{text}`: expected `#define NAME value`")]
    Define { path: String, line: u32, text: String },
    #[error("{path}:{line}: `{text}` is not a core-isa.h line (expected a #define, a directive or a comment)")]
    CoreIsaLine { path: String, line: u32, text: String },
    #[error("{path}:{line}: unterminated /* comment")]
    Comment { path: String, line: u32 },
    #[error("{path}: no entries (neither `Key = value` lines nor #defines)")]
    Empty { path: String },
}

/// A `core-isa.h` is recognised by a `.h` name or any `#define` line;
/// anything else is read as a params file.
pub fn detect_format(path: &str, text: &str) -> SourceFormat {
    let defines = text.lines().any(|l| l.trim_start().starts_with("#define") || l.trim_start().starts_with("# define"));
    if path.ends_with(".h") || defines {
        SourceFormat::CoreIsa
    } else {
        SourceFormat::Params
    }
}

/// Parses a source whose format is detected from its name and text.
pub fn parse_source(path: &str, text: &str) -> Result<Source, SourceError> {
    match detect_format(path, text) {
        SourceFormat::Params => parse_params(path, text),
        SourceFormat::CoreIsa => parse_core_isa(path, text),
    }
}

fn finish(path: &str, format: SourceFormat, all: Vec<Entry>) -> Result<Source, SourceError> {
    if all.is_empty() {
        return Err(SourceError::Empty { path: path.to_string() });
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut repeated_keys = Vec::new();
    for entry in all {
        if entries.iter().any(|e| e.key == entry.key) {
            if !repeated_keys.contains(&entry.key) {
                repeated_keys.push(entry.key);
            }
        } else {
            entries.push(entry);
        }
    }
    Ok(Source { path: path.to_string(), format, entries, repeated_keys })
}

fn is_key(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// `Key = value` lines. A `#` at the start of a line or after whitespace
/// starts a comment.
pub fn parse_params(path: &str, text: &str) -> Result<Source, SourceError> {
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index as u32 + 1;
        let content = strip_hash_comment(raw).trim();
        if content.is_empty() {
            continue;
        }
        let malformed = || SourceError::ParamsLine { path: path.to_string(), line, text: raw.trim().to_string() };
        let (key, value) = content.split_once('=').ok_or_else(malformed)?;
        let key = key.trim();
        if !is_key(key) {
            return Err(malformed());
        }
        entries.push(Entry { key: key.to_string(), value: value.trim().to_string(), line });
    }
    finish(path, SourceFormat::Params, entries)
}

fn strip_hash_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) {
            return &line[..i];
        }
    }
    line
}

/// `#define` lines; other directives are skipped, function-like macros too.
pub fn parse_core_isa(path: &str, text: &str) -> Result<Source, SourceError> {
    let mut entries = Vec::new();
    let mut in_comment_since: Option<u32> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index as u32 + 1;
        let (content, still_open) = strip_c_comments(raw, in_comment_since.is_some());
        in_comment_since = match (still_open, in_comment_since) {
            (true, None) => Some(line),
            (true, open) => open,
            (false, _) => None,
        };
        let content = content.trim();
        if content.is_empty() {
            continue;
        }
        let Some(directive) = content.strip_prefix('#') else {
            return Err(SourceError::CoreIsaLine { path: path.to_string(), line, text: content.to_string() });
        };
        let directive = directive.trim_start();
        let Some(rest) = directive.strip_prefix("define") else { continue };
        if !rest.starts_with(char::is_whitespace) {
            return Err(SourceError::Define { path: path.to_string(), line, text: content.to_string() });
        }
        let rest = rest.trim_start();
        let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(SourceError::Define { path: path.to_string(), line, text: content.to_string() });
        }
        if rest[name_end..].starts_with('(') {
            continue;
        }
        entries.push(Entry { key: name.to_string(), value: rest[name_end..].trim().to_string(), line });
    }
    if let Some(line) = in_comment_since {
        return Err(SourceError::Comment { path: path.to_string(), line });
    }
    finish(path, SourceFormat::CoreIsa, entries)
}

/// Removes `/* … */` and `// …` from one line. `open` says a block comment
/// is still open from an earlier line; the result says one is open after it.
fn strip_c_comments(line: &str, open: bool) -> (String, bool) {
    let mut out = String::new();
    let mut rest = line;
    // Only ever set: the loop goes round again only after entering a block.
    let mut in_block = open;
    loop {
        if in_block {
            let Some(end) = rest.find("*/") else { return (out, true) };
            rest = &rest[end + 2..];
            out.push(' ');
        }
        match (rest.find("/*"), rest.find("//")) {
            (Some(b), s) if s.is_none_or(|s| b < s) => {
                out.push_str(&rest[..b]);
                rest = &rest[b + 2..];
                in_block = true;
            }
            (_, Some(s)) => {
                out.push_str(&rest[..s]);
                return (out, false);
            }
            _ => {
                out.push_str(rest);
                return (out, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_lines_comments_and_errors() {
        let text = "# header comment\nConfigName     = Xm_ncore2gp\nIsaIsBigEndian = 0   # little-endian\n\nEmpty =\nConfigName = again\n";
        let s = parse_params("p", text).unwrap();
        assert_eq!(s.entries.len(), 3);
        assert_eq!(
            s.get("IsaIsBigEndian").unwrap(),
            &Entry { key: "IsaIsBigEndian".into(), value: "0".into(), line: 3 }
        );
        assert_eq!(s.get("ConfigName").unwrap().value, "Xm_ncore2gp");
        assert_eq!(s.repeated_keys, vec!["ConfigName".to_string()]);
        let e = parse_params("p", "A = 1\nthis line has no equals sign\n").unwrap_err();
        assert_eq!(e.to_string(), "p:2: malformed params line `this line has no equals sign`: expected `Key = value`");
        assert!(parse_params("p", "bad key = 1").is_err());
        assert!(matches!(parse_params("p", "# only comments\n"), Err(SourceError::Empty { .. })));
    }

    #[test]
    fn core_isa_defines_and_comments() {
        let text = "/* Copyright\n   notice */\n#ifndef X\n#define XCHAL_HAVE_BE 0 /* little */\n\
                    #define XCHAL_CORE_ID \"Xm_ncore2gp\" // name\n#define XCHAL_F(n) ((n) + 1)\n#  define XCHAL_NUM_AREGS\t64\n#endif\n";
        let s = parse_core_isa("c.h", text).unwrap();
        let keys: Vec<&str> = s.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["XCHAL_HAVE_BE", "XCHAL_CORE_ID", "XCHAL_NUM_AREGS"]);
        assert_eq!(s.get("XCHAL_HAVE_BE").unwrap().value, "0");
        assert_eq!(s.get("XCHAL_CORE_ID").unwrap().value, "\"Xm_ncore2gp\"");
        assert_eq!(s.get("XCHAL_NUM_AREGS").unwrap().line, 7);
        assert!(matches!(parse_core_isa("c.h", "#define\n"), Err(SourceError::Define { .. })));
        assert!(matches!(parse_core_isa("c.h", "int x;\n"), Err(SourceError::CoreIsaLine { .. })));
        assert!(matches!(parse_core_isa("c.h", "/* open\n#define A 1\n"), Err(SourceError::Comment { line: 1, .. })));
    }

    #[test]
    fn format_detection() {
        assert_eq!(detect_format("core-isa.h", ""), SourceFormat::CoreIsa);
        assert_eq!(detect_format("x", "#define A 1"), SourceFormat::CoreIsa);
        assert_eq!(detect_format("ncore2gp-params", "A = 1"), SourceFormat::Params);
    }
}
