//! Which pages of a buffer the process never touched, from Linux's
//! `/proc/self/pagemap`: a page neither present nor swapped out has never
//! been written (a fresh anonymous mapping reads as zeros). Reading such a
//! page to find that out would make the kernel allocate it (a whole huge
//! page, zeroed): most of a machine's memory is never touched, so a
//! snapshot asks instead of reading.

use std::fs::File;
use std::os::unix::fs::FileExt;

const PAGE: usize = 4096;
const PRESENT: u64 = 1 << 63;
const SWAPPED: u64 = 1 << 62;

/// Per `chunk`-byte piece of `data`, whether every page it spans is
/// untouched. All false when the kernel does not say.
pub fn untouched_chunks(data: &[u8], chunk: usize) -> Vec<bool> {
    let chunks = data.len().div_ceil(chunk);
    let Some(pages) = page_flags(data) else { return vec![false; chunks] };
    let start = data.as_ptr() as usize;
    (0..chunks)
        .map(|k| {
            let from = start + k * chunk;
            let to = (from + chunk).min(start + data.len());
            let (first, last) = (from / PAGE - start / PAGE, (to - 1) / PAGE - start / PAGE);
            pages.get(first..=last).is_some_and(|p| p.iter().all(|&e| e & (PRESENT | SWAPPED) == 0))
        })
        .collect()
}

/// The pagemap entries of the pages `data` spans.
fn page_flags(data: &[u8]) -> Option<Vec<u64>> {
    if data.is_empty() {
        return Some(Vec::new());
    }
    let first = data.as_ptr() as usize / PAGE;
    let last = (data.as_ptr() as usize + data.len() - 1) / PAGE;
    let file = File::open("/proc/self/pagemap").ok()?;
    let mut bytes = vec![0u8; (last - first + 1) * 8];
    file.read_exact_at(&mut bytes, (first * 8) as u64).ok()?;
    Some(bytes.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_pages_are_touched_and_fresh_ones_not() {
        let mut data = vec![0u8; 64 << 20];
        data[3 << 20] = 1;
        let chunks = untouched_chunks(&data, 1 << 16);
        let written = (3 << 20) >> 16;
        assert!(!chunks[written]);
        // The allocator hands out a fresh mapping this large: most of it
        // untouched (huge pages may make a neighbour touched too).
        assert!(chunks.iter().filter(|&&u| u).count() > chunks.len() / 2, "{:?}", &chunks[..8]);
    }
}
