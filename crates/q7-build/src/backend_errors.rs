//! One-line explanations of the open toolchain's known failures, read from
//! the failing tool's stderr: a backend crash (`llc-22` prints "LLVM ERROR:"
//! and a stack dump naming the function) and GNU ld's L32R range error.

/// The function LLVM was compiling when it failed: the `In function: NAME`
/// line of a selection failure, else the innermost `on function '@NAME'` of
/// the stack dump.
pub fn failing_function(stderr: &str) -> Option<String> {
    if let Some(line) = stderr.lines().find_map(|l| l.trim().strip_prefix("In function: ")) {
        return Some(line.trim().to_string());
    }
    stderr
        .lines()
        .filter_map(|l| l.split_once("on function '@").map(|(_, rest)| rest))
        .filter_map(|rest| rest.rsplit_once('\'').map(|(name, _)| name.trim_matches('"').to_string()))
        .next_back()
}

/// The backend's own error message (`LLVM ERROR: …` or `error in backend: …`).
fn backend_message(stderr: &str) -> Option<&str> {
    stderr.lines().find_map(|l| {
        l.split_once("LLVM ERROR: ").or_else(|| l.split_once("error in backend: ")).map(|(_, m)| m.trim())
    })
}

/// Whether llc gave up for want of an emergency spill slot (defect 7),
/// which a larger frame avoids (crate::legalize::legalize_padded).
pub fn is_scavenger_failure(stderr: &str) -> bool {
    stderr.contains("Cannot scavenge register without an emergency spill slot")
}

/// Explains an `llc-22` failure in one line, naming the function (through
/// `demangle`), or `None` when stderr holds no backend error.
pub fn explain_backend_failure(stderr: &str, demangle: &dyn Fn(&str) -> String) -> Option<String> {
    let message = backend_message(stderr)?;
    let function = failing_function(stderr).map_or_else(|| "?".into(), |f| demangle(&f));
    if is_scavenger_failure(message) {
        return Some(format!(
            "clang-22's Xtensa backend cannot compile function `{function}`, even with its frame padded past 2 KiB: \
             the register scavenger has no register to spill (\"{message}\"); move large locals to the heap or \
             TCM, or split the function (sdk/README.md, defect 7)"
        ));
    }
    // Keep the first line only: the rest is the tool's bug-report boilerplate.
    let first = message.lines().next().unwrap_or(message);
    Some(format!("clang-22's Xtensa backend failed in function `{function}`: {first}"))
}

/// Explains GNU ld's "l32r: literal target out of range" in one line,
/// naming the function whose code is too far from its literal pool.
pub fn explain_link_failure(stderr: &str, demangle: &dyn Fn(&str) -> String) -> Option<String> {
    let line = stderr.lines().find(|l| l.contains("l32r: literal target out of range"))?;
    let function = line
        .split_once("(.text.")
        .and_then(|(_, rest)| rest.split(['+', ')']).next())
        .filter(|name| !name.is_empty())
        .map_or_else(|| "?".into(), demangle);
    Some(format!(
        "function `{function}` is too large: an L32R in it is more than 256 KiB past its literal pool \
         (ld: l32r: literal target out of range); split the function (sdk/README.md, defect 8)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(name: &str) -> String {
        name.to_string()
    }

    #[test]
    fn selection_failure_names_the_function() {
        let stderr = "LLVM ERROR: Cannot select: 0x1: i32 = <<Unknown Target Node #534>>\nIn function: sign1\n\
                      PLEASE submit a bug report\nStack dump:\n2.\tRunning pass 'X' on function '@sign1'\n";
        assert_eq!(failing_function(stderr).as_deref(), Some("sign1"));
        let line = explain_backend_failure(stderr, &same).unwrap();
        assert!(line.starts_with("clang-22's Xtensa backend failed in function `sign1`: Cannot select:"), "{line}");
        assert!(!line.contains('\n'));
    }

    #[test]
    fn scavenger_failure_names_the_function_from_the_stack_dump() {
        let stderr = "LLVM ERROR: Cannot scavenge register without an emergency spill slot!\nStack dump:\n\
                      1.\tRunning pass 'Function Pass Manager' on module 'x.ll'.\n\
                      2.\tRunning pass 'Prologue/Epilogue Insertion & Frame Finalization' on function '@_Z3bigv'\n";
        let line = explain_backend_failure(stderr, &same).unwrap();
        assert!(line.contains("cannot compile function `_Z3bigv`, even with its frame padded"), "{line}");
        assert_eq!(explain_backend_failure("warning: something else\n", &same), None);
    }

    #[test]
    fn l32r_range_error_names_the_function() {
        let stderr = "xtensa-lx106-elf-ld: big.o: in function `_start':\nbig.c:(.text._start+0x445c6): dangerous \
                      relocation: l32r: literal target out of range (try using text-section-literals): .literal.f\n";
        let line = explain_link_failure(stderr, &same).unwrap();
        assert!(line.starts_with("function `_start` is too large"), "{line}");
        assert_eq!(explain_link_failure("undefined reference to `x'", &same), None);
    }
}
