//! The parallel schedule: the round-robin's turns, run on several host
//! threads.
//!
//! Each core takes the turns it would take in the round-robin (a quantum of
//! its own steps, ended between blocks), so its n-th turn is round n there;
//! cores are dealt to threads, each thread running its cores' turns in
//! round order over the core's own memory view (`Memory::view_for`). The
//! threads meet after an epoch of rounds (some tens of milliseconds), where the machine does what
//! it does between rounds (budget, clock, Ctrl-C, deadlock) and emits the
//! console text of the epoch in the round-robin's order: by round, then by
//! core. For an op without a race every core computes what it computes in
//! the round-robin, so outputs, console text, exit statuses and turn counts
//! are the same; only how long a core spins waiting for another differs.
//! A thread with nothing left to run ends; the machine waits on the others
//! in `join`, parked, not spinning.
//!
//! A core that only waits gives its turns away (`super::parking`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::parking::Parking;
use super::{serve_simcall, CoreState, Machine, RunEnd, Service};
use crate::cpu::{Core, Event};
use crate::mem::Memory;

/// How long an epoch (the rounds between two meetings of the threads)
/// should last: long against what a meeting costs on a loaded host (a
/// thread woken may wait a scheduler slice, milliseconds, to run), short
/// enough that Ctrl-C, the clock and console text are not held back
/// noticeably. The rounds of the next epoch are scaled from the last one's.
const EPOCH_TARGET: Duration = Duration::from_millis(40);
/// Rounds of the first epoch (some 10M instructions for eight cores: a
/// small op runs in one), and the most of any.
const FIRST_EPOCH_ROUNDS: u64 = 128;
const MAX_EPOCH_ROUNDS: u64 = 1 << 16;
/// One running core as a thread sees it.
struct Lane<'a> {
    id: usize,
    core: &'a mut Core,
    state: &'a mut CoreState,
    view: &'a mut Memory,
    /// Turns the core has taken: the round of its next turn.
    round: &'a mut u64,
    /// Console writes of this epoch: (round, fd, bytes).
    writes: Vec<(u64, u32, Vec<u8>)>,
    /// The round of the turn in which the core stopped on a fault.
    fault_round: Option<u64>,
    /// Whether it only waits (see `parking`): kept across epochs.
    parking: &'a mut Parking,
}

// SAFETY: a lane's core, state and memory view are borrowed by it alone; the
// raw pointers a core holds (its JIT context) point into its own registers,
// its own host page table and its view, re-pointed on each `Core::run`; the
// compiler it shares is behind a mutex and the bytes its view shares are
// accessed atomically or by compiled code (`crate::zeroed::SharedView`).
#[allow(unsafe_code)]
unsafe impl Send for Lane<'_> {}

impl Lane<'_> {
    /// Runs one turn: until the core's steps reach `until` or it stops.
    fn turn(&mut self, until: u64) {
        while *self.state == CoreState::Running {
            let left = until.saturating_sub(self.core.cpu.steps());
            if left == 0 {
                return;
            }
            match self.core.run(self.view, left) {
                Event::Budget => return,
                Event::Simcall => match serve_simcall(self.core, self.view) {
                    Service::Exit(status) => *self.state = CoreState::Exited(status),
                    Service::Write(fd, bytes) => self.writes.push((*self.round, fd, bytes)),
                    Service::Done => {}
                },
                Event::Stopped(stop) => *self.state = CoreState::Stopped(stop),
                Event::Halted => *self.state = CoreState::Halted,
                // Neither a checker nor a watch is on (`Memory::viewable`),
                // and without a checker or pricing a hook does nothing.
                Event::WatchedLoad => self.view.load_watch_hit = None,
                Event::Finding | Event::Hook(_) => {}
            }
        }
    }
}

/// Runs `lanes` for `rounds` rounds of `quantum`-step turns, or until a
/// core stops on a fault (here or, as `stop` says, on another thread).
fn run_lanes(lanes: &mut [Lane], rounds: u64, quantum: u64, stop: &AtomicBool) {
    for _ in 0..rounds {
        for lane in lanes.iter_mut() {
            if *lane.state != CoreState::Running {
                continue;
            }
            if lane.parking.waiting(lane.core, lane.view) {
                *lane.round += 1;
                continue;
            }
            let until = lane.core.cpu.steps() + quantum;
            lane.turn(until);
            lane.parking.turn_ended(lane.core.cpu.pc);
            if matches!(lane.state, CoreState::Stopped(_)) {
                lane.fault_round = Some(*lane.round);
                stop.store(true, Ordering::Relaxed);
            }
            *lane.round += 1;
            if stop.load(Ordering::Relaxed) {
                return;
            }
        }
    }
}

impl Machine {
    /// Host threads [`Machine::run`] runs the cores on, when more than one
    /// and the run allows it: no seed (its schedule is the point), no
    /// pricing, and no core traced, profiled or stepping exactly, and a
    /// memory whose state is all per core (`Memory::viewable`: no checker,
    /// no counting, no watch).
    pub fn parallel_threads(&self) -> Option<usize> {
        let threads = self.limits.threads.min(self.cores.len());
        let plain = self.limits.seed == 0
            && self.transfer_spans.is_empty()
            && self
                .cores
                .iter()
                .all(|c| !c.trace && c.profile.is_none() && !c.stop_on_finding && !c.stop_on_watched_load && !c.exact);
        (threads > 1 && plain && self.mem.viewable()).then_some(threads)
    }

    /// [`Machine::run`] on `threads` host threads (see the module).
    pub(super) fn run_parallel(&mut self, threads: usize) -> RunEnd {
        let started = Instant::now();
        let count = self.cores.len();
        let mut views: Vec<Memory> = (0..count).map(|id| self.mem.view_for(id)).collect();
        let mut rounds = vec![0u64; count];
        let mut parking = vec![Parking::default(); count];
        let quantum = self.limits.quantum.max(1);
        let mut epoch_rounds = FIRST_EPOCH_ROUNDS;
        let end = loop {
            let running = self.states.iter().filter(|s| **s == CoreState::Running).count() as u64;
            if running == 0 {
                break RunEnd::Exited;
            }
            // The round-robin looks at the budget after every round: no
            // epoch runs past the round where it would.
            let left = self.limits.max_insns.saturating_sub(self.total_steps());
            let epoch = (left / (quantum * running)).clamp(1, epoch_rounds);
            let epoch_started = Instant::now();
            let (fault, writes) = self.run_epoch(&mut views, &mut rounds, &mut parking, threads, epoch, quantum);
            let took = epoch_started.elapsed().as_secs_f64().max(1e-6);
            let scaled = epoch as f64 * EPOCH_TARGET.as_secs_f64() / took;
            epoch_rounds = (scaled as u64).clamp(1, MAX_EPOCH_ROUNDS);
            for (round, id, fd, bytes) in writes {
                // The round-robin stops at the fault: nothing after it.
                if fault.is_none_or(|f| (round, id) <= f) {
                    self.output.write(id, fd, &bytes);
                }
            }
            if let Some((_, id)) = fault {
                break RunEnd::Fault(id);
            }
            if let Some(end) = self.end_of_round(started, Some(&mut views)) {
                break end;
            }
        };
        for (id, view) in views.into_iter().enumerate() {
            self.mem.absorb(id, view);
        }
        self.output.flush();
        end
    }

    /// Runs one epoch; the first fault by (round, core) if any, and the
    /// console writes as (round, core, fd, bytes) in the round-robin's order.
    #[allow(clippy::type_complexity)]
    fn run_epoch(
        &mut self,
        views: &mut [Memory],
        rounds: &mut [u64],
        parking: &mut [Parking],
        threads: usize,
        epoch: u64,
        quantum: u64,
    ) -> (Option<(u64, usize)>, Vec<(u64, usize, u32, Vec<u8>)>) {
        let lanes = (self.cores.iter_mut().zip(&mut self.states).zip(views).zip(rounds).zip(parking))
            .enumerate()
            .filter(|(_, ((((_, state), _), _), _))| **state == CoreState::Running)
            .map(|(id, ((((core, state), view), round), parking))| Lane {
                id,
                core,
                state,
                view,
                round,
                writes: Vec::new(),
                fault_round: None,
                parking,
            });
        // Running cores in contiguous blocks, as many (±1) per thread: a
        // merge tree's busy cores (0, 2, 4, 6, then 0, 4) spread over the
        // threads, which dealing them in turn would not do.
        let lanes: Vec<Lane> = lanes.collect();
        let running = lanes.len();
        let mut groups: Vec<Vec<Lane>> = (0..threads).map(|_| Vec::new()).collect();
        for (i, lane) in lanes.into_iter().enumerate() {
            groups[i * threads / running].push(lane);
        }
        groups.retain(|g| !g.is_empty());
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let Some((first, rest)) = groups.split_first_mut() else { return };
            let others: Vec<_> = rest.iter_mut().map(|g| scope.spawn(|| run_lanes(g, epoch, quantum, &stop))).collect();
            run_lanes(first, epoch, quantum, &stop);
            for other in others {
                if let Err(panic) = other.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        });
        let lanes = groups.into_iter().flatten();
        let mut fault = None;
        let mut writes = Vec::new();
        for lane in lanes {
            if let Some(round) = lane.fault_round {
                let here = (round, lane.id);
                fault = Some(fault.map_or(here, |f: (u64, usize)| f.min(here)));
            }
            writes.extend(lane.writes.into_iter().map(|(round, fd, bytes)| (round, lane.id, fd, bytes)));
        }
        // Stable: each core's writes of a round keep their order.
        writes.sort_by_key(|w| (w.0, w.1));
        (fault, writes)
    }
}
