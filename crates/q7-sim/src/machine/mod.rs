//! A machine: cores sharing one [`Memory`], run in deterministic round-robin
//! quanta, with the semihosting services of `simcall` and the limits that
//! keep any program from hanging the host.
//!
//! Scheduling: each round visits the running cores in order and lets each
//! retire about one quantum of instructions (checked between blocks). With a
//! seed, each round's order is a seeded shuffle and each quantum a seeded
//! length in [quantum/2, 3·quantum/2], so races can be provoked
//! reproducibly; seed 0 is plain round-robin.
//!
//! With [`RunLimits::threads`] above 1, [`Machine::run`] runs the same
//! turns on several host threads where nothing observes the run as a
//! whole (`parallel`): results are those of the round-robin for every op
//! without a race.

mod parallel;
mod parking;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use crate::checks::HookFrame;
use crate::config::CoreConfig;
use crate::cpu::{Core, Event, Frame};
use crate::interrupt::Interrupt;
use crate::jit::Engine;
use crate::mem::Memory;
use crate::output::{Output, OutputMode};
use crate::ps;
use crate::stop::Stop;
use crate::tally::{HookPoint, Snapshot, TransferSpans};

/// Semihosting call numbers (QEMU / Tensilica ISS numbering).
pub mod sys {
    pub const EXIT: u32 = 1;
    pub const READ: u32 = 3;
    pub const WRITE: u32 = 4;
    pub const OPEN: u32 = 5;
    pub const CLOSE: u32 = 6;
    /// errno values returned in a3.
    pub const EBADF: u32 = 9;
    pub const ENOSYS: u32 = 88;
}

/// Limits and scheduling of a run.
#[derive(Clone, Debug)]
pub struct RunLimits {
    /// Total instructions over all cores before the run is stopped.
    pub max_insns: u64,
    /// Wall-clock limit.
    pub wall: Duration,
    /// Instructions per core per turn.
    pub quantum: u64,
    /// 0 = plain round-robin; else seeds order and quantum lengths.
    pub seed: u64,
    /// The back end that runs the cores' code (default: the JIT, which
    /// gives results, counts and findings identical to the interpreter's).
    pub engine: Engine,
    /// Asked between rounds whether to stop (Ctrl-C).
    pub interrupt: Option<Interrupt>,
    /// Host threads [`Machine::run`] may run the cores on. 1 (the default)
    /// is the round-robin on the calling thread, bit for bit; more runs
    /// the cores' turns in parallel when the run allows it (no checker,
    /// counting, seed, trace, profile or watch: see
    /// [`Machine::parallel_threads`]), else round-robin as well.
    pub threads: usize,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            max_insns: 20_000_000_000,
            wall: Duration::from_secs(600),
            quantum: 10_000,
            seed: 0,
            engine: Engine::JIT,
            interrupt: None,
            threads: 1,
        }
    }
}

/// The host threads a run may use by default: the host's available
/// parallelism, at most the eight cores of a launch.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(8)
}

/// Where a core is.
#[derive(Clone, Debug, PartialEq)]
pub enum CoreState {
    Running,
    Exited(i32),
    Stopped(Stop),
    /// Reached its halt address (a host-driven function call returned).
    Halted,
}

/// How a whole run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum RunEnd {
    /// Every core exited.
    Exited,
    /// A core stopped on a fault (index of the core).
    Fault(usize),
    /// The instruction budget ran out.
    Budget,
    /// The wall-clock limit passed.
    Timeout,
    /// [`RunLimits::interrupt`] asked the run to stop.
    Interrupted,
    /// Every running core spins forever on memory no core will write (see
    /// [`Machine::deadlocked`]).
    Deadlock,
}

/// Frames of a call stack the machine reads at most.
pub const MAX_FRAMES: usize = 32;

/// How often (in instructions over all cores) the machine looks for a
/// deadlock: rarely enough that the look costs nothing measurable, often
/// enough that a hung op stops within a fraction of a second.
pub const DEADLOCK_CHECK_EVERY: u64 = 1 << 25;
/// How far each core's look ahead goes: longer spin loops than this (a wait
/// with a long delay loop inside) are left to the budget and Ctrl-C.
pub const DEADLOCK_LOOK_AHEAD: u64 = 1 << 12;

pub struct Machine {
    pub mem: Memory,
    pub cores: Vec<Core>,
    pub states: Vec<CoreState>,
    pub output: Output,
    pub limits: RunLimits,
    /// Per core, when the run is priced on the fast engines (see
    /// [`Machine::price_transfers`]); else empty.
    pub transfer_spans: Vec<TransferSpans>,
    /// With [`Core::stop_on_finding`]: the call stack of each kept finding
    /// of the checker, by the finding's index.
    pub finding_stacks: Vec<(usize, Vec<Frame>)>,
    /// Per core, the pcs where [`Machine::resume`] pauses when its goal
    /// asks (a debugger's breakpoints; each is also a hook of the core).
    pub breakpoints: Vec<BTreeSet<u32>>,
    /// Host threads the last [`Machine::run`] ran the cores on (1: the
    /// round-robin).
    pub threads_used: usize,
    pub(crate) schedule: Schedule,
}

/// Where the round-robin schedule stands between calls of
/// [`Machine::resume`]: the round's order, the position of the core whose
/// turn is under way or next (`None`: between rounds), the end of a turn a
/// pause cut short, the seeded schedule's random state and when the next
/// deadlock look is due.
#[derive(Clone, Debug, Default)]
pub(crate) struct Schedule {
    order: Vec<usize>,
    next: Option<usize>,
    turn_end: Option<u64>,
    rng: u64,
    deadlock_check: u64,
}

/// When [`Machine::resume`] pauses, besides the run's end.
#[derive(Clone, Debug, Default)]
pub struct Goal {
    /// Core `.0` has taken exactly `.1` steps (instructions and exceptions;
    /// exact when the cores run [`Core::exact`]).
    pub core_steps: Option<(usize, u64)>,
    /// All cores together have taken this many steps.
    pub total_steps: Option<u64>,
    /// A core reached one of its [`Machine::breakpoints`].
    pub breakpoints: bool,
    /// A core's access made the checker keep a finding (the cores must run
    /// with [`Core::stop_on_finding`]).
    pub findings: bool,
    /// A core's turn ended.
    pub turn_ends: bool,
    /// A core loaded from a watched range (the cores must run with
    /// [`Core::stop_on_watched_load`]).
    pub watched_loads: bool,
    /// A core exited with a nonzero status (an abort, a failed SDK check).
    pub failed_exits: bool,
}

/// Why [`Machine::resume`] paused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pause {
    /// The goal's step count is reached.
    Reached,
    /// Core `core` is at breakpoint `pc` (the instruction there not run yet).
    Breakpoint { core: usize, pc: u32 },
    /// Core `core`'s last instruction made the checker keep a finding.
    Finding { core: usize },
    /// Core `core`'s turn ended.
    TurnEnd { core: usize },
    /// Core `core`'s last instruction loaded from a watched range.
    WatchedLoad { core: usize },
    /// Core `core` exited with nonzero `status` (its exit call just ran).
    FailedExit { core: usize, status: i32 },
}

/// What [`Machine::resume`] came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    Ended(RunEnd),
    Paused(Pause),
}

impl Machine {
    /// `count` cores of `config` over `mem` (which must have as many views).
    pub fn new(mem: Memory, config: &CoreConfig, count: usize, output: OutputMode) -> Machine {
        assert_eq!(mem.cores(), count, "memory views must match the core count");
        let cores = (0..count).map(|id| Core::new(id, config.clone())).collect();
        Machine {
            mem,
            cores,
            states: vec![CoreState::Running; count],
            output: Output::new(count, output),
            limits: RunLimits::default(),
            transfer_spans: Vec::new(),
            finding_stacks: Vec::new(),
            breakpoints: vec![BTreeSet::new(); count],
            threads_used: 1,
            schedule: Schedule::default(),
        }
    }

    fn next_random(&mut self) -> u64 {
        // xorshift64*: small, deterministic, good enough for schedules.
        let rng = &mut self.schedule.rng;
        *rng ^= *rng >> 12;
        *rng ^= *rng << 25;
        *rng ^= *rng >> 27;
        rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Instructions (and exceptions) over all cores, as the budget counts.
    pub fn total_steps(&self) -> u64 {
        self.cores.iter().map(|c| c.cpu.steps()).sum()
    }

    /// Prices the coming run with the memory-class model on whichever
    /// engine runs it: memory counts the priced accesses, and the calls to
    /// `transfer_entries[core]` are cut into spans by hooks (see
    /// [`crate::tally`]); [`Machine::modelled_cycles`] then holds the model's
    /// cycles per core.
    pub fn price_transfers(&mut self, transfer_entries: Vec<Vec<u32>>) {
        self.mem.count_accesses(crate::tally::page_slot);
        for (core, entries) in self.cores.iter_mut().zip(&transfer_entries) {
            for &pc in entries {
                core.add_hook(pc);
            }
        }
        self.transfer_spans = transfer_entries.into_iter().map(TransferSpans::new).collect();
    }

    /// Core `id`'s counters now.
    fn snapshot(&self, id: usize) -> Snapshot {
        let cpu = &self.cores[id].cpu;
        Snapshot { insns: cpu.insns, cycles: cpu.cycles, counts: self.mem.counts(id) }
    }

    /// The memory-class model's cycles of each core so far (after
    /// [`Machine::price_transfers`]).
    pub fn modelled_cycles(&self) -> Vec<f64> {
        self.transfer_spans.iter().enumerate().map(|(id, spans)| spans.modelled_cycles(self.snapshot(id))).collect()
    }

    /// Core `id` reached hooked `pc`: a transfer call's entry or return?
    fn transfer_hook(&mut self, id: usize, pc: u32) {
        if id >= self.transfer_spans.len() {
            return;
        }
        let now = self.snapshot(id);
        let cpu = &self.cores[id].cpu;
        // Before `entry` runs, PS.CALLINC says which register holds the
        // return address (as the checker reads it).
        let callinc = (cpu.ps & ps::CALLINC_MASK) >> ps::CALLINC_SHIFT;
        let link = cpu.reg(4 * callinc as usize);
        let return_pc = (pc & 0xc000_0000) | (link & 0x3fff_ffff);
        let at = HookPoint { pc, sp: cpu.reg(1), windowbase: cpu.windowbase, return_pc };
        if let Some(ret) = self.transfer_spans[id].at_hook(at, now) {
            self.cores[id].add_hook(ret);
        }
    }

    /// Runs every core until all exit, one faults, or a limit passes.
    pub fn run(&mut self) -> RunEnd {
        self.begin();
        self.threads_used = 1;
        if let Some(threads) = self.parallel_threads() {
            self.threads_used = threads;
            return self.run_parallel(threads);
        }
        loop {
            // Without a goal nothing pauses: only an end returns.
            if let Progress::Ended(end) = self.resume(&Goal::default()) {
                return end;
            }
        }
    }

    /// Readies the cores to run (engines, the schedule's seed): once, before
    /// the first [`Machine::resume`].
    pub fn begin(&mut self) {
        let mut compiler = None;
        for core in &mut self.cores {
            // Without a code generator for this host the interpreter runs.
            if core.set_engine(self.limits.engine, &mut compiler).is_err() {
                let _ = core.set_engine(Engine::Interp, &mut compiler);
            }
        }
        let order = (0..self.cores.len()).collect();
        let rng = self.limits.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        // By instruction count, not time: the look ahead changes nothing, but
        // when it stops a run must not depend on the host's speed.
        let deadlock_check = self.total_steps() + DEADLOCK_CHECK_EVERY;
        self.schedule = Schedule { order, next: None, turn_end: None, rng, deadlock_check };
    }

    /// Runs the schedule on from where it stands until the run ends or
    /// `goal` asks for a pause. A paused run resumes exactly where it
    /// paused: the turn under way goes on to its end.
    pub fn resume(&mut self, goal: &Goal) -> Progress {
        let started = Instant::now();
        let seeded = self.limits.seed != 0;
        loop {
            let Some(position) = self.schedule.next else {
                // A round begins.
                if self.states.iter().all(|s| *s != CoreState::Running) {
                    self.output.flush();
                    return Progress::Ended(RunEnd::Exited);
                }
                if seeded {
                    for i in (1..self.schedule.order.len()).rev() {
                        let j = (self.next_random() % (i as u64 + 1)) as usize;
                        self.schedule.order.swap(i, j);
                    }
                }
                self.schedule.next = Some(0);
                continue;
            };
            if position == self.schedule.order.len() {
                self.schedule.next = None;
                if let Some(end) = self.end_of_round(started, None) {
                    self.output.flush();
                    return Progress::Ended(end);
                }
                continue;
            }
            let id = self.schedule.order[position];
            if self.states[id] != CoreState::Running {
                self.schedule.next = Some(position + 1);
                continue;
            }
            let turn_end = match self.schedule.turn_end {
                Some(end) => end,
                None => {
                    let quantum = if seeded {
                        self.limits.quantum / 2 + self.next_random() % self.limits.quantum.max(1)
                    } else {
                        self.limits.quantum
                    };
                    *self.schedule.turn_end.insert(self.cores[id].cpu.steps() + quantum.max(1))
                }
            };
            let steps = self.cores[id].cpu.steps();
            let mut until = turn_end;
            if let Some((core, target)) = goal.core_steps {
                if core == id {
                    until = until.min(target.max(steps));
                }
            }
            if let Some(total) = goal.total_steps {
                until = until.min(steps + total.saturating_sub(self.total_steps()));
            }
            let pause = self.run_core(id, until, goal);
            if matches!(self.states[id], CoreState::Stopped(_)) {
                self.schedule.turn_end = None;
                self.schedule.next = None;
                self.output.flush();
                return Progress::Ended(RunEnd::Fault(id));
            }
            if let Some(pause) = pause {
                return Progress::Paused(pause);
            }
            let turn_over = self.states[id] != CoreState::Running || self.cores[id].cpu.steps() >= turn_end;
            if turn_over {
                self.schedule.turn_end = None;
                self.schedule.next = Some(position + 1);
                if goal.turn_ends {
                    return Progress::Paused(Pause::TurnEnd { core: id });
                }
            } else {
                return Progress::Paused(Pause::Reached);
            }
        }
    }

    /// The checks between rounds (the parallel schedule's between epochs):
    /// the budget, the clock, Ctrl-C, deadlock. `views`: the cores' memory
    /// views while the parallel schedule holds them (else the machine's).
    fn end_of_round(&mut self, started: Instant, views: Option<&mut [Memory]>) -> Option<RunEnd> {
        if self.total_steps() >= self.limits.max_insns {
            return Some(RunEnd::Budget);
        }
        if started.elapsed() >= self.limits.wall {
            return Some(RunEnd::Timeout);
        }
        if self.limits.interrupt.as_ref().is_some_and(Interrupt::requested) {
            return Some(RunEnd::Interrupted);
        }
        if self.total_steps() >= self.schedule.deadlock_check {
            self.schedule.deadlock_check = self.total_steps() + DEADLOCK_CHECK_EVERY;
            if self.deadlocked_in(views) {
                return Some(RunEnd::Deadlock);
            }
        }
        None
    }

    /// Whether every running core is in a cycle that writes no memory (so
    /// none will ever write again, and each waits forever). Exact, never a
    /// guess: a core whose loop stores, counts or calls out is not in one.
    pub fn deadlocked(&mut self) -> bool {
        self.deadlocked_in(None)
    }

    /// [`Machine::deadlocked`], each core looking ahead in its view when
    /// `views` are given.
    fn deadlocked_in(&mut self, mut views: Option<&mut [Memory]>) -> bool {
        let running: Vec<usize> = (0..self.cores.len()).filter(|&id| self.states[id] == CoreState::Running).collect();
        let (cores, mem) = (&mut self.cores, &mut self.mem);
        !running.is_empty()
            && running.iter().all(|&id| {
                let mem = match views.as_deref_mut() {
                    Some(views) => &mut views[id],
                    None => &mut *mem,
                };
                cores[id].spins_without_storing(mem, DEADLOCK_LOOK_AHEAD)
            })
    }

    /// Runs core `id` until its steps reach `until` (about, unless the
    /// core runs [`Core::exact`]), it stops, or `goal` pauses it.
    fn run_core(&mut self, id: usize, until: u64, goal: &Goal) -> Option<Pause> {
        while self.states[id] == CoreState::Running {
            let left = until.saturating_sub(self.cores[id].cpu.steps());
            if left == 0 {
                return None;
            }
            match self.cores[id].run(&mut self.mem, left) {
                Event::Budget => return None,
                Event::Simcall => {
                    self.simcall(id);
                    if let (true, CoreState::Exited(status)) = (goal.failed_exits, &self.states[id]) {
                        if *status != 0 {
                            return Some(Pause::FailedExit { core: id, status: *status });
                        }
                    }
                }
                Event::Stopped(stop) => self.states[id] = CoreState::Stopped(stop),
                Event::Halted => self.states[id] = CoreState::Halted,
                Event::WatchedLoad => {
                    if goal.watched_loads {
                        return Some(Pause::WatchedLoad { core: id });
                    }
                    self.mem.load_watch_hit = None;
                }
                Event::Finding => {
                    self.note_finding_stack(id);
                    if goal.findings {
                        return Some(Pause::Finding { core: id });
                    }
                }
                Event::Hook(pc) => {
                    self.transfer_hook(id, pc);
                    if let Some(checker) = &mut self.mem.checker {
                        let cpu = &self.cores[id].cpu;
                        let callinc = (cpu.ps & ps::CALLINC_MASK) >> ps::CALLINC_SHIFT;
                        let frame = HookFrame { windowbase: cpu.windowbase, callinc, regs: &cpu.ar };
                        checker.on_hook(id, pc, frame);
                        let returns: Vec<u32> = checker.pending_returns(id).collect();
                        for ret in returns {
                            self.cores[id].add_hook(ret);
                        }
                    }
                    if goal.breakpoints && self.breakpoints.get(id).is_some_and(|set| set.contains(&pc)) {
                        return Some(Pause::Breakpoint { core: id, pc });
                    }
                }
            }
        }
        None
    }

    /// Core `id` just made the access of the checker's last finding: its
    /// call stack, with the access's pc as the innermost frame.
    fn note_finding_stack(&mut self, id: usize) {
        let Some(checker) = &self.mem.checker else { return };
        let Some(finding) = checker.findings.last() else { return };
        let index = checker.findings.len() - 1;
        let mut stack = self.cores[id].cpu.call_stack(&self.mem, MAX_FRAMES);
        stack[0].pc = finding.place().1;
        self.finding_stacks.push((index, stack));
    }

    /// Services the `simcall` core `id` just executed.
    fn simcall(&mut self, id: usize) {
        match serve_simcall(&mut self.cores[id], &mut self.mem) {
            Service::Exit(status) => self.states[id] = CoreState::Exited(status),
            Service::Write(fd, bytes) => self.output.write(id, fd, &bytes),
            Service::Done => {}
        }
    }
}

/// What a serviced simcall leaves to the machine.
enum Service {
    /// The core exits with this status.
    Exit(i32),
    /// Console bytes for fd 1 or 2.
    Write(u32, Vec<u8>),
    /// Nothing (the result is in the core's registers).
    Done,
}

/// Services the `simcall` `core` just executed, reading what it writes
/// from `mem` (its view of memory).
fn serve_simcall(core: &mut Core, mem: &mut Memory) -> Service {
    let cpu = &core.cpu;
    let (call, a3, a4, a5) = (cpu.reg(2), cpu.reg(3), cpu.reg(4), cpu.reg(5));
    let mut service = Service::Done;
    let (result, errno) = match call {
        sys::EXIT => return Service::Exit(a3 as i32),
        sys::WRITE => match mem.host_copy_for(cpu.id, a4, a5 as usize) {
            Ok(bytes) if a3 == 1 || a3 == 2 => {
                service = Service::Write(a3, bytes);
                (a5, 0)
            }
            Ok(_) => (u32::MAX, sys::EBADF),
            Err(_) => (u32::MAX, 14), // EFAULT
        },
        // No host files: reading gives end-of-file, opening fails.
        sys::READ => (0, 0),
        sys::OPEN => (u32::MAX, sys::ENOSYS),
        sys::CLOSE => (u32::MAX, sys::EBADF),
        _ => (u32::MAX, sys::ENOSYS),
    };
    let cpu = &mut core.cpu;
    cpu.set_reg(2, result);
    cpu.set_reg(3, errno);
    service
}
