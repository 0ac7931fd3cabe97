//! The memory-class model's total on the fast engines (`q7 run --stats`):
//! per-core counts of the loads and stores the model prices, kept by
//! [`crate::mem::Memory`] (the interpreter and the JIT's slow paths) and
//! by compiled code in line, plus the spans of the transfer calls, cut by
//! hooks at their entries and return addresses. From these the model's
//! cycles follow exactly as [`crate::profile::CoreProfile`] files them one
//! instruction at a time, without the profiling path's per-op cost.

use crate::cost::{MemClass, MODEL};
use crate::mem::{ClassCounts, UNPRICED};
use crate::profile::classify;

/// Whether the model can charge anything for an access of `class`: a
/// latency outside transfers, or (tensor memory) bandwidth inside them.
fn priced(class: MemClass) -> bool {
    class == MemClass::TensorAccess || MODEL.latency(class) != 0.0
}

/// The counting slot of the 64 KiB page at `page_base`: its class outside
/// transfers when priced, else [`UNPRICED`]. Classes are whole pages (the
/// priced windows, tensor memory and shared DRAM, are page-aligned).
pub fn page_slot(page_base: u32) -> u8 {
    let class = classify(page_base, false);
    if priced(class) {
        class as u8
    } else {
        UNPRICED
    }
}

/// A core's counters at one moment.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    pub insns: u64,
    pub cycles: u64,
    pub counts: ClassCounts,
}

impl Snapshot {
    fn minus(&self, earlier: &Snapshot) -> Snapshot {
        Snapshot {
            insns: self.insns - earlier.insns,
            cycles: self.cycles - earlier.cycles,
            counts: self.counts.minus(&earlier.counts),
        }
    }

    fn plus(&self, other: &Snapshot) -> Snapshot {
        Snapshot {
            insns: self.insns + other.insns,
            cycles: self.cycles + other.cycles,
            counts: self.counts.plus(&other.counts),
        }
    }
}

/// Where a core is when it reaches a hooked pc.
#[derive(Clone, Copy, Debug)]
pub struct HookPoint {
    pub pc: u32,
    /// a1 and WINDOWBASE: at a call's return address they are again what
    /// they were at the callee's entry (before its `entry` ran), which
    /// tells the return of this call from that of a deeper one.
    pub sp: u32,
    pub windowbase: u32,
    /// The return address the call left (as `retw` will form it).
    pub return_pc: u32,
}

/// The outermost transfer call in progress.
#[derive(Clone, Copy, Debug)]
struct OpenSpan {
    return_pc: u32,
    sp: u32,
    windowbase: u32,
    start: Snapshot,
}

/// One core's transfer calls: what ran inside them, summed.
#[derive(Clone, Debug)]
pub struct TransferSpans {
    /// Entry addresses of the transfer functions.
    entries: Vec<u32>,
    open: Option<OpenSpan>,
    /// Outermost transfer calls made.
    pub transfers: u64,
    /// Everything retired inside closed spans.
    pub inside: Snapshot,
}

impl TransferSpans {
    pub fn new(entries: Vec<u32>) -> TransferSpans {
        TransferSpans { entries, open: None, transfers: 0, inside: Snapshot::default() }
    }

    pub fn entries(&self) -> &[u32] {
        &self.entries
    }

    /// The core reached a hooked pc with counters `now`. Returns a return
    /// address to hook when an outermost transfer call starts here.
    pub fn at_hook(&mut self, at: HookPoint, now: Snapshot) -> Option<u32> {
        match self.open {
            Some(span) if at.pc == span.return_pc && at.sp == span.sp && at.windowbase == span.windowbase => {
                self.inside = self.inside.plus(&now.minus(&span.start));
                self.open = None;
                None
            }
            // Nested or recursive transfer calls, and an entry re-reached
            // after a window exception, belong to the open span.
            Some(_) => None,
            None if self.entries.contains(&at.pc) => {
                self.transfers += 1;
                self.open =
                    Some(OpenSpan { return_pc: at.return_pc, sp: at.sp, windowbase: at.windowbase, start: now });
                Some(at.return_pc)
            }
            None => None,
        }
    }

    /// Everything retired inside transfer calls, the open one (if the run
    /// ended inside it) up to `now`.
    pub fn inside_until(&self, now: Snapshot) -> Snapshot {
        match self.open {
            Some(span) => self.inside.plus(&now.minus(&span.start)),
            None => self.inside,
        }
    }

    /// The model's cycles for a core whose counters ended at `end`: issue
    /// cycles outside transfers, each priced access outside them at its
    /// class's latency, and per transfer its set-up plus its tensor bytes
    /// at the transfer bandwidth (as `CoreProfile::retire`/`call` price).
    pub fn modelled_cycles(&self, end: Snapshot) -> f64 {
        let inside = self.inside_until(end);
        let outside = end.minus(&inside);
        let mut cycles = outside.cycles as f64;
        for class in MemClass::ALL {
            let k = class as usize;
            cycles += outside.counts.accesses[k] as f64 * MODEL.latency(class);
        }
        let tensor_bytes = inside.counts.bytes[MemClass::TensorAccess as usize];
        cycles + MODEL.transfer_cycles(tensor_bytes) + self.transfers as f64 * MODEL.transfer_setup
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::InsnClass;
    use crate::profile::{Access, CoreProfile};
    use q7_target::memmap::{SHARED_DRAM_BASE, TCM_BASE, TENSOR_BASE};

    fn counts(accesses: &[(u32, u32)]) -> ClassCounts {
        let mut c = ClassCounts::default();
        for &(addr, bytes) in accesses {
            c.add(page_slot(addr & !0xffff), bytes);
        }
        c
    }

    #[test]
    fn only_priced_classes_have_slots() {
        assert_eq!(page_slot(TENSOR_BASE), MemClass::TensorAccess as u8);
        assert_eq!(page_slot(SHARED_DRAM_BASE), MemClass::SharedDram as u8);
        assert_eq!(page_slot(TCM_BASE), UNPRICED);
        assert_eq!(page_slot(0x8400_0000), UNPRICED);
    }

    /// The same instructions priced one at a time by `CoreProfile` and as
    /// spans here: equal totals, nested transfer calls included.
    #[test]
    fn spans_price_as_the_profile_does() {
        let (copy, memcpy, ret) = (0x100, 0x200, 0x14);
        let mut profile = CoreProfile::new(vec![copy]);
        let mut spans = TransferSpans::new(vec![copy]);
        let at = |pc, sp| HookPoint { pc, sp, windowbase: 2, return_pc: ret };
        let shared = Access { addr: SHARED_DRAM_BASE, bytes: 4 };
        let tensor = |n: u32| Access { addr: TENSOR_BASE + 4 * n, bytes: 4 };
        // Before: two accesses and a call (3 cycles each: taken).
        profile.retire(0x10, InsnClass::LoadStore, 2, Some(tensor(0)));
        profile.retire(0x11, InsnClass::LoadStore, 2, Some(shared));
        profile.retire(0x12, InsnClass::Branch, 3, None);
        profile.call(copy);
        let mut now = Snapshot { insns: 3, cycles: 7, counts: counts(&[(TENSOR_BASE, 4), (SHARED_DRAM_BASE, 4)]) };
        assert_eq!(spans.at_hook(at(copy, 0x1000), now), Some(ret));
        // Inside: a nested call (its entry re-hooked: no new span), a
        // tensor load, a shared load and a TCM store.
        profile.retire(copy, InsnClass::Branch, 3, None);
        profile.call(memcpy);
        assert_eq!(spans.at_hook(at(copy, 0x0f00), now), None);
        for (pc, access) in
            [(memcpy, tensor(1)), (memcpy + 3, shared), (memcpy + 6, Access { addr: TCM_BASE, bytes: 4 })]
        {
            profile.retire(pc, InsnClass::LoadStore, 2, Some(access));
        }
        profile.ret();
        profile.ret();
        now.insns += 4;
        now.cycles += 9;
        now.counts = now.counts.plus(&counts(&[(TENSOR_BASE + 4, 4), (SHARED_DRAM_BASE, 4), (TCM_BASE, 4)]));
        // A deeper frame's return to the same address is not this span's end.
        assert_eq!(spans.at_hook(at(ret, 0x0f00), now), None);
        assert_eq!(spans.at_hook(at(ret, 0x1000), now), None);
        profile.retire(ret, InsnClass::LoadStore, 2, Some(tensor(2)));
        now.insns += 1;
        now.cycles += 2;
        now.counts = now.counts.plus(&counts(&[(TENSOR_BASE + 8, 4)]));
        let (insns, cycles) = profile.totals();
        assert_eq!((insns, profile.transfers), (now.insns, spans.transfers));
        assert_eq!(spans.modelled_cycles(now), cycles);
    }

    #[test]
    fn a_run_ending_inside_a_transfer_counts_it_as_inside() {
        let mut spans = TransferSpans::new(vec![0x100]);
        let start = Snapshot { insns: 1, cycles: 1, counts: ClassCounts::default() };
        spans.at_hook(HookPoint { pc: 0x100, sp: 0, windowbase: 0, return_pc: 0x20 }, start);
        let end = Snapshot { insns: 11, cycles: 21, counts: counts(&[(TENSOR_BASE, 8)]) };
        assert_eq!(spans.modelled_cycles(end), 1.0 + MODEL.transfer_setup + MODEL.transfer_cycles(8));
    }
}
