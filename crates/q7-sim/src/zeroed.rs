//! Zero-filled buffers that cost nothing until touched: simulated memory's
//! regions and the checker's shadows, most of which a run never writes.
//! Below every other module; it imports none.
//!
//! Large buffers are anonymous mappings of their own rather than `calloc`
//! memory: once a long-lived process (Python running op after op) frees a
//! big `calloc` buffer, glibc raises its mmap threshold and serves the next
//! run's buffers from the heap, zeroing them page by page (measured: 8 ms of
//! a 0.3 ms call). A mapping is zero until written and never moves the
//! threshold.

use std::ops::{Deref, DerefMut};

/// Buffers at least this large are mappings.
const MAPPED_FROM: usize = 256 << 10;

pub enum ZeroedBytes {
    Heap(Vec<u8>),
    Mapped(memmap2::MmapMut),
}

impl ZeroedBytes {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> ZeroedBytes {
        if len >= MAPPED_FROM {
            if let Ok(map) = memmap2::MmapMut::map_anon(len) {
                return ZeroedBytes::Mapped(map);
            }
        }
        ZeroedBytes::Heap(vec![0; len])
    }

    /// The bytes `range` as a vector, the buffer given up: a heap buffer
    /// becomes the result in place (no fresh memory touched); a mapping's
    /// bytes are copied out and the mapping unmapped.
    pub fn into_vec(self, range: std::ops::Range<usize>) -> Vec<u8> {
        match self {
            ZeroedBytes::Heap(mut data) => {
                data.truncate(range.end);
                data.drain(..range.start);
                // Gives back the rest of the region (most of it never touched).
                data.shrink_to_fit();
                data
            }
            ZeroedBytes::Mapped(map) => map[range].to_vec(),
        }
    }
}

impl Default for ZeroedBytes {
    fn default() -> ZeroedBytes {
        ZeroedBytes::Heap(Vec::new())
    }
}

impl Deref for ZeroedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            ZeroedBytes::Heap(data) => data,
            ZeroedBytes::Mapped(map) => map,
        }
    }
}

impl DerefMut for ZeroedBytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            ZeroedBytes::Heap(data) => data,
            ZeroedBytes::Mapped(map) => map,
        }
    }
}

impl Clone for ZeroedBytes {
    fn clone(&self) -> ZeroedBytes {
        let mut copy = ZeroedBytes::zeroed(self.len());
        copy.copy_from_slice(self);
        copy
    }
}

#[cfg(test)]
mod tests {
    use super::ZeroedBytes;

    /// Minor page faults of the calling thread so far.
    fn faults() -> i64 {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage fills the struct it is given; RUSAGE_THREAD
        // counts this thread only (other tests run on other threads).
        #[allow(unsafe_code)]
        unsafe {
            libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr());
            usage.assume_init().ru_minflt
        }
    }

    #[test]
    fn buffers_freed_and_made_again_cost_no_page_until_touched() {
        // A 16 MiB calloc buffer freed raises glibc's mmap threshold past
        // it; the next one came from the heap, zeroed page by page (4,096
        // faults each), which made every op call from Python 8 ms slower.
        let before = faults();
        for _ in 0..4 {
            let mut bytes = ZeroedBytes::zeroed(16 << 20);
            bytes[5 << 20] = 1; // one page touched
            assert_eq!(bytes[5 << 20], 1);
            assert_eq!(bytes[(16 << 20) - 1], 0);
        }
        let taken = faults() - before;
        assert!(taken < 200, "{taken} page faults for four buffers touching one page each");
    }

    #[test]
    fn into_vec_gives_the_range_from_either_kind() {
        for len in [64, 1 << 20] {
            let mut bytes = ZeroedBytes::zeroed(len);
            bytes[10..14].copy_from_slice(&[1, 2, 3, 4]);
            assert_eq!(bytes.clone()[10..14], [1, 2, 3, 4]);
            assert_eq!(bytes.into_vec(9..15), [0, 1, 2, 3, 4, 0]);
        }
    }
}
