use thiserror::Error;

use crate::PackError;

/// Why an input cannot be prelinked, or a UCPL file cannot be loaded. Every
/// message is one line; the command line prefixes it with the input's path.
#[derive(Debug, Error)]
pub enum PrelinkError {
    // Transparent: anyhow's `{:#}` prints the chain, and these already say
    // what is wrong with which structure.
    #[error(transparent)]
    Elf(#[from] q7_elf::Error),
    #[error(transparent)]
    Pack(#[from] PackError),
    #[error("UCPL image: {0}")]
    Ucpl(String),
    #[error("ELF type {0}: q7 prelinks a linked executable (EXEC), the cleaned image q7 pack saves, or a packed load-lib (REL)")]
    NotAnImage(&'static str),
    #[error("big-endian image: the Vision-Q7 cores and the UCPL format are little-endian")]
    BigEndian,
    #[error("packed load-lib has no defined symbol `{symbol}`")]
    NoSymbol { symbol: String },
    #[error("section [{index}] {name} holds {size:#x} bytes: a GOT needs a dynamic loader, and the prelinker only moves absolute words; rebuild without a GOT")]
    HasGot { index: usize, name: String, size: u32 },
    #[error("section [{index}] {name} holds dynamic relocations: the prelinker binds static images only; link without -shared/-pie")]
    DynamicRelocations { index: usize, name: String },
    #[error("no loadable content: no PT_LOAD program header has file bytes")]
    NothingToLoad,
    #[error("program headers {a} and {b} overlap in memory at {start:#x}..{end:#x}")]
    SegmentsOverlap { a: usize, b: usize, start: u64, end: u64 },
    #[error("entry {entry:#x} is outside the image bytes {start:#x}..{end:#x}")]
    EntryOutside { entry: u32, start: u32, end: u64 },
    #[error("core {0} does not exist: the SPMD cores are 0..7 (the fat core is the single-core target)")]
    NoSuchCore(u32),
    #[error("the image carries no relocations (no {table} section and no static relocation sections, as in a vendor-style stripped image): it can be prelinked only to its own link base {link_base:#x}, not moved to {new_base:#x}", table = crate::rebase::SECTION_NAME)]
    NoRelocations { link_base: u32, new_base: u32 },
    #[error("moving the image from {link_base:#x} to {new_base:#x} breaks its {align}-byte alignment (largest of its sections and segments)")]
    Misaligned { link_base: u32, new_base: u32, align: u32 },
    #[error("the image needs {size:#x} bytes of memory, more than the {window_size:#x}-byte window of {window}")]
    TooLarge { size: u64, window: String, window_size: u32 },
    #[error("the image at {start:#x}..{end:#x} is not inside the {window} window {base:#x}..{window_end:#x}")]
    OutsideWindow { start: u32, end: u64, window: String, base: u32, window_end: u64 },
    #[error("{table} link base {table_base:#x} is not the image's lowest PT_LOAD address {image_base:#x}", table = crate::rebase::SECTION_NAME)]
    TableBase { table_base: u32, image_base: u32 },
    #[error("{table} entry {address:#x} is not inside the image's loadable file bytes {start:#x}..{end:#x}", table = crate::rebase::SECTION_NAME)]
    WordOutside { address: u32, start: u32, end: u64 },
    #[error("a UCPL image carries no relocations: it is bound to {base:#x} and cannot be moved to {new_base:#x}; prelink the .packed.so instead")]
    UcplCannotMove { base: u32, new_base: u32 },
}

pub type Result<T, E = PrelinkError> = std::result::Result<T, E>;
