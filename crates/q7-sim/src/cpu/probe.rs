//! Whether a core spins forever: a look ahead on a copy of its state that
//! proves the core returns to exactly where it is without writing memory.
//!
//! A deterministic core whose state recurs, having stored nothing on the
//! way, repeats that cycle for as long as memory stays as it is. When every
//! running core of a machine is in such a cycle, no core will ever write
//! again, so memory never changes and the machine is deadlocked: the
//! machine asks each core with [`Core::spins_without_storing`].
//!
//! The copy executes one instruction at a time (one-op blocks decoded on the
//! side, so the core's block cache and the marks of decoded code stay as
//! they were), and gives up at the first op that could write memory or
//! reach the outside (`Kind::touches_only_registers_and_loads`: stores, `simcall`, exceptions, special-register
//! writes), or after `max_steps`.

use std::collections::hash_map::{Entry, HashMap};

use crate::block::{build_one, Block, Fetcher};
use crate::cpu::{Core, Cpu};
use crate::mem::Memory;

impl Core {
    /// True when this core, from its current state, comes back to that
    /// exact state within `max_steps` instructions without an op that could
    /// write memory or reach the outside. Leaves the machine as it was:
    /// the checker and the access counters see nothing of the look ahead.
    pub fn spins_without_storing(&self, mem: &mut Memory, max_steps: u64) -> bool {
        mem.unobserved(|mem| self.cpu.spins_without_storing(mem, max_steps))
    }
}

impl Cpu {
    fn spins_without_storing(&self, mem: &mut Memory, max_steps: u64) -> bool {
        let mut copy = self.architectural_copy();
        let mut blocks: HashMap<u32, Block> = HashMap::new();
        for _ in 0..max_steps {
            let block = match blocks.entry(copy.pc) {
                Entry::Occupied(known) => known.into_mut(),
                Entry::Vacant(slot) => {
                    let fetcher = Fetcher { core: copy.id, isa: &copy.config.isa, lend: copy.lend, hooks: &[] };
                    match build_one(copy.pc, fetcher, mem) {
                        Ok(block) => slot.insert(block),
                        Err(_) => return false,
                    }
                }
            };
            if !block.ops.iter().all(|op| op.kind.touches_only_registers_and_loads()) {
                return false;
            }
            let exceptions = copy.exceptions;
            if copy.exec_block(mem, block, 1, false).is_err() || copy.exceptions != exceptions {
                return false;
            }
            if copy.same_state(self) {
                return true;
            }
        }
        false
    }

    /// This core's architectural state, without the JIT's context (the copy
    /// interprets).
    pub(crate) fn architectural_copy(&self) -> Cpu {
        Cpu {
            id: self.id,
            config: self.config.clone(),
            pc: self.pc,
            ar: self.ar,
            phys: self.phys,
            windowbase: self.windowbase,
            windowstart: self.windowstart,
            free_frames: self.free_frames,
            ps: self.ps,
            sar: self.sar,
            lbeg: self.lbeg,
            lend: self.lend,
            lcount: self.lcount,
            br: self.br,
            fr: self.fr,
            fr_hi: self.fr_hi,
            fcr: self.fcr,
            fsr: self.fsr,
            epc1: self.epc1,
            depc: self.depc,
            exccause: self.exccause,
            excvaddr: self.excvaddr,
            vecbase: self.vecbase,
            cpenable: self.cpenable,
            prid: self.prid,
            scompare1: self.scompare1,
            atomctl: self.atomctl,
            other_sr: self.other_sr,
            other_ur: self.other_ur,
            threadptr: self.threadptr,
            irq: self.irq.clone(),
            region_attr: self.region_attr,
            tlbs: self.tlbs.clone(),
            translating: self.translating,
            insns: self.insns,
            cycles: self.cycles,
            exceptions: self.exceptions,
            stack_guard: self.stack_guard,
            next_pc: self.next_pc,
            taken: self.taken,
            jit: None,
        }
    }

    /// Whether two states of one core are the same, counters aside.
    fn same_state(&self, other: &Cpu) -> bool {
        self.pc == other.pc
            && self.ar == other.ar
            && self.register_file() == other.register_file()
            && self.windowbase == other.windowbase
            && self.windowstart == other.windowstart
            && self.ps == other.ps
            && self.sar == other.sar
            && (self.lbeg, self.lend, self.lcount) == (other.lbeg, other.lend, other.lcount)
            && self.br == other.br
            && self.fr == other.fr
            && (self.fcr, self.fsr) == (other.fcr, other.fsr)
            && (self.epc1, self.depc, self.exccause, self.excvaddr)
                == (other.epc1, other.depc, other.exccause, other.excvaddr)
            && (self.vecbase, self.cpenable, self.scompare1, self.atomctl)
                == (other.vecbase, other.cpenable, other.scompare1, other.atomctl)
            && self.threadptr == other.threadptr
            && self.other_sr == other.other_sr
            && self.region_attr == other.region_attr
            && (self.irq.intset, self.irq.intenable, self.irq.ccompare)
                == (other.irq.intset, other.irq.intenable, other.irq.ccompare)
    }
}

impl Cpu {
    /// The physical register file with the current view written back (the
    /// view's slots in `phys` are stale until a rotation).
    pub fn register_file(&self) -> [u32; 64] {
        let mut file = self.phys;
        let nareg = (self.config.nareg as usize).min(file.len());
        let from = self.windowbase as usize * 4;
        for (i, &value) in self.ar.iter().enumerate() {
            file[(from + i) & (nareg - 1)] = value;
        }
        file
    }
}
