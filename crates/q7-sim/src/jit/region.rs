//! Regions: a hot block and the decoded blocks its branches reach, compiled
//! as one function, so control passes between them (loops with an `if`
//! inside, a loop whose body spans blocks) without returning to the
//! dispatcher.
//!
//! A region's compiled code keeps the interpreter's accounting itself: it
//! adds each finished block's instructions and cycles (and the taken-branch
//! penalty) and, before entering any block but the first, checks the
//! instruction budget exactly where `Core::run` would. It returns
//! `k << 16 | i`: it stopped in block `k` before op `i`, with every block
//! before it accounted and block `k` not; `i == 0` means the pc is block
//! `k`'s start, and `i == len` that block `k`'s last op ran and set
//! `next_pc`/`taken` (an edge out of the region). `Cpu::run_region` finishes
//! from there as the interpreter would.
//!
//! A region is entered at any of its blocks (`JitCtx::entry`): control
//! arriving at a block it covers (after an exit, a budget's end, an
//! exception handler) goes back into compiled code there.
//!
//! What a region assumes, checked on entry (`Region::enterable`): no block
//! of it holds or ends at LEND (no zero-overhead loop-back inside), no
//! block but the one entered starts at a hook or the halt pc, and the
//! window has every frame that block and the blocks it reaches without
//! rotating name ([`frames`]).
//!
//! Windowed calls stay inside: a `callN` edge goes to its target, a `callx`
//! or `retw` compares its target with the region's function heads or return
//! sites ([`dynamic_targets`]). `entry` and `retw` rotate the window
//! (`translate::window`); the block entered next first checks that the
//! window has its [`frames`], else the region stops at its start and the
//! interpreter raises the overflow there. An `entry` that would overflow,
//! or an illegal `retw`, stops the region before it; a `retw` into a
//! spilled frame vectors to the underflow handler as the interpreter's
//! does, and the region leaves for it.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, JumpTableData, Value};

use crate::block::Block;
use crate::cost::TAKEN_BRANCH;
use crate::jit::translate::{translatable, Translator, TRUSTED};
use crate::jit::JitCtx;
use crate::uop::Kind;

/// Blocks in one region, at most: a whole function's loops. At 24,
/// sort.c's quicksort (30 blocks) was cut, and each block the cut left out
/// got hot through the dispatcher and headed a region of its own, nearly
/// the same 24 blocks compiled again (five times over).
const MAX_BLOCKS: usize = 64;
/// How far from the head a block may start (a function's loops, not a
/// whole program).
const MAX_SPAN: u32 = 8 * 1024;

/// Whether every op of `block` translates (its branch included).
pub(crate) fn whole(block: &Block) -> bool {
    !block.ops.is_empty() && block.ops.iter().all(|op| translatable(op.kind))
}

/// Where control can go after `block`'s last op, as (address, taken): the
/// edges compiled code takes itself when the address is a block of the
/// region (a `callx` or `retw` goes where its register says: see
/// [`dynamic_targets`]).
pub(crate) fn successors(block: &Block) -> impl Iterator<Item = (u32, bool)> {
    let last = block.ops.last().copied();
    let (first, second) = match last {
        Some(op) if op.kind == Kind::J || op.kind == Kind::CallN => (Some((op.target, true)), None),
        Some(op) if op.kind.is_conditional_branch() => (Some((op.target, true)), Some((block.end, false))),
        Some(op) if !op.ends_block() || op.kind == Kind::Entry => (Some((block.end, false)), None),
        _ => (None, None),
    };
    first.into_iter().chain(second)
}

/// Blocks a region takes in besides its edges: after a call, the return
/// site; after a `callx` or `retw`, where it went when it last ran
/// interpreted (calls.c: the recursive `callx8` and the return into the
/// caller's loop stay in compiled code).
fn also_reaches(block: &Block) -> impl Iterator<Item = u32> {
    let kind = block.ops.last().map(|op| op.kind);
    let site = matches!(kind, Some(Kind::CallN | Kind::CallxN)).then_some(block.end);
    let went = matches!(kind, Some(Kind::CallxN | Kind::Retw)).then(|| block.translation.last_exit.get());
    site.into_iter().chain(went.filter(|&pc| pc != 0))
}

/// Whether the window rotates after `block` (an `entry` or `retw` ends it).
fn rotates_after(block: &Block) -> bool {
    block.ops.last().is_some_and(|op| matches!(op.kind, Kind::Entry | Kind::Retw))
}

/// The blocks of `blocks` control may enter from a block ending in a
/// `callx` (function heads: an `entry`) or a `retw` (return sites: where a
/// block of the region ending in a call ends), by index.
pub(crate) fn dynamic_targets(blocks: &[&Block], kind: Kind) -> Vec<usize> {
    let call = |b: &&&Block| b.ops.last().is_some_and(|op| matches!(op.kind, Kind::CallN | Kind::CallxN));
    (0..blocks.len())
        .filter(|&m| match kind {
            Kind::CallxN => blocks[m].ops.first().is_some_and(|op| op.kind == Kind::Entry),
            _ => blocks.iter().filter(call).any(|b| b.end == blocks[m].start),
        })
        .take(MAX_DYNAMIC_TARGETS)
        .collect()
}

/// Targets a `callx` or `retw` compares its address with, at most.
const MAX_DYNAMIC_TARGETS: usize = 8;

/// Per block, the highest window frame it and the blocks it reaches
/// without the window rotating name: what the window must have free when
/// control enters it (checked on entering the region, and after each
/// `entry` and `retw` inside).
pub(crate) fn frames(blocks: &[&Block]) -> Vec<u8> {
    let mut frames: Vec<u8> = blocks.iter().map(|b| b.max_frame).collect();
    let index = |pc: u32| blocks.iter().position(|b| b.start == pc);
    let callx = dynamic_targets(blocks, Kind::CallxN);
    let mut changed = true;
    while changed {
        changed = false;
        for (k, block) in blocks.iter().enumerate() {
            if rotates_after(block) {
                continue;
            }
            let dynamic = match block.ops.last().map(|op| op.kind) {
                Some(Kind::CallxN) => &callx[..],
                _ => &[],
            };
            let statics = successors(block).filter_map(|(to, _)| index(to));
            for m in statics.chain(dynamic.iter().copied()) {
                if frames[m] > frames[k] {
                    frames[k] = frames[m];
                    changed = true;
                }
            }
        }
    }
    frames
}

/// The blocks of the region headed by `head`: breadth first over branch
/// targets and fall-throughs, taking blocks already decoded (`lookup`),
/// translatable whole, near the head and not where `excluded` (hooks). The
/// head first; fewer than two blocks is no region.
pub(crate) fn discover<'a>(
    head: &'a Block,
    lookup: impl Fn(u32) -> Option<&'a Block>,
    excluded: impl Fn(u32) -> bool,
) -> Vec<&'a Block> {
    let mut blocks = vec![head];
    if !whole(head) {
        return Vec::new();
    }
    let mut next = 0;
    while next < blocks.len() {
        let block = blocks[next];
        next += 1;
        for to in successors(block).map(|(to, _)| to).chain(also_reaches(block)) {
            if blocks.len() >= MAX_BLOCKS
                || to.abs_diff(head.start) > MAX_SPAN
                || excluded(to)
                || blocks.iter().any(|b| b.start == to)
            {
                continue;
            }
            if let Some(found) = lookup(to).filter(|b| whole(b)) {
                blocks.push(found);
            }
        }
    }
    if blocks.len() < 2 {
        blocks.clear();
    }
    blocks
}

/// Whether a region of `blocks` would be large and most of its blocks past
/// the head already run in other regions: then the head runs on its own and
/// leaves into those. (sort.c: the block after quicksort's call returns
/// leads into the loop's region; a region of its own compiled all of that
/// loop again, a 30-block compile for one block.) A small region costs
/// little to compile and saves dispatches, so it is compiled anyway
/// (calls.c's three small ones: without them its bench row ran 10-25%
/// slower in wall time, at the same host instruction count).
pub(crate) fn mostly_compiled(blocks: &[&Block]) -> bool {
    let rest = &blocks[1..];
    let compiled = rest.iter().filter(|b| b.translation.covered.get() || b.translation.region.get().is_some()).count();
    rest.len() >= LARGE_REGION && 2 * compiled > rest.len()
}

/// Blocks past the head from which a region counts as large.
const LARGE_REGION: usize = 16;

impl Translator<'_, '_> {
    /// The region shape (see the module's documentation).
    pub(super) fn region(&mut self, blocks: &[&Block]) {
        // Instructions and cycles in one counter (see [`pack`]): one add
        // per edge.
        let counts = self.b.declare_var(I64);
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(counts, zero);
        self.done = Some(counts);
        let heads: Vec<_> = blocks.iter().map(|_| self.b.create_block()).collect();
        let frames = frames(blocks);
        let (callees, sites) = (dynamic_targets(blocks, Kind::CallxN), dynamic_targets(blocks, Kind::Retw));
        // Control may arrive at any block (`JitCtx::entry`, see
        // `Core::run`): the head is the table's default.
        let entry = self.b.ins().load(I32, TRUSTED, self.ctx, offset_of!(JitCtx, entry) as i32);
        // (Each entry its own block call: the SSA construction adds
        // arguments to each.)
        let calls: Vec<_> = heads.iter().map(|&head| self.b.func.dfg.block_call(head, &[])).collect();
        let default = self.b.func.dfg.block_call(heads[0], &[]);
        let table = self.b.create_jump_table(JumpTableData::new(default, &calls));
        self.b.ins().br_table(entry, table);
        let mut first = 0u32;
        for (k, block) in blocks.iter().enumerate() {
            self.b.switch_to_block(heads[k]);
            self.exit_tag = (k as u32) << 16;
            self.fp_base = first;
            first += block.ops.len() as u32;
            let (last, body) = block.ops.split_last().expect("region blocks are not empty");
            for (i, op) in body.iter().enumerate() {
                self.op(i, op);
            }
            let edges = Edges { blocks, heads: &heads, frames: &frames, from: k };
            let i = body.len() as u32;
            match last.kind {
                Kind::J => self.edge(&edges, last.target, true, None),
                kind if kind.is_conditional_branch() => {
                    let taken = self.condition(last);
                    let (yes, no) = (self.b.create_block(), self.b.create_block());
                    self.b.ins().brif(taken, yes, &[], no, &[]);
                    self.b.switch_to_block(yes);
                    self.edge(&edges, last.target, true, None);
                    self.b.switch_to_block(no);
                    self.edge(&edges, block.end, false, None);
                }
                Kind::CallN => {
                    self.windowed_call(last);
                    self.edge(&edges, last.target, true, None);
                }
                Kind::CallxN => {
                    let target = self.windowed_call(last);
                    self.dispatch(&edges, target, &callees, None);
                }
                Kind::Entry => {
                    let (free, _) = self.window_op(i);
                    self.edge(&edges, block.end, false, Some(free));
                }
                Kind::Retw => {
                    let (free, next) = self.window_op(i);
                    self.dispatch(&edges, next, &sites, Some(free));
                }
                _ => {
                    self.op(body.len(), last);
                    self.edge(&edges, block.end, false, None);
                }
            }
        }
    }

    /// A taken jump to `next` (a `callx` or `retw` target): into the first
    /// of the region's blocks `candidates` starting there, as [`edge`]
    /// goes, or out of the region.
    ///
    /// [`edge`]: Translator::edge
    fn dispatch(&mut self, edges: &Edges<'_>, next: Value, candidates: &[usize], free: Option<Value>) {
        for &m in candidates {
            let start = self.relocated(edges.blocks[m].start);
            let same = self.b.ins().icmp(IntCC::Equal, next, start);
            let (hit, miss) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(same, hit, &[], miss, &[]);
            self.b.switch_to_block(hit);
            self.enter(edges, m, true, free);
            self.b.switch_to_block(miss);
        }
        let taken = self.iconst(1);
        self.set_next(next, taken);
        let out = self.exit_block(edges.blocks[edges.from].ops.len() as u32);
        self.b.ins().jump(out, &[]);
    }

    /// Control leaving block `edges.from` for `to`: into the region's block
    /// there (see [`Translator::enter`]); or out, with the block left for
    /// `Cpu::run_region` to account. `free`: the frames free after the
    /// block's last op rotated the window.
    fn edge(&mut self, edges: &Edges<'_>, to: u32, taken: bool, free: Option<Value>) {
        let from = edges.blocks[edges.from];
        let Some(m) = edges.blocks.iter().position(|b| b.start == to) else {
            let next = self.relocated(to);
            let taken = self.iconst(u32::from(taken));
            self.set_next(next, taken);
            self.leave(self.exit_tag | from.ops.len() as u32);
            return;
        };
        self.enter(edges, m, taken, free);
    }

    /// Into the region's block `m` from block `edges.from`, after
    /// accounting that block and checking the budget (and, after the window
    /// rotated, that it has the frames block `m` needs); else out, with the
    /// pc at block `m`'s start.
    fn enter(&mut self, edges: &Edges<'_>, m: usize, taken: bool, free: Option<Value>) {
        let from = edges.blocks[edges.from];
        let counts = self.done.expect("region");
        let penalty = if taken { TAKEN_BRANCH } else { 0 };
        let packed = self.b.use_var(counts);
        let packed = self.b.ins().iadd_imm_s(packed, pack(from.ops.len() as u64, from.cycles + penalty) as i64);
        self.b.def_var(counts, packed);
        // As `Core::run`: a block starts only while the budget lasts.
        let insns = self.b.ins().ireduce(I32, packed);
        // The budget is loaded here, not held (see `Translator::ctx_ptr`);
        // at most MAX_REGION_BUDGET: the low half is the whole of it.
        let budget = self.b.ins().load(I64, TRUSTED, self.ctx, offset_of!(JitCtx, iterations) as i32);
        let budget = self.b.ins().ireduce(I32, budget);
        let mut more = self.b.ins().icmp(IntCC::UnsignedLessThan, insns, budget);
        if let Some(free) = free {
            let fits = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, free, i64::from(edges.frames[m]));
            more = self.b.ins().band(more, fits);
        }
        let out = self.exit_returning((m as u32) << 16);
        self.b.ins().brif(more, edges.heads[m], &[], out, &[]);
    }
}

/// Most instructions one entry into a region runs (its budget is capped
/// here; a region stopped by it leaves at a block start and `Core::run`
/// enters it again), so that instructions fit the low 32 bits of the
/// packed counter and their cycles (at most 13 each, plus a taken-branch
/// penalty) the high 32.
pub(crate) const MAX_REGION_BUDGET: u64 = 1 << 24;

/// Instructions and cycles as compiled code counts them: cycles in the
/// high half.
const fn pack(insns: u64, cycles: u64) -> u64 {
    cycles << 32 | insns
}

/// The instructions and cycles in a packed counter.
pub(crate) const fn unpack(counts: u64) -> (u64, u64) {
    (counts & 0xffff_ffff, counts >> 32)
}

/// What an edge needs to know of the region being built.
struct Edges<'a> {
    blocks: &'a [&'a Block],
    heads: &'a [cranelift_codegen::ir::Block],
    /// Per block, the frames it needs free (see [`frames`]).
    frames: &'a [u8],
    from: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::Translation;
    use crate::uop::Op;

    /// `n` empty blocks, the first `covered` past the head already in
    /// another region (only what `mostly_compiled` reads is filled in).
    fn blocks(n: u32, covered: u32) -> Vec<Block> {
        (0..n)
            .map(|k| {
                let translation = Translation::default();
                translation.covered.set(k >= 1 && k <= covered);
                let start = 0x1000 + 16 * k;
                let ops = Box::new([]);
                Block { start, end: start + 16, ops, max_frame: 0, cycles: 0, straight: true, pure: None, translation }
            })
            .collect()
    }

    /// A block at `start` of one op of `kind` naming up to `frame`, going to
    /// `target`.
    fn block(start: u32, kind: Kind, frame: u8, target: u32) -> Block {
        let op = Op {
            kind,
            a: 0,
            b: 0,
            c: 0,
            frame,
            len: 3,
            cycles: 1,
            imm: 0,
            target,
            pc: start,
            opcode: q7_isa::Opcode::Nop,
        };
        let (end, ops) = (start + 3, Box::new([op]));
        let translation = Translation::default();
        Block { start, end, ops, max_frame: frame, cycles: 1, straight: false, pure: None, translation }
    }

    #[test]
    fn frames_stop_where_the_window_rotates() {
        // A function: its entry, a body naming frame 2 that calls (callx)
        // back into the function, the return site naming frame 1, and its
        // retw, then the caller's code after a return naming frame 3.
        let blocks = [
            block(0x100, Kind::Entry, 0, 0),
            block(0x103, Kind::CallxN, 2, 0),
            block(0x106, Kind::Beqz, 1, 0x103),
            block(0x109, Kind::Retw, 0, 0),
            block(0x200, Kind::J, 3, 0x200),
        ];
        let blocks: Vec<&Block> = blocks.iter().collect();
        assert_eq!(dynamic_targets(&blocks, Kind::CallxN), [0]);
        assert_eq!(dynamic_targets(&blocks, Kind::Retw), [2]);
        // Past entry and retw, the next block checks its own frames; the
        // call (no rotation) needs those of its function head, and the loop
        // back those of the call.
        assert_eq!(frames(&blocks), [0, 2, 2, 0, 3]);
    }

    #[test]
    fn only_large_regions_mostly_run_elsewhere_are_left_out() {
        let check = |n, covered| mostly_compiled(&blocks(n, covered).iter().collect::<Vec<_>>());
        // A head leading into a large loop another region runs: left out.
        assert!(check(30, 29));
        assert!(check(30, 15));
        // Half or less compiled elsewhere, or small: compiled.
        assert!(!check(30, 14));
        assert!(!check(8, 7));
        assert!(!check(2, 1));
    }
}
