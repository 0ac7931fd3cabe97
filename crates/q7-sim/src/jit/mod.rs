//! The translating back end: hot blocks compiled to host code by Cranelift.
//!
//! A block's compiled form runs its longest prefix of translatable ops
//! ([`translate::translatable`]) straight on the core's registers, and
//! returns the index of the first op it did not run: the interpreter runs
//! the rest exactly as it would have (faults, checks, exceptions and the
//! instruction and cycle accounting stay the interpreter's). Compiled code
//! never raises anything itself; every case it does not handle inline (an
//! unaligned access, a page it has no host pointer for, an op it does not
//! know) is an exit *before* that op, with the registers written back.
//!
//! Memory goes through a per-core host page table built from [`Memory`]'s
//! (`runtime::HostPages`): one table load and one bound test per access;
//! pages the checker watches, and stores into 4 KiB granules that hold
//! decoded code, call back into [`Memory`] (`runtime::slow_load`/`slow_store`).
//! With checks, accesses to a core's stack also test or set its shadow in
//! line (`JitCtx::stack`); only a load of never-written bytes calls back.
//!
//! A zero-overhead loop body that translates whole is also compiled as a
//! loop (`Shape::Loop`) that runs up to a given number of iterations, and a
//! hot block with the decoded blocks its branches reach is compiled as one
//! region (`Shape::Region`, see `region`), so loops spanning blocks run
//! without returning to the dispatcher.

pub(crate) mod region;
mod runtime;
mod translate;

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};

use crate::block::{Block, HostCode, Region};
use crate::checks::StackWindow;
use crate::mem::{ClassCounts, Memory};
use crate::uop::Op;

pub use runtime::HostPages;
pub use translate::translatable;

/// Which back end runs a core's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The interpreter alone.
    Interp,
    /// A block is compiled to host code once it has run `hot` instructions
    /// interpreted (its runs times its length), when long enough to gain;
    /// with `hot` 0 or 1 every block that translates is (the tests'
    /// setting: nearly everything runs compiled).
    Jit { hot: u32 },
}

impl Engine {
    /// The JIT with the default heat threshold. Measured (`q7 run --stats`
    /// reports compile time): compiling a block costs some 100-500 µs, a
    /// region (which a block that gets hot also heads) up to a few ms, and
    /// interpreting 10-20 ns an instruction; compiling once interpreting
    /// has cost about as much as compiling will bounds the waste on code
    /// that stops running soon after (the ski-rental rule).
    pub const JIT: Engine = Engine::Jit { hot: 30_000 };
}

/// What compiled code reads and writes; built by the core before each call.
/// `repr(C)`: the generated code addresses fields by offset.
#[repr(C)]
pub struct JitCtx {
    /// The 16 registers of the current window.
    pub ar: *mut u32,
    pub sar: *mut u32,
    /// PS (windowed calls set its CALLINC field).
    pub ps: *mut u32,
    /// The boolean registers (FP compares write them through `fp_step`).
    pub br: *mut u32,
    /// The 16 FP registers, as bits.
    pub fr: *mut u32,
    /// Their high halves, on a core with the double-precision option.
    pub fr_hi: *mut u32,
    /// FSR (compares set its Invalid flag, inline arithmetic its Inexact
    /// flag).
    pub fsr: *mut u32,
    /// Region shape: the number of the block to start in.
    pub entry: u32,
    /// Set by a compiled branch or jump ending the block.
    pub next_pc: u32,
    pub taken: u32,
    /// CPENABLE: FP ops leave to the interpreter when coprocessor 0 is off.
    pub cpenable: u32,
    /// FCR: FP arithmetic runs inline only in round-to-nearest.
    pub fcr: u32,
    /// Loop shape: iterations to run, and iterations completed. Self-loop
    /// shape: the instruction budget, and passes completed. Region shape:
    /// the instruction budget, and the instructions and cycles retired,
    /// packed (`region::unpack`).
    pub iterations: u64,
    pub done: u64,
    /// The host page table (see [`HostPages`]).
    pub pages: *const *mut u8,
    pub read_len: *const u32,
    pub write_len: *const u32,
    pub code_bits: *const u64,
    /// While counting accesses for the cost model (`crate::tally`): the
    /// per-page counting slots and the core's counters (else null; code
    /// compiled to count runs only while counting).
    pub page_slots: *const u8,
    pub counts: *mut ClassCounts,
    /// For the slow paths.
    pub mem: *mut Memory,
    pub core: usize,
    /// Runs one FP op the interpreter's way (rounding, FSR flags, compares
    /// into booleans) on the core `cpu`; nonzero when it did not run.
    pub fp_step: Option<FpStep>,
    /// Runs an `entry` or `retw` the interpreter's way (see
    /// `translate::window`).
    pub window_step: Option<WindowStep>,
    pub cpu: *mut c_void,
    /// The ops of the block being run (`fp_step` takes an index into them).
    pub ops: *const Op,
    /// Where the running copy of the block starts: compiled code holds
    /// addresses relative to a block's start, so cores whose images differ
    /// only by rebase share it.
    pub base: u32,
    /// Where compiled code may do the checker's work itself: two windows
    /// for loads, then two for stores (see `runtime::refresh_windows`).
    pub(crate) windows: [runtime::CheckWindow; 4],
    /// The core's stack, which compiled code watches for loads of bytes no
    /// store wrote (`crate::checks::StackWindow`; empty without checks).
    pub(crate) stack: StackWindow,
}

/// See [`JitCtx::fp_step`].
pub type FpStep = unsafe extern "C" fn(*mut JitCtx, u32) -> u32;

/// See [`JitCtx::window_step`]: op `index` of the block being run; the
/// frames free afterwards (low byte) and, for `retw`, the return address
/// (high half); or [`WINDOW_REFUSED`].
pub type WindowStep = unsafe extern "C" fn(*mut JitCtx, u32) -> u64;

/// Result bit of a [`WindowStep`]: the op needs the interpreter (an
/// exception, a stop); nothing happened.
pub const WINDOW_REFUSED: u64 = 1 << 8;

impl JitCtx {
    pub fn new(core: usize) -> JitCtx {
        JitCtx {
            ar: std::ptr::null_mut(),
            sar: std::ptr::null_mut(),
            ps: std::ptr::null_mut(),
            br: std::ptr::null_mut(),
            fr: std::ptr::null_mut(),
            fr_hi: std::ptr::null_mut(),
            fsr: std::ptr::null_mut(),
            entry: 0,
            next_pc: 0,
            taken: 0,
            cpenable: 0,
            fcr: 0,
            iterations: 0,
            done: 0,
            pages: std::ptr::null(),
            read_len: std::ptr::null(),
            write_len: std::ptr::null(),
            code_bits: std::ptr::null(),
            page_slots: std::ptr::null(),
            counts: std::ptr::null_mut(),
            mem: std::ptr::null_mut(),
            core,
            fp_step: None,
            window_step: None,
            cpu: std::ptr::null_mut(),
            ops: std::ptr::null(),
            base: 0,
            windows: [runtime::CheckWindow::EMPTY; 4],
            stack: StackWindow::EMPTY,
        }
    }
}

/// The two compiled forms of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Shape {
    /// Once through, ending with the block's branch if it translates.
    Straight,
    /// `ctx.iterations` times through a zero-overhead loop body.
    Loop,
    /// Blocks reaching one another (see `region`).
    Region,
}

/// Whether running a block compiled beats interpreting it: entering
/// compiled code costs about what interpreting two ops does, so a block must
/// be longer than that and translate whole but for its last op (a call or
/// return, which the interpreter then runs).
fn worth_compiling(block: &Block) -> bool {
    let n = block.ops.len();
    let translated = block.ops.iter().take_while(|op| translatable(op.kind)).count();
    n >= 3 && translated + 1 >= n
}

/// What compiled code is specialised for besides its ops: the run's
/// settings it bakes in, so code compiled under others is not reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Flavor {
    /// Count accesses for `q7 run --stats` (`crate::tally`).
    pub counting: bool,
    /// Memory has a checker: accesses it watches may be done in line
    /// through its windows (`runtime::CheckWindow`). Without one those
    /// windows stay empty, so their code is left out (smaller IR, faster
    /// compiles) and watched accesses could only take the slow path anyway.
    pub checking: bool,
    /// The core has the double-precision option: its f registers are 64
    /// bits wide, and single ops set the high halves (`JitCtx::fr_hi`) as
    /// the interpreter's `step_single_wide` does.
    pub wide_fp: bool,
}

/// A block's translated ops with their addresses made relative to the
/// block's start: blocks with equal keys compile to the same code (see
/// `Translator::relocated`), whichever core's copy they come from.
/// A region's key also holds its blocks' lengths (where each ends).
#[derive(PartialEq, Eq, Hash)]
struct CodeKey {
    shape: Shape,
    flavor: Flavor,
    ops: Box<[Op]>,
    lengths: Box<[u32]>,
}

impl CodeKey {
    fn new(blocks: &[&Block], shape: Shape, flavor: Flavor) -> CodeKey {
        let start = blocks[0].start;
        let ops = blocks
            .iter()
            .flat_map(|block| block.ops.iter().take_while(|op| translatable(op.kind)))
            .map(|op| {
                let mut op = *op;
                op.pc = op.pc.wrapping_sub(start);
                if translate::uses_target(op.kind) {
                    op.target = op.target.wrapping_sub(start);
                }
                op
            })
            .collect();
        let lengths = blocks.iter().map(|b| b.ops.len() as u32).collect();
        CodeKey { shape, flavor, ops, lengths }
    }
}

/// The code generator the cores of a machine share: Cranelift's module
/// (which owns the code) and the functions compiled so far, so a block
/// every core runs (the per-core images of an op differ only by rebase) is
/// compiled once.
pub struct Compiler {
    module: JITModule,
    builder_ctx: FunctionBuilderContext,
    codegen_ctx: cranelift_codegen::Context,
    code: HashMap<CodeKey, Option<HostCode>>,
    /// Blocks compiled (statistics), and of them regions.
    pub compiled: u64,
    pub regions: u64,
    /// Time spent building and compiling them (statistics: what the heat
    /// threshold trades against interpreting).
    pub compile_time: Duration,
}

/// A [`Compiler`] shared by the cores of one machine, which may run on
/// several host threads (`crate::machine`'s parallel schedule): one
/// compiles at a time, the others wait for the lock.
pub type SharedCompiler = Arc<Mutex<Compiler>>;

// SAFETY: Cranelift's module holds raw pointers to the code memory it owns
// and is not shared by anything else; behind the mutex of a
// `SharedCompiler` one thread at a time uses it. The finalized code it hands
// out is immutable afterwards and lives as long as the module.
#[allow(unsafe_code)]
unsafe impl Send for Compiler {}

impl Compiler {
    /// A compiler for the host, or why there is none.
    pub fn new() -> Result<SharedCompiler, String> {
        let mut flags = settings::builder();
        // The IR verifier and Cranelift's optimiser cost compile time on
        // every block (the IR built here is already straight-line and
        // simple; measured, "speed" ran no faster); the unit and
        // differential tests check the translator's output instead.
        let settings = [
            ("opt_level", "none"),
            ("is_pic", "false"),
            ("use_colocated_libcalls", "false"),
            ("enable_verifier", "false"),
        ];
        for (name, value) in settings {
            flags.set(name, value).map_err(|e| format!("cranelift setting {name}: {e}"))?;
        }
        let isa = cranelift_native::builder()
            .map_err(|e| format!("no code generator for this host: {e}"))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| format!("cranelift: {e}"))?;
        let module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
        let codegen_ctx = module.make_context();
        Ok(Arc::new(Mutex::new(Compiler {
            module,
            builder_ctx: FunctionBuilderContext::new(),
            codegen_ctx,
            code: HashMap::new(),
            compiled: 0,
            regions: 0,
            compile_time: Duration::ZERO,
        })))
    }

    /// The code compiled before for `blocks` in `shape` (from any core's
    /// copy), if any.
    fn compiled_before(&self, blocks: &[&Block], shape: Shape, flavor: Flavor) -> Option<HostCode> {
        self.code.get(&CodeKey::new(blocks, shape, flavor)).copied().flatten()
    }

    /// The code for `block` in `shape`: compiled before for an identical
    /// block (of any core), or now.
    fn get_or_compile(&mut self, blocks: &[&Block], shape: Shape, flavor: Flavor) -> Option<HostCode> {
        let key = CodeKey::new(blocks, shape, flavor);
        if let Some(code) = self.code.get(&key) {
            return *code;
        }
        let started = Instant::now();
        let code = self.compile(blocks, shape, flavor);
        self.compile_time += started.elapsed();
        self.code.insert(key, code);
        code
    }

    /// Compiles `blocks` (one, but for a region) in `shape`; `None` when
    /// nothing of it translates (or, should it ever happen, Cranelift
    /// refuses the function).
    fn compile(&mut self, blocks: &[&Block], shape: Shape, flavor: Flavor) -> Option<HostCode> {
        let block = blocks[0];
        if !block.ops.first().is_some_and(|op| translatable(op.kind)) {
            return None;
        }
        self.module.clear_context(&mut self.codegen_ctx);
        let func = &mut self.codegen_ctx.func;
        translate::build(func, &mut self.builder_ctx, self.module.isa(), blocks, shape, flavor);
        if shape == Shape::Region {
            self.regions += 1;
        }
        let name = format!("b{:x}_{}", block.start, self.compiled);
        let id = self.module.declare_function(&name, Linkage::Local, &func.signature).ok()?;
        self.module.define_function(id, &mut self.codegen_ctx).ok()?;
        self.module.finalize_definitions().ok()?;
        let code = self.module.get_finalized_function(id);
        self.compiled += 1;
        // SAFETY: the function was built with the signature of `HostCode`
        // (one pointer argument, an i32 result, the host's C convention),
        // and the module keeps its code for as long as the module lives,
        // which is as long as every core holding this compiler, whose
        // blocks point at it.
        #[allow(unsafe_code)]
        Some(unsafe { std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut c_void) -> u32>(code) })
    }
}

/// One core's side of the JIT: the shared compiler, the heat threshold and
/// the core's host page table compiled code uses.
pub struct Jit {
    compiler: SharedCompiler,
    hot: u32,
    pub pages: HostPages,
    /// Compile code that counts accesses (memory counts them: `--stats`).
    pub counting: bool,
    /// Compile the checker's in-line paths (memory has a checker).
    pub checking: bool,
    /// See [`Flavor::wide_fp`].
    pub wide_fp: bool,
}

impl Jit {
    pub fn new(hot: u32, compiler: SharedCompiler) -> Jit {
        let hot = hot.min(HOT / 2);
        Jit { compiler, hot, pages: HostPages::new(), counting: false, checking: true, wide_fp: false }
    }

    /// The shared compiler, locked (a thread that panicked holding it left
    /// nothing half-done that matters: the cache maps keys to finished code).
    fn compiler(&self) -> MutexGuard<'_, Compiler> {
        self.compiler.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Blocks the shared compiler compiled so far.
    pub fn compiled(&self) -> u64 {
        self.compiler().compiled
    }

    /// Regions the shared compiler compiled so far.
    pub fn regions(&self) -> u64 {
        self.compiler().regions
    }

    /// Time the shared compiler spent compiling so far.
    pub fn compile_time(&self) -> Duration {
        self.compiler().compile_time
    }

    fn flavor(&self) -> Flavor {
        Flavor { counting: self.counting, checking: self.checking, wide_fp: self.wide_fp }
    }

    /// Counts one execution of `block` and compiles it when it gets hot;
    /// also compiles its loop form once it runs as the body of the current
    /// zero-overhead loop (`lbeg..lend`). True when the block should now
    /// head a region: the caller, who has the block cache, calls
    /// [`Jit::build_region`].
    /// `passes`: how many times the block is about to run in a row (a
    /// zero-overhead loop body runs its iterations in one go).
    #[inline(always)]
    pub fn consider(&mut self, block: &Block, lbeg: u32, lend: u32, passes: u32) -> Seek {
        let t = &block.translation;
        let heat = t.heat.get();
        if heat < self.hot {
            // Instructions, not runs: compiling costs about the same for
            // any block, so a long one pays it back in fewer runs.
            let warmer = heat + block.ops.len() as u32 * passes.clamp(1, MAX_PASSES);
            t.heat.set(warmer);
            // Another core may have compiled its copy of this code already:
            // taking that costs a lookup, so it is sought much earlier.
            let early = self.hot / ADOPT_EARLY;
            return if heat < early && warmer >= early { Seek::Compiled } else { Seek::Nothing };
        }
        let loop_body = block.straight && block.start == lbeg && block.end == lend;
        if (heat <= HOT + REGION_RETRY || (loop_body && !t.loop_tried.get())) && self.heated(block, lbeg, lend) {
            return Seek::Region;
        }
        Seek::Nothing
    }

    #[cold]
    fn heated(&mut self, block: &Block, lbeg: u32, lend: u32) -> bool {
        let t = &block.translation;
        let heat = t.heat.get();
        // Runs since the block got hot: 0 the first time.
        let runs = heat.saturating_sub(HOT);
        if runs <= REGION_RETRY {
            t.heat.set(HOT + runs + 1);
        }
        // A region first when the block gets hot, and once more a little
        // later, when more of the blocks it reaches have been decoded.
        let seek_region = (heat < HOT || runs == REGION_RETRY) && t.region.get().is_none() && !t.covered.get();
        // A block that heads a region runs as its head: its own code is
        // compiled only when no region comes of it (see `build_region`).
        // Nor does a block a region covers: control arriving there enters
        // the region (`Core::run`), unless that is refused.
        if heat < HOT && !seek_region && t.region.get().is_none() && t.entered_by.get().is_none() {
            self.compile_straight(block);
        }
        if !t.loop_tried.get() && block.straight && block.start == lbeg && block.end == lend {
            t.loop_tried.set(true);
            if block.ops.iter().all(|op| translatable(op.kind)) {
                t.looped.set(self.compiler().get_or_compile(&[block], Shape::Loop, self.flavor()));
            }
        }
        seek_region
    }

    /// The region `block` heads was refused at entry (a loop end inside it,
    /// a frame to spill first): the block's own code, compiled once, runs
    /// it meanwhile.
    #[cold]
    pub fn region_refused(&mut self, block: &Block) {
        if !block.translation.own_tried.replace(true) && block.translation.straight.get().is_none() {
            self.compile_straight(block);
        }
    }

    /// Compiles `block` once through, when that gains.
    fn compile_straight(&mut self, block: &Block) {
        if self.hot <= 1 || worth_compiling(block) {
            let code = self.compiler().get_or_compile(&[block], Shape::Straight, self.flavor());
            block.translation.straight.set(code);
        }
    }

    /// The region `head` heads, if the shared compiler has its code from
    /// another core's copy (see [`Seek::Compiled`]): blocks found as for
    /// [`Jit::build_region`]; nothing is compiled.
    #[cold]
    pub fn adopt_region<'a>(
        &mut self,
        head: &'a Block,
        lookup: impl Fn(u32) -> Option<&'a Block>,
        excluded: impl Fn(u32) -> bool,
    ) {
        let t = &head.translation;
        if t.region.get().is_some() || t.covered.get() {
            return;
        }
        let blocks = region::discover(head, lookup, excluded);
        if blocks.is_empty() {
            return;
        }
        if let Some(code) = self.compiler().compiled_before(&blocks, Shape::Region, self.flavor()) {
            install_region(code, &blocks);
        }
    }

    /// Compiles the region `head` heads, if it has one: blocks found with
    /// `lookup` (decoded ones), none where `excluded` (hooks); else `head`
    /// on its own, as [`Jit::consider`] left it to this.
    #[cold]
    pub fn build_region<'a>(
        &mut self,
        head: &'a Block,
        lookup: impl Fn(u32) -> Option<&'a Block>,
        excluded: impl Fn(u32) -> bool,
    ) {
        let blocks = region::discover(head, lookup, excluded);
        let code = match blocks.is_empty() || region::mostly_compiled(&blocks) {
            true => None,
            false => self.compiler().get_or_compile(&blocks, Shape::Region, self.flavor()),
        };
        match code {
            Some(code) => install_region(code, &blocks),
            None if head.translation.straight.get().is_none() => self.compile_straight(head),
            None => {}
        }
    }
}

/// Makes `code` the region of `blocks[0]`, whose other blocks it covers.
fn install_region(code: HostCode, blocks: &[&Block]) {
    for member in &blocks[1..] {
        member.translation.covered.set(true);
    }
    // Entered only where the window has the frames the blocks reached
    // from there name (blocks past an `entry` or a `retw` check again).
    let frames = region::frames(blocks);
    for (k, member) in blocks.iter().enumerate().skip(1) {
        member.translation.entered_by.set(Some((blocks[0].start, k as u16)));
    }
    let _ = blocks[0].translation.region.set(Region::new(code, blocks, frames));
}

/// What [`Jit::consider`] asks of its caller, who has the block cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seek {
    Nothing,
    /// The block just got hot: [`Jit::build_region`].
    Region,
    /// The block is warming: [`Jit::adopt_region`] takes the region another
    /// core's copy of it compiled, if there is one.
    Compiled,
}

/// Passes of a loop body counted at once, at most: heat stays far below
/// [`HOT`] (64-op blocks, thresholds below `HOT / 2`).
const MAX_PASSES: u32 = 1 << 16;

/// A block looks for code other cores compiled at this fraction of the
/// heat threshold.
const ADOPT_EARLY: u32 = 16;

/// Runs of a hot block after which its region is sought again.
const REGION_RETRY: u32 = 16;

/// `Translation::heat` counts the instructions a block ran interpreted
/// until they reach the threshold; from then on it is `HOT` plus the runs
/// since (up to [`REGION_RETRY`]). Thresholds stay far below it.
const HOT: u32 = 1 << 31;
