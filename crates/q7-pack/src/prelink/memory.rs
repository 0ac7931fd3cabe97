//! The memory image of a linked image, and the relocation applier that moves
//! it.
//!
//! The memory image runs from the lowest `PT_LOAD` address to the end of the
//! last file-backed byte; gaps between segments (and a segment's `.bss` tail
//! when file bytes follow it) are zero. The memory size adds the trailing
//! zero-filled part (`.bss`) up to the end of the last segment.

use std::ops::Range;

use q7_elf::ElfFile;

use super::error::{PrelinkError, Result};
use super::ucpl::UcplView;
use crate::RebaseTable;

/// Where an image's loadable bytes go, computed before anything is
/// allocated (so a lying header cannot ask for gigabytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadPlan {
    /// Lowest `PT_LOAD` address: the image's first byte.
    pub base: u32,
    /// Bytes from `base` to the end of the last file-backed byte.
    pub image_size: u64,
    /// Bytes from `base` to the end of the last segment.
    pub memory_size: u64,
    pub entry: u32,
    /// Largest alignment of the sections and segments: a move must keep it.
    pub align: u32,
    /// File-backed pieces: (address, file offset, size).
    pieces: Vec<(u32, u32, u32)>,
}

impl LoadPlan {
    /// Validates the program headers of an image: at least one segment with
    /// file bytes, no two overlapping in memory, the entry inside the image.
    pub fn of_elf(elf: &ElfFile) -> Result<LoadPlan> {
        let mut loads: Vec<_> = elf.load_segments().filter(|p| p.memsz > 0).collect();
        if !loads.iter().any(|p| p.filesz > 0) {
            return Err(PrelinkError::NothingToLoad);
        }
        loads.sort_by_key(|p| (p.vaddr, p.index));
        for pair in loads.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if a.end_vaddr() > b.vaddr as u64 {
                let end = a.end_vaddr().min(b.end_vaddr());
                return Err(PrelinkError::SegmentsOverlap { a: a.index, b: b.index, start: b.vaddr as u64, end });
            }
        }
        let base = loads[0].vaddr;
        let pieces: Vec<(u32, u32, u32)> =
            loads.iter().filter(|p| p.filesz > 0).map(|p| (p.vaddr, p.offset, p.filesz)).collect();
        let file_end = pieces.iter().map(|&(va, _, size)| va as u64 + size as u64).max().unwrap_or(base as u64);
        let memory_end = loads.iter().map(|p| p.end_vaddr()).max().unwrap_or(base as u64);
        let segment_align = loads.iter().map(|p| p.align);
        let section_align = elf.sections().iter().filter(|s| s.is_alloc()).map(|s| s.addralign);
        let align = segment_align.chain(section_align).fold(4, u32::max);
        let plan = LoadPlan {
            base,
            image_size: file_end - base as u64,
            memory_size: memory_end - base as u64,
            entry: elf.header().entry,
            align,
            pieces,
        };
        plan.check_entry()?;
        Ok(plan)
    }

    /// The plan of an already bound image: one piece, the image bytes.
    pub fn of_ucpl(view: &UcplView) -> LoadPlan {
        let h = &view.header;
        LoadPlan {
            base: h.load_base,
            image_size: h.image_size as u64,
            memory_size: h.memory_size as u64,
            entry: h.entry,
            align: 4,
            pieces: vec![(h.load_base, super::ucpl::HEADER_SIZE as u32, h.image_size)],
        }
    }

    fn check_entry(&self) -> Result<()> {
        let end = self.base as u64 + self.image_size;
        if self.entry < self.base || self.entry as u64 >= end {
            return Err(PrelinkError::EntryOutside { entry: self.entry, start: self.base, end });
        }
        Ok(())
    }

    /// Offsets from `base` of the ranges that hold file bytes.
    fn loadable(&self) -> Vec<Range<usize>> {
        self.pieces
            .iter()
            .map(|&(va, _, size)| (va - self.base) as usize..(va - self.base) as usize + size as usize)
            .collect()
    }

    /// Copies the file-backed pieces of `file` into a zeroed memory image.
    /// `file` must be the one the plan was made from (its bounds were
    /// checked when it was parsed), and the caller must have bounded
    /// `image_size` (a window is at most 32 MiB).
    pub fn load(&self, file: &[u8]) -> MemoryImage {
        let mut bytes = vec![0u8; self.image_size as usize];
        for (&(_, offset, size), at) in self.pieces.iter().zip(self.loadable()) {
            let from = offset as usize;
            bytes[at].copy_from_slice(&file[from..from + size as usize]);
        }
        MemoryImage { base: self.base, bytes, loadable: self.loadable() }
    }
}

/// Loadable bytes as they sit in memory at `base`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryImage {
    pub base: u32,
    pub bytes: Vec<u8>,
    /// Offsets of the ranges backed by file bytes; a rebase word must lie
    /// inside one (the zero gaps between segments hold no words).
    loadable: Vec<Range<usize>>,
}

impl MemoryImage {
    /// An image whose every byte is loadable.
    pub fn new(base: u32, bytes: Vec<u8>) -> MemoryImage {
        let loadable = std::iter::once(0..bytes.len()).collect();
        MemoryImage { base, bytes, loadable }
    }

    /// Moves the image to `new_base`: adds `new_base - base` (mod 2³²) to
    /// each little-endian word the table lists. Every entry is checked
    /// before any byte changes, so an error leaves the image as it was.
    /// Returns the number of words patched.
    pub fn rebase(&mut self, table: &RebaseTable, new_base: u32) -> Result<usize> {
        if table.link_base != self.base {
            return Err(PrelinkError::TableBase { table_base: table.link_base, image_base: self.base });
        }
        let len = self.bytes.len();
        let inside = |off: usize| off + 4 <= len && self.loadable.iter().any(|r| r.start <= off && off + 4 <= r.end);
        let mut offsets = Vec::with_capacity(table.addresses.len());
        for &address in &table.addresses {
            match address.checked_sub(self.base).map(|o| o as usize) {
                Some(off) if inside(off) => offsets.push(off),
                _ => {
                    let end = self.base as u64 + len as u64;
                    return Err(PrelinkError::WordOutside { address, start: self.base, end });
                }
            }
        }
        let delta = new_base.wrapping_sub(self.base);
        for &off in &offsets {
            let word = &mut self.bytes[off..off + 4];
            let moved = u32::from_le_bytes([word[0], word[1], word[2], word[3]]).wrapping_add(delta);
            word.copy_from_slice(&moved.to_le_bytes());
        }
        self.base = new_base;
        Ok(offsets.len())
    }
}
