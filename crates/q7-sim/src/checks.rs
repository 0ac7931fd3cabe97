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
//! * **uninitialised stack reads**: loading stack bytes no store wrote in
//!   this run (see [`stack`]).
//!
//! Findings name the core, the pc, the nearest tensor or block and the
//! element index; at most [`REPORT_LIMIT`] per kind are kept, all counted.
//!
//! Cost: per byte of watched memory the shadow keeps its last writer. Each
//! core remembers the live range its last access fell in (valid until a
//! range is added or removed), so an access in the same range costs a few
//! compares and a shadow read or write; only a new range, a finding or an
//! allocator call in flight takes the exact path through the range map.
//! The checker knows nothing of the CPU: it receives core ids, pcs and
//! register values.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound;

use crate::zeroed::ZeroedBytes;

mod stack;

use stack::StackShadow;
pub use stack::StackWindow;

/// Findings kept per kind (the rest are only counted).
pub const REPORT_LIMIT: usize = 10;

/// Bytes of code from a load's pc that a [`UseTest`] is given (fewer at the
/// end of the code).
pub const USE_TEST_CODE: usize = 48;

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
    StrayLoad { core: usize, pc: u32, addr: u32, size: u32, near: String },
}

impl Finding {
    /// The core that made the access, and the access's pc.
    pub fn place(&self) -> (usize, u32) {
        match *self {
            Finding::StrayStore { core, pc, .. }
            | Finding::Race { core, pc, .. }
            | Finding::UninitRead { core, pc, .. }
            | Finding::StrayLoad { core, pc, .. } => (core, pc),
        }
    }
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
            Finding::StrayLoad { core, pc, addr, size, near } => write!(
                f,
                "core {core} pc {pc:#010x}: {size}-byte load from {addr:#010x} outside every live tensor and allocation ({near})"
            ),
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

/// What a core's last access found: the live range `live_at` returns for
/// addresses in `lo..hi` (its start up to the next range's), its end, and
/// what it allows this core.
#[derive(Clone, Copy, Default)]
struct RangeCache {
    /// [`Checker::generation`] when filled; 0 = empty.
    generation: u64,
    lo: u32,
    hi: u32,
    end: u32,
    /// Stores need no finding (not another core's block).
    store_ok: bool,
    /// Loads look for never-written bytes.
    load_checked: bool,
}

impl RangeCache {
    #[inline(always)]
    fn covers(&self, generation: u64, addr: u32, size: u32) -> bool {
        self.generation == generation
            && addr >= self.lo
            && addr < self.hi
            && u64::from(addr) + u64::from(size) <= u64::from(self.end)
    }
}

/// What the allocator hooks read from a core that reached one: the window
/// base, PS.CALLINC, and the 16 registers of the current window.
#[derive(Clone, Copy, Debug)]
pub struct HookFrame<'a> {
    pub windowbase: u32,
    pub callinc: u32,
    pub regs: &'a [u32; 16],
}

/// Shadow state of one watched address range (tensor memory, or one TCM).
#[derive(Clone)]
struct Shadow {
    base: u32,
    /// Per byte: 0 = never written; 1..=8 = last writer core + 1; 0xff = host.
    writer: ZeroedBytes,
}

impl Shadow {
    fn get(&self, addr: u32) -> Option<&u8> {
        self.writer.get(addr.wrapping_sub(self.base) as usize)
    }
}

/// Cloned whole for a debugger's snapshots: compiled code reaches the
/// shadows only through windows refreshed at every `Core::run`.
#[derive(Clone)]
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
    /// Findings per kind (stray store, race, uninit, stray load), including unreported ones.
    pub counts: [u64; 4],
    /// Bumped whenever live ranges or allocators change (empties caches).
    generation: u64,
    /// Per core, the last range hit, by [`cache_slot`]: loads and stores
    /// apart (a streaming kernel reads one tensor and writes another).
    caches: Vec<[RangeCache; 4]>,
    /// Per core, its stack's shadow when watched.
    stacks: Vec<Option<StackShadow>>,
    use_test: Option<UseTest>,
}

/// See [`Checker::set_use_test`].
pub type UseTest = std::sync::Arc<dyn Fn(&[u8], u32) -> bool + Send + Sync>;

const HOST: u8 = 0xff;

impl Checker {
    /// The checker without its shadows' bytes (a snapshot keeps those
    /// apart, in chunks shared between snapshots).
    pub fn without_shadows(&self) -> Checker {
        let empty = |s: &Shadow| Shadow { base: s.base, writer: ZeroedBytes::default() };
        Checker {
            tensor: empty(&self.tensor),
            tcm: self.tcm.iter().map(empty).collect(),
            tcm_size: self.tcm_size,
            live: self.live.clone(),
            tcm_live: self.tcm_live.clone(),
            allocator: self.allocator.clone(),
            pending: self.pending.clone(),
            findings: self.findings.clone(),
            counts: self.counts,
            generation: self.generation,
            caches: self.caches.clone(),
            stacks: self.stacks.iter().map(|s| s.as_ref().map(StackShadow::empty)).collect(),
            use_test: self.use_test.clone(),
        }
    }

    /// The shadows' bytes: tensor memory's, each TCM's, each watched stack's.
    pub fn shadows(&self) -> impl Iterator<Item = &[u8]> {
        let stacks = self.stacks.iter().flatten().map(StackShadow::bytes);
        std::iter::once(&self.tensor).chain(&self.tcm).map(|s| &s.writer[..]).chain(stacks)
    }

    /// Moves the shadows' buffers of `other` into this checker (made by
    /// [`Checker::without_shadows`]), to be overwritten in place.
    pub fn take_shadows(&mut self, other: &mut Checker) -> Vec<&mut [u8]> {
        self.tensor.writer = std::mem::take(&mut other.tensor.writer);
        for (mine, theirs) in self.tcm.iter_mut().zip(&mut other.tcm) {
            mine.writer = std::mem::take(&mut theirs.writer);
        }
        for (mine, theirs) in self.stacks.iter_mut().flatten().zip(other.stacks.iter_mut().flatten()) {
            *mine.buffer() = std::mem::take(theirs.buffer());
        }
        let stacks = self.stacks.iter_mut().flatten().map(|s| &mut s.buffer()[..]);
        std::iter::once(&mut self.tensor).chain(&mut self.tcm).map(|s| &mut s.writer[..]).chain(stacks).collect()
    }

    /// Watches `[tensor_base, +tensor_size)` and, per core, the TCM.
    pub fn new(cores: usize, tensor_base: u32, tensor_size: u32, tcm_base: u32, tcm_size: u32) -> Checker {
        Checker {
            tensor: Shadow { base: tensor_base, writer: ZeroedBytes::zeroed(tensor_size as usize) },
            tcm: (0..cores)
                .map(|_| Shadow { base: tcm_base, writer: ZeroedBytes::zeroed(tcm_size as usize) })
                .collect(),
            tcm_size,
            live: BTreeMap::new(),
            tcm_live: vec![BTreeMap::new(); cores],
            allocator: vec![None; cores],
            pending: vec![Vec::new(); cores],
            findings: Vec::new(),
            counts: [0; 4],
            generation: 1,
            caches: vec![[RangeCache::default(); 4]; cores],
            stacks: (0..cores).map(|_| None).collect(),
            use_test: None,
        }
    }

    /// Watches `core`'s stack, `[lo, hi)`, for loads of bytes no store
    /// wrote: see [`stack`]. The memory the stack is in must send its
    /// loads to [`Checker::stack_unwritten`] and stores to
    /// [`Checker::on_stack_store`].
    pub fn watch_stack(&mut self, core: usize, lo: u32, hi: u32) {
        if let Some(slot) = self.stacks.get_mut(core) {
            *slot = Some(StackShadow::new(lo, hi));
        }
    }

    /// Whether a load of `size` bytes by `core` from a page holding its
    /// stack reads only bytes no store wrote (then the caller passes the
    /// code at the load to [`Checker::uninit_stack_load`]).
    #[inline]
    pub fn stack_unwritten(&self, core: usize, addr: u32, size: u32) -> bool {
        matches!(self.stacks.get(core), Some(Some(stack)) if stack.unwritten(addr, size))
    }

    /// `core`'s load at `pc` read stack bytes no store wrote; `code` holds
    /// the instructions from `pc` on, for the use test.
    #[cold]
    pub fn uninit_stack_load(&mut self, core: usize, pc: u32, addr: u32, code: &[u8]) {
        if !self.use_test.as_ref().is_none_or(|used| used(code, pc)) {
            return;
        }
        if let Some(Some(stack)) = self.stacks.get(core) {
            let what = stack.describe(core, addr);
            self.record(2, Finding::UninitRead { core, pc, addr, what });
        }
    }

    /// How to tell, from the code at a load (and its pc), whether the
    /// loaded value is used rather than only copied: see [`stack`].
    pub fn set_use_test(&mut self, test: UseTest) {
        self.use_test = Some(test);
    }

    /// A store of `size` bytes by `core` to a page holding its stack.
    #[inline]
    pub fn on_stack_store(&mut self, core: usize, addr: u32, size: u32) {
        if let Some(Some(stack)) = self.stacks.get_mut(core) {
            stack.mark(addr, size);
        }
    }

    /// What compiled code needs to do [`Checker::stack_unwritten`] /
    /// [`Checker::on_stack_store`] in line for `core` (valid while the
    /// checker lives).
    pub fn stack_window(&mut self, core: usize) -> StackWindow {
        match self.stacks.get_mut(core) {
            Some(Some(stack)) => stack.window(),
            _ => StackWindow::EMPTY,
        }
    }

    /// Says that the shadow of `[start, start + len)` of tensor memory will
    /// be written densely (see [`crate::dense`]).
    pub fn expect_dense(&mut self, start: u32, len: usize) {
        let off = start.wrapping_sub(self.tensor.base) as usize;
        if let Some(bytes) = self.tensor.writer.get_mut(off..off.saturating_add(len)) {
            crate::dense::advise(bytes);
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
        self.generation += 1;
    }

    /// Declares a core's whole TCM live for it (no allocator hooks).
    pub fn add_tcm_live(&mut self, core: usize, start: u32, len: u32) {
        self.tcm_live[core]
            .insert(start, Live { end: start.saturating_add(len), owner: Owner::Block { core, tcm: true } });
        self.generation += 1;
    }

    /// Learns `core`'s allocations by hooking `q7_arena_alloc` and
    /// `q7_arena_free` in its image; `q7_arena_init` (which writes the first
    /// free-block header) is exempt from checks like them.
    pub fn set_allocator(&mut self, core: usize, allocator: Allocator) {
        self.allocator[core] = Some(allocator);
        self.generation += 1;
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

    /// A store of `size` bytes by `core` at `pc`: the cached fast path, else
    /// [`Checker::store_exact`].
    #[inline]
    pub fn on_store(&mut self, core: usize, pc: u32, addr: u32, size: u32) {
        if self.pending[core].is_empty() {
            let tcm = self.is_tcm(addr);
            let cache = self.caches[core][cache_slot(tcm, true)];
            if cache.store_ok && cache.covers(self.generation, addr, size) {
                let shadow = if tcm { &mut self.tcm[core] } else { &mut self.tensor };
                let off = addr.wrapping_sub(shadow.base) as usize;
                if let Some(bytes) = shadow.writer.get_mut(off..off + size as usize) {
                    let mine = core as u8 + 1;
                    let prev = bytes[0];
                    // Only tensor memory has races (a TCM is private).
                    if tcm || prev == 0 || prev == HOST || prev == mine {
                        bytes.fill(mine);
                        return;
                    }
                }
            }
        }
        self.store_exact(core, pc, addr, size);
    }

    /// A load of `size` bytes by `core` at `pc`: the cached fast path, else
    /// [`Checker::load_exact`].
    #[inline]
    pub fn on_load(&mut self, core: usize, pc: u32, addr: u32, size: u32) {
        if !self.pending[core].is_empty() {
            return;
        }
        let tcm = self.is_tcm(addr);
        let cache = self.caches[core][cache_slot(tcm, false)];
        if cache.covers(self.generation, addr, size) {
            if !cache.load_checked {
                return;
            }
            let shadow = if tcm { &self.tcm[core] } else { &self.tensor };
            let off = addr.wrapping_sub(shadow.base) as usize;
            if shadow.writer.get(off..off + size as usize).is_some_and(|bytes| !bytes.contains(&0)) {
                return;
            }
        }
        self.load_exact(core, pc, addr, size);
    }

    /// What compiled code may do without calling [`Checker::on_load`] /
    /// [`Checker::on_store`]: the range `core`'s cache `slot` (see
    /// [`cache_slot`]) covers while no live range changes, as a
    /// [`FastWindow`]. `None` when that cache is stale or an allocator call
    /// is in flight (every access then takes the exact path).
    pub fn fast_window(&mut self, core: usize, slot: usize) -> Option<FastWindow> {
        let cache = self.caches[core][slot];
        if !self.pending[core].is_empty() || cache.generation != self.generation {
            return None;
        }
        let (tcm, store) = (slot >= 2, slot % 2 == 1);
        if store && !cache.store_ok {
            return None;
        }
        let shadow = if tcm { &mut self.tcm[core] } else { &mut self.tensor };
        // The shadow path must stay inside the shadow buffer.
        let shadow_end = u64::from(shadow.base) + shadow.writer.len() as u64;
        let lo = cache.lo.max(shadow.base);
        let end = u64::from(cache.hi).min(u64::from(cache.end)).min(shadow_end);
        if u64::from(lo) >= end {
            return None;
        }
        Some(FastWindow {
            lo,
            end: end as u32,
            shadow_bias: shadow.writer.as_mut_ptr().wrapping_sub(shadow.base as usize),
            // Loads test for unwritten bytes; stores to tensor memory test for
            // another core's bytes (a TCM is private).
            test: if store { !tcm } else { cache.load_checked },
            mine: core as u8 + 1,
        })
    }

    /// [`Checker::fast_window`] for the cache an access by `core` at `addr`
    /// used.
    pub fn fast_window_at(&mut self, core: usize, addr: u32, store: bool) -> Option<FastWindow> {
        let slot = cache_slot(self.is_tcm(addr), store);
        self.fast_window(core, slot)
    }

    /// Remembers, for `core`, the live range an access at `addr` falls in.
    fn fill_cache(&mut self, core: usize, addr: u32, store: bool) {
        let tcm = self.is_tcm(addr);
        let map = if tcm { &self.tcm_live[core] } else { &self.live };
        let Some((&start, live)) = map.range(..=addr).next_back() else { return };
        let next = map.range((Bound::Excluded(start), Bound::Unbounded)).next().map_or(u32::MAX, |(&k, _)| k);
        let (store_ok, load_checked) = match &live.owner {
            Owner::HostTensor { output, .. } => (true, *output),
            Owner::HostData => (true, false),
            Owner::Block { core: owner, .. } => (tcm || *owner == core, self.allocator[core].is_some()),
        };
        self.caches[core][cache_slot(tcm, store)] =
            RangeCache { generation: self.generation, lo: start, hi: next, end: live.end, store_ok, load_checked };
    }

    #[cold]
    fn store_exact(&mut self, core: usize, pc: u32, addr: u32, size: u32) {
        self.fill_cache(core, addr, true);
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

    #[cold]
    fn load_exact(&mut self, core: usize, pc: u32, addr: u32, size: u32) {
        if self.in_allocator(core) {
            return;
        }
        self.fill_cache(core, addr, false);
        let tcm = self.is_tcm(addr);
        let (shadow, map) = if tcm { (&self.tcm[core], &self.tcm_live[core]) } else { (&self.tensor, &self.live) };
        let Some((&start, live)) = Checker::live_at(map, addr, size) else {
            let near = Checker::nearest(map, addr);
            let near = if tcm { format!("TCM: {near}") } else { near };
            self.record(3, Finding::StrayLoad { core, pc, addr, size, near });
            return;
        };
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

    /// A core reached an allocator entry or the return of one; `frame`
    /// holds its registers there.
    pub fn on_hook(&mut self, core: usize, pc: u32, frame: HookFrame<'_>) {
        let wb = frame.windowbase;
        let reg = |n: usize| frame.regs[n & 15];
        if let Some(i) = self.pending[core].iter().rposition(|p| p.return_pc == pc && p.windowbase == wb) {
            let call = self.pending[core].remove(i);
            if call.alloc {
                let ptr = reg(call.result_reg);
                if ptr != 0 {
                    self.add_block(core, ptr, call.size);
                }
            }
            return;
        }
        // An entry: before `entry` runs, the caller's window is current and
        // PS.CALLINC says which registers hold the return address and args.
        let base = frame.callinc as usize * 4;
        let return_pc = (pc & 0xc000_0000) | (reg(base) & 0x3fff_ffff);
        let Some(allocator) = self.allocator[core] else { return };
        let mut call = PendingCall { return_pc, windowbase: wb, result_reg: base + 2, size: 0, alloc: false };
        if pc == allocator.alloc {
            call.size = reg(base + 3);
            call.alloc = true;
        } else if pc == allocator.free {
            self.remove_block(core, reg(base + 3));
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
        self.generation += 1;
    }

    fn remove_block(&mut self, core: usize, ptr: u32) {
        self.generation += 1;
        if self.is_tcm(ptr) {
            self.tcm_live[core].remove(&ptr);
        } else if matches!(self.live.get(&ptr), Some(Live { owner: Owner::Block { .. }, .. })) {
            self.live.remove(&ptr);
        }
    }
}

/// A range of addresses where the checker's verdict on an access is a
/// shadow test: see [`Checker::fast_window`]. Loads in it need nothing when
/// `test` is false, else every accessed shadow byte nonzero; stores need,
/// when `test`, the first shadow byte 0, [`HOST_WRITER`] or `mine`, and
/// then set the accessed shadow bytes to `mine`. Valid until live ranges,
/// allocators or pending allocator calls change.
#[derive(Clone, Copy, Debug)]
pub struct FastWindow {
    pub lo: u32,
    pub end: u32,
    /// Shadow byte of address `a` is at `shadow_bias + a`.
    pub shadow_bias: *mut u8,
    pub test: bool,
    pub mine: u8,
}

/// Shadow value of bytes the host wrote.
pub const HOST_WRITER: u8 = HOST;

/// Index of a core's range cache for an access to TCM or tensor memory.
fn cache_slot(tcm: bool, store: bool) -> usize {
    usize::from(tcm) * 2 + usize::from(store)
}

fn finding_kind(f: &Finding) -> usize {
    match f {
        Finding::StrayStore { .. } => 0,
        Finding::Race { .. } => 1,
        Finding::StrayLoad { .. } => 3,
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

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: u32 = 0xc000_0000;

    fn checker() -> Checker {
        let mut c = Checker::new(2, BASE, 0x1000, 0x9000_0000, 0x100);
        let input = Owner::HostTensor { name: "x".into(), elem_size: 4, output: false };
        c.add_live(BASE, 0x100, input, true);
        let dst = Owner::HostTensor { name: "dst".into(), elem_size: 4, output: true };
        c.add_live(BASE + 0x100, 0x100, dst, false);
        c
    }

    /// Once a core's range caches are warm, races, reads of unwritten
    /// output and stray stores are still found exactly as the first time.
    #[test]
    fn warm_caches_find_what_the_exact_path_finds() {
        let mut c = checker();
        for i in 0..8 {
            c.on_load(0, 0x10, BASE + 4 * i, 4);
            c.on_store(0, 0x14, BASE + 0x100 + 4 * i, 4);
        }
        assert_eq!(c.counts, [0, 0, 0, 0]);
        c.on_load(0, 0x18, BASE + 0x100 + 4 * 7, 4);
        c.on_load(0, 0x18, BASE + 0x100 + 4 * 8, 4);
        assert_eq!(c.counts, [0, 0, 1, 0], "element 8 of dst was never written");
        c.on_store(1, 0x20, BASE + 0x100, 4);
        c.on_store(1, 0x20, BASE + 0x104, 4);
        assert_eq!(c.counts, [0, 2, 1, 0], "core 1 overwrote two elements core 0 wrote");
        c.on_store(0, 0x24, BASE + 0x1fc, 4);
        c.on_store(0, 0x24, BASE + 0x200, 4);
        assert_eq!(c.counts, [1, 2, 1, 0], "one past the end of dst is a stray store");
        assert!(c.findings.iter().any(|f| matches!(f, Finding::StrayStore { addr, .. } if *addr == BASE + 0x200)));
    }
}
