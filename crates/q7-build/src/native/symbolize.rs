//! Sanitizer stacks symbolized by q7. The host run may not create processes
//! (`child`), so its sanitizers print frames as `(module+offset)`
//! (`symbolize=0`); q7 asks llvm-symbolizer-22 about them and writes the
//! frames the way the sanitizers would have: `#N 0xPC in FUNCTION FILE:LINE:COL`,
//! an inlined call's frames innermost first.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::command::Command;
use crate::exec;

/// The symbolizer the sanitizers would have used.
pub const SYMBOLIZER: &str = "llvm-symbolizer-22";

/// `    #3 0x55820dc54d57  (/path/q7-native+0x12d57) (BuildId: ...)`.
#[derive(Debug, PartialEq, Eq)]
struct RawFrame<'a> {
    indent: &'a str,
    number: u32,
    pc: u64,
    module: &'a str,
    offset: u64,
}

fn parse_raw(line: &str) -> Option<RawFrame<'_>> {
    let rest = line.trim_start();
    let indent = &line[..line.len() - rest.len()];
    let rest = rest.strip_prefix('#')?;
    let (number, rest) = rest.split_once(' ')?;
    let (pc, rest) = rest.strip_prefix("0x")?.split_once(' ')?;
    // Symbolized frames say " in FUNCTION" here; raw ones go straight to "(".
    let rest = rest.trim_start().strip_prefix('(')?;
    let close = rest.find(") ").or_else(|| rest.strip_suffix(')').map(|r| r.len()))?;
    let (module, offset) = rest[..close].rsplit_once("+0x")?;
    Some(RawFrame {
        indent,
        number: number.parse().ok()?,
        pc: u64::from_str_radix(pc, 16).ok()?,
        module,
        offset: u64::from_str_radix(offset, 16).ok()?,
    })
}

/// One source frame of an address (inlined calls give several).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Symbol {
    function: String,
    file: String,
    line: u64,
    column: u64,
}

/// Rewrites the raw frames of `text` symbolized; lines that are not raw
/// frames, and frames the symbolizer knows nothing of, stay as they are.
pub fn symbolize(text: &str, symbolizer: Option<&Path>) -> String {
    let frames: Vec<Option<RawFrame>> = text.lines().map(parse_raw).collect();
    let mut wanted: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
    for f in frames.iter().flatten() {
        wanted.entry(f.module).or_default().insert(f.offset);
    }
    let Some(symbolizer) = symbolizer.filter(|_| !wanted.is_empty()) else { return text.to_string() };
    let mut known: HashMap<(&str, u64), Vec<Symbol>> = HashMap::new();
    for (module, offsets) in &wanted {
        // Only files: the text is the op's stderr, which could name anything.
        if !Path::new(module).is_absolute() || !Path::new(module).is_file() {
            continue;
        }
        let offsets: Vec<u64> = offsets.iter().copied().collect();
        for chunk in offsets.chunks(256) {
            for (offset, symbols) in chunk.iter().zip(ask(symbolizer, module, chunk)) {
                known.insert((module, *offset), symbols);
            }
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut number = 0;
    for (line, frame) in text.lines().zip(&frames) {
        let Some(f) = frame else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        if f.number == 0 {
            number = 0;
        }
        match known.get(&(f.module, f.offset)).filter(|s| !s.is_empty()) {
            Some(symbols) => {
                for s in symbols {
                    let at = match (s.file.as_str(), s.line, s.column) {
                        ("" | "??", _, _) | (_, 0, _) => format!("({}+{:#x})", f.module, f.offset),
                        (file, line, 0) => format!("{file}:{line}"),
                        (file, line, column) => format!("{file}:{line}:{column}"),
                    };
                    out.push_str(&format!("{}#{number} {:#x} in {} {at}\n", f.indent, f.pc, s.function));
                    number += 1;
                }
            }
            None => {
                out.push_str(&format!("{}#{number}{}\n", f.indent, &line.trim_start()[1 + digits(f.number)..]));
                number += 1;
            }
        }
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

fn digits(n: u32) -> usize {
    n.to_string().len()
}

/// The symbols of each offset in `module` (empty when unknown or on any failure).
fn ask(symbolizer: &Path, module: &str, offsets: &[u64]) -> Vec<Vec<Symbol>> {
    let cmd = Command::new(symbolizer)
        .arg("--output-style=JSON")
        .arg("--inlines")
        .arg("--demangle")
        .arg(format!("--obj={module}"))
        .args(offsets.iter().map(|o| format!("{o:#x}")));
    let Ok(out) = exec::run(&cmd) else { return vec![Vec::new(); offsets.len()] };
    let mut answers = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(serde_json::Value::Array(items)) => answers.extend(items),
            Ok(item @ serde_json::Value::Object(_)) => answers.push(item),
            _ => {}
        }
    }
    let mut result: Vec<Vec<Symbol>> = answers.iter().map(symbols).collect();
    result.resize(offsets.len(), Vec::new());
    result
}

fn symbols(answer: &serde_json::Value) -> Vec<Symbol> {
    let Some(list) = answer["Symbol"].as_array() else { return Vec::new() };
    list.iter()
        .filter_map(|s| {
            let function = s["FunctionName"].as_str().filter(|f| !f.is_empty() && *f != "??")?;
            Some(Symbol {
                function: function.to_string(),
                file: s["FileName"].as_str().unwrap_or_default().to_string(),
                line: s["Line"].as_u64().unwrap_or(0),
                column: s["Column"].as_u64().unwrap_or(0),
            })
        })
        .collect()
}

/// llvm-symbolizer-22 on PATH, if there.
pub fn find_symbolizer() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(SYMBOLIZER)).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_frames_parse_and_symbolized_ones_do_not() {
        let f = parse_raw("    #3 0x55d2424c2854  (/tmp/a b/q7-native+0xd2854) (BuildId: 5484)").unwrap();
        assert_eq!(
            f,
            RawFrame { indent: "    ", number: 3, pc: 0x55d2_424c_2854, module: "/tmp/a b/q7-native", offset: 0xd2854 }
        );
        assert!(parse_raw("    #0 0x1 (/lib/libc.so.6+0x27249)").is_some());
        assert_eq!(parse_raw("    #0 0x55 in main /tmp/a.cpp:3:1"), None);
        assert_eq!(parse_raw("    #1 0x55 in free (/tmp/a+0xd24a6)"), None);
        assert_eq!(parse_raw("SUMMARY: AddressSanitizer: heap-use-after-free (/tmp/a+0x116d58)"), None);
    }

    #[test]
    fn without_a_symbolizer_the_text_is_unchanged() {
        let text = "x\n    #0 0x1  (/nonexistent+0x10)\n";
        assert_eq!(symbolize(text, None), text);
        assert_eq!(symbolize(text, Some(Path::new("/nonexistent-symbolizer"))), text);
    }

    #[test]
    fn frames_of_this_test_binary_get_functions() {
        let Some(sym) = find_symbolizer() else { return };
        let exe = std::env::current_exe().unwrap();
        // The address of a function of this binary, as an offset into it
        // (a PIE's offsets are its link-time addresses).
        let text = std::fs::read_to_string("/proc/self/maps").unwrap();
        let base = text
            .lines()
            .find(|l| l.ends_with(exe.to_str().unwrap()))
            .and_then(|l| u64::from_str_radix(l.split('-').next()?, 16).ok())
            .unwrap();
        let pc = frames_of_this_test_binary_get_functions as *const () as usize as u64;
        let raw = format!("  #0 {pc:#x}  ({}+{:#x})\n  #1 {pc:#x}  (/x+0x1)\n", exe.display(), pc - base);
        let out = symbolize(&raw, Some(&sym));
        assert!(out.contains("frames_of_this_test_binary_get_functions"), "{out}");
        assert!(out.contains("symbolize.rs:"), "{out}");
        assert!(out.ends_with(&format!("  #1 {pc:#x}  (/x+0x1)\n")), "unknown modules stay: {out}");
    }
}
