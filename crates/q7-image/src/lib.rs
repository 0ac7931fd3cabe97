//! `q7-image`: analyses of linked Xtensa images: the reports the `q7 inspect` family prints.

pub mod carve;
pub mod disasm;
pub mod kinfo;
pub mod layout;
mod par;
pub mod rebase_diff;
pub mod roster;
pub mod strings;
