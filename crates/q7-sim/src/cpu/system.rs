//! The interpreter's system instructions beside the big match: register
//! transfers (`rsr`/`wsr`/`xsr`/`rur`/`wur`) checked against the core's
//! registers, the transfers of registers past the decoder, MAC16, and the
//! TLB instructions under region protection.

use crate::block::undecodable_reason;
use crate::cpu::exec::{op_bytes, Step};
use crate::cpu::sregs::sr;
use crate::cpu::Cpu;
use crate::mem::Memory;
use crate::stop::{cause, Stop};
use crate::uop::{Kind, Op};

impl Cpu {
    /// The TLB instructions under region protection with an identity map,
    /// as QEMU's de212: eight 512 MiB regions, each with a 4-bit attribute
    /// (reset 2, bypass) per side. `r?tlb0` gives the region's address,
    /// `r?tlb1` that with the attribute, `p?tlb` it with 1 (the one way),
    /// `w?tlb at, as` sets the attribute from at, `i?tlb` does nothing.
    /// Accesses check the attributes (`Cpu::translate`).
    pub(super) fn tlb(&mut self, op: &Op) -> Step {
        use crate::uop::tlb;
        if self.tlbs.is_some() {
            let (a, v) = (usize::from(op.a & 15), self.ar[usize::from(op.b & 15)]);
            if let Err((exc, vaddr)) = self.mmu_tlb(op.imm, a, v) {
                return Err(self.unhandled(op, exc, Some(vaddr)));
            }
            return Ok(());
        }
        if !self.config.region_protection {
            return Err(Stop::Unsupported { pc: op.pc, mnemonic: op.opcode.mnemonic() }.into());
        }
        let (a, address) = (usize::from(op.a & 15), self.ar[usize::from(op.b & 15)]);
        let (side, region) = ((op.imm & tlb::DATA) as usize, (address >> 29) as usize);
        let base = address & 0xe000_0000;
        match op.imm & !tlb::DATA {
            tlb::READ0 => self.ar[a] = base,
            tlb::READ1 => self.ar[a] = base | u32::from(self.region_attr[side][region]),
            tlb::PROBE => self.ar[a] = base | 1,
            tlb::WRITE => {
                self.region_attr[side][region] = (self.ar[a] & 0xf) as u8;
                self.update_translating();
            }
            _ => {}
        }
        Ok(())
    }

    /// MAC16 (as QEMU orders it): the load of the ldinc/lddec forms first
    /// (it may fault, changing nothing), then the 16 x 16 multiply into the
    /// 40-bit accumulator ACCHI:ACCLO (ACCHI sign-extended from 8 bits)
    /// from the operands as they were, then the base and M register.
    pub(super) fn mac16(&mut self, mem: &mut Memory, op: &Op) -> Step {
        use crate::uop::mac16;
        let p = op.imm;
        let loaded = match mac16::step(p) {
            0 => None,
            step => {
                let addr = self.ar[usize::from(op.c & 15)].wrapping_add_signed(step);
                Some((addr, self.load32(mem, op, addr)?))
            }
        };
        let operation = mac16::operation(p);
        if operation != mac16::NONE {
            let value = |cpu: &Cpu, which: u32, reg: u8| {
                let word = if mac16::from_m(p, which) {
                    cpu.read_sr(sr::M0 + (reg & 3))
                } else {
                    cpu.ar[usize::from(reg & 15)]
                };
                let half = if mac16::high(p, which) { word >> 16 } else { word & 0xffff };
                if operation == mac16::UMUL {
                    i64::from(half)
                } else {
                    i64::from(half as u16 as i16)
                }
            };
            let product = value(self, 0, op.a) * value(self, 1, op.b);
            let acc = i64::from(self.read_sr(sr::ACCHI) as i8) << 32 | i64::from(self.read_sr(sr::ACCLO));
            let acc = match operation {
                mac16::MULA => acc.wrapping_add(product),
                mac16::MULS => acc.wrapping_sub(product),
                _ => product,
            };
            self.write_sr(sr::ACCLO, acc as u32);
            self.write_sr(sr::ACCHI, (acc >> 32) as u32);
        }
        if let Some((addr, word)) = loaded {
            self.ar[usize::from(op.c & 15)] = addr;
            self.write_sr(sr::M0 + mac16::target(p) as u8, word);
        }
        Ok(())
    }

    /// `rsr`/`wsr`/`xsr`/`rur`/`wur`: IllegalInstruction for a register
    /// (or access) the core lacks; FCR and FSR need coprocessor 0 enabled,
    /// as the FP instructions do.
    #[cold]
    pub(super) fn register_access(&mut self, op: &Op) -> Step {
        use crate::config::RegisterAccess;
        let (a, n) = (usize::from(op.a & 15), op.imm as u8);
        let regs = &self.config.registers;
        let set = match op.kind {
            Kind::Rsr => &regs.read,
            Kind::Wsr => &regs.write,
            Kind::Xsr => &regs.exchange,
            Kind::Rur => &regs.ur_read,
            _ => &regs.ur_write,
        };
        if !RegisterAccess::has(set, n) {
            let why = format!("`{}` of register {n}, which this core lacks", op.opcode.mnemonic());
            let report = Stop::Illegal { pc: op.pc, bytes: op_bytes(op), why };
            return Err(self.exception(op, cause::ILLEGAL_INSTRUCTION, None, report));
        }
        let fp_state = matches!(n, q7_isa::regs::FCR | q7_isa::regs::FSR);
        if matches!(op.kind, Kind::Rur | Kind::Wur) && fp_state && self.cpenable & 1 == 0 {
            return Err(self.coprocessor0_disabled(op));
        }
        match op.kind {
            Kind::Rsr => self.ar[a] = self.read_sr(n),
            Kind::Wsr => self.write_sr(n, self.ar[a]),
            Kind::Xsr => {
                let old = self.read_sr(n);
                self.write_sr(n, self.ar[a]);
                self.ar[a] = old;
            }
            Kind::Rur => self.ar[a] = self.read_ur(n),
            _ => self.write_ur(n, self.ar[a]),
        }
        Ok(())
    }

    /// Bytes the decoder refuses: IllegalInstruction, except register
    /// transfers of registers the core has beyond the ISA options q7-isa
    /// decodes (the MMU's RASID and TLB configuration, EXPSTATE on QEMU's
    /// sample cores): those run, the registers kept as plain storage.
    #[cold]
    pub(super) fn undecodable(&mut self, op: &Op) -> Step {
        let word = op.imm;
        let kind = match word & 0xff_000f {
            0x03_0000 => Some(Kind::Rsr),
            0x13_0000 => Some(Kind::Wsr),
            0x61_0000 => Some(Kind::Xsr),
            0xe3_0000 => Some(Kind::Rur),
            0xf3_0000 => Some(Kind::Wur),
            _ => None,
        };
        if let (3, Some(kind)) = (op.len, kind) {
            let (n, a) = match kind {
                Kind::Rur => ((word >> 4) as u8, (word >> 12 & 15) as u8),
                _ => ((word >> 8) as u8, (word >> 4 & 15) as u8),
            };
            let regs = &self.config.registers;
            let set = match kind {
                Kind::Rsr => &regs.read,
                Kind::Wsr => &regs.write,
                Kind::Xsr => &regs.exchange,
                Kind::Rur => &regs.ur_read,
                _ => &regs.ur_write,
            };
            if crate::config::RegisterAccess::has(set, n) {
                let a = usize::from(a);
                match kind {
                    Kind::Rsr => self.ar[a] = self.read_sr(n),
                    Kind::Wsr => self.write_sr(n, self.ar[a]),
                    Kind::Xsr => {
                        let old = self.read_sr(n);
                        self.write_sr(n, self.ar[a]);
                        self.ar[a] = old;
                    }
                    Kind::Rur => self.ar[a] = self.other_ur[usize::from(n)],
                    _ => self.other_ur[usize::from(n)] = self.ar[a],
                }
                return Ok(());
            }
        }
        let report = Stop::Illegal { pc: op.pc, bytes: op_bytes(op), why: undecodable_reason(op.a).to_string() };
        Err(self.exception(op, cause::ILLEGAL_INSTRUCTION, None, report))
    }
}
