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
//! What a region assumes, checked on entry (`Region::enterable`): no block
//! of it holds or ends at LEND (no zero-overhead loop-back inside), no block
//! starts at a hook or the halt pc, and the window has every frame any op
//! names (no op inside rotates it).

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64};
use cranelift_codegen::ir::{InstBuilder, Value};

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

/// Where control can go after `block`'s last op, as (address, taken).
pub(crate) fn successors(block: &Block) -> impl Iterator<Item = (u32, bool)> {
    let last = block.ops.last().copied();
    let (first, second) = match last {
        Some(op) if op.kind == Kind::J => (Some((op.target, true)), None),
        Some(op) if op.kind.is_conditional_branch() => (Some((op.target, true)), Some((block.end, false))),
        Some(op) if !op.ends_block() => (Some((block.end, false)), None),
        _ => (None, None),
    };
    first.into_iter().chain(second)
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
        for (to, _) in successors(block) {
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
        // At most MAX_REGION_BUDGET: the low half is the whole of it.
        let budget = self.b.ins().load(I64, TRUSTED, self.ctx, offset_of!(JitCtx, iterations) as i32);
        let budget = self.b.ins().ireduce(I32, budget);
        let heads: Vec<_> = blocks.iter().map(|_| self.b.create_block()).collect();
        self.b.ins().jump(heads[0], &[]);
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
            let edges = Edges { blocks, heads: &heads, budget, from: k };
            if last.kind == Kind::J {
                self.edge(&edges, last.target, true);
            } else if last.kind.is_conditional_branch() {
                let taken = self.condition(last);
                let (yes, no) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(taken, yes, &[], no, &[]);
                self.b.switch_to_block(yes);
                self.edge(&edges, last.target, true);
                self.b.switch_to_block(no);
                self.edge(&edges, block.end, false);
            } else {
                self.op(body.len(), last);
                self.edge(&edges, block.end, false);
            }
        }
    }

    /// Control leaving block `edges.from` for `to`: into the region's block
    /// there, after accounting the block and checking the budget; or out,
    /// with the block left for `Cpu::run_region` to account.
    fn edge(&mut self, edges: &Edges<'_>, to: u32, taken: bool) {
        let from = edges.blocks[edges.from];
        let Some(m) = edges.blocks.iter().position(|b| b.start == to) else {
            let next = self.relocated(to);
            let taken = self.iconst(u32::from(taken));
            self.set_next(next, taken);
            self.leave(self.exit_tag | from.ops.len() as u32);
            return;
        };
        let counts = self.done.expect("region");
        let penalty = if taken { TAKEN_BRANCH } else { 0 };
        let packed = self.b.use_var(counts);
        let packed = self.b.ins().iadd_imm_s(packed, pack(from.ops.len() as u64, from.cycles + penalty) as i64);
        self.b.def_var(counts, packed);
        // As `Core::run`: a block starts only while the budget lasts.
        let insns = self.b.ins().ireduce(I32, packed);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, insns, edges.budget);
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
    budget: Value,
    from: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::Translation;

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
