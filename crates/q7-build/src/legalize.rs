//! IR legalisation for clang-22's Xtensa backend (sdk/README.md, "clang-22
//! Xtensa defects"): the open profile compiles C/C++ to textual LLVM IR,
//! passes it through [`legalize`], then runs `llc-22` on the result.
//!
//! * **Rewritten**: a `select` between two `float` constants (and the
//!   `uitofp`/`sitofp` of an `i1` that the backend turns into one), scalar or
//!   vector. The backend's "select of FP constants → load from a two-entry
//!   constant pool" combine produces a node the Xtensa backend cannot select
//!   (`Cannot select: … TargetConstantPool:i32<[2 x float] …>`). Selecting
//!   the constants' bit patterns as integers and bit-casting the result gives
//!   the same value with one `l32r` per constant and no crash.
//! * **Refused**: user functions that call `llvm.va_start` (the backend
//!   saves the wrong registers; arguments arrive wrong with no warning) and
//!   functions that use the `half` type (`__fp16`: the backend cannot select
//!   its loads and conversions).
//!
//! The textual IR is stable enough for the few instruction forms involved;
//! every other line passes through untouched.

/// Changes whenever the rewrites change, so incremental builds redo them.
pub const REVISION: &str = "q7-legalize 1";

/// The result of legalising one module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legalized {
    pub ir: String,
    /// How many instructions were rewritten.
    pub rewrites: usize,
}

/// A construct the backend miscompiles or crashes on and q7 cannot rewrite.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "function `{function}` is variadic (uses va_start), which clang-22's Xtensa backend miscompiles \
         (arguments arrive wrong); format with the SDK's printf/snprintf/fprintf instead (sdk/README.md, defect 2)"
    )]
    Variadic { function: String },
    #[error(
        "function `{function}` uses half precision (__fp16), which clang-22's Xtensa backend cannot compile; \
         store c10::Half and convert with its float operators instead (sdk/README.md, defect 6)"
    )]
    Half { function: String },
}

impl Refusal {
    /// The IR name of the function concerned (mangled for C++).
    pub fn function(&self) -> &str {
        match self {
            Refusal::Variadic { function } | Refusal::Half { function } => function,
        }
    }

    /// The same refusal naming `function` instead (e.g. demangled).
    pub fn renamed(&self, function: String) -> Refusal {
        match self {
            Refusal::Variadic { .. } => Refusal::Variadic { function },
            Refusal::Half { .. } => Refusal::Half { function },
        }
    }
}

/// Bytes of unused stack added to a function the register scavenger gave up
/// on (sdk/README.md, defect 7): above 2 KiB of frame the backend reserves
/// the emergency spill slot it lacked.
pub const STACK_PAD_BYTES: u32 = 2048;

/// Applies q7's rewrites to `ir`, or refuses the first function that uses
/// a construct the backend cannot compile correctly.
pub fn legalize(ir: &str) -> Result<Legalized, Refusal> {
    legalize_padded(ir, &[])
}

/// [`legalize`], and gives each function named in `padded` (IR names) an
/// unused [`STACK_PAD_BYTES`] stack object in its entry block.
pub fn legalize_padded(ir: &str, padded: &[String]) -> Result<Legalized, Refusal> {
    let mut out = String::with_capacity(ir.len() + 1024);
    let mut rewrites = 0;
    let mut function: Option<String> = None;
    let mut pad_pending = false;
    for line in ir.lines() {
        if pad_pending {
            pad_pending = false;
            // After the entry block's label, if it has one.
            let is_label = !line.starts_with(char::is_whitespace)
                && line.split(';').next().unwrap_or("").trim_end().ends_with(':');
            if is_label {
                out.push_str(line);
                out.push('\n');
            }
            out.push_str(&format!("  %q7.stack.pad = alloca [{STACK_PAD_BYTES} x i8], align 4\n"));
            if is_label {
                continue;
            }
        }
        if let Some(rest) = line.strip_prefix("define ") {
            function = Some(defined_name(rest));
            pad_pending = padded.iter().any(|p| Some(p) == function.as_ref());
            check_half(line, &function)?;
        } else if line.starts_with('}') {
            function = None;
        } else if let Some(name) = &function {
            if line.contains("@llvm.va_start") {
                return Err(Refusal::Variadic { function: name.clone() });
            }
            check_half(line, &function)?;
            if let Some(rewritten) = rewrite_instruction(line, rewrites) {
                out.push_str(&rewritten);
                rewrites += 1;
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(Legalized { ir: out, rewrites })
}

/// The `@name` of a `define` line (quoted names keep their text).
fn defined_name(define: &str) -> String {
    let Some(at) = define.find('@') else { return String::from("?") };
    let name = &define[at + 1..];
    if let Some(quoted) = name.strip_prefix('"') {
        return quoted.split('"').next().unwrap_or_default().to_string();
    }
    name.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or_default().to_string()
}

fn check_half(line: &str, function: &Option<String>) -> Result<(), Refusal> {
    // clang lowers `__fp16` loads and stores to these conversion intrinsics.
    let converts = line.contains("@llvm.convert.from.fp16") || line.contains("@llvm.convert.to.fp16");
    if converts || uses_half_type(line) {
        return Err(Refusal::Half { function: function.clone().unwrap_or_default() });
    }
    Ok(())
}

/// Whether `line` names the IR type `half` (not a value or string that
/// merely contains the word).
fn uses_half_type(line: &str) -> bool {
    let code = line.split(" !").next().unwrap_or(line);
    code.match_indices("half").any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + 4..].chars().next();
        matches!(before, Some(' ' | '(' | '<' | ',')) && matches!(after, None | Some(' ' | ',' | '>' | ')' | '*'))
    })
}

/// `float` → `i32`, `<N x float>` → `<N x i32>`; `None` for other types.
fn integer_twin(ty: &str) -> Option<String> {
    if ty == "float" {
        return Some("i32".into());
    }
    let inner = ty.strip_prefix('<')?.strip_suffix('>')?;
    let (count, elem) = inner.split_once(" x ")?;
    (elem.trim() == "float" && count.trim().parse::<u32>().is_ok()).then(|| format!("<{} x i32>", count.trim()))
}

/// Whether `ty` is `i1` or `<N x i1>`.
fn is_bool_type(ty: &str) -> bool {
    ty == "i1" || ty.strip_prefix('<').and_then(|t| t.strip_suffix('>')).is_some_and(|t| t.ends_with(" x i1"))
}

/// Splits `<type> <value>` where the type is a scalar word or a `<…>` vector.
fn split_typed(operand: &str) -> Option<(&str, &str)> {
    let operand = operand.trim();
    let end = if operand.starts_with('<') { matching_close(operand)? + 1 } else { operand.find(' ')? };
    Some((&operand[..end], operand[end..].trim()))
}

/// The index of the bracket that closes the one `s` starts with.
fn matching_close(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits at commas outside brackets.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// Constants are everything that is not a local (`%`) or global (`@`) value.
fn is_constant(value: &str) -> bool {
    !value.is_empty() && !value.starts_with('%') && !value.starts_with('@')
}

const FAST_MATH_FLAGS: &[&str] = &["nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast"];

/// Returns the replacement text (with its newlines) for a line that needs
/// one, `None` otherwise. `serial` makes the new value's name unique.
fn rewrite_instruction(line: &str, serial: usize) -> Option<String> {
    let (lhs, rhs) = line.split_once(" = ")?;
    let result = lhs.trim();
    if !result.starts_with('%') {
        return None;
    }
    let indent = &line[..line.len() - line.trim_start().len()];
    let temp = format!("%q7.legal.{serial}");
    let (opcode, operands) = rhs.trim_start().split_once(' ')?;
    let select = |cond: &str, int_ty: &str, float_ty: &str, a: &str, b: &str, tail: &str| {
        format!(
            "{indent}{temp} = select {cond}, {int_ty} bitcast ({float_ty} {a} to {int_ty}), \
             {int_ty} bitcast ({float_ty} {b} to {int_ty}){tail}\n{indent}{result} = bitcast {int_ty} {temp} to {float_ty}\n"
        )
    };
    match opcode {
        "select" => {
            let mut rest = operands.trim_start();
            while let Some((word, tail)) = rest.split_once(' ') {
                if !FAST_MATH_FLAGS.contains(&word) {
                    break;
                }
                rest = tail;
            }
            let parts = split_top_level(rest);
            if parts.len() < 3 {
                return None;
            }
            let (ty, a) = split_typed(parts[1])?;
            let (ty_b, b) = split_typed(parts[2])?;
            let int_ty = integer_twin(ty)?;
            if ty != ty_b || !is_constant(a) || !is_constant(b) {
                return None;
            }
            let tail: String = parts[3..].iter().map(|p| format!(",{p}")).collect();
            Some(select(parts[0].trim(), &int_ty, ty, a, b, &tail))
        }
        "uitofp" | "sitofp" => {
            let operands = operands.trim_start().strip_prefix("nneg ").unwrap_or(operands.trim_start());
            let (source, target) = operands.split_once(" to ")?;
            let (target, tail) = match target.split_once(',') {
                Some((t, rest)) => (t.trim(), format!(",{rest}")),
                None => (target.trim(), String::new()),
            };
            let (bool_ty, _) = split_typed(source)?;
            let int_ty = integer_twin(target)?;
            if !is_bool_type(bool_ty) {
                return None;
            }
            // An i1 `true` is 1 unsigned and -1 signed.
            let one = if opcode == "uitofp" { "1.0" } else { "-1.0" };
            let (one, zero) = if target == "float" {
                (one.to_string(), "0.0".to_string())
            } else {
                (format!("splat (float {one})"), "zeroinitializer".to_string())
            };
            Some(select(source.trim(), &int_ty, target, &one, &zero, &tail))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(lines: &str) -> String {
        format!("define float @f(float %0) #0 {{\n{lines}}}\n")
    }

    #[test]
    fn float_constant_select_becomes_an_integer_select() {
        let ir = body("  %3 = select i1 %2, float 1.000000e+00, float -1.000000e+00\n  ret float %3\n");
        let got = legalize(&ir).unwrap();
        assert_eq!(got.rewrites, 1);
        assert!(got.ir.contains(
            "  %q7.legal.0 = select i1 %2, i32 bitcast (float 1.000000e+00 to i32), \
             i32 bitcast (float -1.000000e+00 to i32)\n  %3 = bitcast i32 %q7.legal.0 to float\n"
        ));
        assert!(got.ir.contains("  ret float %3\n"));
    }

    #[test]
    fn fast_math_flags_are_dropped_and_metadata_kept() {
        let ir = body("  %r = select nnan nsz i1 %c, float 0x7FF0000000000000, float -0.0, !prof !3\n");
        let got = legalize(&ir).unwrap().ir;
        assert!(got.contains("= select i1 %c, i32 bitcast (float 0x7FF0000000000000 to i32), "), "{got}");
        assert!(got.contains("(float -0.0 to i32), !prof !3\n"), "{got}");
    }

    #[test]
    fn vector_selects_and_bool_conversions() {
        let ir = body(concat!(
            "  %v = select <2 x i1> %c, <2 x float> <float 1.0, float 2.0>, <2 x float> splat (float -1.0)\n",
            "  %u = uitofp i1 %b to float\n",
            "  %s = sitofp i1 %b to float\n",
            "  %w = uitofp nneg <4 x i1> %m to <4 x float>\n",
        ));
        let got = legalize(&ir).unwrap();
        assert_eq!(got.rewrites, 4);
        assert!(got
            .ir
            .contains("select <2 x i1> %c, <2 x i32> bitcast (<2 x float> <float 1.0, float 2.0> to <2 x i32>)"));
        assert!(got
            .ir
            .contains("%q7.legal.1 = select i1 %b, i32 bitcast (float 1.0 to i32), i32 bitcast (float 0.0 to i32)"));
        assert!(got.ir.contains("%q7.legal.2 = select i1 %b, i32 bitcast (float -1.0 to i32)"));
        assert!(got.ir.contains("select <4 x i1> %m, <4 x i32> bitcast (<4 x float> splat (float 1.0) to <4 x i32>), <4 x i32> bitcast (<4 x float> zeroinitializer to <4 x i32>)"));
        assert!(got.ir.contains("%w = bitcast <4 x i32> %q7.legal.3 to <4 x float>"));
    }

    #[test]
    fn what_the_backend_compiles_passes_through() {
        let ir = body(concat!(
            "  %a = select i1 %c, float %x, float 1.0\n",
            "  %b = select i1 %c, double 1.0, double -1.0\n",
            "  %d = uitofp i1 %c to double\n",
            "  %e = uitofp i8 %n to float\n",
            "  %half.1 = fadd float %a, %a\n",
        ));
        let got = legalize(&ir).unwrap();
        assert_eq!(got.rewrites, 0);
        assert_eq!(got.ir, ir);
    }

    #[test]
    fn padded_functions_get_a_stack_object_in_their_entry_block() {
        let ir =
            "define i32 @a(i32 %0) {\n  %2 = alloca i32\n  ret i32 %0\n}\ndefine void @b() {\nentry:\n  ret void\n}\n";
        let got = legalize_padded(ir, &["b".to_string()]).unwrap().ir;
        assert_eq!(got.matches("%q7.stack.pad = alloca [2048 x i8], align 4").count(), 1, "{got}");
        assert!(got.contains("define void @b() {\nentry:\n  %q7.stack.pad = alloca"), "{got}");
        let got = legalize_padded(ir, &["a".to_string()]).unwrap().ir;
        assert!(
            got.contains("define i32 @a(i32 %0) {\n  %q7.stack.pad = alloca [2048 x i8], align 4\n  %2 = alloca i32")
        );
    }

    #[test]
    fn variadic_and_half_functions_are_refused_by_name() {
        let ir = "define void @_Z3logPKcz(ptr %0, ...) {\n  call void @llvm.va_start.p0(ptr %2)\n}\n";
        assert_eq!(legalize(ir), Err(Refusal::Variadic { function: "_Z3logPKcz".into() }));
        let ir = "define float @\"g h\"(ptr %p) {\n  %1 = load half, ptr %p\n}\n";
        assert_eq!(legalize(ir), Err(Refusal::Half { function: "g h".into() }));
        let ir = "define float @g(ptr %p) {\n  %3 = tail call float @llvm.convert.from.fp16.f32(i16 %2)\n}\n";
        assert_eq!(legalize(ir), Err(Refusal::Half { function: "g".into() }));
        // A declaration of va_start alone (no user function calls it) is fine.
        assert!(legalize("declare void @llvm.va_start.p0(ptr)\n").is_ok());
    }
}
