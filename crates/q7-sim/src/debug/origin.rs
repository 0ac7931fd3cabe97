//! Where a value came from (Pernosco's question): the chain of stores,
//! loads and register moves behind the bytes at an address, back to bytes
//! no core wrote (an input tensor, or zero) or to the instruction that
//! computed them. Each store is found by a watchpoint run backwards; each
//! register's writer in the core's recent path, by its physical register
//! (so values passed into and out of calls are followed).

use q7_isa::Operand;

use super::{Arrival, Motion, Timeline, Watch};
use crate::block::{build_one, Fetcher};
use crate::cpu::Cpu;
use crate::uop::DataRegister;

/// One link of the chain, newest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// Core `core`'s store at `pc` wrote the bytes.
    Stored { core: usize, pc: u32, addr: u32, size: u32 },
    /// Core `core`'s load at `pc` read the value from `addr`.
    Loaded { core: usize, pc: u32, addr: u32, size: u32 },
    /// A move at `pc` copied it from another register.
    Moved { core: usize, pc: u32 },
    /// The instruction at `pc` computed it.
    Computed { core: usize, pc: u32 },
    /// No core wrote these bytes in this run: the host's (an input
    /// tensor) or memory never written.
    Unwritten { addr: u32, size: u32 },
    /// The chain goes back further than the debugger looked.
    Beyond { core: usize },
}

/// Instructions of a core's path searched for a register's writer.
const LOOK_BACK: u64 = 1 << 14;

/// The registers a core had before one of its steps.
struct Registers {
    steps: u64,
    pc: u32,
    windowbase: u32,
    file: [u32; 64],
    fr: [u32; 16],
}

/// A register as the physical file numbers it (`A`) or an FP register.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Physical {
    A(usize),
    F(usize),
}

impl Registers {
    fn value(&self, r: Physical) -> u32 {
        match r {
            Physical::A(p) => self.file[p],
            Physical::F(f) => self.fr[f],
        }
    }

    /// Window register a`n` as the physical register it is here.
    fn a(&self, n: u8, nareg: usize) -> Physical {
        Physical::A((self.windowbase as usize * 4 + usize::from(n & 15)) & (nareg - 1))
    }

    fn window(&self, nareg: usize) -> [u32; 16] {
        std::array::from_fn(|n| self.file[(self.windowbase as usize * 4 + n) & (nareg - 1)])
    }
}

impl Timeline {
    /// The chain behind the `size` bytes at `addr` as core `core` sees
    /// them now, at most `max` links. Comes back to the same point.
    pub fn origin(&mut self, core: usize, addr: u32, size: u32, max: usize) -> Vec<Link> {
        let back_to = self.time();
        let (watches, load_watches) = (std::mem::take(&mut self.watches), std::mem::take(&mut self.load_watches));
        let mut links = Vec::new();
        let mut bytes = Some((core, addr, size));
        while let Some((view, addr, size)) = bytes.take() {
            if links.len() >= max {
                break;
            }
            self.watches = vec![Watch { core: view, addr, len: size }];
            match self.reverse(Motion { watches: true, ..Motion::default() }) {
                Arrival::Watch { core, pc, .. } => {
                    links.push(Link::Stored { core, pc, addr, size });
                    bytes = self.register_origin(core, pc, &mut links, max);
                }
                _ => links.push(Link::Unwritten { addr, size }),
            }
        }
        (self.watches, self.load_watches) = (watches, load_watches);
        self.seek(back_to);
        links
    }

    /// Core `core` is about to run the store at `pc`: follows the stored
    /// register back to a load (whose bytes are then followed: returned)
    /// or the instruction that computed it.
    fn register_origin(
        &mut self,
        core: usize,
        pc: u32,
        links: &mut Vec<Link>,
        max: usize,
    ) -> Option<(usize, u32, u32)> {
        let nareg = self.machine.cores[core].cpu.config.nareg as usize;
        let now = Registers::of(&self.machine.cores[core].cpu);
        let op = self.op_at(core, pc)?;
        let mut wanted = match op.data_access(&now.window(nareg))?.register {
            DataRegister::A(n) => now.a(n, nareg),
            DataRegister::F(f) => Physical::F(usize::from(f)),
        };
        let path = self.replay_steps(core, LOOK_BACK, Registers::of);
        let mut after = &now;
        for before in path.iter().rev() {
            if links.len() >= max {
                return None;
            }
            if before.value(wanted) != after.value(wanted) {
                let op = self.op_at(core, before.pc)?;
                if let Some(access) = op.data_access(&before.window(nareg)).filter(|a| a.load) {
                    links.push(Link::Loaded { core, pc: before.pc, addr: access.addr, size: access.size });
                    self.seek_core(core, before.steps);
                    return Some((core, access.addr, access.size));
                }
                match self.moved_from(core, before, after.value(wanted), nareg) {
                    Some(source) => {
                        links.push(Link::Moved { core, pc: before.pc });
                        wanted = source;
                    }
                    None => {
                        links.push(Link::Computed { core, pc: before.pc });
                        return None;
                    }
                }
            }
            after = before;
        }
        links.push(Link::Beyond { core });
        None
    }

    /// When the instruction at `at.pc` is a move, the register it copied
    /// `value` from.
    fn moved_from(&self, core: usize, at: &Registers, value: u32, nareg: usize) -> Option<Physical> {
        let insn = self.instruction(core, at.pc)?;
        if !insn.mnemonic().starts_with("mov") {
            return None;
        }
        insn.operands().iter().skip(1).find_map(|operand| {
            let r = match *operand {
                Operand::Ar(n) => at.a(n, nareg),
                Operand::Fr(f) => Physical::F(usize::from(f & 15)),
                _ => return None,
            };
            (at.value(r) == value).then_some(r)
        })
    }

    fn op_at(&self, core: usize, pc: u32) -> Option<crate::uop::Op> {
        let cpu = &self.machine.cores[core].cpu;
        let fetcher = Fetcher { core, isa: &cpu.config.isa, lend: cpu.lend, hooks: &[] };
        build_one(pc, fetcher, &self.machine.mem).ok().and_then(|block| block.ops.first().copied())
    }
}

impl Registers {
    fn of(cpu: &Cpu) -> Registers {
        let (file, fr) = (cpu.register_file(), cpu.fr);
        Registers { steps: cpu.steps(), pc: cpu.pc, windowbase: cpu.windowbase, file, fr }
    }
}
