//! Going backwards: the last event before the current point, found by
//! running the stretches between snapshots again, newest first; and the
//! recent path of one core, for stepping back by source lines.

use super::{Arrival, Keep, Motion, Timeline};
use crate::cpu::Cpu;

/// One instruction of a core's path: its step count before it ran, its pc
/// and the stack pointer then (which frame it ran in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathStep {
    pub steps: u64,
    pub pc: u32,
    pub sp: u32,
}

impl Timeline {
    /// Goes back to the last point before now where going forward with
    /// `motion` would have stopped (a breakpoint, a watch, a finding), or
    /// to the start of the run. A watch lands just before the store that
    /// changed its bytes (a load watch, before the load); a finding just
    /// after the access.
    pub fn reverse(&mut self, motion: Motion) -> Arrival {
        self.reverse_with(motion, &mut |_, _, _| true)
    }

    /// [`Timeline::reverse`] with breakpoint hits filtered as
    /// [`Timeline::forward_with`] does.
    pub fn reverse_with(&mut self, motion: Motion, keep: &mut Keep<'_>) -> Arrival {
        let motion = Motion { core_steps: None, total_steps: None, ..motion };
        let now = self.time();
        let mut hi = now;
        let starts: Vec<u64> = self.snapshots.iter().map(|s| s.time).rev().collect();
        for lo in starts {
            if lo >= hi {
                continue;
            }
            self.seek(lo);
            let mut last = None;
            while self.time() < hi {
                match self.forward_with(Motion { total_steps: Some(hi), ..motion }, keep) {
                    Arrival::Reached | Arrival::Ended(_) | Arrival::Interrupted | Arrival::Start => break,
                    event if self.time() < now => last = Some((self.time(), event)),
                    _ => break,
                }
            }
            if let Some((time, event)) = last {
                match &event {
                    Arrival::Watch { .. } | Arrival::Load { .. } => self.seek(time - 1),
                    Arrival::Breakpoint { core, .. } => {
                        self.seek(time);
                        self.machine.cores[*core].set_hook_reported(true);
                    }
                    _ => self.seek(time),
                }
                return event;
            }
            hi = lo;
        }
        self.seek(0);
        Arrival::Start
    }

    /// Core `core` one step back (the first point, from the latest snapshot
    /// that allows it, where it had taken one step fewer).
    pub fn reverse_step(&mut self, core: usize) -> Arrival {
        let steps = self.machine.cores[core].cpu.steps();
        if steps == 0 {
            return Arrival::Start;
        }
        self.seek_core(core, steps - 1);
        Arrival::Reached
    }

    /// The last `count` steps core `core` took before now, oldest first
    /// (fewer near the start of the run). Comes back to the same point.
    pub fn path(&mut self, core: usize, count: u64) -> Vec<PathStep> {
        self.replay_steps(core, count, |cpu| PathStep { steps: cpu.steps(), pc: cpu.pc, sp: cpu.reg(1) })
    }

    /// Runs core `core`'s last `count` steps again one at a time, recording
    /// `record` of its state before each, oldest first (fewer near the start
    /// of the run). Comes back to the same point.
    pub(super) fn replay_steps<T>(&mut self, core: usize, count: u64, record: impl Fn(&Cpu) -> T) -> Vec<T> {
        let (now, until) = (self.time(), self.machine.cores[core].cpu.steps());
        self.seek_core(core, until.saturating_sub(count));
        let mut recorded = Vec::new();
        loop {
            let cpu = &self.machine.cores[core].cpu;
            let steps = cpu.steps();
            if steps >= until {
                break;
            }
            recorded.push(record(cpu));
            if self.forward(Motion { core_steps: Some((core, steps + 1)), ..Motion::default() }) != Arrival::Reached {
                break;
            }
        }
        self.seek(now);
        recorded
    }
}
