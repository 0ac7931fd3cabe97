//! Xtensa instruction decoding, encoding and formatting for q7.
//!
//! One decoder serves both `q7 disasm` and the instruction-set simulator: a
//! decoded [`Insn`] carries its [`Opcode`], length, address and operands with
//! registers, immediates and PC-relative targets already extracted, so it can be
//! executed without looking at the bytes again.
//!
//! ```
//! use q7_isa::{decode, encode, IsaOptions, Opcode, Operand};
//!
//! let opts = IsaOptions::vision_q7();
//! let insn = decode(&[0x36, 0x41, 0x00], 0x8400_0000, &opts).unwrap();
//! assert_eq!(insn.op, Opcode::Entry);
//! assert_eq!(insn.operands(), &[Operand::Ar(1), Operand::Imm(32)]);
//! assert_eq!(insn.to_string(), "entry\ta1, 32");
//! assert_eq!(encode(&insn).unwrap().as_bytes(), &[0x36, 0x41, 0x00]);
//! ```
//!
//! Coverage: the core ISA and the options open toolchains emit: code density,
//! windowed registers, zero-overhead loops, MUL16, MUL32, MUL32HIGH, DIV32,
//! MINMAX, SEXT, NSA, CLAMPS, booleans, single-precision FP, S32C1I, MP
//! synchronization, THREADPTR, exceptions, interrupts, debug, region
//! protection and MAC16; see [`Feature`]. FLIX bundles (op0 0xe/0xf on Vision
//! cores) are recognised by length only ([`DecodeError::Bundle`]).
//!
//! Modules by concern: [`format`](mod@format) (field layouts), [`options`], [`regs`]
//! (special and user register names), [`length`] (length rules), [`decode()`],
//! [`encode()`], [`display`] and [`sweep()`](sweep::sweep).
#![forbid(unsafe_code)]

pub mod decode;
pub mod display;
pub mod encode;
mod field;
pub mod format;
pub mod insn;
pub mod length;
pub mod opcode;
pub mod options;
pub mod regs;
pub mod sweep;
mod table;

pub use decode::{decode, decode_word, DecodeError};
pub use display::{byte_directive, push_byte_directive, push_insn, NoSymbols, Symbolizer};
pub use encode::{encode, EncodeError, Encoded};
pub use field::{B4CONST, B4CONSTU};
pub use insn::{Insn, Operand, Operands, MAX_OPERANDS};
pub use length::{instruction_length, length_class, LengthClass};
pub use opcode::Opcode;
pub use options::{Feature, FeatureSet, IsaOptions};
pub use sweep::{sweep, Sweep, SweepItem};

#[cfg(test)]
extern crate self as q7_isa;
#[cfg(test)]
mod testsuite;
