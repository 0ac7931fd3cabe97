//! An op launch under the debugger: the timeline of its run (see
//! [`crate::debug`]) with the op's names for things: code by function and
//! source line, tensors by argument name, breakpoints by function.

use std::sync::OnceLock;

use q7_target::DType;

use super::session::OpSession;
use super::{CodeLocation, OpImage};
use crate::cpu::{Cpu, Frame};
use crate::debug::Timeline;
use crate::debuginfo::{DebugInfo, DebugInfoError, FrameView, Value, Variable};
use crate::machine::{CoreState, MAX_FRAMES};
use crate::mem::Memory;

/// A tensor of the launch, where the cores see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorView {
    /// The argument's name (the input file's stem), or `dst`.
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub addr: u32,
    /// The destination tensor.
    pub output: bool,
}

impl TensorView {
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The address of the element at `index` (C order; one index into a
    /// flattened tensor is allowed), or why there is none.
    pub fn element(&self, index: &[usize]) -> Result<u32, String> {
        let flat = match index {
            [i] if self.shape.len() != 1 => *i,
            _ if index.len() != self.shape.len() => {
                return Err(format!("{} has {} dimensions, not {}", self.name, self.shape.len(), index.len()))
            }
            _ => index.iter().zip(&self.shape).try_fold(0usize, |flat, (&i, &d)| {
                (i < d)
                    .then_some(flat * d + i)
                    .ok_or_else(|| format!("index {i} is outside {}'s dimension of {d}", self.name))
            })?,
        };
        if flat >= self.numel() {
            return Err(format!("element {flat} is outside {} ({} elements)", self.name, self.numel()));
        }
        Ok(self.addr + (flat * self.dtype.size()) as u32)
    }
}

/// The op's run under the debugger.
pub struct OpDebug<'lib> {
    pub timeline: Timeline,
    pub images: &'lib [OpImage],
    pub tensors: Vec<TensorView>,
    pub function: String,
    /// Each image's DWARF, read when first asked for (`None`: none).
    debuginfo: Vec<OnceLock<Option<DebugInfo>>>,
}

/// One frame of a core as DWARF expressions see it: the frame's address
/// registers (a0..a15 are DWARF registers 0..15), the FP registers (19..34,
/// innermost frame only) and the core's view of memory.
struct CoreFrame<'a> {
    cpu: &'a Cpu,
    mem: &'a Memory,
    frame: Frame,
    innermost: bool,
}

impl FrameView for CoreFrame<'_> {
    fn register(&self, n: u16) -> Option<u32> {
        match n {
            0..=15 => self.cpu.frame_register(self.mem, &self.frame, usize::from(n)),
            19..=34 if self.innermost => Some(self.cpu.fr[usize::from(n - 19)]),
            _ => None,
        }
    }

    fn read(&self, addr: u32, len: usize) -> Option<Vec<u8>> {
        self.mem.host_read_for(self.cpu.id, addr, len).ok().map(<[u8]>::to_vec)
    }

    fn pc(&self) -> u32 {
        self.frame.pc
    }
}

impl<'lib> OpSession<'lib> {
    /// The loaded launch as a timeline to debug, not yet run.
    pub fn into_debug(self) -> OpDebug<'lib> {
        let tensors = self.tensor_views();
        let debuginfo = self.images.iter().map(|_| OnceLock::new()).collect();
        OpDebug {
            timeline: Timeline::new(self.machine),
            images: self.images,
            tensors,
            function: self.function,
            debuginfo,
        }
    }
}

impl<'lib> OpDebug<'lib> {
    /// A bare program's run (one core, no tensors) to debug; `image` names
    /// its code (see [`OpImage::symbols_of`]).
    pub fn bare(machine: crate::machine::Machine, image: &'lib [OpImage]) -> OpDebug<'lib> {
        let debuginfo = image.iter().map(|_| OnceLock::new()).collect();
        OpDebug {
            timeline: Timeline::new(machine),
            images: image,
            tensors: Vec::new(),
            function: "main".into(),
            debuginfo,
        }
    }
}

impl OpDebug<'_> {
    pub fn cores(&self) -> usize {
        self.images.len()
    }

    /// `pc` of core `core`, named.
    pub fn locate(&self, core: usize, pc: u32) -> CodeLocation {
        self.images[core].locate(pc)
    }

    /// Core `core`'s call stack, innermost first, each frame named.
    pub fn stack(&self, core: usize) -> Vec<(Frame, CodeLocation)> {
        let machine = &self.timeline.machine;
        let frames = machine.cores[core].cpu.call_stack(&machine.mem, MAX_FRAMES);
        frames.into_iter().map(|f| (f, self.locate(core, f.pc))).collect()
    }

    /// The tensor named `name` (an argument's name, or `dst`).
    pub fn tensor(&self, name: &str) -> Option<&TensorView> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// Core `core`'s image's DWARF (a `-g` build), read once.
    pub fn debuginfo(&self, core: usize) -> Option<&DebugInfo> {
        debuginfo_of(self.images, &self.debuginfo, core)
    }

    /// Moves on the timeline (backwards or forwards) until `motion`
    /// stops, counting a breakpoint hit only when one of the conditions
    /// `conditions(core, pc)` gives holds (none: every hit counts; one that
    /// cannot be evaluated holds, as in gdb).
    pub fn travel(
        &mut self,
        motion: crate::debug::Motion,
        backwards: bool,
        conditions: &dyn Fn(usize, u32) -> Vec<String>,
    ) -> crate::debug::Arrival {
        let (images, cells) = (self.images, &self.debuginfo);
        let mut keep = |machine: &crate::machine::Machine, core: usize, pc: u32| {
            let wanted = conditions(core, pc);
            let Some(info) = debuginfo_of(images, cells, core) else { return true };
            let cpu = &machine.cores[core].cpu;
            let Some(&frame) = cpu.call_stack(&machine.mem, 1).first() else { return true };
            let view = CoreFrame { cpu, mem: &machine.mem, frame, innermost: true };
            wanted.is_empty()
                || wanted.iter().any(|c| info.evaluate(pc, &view, c).map_or(true, |v| v.is_true() != Some(false)))
        };
        match backwards {
            true => self.timeline.reverse_with(motion, &mut keep),
            false => self.timeline.forward_with(motion, &mut keep),
        }
    }

    /// The source line (its file's path as compiled, the line and the pcs
    /// it spans) core `core`'s `pc` belongs to.
    pub fn line_span(&self, core: usize, pc: u32) -> Option<crate::debuginfo::LineSpan> {
        self.debuginfo(core)?.line_at(pc)
    }

    /// The source line (file name, line) core `core`'s `pc` belongs to.
    pub fn line_at(&self, core: usize, pc: u32) -> Option<(String, u32)> {
        let span = self.debuginfo(core)?.line_at(pc)?;
        let file = span.file.rsplit('/').next().unwrap_or(&span.file).to_string();
        Some((file, span.line))
    }

    /// Where core `core` should stop for `file:line`: the line chosen (the
    /// next with code when it has none) and its pcs.
    pub fn line_breakpoints(&self, core: usize, file: &str, line: u32) -> Result<(u32, Vec<u32>), DebugInfoError> {
        self.debuginfo(core).ok_or(DebugInfoError::NoDebugInfo)?.line_breakpoints(file, line)
    }

    /// Frame `frame` of core `core` (0 innermost), for DWARF expressions.
    fn frame_view(&self, core: usize, frame: usize) -> Option<CoreFrame<'_>> {
        let machine = &self.timeline.machine;
        let cpu = &machine.cores[core].cpu;
        let frames = cpu.call_stack(&machine.mem, MAX_FRAMES);
        let at = *frames.get(frame)?;
        Some(CoreFrame { cpu, mem: &machine.mem, frame: at, innermost: frame == 0 })
    }

    /// The parameters and locals in scope in frame `frame` of core `core`.
    pub fn variables(&self, core: usize, frame: usize) -> Result<Vec<Variable>, DebugInfoError> {
        let info = self.debuginfo(core).ok_or(DebugInfoError::NoDebugInfo)?;
        let view = self.frame_view(core, frame).ok_or(DebugInfoError::NoDebugInfo)?;
        Ok(info.variables(view.frame.pc, &view))
    }

    /// A C/C++ expression in frame `frame` of core `core`.
    pub fn evaluate(&self, core: usize, frame: usize, expr: &str) -> Result<Value, DebugInfoError> {
        let info = self.debuginfo(core).ok_or(DebugInfoError::NoDebugInfo)?;
        let view = self.frame_view(core, frame).ok_or(DebugInfoError::NoDebugInfo)?;
        info.evaluate(view.frame.pc, &view, expr)
    }

    /// Where core `core` should stop for function `name`: from DWARF, the
    /// first statement past its prologue; else by symbol, past its `entry`
    /// (where its frame exists and the call stack reads).
    pub fn function_breakpoints(&self, core: usize, name: &str) -> Vec<u32> {
        if let Some(pcs) = self.debuginfo(core).map(|d| d.function_breakpoints(name)).filter(|p| !p.is_empty()) {
            return pcs;
        }
        let image = &self.images[core];
        let mut pcs = image.functions.entries_named(name);
        if pcs.is_empty() {
            pcs.extend(image.symbol(name));
        }
        let mem = &self.timeline.machine.mem;
        let isa = &self.timeline.machine.cores[core].cpu.config.isa;
        pcs.into_iter()
            .map(|pc| {
                let mut bytes = [0u8; 3];
                let entry =
                    mem.fetch(core, pc, &mut bytes).ok().and_then(|n| q7_isa::decode(&bytes[..n], pc, isa).ok());
                match entry {
                    Some(insn) if insn.op == q7_isa::Opcode::Entry => pc + u32::from(insn.len),
                    _ => pc,
                }
            })
            .collect()
    }

    /// The instruction at `pc` as core `core` sees it.
    fn instruction(&self, core: usize, pc: u32) -> Option<q7_isa::Insn> {
        self.timeline.instruction(core, pc)
    }

    /// Whether core `core`'s next instruction is a call (`next` runs it whole).
    pub fn at_call(&self, core: usize) -> bool {
        let pc = self.timeline.machine.cores[core].cpu.pc;
        self.instruction(core, pc).is_some_and(|insn| insn.mnemonic().starts_with("call"))
    }

    /// `count` instructions from `pc` of core `core`, as text.
    pub fn disassemble(&self, core: usize, pc: u32, count: usize) -> Vec<(u32, String)> {
        let mut lines = Vec::new();
        let mut at = pc;
        for _ in 0..count {
            match self.instruction(core, at) {
                Some(insn) => {
                    lines.push((at, insn.to_string().replace('\t', " ")));
                    at += u32::from(insn.len);
                }
                None => break,
            }
        }
        lines
    }

    /// What each core is doing, in words.
    pub fn core_state(&mut self, core: usize) -> String {
        let machine = &mut self.timeline.machine;
        match &machine.states[core] {
            // A core that would come back to this very state without storing
            // anything waits on memory (a barrier, a flag) for another core.
            CoreState::Running if machine.cores[core].spins_without_storing(&mut machine.mem, 1 << 12) => {
                "waiting (spins on memory another core must change)".into()
            }
            CoreState::Running => "running".into(),
            CoreState::Exited(0) => "exited".into(),
            CoreState::Exited(status) => format!("exited with status {status}"),
            CoreState::Stopped(stop) => format!("stopped: {stop}"),
            CoreState::Halted => "halted".into(),
        }
    }
}

/// Image `core`'s DWARF from `cells` (read on first use).
fn debuginfo_of<'a>(
    images: &[OpImage],
    cells: &'a [OnceLock<Option<DebugInfo>>],
    core: usize,
) -> Option<&'a DebugInfo> {
    let image = images.get(core)?;
    cells.get(core)?.get_or_init(|| image.debug.as_ref().and_then(|d| DebugInfo::new(d).ok())).as_ref()
}

impl OpSession<'_> {
    /// The launch's tensors: the inputs by argument name, then `dst`.
    fn tensor_views(&self) -> Vec<TensorView> {
        let mut views: Vec<TensorView> = (self.tensor_args.iter().zip(&self.placement.inputs))
            .map(|((name, dtype, shape), &addr)| TensorView {
                name: name.clone(),
                dtype: *dtype,
                shape: shape.clone(),
                addr,
                output: false,
            })
            .collect();
        views.push(TensorView {
            name: "dst".into(),
            dtype: self.dst.dtype,
            shape: self.dst.shape.clone(),
            addr: self.placement.dst,
            output: true,
        });
        views
    }
}
