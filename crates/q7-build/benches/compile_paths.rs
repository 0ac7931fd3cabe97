//! `cargo bench -p q7-build --bench compile_paths`: what the IR legalisation
//! step (issue 20) costs. Every example op source (examples/*, builtin/) is
//! compiled, one at a time, by the open profile's pipeline before the step
//! (clang-22 -S → literal-pool fix-up → llvm-mc) and after it (clang-22
//! -emit-llvm → q7's rewrites → llc-22 → fix-up → llvm-mc); medians of 3.
//! Then the full `q7 build` of every example both ways (`Q7_DIRECT_ASM=1`
//! selects the pipeline before the step), which is what issue 20 bounds
//! (at most +20 %).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use q7_build::driver::{build, BuildRequest, Quiet, ToolchainChoice};
use q7_build::exec::run;
use q7_build::toolchain::{self, AsmJob, CompileFlags, Env, Language, OpenSetup, ProcessEnv};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

fn tool(name: &str) -> PathBuf {
    toolchain::find_program(&ProcessEnv, name, &[])
        .unwrap_or_else(|| panic!("{name} missing: run scripts/bootstrap.sh"))
}

fn setup() -> OpenSetup {
    let cc = tool(toolchain::OPEN_CC);
    let out = run(&q7_build::command::Command::new(&cc).arg("-print-resource-dir")).expect("clang-22 runs");
    let resource = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("include");
    OpenSetup {
        mc: tool(toolchain::OPEN_MC),
        llc: tool(toolchain::OPEN_LLC),
        ld: tool(toolchain::OPEN_LD),
        ar: tool(toolchain::OPEN_AR),
        cc,
        resource_include: resource,
    }
}

/// The pipeline before issue 20.
fn direct(open: &OpenSetup, flags: &CompileFlags, src: &Path, work: &Path) {
    let (asm, fixed, obj, dep) = (work.join("a.s"), work.join("a.q7.s"), work.join("a.o"), work.join("a.d"));
    let job = AsmJob { lang: Language::Cpp, src, asm: &asm, depfile: &dep, dep_target: &obj };
    run(&open.compile_to_asm(flags, &job)).expect("clang -S");
    toolchain::assembly_for_mc(Language::Cpp, &asm, &fixed).expect("fix-up");
    run(&open.assemble(&fixed, &obj)).expect("llvm-mc");
}

/// The pipeline with the legalisation step.
fn through_ir(open: &OpenSetup, flags: &CompileFlags, src: &Path, work: &Path) {
    let (ir, legal) = (work.join("b.ll"), work.join("b.q7.ll"));
    let (asm, fixed, obj, dep) = (work.join("b.s"), work.join("b.q7.s"), work.join("b.o"), work.join("b.d"));
    let job = AsmJob { lang: Language::Cpp, src, asm: &ir, depfile: &dep, dep_target: &obj };
    run(&open.compile_to_ir(flags, &job)).expect("clang -emit-llvm");
    let text = std::fs::read_to_string(&ir).expect("IR");
    let legalized = q7_build::legalize::legalize(&text).expect("example sources need no refusal");
    std::fs::write(&legal, legalized.ir).expect("write IR");
    run(&open.codegen(Language::Cpp, &[], &legal, &asm)).expect("llc");
    toolchain::assembly_for_mc(Language::Cpp, &asm, &fixed).expect("fix-up");
    run(&open.assemble(&fixed, &obj)).expect("llvm-mc");
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let root = repo();
    let projects: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .chain([root.join("builtin")])
        .filter(|p| p.join("q7.toml").exists())
        .collect();
    let mut sources: Vec<PathBuf> = projects
        .iter()
        .flat_map(|p| std::fs::read_dir(p).expect("project dir").filter_map(|e| e.ok().map(|e| e.path())))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        // Shape sources register ops for the host (libtorch); they are not
        // compiled for the device.
        .filter(|p| !std::fs::read_to_string(p).is_ok_and(|text| text.contains("NEURON_LIBRARY")))
        .collect();
    sources.sort();

    let open = setup();
    let scratch = tempfile::tempdir().expect("temp dir");
    let cache = scratch.path().join("cache");
    let sdk = q7_build::sdk::ensure(&open, &cache, 2, &q7_build::driver::Quiet).expect("SDK");
    let flags = CompileFlags { sdk_include: &sdk.include, cflags: &[], includes: &[] };
    let runs = 3;
    let (mut before, mut after) = (Duration::ZERO, Duration::ZERO);
    for src in &sources {
        let time = |f: &dyn Fn()| {
            median(
                (0..runs)
                    .map(|_| {
                        let t = Instant::now();
                        f();
                        t.elapsed()
                    })
                    .collect(),
            )
        };
        let b = time(&|| direct(&open, &flags, src, scratch.path()));
        let a = time(&|| through_ir(&open, &flags, src, scratch.path()));
        before += b;
        after += a;
        let name = src.strip_prefix(&root).unwrap_or(src).display().to_string();
        println!("{name:<36} before {:>7.1} ms  after {:>7.1} ms  ({:+.1} %)", ms(b), ms(a), pct(a, b));
    }
    println!(
        "compile, {} example sources:  before {:>7.1} ms  after {:>7.1} ms  ({:+.1} %)",
        sources.len(),
        ms(before),
        ms(after),
        pct(after, before)
    );

    // The whole builds (SDK cached, as after a user's first build), the two
    // pipelines alternating, fresh build directories each time.
    let (mut full_before, mut full_after) = (Duration::ZERO, Duration::ZERO);
    for (i, project) in projects.iter().enumerate() {
        let timed = |direct: bool, round: usize| {
            let req = request(project, &scratch.path().join(format!("b{i}-{direct}-{round}")));
            let t = Instant::now();
            build(&req, &BenchEnv { direct, cache: cache.clone() }, &Quiet).expect("example builds");
            t.elapsed()
        };
        let (mut b, mut a) = (Vec::new(), Vec::new());
        for round in 0..runs {
            b.push(timed(true, round));
            a.push(timed(false, round));
        }
        full_before += median(b);
        full_after += median(a);
    }
    println!(
        "q7 build, {} examples (-j{}):     before {:>7.1} ms  after {:>7.1} ms  ({:+.1} %)",
        projects.len(),
        jobs(),
        ms(full_before),
        ms(full_after),
        pct(full_after, full_before)
    );
}

/// The process environment, with the SDK cache of this run and
/// `Q7_DIRECT_ASM=1` for the pipeline before the IR step.
struct BenchEnv {
    direct: bool,
    cache: PathBuf,
}

impl Env for BenchEnv {
    fn var(&self, key: &str) -> Option<OsString> {
        match key {
            "Q7_DIRECT_ASM" => self.direct.then(|| "1".into()),
            "Q7_CACHE_DIR" => Some(self.cache.clone().into_os_string()),
            _ => ProcessEnv.var(key),
        }
    }
}

fn pct(after: Duration, before: Duration) -> f64 {
    (after.as_secs_f64() / before.as_secs_f64() - 1.0) * 100.0
}

fn jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The example's q7.toml as a request (only the keys the examples use).
fn request(project: &Path, build_dir: &Path) -> BuildRequest {
    let text = std::fs::read_to_string(project.join("q7.toml")).expect("q7.toml");
    // A value runs to the end of its line, or to `]` for a multi-line array.
    let strings = |key: &str| -> Vec<String> {
        let Some(start) = text.find(&format!("\n{key} =")) else { return Vec::new() };
        let rest = &text[start + 1..];
        let first_line = rest.lines().next().unwrap_or_default();
        let value = if first_line.contains('[') && !first_line.contains(']') {
            &rest[..rest.find(']').unwrap_or(rest.len())]
        } else {
            first_line
        };
        value.split('"').skip(1).step_by(2).map(str::to_string).collect()
    };
    BuildRequest {
        name: strings("name").remove(0),
        functions: strings("functions"),
        schemas: strings("schemas"),
        sources: strings("sources").iter().map(|s| project.join(s)).collect(),
        build_dir: build_dir.to_path_buf(),
        multicore: text.lines().any(|l| l.trim() == "multicore = true"),
        toolchain: ToolchainChoice::Open,
        jobs: jobs(),
        ..BuildRequest::default()
    }
}
