use anyhow::Result;
use q7_build::command::Command;
use q7_build::driver::Observer;
use q7_build::prepare::{self, DeviceSdk};
use q7_build::toolchain::ProcessEnv;

/// Build ahead what a first `q7 build` builds before it compiles an op: the
/// open toolchain's device SDK (and with --native the host SDKs `q7 run
/// --native` links), into the cache the CLI and the Python package share
/// ($Q7_CACHE_DIR, else $XDG_CACHE_HOME/q7, else ~/.cache/q7). Once per q7
/// version and compiler; what is built already is kept.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also the host SDKs of `q7 run --native` (AddressSanitizer with UBSan, MemorySanitizer).
    #[arg(long)]
    native: bool,
    /// Parallel compiles (default: the machine's cores).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Print nothing but errors.
    #[arg(short, long)]
    quiet: bool,
    /// Print the commands.
    #[arg(short, long)]
    verbose: bool,
}

/// Prints the notes of long steps (and with -v the commands) on stderr.
pub struct Notes {
    pub quiet: bool,
    pub verbose: bool,
}

impl Observer for Notes {
    fn phase(&self, _: &str, _: usize) {}
    fn step(&self, _: &str, _: bool) {}
    fn command(&self, cmd: &Command) {
        if self.verbose {
            eprintln!("{}", cmd.display());
        }
    }
    fn note(&self, line: &str) {
        if !self.quiet {
            eprintln!("q7: {line}");
        }
    }
}

pub fn run(args: Args) -> Result<()> {
    let here = std::env::current_dir()?;
    let cache = prepare::cache(&ProcessEnv, &here);
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let notes = Notes { quiet: args.quiet, verbose: args.verbose };
    let device = prepare::prepare(&ProcessEnv, &cache, jobs, args.native, &notes)?;
    if !args.quiet {
        match device {
            DeviceSdk::Vendor => println!("the vendor's toolchain builds the ops; it brings its own SDK"),
            DeviceSdk::Open { archive, .. } => println!("device SDK ready: {}", archive.display()),
        }
        if args.native {
            println!("host SDKs for q7 run --native ready in {}", cache.display());
        }
    }
    Ok(())
}
