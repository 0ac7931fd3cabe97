//! The open profile's compile of a C/C++ source through LLVM IR (issue 20):
//! clang-22 `-S -emit-llvm`, q7's rewrites and refusals (crate::legalize),
//! `llc-22` (retried with a padded frame when its register scavenger gives
//! up), the literal-pool fix-up and `llvm-mc-22` — one incremental step.
//! When only clang's command changed (a define, an include directory) and
//! the IR it makes is the IR the object was made from, the object stays: the
//! rest of the step, and the link after it, are not run again.

use std::path::Path;

use crate::backend_errors;
use crate::command::Command;
use crate::exec::{self, ExecError};
use crate::incremental;
use crate::request::{io_err, with_suffix, BuildError, BuildRequest, Observer, Unit};
use crate::toolchain::{self, AsmJob, CompileFlags, Language, OpenSetup};

/// A C/C++ source in the open profile: clang-22 to LLVM IR, q7's rewrites
/// for the backend's defects (crate::legalize), llc-22, the literal-pool
/// fix-up, llvm-mc. One incremental step, keyed on every command in it.
pub(crate) fn compile_through_ir(
    setup: &OpenSetup,
    req: &BuildRequest,
    unit: &Unit,
    lang: Language,
    flags: CompileFlags,
    obs: &dyn Observer,
) -> Result<bool, BuildError> {
    let src = unit.src.display().to_string();
    let compile_err = |error: ExecError| BuildError::Compile { src: src.clone(), error };
    let (dep, ir, legal, asm) = (
        unit.obj.with_extension("d"),
        unit.obj.with_extension("ll"),
        unit.obj.with_extension("q7.ll"),
        unit.obj.with_extension("s"),
    );
    let tmp_obj = with_suffix(&unit.obj, ".tmp");
    let job = AsmJob { lang, src: &unit.src, asm: &ir, depfile: &dep, dep_target: &unit.obj };
    let first = setup.compile_to_ir(&flags, &job);
    // In-process; shown under -v as the step it is.
    let rewrite = Command::new("q7").arg("legalize-ir").operand(&ir).path_arg("-o", &legal);
    let codegen = setup.codegen(lang, &req.cflags, &legal, &asm);
    let fixed = unit.obj.with_extension("q7.s");
    let assemble = setup.assemble(&fixed, &tmp_obj);
    let after_ir = [&rewrite, &codegen, &assemble].map(|c| c.fingerprint()).join("\n") + crate::legalize::REVISION;
    let fingerprint = first.fingerprint() + "\n" + &after_ir;
    let mut inputs = incremental::depfile_inputs(&dep).unwrap_or_else(|| vec![dep.clone()]);
    inputs.push(unit.src.clone());
    if incremental::up_to_date(&unit.obj, &fingerprint, &inputs) {
        return Ok(false);
    }
    // The tools write these in place: stale ones go first (crate::builddir).
    crate::builddir::clear(&[&dep, &ir, &asm, &tmp_obj])?;
    obs.command(&first);
    exec::run(&first).map_err(compile_err)?;
    let text = std::fs::read_to_string(&ir).map_err(io_err(&ir))?;
    // What the object was made from: the IR and every step after it.
    let ir_key = with_suffix(&unit.obj, ".q7ir");
    let made_from = format!("{:016x}", crate::sdk::fnv64(&[after_ir.as_bytes(), text.as_bytes()]));
    if incremental::intact(&unit.obj) && std::fs::read_to_string(&ir_key).is_ok_and(|k| k == made_from) {
        incremental::record(&unit.obj, &fingerprint).map_err(io_err(&unit.obj))?;
        return Ok(false);
    }
    crate::builddir::clear(&[&ir_key])?;
    legalize_and_codegen(setup, &src, &text, &rewrite, &legal, &codegen, obs)?;
    toolchain::assembly_for_mc(lang, &asm, &fixed).map_err(|(path, source)| io_err(&path)(source))?;
    obs.command(&assemble);
    exec::run(&assemble).map_err(compile_err)?;
    std::fs::rename(&tmp_obj, &unit.obj).map_err(io_err(&unit.obj))?;
    incremental::record(&unit.obj, &fingerprint).map_err(io_err(&unit.obj))?;
    // Best effort: without it the next change of clang's flags runs the whole step.
    let _ = q7_target::fs::write_generated(&ir_key, made_from.as_bytes());
    Ok(true)
}

/// Writes the legalised IR to `legal` and runs `codegen` (llc) on it. When
/// llc's register scavenger gives up on a function (sdk/README.md, defect 7),
/// retries with that function's frame padded past 2 KiB, up to four
/// functions; other failures become one-line errors naming the function.
fn legalize_and_codegen(
    setup: &OpenSetup,
    src: &str,
    text: &str,
    rewrite: &Command,
    legal: &Path,
    codegen: &Command,
    obs: &dyn Observer,
) -> Result<(), BuildError> {
    let mut padded: Vec<String> = Vec::new();
    loop {
        let shown = padded.iter().fold(rewrite.clone(), |c, f| c.arg("--pad-stack").arg(f));
        obs.command(&shown);
        let legalized = crate::legalize::legalize_padded(text, &padded).map_err(|refusal| BuildError::Refused {
            src: src.to_string(),
            reason: refusal.renamed(demangle(setup, refusal.function())).to_string(),
        })?;
        q7_target::fs::write_generated(legal, legalized.ir.as_bytes()).map_err(io_err(legal))?;
        obs.command(codegen);
        let error = match exec::run(codegen) {
            Ok(_) => return Ok(()),
            Err(error) => error,
        };
        let ExecError::Failed { stderr, .. } = &error else {
            return Err(BuildError::Compile { src: src.to_string(), error });
        };
        if backend_errors::is_scavenger_failure(stderr) && padded.len() < 4 {
            if let Some(function) = backend_errors::failing_function(stderr).filter(|f| !padded.contains(f)) {
                padded.push(function);
                continue;
            }
        }
        return Err(match backend_errors::explain_backend_failure(stderr, &|f| demangle(setup, f)) {
            Some(reason) => BuildError::Refused { src: src.to_string(), reason },
            None => BuildError::Compile { src: src.to_string(), error },
        });
    }
}

/// A C++ symbol as its author wrote it (`llvm-cxxfilt-22`, beside `llc-22`);
/// the IR name itself when that fails.
pub(crate) fn demangle(setup: &OpenSetup, name: &str) -> String {
    if !name.starts_with("_Z") {
        return name.to_string();
    }
    let filt = setup.llc.with_file_name("llvm-cxxfilt-22");
    exec::run(&Command::new(filt).arg(name))
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| name.to_string())
}
