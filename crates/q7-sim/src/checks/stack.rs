//! Uninitialised stack reads: a core's stack (from the end of its image's
//! `.bss` up to the launch block, where the stack pointer starts) has one
//! shadow byte per byte, set by every store; a load none of whose bytes a
//! store wrote in this run is a finding, the uninitialised local that
//! MemorySanitizer reports natively.
//!
//! MemorySanitizer reports uses, q7 sees loads; two rules bring them close.
//! Only loads of wholly unwritten bytes count (a field beside padding is
//! read with it); and a load whose value the code after it only stores
//! again or overwrites unread is no use (a struct copied word by word,
//! padding words too), which the session's use test
//! (`Checker::set_use_test`, `crate::cpu::loaded`) decides from the code at
//! the load, on this rare path only. A copy's destination counts as written.
//! The window overflow handlers' spills are stores, so reloading a register
//! that never held a defined value is not a finding either.
//!
//! Cost: `Memory` sends only accesses to the pages holding a stack here (one
//! compare, one shadow access); compiled code does the same in line through
//! [`StackWindow`], so other memory pays nothing.

use crate::zeroed::ZeroedBytes;

/// The shadow of one core's stack.
#[derive(Clone)]
pub(super) struct StackShadow {
    lo: u32,
    span: u32,
    /// Per byte: 0 = never stored to. Four bytes longer than the stack, so
    /// an access starting in it never needs a second bound.
    written: ZeroedBytes,
}

impl StackShadow {
    /// The shadow's bytes, and the buffer for a snapshot to move between
    /// checkers (see `Checker::take_shadows`).
    pub(super) fn bytes(&self) -> &[u8] {
        &self.written
    }

    pub(super) fn buffer(&mut self) -> &mut ZeroedBytes {
        &mut self.written
    }

    /// This shadow without its bytes.
    pub(super) fn empty(&self) -> StackShadow {
        StackShadow { lo: self.lo, span: self.span, written: ZeroedBytes::default() }
    }
}

/// Where compiled code does [`StackShadow`]'s work for one core: an access
/// at `addr` with `addr - lo < span` (wrapping) tests or sets the shadow
/// bytes at `shadow_bias + addr`. Loads whose shadow bytes are all zero
/// take the slow path (which reports them); stores set them to 1.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StackWindow {
    pub lo: u32,
    /// 0: no stack is watched.
    pub span: u32,
    pub shadow_bias: *mut u8,
}

impl StackWindow {
    pub const EMPTY: StackWindow = StackWindow { lo: 0, span: 0, shadow_bias: std::ptr::null_mut() };
}

impl StackShadow {
    /// Watches `[lo, hi)`, none of it written yet; `lo` rounded up to a
    /// word, so no aligned access straddles the bottom (`hi` is a page).
    pub(super) fn new(lo: u32, hi: u32) -> StackShadow {
        let lo = lo.saturating_add(3) & !3;
        let span = hi.saturating_sub(lo);
        StackShadow { lo, span, written: ZeroedBytes::zeroed(span as usize + 4) }
    }

    /// Offset of `addr` in the stack, when it is in it.
    #[inline(always)]
    fn offset(&self, addr: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.lo);
        (off < self.span).then_some(off as usize)
    }

    /// Whether a `size`-byte load at `addr` (`size` ≤ 4) reads stack bytes
    /// no store wrote.
    #[inline(always)]
    pub(super) fn unwritten(&self, addr: u32, size: u32) -> bool {
        self.offset(addr)
            .and_then(|off| self.written.get(off..off + size as usize))
            .is_some_and(|bytes| bytes.iter().all(|&w| w == 0))
    }

    /// Notes a `size`-byte store at `addr` (`size` ≤ 4).
    #[inline(always)]
    pub(super) fn mark(&mut self, addr: u32, size: u32) {
        if let Some(off) = self.offset(addr) {
            if let Some(bytes) = self.written.get_mut(off..off + size as usize) {
                bytes.fill(1);
            }
        }
    }

    /// "core 0's stack, 24 bytes below its top".
    pub(super) fn describe(&self, core: usize, addr: u32) -> String {
        let top = u64::from(self.lo) + u64::from(self.span);
        format!("core {core}'s stack, {} bytes below its top", top - u64::from(addr))
    }

    pub(super) fn window(&mut self) -> StackWindow {
        StackWindow {
            lo: self.lo,
            span: self.span,
            shadow_bias: self.written.as_mut_ptr().wrapping_sub(self.lo as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_of_bytes_no_store_wrote_are_unwritten() {
        let mut s = StackShadow::new(0x1000, 0x1100);
        assert!(s.unwritten(0x10fc, 4) && s.unwritten(0x1000, 1));
        s.mark(0x10fc, 2);
        assert!(!s.unwritten(0x10fc, 4), "half written: padding beside a field");
        assert!(s.unwritten(0x10fe, 2));
        // Outside the stack nothing is unwritten, and stores there are ignored.
        assert!(!s.unwritten(0xffc, 4) && !s.unwritten(0x1100, 4));
        s.mark(0x1100, 4);
        s.mark(0xffc, 4);
        assert!(s.unwritten(0x1000, 1));
        assert_eq!(s.describe(3, 0x10f0), "core 3's stack, 16 bytes below its top");
    }
}
