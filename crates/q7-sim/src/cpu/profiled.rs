//! The profiling run path: one op at a time, each priced and filed by
//! [`CoreProfile`]. Separate from the block loop so the normal path pays
//! nothing for it.

use crate::block::Block;
use crate::cost::insn_class;
use crate::cpu::{Cpu, Event};
use crate::mem::Memory;
use crate::profile::{Access, CoreProfile};
use crate::uop::{Kind, Op};

impl Cpu {
    /// Runs the first op of `block` (which starts at the pc) and files it.
    pub(crate) fn exec_op_profiled(
        &mut self,
        mem: &mut Memory,
        block: &Block,
        profile: &mut CoreProfile,
    ) -> Result<(), Event> {
        let Some(&op) = block.ops.first() else {
            return self.exec_block(mem, block, 0, false);
        };
        if self.overflows(op.frame) {
            self.exceptions += 1;
            self.window_overflow(op.pc);
            return Ok(());
        }
        let access = self.access_of(&op);
        let (insns, cycles) = (self.insns, self.cycles);
        self.taken = false;
        self.next_pc = op.next_pc();
        let result = match self.step(mem, &op) {
            Err(trap) => self.trap(std::slice::from_ref(&op), 0, trap),
            Ok(()) => {
                self.insns += 1;
                self.cycles += u64::from(op.cycles);
                self.advance();
                Ok(())
            }
        };
        if self.insns > insns {
            profile.retire(op.pc, insn_class(op.kind), self.cycles - cycles, access);
            match op.kind {
                Kind::CallN | Kind::CallxN | Kind::Call0 | Kind::Callx0 => profile.call(self.pc),
                Kind::Ret | Kind::Retw => profile.ret(),
                _ => {}
            }
        }
        result
    }

    /// The load or store `op` is about to make, from the registers now.
    fn access_of(&self, op: &Op) -> Option<Access> {
        let r = |n: u8| self.ar[usize::from(n & 15)];
        let (addr, bytes) = match op.kind {
            Kind::L8ui | Kind::S8i => (r(op.b).wrapping_add(op.imm), 1),
            Kind::L16ui | Kind::L16si | Kind::S16i => (r(op.b).wrapping_add(op.imm), 2),
            Kind::L32i | Kind::L32e | Kind::S32i | Kind::S32e | Kind::S32c1i => (r(op.b).wrapping_add(op.imm), 4),
            Kind::L32r => (op.target, 4),
            Kind::Lsi | Kind::Lsiu | Kind::Ssi | Kind::Ssiu => (r(op.b).wrapping_add(op.imm), 4),
            Kind::Lsx | Kind::Lsxu | Kind::Ssx | Kind::Ssxu => (r(op.b).wrapping_add(r(op.c)), 4),
            Kind::Lsip | Kind::Lsxp | Kind::Ssip | Kind::Ssxp => (r(op.b), 4),
            _ => return None,
        };
        Some(Access { addr, bytes })
    }
}
