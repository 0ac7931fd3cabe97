//! Buffers a run writes whole (large tensors, their checker shadow, a
//! large input file): backed by huge pages where the kernel agrees. Below
//! every other module; it imports none.

/// Asks the kernel to back the whole 2 MiB pages inside `bytes` with huge
/// pages: for buffers that will be written densely (a large tensor), one
/// fault per 2 MiB instead of 512. Advice only: nothing changes if refused.
pub fn advise(bytes: &mut [u8]) {
    advise_allocation(bytes.as_mut_ptr(), bytes.len());
}

/// [`advise`] for a vector's spare capacity (a buffer about to be
/// filled, such as a large file being read).
pub fn advise_spare(buffer: &mut Vec<u8>) {
    let spare = buffer.spare_capacity_mut();
    advise_allocation(spare.as_mut_ptr().cast(), spare.len());
}

/// `[start, start + len)` must lie inside one live allocation.
fn advise_allocation(start: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let first = (start as usize).next_multiple_of(HUGE);
        let end = (start as usize + len) & !(HUGE - 1);
        if first < end {
            // SAFETY: madvise only advises on the range, which lies inside
            // a live allocation of ours; MADV_HUGEPAGE moves no data and
            // frees nothing.
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}
