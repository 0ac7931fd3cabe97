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
    fn symbolized_target() {
        let insn = decode(&[0x95, 0xff, 0xff], 6, &IsaOptions::full()).unwrap();
        let symbols = |addr: u32| (addr == 0).then(|| "start".to_string());
        assert_eq!(insn.display_with(&symbols).to_string(), "call4\t0x0 <start>");
    }

    #[test]
    fn byte_directives() {
        assert_eq!(byte_directive(&[0xff, 0x01]), ".byte\t0xff, 0x01");
    }
}
