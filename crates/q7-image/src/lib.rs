//! `q7-image`: analyses of linked Xtensa images — the memory map they live
//! in and the reports the `q7 inspect` family prints.

pub mod carve;
pub mod disasm;
pub mod kinfo;
pub mod layout;
pub mod memmap;
pub mod rebase;
pub mod roster;
pub mod strings;
