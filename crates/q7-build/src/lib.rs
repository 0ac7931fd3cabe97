//! `q7-build`: everything `q7 build` needs to turn op sources into linked
//! per-core images. For now: the linker support packages (LSPs).

pub mod lsp;
