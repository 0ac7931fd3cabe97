//! The windowed call stack of a core, read from its state as a debugger
//! would: no record of calls is needed.
//!
//! Under the windowed ABI a function's `a0` holds its return address with
//! the caller's window increment (1..3 for `call4/8/12`) in the top two
//! bits; the caller's frame starts that many 4-register frames below. The
//! caller's `a0` and `a1` are in the physical register file while its
//! WINDOWSTART bit is set (and the walk has not gone round the file), else
//! a window overflow spilled them to the 16 bytes below the callee's stack
//! pointer (the base save area).

use crate::cpu::Cpu;
use crate::mem::Memory;

/// One frame of a call stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The pc (innermost frame) or the call instruction (callers).
    pub pc: u32,
    pub sp: u32,
    /// Where this frame's registers are (see [`Cpu::frame_register`]).
    pub registers: FrameRegisters,
}

/// Where a frame's address registers are. The innermost frame's are the
/// current window; a caller's own registers are the ones below its call's
/// window increment (those above became the callee's), in the physical
/// file while its window is live, else a0..a3 spilled below the callee's
/// stack pointer (the base save area).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameRegisters {
    Current,
    Live { windowbase: u32, count: u8 },
    Spilled { save_area: u32 },
}

/// Every windowed call is three bytes (`callN`, `callxN`).
const CALL_LEN: u32 = 3;

impl Cpu {
    /// The call stack, innermost frame first, at most `max` frames. It stops
    /// at a frame whose caller it cannot tell (a `call0` frame, a return
    /// address of 0, or a save area it cannot read).
    pub fn call_stack(&self, mem: &Memory, max: usize) -> Vec<Frame> {
        let frames = self.frames();
        let mut stack = vec![Frame { pc: self.pc, sp: self.ar[1], registers: FrameRegisters::Current }];
        let (mut pc, mut wb, mut a0, mut sp) = (self.pc, self.windowbase, self.ar[0], self.ar[1]);
        // Frames spill oldest first, so below the first spilled caller all
        // are spilled; and one turn round the register file down, its frames
        // hold newer calls' registers.
        let (mut live, mut walked) = (true, 0);
        while stack.len() < max {
            let increment = a0 >> 30;
            if increment == 0 || a0 & 0x3fff_ffff == 0 {
                break;
            }
            let return_pc = (pc & 0xc000_0000) | (a0 & 0x3fff_ffff);
            let caller_wb = wb.wrapping_sub(increment) & (frames - 1);
            walked += increment;
            live = live && walked < frames && self.windowstart & (1 << caller_wb) != 0;
            let registers = match live {
                true => FrameRegisters::Live { windowbase: caller_wb, count: 4 * increment as u8 },
                false => FrameRegisters::Spilled { save_area: sp.wrapping_sub(16) },
            };
            let (caller_a0, caller_sp) = if live {
                let base = caller_wb as usize * 4;
                (self.physical(base), self.physical(base + 1))
            } else {
                match mem.host_read_for(self.id, sp.wrapping_sub(16), 8) {
                    Ok(b) => {
                        (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), u32::from_le_bytes([b[4], b[5], b[6], b[7]]))
                    }
                    Err(_) => break,
                }
            };
            pc = return_pc.wrapping_sub(CALL_LEN);
            stack.push(Frame { pc, sp: caller_sp, registers });
            (wb, a0, sp) = (caller_wb, caller_a0, caller_sp);
        }
        stack
    }

    /// Register a`n` of `frame` (from [`Cpu::call_stack`]), when it still
    /// holds the frame's value.
    pub fn frame_register(&self, mem: &Memory, frame: &Frame, n: usize) -> Option<u32> {
        match frame.registers {
            FrameRegisters::Current => self.ar.get(n).copied(),
            FrameRegisters::Live { windowbase, count } => {
                (n < usize::from(count)).then(|| self.physical(windowbase as usize * 4 + n))
            }
            FrameRegisters::Spilled { save_area } if n < 4 => {
                let b = mem.host_read_for(self.id, save_area + 4 * n as u32, 4).ok()?;
                Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            FrameRegisters::Spilled { .. } => None,
        }
    }

    /// Physical register `n` (`n` counted from register 0 of the file),
    /// with the current view's registers taken from the view.
    fn physical(&self, n: usize) -> u32 {
        let nareg = (self.config.nareg as usize).min(self.phys.len());
        let n = n & (nareg - 1);
        let view = self.windowbase as usize * 4;
        match n.wrapping_sub(view) & (nareg - 1) {
            i if i < 16 => self.ar[i],
            _ => self.phys[n],
        }
    }
}
