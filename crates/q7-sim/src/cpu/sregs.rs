//! Special and user registers: `rsr`/`wsr`/`xsr`/`rur`/`wur` semantics.

use q7_isa::regs;

use crate::cpu::Cpu;
use crate::ps;

/// Special register numbers the simulator gives meaning to.
pub(crate) mod sr {
    pub const LBEG: u8 = 0;
    pub const LEND: u8 = 1;
    pub const LCOUNT: u8 = 2;
    pub const SAR: u8 = 3;
    pub const BR: u8 = 4;
    pub const SCOMPARE1: u8 = 12;
    /// MAC16's accumulator (ACCHI: 8 bits, sign-extended) and M0..M3.
    pub const ACCLO: u8 = 16;
    pub const ACCHI: u8 = 17;
    pub const M0: u8 = 32;
    pub const ATOMCTL: u8 = 99;
    pub const WINDOWBASE: u8 = 72;
    pub const WINDOWSTART: u8 = 73;
    pub const EPC1: u8 = 177;
    pub const DEPC: u8 = 192;
    pub const CPENABLE: u8 = 224;
    pub const PS: u8 = 230;
    pub const VECBASE: u8 = 231;
    pub const EXCCAUSE: u8 = 232;
    pub const CCOUNT: u8 = 234;
    pub const PRID: u8 = 235;
    pub const EXCVADDR: u8 = 238;
}

/// Bits of FCR that hold state (rounding mode and exception enables).
const FCR_MASK: u32 = 0x7f;
/// Bits of FSR that hold state (the sticky exception flags).
const FSR_MASK: u32 = 0xf80;

impl Cpu {
    pub(crate) fn read_sr(&self, n: u8) -> u32 {
        if let Some(value) = self.read_interrupt_register(n) {
            return value;
        }
        if n == super::mmu::reg::PTEVADDR && self.tlbs.is_some() {
            // QEMU composes it on reading: the page-table base with the
            // PTE address of the last faulting EXCVADDR.
            return (self.other_sr[usize::from(n)] | self.excvaddr >> 10) & !3;
        }
        match n {
            sr::LBEG => self.lbeg,
            sr::LEND => self.lend,
            sr::LCOUNT => self.lcount,
            sr::SAR => self.sar,
            sr::BR => self.br,
            sr::SCOMPARE1 => self.scompare1,
            sr::ATOMCTL => self.atomctl,
            sr::WINDOWBASE => self.windowbase,
            sr::WINDOWSTART => self.windowstart,
            sr::EPC1 => self.epc1,
            sr::DEPC => self.depc,
            sr::CPENABLE => self.cpenable,
            sr::PS => self.ps,
            sr::VECBASE => self.vecbase,
            sr::EXCCAUSE => self.exccause,
            // A cycle counter that follows the cost model.
            sr::CCOUNT => self.cycles as u32,
            sr::PRID => self.prid,
            sr::EXCVADDR => self.excvaddr,
            _ => self.other_sr[usize::from(n)],
        }
    }

    pub(crate) fn write_sr(&mut self, n: u8, value: u32) {
        if self.write_interrupt_register(n, value) {
            return;
        }
        if let (Some(tlbs), Some(value)) = (self.tlbs.as_deref_mut(), super::mmu::written(n, value)) {
            tlbs.changed |= n != super::mmu::reg::PTEVADDR;
            self.other_sr[usize::from(n)] = value;
            self.update_translating();
            return;
        }
        match n {
            sr::LBEG => self.lbeg = value,
            sr::LEND => self.lend = value,
            sr::LCOUNT => self.lcount = value,
            sr::SAR => self.sar = value & 0x3f,
            sr::BR => self.br = value & 0xffff,
            sr::SCOMPARE1 => self.scompare1 = value,
            sr::ACCHI => self.other_sr[usize::from(n)] = value as i8 as u32,
            sr::ATOMCTL => self.atomctl = value & 0x3f,
            sr::WINDOWBASE => self.set_windowbase(value),
            sr::WINDOWSTART => {
                self.windowstart = value & ((1u32 << self.frames()) - 1);
                self.update_window_check();
            }
            sr::EPC1 => self.epc1 = value,
            sr::DEPC => self.depc = value,
            sr::CPENABLE => self.cpenable = value & 0xff,
            sr::PS => self.set_ps(value),
            sr::VECBASE => self.vecbase = value & !0x3ff,
            sr::EXCCAUSE => self.exccause = value & 0x3f,
            sr::CCOUNT => {}
            sr::PRID => {}
            sr::EXCVADDR => self.excvaddr = value,
            _ => self.other_sr[usize::from(n)] = value,
        }
    }

    pub(crate) fn set_ps(&mut self, value: u32) {
        self.ps = value & ps::WRITABLE;
        self.update_window_check();
        self.update_translating();
        // A lower PS.INTLEVEL or a cleared EXCM may let one in.
        self.check_interrupts_soon();
    }

    pub(crate) fn read_ur(&self, n: u8) -> u32 {
        match n {
            regs::THREADPTR => self.threadptr,
            regs::FCR => self.fcr,
            regs::FSR => self.fsr,
            _ => 0,
        }
    }

    pub(crate) fn write_ur(&mut self, n: u8, value: u32) {
        match n {
            regs::THREADPTR => self.threadptr = value,
            regs::FCR => self.fcr = value & FCR_MASK,
            regs::FSR => self.fsr = value & FSR_MASK,
            _ => {}
        }
    }
}
