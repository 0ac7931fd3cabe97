//! The one pass over the file: a vectorised search (memchr's SIMD `memmem`)
//! for `\x7fELF`, in fixed steps spread over the machine's cores, and the
//! per-hit work (header checks, sha256) spread the same way. A large host
//! file is memory-bound, so the scan is the only full read of it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::ELF_MAGIC;
use q7_target::par::workers;

/// The scan works, and reports progress, in steps of this many bytes.
pub const PROGRESS_STEP: usize = 16 << 20;

/// Offsets of every `\x7fELF` in `data`, in file order. `progress(done,
/// total)` is called on this thread once per step, `done` rising to `total`.
pub fn scan_magic(data: &[u8], progress: &mut dyn FnMut(u64, u64)) -> Vec<u64> {
    let steps = data.len().div_ceil(PROGRESS_STEP);
    let found: Vec<Mutex<Vec<u64>>> = (0..steps).map(|_| Mutex::new(Vec::new())).collect();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let finder = memchr::memmem::Finder::new(ELF_MAGIC);
    // Each worker takes the next step until none is left.
    let work = || -> bool {
        let step = next.fetch_add(1, Ordering::Relaxed);
        if step >= steps {
            return false;
        }
        let start = step * PROGRESS_STEP;
        let end = (start + PROGRESS_STEP).min(data.len());
        // Let a magic that starts before `end` finish past it.
        let window = &data[start..(end + ELF_MAGIC.len() - 1).min(data.len())];
        let hits: Vec<u64> =
            finder.find_iter(window).map(|i| start + i).filter(|&i| i < end).map(|i| i as u64).collect();
        *found[step].lock().unwrap_or_else(|e| e.into_inner()) = hits;
        finished.fetch_add(1, Ordering::Release);
        true
    };
    let total = data.len() as u64;
    let mut reported = 0;
    let mut report_up_to = |n: usize| {
        while reported < n {
            reported += 1;
            progress(((reported * PROGRESS_STEP) as u64).min(total), total);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..workers(steps) {
            scope.spawn(|| while work() {});
        }
        while work() {
            report_up_to(finished.load(Ordering::Acquire));
        }
    });
    report_up_to(steps);
    found.into_iter().flat_map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_scan_finds_what_a_byte_by_byte_scan_finds() {
        // Three and a bit steps of patterned bytes with magics at both ends,
        // across every step boundary and overlapping (`\x7fELF\x7fELF`).
        let mut data: Vec<u8> = (0..3 * PROGRESS_STEP + 4099).map(|i| (i * 7 % 251) as u8).collect();
        let len = data.len();
        let mut at = vec![0, len - 4, 1000, 1004];
        for k in 1..=3 {
            at.extend([k * PROGRESS_STEP - 3, k * PROGRESS_STEP - 1, k * PROGRESS_STEP + 2]);
        }
        for &a in &at {
            data[a..a + 4].copy_from_slice(ELF_MAGIC);
        }
        let expected: Vec<u64> =
            data.windows(4).enumerate().filter(|(_, w)| *w == ELF_MAGIC).map(|(i, _)| i as u64).collect();
        let mut calls = Vec::new();
        assert_eq!(scan_magic(&data, &mut |done, total| calls.push((done, total))), expected);
        assert_eq!(calls.len(), 4);
        assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "{calls:?}");
        assert_eq!(calls.last(), Some(&(len as u64, len as u64)));
    }
}
