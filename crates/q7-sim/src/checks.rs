//! Checks the hardware does not make (aws-neuron-sdk issue #1019: accessor
//! writes beyond a tensor are silent on the device).
//!
//! The checker watches tensor memory and each core's TCM:
//!
//! * **stray stores**: a store that lands in no live allocation: not in a
//!   host tensor (inputs, the destination), not in a heap or TCM block the
//!   core allocated. Allocations are learnt by hooking the SDK allocator
//!   (`q7_arena_alloc` / `q7_arena_free`) when the image has symbols; without
//!   symbols a core's whole heap slice and TCM count as live for it.
//!   Stores by the allocator itself (its block headers) are exempt.
//! * **races**: two cores writing the same byte of tensor memory.
//! * **reads of never-written output**: loading bytes of the destination
//!   tensor, or of a fresh heap/TCM block, before anyone wrote them.
//!
//! Findings name the core, the pc, the nearest tensor or block and the
//! element index; at most [`REPORT_LIMIT`] per kind are kept, all counted.

use std::collections::BTreeMap;
use std::fmt;

use crate::core::{ps, Cpu};

/// Findings kept per kind (the rest are only counted).
pub const REPORT_LIMIT: usize = 10;

/// What a live range of memory is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// A tensor the host placed: its name, element size and whether cores
    /// may read it before writing (inputs yes, the destination no).
    HostTensor { name: String, elem_size: u32, output: bool },
    /// Host-written metadata (descriptors, argument records).
    HostData,
    /// A heap or TCM block `core` allocated (or the whole slice, unhooked).
    Block { core: usize, tcm: bool },
}

#[derive(Clone, Debug)]
struct Live {
    end: u32,
    owner: Owner,
}

/// One problem the checker found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    StrayStore { core: usize, pc: u32, addr: u32, size: u32, near: String },
    Race { core: usize, other: usize, pc: u32, addr: u32, what: String },
    UninitRead { core: usize, pc: u32, addr: u32, what: String },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::StrayStore { core, pc, addr, size, near } => write!(
                f,
                "core {core} pc {pc:#010x}: {size}-byte store to {addr:#010x} outside every live tensor and allocation ({near})"
            ),
            Finding::Race { core, other, pc, addr, what } => write!(
                f,
                "core {core} pc {pc:#010x}: store to {addr:#010x} ({what}) races with core {other}, which wrote it too"
            ),
            Finding::UninitRead { core, pc, addr, what } => {
                write!(f, "core {core} pc {pc:#010x}: load from {addr:#010x} ({what}), which nothing has written yet")
            }
        }
    }
}

/// Where a core's image has the SDK allocator.
#[derive(Clone, Copy, Debug)]
pub struct Allocator {
    pub alloc: u32,
    pub free: u32,
    pub init: Option<u32>,
}

/// An allocator call in flight on a core.
#[derive(Clone, Copy, Debug)]
struct PendingCall {
    return_pc: u32,
    windowbase: u32,
    result_reg: usize,
    size: u32,
    alloc: bool,
}

/// Shadow state of one watched address range (tensor memory, or one TCM).
struct Shadow {
    base: u32,
    /// Per byte: 0 = never written; 1..=8 = last writer core + 1; 0xff = host.
    writer: Vec<u8>,
}

impl Shadow {
    fn get(&self, addr: u32) -> Option<&u8> {
        self.writer.get(addr.wrapping_sub(self.base) as usize)
    }
}

pub struct Checker {
    tensor: Shadow,
    /// Per core TCM shadow (same address for all cores).
    tcm: Vec<Shadow>,
    tcm_size: u32,
    /// Live ranges in tensor memory, by start address.
    live: BTreeMap<u32, Live>,
    /// Live ranges in each core's TCM.
    tcm_live: Vec<BTreeMap<u32, Live>>,
    /// Per core, the allocator entry points in its image (hooks), when
    /// symbols are known.
    allocator: Vec<Option<Allocator>>,
    pending: Vec<Vec<PendingCall>>,
    pub findings: Vec<Finding>,
    /// Findings per kind (stray, race, uninit), including unreported ones.
    pub counts: [u64; 3],
}

const HOST: u8 = 0xff;

impl Checker {
    /// Watches `[tensor_base, +tensor_size)` and, per core, the TCM.
    pub fn new(cores: usize, tensor_base: u32, tensor_size: u32, tcm_base: u32, tcm_size: u32) -> Checker {
        Checker {
            tensor: Shadow { base: tensor_base, writer: vec![0; tensor_size as usize] },
            tcm: (0..cores).map(|_| Shadow { base: tcm_base, writer: vec![0; tcm_size as usize] }).collect(),
            tcm_size,
            live: BTreeMap::new(),
            tcm_live: vec![BTreeMap::new(); cores],
            allocator: vec![None; cores],
            pending: vec![Vec::new(); cores],
            findings: Vec::new(),
            counts: [0; 3],
        }
    }

    /// Declares a live range of tensor memory; `host_written` marks its
    /// bytes as initialised (inputs, metadata).
    pub fn add_live(&mut self, start: u32, len: u32, owner: Owner, host_written: bool) {
        if len == 0 {
            return;
        }
        if host_written {
            let off = start.wrapping_sub(self.tensor.base) as usize;
            if let Some(bytes) = self.tensor.writer.get_mut(off..off + len as usize) {
                bytes.fill(HOST);
            }
        }
        self.live.insert(start, Live { end: start.saturating_add(len), owner });
    }

    /// Declares a core's whole TCM live for it (no allocator hooks).
    pub fn add_tcm_live(&mut self, core: usize, start: u32, len: u32) {
        self.tcm_live[core]
            .insert(start, Live { end: start.saturating_add(len), owner: Owner::Block { core, tcm: true } });
    }

    /// Learns `core`'s allocations by hooking `q7_arena_alloc` and
    /// `q7_arena_free` in its image; `q7_arena_init` (which writes the first
    /// free-block header) is exempt from checks like them.
    pub fn set_allocator(&mut self, core: usize, allocator: Allocator) {
        self.allocator[core] = Some(allocator);
    }

    /// Addresses `core` must report through [`Checker::on_hook`].
    pub fn hook_addresses(&self, core: usize) -> Vec<u32> {
        self.allocator[core]
            .map_or(Vec::new(), |a| [Some(a.alloc), Some(a.free), a.init].into_iter().flatten().collect())
    }

    fn record(&mut self, kind: usize, finding: Finding) {
        self.counts[kind] += 1;
        let kept = self.findings.iter().filter(|f| finding_kind(f) == kind).count();
        if kept < REPORT_LIMIT {
            self.findings.push(finding);
        }
    }

    fn in_allocator(&self, core: usize) -> bool {
        !self.pending[core].is_empty()
    }

    fn is_tcm(&self, addr: u32) -> bool {
        addr.wrapping_sub(self.tcm.first().map_or(0, |s| s.base)) < self.tcm_size
    }

    /// The live range holding `[addr, addr + size)`.
    fn live_at(map: &BTreeMap<u32, Live>, addr: u32, size: u32) -> Option<(&u32, &Live)> {
        map.range(..=addr).next_back().filter(|(_, l)| u64::from(addr) + u64::from(size) <= u64::from(l.end))
    }

    /// Describes the range nearest to `addr`, with the element index.
    fn nearest(map: &BTreeMap<u32, Live>, addr: u32) -> String {
        let below = map.range(..=addr).next_back();
        let above = map.range(addr..).next();
        let pick = match (below, above) {
            (Some(b), Some(a)) => {
                if addr.saturating_sub(b.1.end) <= a.0.saturating_sub(addr) {
                    b
                } else {
                    a
                }
            }
            (Some(b), None) => b,
            (None, Some(a)) => a,
            (None, None) => return "no tensors are live".into(),
        };
        let (&start, live) = pick;
        describe_position(start, live, addr)
    }

    pub fn on_store(&mut self, core: usize, pc: u32, addr: u32, size: u32) {
        let exempt = self.in_allocator(core);
        if self.is_tcm(addr) {
            let map = &self.tcm_live[core];
            let ok = exempt || Checker::live_at(map, addr, size).is_some();
            if !ok {
                let near = format!("TCM: {}", Checker::nearest(map, addr));
                self.record(0, Finding::StrayStore { core, pc, addr, size, near });
            }
            mark(&mut self.tcm[core], addr, size, core as u8 + 1);
            return;
        }
        let live = Checker::live_at(&self.live, addr, size).map(|(&s, l)| (s, l.clone()));
        match live {
            Some((_, Live { owner: Owner::Block { core: owner, .. }, .. })) if owner != core && !exempt => {
                let near = format!("heap block of core {owner}");
                self.record(0, Finding::StrayStore { core, pc, addr, size, near });
            }
            Some((start, live)) => {
                let prev = self.tensor.get(addr).copied().unwrap_or(0);
                if prev != 0 && prev != HOST && usize::from(prev - 1) != core && !exempt {
                    let what = describe_position(start, &live, addr);
                    self.record(1, Finding::Race { core, other: usize::from(prev - 1), pc, addr, what });
                }
            }
            None if !exempt => {
                let near = Checker::nearest(&self.live, addr);
                self.record(0, Finding::StrayStore { core, pc, addr, size, near });
            }
            None => {}
        }
        mark(&mut self.tensor, addr, size, core as u8 + 1);
    }

    pub fn on_load(&mut self, core: usize, pc: u32, addr: u32, size: u32) {
        if self.in_allocator(core) {
            return;
        }
        let (shadow, map) =
            if self.is_tcm(addr) { (&self.tcm[core], &self.tcm_live[core]) } else { (&self.tensor, &self.live) };
        let Some((&start, live)) = Checker::live_at(map, addr, size) else { return };
        let checked = match &live.owner {
            Owner::HostTensor { output, .. } => *output,
            Owner::Block { .. } => self.allocator[core].is_some(),
            Owner::HostData => false,
        };
        if !checked {
            return;
        }
        let unwritten = (0..size).any(|i| shadow.get(addr.wrapping_add(i)).is_some_and(|&w| w == 0));
        if unwritten {
            let what = describe_position(start, live, addr);
            self.record(2, Finding::UninitRead { core, pc, addr, what });
        }
    }

    /// A core reached an allocator entry or the return of one.
    pub fn on_hook(&mut self, core: usize, pc: u32, cpu: &Cpu) {
        let wb = cpu.windowbase;
        if let Some(i) = self.pending[core].iter().rposition(|p| p.return_pc == pc && p.windowbase == wb) {
            let call = self.pending[core].remove(i);
            if call.alloc {
                let ptr = cpu.reg(call.result_reg);
                if ptr != 0 {
                    self.add_block(core, ptr, call.size);
                }
            }
            return;
        }
        // An entry: before `entry` runs, the caller's window is current and
        // PS.CALLINC says which registers hold the return address and args.
        let callinc = ((cpu.ps & ps::CALLINC_MASK) >> ps::CALLINC_SHIFT) as usize;
        let base = callinc * 4;
        let return_pc = (pc & 0xc000_0000) | (cpu.reg(base) & 0x3fff_ffff);
        let Some(allocator) = self.allocator[core] else { return };
        let mut call = PendingCall { return_pc, windowbase: wb, result_reg: base + 2, size: 0, alloc: false };
        if pc == allocator.alloc {
            call.size = cpu.reg(base + 3);
            call.alloc = true;
        } else if pc == allocator.free {
            self.remove_block(core, cpu.reg(base + 3));
        } else if Some(pc) != allocator.init {
            return;
        }
        self.pending[core].push(call);
    }

    /// Return addresses of pending allocator calls, which must be hooked too.
    /// Elements of `[start, start + count·elem)` in tensor memory that no
    /// core and not the host ever wrote: their number and the first
    /// `keep` indices. `None` when the range is not all in tensor memory.
    pub fn never_written(&self, start: u32, count: usize, elem: usize, keep: usize) -> Option<(u64, Vec<usize>)> {
        let off = start.checked_sub(self.tensor.base)? as usize;
        let bytes = self.tensor.writer.get(off..off.checked_add(count.checked_mul(elem)?)?)?;
        let mut first = Vec::new();
        let mut total = 0u64;
        for (index, element) in bytes.chunks_exact(elem.max(1)).enumerate() {
            if element.iter().all(|&w| w == 0) {
                total += 1;
                if first.len() < keep {
                    first.push(index);
                }
            }
        }
        Some((total, first))
    }

    pub fn pending_returns(&self, core: usize) -> impl Iterator<Item = u32> + '_ {
        self.pending[core].iter().map(|p| p.return_pc)
    }

    fn add_block(&mut self, core: usize, ptr: u32, size: u32) {
        let tcm = self.is_tcm(ptr);
        let live = Live { end: ptr.saturating_add(size.max(1)), owner: Owner::Block { core, tcm } };
        let (shadow, map) =
            if tcm { (&mut self.tcm[core], &mut self.tcm_live[core]) } else { (&mut self.tensor, &mut self.live) };
        // Fresh memory: reads before writes are flagged.
        mark(shadow, ptr, size, 0);
        map.insert(ptr, live);
    }

    fn remove_block(&mut self, core: usize, ptr: u32) {
        if self.is_tcm(ptr) {
            self.tcm_live[core].remove(&ptr);
        } else if matches!(self.live.get(&ptr), Some(Live { owner: Owner::Block { .. }, .. })) {
            self.live.remove(&ptr);
        }
    }
}

fn finding_kind(f: &Finding) -> usize {
    match f {
        Finding::StrayStore { .. } => 0,
        Finding::Race { .. } => 1,
        Finding::UninitRead { .. } => 2,
    }
}

fn mark(shadow: &mut Shadow, addr: u32, size: u32, value: u8) {
    let off = addr.wrapping_sub(shadow.base) as usize;
    if let Some(bytes) = shadow.writer.get_mut(off..off + size as usize) {
        bytes.fill(value);
    }
}

/// "element 1000000 of dst (1000000 elements): 0 past the end" and the like.
fn describe_position(start: u32, live: &Live, addr: u32) -> String {
    let len = live.end - start;
    let (name, elem) = match &live.owner {
        Owner::HostTensor { name, elem_size, .. } => (name.clone(), *elem_size),
        Owner::HostData => ("host descriptors".to_string(), 1),
        Owner::Block { core, tcm } => (format!("{} block of core {core}", if *tcm { "TCM" } else { "heap" }), 1),
    };
    let unit = if elem == 1 { "byte" } else { "element" };
    let count = len / elem;
    let offset = i64::from(addr) - i64::from(start);
    let index = offset.div_euclid(i64::from(elem));
    if addr < start {
        format!("{unit} {index} of {name} ({count} {unit}s at {start:#010x}), {} bytes before its start", start - addr)
    } else if addr >= live.end {
        format!(
            "{unit} {index} of {name} ({count} {unit}s at {start:#010x}), {} past the end",
            index - i64::from(count)
        )
    } else {
        format!("{unit} {index} of {name} ({count} {unit}s at {start:#010x})")
    }
}
