//! Toolchain profiles (docs/PLATFORM.md): how each build phase becomes commands.
//!
//! * `xtensa-tools`: the vendor's `xt-clang++` and `xt-pkg-loadlib`, with the
//!   argv of docs/PLATFORM.md, "Vendor build driver", exactly (flag bundles, include order,
//!   library order, `-mlsp=` per core) and the same environment knobs.
//! * `open`: clang-22 for Xtensa (windowed ABI) through assembly and
//!   `llvm-mc-22`, GNU `xtensa-lx106-elf-ld -q` with q7's LSP scripts, and
//!   q7's own SDK and packer.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use q7_target::memmap::Window;

use crate::command::Command;

/// Which toolchain a build uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Toolchain {
    XtensaTools,
    Open,
}

impl Toolchain {
    pub fn name(self) -> &'static str {
        match self {
            Toolchain::XtensaTools => "xtensa-tools",
            Toolchain::Open => "open",
        }
    }
}

/// A lookup of environment variables (injectable for tests).
pub trait Env {
    fn var(&self, key: &str) -> Option<OsString>;
}

/// The process environment.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, key: &str) -> Option<OsString> {
        std::env::var_os(key).filter(|v| !v.is_empty())
    }
}

/// Searches `PATH` (then `extra` directories) for an executable `name`.
pub fn find_program(env: &dyn Env, name: &str, extra: &[PathBuf]) -> Option<PathBuf> {
    let path = env.var("PATH").unwrap_or_default();
    std::env::split_paths(&path).chain(extra.iter().cloned()).map(|dir| dir.join(name)).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

// ---------------------------------------------------------------- vendor

/// The default licence file `build_custom_op.py` sets when none is given.
pub const DEFAULT_LICENSE: &str = "/opt/aws/neuron/gpsimd/tools/licenses/amzn_vq7_us_582883.out";
pub const VENDOR_COMPILER: &str = "xt-clang++";
pub const VENDOR_PACKER: &str = "xt-pkg-loadlib";

/// `LINK_OPT` (docs/PLATFORM.md, "Link command") without the core flags: the part of `CC_OPT`
/// that compile and link share, in the vendor's order.
const VENDOR_LINK_OPT: [&str; 9] = [
    "-g",
    "-std=c++14",
    "-stdlib=libc++-e",
    "-fno-jump-tables",
    "-Os",
    "-Wall",
    "-Werror",
    "-Wno-c99-designator",
    "-mcoproc",
];

/// What `CC_OPT` adds for compiles (docs/PLATFORM.md, "Compile command"), right after `LINK_OPT`'s part.
const VENDOR_COMPILE_ONLY: [&str; 5] = ["-MMD", "-MP", "-fpic", "-mlongcalls", "-c"];

/// The vendor environment knobs (docs/PLATFORM.md, "Environment"), resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VendorSetup {
    /// `$NEURON_CUSTOM_OP` or `/opt/aws/neuron/gpsimd/custom_op`.
    pub neuron_root: PathBuf,
    /// `$Q7_CORE` or `ncore2gp`.
    pub core: String,
    /// `$Q7_TOOLS` or `/opt/aws/neuron/gpsimd/tools/<core>/config`.
    pub system: PathBuf,
    /// `$XTENSA_TOOLS/XtensaTools/bin` or `/opt/aws/neuron/gpsimd/bin`.
    pub bin: PathBuf,
    /// `$LM_LICENSE_FILE` or the default.
    pub license: OsString,
    /// `$PATH` with `bin` appended, as the driver exports it.
    pub path: OsString,
}

impl VendorSetup {
    pub fn from_env(env: &dyn Env) -> VendorSetup {
        let core = env.var("Q7_CORE").map_or("ncore2gp".into(), |v| v.to_string_lossy().into_owned());
        let bin = env
            .var("XTENSA_TOOLS")
            .map_or_else(|| PathBuf::from("/opt/aws/neuron/gpsimd/bin"), |t| PathBuf::from(t).join("XtensaTools/bin"));
        let mut path = env.var("PATH").unwrap_or_default();
        if !path.is_empty() {
            path.push(":");
        }
        path.push(bin.as_os_str());
        VendorSetup {
            neuron_root: env.var("NEURON_CUSTOM_OP").map_or("/opt/aws/neuron/gpsimd/custom_op".into(), PathBuf::from),
            system: env
                .var("Q7_TOOLS")
                .map_or_else(|| PathBuf::from(format!("/opt/aws/neuron/gpsimd/tools/{core}/config")), PathBuf::from),
            core,
            license: env.var("LM_LICENSE_FILE").unwrap_or_else(|| DEFAULT_LICENSE.into()),
            bin,
            path,
        }
    }

    fn env(&self) -> Vec<(String, OsString)> {
        vec![("LM_LICENSE_FILE".into(), self.license.clone()), ("PATH".into(), self.path.clone())]
    }

    fn core_flags(&self) -> [String; 2] {
        [format!("--xtensa-core={}", self.core), format!("--xtensa-system={}", self.system.display())]
    }

    /// `INC`: the three fixed include directories, in the vendor's order.
    fn includes(&self) -> Vec<OsString> {
        let r = &self.neuron_root;
        [r.clone(), r.join("torch/include"), r.join("c10/include")].iter().map(|p| flag_path("-I", p)).collect()
    }

    /// `xt-clang++ CC_OPT <cflags> INC <includes> -o obj src` (docs/PLATFORM.md, "Compile command").
    pub fn compile(&self, cc: &Path, cflags: &[String], includes: &[PathBuf], obj: &Path, src: &Path) -> Command {
        let mut c = Command::new(cc).args(VENDOR_LINK_OPT).args(VENDOR_COMPILE_ONLY);
        c = c.args(self.core_flags()).args(cflags.iter()).args(self.includes());
        c = c.args(includes.iter().map(|p| flag_path("-I", p)));
        c = c.path_arg("-o", obj).operand(src);
        c.env = self.env();
        c
    }

    /// `xt-clang++ LINK_OPT INC -o lib objs <libraries>` (docs/PLATFORM.md, "Link command"): the
    /// library order is a contract.
    pub fn link(&self, cc: &Path, window: Window, objs: &[PathBuf], lib: &Path) -> Command {
        let r = &self.neuron_root;
        let mut c = Command::new(cc).args(VENDOR_LINK_OPT);
        c = c.args(self.core_flags()).args(self.includes()).path_arg("-o", lib);
        c = c.operands(objs);
        c = c.arg(r.join("neuron/libneuroncustomop.a")).arg(r.join("c10/lib/libc10.a")).arg("-lloader");
        c = c.arg(flag_path("-mlsp=", &r.join("lsp_fll_load_cpus").join(window.lsp_name())));
        c = c.args(["-lxmem", "-lhal", "-lc++-e", "-lm", "-lgcc"]).arg(r.join("neuron/libcweak.a"));
        c.env = self.env();
        c
    }

    /// `xt-pkg-loadlib STRIP_OPT -o packed -s stripped lib` (docs/PLATFORM.md, "Pack command").
    pub fn pack(&self, packer: &Path, lib: &Path, stripped: &Path, packed: &Path) -> Command {
        let mut c = Command::new(packer).args(["-e", "lib_func"]).args(self.core_flags());
        c = c.path_arg("-o", packed).path_arg("-s", stripped).operand(lib);
        c.env = self.env();
        c
    }
}

fn flag_path(flag: &str, p: &Path) -> OsString {
    let mut s = OsString::from(flag);
    s.push(p.as_os_str());
    s
}

// ---------------------------------------------------------------- open

/// The Vision-Q7 scalar options the open profile compiles for (sdk/ABI.md).
pub const OPEN_FEATURES: &[&str] = &[
    "windowed",
    "density",
    "loop",
    "mul16",
    "mul32",
    "mul32high",
    "div32",
    "nsa",
    "minmax",
    "sext",
    "clamps",
    "bool",
    "fp",
    "prid",
];

pub const OPEN_CC: &str = "clang-22";
pub const OPEN_MC: &str = "llvm-mc-22";
pub const OPEN_LLC: &str = "llc-22";
pub const OPEN_LD: &str = "xtensa-lx106-elf-ld";
pub const OPEN_AR: &str = "xtensa-lx106-elf-ar";

/// The source languages the open profile compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Cpp,
    C,
    Asm,
}

impl Language {
    pub fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "cpp" | "cc" | "cxx" | "C" => Some(Language::Cpp),
            "c" => Some(Language::C),
            "S" | "s" => Some(Language::Asm),
            _ => None,
        }
    }
}

/// What every compile of one build shares.
#[derive(Clone, Copy, Debug)]
pub struct CompileFlags<'a> {
    pub sdk_include: &'a Path,
    pub cflags: &'a [String],
    pub includes: &'a [PathBuf],
}

/// One C/C++ source on its way to assembly.
#[derive(Clone, Copy, Debug)]
pub struct AsmJob<'a> {
    pub lang: Language,
    pub src: &'a Path,
    pub asm: &'a Path,
    /// The `-MMD` depfile and the target it names (the final object).
    pub depfile: &'a Path,
    pub dep_target: &'a Path,
}

/// The resolved open toolchain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenSetup {
    pub cc: PathBuf,
    pub mc: PathBuf,
    /// Compiles the legalised IR of op sources (crate::legalize).
    pub llc: PathBuf,
    pub ld: PathBuf,
    pub ar: PathBuf,
    /// clang's own headers (`stddef.h`, `stdint.h`, `stdarg.h`…).
    pub resource_include: PathBuf,
}

impl OpenSetup {
    pub fn mattr() -> String {
        OPEN_FEATURES.iter().map(|f| format!("+{f}")).collect::<Vec<_>>().join(",")
    }

    fn feature_flags() -> Vec<String> {
        OPEN_FEATURES
            .iter()
            .flat_map(|f| ["-Xclang".into(), "-target-feature".into(), "-Xclang".into(), format!("+{f}")])
            .collect()
    }

    /// `clang-22 … -S src -o asm`, the first half of a C/C++ compile; the
    /// caller then aligns literal pools and runs [`OpenSetup::assemble`].
    /// (The SDK, which avoids the backend's defects, compiles this way.)
    pub fn compile_to_asm(&self, flags: &CompileFlags, job: &AsmJob) -> Command {
        self.clang(flags, job).arg("-S").operand(job.src).path_arg("-o", job.asm)
    }

    /// `clang-22 … -S -emit-llvm src -o ir`: an op source's first step; the
    /// driver legalises the IR (crate::legalize) and runs [`OpenSetup::codegen`].
    /// `job.asm` names the IR file here.
    pub fn compile_to_ir(&self, flags: &CompileFlags, job: &AsmJob) -> Command {
        self.clang(flags, job).args(["-S", "-emit-llvm"]).operand(job.src).path_arg("-o", job.asm)
    }

    /// `llc-22` with the code-generation options that clang's flags above
    /// imply but the IR does not carry: the sections per function and
    /// object, `.ctors` for C++ (`-fno-use-init-array`), the optimisation
    /// level (the last `-O` of `cflags`; `-Os`/`-Oz` are `-O2` in codegen).
    pub fn codegen(&self, lang: Language, cflags: &[String], ir: &Path, asm: &Path) -> Command {
        let level = match cflags.iter().rev().find(|f| f.starts_with("-O")).map(String::as_str) {
            Some("-O0") => "-O0",
            Some("-O1") => "-O1",
            Some("-O3") => "-O3",
            _ => "-O2",
        };
        let mut c = Command::new(&self.llc).arg("-mtriple=xtensa").arg(format!("-mattr={}", Self::mattr()));
        c = c.args([level, "-function-sections", "-data-sections"]);
        if lang == Language::Cpp {
            c = c.arg("-use-ctors");
        }
        c.arg(ir.as_os_str()).path_arg("-o", asm)
    }

    /// The clang command line shared by the assembly and IR forms.
    fn clang(&self, flags: &CompileFlags, job: &AsmJob) -> Command {
        let lang = job.lang;
        let mut c = Command::new(&self.cc).arg("--target=xtensa").args(Self::feature_flags());
        c = c.arg(if lang == Language::C { "-std=c11" } else { "-std=c++14" });
        c = c.args(["-Os", "-Wall", "-ffreestanding", "-fno-jump-tables", "-ffunction-sections", "-fdata-sections"]);
        if lang == Language::Cpp {
            c = c.args(["-fno-exceptions", "-fno-rtti", "-fno-threadsafe-statics", "-fno-use-init-array"]);
        }
        c = c.arg("-nostdinc").path_arg("-isystem", &self.resource_include).path_arg("-isystem", flags.sdk_include);
        c = c.args(flags.cflags.iter()).args(flags.includes.iter().map(|p| flag_path("-I", p)));
        if flags.cflags.iter().any(|f| f == "-g") {
            // The SDK is built without -g: the op's own DWARF must describe
            // the SDK's types (at::Tensor) for a debugger to show them.
            c = c.arg("-fstandalone-debug");
        }
        c.arg("-MMD").path_arg("-MF", job.depfile).path_arg("-MT", job.dep_target)
    }

    /// `llvm-mc-22` turning the aligned assembly into an object.
    pub fn assemble(&self, asm: &Path, obj: &Path) -> Command {
        Command::new(&self.mc)
            .arg("-triple=xtensa")
            .arg(format!("-mattr={}", Self::mattr()))
            .arg("-filetype=obj")
            .operand(asm)
            .path_arg("-o", obj)
    }

    /// Hand-written assembly (`.S`), step one: the C preprocessor only.
    /// clang's integrated assembler ignores `-target-feature` for assembly
    /// input, so [`OpenSetup::assemble`] (llvm-mc with `-mattr`) does the rest.
    pub fn preprocess_asm(&self, sdk_include: &Path, src: &Path, out: &Path) -> Command {
        Command::new(&self.cc)
            .arg("--target=xtensa")
            .args(["-E", "-P", "-x", "assembler-with-cpp"])
            .path_arg("-isystem", sdk_include)
            .operand(src)
            .path_arg("-o", out)
    }

    /// GNU ld with the window's LSP script; `-q` keeps the relocations the
    /// packer carries for rebasing.
    pub fn link(&self, lsp_dir: &Path, window: Window, objs: &[PathBuf], archives: &[PathBuf], out: &Path) -> Command {
        let script = lsp_dir.join(window.lsp_name()).join("ldscripts/elf32xtensa.x");
        Command::new(&self.ld)
            .args(["-q", "--no-warn-rwx-segments", "-z", "max-page-size=4", "-z", "common-page-size=4"])
            .path_arg("-T", &script)
            .operands(objs)
            .args(archives.iter().map(|o| o.as_os_str().to_owned()))
            .path_arg("-o", out)
    }

    pub fn archive(&self, objs: &[PathBuf], out: &Path) -> Command {
        Command::new(&self.ar).arg("rcs").arg(out.as_os_str()).operands(objs)
    }
}

/// Prepares clang's assembly for llvm-mc:
/// * aligns every literal pool to 4 bytes: clang-22 emits `.literal_position`
///   at the end of the previous function's section, where llvm-mc would
///   otherwise place the pool unaligned (docs/PLATFORM.md, "Open toolchain");
/// * writes CFI registers by DWARF number (`.cfi_def_cfa a7, 64` becomes
///   `.cfi_def_cfa 7, 64`): llvm-mc-22's Xtensa parser rejects the names that
///   clang prints under `-g`.
pub fn align_literal_pools(asm: &str) -> String {
    let mut out = String::with_capacity(asm.len() + 256);
    for line in asm.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with(".cfi_") {
            out.push_str(&cfi_numeric_registers(line));
        } else {
            out.push_str(line);
        }
        out.push('\n');
        if trimmed.trim_end() == ".literal_position" {
            out.push_str("\t.p2align\t2\n");
        }
    }
    out
}

/// The file llvm-mc assembles for a source of `lang`: hand-written
/// assembly as preprocessed (`asm`), or clang's output with its literal
/// pools aligned, written to `fixed`. The error names the file it concerns.
pub fn assembly_for_mc(lang: Language, asm: &Path, fixed: &Path) -> Result<PathBuf, (PathBuf, std::io::Error)> {
    if lang == Language::Asm {
        return Ok(asm.to_path_buf());
    }
    // Verbose assembly comments can hold raw bytes (`.byte 224 # \xe0` in
    // debug sections); they are comments, so a lossy read changes nothing.
    let bytes = std::fs::read(asm).map_err(|e| (asm.to_path_buf(), e))?;
    let text = String::from_utf8_lossy(&bytes);
    q7_target::fs::write_generated(fixed, align_literal_pools(&text).as_bytes())
        .map_err(|e| (fixed.to_path_buf(), e))?;
    Ok(fixed.to_path_buf())
}

/// Replaces operands `aN` (N a decimal register number) with `N`.
fn cfi_numeric_registers(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    let mut first = true;
    while !rest.is_empty() {
        let cut = rest.find([' ', '\t', ',']).map_or(rest.len(), |i| i.max(1));
        let (token, tail) = rest.split_at(cut);
        let is_reg =
            !first && token.len() > 1 && token.starts_with('a') && token[1..].bytes().all(|b| b.is_ascii_digit());
        out.push_str(if is_reg { &token[1..] } else { token });
        if !token.trim().is_empty() {
            first = false;
        }
        rest = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_get_aligned_once_each() {
        let asm = "\t.text\n\t.literal_position\n\t.literal .LCPI0_0, x\n  .literal_position  \nf:\n";
        let fixed = align_literal_pools(asm);
        assert_eq!(fixed.matches(".p2align\t2").count(), 2);
        assert!(fixed.contains(".literal_position\n\t.p2align\t2\n\t.literal .LCPI0_0"));
    }

    #[test]
    fn cfi_registers_become_numbers() {
        let fixed = align_literal_pools("\t.cfi_def_cfa a7, 64\n\t.cfi_offset a0, -4\n\tor\ta7, a1, a1\n");
        assert_eq!(fixed, "\t.cfi_def_cfa 7, 64\n\t.cfi_offset 0, -4\n\tor\ta7, a1, a1\n");
    }

    #[test]
    fn language_by_extension() {
        assert_eq!(Language::of(Path::new("a/relu.cpp")), Some(Language::Cpp));
        assert_eq!(Language::of(Path::new("crt0.S")), Some(Language::Asm));
        assert_eq!(Language::of(Path::new("x.c")), Some(Language::C));
        assert_eq!(Language::of(Path::new("x.h")), None);
    }
}
