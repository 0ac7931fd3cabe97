//! Basic blocks of pre-decoded ops and the per-core cache that holds them.
//!
//! A block is decoded once, on first execution of its start address, and
//! runs straight through to its last op, which is usually a control transfer
//! (see [`Op::ends_block`]). The cache is keyed by start address: a small
//! direct-mapped front array, then a hash map. When a store hits decoded
//! bytes, memory bumps its code epoch and every cache flushes on its next
//! lookup (self-modifying code is rare; correctness is what matters).
//!
//! A block is the unit a translating back end would compile: its ops are
//! final (registers, immediates and targets resolved), it has one entry, and
//! its cost and window needs are precomputed.

use std::cell::{Cell, OnceCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use q7_isa::{decode, DecodeError, IsaOptions};

use crate::alu::PureOp;
use crate::mem::Memory;
use crate::stop::Stop;
use crate::uop::{translate, Kind, Op};

/// Longest block, in instructions.
pub const MAX_BLOCK_OPS: usize = 64;
const FRONT_SIZE: usize = 4096;

pub struct Block {
    pub start: u32,
    /// Address after the last op.
    pub end: u32,
    pub ops: Box<[Op]>,
    /// Highest window frame any op names (see [`Op::frame`]).
    pub max_frame: u8,
    /// Cycles of all ops, before taken-branch penalties.
    pub cycles: u64,
    /// No op ends the block early (its last op is not a control transfer),
    /// so repeated execution is a plain loop.
    pub straight: bool,
    /// The block again, when every op is an ALU op (see [`crate::alu`]):
    /// the form loop bodies run in.
    pub pure: Option<Box<[PureOp]>>,
    /// The translating back end's state for this block (`crate::jit`).
    pub translation: Translation,
}

/// Entry of host code compiled from a block: the argument is the JIT's
/// context; the result, the index of the first op left to the interpreter.
pub type HostCode = unsafe extern "C" fn(*mut std::ffi::c_void) -> u32;

/// How hot a block is and its compiled forms, if any.
#[derive(Default)]
pub struct Translation {
    pub heat: Cell<u32>,
    /// Once through the block.
    pub straight: Cell<Option<HostCode>>,
    /// Iterations of the block as a whole zero-overhead loop body.
    pub looped: Cell<Option<HostCode>>,
    pub loop_tried: Cell<bool>,
    /// The block with the blocks it reaches, compiled as one region.
    pub region: OnceCell<Region>,
    /// Part of another block's region: control usually arrives inside it,
    /// so a region of its own would be compiled for little use.
    pub covered: Cell<bool>,
    /// The region that covers it, entered here when control arrives from
    /// elsewhere: its head's start and this block's number in it.
    pub entered_by: Cell<Option<(u32, u16)>>,
    /// Its own code was sought after its region was refused at entry.
    pub own_tried: Cell<bool>,
    /// Where control went after the block last ran outside compiled code
    /// (the dispatcher records it): for a `callx` or `retw`, a target a
    /// region may take in (see `crate::jit::region::discover`).
    pub last_exit: Cell<u32>,
}

/// One block of a region: where it is and where its ops are in
/// [`Region::ops`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegionBlock {
    pub start: u32,
    pub end: u32,
    pub first: u32,
    pub len: u32,
    pub cycles: u64,
}

/// A block and the blocks it reaches, compiled as one function by the JIT
/// (`crate::jit::region` builds it and documents its contract). The ops are
/// this core's copy; the code may be shared with other cores' copies.
pub struct Region {
    pub(crate) code: HostCode,
    /// The head first.
    pub(crate) blocks: Box<[RegionBlock]>,
    /// Every block's ops, in block order (`fp_step` indexes them).
    pub(crate) ops: Box<[Op]>,
    /// Per block, the highest window frame it and the blocks it reaches
    /// without rotating the window name (`crate::jit::region::frames`):
    /// what entering there needs free.
    pub(crate) frames: Box<[u8]>,
    /// Lowest start and highest end of its blocks.
    lo: u32,
    hi: u32,
    /// The last LEND checked, and whether it allowed entry.
    lend_checked: Cell<Option<(u32, bool)>>,
}

impl Region {
    /// `frames`: see [`Region::frames`].
    pub(crate) fn new(code: HostCode, blocks: &[&Block], frames: Vec<u8>) -> Region {
        let mut ops = Vec::new();
        let mut placed = Vec::with_capacity(blocks.len());
        for block in blocks {
            placed.push(RegionBlock {
                start: block.start,
                end: block.end,
                first: ops.len() as u32,
                len: block.ops.len() as u32,
                cycles: block.cycles,
            });
            ops.extend_from_slice(&block.ops);
        }
        let lo = blocks.iter().map(|b| b.start).min().unwrap_or(0);
        let hi = blocks.iter().map(|b| b.end).max().unwrap_or(0);
        Region {
            code,
            blocks: placed.into_boxed_slice(),
            ops: ops.into_boxed_slice(),
            frames: frames.into_boxed_slice(),
            lo,
            hi,
            lend_checked: Cell::new(None),
        }
    }

    /// The ops of block `k`.
    pub(crate) fn block_ops(&self, k: usize) -> &[Op] {
        let b = &self.blocks[k];
        &self.ops[b.first as usize..(b.first + b.len) as usize]
    }

    /// Whether compiled code may run now from block `k`: LEND is not inside
    /// or at the end of any block, and no other block starts where
    /// `stops_at` says the dispatcher must look (hooks, the halt pc).
    #[inline]
    pub(crate) fn enterable(&self, lend: u32, stops_at: Option<&dyn Fn(u32) -> bool>, k: usize) -> bool {
        if lend.wrapping_sub(self.lo).wrapping_sub(1) < self.hi.wrapping_sub(self.lo) && !self.lend_allows(lend) {
            return false;
        }
        match stops_at {
            Some(stops) => !self.blocks.iter().enumerate().any(|(j, b)| j != k && stops(b.start)),
            None => true,
        }
    }

    #[cold]
    fn lend_allows(&self, lend: u32) -> bool {
        if let Some((checked, ok)) = self.lend_checked.get() {
            if checked == lend {
                return ok;
            }
        }
        let ok = !self.blocks.iter().any(|b| b.start < lend && lend <= b.end);
        self.lend_checked.set(Some((lend, ok)));
        ok
    }
}

/// What decoding a block needs to know of the core that runs it.
#[derive(Clone, Copy)]
pub struct Fetcher<'a> {
    /// The core id (its view of memory).
    pub core: usize,
    pub isa: &'a IsaOptions,
    /// The current zero-overhead loop end: a block ends there.
    pub lend: u32,
    /// The core's hooks: a block ends before one, so each starts a block
    /// (where the dispatcher looks).
    pub hooks: &'a [u32],
}

/// Fibonacci hashing of a 32-bit pc: enough for a map of block starts.
#[derive(Default)]
pub struct PcHasher(u64);

impl Hasher for PcHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub struct BlockCache {
    blocks: Vec<Block>,
    index: HashMap<u32, u32, BuildHasherDefault<PcHasher>>,
    /// (start pc, block index + 1); 0 = empty slot.
    front: Box<[(u32, u32)]>,
    epoch: u64,
    /// Blocks decoded since creation (statistics).
    pub built: u64,
}

impl Default for BlockCache {
    fn default() -> Self {
        BlockCache::new()
    }
}

impl BlockCache {
    pub fn new() -> BlockCache {
        BlockCache {
            blocks: Vec::new(),
            index: HashMap::default(),
            front: vec![(0, 0); FRONT_SIZE].into_boxed_slice(),
            epoch: 0,
            built: 0,
        }
    }

    fn flush(&mut self) {
        self.blocks.clear();
        self.index.clear();
        self.front.fill((0, 0));
    }

    /// The block starting at `pc`, if decoded already (as of the last
    /// [`BlockCache::index_or_build`], which flushes stale blocks).
    pub fn peek(&self, pc: u32) -> Option<&Block> {
        self.index.get(&pc).map(|&i| &self.blocks[i as usize])
    }

    /// The block at `index` (from [`BlockCache::index_or_build`]).
    #[inline]
    pub fn at(&self, index: usize) -> &Block {
        &self.blocks[index]
    }

    /// The index of the block starting at `pc` (see [`BlockCache::at`]),
    /// decoding it if needed: an index, so the caller can go on looking up
    /// other blocks while it holds this one.
    #[inline]
    pub fn index_or_build(&mut self, pc: u32, fetcher: Fetcher<'_>, mem: &mut Memory) -> Result<usize, Stop> {
        if self.epoch != mem.code_epoch {
            self.flush();
            self.epoch = mem.code_epoch;
        }
        let slot = (pc as usize >> 1) & (FRONT_SIZE - 1);
        let (tag, entry) = self.front[slot];
        if entry != 0 && tag == pc {
            return Ok(entry as usize - 1);
        }
        let index = match self.index.get(&pc) {
            Some(&i) => i,
            None => {
                let block = build(pc, fetcher, mem, MAX_BLOCK_OPS)?;
                mem.mark_code(block.start, block.end);
                self.built += 1;
                self.blocks.push(block);
                let i = (self.blocks.len() - 1) as u32;
                self.index.insert(pc, i);
                i
            }
        };
        self.front[slot] = (pc, index + 1);
        Ok(index as usize)
    }
}

/// The one instruction at `pc` as a block of its own, decoded without
/// touching the block cache or marking code (for a look ahead that must
/// leave the machine as it was).
pub(crate) fn build_one(pc: u32, fetcher: Fetcher<'_>, mem: &Memory) -> Result<Block, Stop> {
    build(pc, fetcher, mem, 1)
}

/// The one instruction at `pc` decoded from `bytes` (those the MMU maps
/// `pc` to), as a block of its own.
pub(crate) fn decoded(pc: u32, bytes: &[u8], fetcher: Fetcher<'_>) -> Block {
    let read = |_: u32, buf: &mut [u8; 3]| {
        let n = bytes.len().min(3);
        buf[..n].copy_from_slice(&bytes[..n]);
        Ok(n)
    };
    let block = build_from(pc, fetcher, 1, read);
    block.unwrap_or_else(|_| unreachable!("reading bytes in hand cannot fail"))
}

/// Decodes the block at `start`, of at most `max_ops` ops.
fn build(start: u32, fetcher: Fetcher<'_>, mem: &Memory, max_ops: usize) -> Result<Block, Stop> {
    let read = |pc: u32, buf: &mut [u8; 3]| {
        mem.fetch(fetcher.core, pc, buf).map_err(|fault| Stop::Memory {
            pc,
            fault,
            explanation: mem.explain_fault(fetcher.core, &fault),
        })
    };
    build_from(start, fetcher, max_ops, read)
}

/// [`build`] over the bytes `read` gives for a pc (up to three).
fn build_from(
    start: u32,
    fetcher: Fetcher<'_>,
    max_ops: usize,
    read: impl Fn(u32, &mut [u8; 3]) -> Result<usize, Stop>,
) -> Result<Block, Stop> {
    let mut ops: Vec<Op> = Vec::new();
    let mut pc = start;
    loop {
        let mut buf = [0u8; 3];
        let n = match read(pc, &mut buf) {
            Ok(n) => n,
            Err(stop) if ops.is_empty() => return Err(stop),
            Err(_) => break,
        };
        match decode(&buf[..n], pc, fetcher.isa) {
            Ok(insn) => {
                let mut op = translate(&insn);
                // An op that reads or schedules by CCOUNT starts its own
                // block: the retired-instruction count is exact only
                // between blocks.
                if !ops.is_empty() && op.uses_time() {
                    break;
                }
                op.cycles = crate::cost::cycles(op.kind);
                ops.push(op);
                pc = op.next_pc();
                // Ending at the current loop end lets a loop body be one
                // block; a LEND set later is handled when executing.
                if op.ends_block() || ops.len() >= max_ops || pc == fetcher.lend || fetcher.hooks.contains(&pc) {
                    break;
                }
            }
            Err(err) if ops.is_empty() => {
                ops.push(undecodable(pc, &buf[..n], err));
                pc = pc.wrapping_add(u32::from(ops[0].len));
                break;
            }
            // Decode the bad bytes as their own block, when reached.
            Err(_) => break,
        }
    }
    let max_frame = ops.iter().map(|op| op.frame).max().unwrap_or(0);
    let cycles = ops.iter().map(|op| u64::from(op.cycles)).sum();
    let straight = ops.iter().all(|op| !op.ends_block());
    let pure = ops.iter().map(Op::register_only).collect::<Option<Box<[PureOp]>>>();
    let translation = Translation::default();
    Ok(Block { start, end: pc, ops: ops.into_boxed_slice(), max_frame, cycles, straight, pure, translation })
}

/// An op standing for bytes that do not decode; executing it reports them.
fn undecodable(pc: u32, bytes: &[u8], err: DecodeError) -> Op {
    let len = err.covered_len().unwrap_or(1).clamp(1, 3).min(bytes.len().max(1) as u8);
    let word = bytes.iter().take(usize::from(len)).rev().fold(0u32, |acc, &b| acc << 8 | u32::from(b));
    // The decode error's text travels in the reason table below.
    let reason = match err {
        DecodeError::Bundle { .. } => 1,
        DecodeError::Truncated { .. } | DecodeError::Empty => 2,
        DecodeError::Reserved { .. } => 3,
        DecodeError::Unknown { .. } => 0,
    };
    Op {
        kind: Kind::Undecodable,
        a: reason,
        b: 0,
        c: 0,
        frame: 0,
        len,
        cycles: 1,
        imm: word,
        target: 0,
        pc,
        opcode: q7_isa::Opcode::Ill,
    }
}

/// Why an [`Kind::Undecodable`] op's bytes are not an instruction.
pub fn undecodable_reason(code: u8) -> &'static str {
    match code {
        1 => "a FLIX bundle (op0 0xe/0xf), which the scalar simulator does not model",
        2 => "the instruction runs past the end of executable memory",
        3 => "a density opcode on a core without the density option",
        _ => "not an instruction of this core configuration",
    }
}
