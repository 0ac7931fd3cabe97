//! The TLBs of the MMU option (QEMU's `de233_fpu`: the full MMU with
//! autorefill ways and a spanning way), as state the TLB instructions
//! read, write, probe and invalidate exactly as QEMU's `mmu_helper.c`
//! does: ITLB ways 0..6 and DTLB ways 0..9 (ways 0..3 four autorefill
//! entries of 4 KiB pages; way 4 four entries of 1, 4, 16 or 64 MiB;
//! way 5 four of 128 or 256 MiB; way 6 eight of 512 or 256 MiB (the
//! spanning way); ways 7..9 one 4 KiB entry each), with RASID, ITLBCFG,
//! DTLBCFG and PTEVADDR. At reset way 6 maps all 4 GiB to itself in
//! 512 MiB pages (ASID 1, ring 0, attribute 3: the state `-M sim` boots in).
//!
//! Translation is not applied: fetches, loads and stores keep using the
//! virtual address, which is right while the identity map stands (no
//! page-table walk, autorefill, ring or attribute checks on accesses).

use crate::cpu::Cpu;
use crate::uop::tlb;

/// The special registers of the MMU option.
pub(crate) mod reg {
    pub const PTEVADDR: u8 = 83;
    pub const RASID: u8 = 90;
    pub const ITLBCFG: u8 = 91;
    pub const DTLBCFG: u8 = 92;
}

/// RASID at reset: ASIDs 1..4 for rings 0..3.
pub(crate) const RASID_RESET: u32 = 0x0403_0201;

/// Exception causes a probe can raise.
const INST_TLB_MULTI_HIT: u32 = 17;
const LOAD_STORE_TLB_MULTI_HIT: u32 = 25;

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
        Tlbs { ways }
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
                    Err(()) => {
                        return Err((if data { LOAD_STORE_TLB_MULTI_HIT } else { INST_TLB_MULTI_HIT }, v));
                    }
                    Ok(Some((way, ring))) if ring >= (self.ps >> 6 & 3) => {
                        (v & 0xffff_f000) | way | if data { 0x10 } else { 0x8 }
                    }
                    Ok(_) => 0,
                };
            }
            tlb::WRITE => {
                if let Some((way, ei, vpn)) = spec {
                    let pte = self.ar[a];
                    let rasid = self.other_sr[usize::from(reg::RASID)];
                    let new = Entry {
                        vaddr: vpn,
                        paddr: pte & addr_mask(self.tlb_cfg(data), way),
                        asid: (rasid >> ((pte >> 1) & 0x18)) as u8,
                        attr: (pte & 0xf) as u8,
                    };
                    if let Some(tlbs) = self.tlbs.as_deref_mut() {
                        tlbs.ways[side][way as usize][ei] = new;
                    }
                }
            }
            _ => {
                if let (Some((way, ei, _)), Some(tlbs)) = (spec, self.tlbs.as_deref_mut()) {
                    tlbs.ways[side][way as usize][ei].asid = 0;
                }
            }
        }
        Ok(())
    }

    /// The way and ring of the one entry mapping `v` (`None`: a miss;
    /// `Err`: more than one).
    fn tlb_lookup(&self, v: u32, data: bool) -> Result<Option<(u32, u32)>, ()> {
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
                    hit = Some((way, ring));
                }
            }
        }
        Ok(hit)
    }
}

/// What a write of `value` to MMU register `n` stores (`None`: not one).
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
