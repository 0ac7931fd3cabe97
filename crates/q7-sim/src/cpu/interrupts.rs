//! The interrupt and timer options (XEA2) as QEMU models its sample cores:
//! INTERRUPT/INTSET/INTCLEAR/INTENABLE, levels masked by PS.INTLEVEL and
//! PS.EXCM, the level-1 interrupt as an exception (EXCCAUSE 4) and levels
//! 2..7 through their own vectors with EPCn/EPSn, CCOUNT and CCOMPAREn, and
//! `waiti`; and the debug option's exceptions: `break`, ICOUNT, IBREAK,
//! DBREAK.
//!
//! Time is QEMU's `-icount shift=0`: one nanosecond per instruction, so
//! CCOUNT advances one cycle every `insns_per_cycle` retired instructions
//! (25 at the cores' 40 MHz), plus the time `waiti` sleeps. A timer fires
//! at the instruction count its CCOMPARE write scheduled; the run loop
//! looks at [`Irq::check_at`] before every block and single-steps up to it.

use crate::config::InterruptConfig;
use crate::cpu::Cpu;
use crate::ps;
use crate::stop::Stop;

/// A core's interrupt and timer state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Irq {
    /// INTERRUPT: the pending interrupts.
    pub intset: u32,
    pub intenable: u32,
    pub ccompare: [u32; 3],
    /// CCOUNT is `ccount_base` plus the cycles since time 0 (the phase of
    /// the cycle stays when `wsr ccount` moves the count, as in QEMU).
    ccount_base: u32,
    /// Nanoseconds slept in `waiti` (time beyond the instruction count).
    pub idle: u64,
    /// When each timer fires (time in ns), once armed by a CCOMPARE write.
    due: [Option<u64>; 3],
    /// The step count at which the run loop must next service interrupts
    /// (0: at once; `u64::MAX`: nothing scheduled).
    pub check_at: u64,
    /// The debug option: ICOUNT counts the instruction about to run (the
    /// instruction count before it), unless `wsr icount` sets it.
    icount_step: Option<u64>,
    icount_written: bool,
    /// DBREAK is armed below the debug level: each stepped instruction's
    /// data access is checked before it runs.
    pub(crate) watching: bool,
}

/// Debug registers (special register numbers) and DEBUGCAUSE bits.
mod debug {
    pub const IBREAKENABLE: u8 = 96;
    pub const IBREAKA0: u8 = 128;
    pub const DEBUGCAUSE: u8 = 233;
    pub const ICOUNT: u8 = 236;
    pub const ICOUNTLEVEL: u8 = 237;
    pub const DBREAKA0: u8 = 144;
    pub const DBREAKC0: u8 = 160;
    /// DBREAKC: the address bits compared (low 6), load and store enables.
    pub const DBREAKC_MASK: u32 = 0x3f;
    pub const DBREAKC_LB: u32 = 1 << 30;
    pub const DBREAKC_SB: u32 = 1 << 31;
    /// Instruction and data breakpoints the sample cores have.
    pub const IBREAKS: u8 = 2;
    pub const DBREAKS: u8 = 2;
    pub const CAUSE_ICOUNT: u32 = 1;
    pub const CAUSE_IBREAK: u32 = 2;
    pub const CAUSE_BREAK: u32 = 8;
    pub const CAUSE_BREAK_N: u32 = 16;
    pub const CAUSE_DBREAK: u32 = 4;
    /// DEBUGCAUSE bits 8..12: which DBREAK hit.
    pub const DBNUM_SHIFT: u32 = 8;
}

impl Irq {
    pub fn new() -> Irq {
        Irq { check_at: u64::MAX, ..Irq::default() }
    }
}

/// EXCCAUSE of a level-1 interrupt.
const LEVEL1_INTERRUPT: u32 = 4;

impl Cpu {
    /// The time in ns: retired instructions plus sleep.
    fn now(&self) -> u64 {
        self.insns + self.irq.idle
    }

    pub(crate) fn ccount(&self, config: &InterruptConfig) -> u32 {
        self.irq.ccount_base.wrapping_add((self.now() / config.insns_per_cycle) as u32)
    }

    /// Asks the run loop to look at the interrupts before the next block.
    pub(crate) fn check_interrupts_soon(&mut self) {
        self.irq.check_at = 0;
    }

    /// Writes of the interrupt and timer registers (INTSET 226, INTCLEAR
    /// 227, INTENABLE 228, CCOUNT 234, CCOMPARE0..2 240..242); false for
    /// any other register or a core without the option.
    pub(crate) fn write_interrupt_register(&mut self, n: u8, value: u32) -> bool {
        let Some(config) = self.config.interrupts.clone() else { return false };
        match n {
            226 => self.irq.intset |= value & config.software,
            227 => self.irq.intset &= !(value & (config.software | config.edge)),
            228 => self.irq.intenable = value,
            234 => {
                let change = value.wrapping_sub(self.ccount(&config));
                self.irq.ccount_base = self.irq.ccount_base.wrapping_add(change);
                (0..3).for_each(|i| self.arm_timer(&config, i));
            }
            240..=242 => {
                let i = usize::from(n - 240);
                self.irq.ccompare[i] = value;
                self.arm_timer(&config, i);
            }
            debug::ICOUNT => {
                self.other_sr[usize::from(n)] = value;
                self.irq.icount_written = true;
            }
            debug::ICOUNTLEVEL => self.other_sr[usize::from(n)] = value & 0xf,
            debug::IBREAKENABLE => self.other_sr[usize::from(n)] = value & ((1 << debug::IBREAKS) - 1),
            160 | 161 => {
                let enables = debug::DBREAKC_MASK | debug::DBREAKC_LB | debug::DBREAKC_SB;
                self.other_sr[usize::from(n)] = value & enables;
            }
            _ => return false,
        }
        self.check_interrupts_soon();
        true
    }

    /// Reads of the same registers (INTERRUPT for 226).
    pub(crate) fn read_interrupt_register(&self, n: u8) -> Option<u32> {
        let config = self.config.interrupts.as_ref()?;
        match n {
            226 => Some(self.irq.intset),
            228 => Some(self.irq.intenable),
            234 => Some(self.ccount(config)),
            240..=242 => Some(self.irq.ccompare[usize::from(n - 240)]),
            _ => None,
        }
    }

    /// A CCOMPARE write (or CCOUNT's): the timer's interrupt clears and it
    /// fires when CCOUNT next reaches CCOMPARE (2^32 cycles on when equal).
    fn arm_timer(&mut self, config: &InterruptConfig, i: usize) {
        self.irq.intset &= !(1 << config.timers[i]);
        let cycles = u64::from(self.irq.ccompare[i].wrapping_sub(self.ccount(config)).wrapping_sub(1)) + 1;
        self.irq.due[i] = Some(self.now() + cycles * config.insns_per_cycle);
    }

    /// The level below which interrupts are masked: PS.INTLEVEL, or the
    /// EXCM level while PS.EXCM is set.
    fn current_level(&self, config: &InterruptConfig) -> u32 {
        let level = self.ps & ps::INTLEVEL_MASK;
        if self.ps & ps::EXCM != 0 {
            level.max(config.excm_level)
        } else {
            level
        }
    }

    /// The highest level with a pending enabled interrupt above the
    /// current level (the NMI level always counts).
    fn deliverable(&self, config: &InterruptConfig) -> Option<u32> {
        let floor = self.current_level(config).min(config.nmi_level - 1);
        let pending = self.irq.intset & (self.irq.intenable | config.nmi);
        (floor + 1..=7).rev().find(|&level| config.level_mask[level as usize] & pending != 0)
    }

    /// Fires the timers that are due and takes the highest deliverable
    /// interrupt, if any; schedules the next look.
    pub(crate) fn service_interrupts(&mut self) {
        let Some(config) = self.config.interrupts.clone() else {
            self.irq.check_at = u64::MAX;
            return;
        };
        let now = self.now();
        for i in 0..3 {
            if self.irq.due[i].is_some_and(|due| due <= now) {
                self.irq.intset |= 1 << config.timers[i];
                self.irq.due[i] = None;
            }
        }
        // The instruction just stepped retired under ICOUNT: count it.
        if let Some(before) = self.irq.icount_step.take() {
            if self.insns > before && !self.irq.icount_written {
                let icount = &mut self.other_sr[usize::from(debug::ICOUNT)];
                *icount = icount.wrapping_add(1);
            }
        }
        self.irq.icount_written = false;
        if let Some(level) = self.deliverable(&config) {
            self.take_interrupt(&config, level);
        }
        let stepping = self.debug_before_step(&config);
        let next = self.irq.due.iter().flatten().min().map(|due| due - now);
        self.irq.check_at = match (stepping, next) {
            // Every instruction needs a look: step them one at a time.
            (true, _) => self.steps(),
            (false, Some(wait)) => self.steps() + wait,
            (false, None) => u64::MAX,
        };
    }

    /// Before an instruction, below the debug level: an IBREAK on its pc,
    /// or ICOUNT about to wrap, raises a debug exception instead. True
    /// while ICOUNT or IBREAK are armed (each instruction needs this look).
    fn debug_before_step(&mut self, config: &InterruptConfig) -> bool {
        let enabled = self.other_sr[usize::from(debug::IBREAKENABLE)];
        let counting = self.other_sr[usize::from(debug::ICOUNTLEVEL)] > self.current_level(config);
        if self.current_level(config) < config.debug_level {
            let pc = self.pc;
            let hit = (0..debug::IBREAKS)
                .any(|i| enabled & 1 << i != 0 && self.other_sr[usize::from(debug::IBREAKA0 + i)] == pc);
            let wraps = counting && self.other_sr[usize::from(debug::ICOUNT)] == u32::MAX;
            if hit || wraps {
                self.exceptions += 1;
                self.debug_exception(config, if hit { debug::CAUSE_IBREAK } else { debug::CAUSE_ICOUNT });
                return true;
            }
        }
        // The exception above changes PS: whether the next counts is
        // decided again at the next look.
        let counting = self.other_sr[usize::from(debug::ICOUNTLEVEL)] > self.current_level(config);
        if counting {
            self.irq.icount_step = Some(self.insns);
        }
        let armed = (0..debug::DBREAKS)
            .any(|i| self.other_sr[usize::from(debug::DBREAKC0 + i)] & (debug::DBREAKC_LB | debug::DBREAKC_SB) != 0);
        self.irq.watching = armed && self.current_level(config) < config.debug_level;
        enabled != 0 || counting || armed
    }

    /// Before a stepped instruction: a DBREAK whose range one of its data
    /// accesses overlaps raises a debug exception instead (DEBUGCAUSE DB
    /// with the breakpoint's number). True when it did.
    pub(crate) fn data_break(&mut self, op: &crate::uop::Op) -> bool {
        use crate::uop::Kind;
        let r = |n: u8| self.ar[usize::from(n & 15)];
        // (address, bytes, load, store)
        let access = match op.kind {
            // QEMU's compare-and-swap is one access that both reads and
            // writes: a breakpoint on either kind catches it.
            // (ATOMCTL's check comes first: when it refuses, no access.)
            Kind::S32c1i if self.atomctl & 3 == 0 => return false,
            Kind::S32c1i => (r(op.b).wrapping_add(op.imm), 4, true, true),
            // MAC16's ldinc/lddec forms load a word from a(c) +/- 4.
            Kind::Mac16 => match crate::uop::mac16::step(op.imm) {
                0 => return false,
                step => (r(op.c).wrapping_add_signed(step), 4, true, false),
            },
            // dhwb, dhi, ...: QEMU probes the line with a byte load.
            Kind::CacheProbe => (r(op.b).wrapping_add(op.imm), 1, true, false),
            Kind::Fp64 => match super::fp::double::data_access(op, &self.ar) {
                Some((addr, load, size)) => (addr, size, load, !load),
                None => return false,
            },
            _ => match op.data_access(&self.ar) {
                Some(a) => (a.addr, a.size, a.load, !a.load),
                None => return false,
            },
        };
        self.data_break_at(op.pc, access)
    }

    fn data_break_at(&mut self, pc: u32, (addr, size, load, store): (u32, u32, bool, bool)) -> bool {
        let Some(config) = self.config.interrupts.clone() else { return false };
        let hit = (0..debug::DBREAKS).find(|&i| {
            let control = self.other_sr[usize::from(debug::DBREAKC0 + i)];
            let wanted = if load { debug::DBREAKC_LB } else { 0 } | if store { debug::DBREAKC_SB } else { 0 };
            // The compared bits: DBREAKC's low 6 and everything above.
            let mask = control | !debug::DBREAKC_MASK;
            let start = self.other_sr[usize::from(debug::DBREAKA0 + i)] & mask;
            let span = u64::from(!mask) + 1;
            let (from, to) = (u64::from(addr), u64::from(addr) + u64::from(size));
            control & wanted != 0 && from < u64::from(start) + span && u64::from(start) < to
        });
        let Some(i) = hit else { return false };
        self.exceptions += 1;
        self.pc = pc;
        self.debug_exception(&config, debug::CAUSE_DBREAK | u32::from(i) << debug::DBNUM_SHIFT);
        true
    }

    /// A debug exception at the pc: DEBUGCAUSE, EPC/EPS of the debug
    /// level, PS.INTLEVEL raised to it with EXCM, its vector.
    fn debug_exception(&mut self, config: &InterruptConfig, cause: u32) {
        let level = config.debug_level;
        self.other_sr[usize::from(debug::DEBUGCAUSE)] = cause;
        self.write_sr(176 + level as u8, self.pc);
        self.write_sr(192 + level as u8, self.ps);
        self.set_ps((self.ps & !ps::INTLEVEL_MASK) | level | ps::EXCM);
        self.pc = self.vecbase.wrapping_add(config.vectors[level as usize]);
    }

    /// `break`/`break.n` at `pc`: a debug exception below the debug level
    /// (true: the pc is redirected), ignored at or above it (false); `Err`
    /// without the debug option modelled (a stop, as ever).
    pub(crate) fn break_instruction(&mut self, pc: u32, narrow: bool, report: Stop) -> Result<bool, Stop> {
        let Some(config) = self.config.interrupts.clone() else { return Err(report) };
        if self.current_level(&config) >= config.debug_level {
            return Ok(false);
        }
        self.pc = pc;
        self.debug_exception(&config, if narrow { debug::CAUSE_BREAK_N } else { debug::CAUSE_BREAK });
        Ok(true)
    }

    fn take_interrupt(&mut self, config: &InterruptConfig, level: u32) {
        self.exceptions += 1;
        let pc = self.pc;
        if level == 1 {
            let report = Stop::Unhandled { pc, cause: LEVEL1_INTERRUPT };
            // Only the program-vectors model has interrupts: this vectors.
            let _ = self.raise(pc, LEVEL1_INTERRUPT, None, report);
            return;
        }
        self.write_sr(176 + level as u8, pc);
        self.write_sr(192 + level as u8, self.ps);
        self.set_ps((self.ps & !ps::INTLEVEL_MASK) | level | ps::EXCM);
        self.pc = self.vecbase.wrapping_add(config.vectors[level as usize]);
        if level == config.nmi_level {
            self.irq.intset &= !config.nmi;
        }
    }

    /// `waiti`: PS.INTLEVEL = `level`; then the core sleeps until an
    /// interrupt it can take: now, or when a timer that raises one fires
    /// (the sleep advances time). `Err` when nothing ever can.
    pub(crate) fn waiti(&mut self, pc: u32, level: u32) -> Result<(), Stop> {
        let Some(config) = self.config.interrupts.clone() else { return Err(Stop::Waiti { pc }) };
        self.set_ps((self.ps & !ps::INTLEVEL_MASK) | level);
        if self.deliverable(&config).is_some() {
            return Ok(());
        }
        let current = self.current_level(&config);
        let wakes = |i: usize| {
            let bit = 1u32 << config.timers[i];
            let level = (1..=7).find(|&l| config.level_mask[l] & bit != 0).unwrap_or(0) as u32;
            self.irq.intenable & bit != 0 && level > current
        };
        let wake = (0..3).filter(|&i| wakes(i)).filter_map(|i| self.irq.due[i]).min();
        match wake {
            Some(due) => {
                // The waiti retires after this: wake with it counted.
                self.irq.idle += due.saturating_sub(self.now() + 1);
                Ok(())
            }
            None => Err(Stop::Waiti { pc }),
        }
    }
}
