//! `q7 build`: the phases of `build_custom_op.compile()` (docs/PLATFORM.md, "Build phases") —
//! tool check, generate `wrapper.cpp`, compile it together with the op's
//! sources, then per image: link once (single LSP) or eight times
//! (`<name>_cpuN`) and strip + pack unless the caller's cflags hold `-g`.
//!
//! Scheduling: independent work shares one job pool, so on two cores the
//! wrapper compiles beside the op's source and each image is packed by the
//! job that linked it (no barrier between the links and the packs).

use std::path::{Path, PathBuf};

use q7_target::memmap::Window;
use q7_target::{Artifact, ArtifactKind};

use crate::backend_errors;
use crate::builddir;
use crate::command::Command;
use crate::exec::{self, ExecError};
use crate::incremental;
use crate::request::{io_err, lock_file, with_suffix, Unit};
pub use crate::request::{BuildError, BuildReport, BuildRequest, Observer, Quiet, ToolchainChoice};
use crate::schema;
use crate::sdk;
use crate::timeline::Timeline;
use crate::toolchain::{self, AsmJob, CompileFlags, Env, Language, OpenSetup, Toolchain, VendorSetup};
use crate::wrapper;

/// Every source is a file, and there is at least one: said before any
/// tool runs.
fn check_sources(sources: &[PathBuf]) -> Result<(), BuildError> {
    if sources.is_empty() {
        return Err(BuildError::NoSources);
    }
    for src in sources {
        if src.is_dir() {
            return Err(BuildError::SourceIsDirectory(src.display().to_string()));
        }
        if !src.is_file() {
            return Err(BuildError::MissingSource(src.display().to_string()));
        }
        if crate::command::read_as_response_file(src) {
            return Err(BuildError::ResponseFileName(src.display().to_string()));
        }
    }
    Ok(())
}

/// Holds an exclusive lock on `DIR/.q7-build.lock` for the build, so that a
/// second build into the same directory waits instead of racing this one.
fn lock_build_dir(dir: &Path) -> Result<std::fs::File, BuildError> {
    let path = dir.join(".q7-build.lock");
    lock_file(&path).map_err(io_err(&path))
}

enum Tools {
    Vendor {
        setup: VendorSetup,
        cc: PathBuf,
        packer: Option<PathBuf>,
    },
    /// `direct_asm`: C/C++ straight to assembly (`Q7_DIRECT_ASM=1`), skipping
    /// the IR legalisation step (crate::legalize).
    Open {
        setup: OpenSetup,
        sdk: sdk::Sdk,
        lsp_dir: PathBuf,
        direct_asm: bool,
    },
}

/// Writes `bytes` unless the file already holds them (keeps mtimes stable
/// for incremental builds).
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool, BuildError> {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(false);
    }
    q7_target::fs::write_generated(path, bytes).map_err(io_err(path))?;
    Ok(true)
}

/// Runs `cmd` to make `output` unless it is up to date with `inputs`.
/// Returns whether it ran.
fn make(
    obs: &dyn Observer,
    cmd: &Command,
    output: &Path,
    inputs: &[PathBuf],
    run: impl FnOnce() -> Result<(), BuildError>,
) -> Result<bool, BuildError> {
    let fp = cmd.fingerprint();
    if incremental::up_to_date(output, &fp, inputs) {
        return Ok(false);
    }
    obs.command(cmd);
    run()?;
    incremental::record(output, &fp).map_err(io_err(output))?;
    Ok(true)
}

/// Whether a build with `choice` uses the vendor's toolchain (`xt-clang++`).
pub fn uses_vendor(env: &dyn Env, choice: ToolchainChoice) -> bool {
    match choice {
        ToolchainChoice::XtensaTools => true,
        ToolchainChoice::Open => false,
        ToolchainChoice::Auto => {
            let vendor = VendorSetup::from_env(env);
            toolchain::find_program(env, toolchain::VENDOR_COMPILER, std::slice::from_ref(&vendor.bin)).is_some()
        }
    }
}

/// The open toolchain's programs, found on PATH (clang's header directory
/// remembered in `cache`).
pub fn open_setup(env: &dyn Env, cache: &Path) -> Result<OpenSetup, BuildError> {
    let find = |name: &str| {
        toolchain::find_program(env, name, &[])
            .ok_or_else(|| BuildError::ToolMissing(format!("{name} (the open toolchain; run scripts/bootstrap.sh)")))
    };
    let cc = find(toolchain::OPEN_CC)?;
    let resource = sdk::resource_include(&cc, cache)
        .map_err(|e| BuildError::ToolMissing(format!("a working {}: {e}", toolchain::OPEN_CC)))?;
    Ok(OpenSetup {
        mc: find(toolchain::OPEN_MC)?,
        llc: find(toolchain::OPEN_LLC)?,
        ld: find(toolchain::OPEN_LD)?,
        ar: find(toolchain::OPEN_AR)?,
        cc,
        resource_include: resource,
    })
}

/// Resolves the toolchain and prepares what it needs (SDK, LSPs).
fn resolve_tools(req: &BuildRequest, env: &dyn Env, obs: &dyn Observer) -> Result<Tools, BuildError> {
    let vendor = VendorSetup::from_env(env);
    let vendor_cc = toolchain::find_program(env, toolchain::VENDOR_COMPILER, std::slice::from_ref(&vendor.bin));
    let use_vendor = match req.toolchain {
        ToolchainChoice::XtensaTools => true,
        ToolchainChoice::Open => false,
        ToolchainChoice::Auto => vendor_cc.is_some(),
    };
    if use_vendor {
        let cc = vendor_cc.ok_or_else(|| BuildError::ToolMissing(toolchain::VENDOR_COMPILER.into()))?;
        let packer = toolchain::find_program(env, toolchain::VENDOR_PACKER, std::slice::from_ref(&vendor.bin));
        return Ok(Tools::Vendor { setup: vendor, cc, packer });
    }
    let cache = sdk::cache_root(env, &req.build_dir);
    let setup = open_setup(env, &cache)?;
    obs.phase("sdk", 1);
    let sdk = sdk::ensure(&setup, &cache, req.jobs.max(1), obs)?;
    obs.step("libq7sdk.a", false);
    let lsp_dir = req.build_dir.join("lsp_fll_load_cpus");
    for f in crate::lsp::all_lsp_files() {
        write_if_changed(&lsp_dir.join(&f.path), f.contents.as_bytes())?;
    }
    // The pipeline before the IR step, kept for measuring it (benches/compile_paths.rs)
    // and for bisecting a suspected legaliser problem.
    let direct_asm = env.var("Q7_DIRECT_ASM").is_some_and(|v| v == "1");
    Ok(Tools::Open { setup, sdk, lsp_dir, direct_asm })
}

fn compile_unit(
    tools: &Tools,
    req: &BuildRequest,
    unit: &Unit,
    includes: &[PathBuf],
    obs: &dyn Observer,
) -> Result<bool, BuildError> {
    let compile_err = |error: ExecError| BuildError::Compile { src: unit.src.display().to_string(), error };
    match tools {
        Tools::Vendor { setup, cc, .. } => {
            let cmd = setup.compile(cc, &req.cflags, includes, &unit.obj, &unit.src);
            let dep = unit.obj.with_extension("d");
            let mut inputs = incremental::depfile_inputs(&dep).unwrap_or_default();
            inputs.push(unit.src.clone());
            make(obs, &cmd, &unit.obj, &inputs, || {
                builddir::clear(&[&unit.obj, &dep])?;
                exec::run(&cmd).map(drop).map_err(|e| {
                    let _ = std::fs::remove_file(&unit.obj);
                    compile_err(e)
                })
            })
        }
        Tools::Open { setup, sdk, direct_asm, .. } => {
            let lang =
                Language::of(&unit.src).ok_or_else(|| BuildError::UnknownLanguage(unit.src.display().to_string()))?;
            let flags = CompileFlags { sdk_include: &sdk.include, cflags: &req.cflags, includes };
            if lang != Language::Asm && !direct_asm {
                return crate::ir_compile::compile_through_ir(setup, req, unit, lang, flags, obs);
            }
            let tmp_obj = with_suffix(&unit.obj, ".tmp");
            let dep = unit.obj.with_extension("d");
            let asm = unit.obj.with_extension("s");
            let first = if lang == Language::Asm {
                setup.preprocess_asm(&sdk.include, &unit.src, &asm)
            } else {
                setup.compile_to_asm(
                    &flags,
                    &AsmJob { lang, src: &unit.src, asm: &asm, depfile: &dep, dep_target: &unit.obj },
                )
            };
            let mut inputs = if lang == Language::Asm { Some(Vec::new()) } else { incremental::depfile_inputs(&dep) }
                .unwrap_or_else(|| vec![dep.clone()]);
            inputs.push(unit.src.clone());
            make(obs, &first, &unit.obj, &inputs, || {
                builddir::clear(&[&asm, &dep, &tmp_obj])?;
                exec::run(&first).map_err(compile_err)?;
                let fixed = toolchain::assembly_for_mc(lang, &asm, &unit.obj.with_extension("q7.s"))
                    .map_err(|(path, source)| io_err(&path)(source))?;
                let second = setup.assemble(&fixed, &tmp_obj);
                obs.command(&second);
                exec::run(&second).map_err(compile_err)?;
                std::fs::rename(&tmp_obj, &unit.obj).map_err(io_err(&unit.obj))
            })
        }
    }
}

fn link_one(
    tools: &Tools,
    window: Window,
    objs: &[PathBuf],
    lib: &Path,
    obs: &dyn Observer,
) -> Result<bool, BuildError> {
    let link_err = |error: ExecError| BuildError::Link { lib: lib.display().to_string(), error };
    match tools {
        Tools::Vendor { setup, cc, .. } => {
            let cmd = setup.link(cc, window, objs, lib);
            make(obs, &cmd, lib, objs, || {
                builddir::clear(&[lib])?;
                exec::run(&cmd).map(drop).map_err(|e| {
                    let _ = std::fs::remove_file(lib);
                    link_err(e)
                })
            })
        }
        Tools::Open { setup, sdk, lsp_dir, .. } => {
            let tmp = with_suffix(lib, ".tmp");
            let archives = [sdk.archive.clone()];
            let cmd = setup.link(lsp_dir, window, objs, &archives, &tmp);
            let mut inputs = objs.to_vec();
            inputs.push(sdk.archive.clone());
            make(obs, &cmd, lib, &inputs, || {
                builddir::clear(&[&tmp])?;
                exec::run(&cmd).map_err(|e| {
                    let _ = std::fs::remove_file(&tmp);
                    match &e {
                        ExecError::Failed { stderr, .. } => {
                            backend_errors::explain_link_failure(stderr, &|f| crate::ir_compile::demangle(setup, f))
                                .map_or_else(
                                    || link_err(e),
                                    |reason| BuildError::Refused { src: lib.display().to_string(), reason },
                                )
                        }
                        ExecError::Spawn { .. } => link_err(e),
                    }
                })?;
                std::fs::rename(&tmp, lib).map_err(io_err(lib))
            })
        }
    }
}

fn pack_one(tools: &Tools, lib: &Path, stripped: &Path, packed: &Path, obs: &dyn Observer) -> Result<bool, BuildError> {
    let pack_err = |error: String| BuildError::Pack { lib: lib.display().to_string(), error };
    if let Tools::Vendor { setup, packer: Some(packer), .. } = tools {
        let cmd = setup.pack(packer, lib, stripped, packed);
        return make(obs, &cmd, packed, &[lib.to_path_buf()], || {
            builddir::clear(&[stripped, packed])?;
            exec::run(&cmd).map(drop).map_err(|e| pack_err(e.to_string()))
        });
    }
    // In-process: the same steps as xt-pkg-loadlib (q7 pack).
    let cmd = Command::new("q7").arg("pack").path_arg("-o", packed).path_arg("-s", stripped).operand(lib);
    make(obs, &cmd, packed, &[lib.to_path_buf()], || {
        let input = std::fs::read(lib).map_err(io_err(lib))?;
        let out = q7_pack::pack(&input, &q7_pack::PackOptions::default(), &mut std::io::sink())
            .map_err(|e| pack_err(e.to_string()))?;
        q7_target::fs::write_generated(stripped, &out.stripped).map_err(io_err(stripped))?;
        q7_target::fs::write_generated(packed, &out.packed).map_err(io_err(packed))
    })
}

fn count(report: &mut BuildReport, ran: &[bool]) {
    report.steps_run += ran.iter().filter(|r| **r).count();
    report.steps_skipped += ran.iter().filter(|r| !**r).count();
}

/// Refuses a build whose generated files (the wrapper, each object and its
/// intermediates, the images, the native manifest) would land on one of its
/// own sources, as with `build_directory=os.getcwd()` and a source named
/// `wrapper.cpp`.
fn refuse_overwriting_sources(
    req: &BuildRequest,
    units: &[Unit],
    wrapper: &Path,
    base: &str,
) -> Result<(), BuildError> {
    let canonical = |p: &Path| -> Option<PathBuf> {
        match p.canonicalize() {
            Ok(path) => Some(path),
            Err(_) => Some(p.parent()?.canonicalize().ok()?.join(p.file_name()?)),
        }
    };
    let sources: Vec<(PathBuf, &PathBuf)> = req.sources.iter().filter_map(|s| Some((canonical(s)?, s))).collect();
    let mut generated = vec![wrapper.to_path_buf(), req.build_dir.join(crate::native::MANIFEST)];
    for unit in units.iter().map(|u| &u.obj).chain([&wrapper.with_extension("o")]) {
        generated.extend(["o", "d", "s", "ll", "q7.ll", "q7.s"].map(|ext| unit.with_extension(ext)));
    }
    for artifact in Artifact::windows(req.multicore).into_iter().map(|w| Artifact::new(base, w, ArtifactKind::Linked)) {
        for kind in [ArtifactKind::Linked, ArtifactKind::Stripped, ArtifactKind::Packed] {
            generated.push(req.build_dir.join(artifact.with_kind(kind).file_name()));
        }
    }
    for path in generated {
        let Some(at) = canonical(&path) else { continue };
        if let Some((_, source)) = sources.iter().find(|(s, _)| *s == at) {
            let generated = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            return Err(BuildError::SourceOverwritten { path: source.display().to_string(), generated });
        }
    }
    Ok(())
}

/// Runs the whole build.
pub fn build(req: &BuildRequest, env: &dyn Env, obs: &dyn Observer) -> Result<BuildReport, BuildError> {
    let base = Path::new(&req.name).with_extension("");
    let base = base
        .to_str()
        .filter(|b| !b.is_empty() && !b.contains('/'))
        .ok_or_else(|| BuildError::BadName(req.name.clone()))?;
    let jobs = req.jobs.max(1);
    let mut report = BuildReport::default();
    check_sources(&req.sources)?;
    let mut timeline = Timeline::start();

    // Phase 0: tools (and, for the open profile, the SDK and LSPs).
    builddir::ensure_private(&req.build_dir)?;
    let _lock = lock_build_dir(&req.build_dir)?;
    let tools = timeline.phase("tools+sdk", 1, |_| resolve_tools(req, env, obs))?;
    report.toolchain = Some(match tools {
        Tools::Vendor { .. } => Toolchain::XtensaTools,
        Tools::Open { .. } => Toolchain::Open,
    });

    // Phase 1: the op's sources.
    let mut units: Vec<Unit> = Vec::new();
    for src in &req.sources {
        if !src.is_file() {
            return Err(BuildError::MissingSource(src.display().to_string()));
        }
        let stem = src.file_stem().unwrap_or_default();
        let obj = req.build_dir.join(stem).with_extension("o");
        if let Some(other) = units.iter().find(|u| u.obj == obj) {
            return Err(BuildError::ObjectClash(
                other.src.display().to_string(),
                src.display().to_string(),
                obj.display().to_string(),
            ));
        }
        units.push(Unit { src: src.clone(), obj });
    }
    // Schemas are checked before any compile so a typo fails fast.
    let schemas = req.schemas.iter().map(|s| schema::parse(s)).collect::<Result<Vec<_>, _>>()?;
    let ops = wrapper::ops(&req.functions, schemas)?;

    // Phases 2 and 3: the wrapper, generated first so that it compiles in the
    // same pool as the op's sources (last, so an op's error is reported first).
    let wrapper_src = req.build_dir.join("wrapper.cpp");
    let wrapper_obj = req.build_dir.join("wrapper.o");
    refuse_overwriting_sources(req, &units, &wrapper_src, base)?;
    if let Some(user) = units.iter().find(|u| u.obj == wrapper_obj) {
        let (src, obj) = (user.src.display().to_string(), wrapper_obj.display().to_string());
        return Err(BuildError::ObjectClash(src, "the generated wrapper.cpp".into(), obj));
    }
    write_if_changed(&wrapper_src, wrapper::generate(base, &ops).as_bytes())?;
    // What `q7 run --native` needs to build the same op for the host.
    crate::native::record_manifest(req).map_err(io_err(&req.build_dir))?;
    units.push(Unit { src: wrapper_src.clone(), obj: wrapper_obj.clone() });
    obs.phase("compile", units.len());
    let ran = timeline.phase("compile", units.len(), |clock| {
        q7_target::par::try_map(&units, jobs, |u| {
            let is_wrapper = u.obj == wrapper_obj;
            let includes: &[PathBuf] = if is_wrapper { &[] } else { &req.includes };
            let r = clock.step(|| compile_unit(&tools, req, u, includes, obs))?;
            obs.step(&if is_wrapper { "wrapper.cpp".into() } else { u.src.display().to_string() }, !r);
            Ok::<_, BuildError>(r)
        })
    })?;
    count(&mut report, &ran);
    report.wrapper = wrapper_src;

    // Phases 4 and 5: per image, link, then strip + pack unless the caller's
    // cflags (not the fixed bundle) ask for a debug build.
    let objs: Vec<PathBuf> = units.iter().map(|u| u.obj.clone()).collect();
    let targets: Vec<(Window, Artifact)> = Artifact::windows(req.multicore)
        .into_iter()
        .map(|w| (w, Artifact::new(base, w, ArtifactKind::Linked)))
        .collect();
    let path_of = |a: &Artifact, kind: ArtifactKind| req.build_dir.join(a.with_kind(kind).file_name());
    let pack = !req.cflags.iter().any(|f| f == "-g");
    let (phase, steps) = if pack { ("link+pack", 2 * targets.len()) } else { ("link", targets.len()) };
    obs.phase(phase, steps);
    let ran = timeline.phase(phase, steps, |clock| {
        q7_target::par::try_map(&targets, jobs, |(window, artifact)| {
            clock.step(|| {
                let lib = path_of(artifact, ArtifactKind::Linked);
                let linked = link_one(&tools, *window, &objs, &lib, obs)?;
                obs.step(&artifact.file_name(), !linked);
                if !pack {
                    return Ok::<_, BuildError>(vec![linked]);
                }
                let stripped = path_of(artifact, ArtifactKind::Stripped);
                let packed = path_of(artifact, ArtifactKind::Packed);
                let repacked = pack_one(&tools, &lib, &stripped, &packed, obs)?;
                obs.step(&artifact.with_kind(ArtifactKind::Packed).file_name(), !repacked);
                Ok(vec![linked, repacked])
            })
        })
    })?;
    count(&mut report, &ran.concat());
    report.libraries = targets.iter().map(|(_, a)| path_of(a, ArtifactKind::Linked)).collect();
    if pack {
        report.stripped = targets.iter().map(|(_, a)| path_of(a, ArtifactKind::Stripped)).collect();
        report.packed = targets.iter().map(|(_, a)| path_of(a, ArtifactKind::Packed)).collect();
    }
    obs.timeline(timeline.phases(), jobs);
    Ok(report)
}
