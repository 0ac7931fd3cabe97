//! Raising an exception into the program's vectors (XEA2).

use crate::config::{vector, ExceptionModel};
use crate::cpu::Cpu;
use crate::ps;
use crate::stop::Stop;

impl Cpu {
    /// Raises a general exception at `pc` (XEA2). With the program's own
    /// vectors it vectors there; under the firmware model the core stops,
    /// except for Alloca, which the firmware services natively.
    pub(crate) fn raise(&mut self, pc: u32, exc: u32, vaddr: Option<u32>, report: Stop) -> Result<(), Stop> {
        if self.config.exceptions == ExceptionModel::Firmware {
            return Err(report);
        }
        if let Some(v) = vaddr {
            self.excvaddr = v;
        }
        self.exccause = exc;
        if self.ps & ps::EXCM != 0 {
            self.depc = pc;
            self.pc = self.vecbase.wrapping_add(vector::DOUBLE);
        } else {
            self.epc1 = pc;
            let offset = if self.ps & ps::UM != 0 { vector::USER } else { vector::KERNEL };
            self.set_ps(self.ps | ps::EXCM);
            self.pc = self.vecbase.wrapping_add(offset);
        }
        Ok(())
    }

    /// The first instruction of a block could not be fetched (`report`
    /// says why): a fetch from memory no one answers raises
    /// InstrPIFAddrError with EXCVADDR the address, as QEMU's boards do.
    #[cold]
    pub(crate) fn fetch_fault(&mut self, pc: u32, report: Stop) -> Result<(), Stop> {
        let Stop::Memory { fault, .. } = &report else { return Err(report) };
        let addr = fault.addr;
        self.raise_fetch(pc, crate::stop::cause::INSTR_PIF_ADDR_ERROR, addr, report)
    }

    /// A fetch the MMU refused (`exc`, at `vaddr`) raised at `pc`.
    #[cold]
    pub(crate) fn fetch_exception(&mut self, pc: u32, exc: u32, vaddr: u32) -> Result<(), Stop> {
        self.raise_fetch(pc, exc, vaddr, Stop::Unhandled { pc, cause: exc })
    }

    /// A fetch exception: raised like any, and counted (it retires no
    /// instruction of the block that was not fetched).
    fn raise_fetch(&mut self, pc: u32, exc: u32, vaddr: u32, report: Stop) -> Result<(), Stop> {
        self.raise(pc, exc, Some(vaddr), report)?;
        self.exceptions += 1;
        Ok(())
    }
}
