//! `q7-image`: analyses of linked Xtensa images — the memory map they live
//! in and the reports the `q7 inspect` family prints.

pub mod layout;
pub mod memmap;
