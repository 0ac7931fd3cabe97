//! Where instructions start: the pieces a span is cut into before it is
//! swept, and how each piece is listed.
//!
//! * **Property tables** (`.xt.prop`, see [`super::props`]): GNU objdump's
//!   rules. An address inside an instruction block, or in a gap followed by
//!   one, is decoded, and no instruction may run past the block (or gap)
//!   end; an address in (or before) a literal block is a `.word` when
//!   word-aligned; anything else (fill, data) is listed as bytes. Past the
//!   last block everything is decoded.
//! * **Targets** (no table): a first sweep collects every branch, jump,
//!   loop and call target inside the span and every `l32r` literal word; the
//!   listing restarts the sweep at each target and lists each literal word as
//!   `.word`, so padding or data before a target cannot swallow it. The
//!   collection runs again with those cuts until it finds no new ones (at
//!   most [`MAX_PASSES`] sweeps), so a "target" decoded out of literal data
//!   does not survive. Short aligned gaps inside a literal pool are words too. In a relocatable object only branch, jump and loop
//!   targets count: calls and literal loads are unrelocated there.
//!
//! Every piece also ends at the next label, as before.

use super::image::{BoundarySource, Image, Region};
use super::offsets::OffsetSet;
use super::props::{PropBlock, PROP_INSN, PROP_LITERAL};
use super::steps::{Kind, Steps};
use super::symbols::Labels;

/// How the bytes of a piece are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Decoded as instructions.
    Code,
    /// Literal words (`.word`; a misaligned or short tail as bytes).
    Literal,
    /// Listed as bytes (fill, data).
    Data,
}

/// `start..end` (addresses) listed in one `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub start: u64,
    pub end: u64,
    pub mode: Mode,
}

/// How one span is cut into pieces.
pub struct Plan {
    cuts: Cuts,
}

enum Cuts {
    /// The property (or literal) table's pieces.
    Table(Vec<Piece>),
    /// The targets and literal words the sweeps found in `start..end`.
    Found { found: Found, start: u64, end: u64 },
}

impl Plan {
    /// The pieces in address order, each also cut at every label inside it,
    /// with whether a label stands at its start. They are produced as the
    /// listing goes, never stored: a large image has hundreds of thousands.
    pub fn pieces<'p>(&'p self, region: &'p Region<'p>) -> Box<dyn Iterator<Item = (Piece, bool)> + 'p> {
        match &self.cuts {
            Cuts::Table(pieces) => Box::new(LabelCuts::new(region, pieces.iter().copied())),
            Cuts::Found { found, start, end } => Box::new(LabelCuts::new(region, found.pieces(region, *start, *end))),
        }
    }
}

/// The plan for `start..end` of `region`; `steps` memoise the region's
/// decodes for the sweeps.
pub fn plan(image: &Image, region: &Region, start: u64, end: u64, steps: &mut Steps) -> Plan {
    let cuts = match &region.blocks {
        // A literal table says nothing of the bytes between its blocks: code.
        Some(blocks) => {
            Cuts::Table(table_modes(blocks, start, end, region.boundaries == BoundarySource::PropertyTable))
        }
        None => Cuts::Found { found: target_modes(image, region, start, end, steps), start, end },
    };
    Plan { cuts }
}

/// The mode of every address by GNU objdump's rule: the block holding it, or
/// (`gaps_like_next`) the next block above it, whose start also ends the
/// piece; without `gaps_like_next` a gap is code.
fn table_modes(blocks: &[PropBlock], start: u64, end: u64, gaps_like_next: bool) -> Vec<Piece> {
    let mode_of = |flags: u32| match flags {
        f if f & PROP_INSN != 0 => Mode::Code,
        f if f & PROP_LITERAL != 0 => Mode::Literal,
        _ => Mode::Data,
    };
    let mut out = Vec::new();
    let mut pos = start;
    for block in blocks.iter().filter(|b| b.size != 0 && b.end() > start && u64::from(b.addr) < end) {
        let (addr, block_end) = (u64::from(block.addr), block.end().min(end));
        if pos < addr {
            let mode = if gaps_like_next { mode_of(block.flags) } else { Mode::Code };
            out.push(Piece { start: pos, end: addr, mode });
            pos = addr;
        }
        if pos < block_end {
            out.push(Piece { start: pos, end: block_end, mode: mode_of(block.flags) });
            pos = block_end;
        }
    }
    if pos < end {
        out.push(Piece { start: pos, end, mode: Mode::Code });
    }
    out
}

/// Code everywhere, literal words at `l32r` targets, cut at branch targets:
/// the targets and words found.
fn target_modes(image: &Image, region: &Region, start: u64, end: u64, steps: &mut Steps) -> Found {
    let linked = image.is_linked();
    // The first sweep has no cuts but the labels.
    let whole = std::iter::once(Piece { start, end, mode: Mode::Code });
    let mut found = collect_targets(region, LabelCuts::new(region, whole), steps, linked);
    found.fill_pool_gaps(region);
    found.extend_pools(image, region);
    // Sweep again with the cuts found, until the listing's own targets are the
    // cuts (usually the second pass): a "target" read out of data that a cut
    // shows to be data disappears.
    for _ in 1..MAX_PASSES {
        let cuts = LabelCuts::new(region, found.pieces(region, start, end));
        let mut next = collect_targets(region, cuts, steps, linked);
        next.fill_pool_gaps(region);
        next.extend_pools(image, region);
        if next == found {
            break;
        }
        found = next;
    }
    found
}

/// Most collection sweeps of one span.
const MAX_PASSES: usize = 4;

/// Targets and literal words found by one sweep, as offsets into the region.
#[derive(PartialEq, Eq)]
struct Found {
    targets: OffsetSet,
    literals: OffsetSet,
}

impl Found {
    /// Most bytes between two literal words (or a literal word and the next
    /// label) that are taken as unreferenced words of the same pool.
    const POOL_GAP: u64 = 8;

    /// Most words a pool is extended by at either end.
    const POOL_EXTENSION: usize = 2;

    fn new(region: &Region) -> Found {
        let len = (region.end() - u64::from(region.addr)) as usize;
        Found { targets: OffsetSet::new(len), literals: OffsetSet::new(len) }
    }

    /// Extends each run of literal words by up to [`Self::POOL_EXTENSION`]
    /// neighbouring words that look like the pool's unreferenced pointers (a
    /// stripped image has no label to end the pool): the value is an address
    /// in the image, or in the same MiB as the neighbouring literal's value.
    fn extend_pools(&mut self, image: &Image, region: &Region) {
        if !image.is_linked() {
            return;
        }
        let base = u64::from(region.addr);
        let word_at = |at: u64| {
            let bytes = region.bytes.get((at.checked_sub(base)?) as usize..)?.get(..4)?;
            Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
        };
        let pointer_like = |at: u64, neighbour: u64| {
            let (Some(value), Some(near)) = (word_at(at), word_at(neighbour)) else { return false };
            let in_image = image.regions.iter().any(|r| r.alloc && r.contains(value));
            !self.targets.contains((at - base) as usize) && (in_image || (value >> 20 == near >> 20 && near >> 20 != 0))
        };
        let literal = |at: u64| at.checked_sub(base).is_some_and(|offset| self.literals.contains(offset as usize));
        let mut extra = Vec::new();
        for offset in self.literals.iter() {
            let word = base + offset as u64;
            if !literal(word.wrapping_sub(4)) {
                let mut near = word;
                for _ in 0..Self::POOL_EXTENSION {
                    match near.checked_sub(4).filter(|&at| pointer_like(at, near)) {
                        Some(at) => {
                            extra.push(at);
                            near = at;
                        }
                        None => break,
                    }
                }
            }
            if !literal(word + 4) {
                let mut near = word;
                for _ in 0..Self::POOL_EXTENSION {
                    let at = near + 4;
                    if !pointer_like(at, near) {
                        break;
                    }
                    extra.push(at);
                    near = at;
                }
            }
        }
        for at in extra {
            self.literals.insert((at - base) as usize);
        }
    }

    /// Adds the words of short aligned gaps inside a literal pool: a word
    /// loaded only by code the sweep misread, or not at all, is still data.
    fn fill_pool_gaps(&mut self, region: &Region) {
        let base = u64::from(region.addr);
        let mut extra = Vec::new();
        let mut literals = self.literals.iter().peekable();
        let mut next_label = None;
        while let Some(offset) = literals.next() {
            let word = base + offset as u64;
            let gap_start = word + 4;
            let next_literal = literals.peek().map(|&next| base + next as u64);
            // Words come in increasing order: look the label up again only
            // once the last answer is passed.
            if next_label.is_none_or(|label| label <= word) {
                next_label = region.labels.next_after(word);
            }
            let Some(gap_end) = [next_literal, next_label].into_iter().flatten().min() else { continue };
            let gap = gap_end.saturating_sub(gap_start);
            if gap > 0 && gap <= Self::POOL_GAP && gap % 4 == 0 {
                let (from, to) = ((gap_start - base) as usize, (gap_end - base) as usize);
                if !self.targets.any_in(from, to) {
                    extra.extend((from..to).step_by(4));
                }
            }
        }
        drop(literals);
        for offset in extra {
            self.literals.insert(offset);
        }
    }

    /// The pieces of `start..end`: a literal piece at each literal word that
    /// fits, code up to the next literal word or target.
    fn pieces<'f>(&'f self, region: &Region, start: u64, end: u64) -> impl Iterator<Item = Piece> + 'f {
        let base = u64::from(region.addr);
        let mut pos = start;
        std::iter::from_fn(move || {
            if pos >= end {
                return None;
            }
            let offset = (pos - base) as usize;
            if pos + 4 <= end && self.literals.contains(offset) {
                pos += 4;
                return Some(Piece { start: pos - 4, end: pos, mode: Mode::Literal });
            }
            // Literal words are word-aligned, so none starts inside this one.
            let literal = self.literals.first_from(offset).map(|l| base + l as u64).filter(|&l| l + 4 <= end);
            let target = self.targets.first_from(offset + 1).map(|t| base + t as u64);
            let stop = [literal, target].into_iter().flatten().min().unwrap_or(end).min(end);
            let piece = Piece { start: pos, end: stop, mode: Mode::Code };
            pos = stop;
            Some(piece)
        })
    }
}

/// Sweeps the code pieces and records targets inside the region.
fn collect_targets(
    region: &Region,
    pieces: impl Iterator<Item = (Piece, bool)>,
    steps: &mut Steps,
    linked: bool,
) -> Found {
    let mut found = Found::new(region);
    let base = u64::from(region.addr);
    for (piece, _) in pieces.filter(|(p, _)| p.mode == Mode::Code) {
        let mut at = (piece.start - base) as usize;
        let end = (piece.end - base) as usize;
        while at < end {
            let (len, target) = steps.at(at, end);
            let pc = region.addr.wrapping_add(at as u32);
            at += len;
            let Some((target, kind)) = target.filter(|&(t, _)| region.contains(t)) else { continue };
            // A target inside the instruction naming it is an unrelocated field.
            if target > pc && u64::from(target) < u64::from(pc) + len as u64 {
                continue;
            }
            let offset = (u64::from(target) - base) as usize;
            match kind {
                Kind::Literal if linked && target % 4 == 0 => found.literals.insert(offset),
                Kind::Literal => {}
                Kind::Call if !linked => {}
                _ => found.targets.insert(offset),
            }
        }
    }
    found
}

/// Pieces split at every label inside them, each with whether a label
/// stands at its start: one merge with the labels (in address order).
struct LabelCuts<'r, I> {
    labels: &'r Labels<'r>,
    pieces: I,
    /// The rest of a piece a label cut.
    pending: Option<Piece>,
    /// Index of the first label at or above the last piece's start.
    cursor: Option<usize>,
}

impl<'r, I: Iterator<Item = Piece>> LabelCuts<'r, I> {
    fn new(region: &'r Region<'r>, pieces: I) -> LabelCuts<'r, I> {
        LabelCuts { labels: &region.labels, pieces, pending: None, cursor: None }
    }
}

impl<I: Iterator<Item = Piece>> Iterator for LabelCuts<'_, I> {
    type Item = (Piece, bool);

    fn next(&mut self) -> Option<(Piece, bool)> {
        let piece = match self.pending.take() {
            Some(piece) => piece,
            None => self.pieces.next()?,
        };
        // Piece starts only increase, so the cursor only moves forward.
        let mut index = self.cursor.unwrap_or_else(|| self.labels.index_from(piece.start));
        while self.labels.address(index).is_some_and(|label| label < piece.start) {
            index += 1;
        }
        self.cursor = Some(index);
        let at_label = self.labels.address(index) == Some(piece.start);
        let next = if at_label { index + 1 } else { index };
        match self.labels.address(next).filter(|&label| label < piece.end) {
            Some(label) => {
                self.pending = Some(Piece { start: label, ..piece });
                Some((Piece { end: label, ..piece }, at_label))
            }
            None => Some((piece, at_label)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    /// The pieces as the list-based planner made them: sorted target and
    /// literal lists walked together, then each piece split at its labels.
    fn pieces_by_lists(targets: &[u64], literals: &[u64], labels: &Labels, start: u64, end: u64) -> Vec<Piece> {
        let mut out = Vec::new();
        let mut pos = start;
        let mut literals = literals.iter().copied().filter(|&l| l >= start && l + 4 <= end).peekable();
        let mut targets = targets.iter().copied().filter(|&t| t > start && t < end).peekable();
        while pos < end {
            if literals.peek() == Some(&pos) {
                literals.next();
                out.push(Piece { start: pos, end: pos + 4, mode: Mode::Literal });
                pos += 4;
                continue;
            }
            while literals.peek().is_some_and(|&l| l < pos) {
                literals.next();
            }
            while targets.peek().is_some_and(|&t| t <= pos) {
                targets.next();
            }
            let stop = [literals.peek(), targets.peek()].into_iter().flatten().copied().min().unwrap_or(end).min(end);
            out.push(Piece { start: pos, end: stop, mode: Mode::Code });
            pos = stop;
        }
        let mut cut = Vec::new();
        for piece in out {
            let mut pos = piece.start;
            while let Some(next) = labels.next_after(pos).filter(|&n| n < piece.end) {
                cut.push(Piece { start: pos, end: next, mode: piece.mode });
                pos = next;
            }
            cut.push(Piece { start: pos, ..piece });
        }
        cut
    }

    #[test]
    fn streamed_pieces_are_the_list_planners() {
        const BASE: u32 = 0x8400_0000;
        let bytes = vec![0u8; 600];
        let mut state = 0x2545_f491u32;
        let mut next = |below: u32| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 8) % below
        };
        for round in 0..300 {
            let density = 1 + round % 40;
            let targets: Vec<u64> = (0..density).map(|_| u64::from(BASE + next(600))).collect();
            // Literal words are word-aligned, as every source of them makes them.
            let literals: Vec<u64> = (0..density).map(|_| u64::from(BASE + next(150) * 4)).collect();
            let label_addresses: Vec<u32> = (0..density / 2).map(|_| BASE + next(600)).collect();
            let region = Region {
                name: Cow::Borrowed(".text"),
                addr: BASE,
                size: bytes.len() as u32,
                bytes: &bytes,
                alloc: true,
                exec: true,
                labels: Labels::at_addresses(&label_addresses),
                blocks: None,
                boundaries: BoundarySource::Targets,
            };
            let mut found = Found::new(&region);
            targets.iter().for_each(|&t| found.targets.insert((t - u64::from(BASE)) as usize));
            literals.iter().for_each(|&l| found.literals.insert((l - u64::from(BASE)) as usize));
            let (mut sorted_targets, mut sorted_literals) = (targets.clone(), literals.clone());
            sorted_targets.sort_unstable();
            sorted_targets.dedup();
            sorted_literals.sort_unstable();
            sorted_literals.dedup();
            let start = u64::from(BASE + next(300));
            let end = start + 1 + u64::from(next(300));
            let plan = Plan { cuts: Cuts::Found { found, start, end } };
            let streamed: Vec<(Piece, bool)> = plan.pieces(&region).collect();
            let expected = pieces_by_lists(&sorted_targets, &sorted_literals, &region.labels, start, end);
            let pieces: Vec<Piece> = streamed.iter().map(|(p, _)| *p).collect();
            assert_eq!(pieces, expected, "round {round}");
            for (piece, at_label) in streamed {
                assert_eq!(
                    at_label,
                    region.labels.at(piece.start as u32).is_some(),
                    "round {round} at {:#x}",
                    piece.start
                );
            }
        }
    }
}
