//! `q7 run`: flags in, `q7_sim::op::OpLibrary::run`, a report out (or the
//! host run of `run_native`, or the debugger on a finding).

use anyhow::Result;
use clap::ArgMatches;

use super::session::{execute, finish, with_session, Args};

/// Run a built op on real tensors in the Vision-Q7 simulator.
///
/// IMAGE is a build directory (NAME_cpu0..7.* of a multicore build, or one
/// NAME.*) or one image: a linked NAME.so, NAME.stripped.so, NAME.packed.so
/// or a UCPL file. --fn takes the compute function's name or the op's name
/// from its schema (they differ when the shape sources register
/// `m.def("op", &shape, "compute_fn")`).
///
/// The kernel arguments (--in, --arg, --scalar, --int, --double) are passed
/// in the order given, and checked before launch against the schema the
/// build embedded in the image: a missing, extra or wrong-kind argument is
/// refused, naming the parameter and its schema type. --arg takes a plain
/// number and converts it to the parameter's type.
///
/// get_dst_tensor() returns a destination tensor with the shape and dtype the
/// op's shape function gives for these inputs when the build has one
/// (`q7 build --shape`), else those of the first input; --dst-shape and
/// --dst-dtype override either. The output
/// is the tensor core 0 returns, or the destination tensor when that is what
/// it returns (multicore ops) or when it returns nothing.
///
/// Two kinds of checks guard a run. q7's checks, which the hardware does not
/// make, are on unless --no-checks: stores outside every live tensor and
/// allocation, two cores writing the same output element, reads of output
/// nobody wrote; each is reported with core, pc, tensor and element, and
/// findings fail the run. Output elements no core wrote are reported too, as
/// a note (an error with --strict). The SDK's own runtime checks (TCM copy
/// ranges, accessor dtype and rank, failed asserts) are part of the op's code:
/// they stop the op with status 7 and their message, whatever --no-checks
/// says. --no-sdk-checks turns the range, dtype and rank checks off, to see
/// what the hardware would do (q7's checks then still report stray accesses).
///
/// --native builds the same op for this machine (clang++-22 with
/// AddressSanitizer + UndefinedBehaviorSanitizer, then MemorySanitizer; needs
/// the build directory `q7 build` made) and runs it on the same inputs, the
/// eight cores one after another (--seed shuffles their order) on shared
/// tensors, each with its own 16 KiB TCM pool; sanitizer reports fail the
/// run, naming the op's source file and line. --compare runs both and
/// reports the first output elements that differ (exact unless --tolerance).
#[derive(Clone, Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: Args,
    #[command(flatten)]
    pub native: super::run_native::NativeFlags,
    /// When the run has findings, open the debugger (`q7 debug`) stopped at
    /// the first, with its call stack; commands come from the terminal (or
    /// stdin).
    #[arg(long = "debug-on-finding")]
    pub debug_on_finding: bool,
}

pub fn run(all: RunArgs, matches: Option<&ArgMatches>) -> Result<()> {
    let args = all.common;
    if all.native.wanted()? {
        return super::run_native::run(&args, &all.native, matches);
    }
    if args.stats {
        // Priced by the same model as `q7 profile`, on the fast engines.
        let (report, estimate) = with_session(&args, matches, |s| s.run_estimated(), |r| &mut r.0)?;
        finish(&args, report, Some(&estimate))
    } else {
        let report = execute(&args, matches)?;
        if all.debug_on_finding && !report.findings.is_empty() {
            eprintln!("q7 run: {} findings; the debugger stops at the first", report.finding_counts.total());
            super::debug::at_first_finding(&args, matches)?;
        }
        finish(&args, report, None)
    }
}
