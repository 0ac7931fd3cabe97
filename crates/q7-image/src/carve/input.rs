//! Carve input: large host files are memory-mapped rather than read.
#![allow(unsafe_code)] // memory-mapping the input file

use std::fs::File;
use std::ops::Deref;
use std::path::Path;

/// The bytes of an input file, mapped when it is not empty.
pub enum Input {
    Mapped(memmap2::Mmap),
    Empty,
}

impl Deref for Input {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Empty => &[],
        }
    }
}

/// Maps `path` read-only (an empty file cannot be mapped, and needs not be).
pub fn map_file(path: &Path) -> std::io::Result<Input> {
    let file = File::open(path)?;
    if file.metadata()?.len() == 0 {
        return Ok(Input::Empty);
    }
    // SAFETY: the map is read-only and private to this process; if another
    // process truncates the file while it is mapped, reads may fault, which
    // is the accepted cost of mapping (as for every mmap-based reader).
    let map = unsafe { memmap2::Mmap::map(&file)? };
    Ok(Input::Mapped(map))
}
