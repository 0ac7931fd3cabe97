//! `q7-image`: analyses of linked Xtensa images: the reports the `q7 inspect` family prints.
// Unsafe code only where a module allows it (and says why).
#![deny(unsafe_code)]

pub mod carve;
pub mod disasm;
pub mod kinfo;
pub mod layout;
pub mod rebase_diff;
pub mod roster;
pub mod strings;

#[cfg(test)]
extern crate self as q7_image;
#[cfg(test)]
mod testsuite;
