//! Simulated memory: named regions, a page table per core, and the hooks that
//! keep decoded code coherent and feed the checker.
//!
//! Every core sees the address space through its own table of 64 KiB pages,
//! because some regions are private (a core's window, its TCM, which every
//! core sees at the same address). A page entry names the region and the
//! region offset of the page start. An access is one page-table read and one
//! bounds-checked slice access (a region's bytes end where the region does,
//! so a partial page needs no extra test); a store also tests one bit of the
//! code-granule map (decoded code must be invalidated when overwritten);
//! pages the checker watches call it with the core and pc as values.
//!
//! Here: regions, page tables and the access paths. Beside them, each
//! concern in its own file: `code` (coherence with decoded blocks), `counts`
//! (the cost model's counters), `watch` (checker, stack and debugger
//! watches), `host` (the host's accesses), `fast` (host pointers for
//! compiled code), `report` (the map and faults in words).

mod code;
mod counts;
mod fast;
mod host;
mod report;
mod view;
mod watch;

pub use counts::{ClassCounts, UNPRICED};
pub use host::HostAccessError;
pub use watch::LoadWatchHit;

use std::collections::HashMap;

use crate::checks::Checker;
use crate::zeroed::ZeroedBytes;

pub const PAGE_SHIFT: u32 = 16;
pub const PAGE_SIZE: u32 = 1 << PAGE_SHIFT;
const PAGE_COUNT: usize = 1 << (32 - PAGE_SHIFT);
/// Granule of the code map (which bytes hold decoded instructions).
const CODE_SHIFT: u32 = 12;
/// Words of the code-granule bitmap (one bit per 4 KiB of address space).
const CODE_GRANULE_WORDS: usize = 1 << (32 - CODE_SHIFT - 6);

/// Page flags.
mod flag {
    pub const READ: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const EXEC: u8 = 4;
    /// The checker watches accesses to the page.
    pub const CHECKED: u8 = 8;
    /// The page holds a core's stack, whose loads and stores the checker
    /// sees (`Checker::on_stack_load`) while compiled code still accesses
    /// the page directly.
    pub const STACK: u8 = 16;
    /// A debugger watches loads from the page (see `Memory::watch_loads`).
    pub const WATCHED: u8 = 128;
    /// Watched by the checker or a debugger: no fast path may touch the page.
    pub const OBSERVED: u8 = CHECKED | WATCHED;
    /// Accesses to the page are counted for the cost model (`crate::tally`):
    /// its READ and WRITE bits move up here, so the plain path, which
    /// tests them, leaves every access to the counting one.
    pub const COUNTED_READ: u8 = READ << 5;
    pub const COUNTED_WRITE: u8 = WRITE << 5;
    pub const COUNTED: u8 = COUNTED_READ | COUNTED_WRITE;

    /// `flags` with READ and WRITE moved to the counted bits.
    pub fn counted(flags: u8) -> u8 {
        (flags & !(READ | WRITE)) | (flags & (READ | WRITE)) << 5
    }
}

/// What a region is, for reports and for the checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// iram0: the exception vectors, identical for all cores.
    Vectors,
    /// The shared DRAM staging window.
    SharedDram,
    /// A core's private window (image, .bss, heap, stack, launch block).
    Window { core: usize },
    /// A core's private TCM.
    Tcm { core: usize },
    /// Tensor memory, shared by all cores.
    Tensor,
    /// Plain RAM (bare-metal test programs).
    Ram,
    /// The reset stub ROM of a QEMU-like machine.
    Rom,
}

/// Access permissions of a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Perms {
    pub read: bool,
    pub write: bool,
    pub exec: bool,
}

impl Perms {
    pub const RWX: Perms = Perms { read: true, write: true, exec: true };
    pub const RW: Perms = Perms { read: true, write: true, exec: false };
    pub const RX: Perms = Perms { read: true, write: false, exec: true };

    fn flags(self) -> u8 {
        (self.read as u8 * flag::READ) | (self.write as u8 * flag::WRITE) | (self.exec as u8 * flag::EXEC)
    }

    fn describe(self) -> String {
        let mut s = String::new();
        s.push(if self.read { 'r' } else { '-' });
        s.push(if self.write { 'w' } else { '-' });
        s.push(if self.exec { 'x' } else { '-' });
        s
    }
}

/// One contiguous piece of simulated memory.
pub struct Region {
    pub name: String,
    pub kind: RegionKind,
    pub base: u32,
    pub size: u32,
    pub perms: Perms,
    pub data: ZeroedBytes,
}

impl Region {
    pub fn end(&self) -> u64 {
        u64::from(self.base) + u64::from(self.size)
    }

    pub fn contains(&self, addr: u32) -> bool {
        addr >= self.base && u64::from(addr) < self.end()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Load,
    Store,
    Fetch,
}

impl AccessKind {
    fn verb(self) -> &'static str {
        match self {
            AccessKind::Load => "load from",
            AccessKind::Store => "store to",
            AccessKind::Fetch => "instruction fetch from",
        }
    }
}

/// Why an access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Nothing is mapped there for this core.
    Unmapped,
    /// Mapped, but the region does not allow the access.
    Permission,
}

/// A failed access, with what is needed to explain it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemFault {
    pub addr: u32,
    pub size: u8,
    pub access: AccessKind,
    pub kind: FaultKind,
}

#[derive(Clone, Copy, Default)]
struct Page {
    region: u16,
    flags: u8,
    /// Region offset of the page's first byte.
    offset: u32,
}

impl Page {
    /// How many bytes from the page's start a fast path may read and write
    /// directly, for a region buffer of `data_len` bytes.
    fn direct_lengths(self, data_len: usize) -> (u32, u32) {
        let len = data_len.saturating_sub(self.offset as usize).min(PAGE_SIZE as usize) as u32;
        // Compiled code counts its own accesses: counted pages are direct.
        let flags = self.flags | self.flags >> 5;
        let allowed = |f: u8| if flags & f != 0 { len } else { 0 };
        (allowed(flag::READ), allowed(flag::WRITE))
    }
}

/// A page table with nothing mapped, from zeroed memory: the allocator hands
/// out fresh zero pages, so the 512 KiB per core cost nothing until mapped
/// (writing `Page::default()` 65,536 times did, eight times for 8 cores).
fn empty_table() -> Box<[Page]> {
    let table = Box::<[Page]>::new_zeroed_slice(PAGE_COUNT);
    // SAFETY: `Page` is integers only, so all-zero bytes are a valid
    // `Page`, and they are `Page::default()` (nothing mapped).
    #[allow(unsafe_code)]
    unsafe {
        table.assume_init()
    }
}

/// The whole address space of a machine.
pub struct Memory {
    pub regions: Vec<Region>,
    tables: Vec<Box<[Page]>>,
    /// Bitmaps of code bytes, per 4 KiB granule holding any.
    code_bytes: HashMap<u32, Box<[u64; 64]>>,
    /// One bit per 4 KiB granule: set when `code_bytes` has the granule.
    code_granules: Box<[u64]>,
    /// Bumped whenever a store hits decoded code: block caches compare it.
    pub code_epoch: u64,
    /// Bumped whenever a page table changes (a region mapped or watched):
    /// host-pointer page tables built from them (the JIT's) compare it.
    pub layout_epoch: u64,
    pub checker: Option<Checker>,
    /// While counting (`--stats`): each page's counting slot (a class of
    /// `crate::tally`'s, or [`UNPRICED`]), and each core's counters.
    page_slots: Option<Box<[u8]>>,
    counts: Vec<ClassCounts>,
    /// Load watchpoints (see [`Memory::watch_loads`]) and the first hit.
    load_watches: Vec<(usize, u32, u32)>,
    pub load_watch_hit: Option<LoadWatchHit>,
}

impl Memory {
    /// An address space with `cores` private views and nothing mapped.
    pub fn new(cores: usize) -> Memory {
        let tables = (0..cores.max(1)).map(|_| empty_table()).collect();
        Memory {
            regions: Vec::new(),
            tables,
            code_bytes: HashMap::new(),
            code_granules: vec![0; CODE_GRANULE_WORDS].into_boxed_slice(),
            code_epoch: 0,
            layout_epoch: 0,
            checker: None,
            page_slots: None,
            counts: Vec::new(),
            load_watches: Vec::new(),
            load_watch_hit: None,
        }
    }

    pub fn cores(&self) -> usize {
        self.tables.len()
    }

    /// Adds a zero-filled region and maps it for `cores` (all when `None`).
    /// The base must be page-aligned; the region must not overlap another
    /// region visible to the same core.
    pub fn add_region(
        &mut self,
        name: impl Into<String>,
        kind: RegionKind,
        base: u32,
        size: u32,
        perms: Perms,
        cores: Option<&[usize]>,
    ) -> usize {
        assert!(base.is_multiple_of(PAGE_SIZE), "region base {base:#x} is not 64 KiB aligned");
        assert!(size > 0 && u64::from(base) + u64::from(size) <= 1 << 32, "region {base:#x}+{size:#x}");
        let index = self.regions.len();
        self.regions.push(Region {
            name: name.into(),
            kind,
            base,
            size,
            perms,
            data: ZeroedBytes::zeroed(size as usize),
        });
        let all: Vec<usize> = (0..self.tables.len()).collect();
        for &core in cores.unwrap_or(&all) {
            self.map(core, index);
        }
        index
    }

    fn map(&mut self, core: usize, index: usize) {
        self.layout_epoch += 1;
        let region = &self.regions[index];
        let pages = region.size.div_ceil(PAGE_SIZE);
        for i in 0..pages {
            let page_index = (region.base >> PAGE_SHIFT) + i;
            let offset = i * PAGE_SIZE;
            let flags = region.perms.flags();
            let slot = &mut self.tables[core][page_index as usize];
            assert!(slot.flags == 0, "region {} overlaps another for core {core}", region.name);
            let counted = self.page_slots.as_ref().is_some_and(|s| s[page_index as usize] != UNPRICED);
            let flags = if counted { flag::counted(flags) } else { flags };
            *slot = Page { region: index as u16, flags, offset };
        }
    }

    /// Says that `[addr, addr + len)` of region `index` will be written
    /// densely (see [`crate::dense`]); ignored outside the region.
    pub fn expect_dense(&mut self, index: usize, addr: u32, len: usize) {
        let region = &mut self.regions[index];
        let off = addr.wrapping_sub(region.base) as usize;
        if let Some(bytes) = region.data.get_mut(off..off.saturating_add(len)) {
            crate::dense::advise(bytes);
        }
    }

    /// The region holding `addr` as seen by `core`.
    pub fn region_for(&self, core: usize, addr: u32) -> Option<usize> {
        let page = self.tables[core][(addr >> PAGE_SHIFT) as usize];
        if page.flags == 0 {
            return None;
        }
        let region = &self.regions[usize::from(page.region)];
        region.contains(addr).then_some(usize::from(page.region))
    }

    /// Any region holding `addr`, whoever owns it (for reports and the host).
    pub fn any_region(&self, addr: u32) -> Option<&Region> {
        self.regions.iter().find(|r| r.contains(addr))
    }

    #[inline(always)]
    fn page(&self, core: usize, addr: u32) -> Page {
        // Tables have exactly 2^16 entries, so the index is always in range.
        self.tables[core][(addr >> PAGE_SHIFT) as usize]
    }

    /// Reads `N` bytes for `core`; alignment is the caller's business.
    #[inline(always)]
    pub fn load<const N: usize>(&mut self, core: usize, pc: u32, addr: u32) -> Result<[u8; N], MemFault> {
        match self.read_page(core, pc, addr, flag::READ) {
            Some(out) => Ok(out),
            None => self.load_counted(core, pc, addr),
        }
    }

    /// [`Memory::load`] from a page whose accesses are counted, or the fault.
    #[cold]
    #[inline(never)]
    fn load_counted<const N: usize>(&mut self, core: usize, pc: u32, addr: u32) -> Result<[u8; N], MemFault> {
        match self.read_page(core, pc, addr, flag::COUNTED_READ) {
            Some(out) => {
                self.count(core, addr, N as u32);
                Ok(out)
            }
            None => Err(self.fault(core, addr, N, AccessKind::Load, flag::READ)),
        }
    }

    /// The `N` bytes at `addr` when its page has the permission bit `need`
    /// and holds them, told to the checker when it watches the page.
    #[inline(always)]
    fn read_page<const N: usize>(&mut self, core: usize, pc: u32, addr: u32, need: u8) -> Option<[u8; N]> {
        let page = self.page(core, addr);
        if page.flags & need == 0 {
            return None;
        }
        let off = (page.offset + (addr & (PAGE_SIZE - 1))) as usize;
        // Raw and atomic: cores on other threads may access the same bytes
        // (see `crate::zeroed::SharedView`).
        let (data, len) = self.regions[usize::from(page.region)].data.raw();
        if off + N > len {
            return None;
        }
        // SAFETY: `off + N` is within the region's live buffer.
        #[allow(unsafe_code)]
        let out = unsafe { crate::zeroed::read_relaxed::<N>(data.add(off)) };
        if page.flags & (flag::CHECKED | flag::STACK | flag::WATCHED) != 0 {
            if page.flags & flag::WATCHED != 0 {
                self.watched_load(core, pc, addr, N as u32);
            }
            if let Some(checker) = &mut self.checker {
                if page.flags & flag::CHECKED != 0 {
                    checker.on_load(core, pc, addr, N as u32);
                } else if page.flags & flag::STACK != 0 && checker.stack_unwritten(core, addr, N as u32) {
                    self.uninit_stack_load(core, pc, addr);
                }
            }
        }
        Some(out)
    }

    /// A load of stack bytes no store wrote: the checker decides, from the
    /// code at `pc`, whether it is a finding.
    #[cold]
    #[inline(never)]
    fn uninit_stack_load(&mut self, core: usize, pc: u32, addr: u32) {
        let mut code = [0u8; crate::checks::USE_TEST_CODE];
        let n = self.fetch(core, pc, &mut code).unwrap_or(0);
        if let Some(checker) = &mut self.checker {
            checker.uninit_stack_load(core, pc, addr, &code[..n]);
        }
    }

    /// Writes `N` bytes for `core`.
    #[inline(always)]
    pub fn store<const N: usize>(&mut self, core: usize, pc: u32, addr: u32, value: [u8; N]) -> Result<(), MemFault> {
        if self.write_page(core, pc, addr, value, flag::WRITE) {
            return Ok(());
        }
        self.store_counted(core, pc, addr, value)
    }

    /// [`Memory::store`] to a page whose accesses are counted, or the fault.
    #[cold]
    #[inline(never)]
    fn store_counted<const N: usize>(
        &mut self,
        core: usize,
        pc: u32,
        addr: u32,
        value: [u8; N],
    ) -> Result<(), MemFault> {
        if self.write_page(core, pc, addr, value, flag::COUNTED_WRITE) {
            self.count(core, addr, N as u32);
            return Ok(());
        }
        Err(self.fault(core, addr, N, AccessKind::Store, flag::WRITE))
    }

    /// Stores `value` at `addr` when its page has the permission bit `need`
    /// and holds the bytes (true), told to the checker when it watches the
    /// page and to the code tracker when the bytes were decoded.
    #[inline(always)]
    fn write_page<const N: usize>(&mut self, core: usize, pc: u32, addr: u32, value: [u8; N], need: u8) -> bool {
        let page = self.page(core, addr);
        if page.flags & need == 0 {
            return false;
        }
        let off = (page.offset + (addr & (PAGE_SIZE - 1))) as usize;
        let (data, len) = self.regions[usize::from(page.region)].data.raw();
        if off + N > len {
            return false;
        }
        // SAFETY: as in `read_page`.
        #[allow(unsafe_code)]
        unsafe {
            crate::zeroed::write_relaxed::<N>(data.add(off), value)
        };
        if page.flags & (flag::CHECKED | flag::STACK) != 0 {
            if let Some(checker) = &mut self.checker {
                if page.flags & flag::CHECKED != 0 {
                    checker.on_store(core, pc, addr, N as u32);
                } else {
                    checker.on_stack_store(core, addr, N as u32);
                }
            }
        }
        let last = addr.wrapping_add(N as u32 - 1);
        if self.granule_has_code(addr) || self.granule_has_code(last) {
            self.note_code_write(addr, N as u32);
        }
        true
    }

    /// Why an access the fast path refused fails.
    #[cold]
    fn fault(&self, core: usize, addr: u32, size: usize, access: AccessKind, need: u8) -> MemFault {
        match self.resolve(core, addr, size, access, need) {
            Err(fault) => fault,
            // Cannot happen: the fast path takes every access `resolve`
            // allows. Report it as unmapped rather than panic.
            Ok(_) => MemFault { addr, size: size as u8, access, kind: FaultKind::Unmapped },
        }
    }

    /// Region index and offset of a `size`-byte access, or the fault.
    fn resolve(
        &self,
        core: usize,
        addr: u32,
        size: usize,
        access: AccessKind,
        need: u8,
    ) -> Result<(usize, usize), MemFault> {
        let fault = |kind| MemFault { addr, size: size as u8, access, kind };
        let page = self.page(core, addr);
        if page.flags == 0 {
            return Err(fault(FaultKind::Unmapped));
        }
        let index = usize::from(page.region);
        let region = &self.regions[index];
        let off = (addr - region.base) as usize;
        if off + size > region.size as usize {
            // Either past the region's end, or straddling into the next page
            // (which may belong to another region): both are faults here.
            return Err(fault(FaultKind::Unmapped));
        }
        if page.flags & need == 0 {
            return Err(fault(FaultKind::Permission));
        }
        Ok((index, off))
    }

    /// Copies instruction bytes for decoding: up to `buf.len()` bytes from
    /// `addr`, stopping at the end of the executable region. Returns how many
    /// bytes were copied.
    pub fn fetch(&self, core: usize, addr: u32, buf: &mut [u8]) -> Result<usize, MemFault> {
        let (index, off) = self.resolve(core, addr, 1, AccessKind::Fetch, flag::EXEC)?;
        let data = &self.regions[index].data;
        let n = buf.len().min(data.len() - off);
        buf[..n].copy_from_slice(&data[off..off + n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_regions_per_core() {
        let mut mem = Memory::new(2);
        mem.add_region("tcm0", RegionKind::Tcm { core: 0 }, 0x9000_0000, 0x4000, Perms::RW, Some(&[0]));
        mem.add_region("tcm1", RegionKind::Tcm { core: 1 }, 0x9000_0000, 0x4000, Perms::RW, Some(&[1]));
        mem.store(0, 0, 0x9000_0010, 7u32.to_le_bytes()).unwrap();
        mem.store(1, 0, 0x9000_0010, 9u32.to_le_bytes()).unwrap();
        assert_eq!(mem.load::<4>(0, 0, 0x9000_0010).unwrap(), 7u32.to_le_bytes());
        assert_eq!(mem.load::<4>(1, 0, 0x9000_0010).unwrap(), 9u32.to_le_bytes());
        // The 16 KiB region ends inside its page.
        let fault = mem.load::<4>(0, 0, 0x9000_4000).unwrap_err();
        assert_eq!(fault.kind, FaultKind::Unmapped);
        assert!(mem.explain_fault(0, &fault).contains("past the end of tcm0"));
    }

    #[test]
    fn dense_advice_keeps_contents_and_ignores_bad_ranges() {
        let mut mem = Memory::new(1);
        let size = 8 << 20;
        let tensor = mem.add_region("tensor", RegionKind::Tensor, 0xc000_0000, size, Perms::RW, None);
        mem.host_write(0xc000_0000, &[7; 16]).unwrap();
        mem.expect_dense(tensor, 0xc000_0000, size as usize);
        mem.expect_dense(tensor, 0xc000_0000, usize::MAX);
        mem.expect_dense(tensor, 0xb000_0000, 16);
        assert_eq!(mem.host_read(0xc000_0000, 17).unwrap(), [[7; 16].as_slice(), &[0]].concat());
        let mut buffer = Vec::with_capacity(4 << 20);
        crate::dense::advise_spare(&mut buffer);
        buffer.resize(4 << 20, 1u8);
        assert!(buffer.iter().all(|&b| b == 1));
    }

    #[test]
    fn taking_bytes_empties_the_region() {
        let mut mem = Memory::new(1);
        let tensor = mem.add_region("tensor", RegionKind::Tensor, 0xc000_0000, 0x2_0000, Perms::RW, None);
        mem.host_write(0xc001_0000, &[1, 2, 3, 4, 5]).unwrap();
        assert!(mem.take_bytes_for(0, 0xc001_fffe, 4).is_err());
        assert_eq!(mem.take_bytes_for(0, 0xc001_0001, 3).unwrap(), [2, 3, 4]);
        assert_eq!(mem.regions[tensor].size, 0);
        assert!(mem.host_read(0xc001_0000, 1).is_err());
        assert!(mem.load::<1>(0, 0, 0xc000_0000).is_err());
    }

    #[test]
    fn counted_pages_count_every_access_and_stay_direct_for_compiled_code() {
        let mut mem = Memory::new(2);
        mem.add_region("counted", RegionKind::Tensor, 0x10_0000, 0x100, Perms::RW, None);
        mem.add_region("plain", RegionKind::Ram, 0x20_0000, 0x100, Perms::RW, None);
        mem.add_region("rom", RegionKind::Rom, 0x30_0000, 0x100, Perms::RX, None);
        // Slot 2 for the first and third region's pages, else unpriced.
        mem.count_accesses(|base| if base == 0x10_0000 || base == 0x30_0000 { 2 } else { UNPRICED });
        mem.store(1, 0, 0x10_0010, 7u32.to_le_bytes()).unwrap();
        assert_eq!(mem.load::<2>(1, 0, 0x10_0010).unwrap(), [7, 0]);
        mem.load::<1>(0, 0, 0x10_0011).unwrap();
        mem.store(0, 0, 0x20_0000, [1u8]).unwrap();
        let core1 = mem.counts(1);
        assert_eq!((core1.accesses[2], core1.bytes[2]), (2, 6));
        assert_eq!((mem.counts(0).accesses[2], mem.counts(0).accesses[UNPRICED as usize]), (1, 0));
        mem.uncount(1, 0x10_0010);
        assert_eq!((mem.counts(1).accesses[2], mem.counts(1).bytes[2]), (1, 2));
        // Permissions and bounds hold as before.
        let fault = mem.store(0, 0, 0x30_0000, [1u8]).unwrap_err();
        assert_eq!(fault.kind, FaultKind::Permission);
        assert_eq!(mem.load::<4>(0, 0, 0x10_00fe).unwrap_err().kind, FaultKind::Unmapped);
        // Compiled code reads and writes counted pages directly (it counts
        // its own accesses).
        let (ptr, read, write) = mem.host_page(0, 0x10);
        assert!(!ptr.is_null() && read == 0x100 && write == 0x100);
        assert_eq!(mem.host_page(0, 0x30).2, 0, "a read-only page stays read-only");
    }

    #[test]
    fn code_writes_bump_the_epoch() {
        let mut mem = Memory::new(1);
        mem.add_region("ram", RegionKind::Ram, 0, 0x20000, Perms::RWX, None);
        mem.mark_code(0x100, 0x110);
        let before = mem.code_epoch;
        mem.store(0, 0, 0x200, [1u8]).unwrap();
        assert_eq!(mem.code_epoch, before);
        mem.store(0, 0, 0x10e, [1u8, 2]).unwrap();
        assert_eq!(mem.code_epoch, before + 1);
        // A range across a granule boundary marks both sides, not past it.
        mem.mark_code(0xffe, 0x1002);
        let before = mem.code_epoch;
        mem.store(0, 0, 0x1002, [1u8]).unwrap();
        mem.store(0, 0, 0xffc, [1u8, 2]).unwrap();
        assert_eq!(mem.code_epoch, before);
        mem.store(0, 0, 0x1001, [1u8]).unwrap();
        assert_eq!(mem.code_epoch, before + 1);
        mem.mark_code(0xffe, 0x1002);
        mem.store(0, 0, 0xffe, [1u8]).unwrap();
        assert_eq!(mem.code_epoch, before + 2);
    }
}
