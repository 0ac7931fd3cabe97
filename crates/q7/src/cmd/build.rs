use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use q7_build::command::Command;
use q7_build::driver::{self, BuildRequest, Observer, ToolchainChoice};
use q7_build::timeline::PhaseTime;
use q7_build::toolchain::ProcessEnv;
use q7_build::wrapper::WrapperError;
use serde::Deserialize;

/// Build a custom op: compile its sources, generate and compile wrapper.cpp,
/// link once (single fat core) or eight times (--multicore, `NAME_cpuN`), then
/// strip and pack unless a `--cflag -g` asks for a debug build. A drop-in for
/// `build_custom_op.compile()`. Without --name, the settings come from
/// `q7.toml` in the current directory (flags given on the command line win).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Library name; outputs are NAME.so, NAME.stripped.so, NAME.packed.so.
    #[arg(long)]
    name: Option<String>,
    /// The op's C++ function(s), comma-separated or repeated, in schema order.
    #[arg(long = "fn", value_delimiter = ',')]
    functions: Vec<String>,
    /// One PyTorch schema per function, e.g. 'relu_forward(Tensor _0) -> Tensor'. The schema's
    /// name is the op's name (what `torch.ops.NS.OP` calls) and may differ from the compute
    /// function's, as `NEURON_LIBRARY(ns, m) { m.def("op", &shape_fn, "compute_fn"); }`
    /// allows; the build embeds both, and `q7 run --fn` takes either.
    #[arg(long = "schema")]
    schemas: Vec<String>,
    /// The op's shape sources (`NEURON_LIBRARY` registrations, repeatable): each function's schema
    /// is derived from its shape function (--schema overrides), and `q7 run` takes its default
    /// destination shape and dtype from it.
    #[arg(long = "shape", value_name = "FILE")]
    shape_sources: Vec<PathBuf>,
    /// The op's source files (.cpp .cc .c .S).
    sources: Vec<PathBuf>,
    /// Where objects, wrapper.cpp and the libraries go.
    #[arg(long)]
    build_dir: Option<PathBuf>,
    /// Extra include directory (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    includes: Vec<PathBuf>,
    /// Extra compiler flag (repeatable); `-g` builds for debugging and skips strip + pack.
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    cflags: Vec<String>,
    /// Link eight per-core images (NAME_cpu0..7) instead of one.
    #[arg(long)]
    multicore: bool,
    /// auto (the vendor's xt-clang++ when found, else open), xtensa-tools, or open.
    #[arg(long, value_parser = ["auto", "xtensa-tools", "open"])]
    toolchain: Option<String>,
    /// Parallel jobs (default: one per CPU).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    /// The project file to read (default: ./q7.toml when --name is absent).
    #[arg(long)]
    project: Option<PathBuf>,
    /// Print every command as a copy-pasteable line.
    #[arg(short, long)]
    verbose: bool,
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
}

/// `q7.toml`: the same settings as the flags.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Project {
    name: Option<String>,
    #[serde(default)]
    functions: Vec<String>,
    #[serde(default)]
    schemas: Vec<String>,
    #[serde(default)]
    shape_sources: Vec<PathBuf>,
    #[serde(default)]
    sources: Vec<PathBuf>,
    build_dir: Option<PathBuf>,
    #[serde(default)]
    includes: Vec<PathBuf>,
    #[serde(default)]
    cflags: Vec<String>,
    #[serde(default)]
    multicore: bool,
    toolchain: Option<String>,
}

fn load_project(path: &Path) -> Result<Project> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut p: Project = toml::from_str(&text).map_err(|e| {
        let msg = e.message().to_string();
        let line = e.span().map(|s| text[..s.start].matches('\n').count() + 1);
        match line {
            Some(l) => anyhow::anyhow!("{}:{l}: {msg}", path.display()),
            None => anyhow::anyhow!("{}: {msg}", path.display()),
        }
    })?;
    // Paths in the project file are relative to the file.
    let dir = path.parent().unwrap_or(Path::new("."));
    let rel = |p: &PathBuf| if p.is_absolute() { p.clone() } else { dir.join(p) };
    p.sources = p.sources.iter().map(rel).collect();
    p.shape_sources = p.shape_sources.iter().map(rel).collect();
    p.includes = p.includes.iter().map(rel).collect();
    p.build_dir = p.build_dir.as_ref().map(rel);
    Ok(p)
}

/// The build request and the shape sources (from the flags or q7.toml).
fn request(args: &Args) -> Result<(BuildRequest, Vec<PathBuf>)> {
    let project_path = args.project.clone().or_else(|| args.name.is_none().then(|| PathBuf::from("q7.toml")));
    let project = match &project_path {
        Some(p) if p.exists() || args.project.is_some() => load_project(p)?,
        _ => Project::default(),
    };
    let pick = |cli: &Vec<String>, file: &Vec<String>| if cli.is_empty() { file.clone() } else { cli.clone() };
    let Some(name) = args.name.clone().or(project.name) else {
        bail!("no library name: give --name or write a q7.toml (see q7 build --help)");
    };
    let toolchain = match args.toolchain.as_deref().or(project.toolchain.as_deref()).unwrap_or("auto") {
        "auto" => ToolchainChoice::Auto,
        "xtensa-tools" => ToolchainChoice::XtensaTools,
        "open" => ToolchainChoice::Open,
        other => bail!("unknown toolchain '{other}': use auto, xtensa-tools or open"),
    };
    let shape_sources = if args.shape_sources.is_empty() { project.shape_sources } else { args.shape_sources.clone() };
    let req = BuildRequest {
        name,
        functions: pick(&args.functions, &project.functions),
        schemas: pick(&args.schemas, &project.schemas),
        sources: if args.sources.is_empty() { project.sources } else { args.sources.clone() },
        build_dir: args.build_dir.clone().or(project.build_dir).unwrap_or_else(|| PathBuf::from("build")),
        includes: [project.includes, args.includes.clone()].concat(),
        cflags: [project.cflags, args.cflags.clone()].concat(),
        multicore: args.multicore || project.multicore,
        toolchain,
        jobs: args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    Ok((req, shape_sources))
}

/// Builds the host shape program and fills in the functions and schemas the
/// command line and q7.toml left out (a given --schema wins).
fn derive_schemas(
    req: &mut BuildRequest,
    shape_sources: &[PathBuf],
    reporter: &Reporter,
) -> Result<(usize, usize), q7_build::shape::ShapeError> {
    let program = q7_build::shape::build(&ProcessEnv, &req.build_dir, shape_sources, &req.includes, reporter)?;
    let derived = program.schemas(&req.functions, shape_sources)?;
    for (function, schema) in &derived {
        if reporter.verbose && req.schemas.is_empty() {
            reporter.note(&format!("q7 build: {function}: schema {schema} (from the shape sources)"));
        }
    }
    if req.functions.is_empty() {
        req.functions = derived.iter().map(|(f, _)| f.clone()).collect();
    }
    if req.schemas.is_empty() {
        req.schemas = derived.into_iter().map(|(_, s)| s).collect();
    }
    Ok((program.steps_run, program.steps_skipped))
}

/// Progress on a terminal, plain lines otherwise; commands under -v.
struct Reporter {
    verbose: bool,
    bar: Option<crate::progress::Progress>,
    plain: Mutex<()>,
}

impl Reporter {
    /// A line beside the progress bar (or on stderr).
    fn note(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                let _guard = self.plain.lock();
                eprintln!("{line}");
            }
        }
    }
}

impl Observer for Reporter {
    fn phase(&self, name: &str, steps: usize) {
        if let Some(bar) = &self.bar {
            bar.phase(name, steps as u64);
        }
    }

    fn step(&self, label: &str, skipped: bool) {
        let note = if skipped { " (up to date)" } else { "" };
        match &self.bar {
            Some(bar) => bar.step(format!("{label}{note}")),
            None => {
                let _guard = self.plain.lock();
                eprintln!("q7 build: {label}{note}");
            }
        }
    }

    fn command(&self, cmd: &Command) {
        if self.verbose {
            match &self.bar {
                Some(bar) => bar.println(&cmd.display()),
                None => {
                    let _guard = self.plain.lock();
                    eprintln!("{}", cmd.display());
                }
            }
        }
    }

    fn note(&self, line: &str) {
        Reporter::note(self, &format!("q7: {line}"));
    }

    fn timeline(&self, phases: &[PhaseTime], jobs: usize) {
        if self.verbose {
            let text = timeline_text(phases, jobs);
            match &self.bar {
                Some(bar) => text.lines().for_each(|l| bar.println(l)),
                None => eprint!("{text}"),
            }
        }
    }
}

/// `-v`'s phase timeline: each phase's span from the start, and its steps'
/// summed time over that span (how many ran at once).
fn timeline_text(phases: &[PhaseTime], jobs: usize) -> String {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let mut text = format!("q7 build: timeline (-j{jobs}), ms from the start\n");
    for p in phases {
        text.push_str(&format!(
            "  {:<10} {:>7.1} .. {:>7.1}  {:>7.1} ms  {:>2} step{}  {:>7.1} ms of work, {:.2} at once\n",
            p.name,
            ms(p.start),
            ms(p.end),
            ms(p.end - p.start),
            p.steps,
            if p.steps == 1 { " " } else { "s" },
            ms(p.work),
            p.overlap()
        ));
    }
    if let Some(last) = phases.last() {
        text.push_str(&format!("  total      {:>7.1} ms\n", ms(last.end)));
    }
    // What the jobs' own times allow on this machine's cores when nothing
    // else runs (a busy machine stretches each job, not this bound's shape).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).max(jobs);
    let work: std::time::Duration = phases.iter().map(|p| p.work).sum();
    let bound: std::time::Duration = phases.iter().map(|p| p.bound(cores)).sum();
    text.push_str(&format!(
        "  these jobs on {cores} free core{}: at least {:.1} ms ({:.2}x their {:.1} ms one after another)\n",
        if cores == 1 { "" } else { "s" },
        ms(bound),
        work.as_secs_f64() / bound.as_secs_f64().max(1e-9),
        ms(work)
    ));
    text
}

pub fn run(args: Args) -> Result<()> {
    let (mut req, shape_sources) = request(&args)?;
    let bar = crate::progress::Progress::on_terminal();
    let reporter = Reporter { verbose: args.verbose, bar, plain: Mutex::new(()) };
    let shape_steps = if shape_sources.is_empty() {
        Ok((0, 0))
    } else {
        derive_schemas(&mut req, &shape_sources, &reporter).map_err(anyhow::Error::from)
    };
    let result = shape_steps.and_then(|steps| {
        let mut report = driver::build(&req, &ProcessEnv, &reporter).map_err(with_hint)?;
        report.steps_run += steps.0;
        report.steps_skipped += steps.1;
        Ok(report)
    });
    if let Some(bar) = &reporter.bar {
        bar.finish_and_clear();
    }
    let report = result.map_err(|e| {
        let text = e.to_string();
        if args.verbose {
            anyhow::anyhow!(text)
        } else {
            anyhow::anyhow!(one_line(&text))
        }
    })?;
    if args.json {
        return crate::io::print_json(&report);
    }
    let made: Vec<String> = if report.packed.is_empty() { &report.libraries } else { &report.packed }
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    println!(
        "built {} with the {} toolchain ({} steps run, {} up to date): {}",
        req.name,
        report.toolchain.map_or("?", |t| t.name()),
        report.steps_run,
        report.steps_skipped,
        made.join(" ")
    );
    Ok(())
}

/// The library's message plus the flags that fix it.
fn with_hint(e: driver::BuildError) -> anyhow::Error {
    let hint = match &e {
        driver::BuildError::Wrapper(WrapperError::CountMismatch { .. }) => "give one --schema per --fn",
        driver::BuildError::Wrapper(WrapperError::Empty) => "give at least one --fn and --schema, or --shape",
        _ => return e.into(),
    };
    anyhow::anyhow!("{e} ({hint})")
}

/// A tool's failure in one line: the first line, and the first line of the
/// tool's own output that says what went wrong (`-v` prints all of it).
fn one_line(message: &str) -> String {
    let mut lines = message.lines();
    let first = lines.next().unwrap_or_default().to_string();
    let rest: Vec<&str> = lines.map(str::trim).filter(|l| !l.is_empty()).collect();
    if rest.is_empty() {
        return first;
    }
    let telling = ["error", "undefined reference", "cannot", "fatal"];
    let pick = rest.iter().find(|l| telling.iter().any(|t| l.contains(t))).unwrap_or(&rest[0]);
    let more = if rest.len() > 1 { format!("; {} more lines with -v", rest.len() - 1) } else { String::new() };
    format!("{first}: {pick}{more}")
}

#[cfg(test)]
mod tests {
    use super::{one_line, with_hint, WrapperError};
    use q7_build::driver::BuildError;

    #[test]
    fn wrapper_errors_name_the_flags() {
        let e = with_hint(BuildError::Wrapper(WrapperError::CountMismatch { count: 2, schemas: 1 }));
        assert_eq!(
            e.to_string(),
            "2 function name(s) but 1 schema(s): each function needs one schema, in the same order (give one --schema per --fn)"
        );
        let e = with_hint(BuildError::Wrapper(WrapperError::Empty));
        assert_eq!(
            e.to_string(),
            "no ops: name at least one function and its schema (give at least one --fn and --schema, or --shape)"
        );
        // Errors no flag fixes pass through unchanged.
        assert_eq!(with_hint(BuildError::NoSources).to_string(), "no source files: give the op's .cpp/.c/.S files");
    }

    #[test]
    fn tool_output_folds_into_one_line() {
        let msg = "Error linking x.so: ld exited with exit status: 1\n    ld: warning: w\n    ld: x.o: undefined reference to `f'";
        assert_eq!(one_line(msg), "Error linking x.so: ld exited with exit status: 1: ld: x.o: undefined reference to `f'; 1 more lines with -v");
        assert_eq!(one_line("plain"), "plain");
    }
}
