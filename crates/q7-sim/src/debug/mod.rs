//! The debugger's engine: one run of a machine as a timeline that can be
//! travelled both ways.
//!
//! The run is deterministic, so a point of it is named by one number, the
//! steps all cores took together ([`Machine::total_steps`]), provided each
//! core's turn ends at an exact step count ([`crate::cpu::Core::exact`]):
//! then where blocks end (which breakpoints change) changes nothing. Going
//! back is restoring the last [`Snapshot`] before the point and running
//! forward to it at full engine speed; no instruction is logged.
//!
//! Watchpoints and findings are noticed at the end of each core's turn (by
//! comparing the watched bytes and the checker's counts) and then located
//! exactly by running that turn again one step at a time.

mod origin;
mod reverse;
pub use origin::Link;
pub use reverse::PathStep;
pub mod snapshot;
mod untouched;

use crate::machine::{Goal, Machine, Pause, Progress, RunEnd};
use snapshot::Snapshot;

/// Steps between snapshots: going back anywhere re-runs at most this many.
pub const SNAPSHOT_EVERY: u64 = 1 << 23;
/// Snapshots kept at most by default (memory they do not share), in bytes.
pub const SNAPSHOT_BUDGET: usize = 1 << 30;

/// Bytes a watchpoint watches, as core `core` sees them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watch {
    pub core: usize,
    pub addr: u32,
    pub len: u32,
}

/// What a motion may stop at, besides its target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Motion {
    /// Stop when core `.0` has taken `.1` steps.
    pub core_steps: Option<(usize, u64)>,
    /// Stop when all cores together have taken this many steps.
    pub total_steps: Option<u64>,
    pub breakpoints: bool,
    pub watches: bool,
    pub findings: bool,
}

/// Why a motion stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrival {
    /// At the motion's target.
    Reached,
    /// Core `core` is at breakpoint `pc`, its instruction not run yet.
    Breakpoint { core: usize, pc: u32 },
    /// Core `core`'s instruction at `pc` changed watch `index`'s bytes from
    /// `old` to `new`: the instruction just run (going backwards: the next).
    Watch { core: usize, pc: u32, index: usize, old: Vec<u8>, new: Vec<u8> },
    /// Core `core`'s load at `pc` read `addr`, in load watch `index`: the
    /// instruction just run (going backwards: the next).
    Load { core: usize, pc: u32, index: usize, addr: u32 },
    /// Core `core`'s last instruction made the checker keep finding `index`
    /// (its number among all the checker counted).
    Finding { core: usize, index: u64 },
    /// Core `core` exited with nonzero `status` (an abort, a failed SDK
    /// check): the others are where they were.
    FailedExit { core: usize, status: i32 },
    /// The run ended here.
    Ended(RunEnd),
    /// The run's interrupt (Ctrl-C) asked to stop; the run goes on from
    /// here when asked.
    Interrupted,
    /// Going backwards, the start of the run.
    Start,
}

/// Whether a breakpoint hit counts (see [`Timeline::forward_with`]).
pub type Keep<'a> = dyn FnMut(&Machine, usize, u32) -> bool + 'a;

/// What a turn segment is compared by: the watched bytes and the checker's
/// count of findings.
#[derive(Clone, PartialEq)]
struct Observed {
    watched: Vec<Vec<u8>>,
    findings: u64,
}

pub struct Timeline {
    pub machine: Machine,
    /// Stop where these bytes change.
    pub watches: Vec<Watch>,
    /// Stop where a core loads from these bytes (the cores then run one
    /// instruction at a time, on the interpreter).
    pub load_watches: Vec<Watch>,
    /// The load watches memory has now (armed for the motion under way).
    armed: Vec<Watch>,
    snapshots: Vec<Snapshot>,
    every: u64,
    budget: usize,
    /// The run ended at the current point.
    ended: Option<RunEnd>,
}

impl Timeline {
    /// `machine` loaded and ready (cores at their entry), not yet begun.
    pub fn new(mut machine: Machine) -> Timeline {
        for core in &mut machine.cores {
            core.exact = true;
        }
        machine.begin();
        let first = Snapshot::take(&machine, None);
        Timeline {
            machine,
            watches: Vec::new(),
            load_watches: Vec::new(),
            armed: Vec::new(),
            snapshots: vec![first],
            every: SNAPSHOT_EVERY,
            budget: SNAPSHOT_BUDGET,
            ended: None,
        }
    }

    /// Keeps snapshots `every` steps apart within `budget` bytes.
    pub fn set_snapshots(&mut self, every: u64, budget: usize) {
        self.every = every.max(1);
        self.budget = budget;
    }

    /// The current point: steps of all cores together.
    pub fn time(&self) -> u64 {
        self.machine.total_steps()
    }

    /// How the run ended, when the current point is its end.
    pub fn ended(&self) -> Option<&RunEnd> {
        self.ended.as_ref()
    }

    /// Snapshots kept and the bytes they hold (shared chunks once).
    pub fn snapshot_memory(&self) -> (usize, usize) {
        (self.snapshots.len(), self.snapshots.iter().map(|s| s.own_bytes).sum())
    }

    /// The instruction at `pc` as core `core` sees it.
    pub fn instruction(&self, core: usize, pc: u32) -> Option<q7_isa::Insn> {
        let mut bytes = [0u8; 3];
        let n = self.machine.mem.fetch(core, pc, &mut bytes).ok()?;
        q7_isa::decode(&bytes[..n], pc, &self.machine.cores[core].cpu.config.isa).ok()
    }

    /// Adds a breakpoint at `pc` for core `core`: a hook, so the core's
    /// blocks start there (decoded code is forgotten for that).
    pub fn add_breakpoint(&mut self, core: usize, pc: u32) {
        if self.machine.breakpoints[core].insert(pc) {
            self.machine.cores[core].add_hook(pc);
            self.machine.mem.forget_code();
        }
    }

    pub fn remove_breakpoint(&mut self, core: usize, pc: u32) {
        // The hook stays (the checker may share it): it only costs a look.
        self.machine.breakpoints[core].remove(&pc);
    }

    fn observe(&self) -> Observed {
        let mem = &self.machine.mem;
        let watched = (self.watches.iter())
            .map(|w| mem.host_read_for(w.core, w.addr, w.len as usize).map(<[u8]>::to_vec).unwrap_or_default())
            .collect();
        let findings = mem.checker.as_ref().map_or(0, |c| c.counts.iter().sum());
        Observed { watched, findings }
    }

    /// Runs forward until the motion's target or something it stops at.
    pub fn forward(&mut self, motion: Motion) -> Arrival {
        self.forward_with(motion, &mut |_, _, _| true)
    }

    /// [`Timeline::forward`], stopping only at breakpoint hits `keep`
    /// accepts (a debugger's conditions: given the machine, core and pc).
    pub fn forward_with(&mut self, motion: Motion, keep: &mut Keep<'_>) -> Arrival {
        if let Some(end) = &self.ended {
            return Arrival::Ended(end.clone());
        }
        let detect = (motion.watches && !self.watches.is_empty()) || motion.findings;
        self.arm_load_watches(if motion.watches { self.load_watches.clone() } else { Vec::new() });
        loop {
            if self.reached(&motion) {
                return Arrival::Reached;
            }
            let last = self.snapshots.last().map_or(0, |s| s.time);
            let next_snapshot = (self.time() >= last).then(|| last + self.every);
            let total = match (motion.total_steps, next_snapshot) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let goal = Goal {
                core_steps: motion.core_steps,
                total_steps: total,
                breakpoints: motion.breakpoints,
                findings: false,
                turn_ends: detect,
                watched_loads: !self.armed.is_empty(),
                failed_exits: motion.findings,
            };
            let (start, before) = (self.time(), detect.then(|| self.observe()));
            let progress = self.machine.resume(&goal);
            if let Some(before) = before {
                if let Some(arrival) = self.located(start, &before, &motion) {
                    return arrival;
                }
            }
            match progress {
                Progress::Ended(RunEnd::Interrupted) => return Arrival::Interrupted,
                Progress::Ended(end) => {
                    self.ended = Some(end.clone());
                    return Arrival::Ended(end);
                }
                Progress::Paused(Pause::FailedExit { core, status }) => return Arrival::FailedExit { core, status },
                Progress::Paused(Pause::WatchedLoad { core }) => {
                    if let Some(hit) = self.machine.mem.load_watch_hit.take() {
                        return Arrival::Load { core, pc: hit.pc, index: hit.index, addr: hit.addr };
                    }
                }
                Progress::Paused(Pause::Breakpoint { core, pc }) => {
                    if keep(&self.machine, core, pc) {
                        return Arrival::Breakpoint { core, pc };
                    }
                }
                Progress::Paused(_) => {
                    if next_snapshot == Some(self.time()) {
                        self.snapshot();
                    }
                }
            }
        }
    }

    /// Has memory watch loads from `watches` (none: no watching, the cores
    /// back on their engines).
    fn arm_load_watches(&mut self, watches: Vec<Watch>) {
        self.machine.mem.load_watch_hit = None;
        if watches == self.armed {
            return;
        }
        self.machine.mem.watch_loads(watches.iter().map(|w| (w.core, w.addr, w.len)).collect());
        for core in &mut self.machine.cores {
            core.stop_on_watched_load = !watches.is_empty();
        }
        self.armed = watches;
    }

    fn reached(&self, motion: &Motion) -> bool {
        let core_done = motion.core_steps.is_some_and(|(c, s)| self.machine.cores[c].cpu.steps() >= s);
        let total_done = motion.total_steps.is_some_and(|t| self.time() >= t);
        core_done || total_done
    }

    /// After a segment from `start` that began observing `before`: when
    /// what the motion watches changed, goes back to `start` and steps to
    /// the instruction that changed it.
    fn located(&mut self, start: u64, before: &Observed, motion: &Motion) -> Option<Arrival> {
        let after = self.observe();
        let changed = |b: &Observed, a: &Observed| {
            (motion.watches && a.watched != b.watched) || (motion.findings && a.findings != b.findings)
        };
        if !changed(before, &after) {
            return None;
        }
        let end = self.time();
        self.seek(start);
        let mut now = before.clone();
        while self.time() < end {
            let steps: Vec<u64> = self.machine.cores.iter().map(|c| c.cpu.steps()).collect();
            let pcs: Vec<u32> = self.machine.cores.iter().map(|c| c.cpu.pc).collect();
            let time = self.time();
            if let Progress::Ended(run_end) =
                self.machine.resume(&Goal { total_steps: Some(time + 1), ..Goal::default() })
            {
                self.ended = Some(run_end);
            }
            let core = (self.machine.cores.iter().zip(&steps)).position(|(c, &s)| c.cpu.steps() != s).unwrap_or(0);
            let next = self.observe();
            if changed(&now, &next) {
                if motion.findings && next.findings != now.findings {
                    return Some(Arrival::Finding { core, index: now.findings });
                }
                let index = (0..self.watches.len()).find(|&i| next.watched[i] != now.watched[i]).unwrap_or(0);
                let (old, new) = (now.watched[index].clone(), next.watched[index].clone());
                return Some(Arrival::Watch { core, pc: pcs[core], index, old, new });
            }
            if self.ended.is_some() || self.time() == time {
                break;
            }
            now = next;
        }
        None
    }

    fn snapshot(&mut self) {
        let taken = Snapshot::take(&self.machine, self.snapshots.last());
        self.snapshots.push(taken);
        // Over budget: every other snapshot but the first goes, and they
        // are twice as far apart from now on.
        while self.snapshot_memory().1 > self.budget && self.snapshots.len() > 2 {
            let mut i = 0;
            self.snapshots.retain(|_| {
                i += 1;
                i == 1 || i % 2 == 0
            });
            self.every = self.every.saturating_mul(2);
            for i in 1..self.snapshots.len() {
                let (before, after) = self.snapshots.split_at_mut(i);
                after[0].recount(before.last());
            }
        }
    }

    /// Goes to the point where all cores together took `time` steps (or
    /// the run's end, when it ends before).
    pub fn seek(&mut self, time: u64) {
        if time < self.time() || self.ended.is_some() {
            let at = self.snapshots.partition_point(|s| s.time <= time).saturating_sub(1);
            self.snapshots[at].restore(&mut self.machine);
            self.ended = None;
        }
        self.forward(Motion { total_steps: Some(time), ..Motion::default() });
    }

    /// Goes to the first point (from the latest snapshot that allows it)
    /// where core `core` has taken `steps` steps.
    pub fn seek_core(&mut self, core: usize, steps: u64) {
        let now = self.machine.cores[core].cpu.steps();
        if steps < now || self.ended.is_some() {
            let at = self.snapshots.iter().rposition(|s| s.core_steps(core) <= steps).unwrap_or(0);
            self.snapshots[at].restore(&mut self.machine);
            self.ended = None;
        }
        self.forward(Motion { core_steps: Some((core, steps)), ..Motion::default() });
    }
}
