//! The expression parser and evaluator on literals, and how values print
//! (the tests on built ops, with real DWARF, are in the crate testsuite:
//! `testsuite::debuginfo_ops`).

use super::expr::{parse, Binary, Expr};
use super::*;

/// A frame with no registers and no memory.
struct Nothing;

impl FrameView for Nothing {
    fn register(&self, _: u16) -> Option<u32> {
        None
    }
    fn read(&self, _: u32, _: usize) -> Option<Vec<u8>> {
        None
    }
    fn pc(&self) -> u32 {
        0x8400_0000
    }
}

fn empty() -> DebugInfo {
    let none = |_| {
        Ok::<R, gimli::Error>(gimli::EndianReader::new(std::sync::Arc::from(&[][..]), gimli::RunTimeEndian::Little))
    };
    let sections = die::Sections { dwarf: gimli::Dwarf::load(none).unwrap(), units: Vec::new() };
    DebugInfo { sections, lines: lines::LineTable::default(), scopes: scopes::Scopes::default(), delta: 0 }
}

fn eval(expr: &str) -> Result<Value, DebugInfoError> {
    empty().evaluate(0x8400_0000, &Nothing, expr)
}

fn text(expr: &str) -> String {
    match eval(expr) {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn precedence_follows_c() {
    assert_eq!(parse("1 + 2 * 3").unwrap(), parse("1 + (2 * 3)").unwrap());
    assert_eq!(parse("a || b && c").unwrap(), parse("a || (b && c)").unwrap());
    assert_eq!(
        parse("i == 1000").unwrap(),
        Expr::Binary(
            Binary::Eq,
            Box::new(Expr::Name("i".into())),
            Box::new(Expr::Int { value: 1000, unsigned: false, long: false })
        )
    );
    // Postfix binds tighter than prefix: `*p->x` is `*(p->x)`, `-a[1]` is `-(a[1])`.
    assert_eq!(parse("*p->x").unwrap(), parse("*(p->x)").unwrap());
    assert_eq!(parse("&a[i+1]").unwrap(), parse("&(a[(i + 1)])").unwrap());
    assert_eq!(parse("ns::x").unwrap(), Expr::Name("ns::x".into()));
    assert_eq!(parse("$a2").unwrap(), Expr::Register("a2".into()));
}

#[test]
fn integer_arithmetic_has_c_types() {
    assert_eq!(text("1 + 2 * 3"), "7");
    assert_eq!(text("(1 + 2) * 3"), "9");
    assert_eq!(text("7 / 2"), "3");
    assert_eq!(text("-7 / 2"), "-3");
    assert_eq!(text("-7 % 3"), "-1");
    assert_eq!(text("0x10 + 010 + 0b11"), "27");
    assert_eq!(text("1 << 4 | 1"), "17");
    assert_eq!(text("~0"), "-1");
    assert_eq!(text("~0u"), "4294967295");
    // int wraps at 32 bits; a literal too big for int is long long.
    assert_eq!(text("2147483647 + 1"), "-2147483648");
    assert_eq!(text("2147483648"), "2147483648");
    assert_eq!(text("4294967295u + 1"), "0");
    // Signed meets unsigned of the same width: unsigned, as in C.
    assert_eq!(text("-1 < 1u"), "false");
    assert_eq!(text("-1 < 1"), "true");
    assert_eq!(eval("100 - 58").unwrap().as_i64(), Some(42));
}

#[test]
fn floats_bools_and_chars() {
    assert_eq!(text("1.5"), "1.5");
    assert_eq!(text("1.5f * 2"), "3");
    assert_eq!(text("1 / 4.0"), "0.25");
    assert_eq!(text("0.1f"), "0.1");
    assert_eq!(text("1e20"), "1e+20");
    assert_eq!(text("-2.5e-7"), "-2.5e-07");
    assert_eq!(text("1.0 / 0"), "inf");
    assert_eq!(eval("2.5 * 2").unwrap().as_f64(), Some(5.0));
    assert_eq!(text("3 > 2 && 2 > 1"), "true");
    assert_eq!(text("!5"), "false");
    assert_eq!(text("0 || 0.5"), "true");
    assert_eq!(eval("1 == 1").unwrap().is_true(), Some(true));
    assert_eq!(eval("1.5 != 1.5").unwrap().is_true(), Some(false));
    assert_eq!(text("'A'"), "65 'A'");
    assert_eq!(text("'\\n'"), "10 '\\n'");
    assert_eq!(text("'A' + 1"), "66");
    assert_eq!(text("true + true"), "2");
}

#[test]
fn errors_say_what_is_wrong() {
    assert_eq!(text("1 / 0"), "error: `1 / 0`: division by zero");
    assert_eq!(text("x + 1"), "error: no symbol `x` in the current context");
    assert_eq!(text("1 +"), "error: `1 +`: the expression ends too early");
    assert_eq!(text("(1"), "error: `(1`: expected `)` at the end");
    assert_eq!(text("1 2"), "error: `1 2`: unexpected a number after the expression");
    assert_eq!(text("a ? b"), "error: `a ? b`: unexpected `?` after the expression");
    assert_eq!(text("a : b"), "error: `a : b`: unexpected character `:`");
    assert_eq!(text("0x"), "error: `0x`: invalid number `0x`");
    assert_eq!(text("*1"), "error: `*1`: attempt to take contents of a non-pointer value (int)");
    assert_eq!(text("&1"), "error: `&1`: attempt to take the address of a value not in memory");
    assert_eq!(text("1 . x"), "error: `1 . x`: `int` is not a structure, it has no member `x`");
    assert_eq!(text("$pc"), "(void *) 0x84000000");
    assert_eq!(text("$a2"), "error: `$a2`: $a2 is not recoverable in this frame");
    assert_eq!(text(""), "error: ``: empty expression");
    // Deep nesting is refused, not a stack overflow.
    let deep = format!("{}1{}", "(".repeat(500), ")".repeat(500));
    assert!(text(&deep).contains("nested more than"), "{}", text(&deep));
    let long = "1+".repeat(3000) + "1";
    assert!(text(&long).contains("longer than"));
}

#[test]
fn values_print_as_gdb_prints_them() {
    let ints = |v: &[i128]| v.iter().map(|&value| Value::Int { value, size: 4, signed: true }).collect::<Vec<_>>();
    assert_eq!(Value::Array { elements: ints(&[1, 2, 3]), length: 3 }.to_string(), "{1, 2, 3}");
    let mut zeros = ints(&[7]);
    zeros.extend(ints(&[0; 12]));
    assert_eq!(Value::Array { elements: zeros, length: 300 }.to_string(), "{7, 0 <repeats 12 times>...}");
    let p = Value::Pointer { type_name: "float *".into(), address: 0x8004_0000 };
    assert_eq!(p.to_string(), "(float *) 0x80040000");
    assert_eq!(format!("{p:#}"), "0x80040000");
    let s = Value::Struct { fields: vec![("x".into(), ints(&[1])[0].clone()), ("p".into(), p.clone())] };
    assert_eq!(s.to_string(), "{x = 1, p = 0x80040000}");
    let r = Value::Reference { type_name: "Stats &".into(), address: 0x100, referent: Box::new(s) };
    assert_eq!(r.to_string(), "(Stats &) @0x100: {x = 1, p = 0x80040000}");
    assert_eq!(format!("{r:#}"), "@0x100: {x = 1, p = 0x80040000}");
    assert_eq!(r.as_i64(), None);
    assert_eq!(Value::Enum { value: 2, name: Some("MODE_MAX".into()) }.to_string(), "MODE_MAX");
    assert_eq!(Value::OptimizedOut.to_string(), "<optimized out>");
    assert_eq!(Value::Char(0).to_string(), "0 '\\000'");
    assert_eq!(Value::Float(f32::NAN).to_string(), "nan(0x8000000000000)");
}

/// A frame whose memory is zeros everywhere.
struct Zeros;

impl FrameView for Zeros {
    fn register(&self, _: u16) -> Option<u32> {
        None
    }
    fn read(&self, _: u32, len: usize) -> Option<Vec<u8>> {
        Some(vec![0; len])
    }
    fn pc(&self) -> u32 {
        0
    }
}

#[test]
fn big_arrays_print_in_bounded_time_and_space() {
    use super::types::{Type, TypeRef};
    let info = empty();
    let int = Type::int(4, true).into_ref();
    let grid = Type::Array { elem: int, counts: vec![Some(1 << 20), Some(1 << 20)] };
    let obj = object::Object { ty: TypeRef::Owned(std::sync::Arc::new(grid)), loc: location::Loc::Memory(0x1000) };
    let Value::Array { elements, length } = info.value(&obj, &Zeros) else { panic!("an array") };
    // 200 rows of 200 would be 40 000 values: the rows stop at the budget.
    assert_eq!(length, 1 << 20);
    assert!(elements.len() > 50 && elements.len() < MAX_ELEMENTS, "{}", elements.len());
    let text = Value::Array { elements, length }.to_string();
    assert_eq!(text, "{{0 <repeats 200 times>...} <repeats 99 times>, {0 <repeats 99 times>...}...}");
}

#[test]
fn debug_info_can_move_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<DebugInfo>();
}

/// Line tables without functions (as assembly with `-g` has them), moved
/// by `delta`: rows are (address, line, is_stmt).
fn table(delta: u32, rows: &[(u32, u32, bool)], end: u32) -> DebugInfo {
    let rows: Vec<lines::Row> =
        rows.iter().map(|&(addr, line, is_stmt)| lines::Row { addr, file: 0, line, is_stmt }).collect();
    let sequence = lines::Sequence { start: rows[0].addr, end, rows };
    let lines =
        lines::LineTable { files: vec!["/src/ops/op.S".into()], sequences: vec![sequence], unit_files: Vec::new() };
    DebugInfo { lines, delta, ..empty() }
}

#[test]
fn line_rows_become_breakpoints_and_spans() {
    let delta = 0x1000;
    let rows = [
        (0x100, 10, true),
        (0x104, 0, false), // code of no line: belongs to line 10
        (0x108, 12, false),
        (0x10c, 11, true),
        (0x110, 12, false),
        (0x118, 14, false),
        (0x11c, 14, true),
        (0x120, 11, true),
    ];
    let info = table(delta, &rows, 0x130);
    let at = |a: u32| a + delta;
    assert_eq!(info.line_breakpoints("op.S", 10).unwrap(), (10, vec![at(0x100)]));
    assert_eq!(info.line_breakpoints("ops/op.S", 9).unwrap(), (10, vec![at(0x100)]));
    // Two statement rows: the lower. No statement row: the lowest row.
    assert_eq!(info.line_breakpoints("op.S", 11).unwrap(), (11, vec![at(0x10c)]));
    assert_eq!(info.line_breakpoints("op.S", 12).unwrap(), (12, vec![at(0x108)]));
    assert_eq!(info.line_breakpoints("op.S", 13).unwrap(), (14, vec![at(0x11c)]));
    assert!(matches!(info.line_breakpoints("op.S", 15), Err(DebugInfoError::NoCode { line: 15, .. })));
    assert!(matches!(info.line_breakpoints("p.S", 10), Err(DebugInfoError::NoSourceFile { .. })));

    let span = |pc| info.line_at(pc).map(|s| (s.line, s.start - delta, s.end - delta));
    assert_eq!(span(at(0x106)), Some((10, 0x100, 0x108)));
    assert_eq!(span(at(0x108)), Some((12, 0x108, 0x10c)));
    assert_eq!(span(at(0x11e)), Some((14, 0x118, 0x120)));
    assert_eq!(span(at(0x12f)), Some((11, 0x120, 0x130)));
    assert_eq!(span(at(0x130)), None);
    assert_eq!(span(0x100), None, "a link address is not a runtime pc");
    assert_eq!(info.line_at(at(0x100)).unwrap().file, "/src/ops/op.S");
    let statements: Vec<u32> = (0x100..0x130).filter(|&a| info.is_statement(at(a))).collect();
    assert_eq!(statements, [0x100, 0x10c, 0x11c, 0x120]);
    assert_eq!(info.function_at(at(0x100)), None);
}
