//! Running a built op on the machine: the host side of sdk/ABI.md.
//!
//! Memory map (DESIGN.md §3, sdk/ABI.md):
//!
//! | region | address | size | seen by |
//! |---|---|---|---|
//! | iram0 vectors (built-in firmware) | `0x00000000` | 4 KiB | all cores, read/execute |
//! | shared DRAM | `0x00080000` | 64 KiB | all cores |
//! | core window | `0x84000000 + i·0x200000` (single: 32 MiB at `0x84000000`) | 2 MiB | core `i` only |
//! | TCM | `0x90000000` | 16 KiB | each core its own |
//! | tensor memory | `0xC0000000` | inputs, destination, heap slices | all cores |
//!
//! Tensor memory holds, 64-byte aligned and in argument order, the input
//! tensors, then the destination tensor, then one heap slice per core (the
//! launch block's heap_base/heap_size). The destination tensor is what
//! `get_dst_tensor()` returns: by default it has the shape and dtype of the
//! first tensor argument (override with [`OpOptions::dst`]); its bytes start
//! as zero but count as never written for the checker. The argument records
//! and tensor descriptors are written into each core's launch block page
//! after the 64-byte header, so every core has private copies.
//!
//! The output is the tensor core 0 returned (its descriptor at launch
//! block + 0x34); when that tensor is the destination tensor, or nothing was
//! returned, the output is the destination tensor, which all cores wrote.

pub mod image;
mod lookup;

use std::time::{Duration, Instant};

pub use image::OpImage;
use q7_target::launch::{self, descriptor as desc, field, ArgKind};
use q7_target::memmap::{
    Window, SHARED_DRAM_BASE, SHARED_DRAM_SIZE, TCM_BASE, TCM_SIZE, TENSOR_BASE, TENSOR_MAX, VECTORS_BASE, VECTORS_SIZE,
};

use crate::checks::{Allocator, Checker, Finding, Owner};
use crate::config::CoreConfig;
use crate::cpu::StackGuard;
use crate::machine::{CoreState, Machine, RunEnd, RunLimits};
use crate::mem::{Memory, Perms, RegionKind};
use crate::npy::{Array, DType};
use crate::output::OutputMode;
use crate::{firmware, SimError};

/// One kernel argument.
#[derive(Clone, Debug)]
pub enum Arg {
    Tensor { name: String, array: Array },
    Double(f64),
    Int(i64),
    Scalar(f64),
}

/// How to run.
#[derive(Clone, Debug)]
pub struct OpOptions {
    pub limits: RunLimits,
    pub checks: bool,
    pub trace: bool,
    /// Print the cores' output as it comes (else only capture it).
    pub stream_output: bool,
    /// Heap slice per core; default 64 MiB over all cores (at least 8 MiB each).
    pub heap_per_core: Option<u32>,
    /// Destination tensor dtype and shape; default: the first tensor argument's.
    pub dst: Option<(DType, Vec<usize>)>,
    /// Function index, skipping the lookup by name.
    pub function_index: Option<u32>,
}

impl Default for OpOptions {
    fn default() -> Self {
        OpOptions {
            limits: RunLimits::default(),
            checks: true,
            trace: false,
            stream_output: false,
            heap_per_core: None,
            dst: None,
            function_index: None,
        }
    }
}

/// Per-core counters.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CoreStats {
    pub core: usize,
    pub instructions: u64,
    pub cycles: u64,
    pub blocks_decoded: u64,
    pub exit_status: Option<i32>,
}

/// What a run produced.
#[derive(Debug)]
pub struct OpReport {
    pub end: RunEnd,
    pub states: Vec<CoreState>,
    pub output: Option<Array>,
    /// "returned tensor" or "destination tensor".
    pub output_source: &'static str,
    pub stats: Vec<CoreStats>,
    pub findings: Vec<Finding>,
    /// Stray stores, races, reads of unwritten output (all, not only kept).
    pub finding_counts: [u64; 3],
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub wall: Duration,
    pub function_index: u32,
    /// Where each core was when the run ended.
    pub pcs: Vec<u32>,
    pub limits: RunLimits,
}

impl OpReport {
    /// The first problem, as one line: a fault, a limit, a failing exit.
    pub fn failure(&self, mem_map: impl Fn(usize) -> String) -> Option<String> {
        match &self.end {
            RunEnd::Fault(core) => {
                if let CoreState::Stopped(stop) = &self.states[*core] {
                    return Some(format!("core {core}: {stop}\nmemory map of core {core}:\n{}", mem_map(*core)));
                }
            }
            RunEnd::Budget => {
                return Some(format!(
                    "instruction budget of {} exhausted ({}); raise --max-insns",
                    self.limits.max_insns,
                    self.where_cores_are()
                ))
            }
            RunEnd::Timeout => {
                return Some(format!(
                    "wall-clock limit of {:.1} s reached after {} instructions ({}); raise --timeout",
                    self.limits.wall.as_secs_f64(),
                    self.stats.iter().map(|s| s.instructions).sum::<u64>(),
                    self.where_cores_are()
                ))
            }
            RunEnd::Exited => {}
        }
        for (core, state) in self.states.iter().enumerate() {
            if let CoreState::Exited(code) = state {
                if *code != 0 {
                    return Some(format!("core {core} exited with status {code} ({})", status_meaning(*code)));
                }
            }
        }
        None
    }
}

impl OpReport {
    /// "core 0 at 0x84000123, core 1 at ..." for the cores still running.
    fn where_cores_are(&self) -> String {
        let running: Vec<String> = self
            .states
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == CoreState::Running)
            .map(|(i, _)| format!("core {i} at pc {:#010x}", self.pcs[i]))
            .collect();
        running.join(", ")
    }
}

pub use launch::status_meaning;

/// A loaded machine, ready to run one launch.
pub struct OpSession {
    pub machine: Machine,
    pub images: Vec<OpImage>,
    pub function_index: u32,
    dst: (u32, DType, Vec<usize>),
    started: Instant,
}

fn align(x: u32, to: u32) -> u32 {
    x.div_ceil(to) * to
}

/// Loads `images` (one per core, all SPMD windows or one single-core
/// window), looks up `function`, places the arguments and writes the
/// launch blocks.
pub fn prepare(images: Vec<OpImage>, function: &str, args: &[Arg], opts: &OpOptions) -> Result<OpSession, SimError> {
    let started = Instant::now();
    let cores = images.len();
    if cores == 0 || cores > 8 {
        return Err(SimError::Launch(format!("{cores} images: a run takes 1 (single core) or 1..8 (SPMD)")));
    }
    if cores > 1 && images.iter().any(|i| i.window == Window::Single) {
        return Err(SimError::Launch("an image linked for the single fat core runs alone (--cores 1)".into()));
    }
    // Tensor memory layout.
    let mut cursor = TENSOR_BASE;
    let mut placed = Vec::new();
    for arg in args {
        if let Arg::Tensor { array, .. } = arg {
            let addr = align(cursor, 64);
            cursor = addr
                .checked_add(array.data.len() as u32)
                .filter(|&end| end - TENSOR_BASE < TENSOR_MAX)
                .ok_or_else(|| SimError::Launch("input tensors exceed the 512 MiB of tensor memory".into()))?;
            placed.push(addr);
        }
    }
    let first_tensor = args.iter().find_map(|a| match a {
        Arg::Tensor { array, .. } => Some((array.dtype, array.shape.clone())),
        _ => None,
    });
    let (dst_dtype, dst_shape) = opts.dst.clone().or(first_tensor).unwrap_or((DType::F32, vec![0]));
    let dst_bytes = dst_shape.iter().product::<usize>() * dst_dtype.size();
    let dst_addr = align(cursor, 64);
    cursor = dst_addr + dst_bytes as u32;
    let heap_base = align(cursor, 0x1_0000);
    let room = (TENSOR_BASE as u64 + TENSOR_MAX as u64).saturating_sub(heap_base as u64);
    let heap_per_core = match opts.heap_per_core {
        Some(h) => align(h, 0x1000),
        None => ((64u64 << 20) / cores as u64).max(8 << 20).min(room / cores as u64) as u32 & !0xfff,
    };
    let tensor_size = (heap_base - TENSOR_BASE) as u64 + heap_per_core as u64 * cores as u64;
    if tensor_size > TENSOR_MAX as u64 || heap_per_core == 0 {
        return Err(SimError::Launch(format!(
            "tensors plus {cores} heap slices of {heap_per_core:#x} bytes exceed the 512 MiB of tensor memory"
        )));
    }

    // Memory and images.
    let mut mem = Memory::new(cores);
    mem.add_region("iram0 vectors (q7 firmware)", RegionKind::Vectors, VECTORS_BASE, VECTORS_SIZE, Perms::RX, None);
    mem.host_write(VECTORS_BASE, &firmware::vector_block()).map_err(|e| SimError::Launch(e.to_string()))?;
    mem.add_region("shared DRAM", RegionKind::SharedDram, SHARED_DRAM_BASE, SHARED_DRAM_SIZE, Perms::RW, None);
    for (i, img) in images.iter().enumerate() {
        let w = img.window;
        let name = match w {
            Window::Core(k) if k as usize != i => {
                return Err(SimError::Launch(format!("image {i} is bound to window cpu{k}, not cpu{i}")));
            }
            Window::Core(k) => format!("core {k} window"),
            Window::Single => "single-core window".into(),
        };
        mem.add_region(name, RegionKind::Window { core: i }, w.base(), w.size(), Perms::RWX, Some(&[i]));
        mem.add_region(format!("core {i} TCM"), RegionKind::Tcm { core: i }, TCM_BASE, TCM_SIZE, Perms::RW, Some(&[i]));
        mem.host_write_for(i, img.base, &img.bytes).map_err(|e| SimError::Launch(e.to_string()))?;
    }
    let tensor_region =
        mem.add_region("tensor memory", RegionKind::Tensor, TENSOR_BASE, tensor_size as u32, Perms::RW, None);
    let mut tensor_index = 0;
    for arg in args {
        if let Arg::Tensor { array, .. } = arg {
            mem.host_write(placed[tensor_index], &array.data).map_err(|e| SimError::Launch(e.to_string()))?;
            tensor_index += 1;
        }
    }

    let config = CoreConfig::vision_q7();
    let output = OutputMode { prefix: true, stream: opts.stream_output };
    let mut machine = Machine::new(mem, &config, cores, output);
    machine.limits = opts.limits.clone();

    let function_index = match opts.function_index {
        Some(i) => i,
        None => lookup::resolve_function(&mut machine, &images[0], function)?,
    };

    // Checker.
    if opts.checks {
        let mut checker = Checker::new(cores, TENSOR_BASE, tensor_size as u32, TCM_BASE, TCM_SIZE);
        let mut k = 0;
        for arg in args {
            if let Arg::Tensor { name, array } = arg {
                let owner =
                    Owner::HostTensor { name: name.clone(), elem_size: array.dtype.size() as u32, output: false };
                checker.add_live(placed[k], array.data.len() as u32, owner, true);
                k += 1;
            }
        }
        let owner = Owner::HostTensor { name: "dst".into(), elem_size: dst_dtype.size() as u32, output: true };
        checker.add_live(dst_addr, dst_bytes as u32, owner, false);
        for (core, img) in images.iter().enumerate() {
            match img.symbol("q7_arena_alloc").zip(img.symbol("q7_arena_free")) {
                Some((alloc, free)) => {
                    checker.set_allocator(core, Allocator { alloc, free, init: img.symbol("q7_arena_init") })
                }
                None => {
                    let slice = heap_base + heap_per_core * core as u32;
                    checker.add_live(slice, heap_per_core, Owner::Block { core, tcm: false }, true);
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

    // Launch blocks and core state.
    for (i, img) in images.iter().enumerate() {
        let block = launch_page(img, i, cores, function_index, args, &placed, (dst_addr, dst_dtype, &dst_shape), {
            (heap_base + heap_per_core * i as u32, heap_per_core)
        })?;
        machine.mem.host_write_for(i, img.launch_block(), &block).map_err(|e| SimError::Launch(e.to_string()))?;
        let core = &mut machine.cores[i];
        core.reset();
        core.trace = opts.trace;
        core.cpu.pc = img.entry;
        core.cpu.stack_guard = Some(StackGuard { window_base: img.window.base(), floor: img.end() });
    }
    Ok(OpSession { machine, images, function_index, dst: (dst_addr, dst_dtype, dst_shape), started })
}

/// The launch block page of core `i`: header, argument records, descriptors.
#[allow(clippy::too_many_arguments)]
fn launch_page(
    img: &OpImage,
    core: usize,
    cores: usize,
    function_index: u32,
    args: &[Arg],
    placed: &[u32],
    dst: (u32, DType, &[usize]),
    heap: (u32, u32),
) -> Result<Vec<u8>, SimError> {
    let base = img.launch_block();
    let mut page = vec![0u8; launch::PAGE as usize];
    let put32 =
        |page: &mut Vec<u8>, off: u32, v: u32| page[off as usize..off as usize + 4].copy_from_slice(&v.to_le_bytes());
    let args_off = launch::HEADER;
    let mut desc_off = align(args_off + launch::ARG_SIZE * args.len() as u32, 8);
    let tensors = args.iter().filter(|a| matches!(a, Arg::Tensor { .. })).count() as u32;
    if desc_off + desc::SIZE * (tensors + 1) > launch::PAGE {
        return Err(SimError::Launch(format!("{} arguments do not fit the 4 KiB launch block", args.len())));
    }
    let mut k = 0;
    for (n, arg) in args.iter().enumerate() {
        let rec = args_off + launch::ARG_SIZE * n as u32;
        let (kind, value) = match arg {
            Arg::Tensor { array, .. } => {
                let d = descriptor(array.dtype, &array.shape, placed[k]);
                page[desc_off as usize..(desc_off + desc::SIZE) as usize].copy_from_slice(&d);
                k += 1;
                let value = u64::from(base + desc_off);
                desc_off += desc::SIZE;
                (ArgKind::Tensor, value)
            }
            Arg::Double(v) => (ArgKind::Double, v.to_bits()),
            Arg::Int(v) => (ArgKind::Int64, *v as u64),
            Arg::Scalar(v) => (ArgKind::Scalar, v.to_bits()),
        };
        put32(&mut page, rec, kind as u32);
        page[(rec + 8) as usize..(rec + 16) as usize].copy_from_slice(&value.to_le_bytes());
    }
    let dst_desc = desc_off;
    page[dst_desc as usize..(dst_desc + desc::SIZE) as usize].copy_from_slice(&descriptor(dst.1, dst.2, dst.0));
    for (off, v) in [
        (field::MAGIC, launch::MAGIC),
        (field::VERSION, launch::VERSION),
        (field::FUNCTION_INDEX, function_index),
        (field::CORE_ID, core as u32),
        (field::CORE_COUNT, cores as u32),
        (field::ARG_COUNT, args.len() as u32),
        (field::ARGS, base + args_off),
        (field::DST_DESCRIPTOR, base + dst_desc),
        (field::HEAP_BASE, heap.0),
        (field::HEAP_SIZE, heap.1),
        (field::TCM_BASE, TCM_BASE),
        (field::TCM_SIZE, TCM_SIZE),
    ] {
        put32(&mut page, off, v);
    }
    Ok(page)
}

/// A 160-byte tensor descriptor (sdk/ABI.md), C-order strides.
pub fn descriptor(dtype: DType, shape: &[usize], data: u32) -> [u8; 160] {
    let mut d = [0u8; 160];
    d[0..4].copy_from_slice(&dtype.code().to_le_bytes());
    d[4..8].copy_from_slice(&(shape.len() as u32).to_le_bytes());
    d[8..12].copy_from_slice(&data.to_le_bytes());
    let mut stride = 1i64;
    for (i, &size) in shape.iter().enumerate().rev().take(8) {
        d[0x10 + 8 * i..0x18 + 8 * i].copy_from_slice(&(size as i64).to_le_bytes());
        d[0x50 + 8 * i..0x58 + 8 * i].copy_from_slice(&stride.to_le_bytes());
        stride *= size as i64;
    }
    d[0x90..0x98].copy_from_slice(&(shape.iter().product::<usize>() as i64).to_le_bytes());
    d
}

impl OpSession {
    /// Runs all cores and collects the output.
    pub fn run(mut self) -> OpReport {
        let end = self.machine.run();
        let states = self.machine.states.clone();
        let (output, output_source) = self.collect_output();
        let stats = (0..self.machine.cores.len())
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
        let (findings, finding_counts) = match self.machine.mem.checker.take() {
            Some(c) => (c.findings, c.counts),
            None => (Vec::new(), [0; 3]),
        };
        OpReport {
            end,
            states,
            output,
            output_source,
            stats,
            findings,
            finding_counts,
            stdout: std::mem::take(&mut self.machine.output.stdout),
            stderr: std::mem::take(&mut self.machine.output.stderr),
            wall: self.started.elapsed(),
            function_index: self.function_index,
            pcs: self.machine.cores.iter().map(|c| c.cpu.pc).collect(),
            limits: self.machine.limits.clone(),
        }
    }

    fn collect_output(&self) -> (Option<Array>, &'static str) {
        let mem = &self.machine.mem;
        let launch = self.images[0].launch_block();
        let result = mem.host_read_u32_for(0, launch + field::RESULT).unwrap_or(0);
        let (dst_addr, dst_dtype, dst_shape) = &self.dst;
        if result != 0 {
            if let Ok(array) = read_tensor(mem, result) {
                let data = mem.host_read_u32_for(0, result + 8).unwrap_or(0);
                if data != *dst_addr {
                    return (Some(array), "returned tensor");
                }
            }
        }
        let bytes = dst_shape.iter().product::<usize>() * dst_dtype.size();
        let data = mem.host_read(*dst_addr, bytes).map(<[u8]>::to_vec).ok();
        (data.map(|data| Array { dtype: *dst_dtype, shape: dst_shape.clone(), data }), "destination tensor")
    }

    /// The status word core `i` left in its launch block.
    pub fn launch_status(&self, core: usize) -> Option<u32> {
        self.machine.mem.host_read_u32_for(core, self.images[core].launch_block() + field::STATUS).ok()
    }
}

/// Reads the tensor a descriptor at `desc` (as core 0 sees it) describes,
/// gathering strided elements into C order.
fn read_tensor(mem: &Memory, desc: u32) -> Result<Array, String> {
    let raw = mem.host_read_for(0, desc, 160)?.to_vec();
    let u32_at = |o: usize| u32::from_le_bytes([raw[o], raw[o + 1], raw[o + 2], raw[o + 3]]);
    let i64_at = |o: usize| i64::from_le_bytes(raw[o..o + 8].try_into().unwrap_or([0; 8]));
    let dtype = DType::from_code(u32_at(0)).ok_or_else(|| format!("result dtype code {} is unknown", u32_at(0)))?;
    let rank = u32_at(4) as usize;
    if rank > 8 {
        return Err(format!("result rank {rank} > 8"));
    }
    let data = u32_at(8);
    let shape: Vec<usize> = (0..rank).map(|i| i64_at(0x10 + 8 * i).max(0) as usize).collect();
    let strides: Vec<i64> = (0..rank).map(|i| i64_at(0x50 + 8 * i)).collect();
    let numel: usize = shape.iter().product();
    let size = dtype.size();
    let contiguous = descriptor(dtype, &shape, data)[0x50..0x90] == raw[0x50..0x90];
    if contiguous {
        let bytes = mem.host_read_for(0, data, numel * size)?.to_vec();
        return Ok(Array { dtype, shape, data: bytes });
    }
    let mut out = Vec::with_capacity(numel * size);
    let mut index = vec![0usize; rank];
    for _ in 0..numel {
        let offset: i64 = index.iter().zip(&strides).map(|(&i, &s)| i as i64 * s).sum();
        let addr = (i64::from(data) + offset * size as i64) as u32;
        out.extend_from_slice(mem.host_read_for(0, addr, size)?);
        for d in (0..rank).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(Array { dtype, shape, data: out })
}
