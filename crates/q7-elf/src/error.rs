use thiserror::Error;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a byte string is not an ELF32 file q7 can read. Each message is one
/// line that names the offending structure and the numbers involved.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    #[error("empty file (0 bytes)")]
    Empty,
    #[error("not an ELF file: magic is {0:02x?}, expected 7f 45 4c 46")]
    BadMagic(Vec<u8>),
    #[error("truncated: {what} needs bytes {start:#x}..{end:#x} but the file is {len:#x} bytes")]
    Truncated { what: String, start: u64, end: u64, len: u64 },
    #[error("wrong ELF class: {0}; q7 reads 32-bit ELF (ELFCLASS32) only")]
    WrongClass(String),
    #[error("unknown ELF data encoding {0} (expected 1 = little-endian or 2 = big-endian)")]
    BadEncoding(u8),
    #[error("wrong machine: {name} (e_machine {num}); expected Tensilica Xtensa (94)")]
    WrongMachine { num: u16, name: &'static str },
    #[error("bad ELF header: {0}")]
    BadHeader(String),
    #[error("section header table: {0}")]
    SectionTable(String),
    #[error("program header table: {0}")]
    ProgramTable(String),
    #[error("program header {index}: {problem}")]
    BadSegment { index: usize, problem: String },
    #[error("section [{index}] {name}: {problem}")]
    BadSection { index: usize, name: String, problem: String },
    #[error("sections [{a}] {a_name} and [{b}] {b_name} overlap in the file at {start:#x}..{end:#x}")]
    Overlap { a: usize, a_name: String, b: usize, b_name: String, start: u64, end: u64 },
    #[error("{0}")]
    Malformed(String),
}

/// Describes a table of `count` entries at `start..start+len` that does not
/// fit in a file of `file_len` bytes.
pub(crate) fn table_out_of_range(count: u16, start: u64, len: u64, file_len: usize) -> String {
    format!("out of range: {count} entries at {start:#x}..{:#x}, but the file is {file_len:#x} bytes", start + len)
}

/// Returns `data[start..start+len]`, or a [`Error::Truncated`] naming `what`.
pub(crate) fn slice<'a>(data: &'a [u8], start: u64, len: u64, what: &dyn Fn() -> String) -> Result<&'a [u8]> {
    let end = start.checked_add(len);
    match end {
        Some(end) if end <= data.len() as u64 => Ok(&data[start as usize..end as usize]),
        _ => Err(Error::Truncated { what: what(), start, end: end.unwrap_or(u64::MAX), len: data.len() as u64 }),
    }
}
