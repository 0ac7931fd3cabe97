//! An op's profile: the cores' [`CoreProfile`]s named with the images'
//! symbols (and DWARF lines of `-g` builds), summed per core, per function,
//! per source line, and per call stack (folded, for flame graphs).

use std::collections::{BTreeMap, HashMap};

use q7_target::memmap::{VECTORS_BASE, VECTORS_SIZE};

use super::symbols::source_lines;
use super::OpImage;
use crate::cost::{CostModel, MemClass, MODEL};
use crate::profile::{CoreProfile, PcCost};

/// The SDK functions whose tensor traffic is priced as DMA transfers.
pub const TRANSFER_FUNCTIONS: [&str; 2] = ["q7_tensor_to_tcm", "q7_tcm_to_tensor"];

/// Entry addresses of `image`'s transfer functions.
pub fn transfer_entries(image: &OpImage) -> Vec<u32> {
    TRANSFER_FUNCTIONS.iter().flat_map(|name| image.functions.entries_named(name)).collect()
}

/// A new collector for the core running `image`.
pub fn collector(image: &OpImage) -> Box<CoreProfile> {
    Box::new(CoreProfile::new(transfer_entries(image)))
}

/// The model's prediction for a whole op: what `q7 run --stats` prints
/// (and `q7 profile` heads its report with).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Estimate {
    pub model: CostModel,
    /// The slowest core's cycles.
    pub predicted_cycles: f64,
    /// `predicted_cycles` at the model's clock: an estimate, not a measurement.
    pub predicted_seconds: f64,
}

impl Estimate {
    /// The estimate from each core's cycles.
    pub fn from_cores(cycles: &[f64]) -> Estimate {
        let slowest = cycles.iter().copied().fold(0.0, f64::max);
        Estimate { model: MODEL, predicted_cycles: slowest, predicted_seconds: slowest / MODEL.clock_hz }
    }
}

/// Costs summed over some instructions.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Costs {
    pub instructions: u64,
    pub cycles: f64,
    pub issue_cycles: u64,
    /// Issue cycles by instruction class name.
    pub issue_by_class: BTreeMap<&'static str, u64>,
    /// Memory cycles by class name.
    pub memory_cycles: BTreeMap<&'static str, f64>,
    /// Loads and stores by class name.
    pub accesses: BTreeMap<&'static str, u64>,
}

impl Costs {
    fn add(&mut self, cost: &PcCost) {
        self.instructions += cost.instructions;
        self.cycles += cost.cycles();
        self.issue_cycles += cost.issue_cycles;
        if let (Some(class), true) = (cost.class, cost.issue_cycles > 0) {
            *self.issue_by_class.entry(class.name()).or_default() += cost.issue_cycles;
        }
        for class in MemClass::ALL {
            let k = class as usize;
            if cost.accesses[k] > 0 || cost.memory_cycles[k] > 0.0 {
                *self.memory_cycles.entry(class.name()).or_default() += cost.memory_cycles[k];
                *self.accesses.entry(class.name()).or_default() += cost.accesses[k];
            }
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct CoreRow {
    pub core: usize,
    #[serde(flatten)]
    pub costs: Costs,
    /// Transfer calls (`q7_tensor_to_tcm` and friends) made.
    pub transfers: u64,
    /// Cycles this core waits on the others: done before the slowest core
    /// (idle at the end) plus its cycles spinning in barriers.
    pub waiting_cycles: f64,
    /// Of which spinning in functions named like a barrier (`*barrier*`).
    pub barrier_cycles: f64,
    /// Cycles in loads/stores of the shared DRAM window (where cores
    /// synchronise: barriers, flags).
    pub shared_dram_cycles: f64,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct FunctionRow {
    pub function: String,
    /// Cores that ran it.
    pub cores: usize,
    #[serde(flatten)]
    pub costs: Costs,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct LineRow {
    pub file: String,
    pub line: u32,
    pub function: String,
    #[serde(flatten)]
    pub costs: Costs,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct OpProfile {
    pub model: CostModel,
    /// The slowest core's cycles: the op's predicted duration.
    pub cycles: f64,
    /// `cycles` at the model's clock: an estimate, not a measurement.
    pub predicted_seconds: f64,
    pub cores: Vec<CoreRow>,
    /// Self cost per function over all cores, most cycles first.
    pub functions: Vec<FunctionRow>,
    /// Self cost per source line (builds with `-g`), most cycles first.
    pub lines: Vec<LineRow>,
    /// `frame;frame;leaf cycles` lines (flame-graph input), one per stack.
    pub folded: Vec<String>,
}

/// Source lines are looked up for this many of the costliest pcs.
const LINE_PCS: usize = 256;

/// The name of the function holding `pc` in `image`.
pub fn function_name(image: &OpImage, pc: u32) -> String {
    if pc.wrapping_sub(VECTORS_BASE) < VECTORS_SIZE {
        return "(q7 firmware vectors)".into();
    }
    match image.functions.containing(pc) {
        Some((name, _)) => name.to_string(),
        None => format!("{pc:#010x}"),
    }
}

/// Names and sums the cores' profiles (one per image, in core order).
pub fn summarize(images: &[OpImage], profiles: &[CoreProfile]) -> OpProfile {
    let mut cores = Vec::new();
    let mut functions: HashMap<String, (Costs, usize)> = HashMap::new();
    let mut lines: HashMap<(String, u32), (String, Costs)> = HashMap::new();
    let mut folded: BTreeMap<String, f64> = BTreeMap::new();
    let multicore = profiles.len() > 1;
    for (core, (image, profile)) in images.iter().zip(profiles).enumerate() {
        let mut total = Costs::default();
        let mut names: HashMap<u32, String> = HashMap::new();
        let mut name = |pc: u32| names.entry(pc).or_insert_with(|| function_name(image, pc)).clone();
        let mut seen_here: HashMap<String, Costs> = HashMap::new();
        let mut barrier_cycles = 0.0;
        for (node, pc, cost) in &profile.costs {
            total.add(cost);
            let leaf = name(*pc);
            if leaf.to_ascii_lowercase().contains("barrier") {
                barrier_cycles += cost.cycles();
            }
            seen_here.entry(leaf.clone()).or_default().add(cost);
            let mut frames = vec![leaf];
            let mut at = *node;
            while at != 0 {
                let frame = &profile.nodes[at as usize];
                let caller = name(frame.entry);
                if frames.last() != Some(&caller) {
                    frames.push(caller);
                }
                at = frame.parent;
            }
            if multicore {
                frames.push(format!("core {core}"));
            }
            frames.reverse();
            *folded.entry(frames.join(";")).or_default() += cost.cycles();
        }
        for (function, costs) in seen_here {
            let row = functions.entry(function).or_default();
            merge(&mut row.0, &costs);
            row.1 += 1;
        }
        if let Some(debug) = &image.debug {
            let mut by_pc: HashMap<u32, Costs> = HashMap::new();
            for (_, pc, cost) in &profile.costs {
                by_pc.entry(*pc).or_default().add(cost);
            }
            let mut hot: Vec<(u32, Costs)> = by_pc.into_iter().collect();
            hot.sort_by(|a, b| b.1.cycles.total_cmp(&a.1.cycles).then(a.0.cmp(&b.0)));
            hot.truncate(LINE_PCS);
            let pcs: Vec<u32> = hot.iter().map(|h| h.0).collect();
            for ((pc, costs), line) in hot.into_iter().zip(source_lines(debug, &pcs)) {
                if let Some((file, line)) = line {
                    let row = lines.entry((file, line)).or_insert_with(|| (name(pc), Costs::default()));
                    merge(&mut row.1, &costs);
                }
            }
        }
        let shared_dram_cycles = total.memory_cycles.get(MemClass::SharedDram.name()).copied().unwrap_or(0.0);
        cores.push(CoreRow {
            core,
            costs: total,
            transfers: profile.transfers,
            waiting_cycles: 0.0,
            barrier_cycles,
            shared_dram_cycles,
        });
    }
    let cycles = cores.iter().map(|c| c.costs.cycles).fold(0.0, f64::max);
    for row in &mut cores {
        row.waiting_cycles = cycles - row.costs.cycles + row.barrier_cycles;
    }
    let mut functions: Vec<FunctionRow> =
        functions.into_iter().map(|(function, (costs, cores))| FunctionRow { function, cores, costs }).collect();
    functions.sort_by(|a, b| b.costs.cycles.total_cmp(&a.costs.cycles).then(a.function.cmp(&b.function)));
    let mut lines: Vec<LineRow> =
        lines.into_iter().map(|((file, line), (function, costs))| LineRow { file, line, function, costs }).collect();
    lines.sort_by(|a, b| b.costs.cycles.total_cmp(&a.costs.cycles).then(a.line.cmp(&b.line)));
    let folded = folded
        .into_iter()
        .filter(|(_, c)| c.round() >= 1.0)
        .map(|(stack, c)| format!("{stack} {}", c.round() as u64))
        .collect();
    OpProfile { model: MODEL, cycles, predicted_seconds: cycles / MODEL.clock_hz, cores, functions, lines, folded }
}

impl OpProfile {
    pub fn estimate(&self) -> Estimate {
        Estimate { model: self.model, predicted_cycles: self.cycles, predicted_seconds: self.predicted_seconds }
    }
}

fn merge(into: &mut Costs, from: &Costs) {
    into.instructions += from.instructions;
    into.cycles += from.cycles;
    into.issue_cycles += from.issue_cycles;
    for (k, v) in &from.issue_by_class {
        *into.issue_by_class.entry(k).or_default() += v;
    }
    for (k, v) in &from.memory_cycles {
        *into.memory_cycles.entry(k).or_default() += v;
    }
    for (k, v) in &from.accesses {
        *into.accesses.entry(k).or_default() += v;
    }
}
