//! `q7 profile`: `q7 run` on the profiling path, and where the time went.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::ArgMatches;
use q7_sim::op::profile::OpProfile;
use q7_sim::op::profile_text;
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
    run: super::session::Args,
    /// Write a flame graph of the simulated call stacks (cycles) as SVG.
    #[arg(long, value_name = "FILE.svg")]
    svg: Option<PathBuf>,
    /// Write the folded call stacks (`frame;frame cycles`, flame-graph input).
    #[arg(long, value_name = "FILE")]
    folded: Option<PathBuf>,
    /// Rows of the function and line tables (0 = all).
    #[arg(long, default_value_t = profile_text::DEFAULT_TOP)]
    top: usize,
}

pub fn run(args: Args, matches: Option<&ArgMatches>) -> Result<()> {
    let (report, profile) = super::session::execute_profiled(&args.run, matches)?;
    // Output files, findings and failures as `q7 run` handles them.
    let mut run_args = args.run.clone();
    (run_args.json, run_args.stats) = (false, false);
    if super::session::interrupted(&report) {
        // A partial profile is no report: nothing is written or printed.
        return super::session::finish(&run_args, report, None);
    }
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
        profile_text::write_report(&mut out, &report.function, report.cores, &profile, args.top)?;
        out.flush()?;
    }
    super::session::finish(&run_args, report, None)
}

#[derive(serde::Serialize)]
struct JsonProfile<'a> {
    report: &'a OpReport,
    profile: &'a OpProfile,
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
