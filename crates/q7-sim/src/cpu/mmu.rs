//! Region protection's access rights (QEMU's `de212`), and the TLBs of
//! the MMU option (QEMU's `de233_fpu`: the full MMU with
//! autorefill ways and a spanning way), as state the TLB instructions
//! read, write, probe and invalidate exactly as QEMU's `mmu_helper.c`
//! does: ITLB ways 0..6 and DTLB ways 0..9 (ways 0..3 four autorefill
//! entries of 4 KiB pages; way 4 four entries of 1, 4, 16 or 64 MiB;
//! way 5 four of 128 or 256 MiB; way 6 eight of 512 or 256 MiB (the
//! spanning way); ways 7..9 one 4 KiB entry each), with RASID, ITLBCFG,
//! DTLBCFG and PTEVADDR. At reset way 6 maps all 4 GiB to itself in
//! 512 MiB pages (ASID 1, ring 0, attribute 3: the state `-M sim` boots in).
//!
//! Accesses translate through them as QEMU's `get_physical_addr_mmu`:
//! a lookup (multi-hit and miss causes), on a miss the page-table walk
//! through PTEVADDR that autorefills ways 0..3 in turn (and sets
//! EXCVADDR), then the ring check against CRING and the attribute's
//! rights. While the TLBs are as reset and PS.RING is 0 all of that is
//! the identity with every right, so cores take the fast paths (the JIT
//! included) until a program changes either; from then on its core runs
//! through the interpreter, translating each fetch, load and store.

use crate::cpu::Cpu;
use crate::mem::Memory;
use crate::ps;
use crate::uop::tlb;

/// The special registers of the MMU option.
pub(crate) mod reg {
    pub const PTEVADDR: u8 = 83;
    pub const RASID: u8 = 90;
    pub const ITLBCFG: u8 = 91;
    pub const DTLBCFG: u8 = 92;
}

/// A region's attribute at reset under region protection (bypass, all
/// rights).
pub(crate) const REGION_RESET: u8 = 2;

/// RASID at reset: ASIDs 1..4 for rings 0..3.
pub(crate) const RASID_RESET: u32 = 0x0403_0201;

/// The exception causes of the MMU, instruction side then data side.
const TLB_MISS: [u32; 2] = [16, 24];
const TLB_MULTI_HIT: [u32; 2] = [17, 25];
const PRIVILEGE: [u32; 2] = [18, 26];
const FETCH_PROHIBITED: u32 = 20;
const LOAD_PROHIBITED: u32 = 28;
const STORE_PROHIBITED: u32 = 29;

/// What an access wants of a page.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Access {
    Fetch,
    Load,
    Store,
}

impl Access {
    fn data(self) -> bool {
        self != Access::Fetch
    }

    /// Whether `rights` (read, write, execute) allow this access; else
    /// the cause of the exception it raises.
    fn check(self, (read, write, exec): (bool, bool, bool)) -> Result<(), u32> {
        let granted = match self {
            Access::Fetch => exec,
            Access::Load => read,
            Access::Store => write,
        };
        if granted {
            Ok(())
        } else {
            Err(self.prohibited())
        }
    }

    fn prohibited(self) -> u32 {
        match self {
            Access::Fetch => FETCH_PROHIBITED,
            Access::Load => LOAD_PROHIBITED,
            Access::Store => STORE_PROHIBITED,
        }
    }
}

/// The rights (read, write, execute) of an MMU attribute (ISA 4.6.5.10:
/// below 12 readable, bit 0 executable, bit 1 writable; 13 reads and
/// writes, isolated; 12, 14 and 15 nothing).
fn mmu_rights(attr: u8) -> (bool, bool, bool) {
    match attr {
        0..=11 => (true, attr & 2 != 0, attr & 1 != 0),
        13 => (true, true, false),
        _ => (false, false, false),
    }
}

/// The rights of a region-protection attribute (ISA 4.6.3.3: 0 reads and
/// writes, 1, 2, 4 and 5 everything, 3 executes only, 14 reads and writes,
/// isolated; the rest nothing).
fn region_rights(attr: u8) -> (bool, bool, bool) {
    match attr {
        0 | 14 => (true, true, false),
        1 | 2 | 4 | 5 => (true, true, true),
        3 => (false, false, true),
        _ => (false, false, false),
    }
}

#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Entry {
    vaddr: u32,
    paddr: u32,
    asid: u8,
    attr: u8,
}

/// Both TLBs.
#[derive(Clone, Debug)]
pub(crate) struct Tlbs {
    ways: [[[Entry; 8]; 10]; 2],
    /// Autorefills so far: the next goes to way `(refills + 1) % 4`.
    refills: u32,
    /// Set by the first write that can make translation other than the
    /// reset identity (a TLB write or invalidation, RASID, a TLBCFG).
    pub(crate) changed: bool,
}

/// Ways per TLB (instruction, data).
const WAYS: [u32; 2] = [7, 10];

impl Tlbs {
    pub(crate) fn new() -> Tlbs {
        let mut ways = [[[Entry::default(); 8]; 10]; 2];
        for side in &mut ways {
            for (ei, entry) in side[6].iter_mut().enumerate() {
                let base = (ei as u32) << 29;
                *entry = Entry { vaddr: base, paddr: base, asid: 1, attr: 3 };
            }
        }
        Tlbs { ways, refills: 0, changed: false }
    }
}

/// A way's page-size selector from ITLBCFG/DTLBCFG.
fn page_size(cfg: u32, way: u32) -> u32 {
    match way {
        4 => cfg >> 16 & 3,
        5 => cfg >> 20 & 1,
        6 => cfg >> 24 & 1,
        _ => 0,
    }
}

/// The virtual-address bits a way translates.
fn addr_mask(cfg: u32, way: u32) -> u32 {
    match way {
        4 => 0xfff0_0000 << (page_size(cfg, way) * 2),
        5 => 0xf800_0000 << page_size(cfg, way),
        6 => 0xf000_0000 << (1 - page_size(cfg, way)),
        _ => 0xffff_f000,
    }
}

/// The VPN bits `r?tlb0` returns (the index bits cleared).
fn vpn_mask(cfg: u32, way: u32) -> u32 {
    match way {
        0..=3 => 0xffff_c000,
        4 => addr_mask(cfg, way) << 2,
        5 => addr_mask(cfg, way) << 2,
        6 => addr_mask(cfg, way) << 3,
        _ => 0xffff_f000,
    }
}

/// The entry of `way` that `v` selects, and its VPN.
fn split_way(cfg: u32, v: u32, way: u32) -> (u32, usize) {
    let ei = match way {
        0..=3 => v >> 12 & 3,
        4 => v >> (20 + page_size(cfg, way) * 2) & 3,
        5 => v >> (27 + page_size(cfg, way)) & 3,
        6 => v >> (29 - page_size(cfg, way)) & 7,
        _ => 0,
    };
    (v & addr_mask(cfg, way), ei as usize)
}

impl Cpu {
    fn tlb_cfg(&self, data: bool) -> u32 {
        self.other_sr[usize::from(if data { reg::DTLBCFG } else { reg::ITLBCFG })]
    }

    /// The way, entry and VPN a TLB instruction's address operand names.
    fn tlb_spec(&self, v: u32, data: bool) -> Option<(u32, usize, u32)> {
        let way = v & if data { 0xf } else { 0x7 };
        if way >= WAYS[usize::from(data)] {
            return None;
        }
        let (vpn, ei) = split_way(self.tlb_cfg(data), v, way);
        Some((way, ei, vpn))
    }

    /// The ring whose ASID is `asid` (4 when none is).
    fn ring_of(&self, asid: u8) -> u32 {
        let rasid = self.other_sr[usize::from(reg::RASID)];
        (0..4).find(|&i| (rasid >> (i * 8)) as u8 == asid).unwrap_or(4)
    }

    /// One TLB instruction on the MMU (`Err`: the exception cause and
    /// address of a multi-hit probe).
    pub(super) fn mmu_tlb(&mut self, op: u32, a: usize, v: u32) -> Result<(), (u32, u32)> {
        let data = op & tlb::DATA != 0;
        let side = usize::from(data);
        let Some(tlbs) = self.tlbs.as_deref() else { return Ok(()) };
        let spec = self.tlb_spec(v, data);
        let entry = spec.map(|(way, ei, _)| tlbs.ways[side][way as usize][ei]);
        match op & !tlb::DATA {
            tlb::READ0 => {
                let cfg = self.tlb_cfg(data);
                self.ar[a] = match (spec, entry) {
                    (Some((way, ..)), Some(e)) => (e.vaddr & vpn_mask(cfg, way)) | u32::from(e.asid),
                    _ => 0,
                };
            }
            tlb::READ1 => self.ar[a] = entry.map_or(0, |e| e.paddr | u32::from(e.attr)),
            tlb::PROBE => {
                let hit = self.tlb_lookup(v, data);
                self.ar[a] = match hit {
                    Err(()) => return Err((TLB_MULTI_HIT[side], v)),
                    Ok(Some((way, _, ring))) if ring >= (self.ps & ps::RING_MASK) >> ps::RING_SHIFT => {
                        (v & 0xffff_f000) | way | if data { 0x10 } else { 0x8 }
                    }
                    Ok(_) => 0,
                };
            }
            tlb::WRITE => {
                if let Some((way, ei, vpn)) = spec {
                    self.set_entry(data, way, ei, vpn, self.ar[a]);
                }
            }
            _ => {
                if let (Some((way, ei, _)), Some(tlbs)) = (spec, self.tlbs.as_deref_mut()) {
                    tlbs.ways[side][way as usize][ei].asid = 0;
                    tlbs.changed = true;
                    self.update_translating();
                }
            }
        }
        Ok(())
    }

    /// Writes entry `ei` of `way` from a PTE (physical page, ring in bits
    /// 4..5 naming the ASID through RASID, attribute in bits 0..3).
    fn set_entry(&mut self, data: bool, way: u32, ei: usize, vpn: u32, pte: u32) {
        let rasid = self.other_sr[usize::from(reg::RASID)];
        let new = Entry {
            vaddr: vpn,
            paddr: pte & addr_mask(self.tlb_cfg(data), way),
            asid: (rasid >> ((pte >> 1) & 0x18)) as u8,
            attr: (pte & 0xf) as u8,
        };
        if let Some(tlbs) = self.tlbs.as_deref_mut() {
            tlbs.ways[usize::from(data)][way as usize][ei] = new;
            tlbs.changed = true;
        }
        self.update_translating();
    }

    /// Whether every access translates to itself with every right: the
    /// TLBs as reset (or no MMU) and PS.RING 0. What lets a core skip
    /// [`Cpu::translate`] and run compiled code.
    #[inline(always)]
    pub(crate) fn untranslated(&self) -> bool {
        !self.translating
    }

    /// Recomputes [`Cpu::untranslated`] after a write to what it reads.
    pub(crate) fn update_translating(&mut self) {
        self.translating = match self.tlbs.as_deref() {
            // Region protection (or neither): every region as reset.
            None => self.region_attr != [[REGION_RESET; 8]; 2],
            Some(tlbs) => tlbs.changed || self.ps & ps::RING_MASK != 0,
        };
    }

    /// The physical address of `vaddr` for `access` (`Err`: the cause of
    /// the exception it raises, EXCVADDR being `vaddr`). A miss walks the
    /// page table and autorefills, as QEMU does.
    pub(crate) fn translate(&mut self, mem: &Memory, vaddr: u32, access: Access) -> Result<u32, u32> {
        if self.tlbs.is_none() {
            // Region protection (QEMU's `get_physical_addr_region`): no
            // translation on these boards, rights per 512 MiB region.
            let attr = self.region_attr[usize::from(access.data())][(vaddr >> 29) as usize];
            return access.check(region_rights(attr)).map(|()| vaddr);
        }
        let data = access.data();
        let side = usize::from(data);
        let cring = if self.ps & ps::EXCM != 0 { 0 } else { (self.ps & ps::RING_MASK) >> ps::RING_SHIFT };
        let (way, ei, ring) = match self.tlb_lookup(vaddr, data) {
            Err(()) => return Err(TLB_MULTI_HIT[side]),
            Ok(Some(hit)) => hit,
            Ok(None) => {
                let Some(pte) = self.page_table_entry(mem, vaddr) else { return Err(TLB_MISS[side]) };
                let Some(tlbs) = self.tlbs.as_deref_mut() else { return Ok(vaddr) };
                tlbs.refills = tlbs.refills.wrapping_add(1);
                let way = tlbs.refills & 3;
                let (vpn, ei) = split_way(self.tlb_cfg(data), vaddr, way);
                self.set_entry(data, way, ei, vpn, pte);
                self.excvaddr = vaddr;
                (way, ei, pte >> 4 & 3)
            }
        };
        self.entry_address(vaddr, access, cring, way, ei, ring)
    }

    /// The checks after a lookup found (`way`, `ei`) in `ring`.
    fn entry_address(
        &self,
        vaddr: u32,
        access: Access,
        cring: u32,
        way: u32,
        ei: usize,
        ring: u32,
    ) -> Result<u32, u32> {
        let data = access.data();
        if ring < cring {
            return Err(PRIVILEGE[usize::from(data)]);
        }
        let Some(tlbs) = self.tlbs.as_deref() else { return Ok(vaddr) };
        let entry = tlbs.ways[usize::from(data)][way as usize][ei];
        access.check(mmu_rights(entry.attr))?;
        Ok(entry.paddr | (vaddr & !addr_mask(self.tlb_cfg(data), way)))
    }

    /// The bytes of the instruction at `pc` (up to three; fewer at the
    /// end of memory), each page read through the ITLB (`Err`: the cause
    /// and the address of the fetch that faulted). The second page of an
    /// instruction that crosses one is translated only when the first
    /// byte's length needs it.
    pub(crate) fn fetch_translated(&mut self, mem: &Memory, pc: u32) -> Result<([u8; 3], usize), (u32, u32)> {
        let mut bytes = [0u8; 3];
        let first = self.translate(mem, pc, Access::Fetch).map_err(|c| (c, pc))?;
        let in_page = (0x1000 - (pc & 0xfff)).min(3) as usize;
        let fault = |addr| (crate::stop::cause::INSTR_PIF_ADDR_ERROR, addr);
        let n = mem.fetch(self.id, first, &mut bytes[..in_page]).map_err(|_| fault(pc))?;
        let len = usize::from(q7_isa::instruction_length(bytes[0], &self.config.isa).unwrap_or(3)).min(3);
        if n == in_page && len > n {
            let next = (pc | 0xfff).wrapping_add(1);
            let second = self.translate(mem, next, Access::Fetch).map_err(|c| (c, next))?;
            let more = mem.fetch(self.id, second, &mut bytes[n..len]).unwrap_or(0);
            return Ok((bytes, n + more));
        }
        Ok((bytes, n))
    }

    /// The PTE of `vaddr` from the page table at PTEVADDR, when the DTLB
    /// maps its address for a ring-0 load and memory answers there.
    fn page_table_entry(&self, mem: &Memory, vaddr: u32) -> Option<u32> {
        let at = (self.other_sr[usize::from(reg::PTEVADDR)] | vaddr >> 10) & !3;
        let (way, ei, ring) = self.tlb_lookup(at, true).ok()??;
        let paddr = self.entry_address(at, Access::Load, 0, way, ei, ring).ok()?;
        mem.host_read_u32_for(self.id, paddr).ok()
    }

    /// The way, entry and ring of the one entry mapping `v` (`None`: a
    /// miss; `Err`: more than one).
    fn tlb_lookup(&self, v: u32, data: bool) -> Result<Option<(u32, usize, u32)>, ()> {
        let Some(tlbs) = self.tlbs.as_deref() else { return Ok(None) };
        let cfg = self.tlb_cfg(data);
        let mut hit = None;
        for way in 0..WAYS[usize::from(data)] {
            let (vpn, ei) = split_way(cfg, v, way);
            let entry = tlbs.ways[usize::from(data)][way as usize][ei];
            if entry.vaddr == vpn && entry.asid != 0 {
                let ring = self.ring_of(entry.asid);
                if ring < 4 {
                    if hit.is_some() {
                        return Err(());
                    }
                    hit = Some((way, ei, ring));
                }
            }
        }
        Ok(hit)
    }
}

/// What a write of `value` to MMU register `n` stores (`None`: not one).
/// All but PTEVADDR change what translation gives.
pub(crate) fn written(n: u8, value: u32) -> Option<u32> {
    match n {
        reg::RASID => Some((value & 0xffff_ff00) | 1),
        reg::ITLBCFG | reg::DTLBCFG => Some(value & 0x0113_0000),
        reg::PTEVADDR => Some(value & 0xffc0_0000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn way_geometry() {
        // Way 6 at reset: 512 MiB pages, entry = the top three bits.
        assert_eq!(split_way(0, 0xa123_4567, 6), (0xa000_0000, 5));
        // 256 MiB pages with ITLBCFG bit 24.
        assert_eq!(split_way(1 << 24, 0xa123_4567, 6), (0xa000_0000, 2));
        assert_eq!(split_way(0, 0x0000_3456, 2), (0x3000, 3));
        assert_eq!(vpn_mask(0, 6), 0);
        assert_eq!(written(reg::RASID, 0x1234_5600), Some(0x1234_5601));
    }
}
