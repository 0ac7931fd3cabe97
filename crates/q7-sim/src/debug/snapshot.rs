//! Whole-machine snapshots for going back in a run: the cores, the schedule,
//! the console, the checker and memory. Memory is kept in 64 KiB chunks
//! shared with the previous snapshot where unchanged, so a snapshot costs
//! about the memory the run wrote since the last one.

use std::sync::{Arc, OnceLock};

use crate::checks::Checker;
use crate::cpu::{Frame, SavedCore};
use crate::machine::{CoreState, Machine, Schedule};
use crate::output::Output;

const CHUNK: usize = 1 << 16;

/// The one chunk of zeros every snapshot shares.
fn zero_chunk() -> &'static Arc<[u8]> {
    static ZERO: OnceLock<Arc<[u8]>> = OnceLock::new();
    ZERO.get_or_init(|| Arc::from(vec![0u8; CHUNK]))
}

/// The machine at one point of its run.
#[derive(Clone)]
pub struct Snapshot {
    /// Steps of all cores together: the point's place on the timeline.
    pub time: u64,
    cores: Vec<SavedCore>,
    states: Vec<CoreState>,
    schedule: Schedule,
    output: Output,
    /// The checker without its shadows, which are in `regions` after the
    /// memory regions.
    checker: Option<Checker>,
    finding_stacks: Vec<(usize, Vec<Frame>)>,
    /// Per region, its bytes in chunks.
    regions: Vec<Vec<Arc<[u8]>>>,
    /// Bytes this snapshot holds that the one before it does not share.
    pub own_bytes: usize,
}

impl Snapshot {
    /// The machine as it is, sharing unchanged chunks with `previous`.
    pub fn take(machine: &Machine, previous: Option<&Snapshot>) -> Snapshot {
        // Memory nothing wrote is most of a machine: its chunks share one,
        // and pages never touched are not even read.
        let zero = zero_chunk();
        let mut own_bytes = 0;
        let checker = machine.mem.checker.as_ref();
        let buffers =
            (machine.mem.regions.iter().map(|r| &r.data[..])).chain(checker.into_iter().flat_map(Checker::shadows));
        let regions = buffers
            .enumerate()
            .map(|(i, data)| {
                let before = previous.and_then(|p| p.regions.get(i));
                let untouched = super::untouched::untouched_chunks(data, CHUNK);
                (data.chunks(CHUNK).enumerate())
                    .map(|(k, bytes)| match before.and_then(|b| b.get(k)) {
                        _ if untouched[k] && bytes.len() == CHUNK => zero.clone(),
                        Some(chunk) if **chunk == *bytes => chunk.clone(),
                        _ if bytes.len() == CHUNK && bytes.iter().all(|&b| b == 0) => zero.clone(),
                        _ => {
                            own_bytes += bytes.len();
                            Arc::from(bytes)
                        }
                    })
                    .collect()
            })
            .collect();
        let checker = checker.map(Checker::without_shadows);
        Snapshot {
            time: machine.total_steps(),
            cores: machine.cores.iter().map(|c| c.save()).collect(),
            states: machine.states.clone(),
            schedule: machine.schedule.clone(),
            output: machine.output.clone(),
            checker,
            finding_stacks: machine.finding_stacks.clone(),
            regions,
            own_bytes,
        }
    }

    /// Puts `machine` back to this point. Region buffers are written in
    /// place (compiled code holds pointers into them); decoded code is
    /// forgotten only when a chunk holding some changed.
    pub fn restore(&self, machine: &mut Machine) {
        let mut code_changed = false;
        let region_count = machine.mem.regions.len();
        for (i, chunks) in self.regions.iter().enumerate().take(region_count) {
            let base = machine.mem.regions[i].base;
            let untouched = super::untouched::untouched_chunks(&machine.mem.regions[i].data, CHUNK);
            for (k, chunk) in chunks.iter().enumerate() {
                if untouched[k] && Arc::ptr_eq(chunk, zero_chunk()) {
                    continue;
                }
                let start = k * CHUNK;
                let bytes = &machine.mem.regions[i].data[start..start + chunk.len()];
                if *bytes != **chunk {
                    let addr = base.wrapping_add(start as u32);
                    code_changed |= machine.mem.holds_code(addr, chunk.len() as u32);
                    machine.mem.regions[i].data[start..start + chunk.len()].copy_from_slice(chunk);
                }
            }
        }
        if code_changed {
            machine.mem.forget_code();
        }
        // The checker: the saved one, its shadow buffers reused and refilled.
        machine.mem.checker = match (&self.checker, machine.mem.checker.take()) {
            (Some(saved), Some(mut live)) => {
                let mut restored = saved.clone();
                for (shadow, chunks) in restored.take_shadows(&mut live).into_iter().zip(&self.regions[region_count..])
                {
                    for (bytes, chunk) in shadow.chunks_mut(CHUNK).zip(chunks) {
                        if *bytes != **chunk {
                            bytes.copy_from_slice(chunk);
                        }
                    }
                }
                Some(restored)
            }
            _ => None,
        };
        for (core, saved) in machine.cores.iter_mut().zip(&self.cores) {
            core.restore(saved);
        }
        machine.states.clone_from(&self.states);
        machine.schedule = self.schedule.clone();
        machine.output = self.output.clone();
        machine.finding_stacks.clone_from(&self.finding_stacks);
    }

    /// Counts [`Snapshot::own_bytes`] again against a new predecessor
    /// (after the one between was dropped).
    pub fn recount(&mut self, previous: Option<&Snapshot>) {
        let mut own = 0;
        for (i, chunks) in self.regions.iter().enumerate() {
            let before = previous.and_then(|p| p.regions.get(i));
            for (k, chunk) in chunks.iter().enumerate() {
                let shared = before.and_then(|b| b.get(k)).is_some_and(|b| Arc::ptr_eq(b, chunk));
                if !shared && chunk.iter().any(|&b| b != 0) {
                    own += chunk.len();
                }
            }
        }
        self.own_bytes = own;
    }

    /// Steps core `core` had taken at this point.
    pub fn core_steps(&self, core: usize) -> u64 {
        self.cores.get(core).map_or(0, |c| c.cpu().steps())
    }
}
