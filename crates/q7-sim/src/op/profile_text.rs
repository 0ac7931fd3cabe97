//! The text report of an [`OpProfile`]: what `q7 profile` prints and the
//! Python package's `Profile.summary()` returns (one renderer for both).

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::profile::{Costs, Estimate, OpProfile};
use crate::cost::{InsnClass, MemClass};

/// "predicted device time ≈ …": the estimate with the model that made it.
pub fn estimate_line(estimate: &Estimate) -> String {
    let m = &estimate.model;
    format!(
        "predicted device time ≈ {} ({:.3} M cycles at {:.1} GHz; estimate of cost model {} v{}, docs/COST_MODEL.md)",
        duration(estimate.predicted_seconds),
        estimate.predicted_cycles / 1e6,
        m.clock_hz / 1e9,
        m.name,
        m.version
    )
}

fn duration(seconds: f64) -> String {
    match seconds {
        s if s >= 1.0 => format!("{s:.2} s"),
        s if s >= 1e-3 => format!("{:.2} ms", s * 1e3),
        s => format!("{:.1} µs", s * 1e6),
    }
}

/// Rows of the function and line tables a report shows unless asked.
pub const DEFAULT_TOP: usize = 15;

/// The report of `function` run on `cores` cores: per core, the `top`
/// costliest functions and source lines (0: all), accesses and issue cycles
/// by class.
pub fn write_report(
    out: &mut dyn Write,
    function: &str,
    cores: usize,
    profile: &OpProfile,
    top: usize,
) -> io::Result<()> {
    writeln!(out, "q7 profile: {function} on {cores} core{}", if cores == 1 { "" } else { "s" })?;
    writeln!(out, "{}", estimate_line(&profile.estimate()))?;
    let total = profile.cores.iter().map(|c| c.costs.cycles).sum::<f64>().max(1.0);
    writeln!(out, "\ncores (modelled cycles; waiting = idle until the slowest core ends + spinning in barriers; memory cycles by class)")?;
    writeln!(out, "core  instructions        cycles       waiting    barrier  transfers   issue{}", class_header())?;
    for c in &profile.cores {
        writeln!(
            out,
            "{:>4}  {:>12}  {:>12}  {:>12}  {:>9}  {:>9}  {:>6}{}",
            c.core,
            c.costs.instructions,
            c.costs.cycles.round() as u64,
            c.waiting_cycles.round() as u64,
            c.barrier_cycles.round() as u64,
            c.transfers,
            c.costs.issue_cycles,
            class_columns(&c.costs)
        )?;
    }
    writeln!(out, "\nfunctions (self, all cores; memory cycles by class)")?;
    writeln!(out, "      cycles      %  instructions        issue{}  function", class_header())?;
    let limit = if top == 0 { usize::MAX } else { top };
    for f in profile.functions.iter().take(limit) {
        writeln!(
            out,
            "{:>12}  {:>5.1}  {:>12}  {:>11}{}  {}",
            f.costs.cycles.round() as u64,
            100.0 * f.costs.cycles / total,
            f.costs.instructions,
            f.costs.issue_cycles,
            class_columns(&f.costs),
            f.function
        )?;
    }
    writeln!(out, "\naccesses by memory class (loads and stores, all cores)")?;
    let accesses = sum_over_cores(profile, |c| &c.accesses);
    for class in MemClass::ALL.map(MemClass::name) {
        writeln!(out, "{class:>16}  {:>12}", accesses.get(class).copied().unwrap_or(0))?;
    }
    writeln!(out, "\nissue cycles by instruction class (all cores; per function in --json)")?;
    let issue = sum_over_cores(profile, |c| &c.issue_by_class);
    for class in InsnClass::ALL.map(InsnClass::name) {
        writeln!(out, "{class:>16}  {:>12}", issue.get(class).copied().unwrap_or(0))?;
    }
    if profile.lines.is_empty() {
        writeln!(out, "\nlines: none (build with --cflag -g for per-line costs)")?;
    } else {
        writeln!(out, "\nlines (self, all cores)")?;
        writeln!(out, "      cycles      %  instructions  line")?;
        for l in profile.lines.iter().take(limit) {
            writeln!(
                out,
                "{:>12}  {:>5.1}  {:>12}  {}:{} ({})",
                l.costs.cycles.round() as u64,
                100.0 * l.costs.cycles / total,
                l.costs.instructions,
                l.file,
                l.line,
                l.function
            )?;
        }
    }
    Ok(())
}

/// One of the per-core count tables, summed over the cores.
fn sum_over_cores(
    profile: &OpProfile,
    table: impl Fn(&Costs) -> &BTreeMap<&'static str, u64>,
) -> BTreeMap<&'static str, u64> {
    let mut sum = BTreeMap::new();
    for (k, v) in profile.cores.iter().flat_map(|c| table(&c.costs)) {
        *sum.entry(*k).or_insert(0) += v;
    }
    sum
}

fn class_columns(costs: &Costs) -> String {
    MemClass::ALL
        .iter()
        .map(|c| format!("{:>16}", costs.memory_cycles.get(c.name()).map_or(0, |v| v.round() as u64)))
        .collect::<Vec<_>>()
        .join("")
}

fn class_header() -> String {
    MemClass::ALL.iter().map(|c| format!("{:>16}", c.name())).collect::<Vec<_>>().join("")
}
