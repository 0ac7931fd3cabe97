//! One launch on the machine: memory regions, images, tensors, the checker,
//! launch blocks and core state; then the run and what it left behind.

use std::time::Instant;

use q7_target::launch::field;
use q7_target::memmap::{
    Window, SHARED_DRAM_BASE, SHARED_DRAM_SIZE, TCM_BASE, TCM_SIZE, TENSOR_BASE, VECTORS_BASE, VECTORS_SIZE,
};

use super::args::KernelArg;
use super::launch_block::{self, CoreLaunch, Descriptor};
use super::placement::{self, Destination, Placement};
use super::profile::{self, Estimate, OpProfile};
use super::report::{
    CoreStats, Failure, FindingCounts, FindingReport, JitStats, OpReport, Outcome, OutputSource, OutputTensor,
    RunningCore, UnwrittenOutput,
};
use super::{lookup, OpError, OpImage, OpOptions};
use crate::checks::{Allocator, Checker, Finding, Owner};
use crate::config::CoreConfig;
use crate::cpu::StackGuard;
use crate::machine::{CoreState, Machine, RunEnd, MAX_FRAMES};
use crate::mem::{Memory, Perms, RegionKind};
use crate::output::OutputMode;
use crate::{firmware, SimError};

/// A loaded machine, ready to run one launch.
pub struct OpSession<'lib> {
    pub machine: Machine,
    /// The library's images (borrowed: a run does not copy their bytes
    /// and symbol tables).
    pub(super) images: &'lib [OpImage],
    pub(super) function: String,
    op: Option<String>,
    function_index: u32,
    pub(super) placement: Placement,
    pub(super) dst: Destination,
    /// Name, dtype and shape of each tensor argument, in order.
    pub(super) tensor_args: Vec<(String, q7_target::DType, Vec<usize>)>,
    started: Instant,
}

fn launch_err(e: crate::mem::HostAccessError) -> OpError {
    OpError::Sim(SimError::HostAccess(e))
}

/// Loads `images` (one per core: SPMD windows, or one single-core window),
/// places the arguments and writes the launch blocks.
pub(super) fn prepare<'lib>(
    images: &'lib [OpImage],
    function: &str,
    op: Option<String>,
    function_index: Option<u32>,
    args: &[KernelArg],
    opts: &OpOptions,
) -> Result<OpSession<'lib>, OpError> {
    let started = Instant::now();
    let cores = images.len();
    if cores == 0 || cores > 8 {
        return Err(OpError::CoreCount { cores });
    }
    if cores > 1 && images.iter().any(|i| i.window == Window::Single) {
        return Err(OpError::SingleWindowShared { cores });
    }
    let first_tensor = args.iter().find_map(|a| match a {
        KernelArg::Tensor(t) => Some(Destination { dtype: t.dtype, shape: t.shape.clone() }),
        _ => None,
    });
    let dst = opts.dst.clone().or(first_tensor).unwrap_or(Destination { dtype: q7_target::DType::F32, shape: vec![0] });
    if dst.shape.len() > q7_target::launch::descriptor::MAX_RANK {
        let max = q7_target::launch::descriptor::MAX_RANK;
        return Err(OpError::Rank { tensor: "the destination".into(), rank: dst.shape.len(), max });
    }
    let placement = placement::place(args, &dst, cores, opts.heap_per_core)?;

    // Memory and images.
    let mut mem = Memory::new(cores);
    mem.add_region("iram0 vectors (q7 firmware)", RegionKind::Vectors, VECTORS_BASE, VECTORS_SIZE, Perms::RX, None);
    mem.host_write(VECTORS_BASE, &firmware::vector_block()).map_err(launch_err)?;
    mem.add_region("shared DRAM", RegionKind::SharedDram, SHARED_DRAM_BASE, SHARED_DRAM_SIZE, Perms::RW, None);
    for (i, img) in images.iter().enumerate() {
        let w = img.window;
        let name = match w {
            Window::Core(k) if k as usize != i => {
                return Err(OpError::WindowMismatch { image: i, window: k });
            }
            Window::Core(k) => format!("core {k} window"),
            Window::Single => "single-core window".into(),
        };
        mem.add_region(name, RegionKind::Window { core: i }, w.base(), w.size(), Perms::RWX, Some(&[i]));
        mem.add_region(format!("core {i} TCM"), RegionKind::Tcm { core: i }, TCM_BASE, TCM_SIZE, Perms::RW, Some(&[i]));
        mem.host_write_for(i, img.base, &img.bytes).map_err(launch_err)?;
    }
    let tensor_region =
        mem.add_region("tensor memory", RegionKind::Tensor, TENSOR_BASE, placement.tensor_size, Perms::RW, None);
    // The inputs and the destination are written whole (the heap slices
    // after them, sparsely if at all).
    let dense = (placement.dst + placement.dst_bytes - TENSOR_BASE) as usize;
    mem.expect_dense(tensor_region, TENSOR_BASE, dense);
    let tensors = || args.iter().filter_map(|a| if let KernelArg::Tensor(t) = a { Some(*t) } else { None });
    for (t, &addr) in tensors().zip(&placement.inputs) {
        mem.host_write(addr, t.data).map_err(launch_err)?;
    }

    let config = CoreConfig::vision_q7();
    let output = OutputMode { prefix: true, stream: opts.stream_output };
    let mut machine = Machine::new(mem, &config, cores, output);
    machine.limits = opts.limits.clone();

    let function_index = match function_index {
        Some(i) => i,
        None => lookup::resolve_function(&mut machine, &images[0], function)?,
    };

    if opts.checks {
        let mut checker = Checker::new(cores, TENSOR_BASE, placement.tensor_size, TCM_BASE, TCM_SIZE);
        let isa = config.isa;
        checker
            .set_use_test(std::sync::Arc::new(move |code, pc| crate::cpu::loaded::loaded_value_used(code, pc, &isa)));
        checker.expect_dense(TENSOR_BASE, dense);
        for (t, &addr) in tensors().zip(&placement.inputs) {
            let owner = Owner::HostTensor { name: t.name.clone(), elem_size: t.dtype.size() as u32, output: false };
            checker.add_live(addr, t.data.len() as u32, owner, true);
        }
        let owner = Owner::HostTensor { name: "dst".into(), elem_size: dst.dtype.size() as u32, output: true };
        checker.add_live(placement.dst, placement.dst_bytes, owner, false);
        for (core, img) in images.iter().enumerate() {
            // The stack starts empty below the launch block: the start-up
            // code's frame is the first thing written there.
            checker.watch_stack(core, img.end(), img.stack_top());
            machine.mem.watch_stack(core, img.end(), img.stack_top());
            match img.symbol("q7_arena_alloc").zip(img.symbol("q7_arena_free")) {
                Some((alloc, free)) => {
                    checker.set_allocator(core, Allocator { alloc, free, init: img.symbol("q7_arena_init") })
                }
                None => {
                    let slice = placement.heap_base + placement.heap_per_core * core as u32;
                    checker.add_live(slice, placement.heap_per_core, Owner::Block { core, tcm: false }, true);
                    checker.add_tcm_live(core, TCM_BASE, TCM_SIZE);
                }
            }
        }
        machine.mem.watch_region(tensor_region);
        for i in 0..machine.mem.regions.len() {
            if matches!(machine.mem.regions[i].kind, RegionKind::Tcm { .. }) {
                machine.mem.watch_region(i);
            }
        }
        for (i, core) in machine.cores.iter_mut().enumerate() {
            for pc in checker.hook_addresses(i) {
                core.add_hook(pc);
            }
        }
        machine.mem.checker = Some(checker);
    }

    for (i, img) in images.iter().enumerate() {
        let flags = if opts.sdk_checks { 0 } else { q7_target::launch::FLAG_NO_SDK_CHECKS };
        let at = CoreLaunch { core: i, cores, base: img.launch_block(), flags };
        let page = launch_block::page(&at, function_index, args, &placement, &dst)?;
        machine.mem.host_write_for(i, at.base, &page).map_err(launch_err)?;
        let core = &mut machine.cores[i];
        core.reset();
        core.trace = opts.trace;
        core.stop_on_finding = opts.locate_findings;
        core.cpu.pc = img.entry;
        core.cpu.stack_guard = Some(StackGuard { window_base: img.window.base(), floor: img.end() });
    }
    let tensor_args = tensors().map(|t| (t.name.clone(), t.dtype, t.shape.clone())).collect();
    let function = function.to_string();
    Ok(OpSession { machine, images, function, op, function_index, placement, dst, tensor_args, started })
}

impl OpSession<'_> {
    /// Runs all cores and collects the output.
    pub fn run(mut self) -> Result<OpReport, OpError> {
        let end = self.machine.run();
        self.finish(end)
    }

    /// Runs on the profiling path: every instruction priced by the
    /// memory-class model (`crate::cost::MODEL`) and filed per call stack.
    /// The report's per-core cycles are then the model's.
    pub fn run_profiled(mut self) -> Result<(OpReport, OpProfile), OpError> {
        for (core, image) in self.machine.cores.iter_mut().zip(self.images) {
            core.profile = Some(profile::collector(image));
        }
        let end = self.machine.run();
        let collected: Vec<_> =
            self.machine.cores.iter_mut().filter_map(|core| core.profile.take()).map(|p| *p).collect();
        let summary = profile::summarize(self.images, &collected);
        let mut report = self.finish(end)?;
        for (stats, row) in report.stats.iter_mut().zip(&summary.cores) {
            stats.cycles = row.costs.cycles.round() as u64;
        }
        Ok((report, summary))
    }

    /// Runs on the normal engines, priced by the same model as
    /// [`OpSession::run_profiled`] to the same totals (counters and hooks,
    /// see `crate::tally`, instead of filing every instruction). The
    /// report's per-core cycles are then the model's.
    pub fn run_estimated(mut self) -> Result<(OpReport, Estimate), OpError> {
        let entries = self.images.iter().map(profile::transfer_entries).collect();
        self.machine.price_transfers(entries);
        let end = self.machine.run();
        let cycles = self.machine.modelled_cycles();
        let mut report = self.finish(end)?;
        for (stats, cycles) in report.stats.iter_mut().zip(&cycles) {
            stats.cycles = cycles.round() as u64;
        }
        Ok((report, Estimate::from_cores(&cycles)))
    }

    /// The checker's findings, with the call stacks the run located.
    fn finding_reports(&self, findings: &[Finding]) -> Vec<FindingReport> {
        let stacks = &self.machine.finding_stacks;
        (findings.iter().enumerate())
            .map(|(i, finding)| {
                let (core, pc) = finding.place();
                let stack = match stacks.iter().find(|(index, _)| *index == i) {
                    Some((_, frames)) => frames.iter().map(|f| self.images[core].locate(f.pc)).collect(),
                    None => Vec::new(),
                };
                FindingReport { message: finding.to_string(), core, pc, stack }
            })
            .collect()
    }

    fn finish(mut self, end: RunEnd) -> Result<OpReport, OpError> {
        self.machine.output.flush();
        let states = self.machine.states.clone();
        let (output, output_addr, output_bytes) = match self.collect_output() {
            Some((output, addr, bytes)) => (Some(output), addr, Some(bytes)),
            None => (None, None, None),
        };
        let unwritten_output = self.unwritten(output.as_ref(), output_addr);
        let cores = self.machine.cores.len();
        let stats: Vec<CoreStats> = (0..cores)
            .map(|i| {
                let core = &self.machine.cores[i];
                CoreStats {
                    core: i,
                    instructions: core.cpu.insns,
                    cycles: core.cpu.cycles,
                    blocks_decoded: core.blocks_built(),
                    exit_status: match states[i] {
                        CoreState::Exited(code) => Some(code),
                        _ => None,
                    },
                }
            })
            .collect();
        let (findings, counts) = match self.machine.mem.checker.take() {
            Some(c) => (self.finding_reports(&c.findings), c.counts),
            None => (Vec::new(), [0; 4]),
        };
        let running: Vec<RunningCore> = states
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == CoreState::Running)
            .map(|(core, _)| {
                let cpu = &self.machine.cores[core].cpu;
                let stack = cpu.call_stack(&self.machine.mem, MAX_FRAMES);
                let callers = stack[1..].iter().map(|f| self.images[core].locate(f.pc)).collect();
                RunningCore { core, pc: cpu.pc, location: self.images[core].locate(cpu.pc), callers }
            })
            .collect();
        let instructions = stats.iter().map(|s| s.instructions).sum();
        let limits = &self.machine.limits;
        let failure = match &end {
            RunEnd::Fault(core) => match &states[*core] {
                CoreState::Stopped(stop) => {
                    let (pc, cpu) = (stop.pc(), &self.machine.cores[*core].cpu);
                    let image = &self.images[*core];
                    let in_firmware = pc.wrapping_sub(VECTORS_BASE) < VECTORS_SIZE;
                    let callers = match in_firmware {
                        true => Vec::new(),
                        false => (cpu.call_stack(&self.machine.mem, MAX_FRAMES).iter().skip(1))
                            .map(|f| image.locate(f.pc))
                            .collect(),
                    };
                    Some(Failure::Fault {
                        core: *core,
                        pc,
                        message: stop.to_string(),
                        location: (!in_firmware).then(|| image.locate(pc)),
                        called_from: in_firmware.then(|| image.locate(cpu.epc1)),
                        callers,
                    })
                }
                _ => None,
            },
            RunEnd::Budget => Some(Failure::Budget { max_insns: limits.max_insns, running }),
            RunEnd::Timeout => Some(Failure::Timeout { seconds: limits.wall.as_secs_f64(), instructions, running }),
            RunEnd::Interrupted => Some(Failure::Interrupted { instructions, running }),
            RunEnd::Deadlock => Some(Failure::Deadlock { instructions, running }),
            RunEnd::Exited => None,
        }
        .or_else(|| {
            states.iter().enumerate().find_map(|(core, s)| match s {
                CoreState::Exited(code) if *code != 0 => {
                    // The core stopped at its exit simcall: its windows still
                    // hold the calls that led there.
                    let cpu = &self.machine.cores[core].cpu;
                    let stack = cpu.call_stack(&self.machine.mem, MAX_FRAMES);
                    let stack = stack.iter().map(|f| self.images[core].locate(f.pc)).collect();
                    Some(Failure::exit_status(core, *code, stack))
                }
                _ => None,
            })
        });
        // Only a fault's report prints a memory map: no strings otherwise
        // (a Python caller runs an op per training step).
        let memory_maps = match &failure {
            Some(Failure::Fault { .. }) => (0..cores).map(|c| self.machine.mem.describe_map(c)).collect(),
            _ => Vec::new(),
        };
        // Last: taking the output's bytes empties the region holding them.
        let mut output = output;
        if let (Some(output), Some(bytes)) = (output.as_mut(), output_bytes) {
            output.data = match bytes {
                TensorBytes::Gathered(data) => data,
                TensorBytes::Span { addr, len } => self.machine.mem.take_bytes_for(0, addr, len).unwrap_or_default(),
            };
        }
        let out = &mut self.machine.output;
        Ok(OpReport {
            function: self.function,
            op: self.op,
            function_index: self.function_index,
            cores,
            threads: self.machine.threads_used,
            outcome: Outcome::from(&end),
            failure,
            output,
            stats,
            findings,
            finding_counts: FindingCounts {
                stray_stores: counts[0],
                races: counts[1],
                unwritten_reads: counts[2],
                stray_loads: counts[3],
            },
            unwritten_output,
            stdout: String::from_utf8_lossy(&std::mem::take(&mut out.stdout)).into_owned(),
            stderr: String::from_utf8_lossy(&std::mem::take(&mut out.stderr)).into_owned(),
            console_dropped: out.dropped,
            wall: self.started.elapsed(),
            jit: self.machine.cores[0].compile_time().map(|compile_time| JitStats {
                blocks_compiled: self.machine.cores[0].blocks_compiled(),
                regions_compiled: self.machine.cores[0].regions_compiled(),
                compile_time,
            }),
            memory_maps,
        })
    }

    /// How much of the output (when it is contiguous in tensor memory) no
    /// one wrote.
    fn unwritten(&self, output: Option<&OutputTensor>, addr: Option<u32>) -> Option<UnwrittenOutput> {
        let (output, addr) = (output?, addr?);
        let checker = self.machine.mem.checker.as_ref()?;
        let numel = output.shape.iter().product::<usize>();
        let (elements, first) = checker.never_written(addr, numel, output.dtype.size(), 8)?;
        (elements > 0).then_some(UnwrittenOutput { elements, of: numel, first })
    }

    /// The tensor core 0 returned, or the destination tensor (its data
    /// still to be fetched from `TensorBytes`), and its address when it is
    /// contiguous.
    fn collect_output(&self) -> Option<(OutputTensor, Option<u32>, TensorBytes)> {
        let mem = &self.machine.mem;
        let result = mem.host_read_u32_for(0, self.images[0].launch_block() + field::RESULT).unwrap_or(0);
        if result != 0 {
            if let Some((desc, bytes)) = self.read_tensor(result) {
                if desc.data != self.placement.dst {
                    let source = OutputSource::ReturnedTensor;
                    let addr = desc.is_contiguous().then_some(desc.data);
                    let output = OutputTensor { dtype: desc.dtype, shape: desc.shape, source, data: Vec::new() };
                    return Some((output, addr, bytes));
                }
            }
        }
        let (addr, len) = (self.placement.dst, self.placement.dst_bytes as usize);
        mem.host_read_for(0, addr, len).ok()?;
        let source = OutputSource::DestinationTensor;
        let output = OutputTensor { dtype: self.dst.dtype, shape: self.dst.shape.clone(), source, data: Vec::new() };
        Some((output, Some(addr), TensorBytes::Span { addr, len }))
    }

    /// The tensor the descriptor at `addr` (as core 0 sees it) describes,
    /// strided elements gathered into C order.
    fn read_tensor(&self, addr: u32) -> Option<(Descriptor, TensorBytes)> {
        let mem = &self.machine.mem;
        let size = q7_target::launch::descriptor::SIZE as usize;
        let desc = Descriptor::decode(mem.host_read_for(0, addr, size).ok()?).ok()?;
        let numel = desc.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))?;
        let elem = desc.dtype.size();
        let bytes = numel.checked_mul(elem).filter(|&b| b <= q7_target::memmap::TENSOR_MAX as usize)?;
        if desc.is_contiguous() {
            mem.host_read_for(0, desc.data, bytes).ok()?;
            let span = TensorBytes::Span { addr: desc.data, len: bytes };
            return Some((desc, span));
        }
        let mut out = Vec::with_capacity(bytes);
        let mut index = vec![0usize; desc.shape.len()];
        for _ in 0..numel {
            let offset: i64 = index.iter().zip(&desc.strides).map(|(&i, &s)| i as i64 * s).sum();
            let at = (i64::from(desc.data) + offset * elem as i64) as u32;
            out.extend_from_slice(mem.host_read_for(0, at, elem).ok()?);
            for d in (0..desc.shape.len()).rev() {
                index[d] += 1;
                if index[d] < desc.shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Some((desc, TensorBytes::Gathered(out)))
    }
}

/// Where an output tensor's bytes are: a span of memory core 0 sees (read
/// and checked, taken only when the report is complete), or already
/// gathered from strided elements.
enum TensorBytes {
    Span { addr: u32, len: usize },
    Gathered(Vec<u8>),
}
