//! `q7 profile`: `q7 run` on the profiling path, and where the time went.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::ArgMatches;
use q7_sim::op::profile::{Costs, Estimate, OpProfile};
use q7_sim::op::OpReport;

/// Run a built op like `q7 run` (the same arguments) and report where its
/// time goes under q7's memory-class cost model (docs/COST_MODEL.md).
///
/// Every instruction is priced by its class and every load or store by
/// the memory it reaches: the op's window and stack, TCM, tensor memory
/// through an accessor, tensor memory moved by the SDK's TCM transfer calls
/// (priced as DMA: set-up plus bandwidth), the shared DRAM window. The
/// report gives per core the modelled cycles and the time it waits for the
/// slowest core; per function (self cost over all cores) instructions,
/// cycles by class and accesses by memory class; per source line for ops
/// built with `--cflag -g`. The predicted device time is an estimate of the
/// model named in the report, not a measurement.
#[derive(Debug, clap::Args)]
#[group(id = "profile_args")]
pub struct Args {
    #[command(flatten)]
    run: super::run::Args,
    /// Write a flame graph of the simulated call stacks (cycles) as SVG.
    #[arg(long, value_name = "FILE.svg")]
    svg: Option<PathBuf>,
    /// Write the folded call stacks (`frame;frame cycles`, flame-graph input).
    #[arg(long, value_name = "FILE")]
    folded: Option<PathBuf>,
    /// Rows of the function and line tables (0 = all).
    #[arg(long, default_value_t = 15)]
    top: usize,
}

pub fn run(args: Args, matches: Option<&ArgMatches>) -> Result<()> {
    let (report, profile) = super::run::execute_profiled(&args.run, matches)?;
    if let Some(path) = &args.folded {
        crate::io::write_output(path, profile.folded.join("\n").as_bytes())?;
    }
    if let Some(path) = &args.svg {
        crate::io::write_output(path, &flame_graph(&profile, &report)?)?;
    }
    if args.run.json {
        crate::io::print_json(&JsonProfile { report: &report, profile: &profile })?;
    } else {
        let mut out = crate::io::text_stdout();
        write_report(&mut out, &report, &profile, args.top)?;
        out.flush()?;
    }
    // Output files, findings and failures as `q7 run` handles them.
    let mut run_args = args.run.clone();
    (run_args.json, run_args.stats) = (false, false);
    super::run::finish(&run_args, report, None)
}

#[derive(serde::Serialize)]
struct JsonProfile<'a> {
    report: &'a OpReport,
    profile: &'a OpProfile,
}

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

const CLASSES: [&str; 5] = ["local", "tcm", "tensor-access", "tensor-transfer", "shared-dram"];

/// One of the per-core count tables, summed over the cores.
fn sum_over_cores(
    profile: &OpProfile,
    table: impl Fn(&Costs) -> &std::collections::BTreeMap<&'static str, u64>,
) -> std::collections::BTreeMap<&'static str, u64> {
    let mut sum = std::collections::BTreeMap::new();
    for (k, v) in profile.cores.iter().flat_map(|c| table(&c.costs)) {
        *sum.entry(*k).or_insert(0) += v;
    }
    sum
}

fn class_columns(costs: &Costs) -> String {
    CLASSES
        .iter()
        .map(|c| format!("{:>16}", costs.memory_cycles.get(c).map_or(0, |v| v.round() as u64)))
        .collect::<Vec<_>>()
        .join("")
}

fn class_header() -> String {
    CLASSES.iter().map(|c| format!("{c:>16}")).collect::<Vec<_>>().join("")
}

fn write_report(out: &mut dyn Write, report: &OpReport, profile: &OpProfile, top: usize) -> Result<()> {
    let cores = report.cores;
    writeln!(out, "q7 profile: {} on {} core{}", report.function, cores, if cores == 1 { "" } else { "s" })?;
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
    for class in CLASSES {
        writeln!(out, "{class:>16}  {:>12}", accesses.get(class).copied().unwrap_or(0))?;
    }
    writeln!(out, "\nissue cycles by instruction class (all cores; per function in --json)")?;
    let issue = sum_over_cores(profile, |c| &c.issue_by_class);
    for class in q7_sim::cost::InsnClass::ALL.map(|c| c.name()) {
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

/// The folded stacks drawn by inferno.
fn flame_graph(profile: &OpProfile, report: &OpReport) -> Result<Vec<u8>> {
    let mut options = inferno::flamegraph::Options::default();
    options.title =
        format!("q7 profile: {} ({} v{} cycles)", report.function, profile.model.name, profile.model.version);
    options.count_name = "cycles".into();
    let mut svg = Vec::new();
    let lines = profile.folded.iter().map(String::as_str);
    inferno::flamegraph::from_lines(&mut options, lines, &mut svg).context("drawing the flame graph")?;
    Ok(svg)
}
