//! Sanitizer reports as findings: AddressSanitizer and MemorySanitizer
//! errors (kind, access, stack) and UndefinedBehaviorSanitizer's
//! `file:line:col: runtime error: ...` lines, each placed at the innermost
//! stack frame in the op's own sources.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use super::Sanitizer;

/// A source position from a report.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
    pub column: Option<u32>,
    pub function: Option<String>,
}

/// One sanitizer report.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// `AddressSanitizer`, `MemorySanitizer` or `UndefinedBehaviorSanitizer`.
    pub tool: String,
    /// e.g. `heap-use-after-free`, `use-of-uninitialized-value`, `runtime error`.
    pub kind: String,
    /// The access (`READ of size 4`) or UBSan's message.
    pub detail: String,
    /// The innermost frame in the op's sources, else the innermost with a file.
    pub location: Option<SourceLine>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.tool, self.kind)?;
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        if let Some(at) = &self.location {
            write!(f, " at {}:{}", at.file, at.line)?;
            if let Some(c) = at.column {
                write!(f, ":{c}")?;
            }
            if let Some(func) = &at.function {
                write!(f, " in {func}")?;
            }
        }
        Ok(())
    }
}

/// `FILE:LINE[:COL]`, the form both the frames and UBSan's lines use.
fn parse_position(text: &str) -> Option<(String, u32, Option<u32>)> {
    let mut parts = text.rsplitn(3, ':');
    let last = parts.next()?;
    let middle = parts.next()?;
    match (parts.next(), middle.parse::<u32>(), last.parse::<u32>()) {
        (Some(file), Ok(line), Ok(col)) if !file.is_empty() => Some((file.to_string(), line, Some(col))),
        (rest, _, Ok(line)) => {
            let file = match rest {
                Some(r) => format!("{r}:{middle}"),
                None => middle.to_string(),
            };
            (!file.is_empty() && !middle.is_empty()).then_some((file, line, None))
        }
        _ => None,
    }
}

/// `    #0 0x55d0 in relu_forward(at::Tensor const&) /src/op.cpp:14:12`.
fn parse_frame(line: &str) -> Option<SourceLine> {
    let rest = line.trim_start().strip_prefix('#')?;
    let (_, rest) = rest.split_once(" in ")?;
    let (function, position) = rest.rsplit_once(' ')?;
    let (file, line, column) = parse_position(position)?;
    Some(SourceLine { file, line, column, function: Some(function.to_string()) })
}

fn is_op_source(file: &str, sources: &[PathBuf]) -> bool {
    let path = Path::new(file);
    let canon = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    sources.iter().any(|s| s == path || s.canonicalize().map(|c| c == canon).unwrap_or(false))
}

/// The innermost frame in the op's sources, else the innermost one outside
/// the C library and the sanitizer runtime.
fn pick(frames: &[SourceLine], sources: &[PathBuf]) -> Option<SourceLine> {
    frames.iter().find(|f| is_op_source(&f.file, sources)).cloned().or_else(|| {
        frames
            .iter()
            .find(|f| f.file.starts_with('/') && !f.file.contains("compiler-rt") && !f.file.contains("csu/"))
            .cloned()
    })
}

/// The kind a `SUMMARY: <tool>: <kind> ...` line names, looking from `from`
/// to the next report's header.
fn summary_kind(lines: &[&str], from: usize, tool: &str) -> Option<String> {
    let marker = format!("SUMMARY: {tool}: ");
    lines[from..]
        .iter()
        .take_while(|l| !l.contains("ERROR: ") && !l.contains("WARNING: MemorySanitizer: "))
        .find_map(|l| l.split_once(&marker))
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .map(str::to_string)
}

/// The report header's words after its first, up to the registers or the
/// thread (`on unknown address 0x0`, `requested allocation size 0x10 ...`).
fn header_detail(rest: &str) -> String {
    let end = [" (pc ", " at pc ", " (thread "].iter().filter_map(|m| rest.find(m)).min().unwrap_or(rest.len());
    rest[..end].trim().to_string()
}

/// Reads the findings from a run's stderr: the sanitizers' reports and the
/// host runtime's own (`q7-native: finding: KIND: DETAIL` and a stack).
pub fn parse(stderr: &str, sanitizer: Sanitizer, sources: &[PathBuf]) -> Vec<Finding> {
    let _ = sanitizer;
    let lines: Vec<&str> = stderr.lines().collect();
    let mut findings = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if let Some(rest) = line.strip_prefix("q7-native: finding: ") {
            let (kind, detail) = rest.split_once(": ").unwrap_or((rest, ""));
            let mut frames = Vec::new();
            while i < lines.len() && lines[i].trim_start().starts_with('#') {
                frames.extend(parse_frame(lines[i]));
                i += 1;
            }
            findings.push(Finding {
                tool: "q7-native".into(),
                kind: kind.into(),
                detail: detail.into(),
                location: pick(&frames, sources),
            });
            continue;
        }
        // ==PID==ERROR: AddressSanitizer: heap-use-after-free on address ...
        let header = ["ERROR: AddressSanitizer: ", "WARNING: MemorySanitizer: "]
            .iter()
            .find_map(|marker| line.split_once(marker).map(|(_, rest)| (marker, rest)));
        if let Some((marker, rest)) = header {
            let tool = if marker.contains("Address") { "AddressSanitizer" } else { "MemorySanitizer" };
            let first = rest.split(' ').next().unwrap_or(rest);
            // The summary names every kind; the header's first word only most.
            let kind = summary_kind(&lines, i, tool).unwrap_or_else(|| first.to_string());
            let mut detail = String::new();
            let mut frames = Vec::new();
            // The access line, then the first stack (up to its blank line).
            while i < lines.len() && !lines[i].trim_start().starts_with('#') && !lines[i].trim().is_empty() {
                if detail.is_empty() && (lines[i].starts_with("READ") || lines[i].starts_with("WRITE")) {
                    detail = lines[i].split(" at 0x").next().unwrap_or(lines[i]).trim().to_string();
                }
                i += 1;
            }
            if detail.is_empty() {
                let words = if kind == first { &rest[first.len()..] } else { rest };
                detail = header_detail(words);
            }
            while i < lines.len() && lines[i].trim_start().starts_with('#') {
                frames.extend(parse_frame(lines[i]));
                i += 1;
            }
            findings.push(Finding { tool: tool.into(), kind, detail, location: pick(&frames, sources) });
            continue;
        }
        // /src/op.cpp:14:12: runtime error: signed integer overflow: ...
        if let Some((position, message)) = line.split_once(": runtime error: ") {
            let mut frames = Vec::new();
            while i < lines.len() && lines[i].trim_start().starts_with('#') {
                frames.extend(parse_frame(lines[i]));
                i += 1;
            }
            let own =
                parse_position(position).map(|(file, line, column)| SourceLine { file, line, column, function: None });
            let location = match (own, pick(&frames, sources)) {
                (Some(at), Some(frame)) if at.file == frame.file && at.line == frame.line => Some(frame),
                (Some(at), _) if is_op_source(&at.file, sources) => Some(at),
                (own, frame) => frame.or(own),
            };
            findings.push(Finding {
                tool: "UndefinedBehaviorSanitizer".into(),
                kind: "runtime error".into(),
                detail: message.trim().to_string(),
                location,
            });
        }
    }
    findings
}

/// Exit code the sanitizers stop with (`exitcode=` in their options).
pub const SANITIZER_EXIT: i32 = 86;

/// A sanitizer's own account of why it stopped when no report parsed (it
/// ran out of memory, a CHECK failed): its first error or summary line.
fn sanitizer_reason(stderr: &str) -> Option<String> {
    stderr.lines().find_map(|l| {
        let l = l.trim();
        // "==123==ERROR: ..." → "ERROR: ...".
        let text = match l.strip_prefix("==") {
            Some(rest) => rest.split_once("==").map_or(rest, |(_, t)| t),
            None => l,
        };
        let said = text.contains("Sanitizer")
            && (text.starts_with("ERROR") || text.starts_with("SUMMARY") || text.contains("CHECK failed"));
        said.then(|| text.trim().to_string())
    })
}

/// Why a finished run failed, if it did: the SDK's status line, a sanitizer
/// stop, a signal or a non-zero exit.
pub fn failure(status: &ExitStatus, stderr: &str, findings: &[Finding]) -> Option<String> {
    if status.success() {
        return None;
    }
    if let Some(line) = stderr.lines().rev().find(|l| l.starts_with("q7-native: core ")) {
        let message = stderr.lines().rev().find(|l| l.starts_with("q7: ")).map(|l| format!(": {}", &l[4..]));
        let meaning = status.code().map(q7_target::launch::status_meaning).unwrap_or("");
        return Some(format!("{} ({meaning}){}", &line["q7-native: ".len()..], message.unwrap_or_default()));
    }
    if let Some(line) = stderr.lines().find(|l| l.starts_with("q7-native: bad launch file")) {
        return Some(line["q7-native: ".len()..].to_string());
    }
    if status.code() == Some(SANITIZER_EXIT) {
        let first = findings.iter().find(|f| f.tool != "UndefinedBehaviorSanitizer");
        return Some(match (first, sanitizer_reason(stderr)) {
            (Some(f), _) => format!("stopped by {}: {}", f.tool, f.kind),
            (None, Some(reason)) => format!("stopped by a sanitizer: {reason}"),
            (None, None) => "stopped by a sanitizer".to_string(),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = super::child::signal_name(signal);
            // The seccomp filter's trap, before the host runtime's handler was in place.
            let why =
                if signal == libc::SIGSYS { ": it tried to create a process, which the device cannot" } else { "" };
            return Some(format!("the host run ended by {name} ({signal}){why}"));
        }
    }
    Some(format!("the host run exited with status {}", status.code().unwrap_or(-1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASAN: &str = "=================================================================
==20415==ERROR: AddressSanitizer: heap-use-after-free on address 0x7b736d7e0014 at pc 0x55820dc54d58 bp 0x7fff30fb7b50 sp 0x7fff30fb7b48
READ of size 4 at 0x7b736d7e0014 thread T0
    #0 0x55820dc54d57 in helper(float*) /tmp/q7/op.cpp:3:149
    #1 0x55820dc54d00 in relu_forward(at::Tensor const&) /tmp/q7/op.cpp:9:10
    #2 0x7f536e445249 in __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16
    #3 0x55820db6b360 in _start (/tmp/native-probe/a+0x2d360) (BuildId: 0200e9341a5a9634bdda46952b33919ce72b6165)

0x7b736d7e0014 is located 4 bytes inside of 16-byte region [0x7b736d7e0010,0x7b736d7e0020)
freed by thread T0 here:
    #0 0x55820dc104a6 in free (/tmp/native-probe/a+0xd24a6)
";

    #[test]
    fn asan_report_names_the_innermost_op_frame() {
        let sources = vec![PathBuf::from("/tmp/q7/op.cpp")];
        let f = parse(ASAN, Sanitizer::AddressUndefined, &sources);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, "heap-use-after-free");
        assert_eq!(f[0].detail, "READ of size 4");
        let at = f[0].location.as_ref().unwrap();
        assert_eq!((at.file.as_str(), at.line, at.column), ("/tmp/q7/op.cpp", 3, Some(149)));
        assert_eq!(at.function.as_deref(), Some("helper(float*)"));
        assert_eq!(
            f[0].to_string(),
            "AddressSanitizer: heap-use-after-free: READ of size 4 at /tmp/q7/op.cpp:3:149 in helper(float*)"
        );
    }

    #[test]
    fn ubsan_line_is_a_finding() {
        let text = "/w/op.cpp:7:13: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'\n    #0 0x1 in f(int) /w/op.cpp:7:13\n";
        let f = parse(text, Sanitizer::AddressUndefined, &[PathBuf::from("/w/op.cpp")]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].tool, "UndefinedBehaviorSanitizer");
        assert!(f[0].detail.starts_with("signed integer overflow"));
        assert_eq!(f[0].location.as_ref().map(|l| l.line), Some(7));
    }

    #[test]
    fn the_summary_names_the_kind_and_the_header_the_detail() {
        let text = "==7==ERROR: AddressSanitizer: requested allocation size 0x1000000000 (0x1000001000 after adjustments) exceeds maximum supported size of 0x4000000 (thread T0)
    #0 0x1 in malloc (/x/q7-native+0xd2854)
    #1 0x2 in grow(at::Tensor const&) /w/op.cpp:9:15

SUMMARY: AddressSanitizer: allocation-size-too-big (/x/q7-native+0xd2854) in malloc
";
        let f = parse(text, Sanitizer::AddressUndefined, &[PathBuf::from("/w/op.cpp")]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, "allocation-size-too-big");
        assert!(f[0].detail.starts_with("requested allocation size 0x1000000000"), "{}", f[0].detail);
        assert!(f[0].detail.ends_with("of 0x4000000"), "{}", f[0].detail);
        assert_eq!(f[0].location.as_ref().map(|l| l.line), Some(9));
    }

    #[test]
    fn host_runtime_findings_carry_their_stack() {
        let text = "q7-native: finding: heap-limit: the op allocated more than the device heap's 64 MiB
    #0 0x1 in __sanitizer_print_stack_trace (/x/q7-native+0x10)
    #1 0x2 in grow(at::Tensor const&) /w/op.cpp:9:15
q7: the op allocated more than the device heap's 64 MiB
q7-native: core 0 ended with status 5
";
        let f = parse(text, Sanitizer::AddressUndefined, &[PathBuf::from("/w/op.cpp")]);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].to_string(),
            "q7-native: heap-limit: the op allocated more than the device heap's 64 MiB at /w/op.cpp:9:15 in grow(at::Tensor const&)"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_sanitizer_stop_without_a_report_says_why() {
        use std::os::unix::process::ExitStatusExt;
        let stopped = ExitStatus::from_raw(SANITIZER_EXIT << 8);
        let text = "==9==ERROR: AddressSanitizer failed to allocate 0x10000000 (268435456) bytes of LargeMmapAllocator (error code: 12)\n==9==Process memory map follows:\n";
        assert_eq!(
            failure(&stopped, text, &[]).as_deref(),
            Some("stopped by a sanitizer: ERROR: AddressSanitizer failed to allocate 0x10000000 (268435456) bytes of LargeMmapAllocator (error code: 12)")
        );
        let f = parse(ASAN, Sanitizer::AddressUndefined, &[PathBuf::from("/tmp/q7/op.cpp")]);
        assert_eq!(failure(&stopped, ASAN, &f).as_deref(), Some("stopped by AddressSanitizer: heap-use-after-free"));
        assert_eq!(failure(&stopped, "", &[]).as_deref(), Some("stopped by a sanitizer"));
        let trapped = ExitStatus::from_raw(libc::SIGSYS);
        assert!(failure(&trapped, "", &[]).unwrap().contains("SIGSYS (31): it tried to create a process"));
    }

    #[test]
    fn positions_parse_with_and_without_column() {
        assert_eq!(parse_position("/a/b.cpp:12:5"), Some(("/a/b.cpp".into(), 12, Some(5))));
        assert_eq!(parse_position("/a/b.cpp:12"), Some(("/a/b.cpp".into(), 12, None)));
        assert_eq!(parse_position("(/bin/x+0x12)"), None);
    }
}
