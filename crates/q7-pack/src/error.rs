use thiserror::Error;

/// Why an input cannot be stripped or packed. Every message is one line; the
/// command line prefixes it with the input's path.
#[derive(Debug, Error)]
pub enum PackError {
    // Transparent: anyhow's `{:#}` prints the source chain, so a wrapping
    // message would repeat the reader's.
    #[error(transparent)]
    Elf(#[from] q7_elf::Error),
    #[error("ELF type {name} ({e_type}) is not a linked image; q7 packs linked executables (EXEC or DYN), e.g. the name.so that the link step writes")]
    NotLinked { e_type: u16, name: &'static str },
    #[error("no loadable content: no PT_LOAD program header has file bytes")]
    NothingToLoad,
    #[error("relocation section [{index}] {table}, entry {entry}: {problem}")]
    BadRelocation { index: usize, table: String, entry: usize, problem: String },
    /// `table` is the section's name (the rebase module owns it).
    #[error("{table}: {problem}")]
    BadRebaseTable { table: &'static str, problem: String },
    #[error("page size {page:#x}: {problem}")]
    PageAlign { page: u32, problem: String },
    #[error("symbol name {name:?}: {problem}")]
    BadSymbol { name: String, problem: String },
    #[error("cannot lay out the image: {0}")]
    Layout(String),
    #[error(transparent)]
    Write(#[from] q7_elf::write::WriteError),
    #[error("not a packed load-lib: {0}")]
    NotPacked(String),
}

pub type Result<T, E = PackError> = std::result::Result<T, E>;
