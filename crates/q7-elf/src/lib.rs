//! `q7-elf`: typed, zero-copy views over ELF32 files of either byte order, a
//! small writer for ELF32 objects and images, and Xtensa relocation semantics
//! as a data table.
//!
//! Every malformed input is an [`Error`] value: the reader checks each table
//! and each section's bytes against the file before handing out a view, so no
//! later access can index out of bounds.
#![forbid(unsafe_code)]

pub mod ar;
pub mod consts;
pub mod demangle;
mod endian;
mod error;
pub mod read;
pub mod reloc;
pub mod write;

pub use endian::Endian;
pub use error::{Error, Result};
pub use read::{ElfFile, Header, ProgramHeader, Reloc, Section, Symbol};

#[cfg(test)]
extern crate self as q7_elf;
#[cfg(test)]
mod testsuite;
