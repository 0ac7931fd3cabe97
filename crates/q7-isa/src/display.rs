//! Assembler text in the style of `llvm-objdump`: the mnemonic, a tab, then the
//! operands separated by `", "` (`l32i\ta2, a1, 4`). Registers print as `a2`,
//! `f3`, `b1`, `m0` and special/user registers by lower-case name;
//! immediates in decimal; PC-relative targets as absolute hex addresses
//! (`0x1234`), optionally followed by ` <symbol+0x4>` from a [`Symbolizer`].

use std::fmt;

use crate::insn::{Insn, Operand};
use crate::opcode::Opcode;
use crate::regs::{self, Access};

/// Names addresses for branch, call, loop and `l32r` targets.
pub trait Symbolizer {
    /// A label for `addr` such as `memcpy` or `main+0x1c`, or `None`.
    fn symbolize(&self, addr: u32) -> Option<String>;
}

impl<F: Fn(u32) -> Option<String>> Symbolizer for F {
    fn symbolize(&self, addr: u32) -> Option<String> {
        self(addr)
    }
}

/// A symbolizer that names nothing.
pub struct NoSymbols;

impl Symbolizer for NoSymbols {
    fn symbolize(&self, _addr: u32) -> Option<String> {
        None
    }
}

/// [`Insn`] formatted with a [`Symbolizer`]; made by [`Insn::display_with`].
pub struct DisplayWith<'a, S: ?Sized> {
    insn: &'a Insn,
    symbols: &'a S,
}

impl Insn {
    /// Formats the instruction, labelling targets with `symbols`
    /// (`call8\t0x1000 <memcpy>`).
    pub fn display_with<'a, S: Symbolizer + ?Sized>(&'a self, symbols: &'a S) -> DisplayWith<'a, S> {
        DisplayWith { insn: self, symbols }
    }
}

impl fmt::Display for Insn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_insn(f, self, &NoSymbols)
    }
}

impl<S: Symbolizer + ?Sized> fmt::Display for DisplayWith<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_insn(f, self.insn, self.symbols)
    }
}

fn access_of(op: Opcode) -> Access {
    match op {
        Opcode::Wsr => Access::Write,
        Opcode::Xsr => Access::Exchange,
        _ => Access::Read,
    }
}

fn write_insn<S: Symbolizer + ?Sized>(f: &mut fmt::Formatter<'_>, insn: &Insn, symbols: &S) -> fmt::Result {
    f.write_str(insn.mnemonic())?;
    for (i, operand) in insn.operands().iter().enumerate() {
        f.write_str(if i == 0 { "\t" } else { ", " })?;
        match *operand {
            Operand::Ar(n) => write!(f, "a{n}")?,
            Operand::Fr(n) => write!(f, "f{n}")?,
            Operand::Br(n) => write!(f, "b{n}")?,
            Operand::Mr(n) => write!(f, "m{n}")?,
            Operand::Sr(n) => match regs::special_register_name(n, access_of(insn.op)) {
                Some(name) => f.write_str(name)?,
                None => write!(f, "{n}")?,
            },
            Operand::Ur(n) => match regs::user_register_name(n) {
                Some(name) => f.write_str(name)?,
                None => write!(f, "{n}")?,
            },
            Operand::Imm(v) => write!(f, "{v}")?,
            Operand::Target(addr) => {
                write!(f, "{addr:#x}")?;
                if let Some(label) = symbols.symbolize(addr) {
                    write!(f, " <{label}>")?;
                }
            }
        }
    }
    Ok(())
}

/// Appends `value` in decimal.
pub fn push_decimal(out: &mut Vec<u8>, value: i64) {
    if value < 0 {
        out.push(b'-');
    }
    let rest = value.unsigned_abs();
    // Register numbers and most immediates: one or two digits, no division loop.
    if rest < 10 {
        out.push(b'0' + rest as u8);
        return;
    }
    if rest < 100 {
        out.extend_from_slice(&[b'0' + (rest / 10) as u8, b'0' + (rest % 10) as u8]);
        return;
    }
    let mut digits = [0u8; 20];
    let mut rest = rest;
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// The two hex digits of every byte value.
const HEX_PAIRS: [[u8; 2]; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut pairs = [[0u8; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        pairs[byte] = [HEX[byte >> 4], HEX[byte & 0xf]];
        byte += 1;
    }
    pairs
};

/// The two lower-case hex digits of `byte`.
pub fn hex_pair(byte: u8) -> [u8; 2] {
    HEX_PAIRS[usize::from(byte)]
}

/// The eight lower-case hex digits of `value`, most significant first.
pub fn hex_digits(value: u32) -> [u8; 8] {
    // One table lookup per byte, into a fixed array: no per-digit checks.
    let [a, b, c, d] = value.to_be_bytes().map(hex_pair);
    [a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]]
}

/// Appends `value` as lower-case hex with `0x` and no leading zeros (`{:#x}`).
pub fn push_hex_prefixed(out: &mut Vec<u8>, value: u32) {
    let significant = ((32 - value.leading_zeros()).div_ceil(4).max(1)) as usize;
    let digits = hex_digits(value);
    out.extend_from_slice(b"0x");
    out.extend_from_slice(&digits[8 - significant..]);
}

/// Appends the same text as [`Insn::display_with`] without allocating (for
/// listings of millions of lines). `label` appends the name of a target
/// address and returns whether it had one; it is printed as ` <name>`.
pub fn push_insn(out: &mut Vec<u8>, insn: &Insn, label: &mut dyn FnMut(&mut Vec<u8>, u32) -> bool) {
    out.extend_from_slice(insn.mnemonic().as_bytes());
    for (i, operand) in insn.operands().iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\t" } else { b", " });
        let register = |out: &mut Vec<u8>, prefix: u8, n: u8| {
            out.push(prefix);
            push_decimal(out, i64::from(n));
        };
        match *operand {
            Operand::Ar(n) => register(out, b'a', n),
            Operand::Fr(n) => register(out, b'f', n),
            Operand::Br(n) => register(out, b'b', n),
            Operand::Mr(n) => register(out, b'm', n),
            Operand::Sr(n) => match regs::special_register_name(n, access_of(insn.op)) {
                Some(name) => out.extend_from_slice(name.as_bytes()),
                None => push_decimal(out, i64::from(n)),
            },
            Operand::Ur(n) => match regs::user_register_name(n) {
                Some(name) => out.extend_from_slice(name.as_bytes()),
                None => push_decimal(out, i64::from(n)),
            },
            Operand::Imm(v) => push_decimal(out, i64::from(v)),
            Operand::Target(addr) => {
                push_hex_prefixed(out, addr);
                let mark = out.len();
                out.extend_from_slice(b" <");
                if label(out, addr) {
                    out.push(b'>');
                } else {
                    out.truncate(mark);
                }
            }
        }
    }
}

/// Appends a `.byte` directive ([`byte_directive`]) without allocating.
pub fn push_byte_directive(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(b".byte\t");
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend_from_slice(&[b'0', b'x', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
    }
}

/// A `.byte` directive for bytes that did not decode (`.byte 0xff, 0x01`).
pub fn byte_directive(bytes: &[u8]) -> String {
    let list: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
    format!(".byte\t{}", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode;
    use crate::options::IsaOptions;

    fn text(bytes: &[u8], pc: u32) -> String {
        decode(bytes, pc, &IsaOptions::full()).unwrap().to_string()
    }

    #[test]
    fn llvm_style() {
        assert_eq!(text(&[0x36, 0x41, 0x00], 0), "entry\ta1, 32");
        assert_eq!(text(&[0x1d, 0xf0], 0), "retw.n");
        assert_eq!(text(&[0x20, 0x03, 0x03], 0), "rsr\ta2, sar");
        assert_eq!(text(&[0x20, 0xe2, 0x13], 0), "wsr\ta2, intset");
        assert_eq!(text(&[0x16, 0xf2, 0xff], 0), "beqz\ta2, 0x3");
        assert_eq!(text(&[0x70, 0x2e, 0xe3], 0), "rur\ta2, threadptr");
    }

    #[test]
    fn double_precision_text() {
        // Neither LLVM 22 nor GNU objdump knows the DFP option: the names
        // and operand order are QEMU's de233_fpu tables' (ISA order).
        assert_eq!(text(&[0x20, 0x01, 0x0f], 0), "add.d\tf0, f1, f2");
        assert_eq!(text(&[0x13, 0x12, 0x01], 0), "ldi\tf1, a2, 8");
        assert_eq!(text(&[0x90, 0x18, 0x8e], 0), "wfrd\tf1, a8, a9");
        assert_eq!(text(&[0x40, 0x81, 0xff], 0), "rfrd\ta8, f1");
        assert_eq!(text(&[0x30, 0x03, 0xff], 0), "const.d\tf0, 3");
        assert_eq!(text(&[0x00, 0x81, 0x8f], 0), "round.d\ta8, f1, 0");
        assert_eq!(text(&[0x20, 0x01, 0x1e], 0), "un.d\tb0, f1, f2");
        assert_eq!(text(&[0x20, 0x01, 0xfa], 0), "cvtd.s\tf0, f1");
        assert!(decode(&[0x20, 0x01, 0x0f], 0, &IsaOptions::vision_q7()).is_err(), "not on the Vision Q7");
    }

    #[test]
    fn symbolized_target() {
        let insn = decode(&[0x95, 0xff, 0xff], 6, &IsaOptions::full()).unwrap();
        let symbols = |addr: u32| (addr == 0).then(|| "start".to_string());
        assert_eq!(insn.display_with(&symbols).to_string(), "call4\t0x0 <start>");
    }

    #[test]
    fn byte_directives() {
        assert_eq!(byte_directive(&[0xff, 0x01]), ".byte\t0xff, 0x01");
        let mut out = Vec::new();
        push_byte_directive(&mut out, &[0xff, 0x01]);
        assert_eq!(out, byte_directive(&[0xff, 0x01]).as_bytes());
    }

    #[test]
    fn pushed_text_is_the_display_text() {
        // Every 24-bit word with a spread of operand fields, at a few PCs and
        // with a symbolizer that names every other target.
        let symbols = |addr: u32| addr.is_multiple_of(2).then(|| format!("sym+{addr:#x}"));
        let mut label = |out: &mut Vec<u8>, addr: u32| match symbols(addr) {
            Some(name) => {
                out.extend_from_slice(name.as_bytes());
                true
            }
            None => false,
        };
        let mut out = Vec::new();
        let mut compared = 0;
        for word in (0u32..1 << 24).step_by(97) {
            let bytes = word.to_le_bytes();
            for pc in [0, 0x8400_0001, 0xffff_fffe] {
                let Ok(insn) = decode(&bytes[..3], pc, &IsaOptions::full()) else { continue };
                out.clear();
                push_insn(&mut out, &insn, &mut label);
                assert_eq!(std::str::from_utf8(&out).unwrap(), insn.display_with(&symbols).to_string());
                compared += 1;
            }
        }
        assert!(compared > 100_000, "{compared}");
        for value in [0i64, 7, -1, 255, -32768, i64::from(i32::MIN), i64::from(u32::MAX)] {
            out.clear();
            push_decimal(&mut out, value);
            assert_eq!(out, value.to_string().as_bytes());
        }
        for value in [0u32, 1, 0xf, 0x10, 0x8400_0000, u32::MAX] {
            out.clear();
            push_hex_prefixed(&mut out, value);
            assert_eq!(out, format!("{value:#x}").as_bytes());
        }
    }
}
