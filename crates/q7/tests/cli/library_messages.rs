//! The boundary between the CLI and the libraries, read from the sources:
//! no library string names one of q7's command-line flags (the libraries are
//! also called from Python, where no flag exists; the CLI adds the flag that
//! fixes an error). Report text a library writes for the CLI (`write!`,
//! `writeln!`) and tool argv (`"--flag"`, `"--flag=value"`) are not messages.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use q7_testkit::repo_root;

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The long flags q7's subcommands declare (`#[arg(long)]` takes the field's
/// name, `#[arg(long = "fn")]` the given one).
fn cli_flags() -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for path in rust_files(&repo_root().join("crates/q7/src")) {
        let text = std::fs::read_to_string(&path).expect("read CLI source");
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(inner) = line.strip_prefix("#[arg(").and_then(|l| l.strip_suffix(")]")) else { continue };
            for token in inner.split(',').map(str::trim) {
                if let Some(name) = token.strip_prefix("long").map(str::trim) {
                    if let Some(quoted) = name.strip_prefix('=') {
                        flags.insert(quoted.trim().trim_matches('"').to_string());
                    } else if name.is_empty() {
                        // The field this attribute (and any after it) annotates.
                        let field = lines[i + 1..].iter().find(|l| !l.starts_with("#[") && !l.starts_with("///"));
                        let field = field.expect("a field after #[arg]");
                        let name = field.trim_start_matches("pub ").split(':').next().expect("field name");
                        flags.insert(name.trim().replace('_', "-"));
                    }
                }
            }
        }
    }
    flags
}

/// The string literals of Rust `code` that are messages: each with its line,
/// leaving out those inside `write!`/`writeln!` and argv-like ones.
fn message_literals(code: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    // The macro or function name before each open bracket.
    let mut callers: Vec<String> = Vec::new();
    let (mut i, mut line) = (0, 1);
    let ident_before = |end: usize| {
        let mut start = end;
        while start > 0 && (chars[start - 1].is_alphanumeric() || "_!".contains(chars[start - 1])) {
            start -= 1;
        }
        chars[start..end].iter().collect::<String>()
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\n' => line += 1,
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '/' if next == Some('*') => {
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
                i += 2;
                continue;
            }
            '(' | '[' | '{' => callers.push(ident_before(i).trim().to_string()),
            ')' | ']' | '}' => {
                callers.pop();
            }
            // A char literal ('"', '\'', 'x'), not a lifetime.
            '\'' if next == Some('\\') => {
                i += 3;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
            }
            '\'' if chars.get(i + 2) == Some(&'\'') => i += 2,
            '"' | 'r' if c == '"' || (raw_start(&chars[i + 1..]) && ident_before(i).is_empty()) => {
                let start_line = line;
                let (text, end) = if c == '"' { cooked(&chars, i + 1) } else { raw(&chars, i + 1) };
                line += text.matches('\n').count();
                let in_report = callers.iter().any(|f| f == "write!" || f == "writeln!");
                let argv = text.starts_with('-') && !text.contains(char::is_whitespace);
                if !in_report && !argv {
                    out.push((start_line, text));
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// A "…" literal's text from just after its opening quote; the index past it.
fn cooked(chars: &[char], mut i: usize) -> (String, usize) {
    let mut text = String::new();
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            text.push(chars[i]);
            i += 1;
        }
        if let Some(&c) = chars.get(i) {
            text.push(c);
        }
        i += 1;
    }
    (text, i + 1)
}

/// Whether the text after an `r` opens a raw string (`r"`, `r#"`), not a
/// raw identifier (`r#type`).
fn raw_start(after: &[char]) -> bool {
    after.iter().find(|&&c| c != '#') == Some(&'"')
}

/// An r#"…"# literal's text from just after the `r`; the index past it.
fn raw(chars: &[char], mut i: usize) -> (String, usize) {
    let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
    i += hashes + 1;
    let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
    let rest: String = chars[i..].iter().collect();
    let len = rest.find(&close).unwrap_or(rest.len());
    (rest[..len].to_string(), i + rest[..len].chars().count() + close.chars().count())
}

/// The flags `text` names: `--flag` not followed by more of a flag name.
fn named_flags<'a>(text: &str, flags: &'a BTreeSet<String>) -> Vec<&'a str> {
    flags
        .iter()
        .filter(|flag| {
            let needle = format!("--{flag}");
            text.match_indices(&needle).any(|(at, _)| {
                let after = text[at + needle.len()..].chars().next();
                !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            })
        })
        .map(String::as_str)
        .collect()
}

/// A library file's code without its inline test module.
fn without_tests(text: &str) -> &str {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let next = &text[at + line.len()..];
        if line.trim() == "#[cfg(test)]" && next.trim_start().starts_with("mod ") {
            let decl = next.lines().next().unwrap_or_default();
            if decl.trim_end().ends_with('{') {
                return &text[..at];
            }
        }
        at += line.len();
    }
    text
}

#[test]
fn the_scanner_finds_flags_in_messages_only() {
    let flags: BTreeSet<String> = ["fn", "schema", "max-ranges", "json"].map(String::from).into();
    let code = r##"
        #[error("{count} names: give one --schema per --fn")]
        Mismatch,
        let lifetime: &'static str = "x"; let quote = '"';
        writeln!(out, "… {} more (raise --max-ranges)", n)?;
        Command::new("tool").arg("--json").args(["--schema=x"]);
        // a comment naming --json
        bail(format!(r#"see --json"#));
    "##;
    let found: Vec<(usize, Vec<&str>)> = message_literals(code)
        .into_iter()
        .map(|(line, text)| (line, named_flags(&text, &flags)))
        .filter(|(_, f)| !f.is_empty())
        .collect();
    assert_eq!(found, [(2, vec!["fn", "schema"]), (8, vec!["json"])]);
    assert_eq!(named_flags("--function and --fns", &flags), Vec::<&str>::new());
}

#[test]
fn library_messages_name_no_cli_flag() {
    let flags = cli_flags();
    for known in ["fn", "schema", "range", "base", "section", "grid", "cc", "single", "native", "max-insns"] {
        assert!(flags.contains(known), "--{known} not among the CLI's flags: {flags:?}");
    }
    let crates = repo_root().join("crates");
    let mut leaks = Vec::new();
    let mut scanned = 0;
    for entry in std::fs::read_dir(&crates).expect("read crates") {
        let dir = entry.expect("dir entry").path();
        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if !name.starts_with("q7-") || name == "q7-testkit" {
            continue;
        }
        for path in rust_files(&dir.join("src")) {
            let rel = path.strip_prefix(&crates).expect("under crates").display().to_string();
            let test_file = path.file_stem().is_some_and(|s| s == "tests")
                || path.components().any(|c| c.as_os_str() == "tests" || c.as_os_str() == "testsuite");
            if test_file {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read library source");
            for (line, literal) in message_literals(without_tests(&text)) {
                scanned += 1;
                let named = named_flags(&literal, &flags);
                if !named.is_empty() {
                    leaks.push(format!("{rel}:{line}: {named:?} in \"{literal}\""));
                }
            }
        }
    }
    assert!(scanned > 1000, "only {scanned} literals found: the scanner is broken");
    assert!(leaks.is_empty(), "library messages name CLI flags (the CLI should add them):\n{}", leaks.join("\n"));
}
