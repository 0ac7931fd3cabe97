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
    /// Another buffer's bytes, seen from a core running on another host
    /// thread (`Memory::view_for`): the owner outlives the view.
    Shared(SharedView),
}

/// The address and length of a buffer owned elsewhere. Several threads
/// access it at once, so the access paths go through raw pointers with
/// relaxed atomics ([`read_relaxed`], [`write_relaxed`]), never through a
/// `&mut [u8]` two threads could hold.
pub struct SharedView {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: a view is a pointer into a buffer its owner keeps alive and in
// place until every view is dropped (the machine's parallel schedule makes
// and drops them within a run); accesses through it are relaxed atomics.
#[allow(unsafe_code)]
unsafe impl Send for SharedView {}
#[allow(unsafe_code)]
unsafe impl Sync for SharedView {}

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

    /// A view of these bytes for another thread (see [`SharedView`]): the
    /// caller keeps `self` alive and unmoved while the view lives.
    pub fn share(&mut self) -> ZeroedBytes {
        let (ptr, len) = self.raw();
        ZeroedBytes::Shared(SharedView { ptr, len })
    }

    /// The buffer's address and length, without making a reference to its
    /// bytes (other threads may be writing them).
    #[inline(always)]
    pub fn raw(&mut self) -> (*mut u8, usize) {
        match self {
            ZeroedBytes::Heap(data) => (data.as_mut_ptr(), data.len()),
            ZeroedBytes::Mapped(map) => (map.as_mut_ptr(), map.len()),
            ZeroedBytes::Shared(view) => (view.ptr, view.len),
        }
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
            shared @ ZeroedBytes::Shared(_) => shared[range].to_vec(),
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
            // SAFETY: the owner keeps the buffer alive (see `SharedView`);
            // only the host-side paths (fetching code, console text) read
            // a view as a slice, and those bytes are the core's own.
            #[allow(unsafe_code)]
            ZeroedBytes::Shared(view) => unsafe { std::slice::from_raw_parts(view.ptr, view.len) },
        }
    }
}

impl DerefMut for ZeroedBytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            ZeroedBytes::Heap(data) => data,
            ZeroedBytes::Mapped(map) => map,
            // SAFETY: as for `deref`.
            #[allow(unsafe_code)]
            ZeroedBytes::Shared(view) => unsafe { std::slice::from_raw_parts_mut(view.ptr, view.len) },
        }
    }
}

/// Reads `N` bytes at `ptr` as relaxed atomics: one access when aligned to
/// its size, else byte by byte. What another thread's store racing with it
/// (a guest's spin-wait, or a race the checker would report) may give is
/// any mix of old and new bytes, as on hardware, and never undefined
/// behaviour.
///
/// # Safety
/// `ptr..ptr + N` must be inside a live buffer.
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn read_relaxed<const N: usize>(ptr: *const u8) -> [u8; N] {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};
    let mut out = [0u8; N];
    let aligned = (ptr as usize).is_multiple_of(N);
    // SAFETY: in bounds by the caller; the atomics are aligned as tested.
    unsafe {
        match N {
            4 if aligned => out.copy_from_slice(&AtomicU32::from_ptr(ptr as *mut u32).load(Relaxed).to_ne_bytes()),
            2 if aligned => out.copy_from_slice(&AtomicU16::from_ptr(ptr as *mut u16).load(Relaxed).to_ne_bytes()),
            _ => {
                for (i, b) in out.iter_mut().enumerate() {
                    *b = AtomicU8::from_ptr(ptr.add(i) as *mut u8).load(Relaxed);
                }
            }
        }
    }
    out
}

/// Writes `value` at `ptr` as relaxed atomics (see [`read_relaxed`]).
///
/// # Safety
/// `ptr..ptr + N` must be inside a live buffer.
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn write_relaxed<const N: usize>(ptr: *mut u8, value: [u8; N]) {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};
    let aligned = (ptr as usize).is_multiple_of(N);
    // SAFETY: as in `read_relaxed`.
    unsafe {
        match N {
            4 if aligned => {
                let word = u32::from_ne_bytes([value[0], value[1], value[2], value[3]]);
                AtomicU32::from_ptr(ptr as *mut u32).store(word, Relaxed)
            }
            2 if aligned => {
                AtomicU16::from_ptr(ptr as *mut u16).store(u16::from_ne_bytes([value[0], value[1]]), Relaxed)
            }
            _ => {
                for (i, &b) in value.iter().enumerate() {
                    AtomicU8::from_ptr(ptr.add(i)).store(b, Relaxed);
                }
            }
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
