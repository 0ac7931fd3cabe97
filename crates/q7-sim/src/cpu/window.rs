//! The windowed register option: window rotation, the overflow check every
//! register access implies, and the semantics of `entry`, `retw`, `movsp`,
//! `rotw`, `rfwo` and `rfwu` (Xtensa ISA, "Windowed Register Option").
//!
//! WINDOWBASE counts 4-register frames; WINDOWSTART has one bit per frame
//! that starts a live call frame. An instruction naming a register in frame
//! `k` (a`4k`..a`4k+3`) while one of the frames WINDOWBASE+1..+k still starts
//! a live caller frame would clobber it: that is a window overflow, which
//! rotates to the oldest such frame and vectors to its spill handler. A
//! `retw` into a frame whose WINDOWSTART bit is clear (it was spilled) is a
//! window underflow, which vectors to the refill handler for its size.

use crate::config::{vector, ExceptionModel};
use crate::cpu::Cpu;
use crate::ps;
use crate::stop::Stop;
use crate::uop::Op;

impl Cpu {
    /// Moves the 16-register view to the window at `wb`.
    pub(crate) fn set_windowbase(&mut self, wb: u32) {
        // Calls rotate on every call and return: the view moves as four
        // frames of four registers (fixed-length moves, no call), each
        // wrapping around the physical file on its own.
        // NAREG is 32 or 64 (a power of two: indices wrap with a mask).
        let nareg = (self.config.nareg as usize).min(self.phys.len());
        let mask = nareg - 1;
        let from = (self.windowbase as usize * 4) & mask;
        for (k, frame) in self.ar.chunks_exact(4).enumerate() {
            let at = (from + 4 * k) & mask;
            self.phys[at..at + 4].copy_from_slice(frame);
        }
        self.windowbase = wb & (self.frames() - 1);
        let from = (self.windowbase as usize * 4) & mask;
        for (k, frame) in self.ar.chunks_exact_mut(4).enumerate() {
            let at = (from + 4 * k) & mask;
            frame.copy_from_slice(&self.phys[at..at + 4]);
        }
        self.update_window_check();
    }

    fn checks_on(&self) -> bool {
        self.ps & ps::WOE != 0 && self.ps & ps::EXCM == 0
    }

    /// WINDOWSTART rotated so bit 0 is the frame above WINDOWBASE.
    fn ws_above(&self) -> u32 {
        let frames = self.frames();
        let ws = self.windowstart | self.windowstart << frames;
        (ws >> (self.windowbase + 1)) & ((1 << frames) - 1)
    }

    /// Recomputes how many frames above the current one are free.
    pub(crate) fn update_window_check(&mut self) {
        self.free_frames = if self.checks_on() { (self.ws_above() | 0b1000).trailing_zeros() as u8 } else { 3 };
    }

    /// Does an instruction naming frame `frame` overflow the window?
    #[inline(always)]
    pub(crate) fn overflows(&self, frame: u8) -> bool {
        frame > self.free_frames
    }

    /// Raises the window overflow exception for the instruction at `pc`:
    /// rotates to the oldest live frame in the way and vectors to the spill
    /// handler for its size (4, 8 or 12 registers).
    pub(crate) fn window_overflow(&mut self, pc: u32) {
        let above = self.ws_above();
        let k = above.trailing_zeros() + 1;
        let size = (above >> k).trailing_zeros();
        let offset = match size {
            0 => vector::WINDOW_OVERFLOW4,
            1 => vector::WINDOW_OVERFLOW8,
            _ => vector::WINDOW_OVERFLOW12,
        };
        let owb = self.windowbase;
        self.epc1 = pc;
        self.ps = (self.ps & !ps::OWB_MASK) | owb << ps::OWB_SHIFT | ps::EXCM;
        self.set_windowbase(owb + k);
        self.pc = self.vecbase.wrapping_add(offset);
    }

    /// `entry as, frame`: allocate the callee's frame.
    pub(crate) fn entry(&mut self, pc: u32, stack_reg: u8, frame_size: u32) -> Result<bool, Stop> {
        let callinc = (self.ps & ps::CALLINC_MASK) >> ps::CALLINC_SHIFT;
        // The new stack pointer lands in register callinc·4 + as of the
        // caller's window, which must be free.
        if self.checks_on() && self.overflows(((callinc * 4 + u32::from(stack_reg)) / 4) as u8) {
            self.window_overflow(pc);
            return Ok(false);
        }
        let sp = self.ar[usize::from(stack_reg & 15)].wrapping_sub(frame_size);
        self.check_stack(pc, sp)?;
        let wb = self.windowbase + callinc;
        self.set_windowbase(wb);
        self.windowstart |= 1 << self.windowbase;
        self.ar[usize::from(stack_reg & 15)] = sp;
        self.update_window_check();
        Ok(true)
    }

    /// `entry` as compiled code runs it (`jit`'s window ops): done, as
    /// [`Cpu::entry`] does it, when that raises no window overflow and the
    /// new stack pointer passes the guard; else false with nothing changed
    /// (the interpreter then runs the op and raises or stops).
    pub(crate) fn entry_inline(&mut self, op: &Op) -> bool {
        let callinc = (self.ps & ps::CALLINC_MASK) >> ps::CALLINC_SHIFT;
        if self.checks_on() && self.overflows(((callinc * 4 + u32::from(op.b)) / 4) as u8) {
            return false;
        }
        let sp = self.ar[usize::from(op.b & 15)].wrapping_sub(op.imm);
        self.check_stack(op.pc, sp).is_ok() && matches!(self.entry(op.pc, op.b, op.imm), Ok(true))
    }

    /// `retw` as compiled code runs it: when it is legal, the next pc (the
    /// return address, or the underflow handler's vector: the interpreter
    /// too raises underflow as part of the op), having run it; else `None`
    /// with nothing changed.
    pub(crate) fn retw_inline(&mut self, op: &Op) -> Option<u32> {
        if self.illegal_retw().is_some() {
            return None;
        }
        self.retw(op.pc);
        Some(self.next_pc)
    }

    /// Frames above the current one that instructions may name without a
    /// window overflow (see [`Cpu::overflows`]).
    pub(crate) fn free_frames(&self) -> u8 {
        self.free_frames
    }

    pub(crate) fn check_stack(&self, pc: u32, sp: u32) -> Result<(), Stop> {
        if let Some(guard) = self.stack_guard {
            if sp < guard.floor && sp >= guard.window_base {
                return Err(Stop::StackOverflow { pc, sp, floor: guard.floor });
            }
        }
        Ok(())
    }

    /// Why a `retw` now would be illegal (it raises IllegalInstruction):
    /// window overflow disabled or in exception mode, no call increment in
    /// a0, or an increment that does not reach the nearest live frame below
    /// (ISA "Windowed Register Option"; QEMU checks the same).
    pub(crate) fn illegal_retw(&self) -> Option<String> {
        let a0 = self.ar[0];
        let n = a0 >> 30;
        if !self.checks_on() {
            return Some(format!("PS = {:#x}: window overflow disabled or exception mode", self.ps));
        }
        if n == 0 {
            return Some(format!("a0 = {a0:#010x} holds no call increment (not a windowed call)"));
        }
        // A power of two (NAREG / 4): frames wrap with a mask, not a
        // division (this runs on every retw).
        let frames = self.frames();
        let live_below =
            (1..=3).find(|&k| self.windowstart & (1 << ((self.windowbase + frames - k) & (frames - 1))) != 0);
        match live_below {
            Some(m) if m != n => {
                Some(format!("a0 = {a0:#010x} returns {n} frames down, but the caller's frame is {m} down"))
            }
            _ => None,
        }
    }

    /// `retw` (legal, see [`Cpu::illegal_retw`]): return to the caller's
    /// window, or raise window underflow when the caller's frame was
    /// spilled. Returns true when it returned.
    pub(crate) fn retw(&mut self, pc: u32) -> bool {
        let a0 = self.ar[0];
        let n = a0 >> 30;
        let owb = self.windowbase;
        let caller = owb.wrapping_sub(n) & (self.frames() - 1);
        if self.windowstart & (1 << caller) != 0 {
            self.windowstart &= !(1 << owb);
            self.set_windowbase(caller);
            self.next_pc = (pc & 0xc000_0000) | (a0 & 0x3fff_ffff);
            return true;
        }
        let offset = match n {
            1 => vector::WINDOW_UNDERFLOW4,
            2 => vector::WINDOW_UNDERFLOW8,
            _ => vector::WINDOW_UNDERFLOW12,
        };
        self.epc1 = pc;
        self.ps = (self.ps & !ps::OWB_MASK) | owb << ps::OWB_SHIFT | ps::EXCM;
        self.set_windowbase(caller);
        self.next_pc = self.vecbase.wrapping_add(offset);
        false
    }

    /// `rfwo` (`restore` = false) and `rfwu` (true): end a window handler.
    pub(crate) fn return_from_window_exception(&mut self, restore: bool) {
        if restore {
            self.windowstart |= 1 << self.windowbase;
        } else {
            self.windowstart &= !(1 << self.windowbase);
        }
        let owb = (self.ps & ps::OWB_MASK) >> ps::OWB_SHIFT;
        self.ps &= !ps::EXCM;
        self.set_windowbase(owb);
        self.next_pc = self.epc1;
    }

    /// Is the caller's frame live in the register file (else `movsp` must
    /// raise Alloca)? Looks at the three frames below WINDOWBASE.
    pub(crate) fn caller_frame_live(&self) -> bool {
        let frames = self.frames();
        (1..=3).any(|k| self.windowstart & (1 << ((self.windowbase + frames - k) & (frames - 1))) != 0)
    }

    /// The firmware's native Alloca service for `movsp at, as` when the
    /// caller's frame is spilled: its base save area (the 16 bytes below the
    /// old stack pointer) moves below the new one, which is what the standard
    /// Alloca handler achieves by refilling and later re-spilling the frame.
    pub(crate) fn firmware_services_alloca(&self) -> bool {
        self.config.exceptions == ExceptionModel::Firmware
    }
}
