//! Lines and functions of the source: the line a pc is on as the op's
//! author sees it, and where to break for a line or a function.

use std::collections::BTreeMap;

use super::scopes::ScopeKind;
use super::{DebugInfo, DebugInfoError, LineSpan};

/// A source position: (file index, line).
type Position = (u32, u32);

/// What a line breakpoint is placed once in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    /// A function or an inlined copy (its scope).
    Function(usize),
    /// A line-table sequence no function covers.
    Sequence(usize),
}

impl DebugInfo {
    /// The scopes at link address `a` as the author sees them, outermost
    /// first, and the line shown there: inside code inlined from another
    /// file the innermost position in the function's own file names the
    /// line, and the inlined scopes below it are left out.
    pub(super) fn own_scopes(&self, a: u32) -> Option<(Vec<usize>, Option<Position>)> {
        let chain = self.scopes.chain(a);
        if chain.is_empty() {
            return None;
        }
        let row = self.lines.row_at(a).map(|(seq, i)| (seq.rows[i].file, seq.rows[i].line));
        // Positions innermost first: the row's, then each inlined call's.
        let mut positions = vec![(row, chain.len())];
        for (depth, &s) in chain.iter().enumerate().rev() {
            if let ScopeKind::Inlined { call_file, call_line } = self.scopes.scopes[s].kind {
                positions.push((call_file.map(|f| (f, call_line)), depth));
            }
        }
        let outer_file = positions.last().and_then(|(p, _)| p.map(|(f, _)| f));
        let (position, cut) = match outer_file {
            Some(file) => *positions.iter().find(|(p, _)| p.is_some_and(|(f, _)| f == file)).unwrap_or(&positions[0]),
            None => positions[0],
        };
        Some((chain[..cut].to_vec(), position))
    }

    /// The line at `a` as [`DebugInfo::line_at`] names it; a row of line 0
    /// (code of no line) belongs to the line before it.
    fn own_line(&self, seq: &super::lines::Sequence, mut i: usize) -> Option<Position> {
        while seq.rows[i].line == 0 {
            i = i.checked_sub(1)?;
        }
        let row = seq.rows[i];
        match self.own_scopes(row.addr) {
            Some((_, position)) => position.filter(|&(_, line)| line != 0),
            None => Some((row.file, row.line)),
        }
    }

    /// The source line at `pc` and the address range of that line's code
    /// around `pc` (runtime pcs; `end` exclusive).
    pub fn line_at(&self, pc: u32) -> Option<LineSpan> {
        let (seq, i) = self.lines.row_at(self.link(pc))?;
        let target = self.own_line(seq, i)?;
        let same = |j: usize| self.own_line(seq, j) == Some(target);
        let mut first = i;
        while first > 0 && same(first - 1) {
            first -= 1;
        }
        let mut last = i;
        while last + 1 < seq.rows.len() && same(last + 1) {
            last += 1;
        }
        let end = seq.rows.get(last + 1).map_or(seq.end, |r| r.addr);
        Some(LineSpan {
            file: self.lines.files.get(target.0 as usize).cloned().unwrap_or_default(),
            line: target.1,
            start: self.runtime(seq.rows[first].addr),
            end: self.runtime(end),
        })
    }

    /// The qualified name of the function `pc` is in, as the author sees
    /// it (an inlined function of the op's own file names itself; inlined
    /// SDK code is named by the function it was inlined into).
    pub fn function_at(&self, pc: u32) -> Option<String> {
        let (chain, _) = self.own_scopes(self.link(pc))?;
        let scope = *chain.iter().rev().find(|&&s| !matches!(self.scopes.scopes[s].kind, ScopeKind::Block))?;
        self.scopes.functions.iter().find(|f| f.scope == scope).map(|f| f.name.clone())
    }

    /// Where to break for `file:line`: in each function (or inlined copy)
    /// with code for the line, its lowest statement address (its lowest
    /// address when the optimizer left the line no statement row). A line
    /// without code moves to the next line that has some (as gdb does); a
    /// function's first line moves past its prologue. The line the pcs
    /// are on is returned with them. `file` is a path or a suffix of one
    /// (`relu.cpp`). Lines count as the author sees them: SDK code inlined
    /// into the line is code of the line.
    pub fn line_breakpoints(&self, file: &str, line: u32) -> Result<(u32, Vec<u32>), DebugInfoError> {
        let files = self.lines.files_matching(file);
        if files.is_empty() {
            return Err(DebugInfoError::NoSourceFile { file: file.to_string() });
        }
        // Code by line: (address, is_stmt, the function or inlined copy).
        let mut by_line: BTreeMap<u32, Vec<(u32, bool, Key)>> = BTreeMap::new();
        for (index, seq) in self.lines.sequences.iter().enumerate() {
            for row in seq.rows.iter().filter(|r| r.line != 0) {
                let own = self.own_scopes(row.addr);
                let (position, scopes) = if files.contains(&row.file) && row.line >= line {
                    ((row.file, row.line), self.scopes.chain(row.addr))
                } else if let Some((chain, Some(own))) =
                    own.filter(|(_, p)| p.is_some_and(|(f, l)| files.contains(&f) && l >= line))
                {
                    (own, chain)
                } else {
                    continue;
                };
                // Code no function describes (assembly) counts per sequence.
                let key = match scopes.iter().rev().find(|&&s| !matches!(self.scopes.scopes[s].kind, ScopeKind::Block))
                {
                    Some(&scope) => Key::Function(scope),
                    None => Key::Sequence(index),
                };
                by_line.entry(position.1).or_default().push((row.addr, row.is_stmt, key));
            }
        }
        let Some((&chosen, candidates)) = by_line.iter().next() else {
            return Err(DebugInfoError::NoCode { file: file.to_string(), line });
        };
        // Per function: (lowest statement address, lowest address).
        let mut lowest: BTreeMap<Key, (Option<u32>, u32)> = BTreeMap::new();
        for &(addr, is_stmt, key) in candidates {
            let slot = lowest.entry(key).or_insert((None, addr));
            if is_stmt {
                slot.0 = Some(slot.0.map_or(addr, |a| a.min(addr)));
            }
            slot.1 = slot.1.min(addr);
        }
        let mut moved = true;
        let mut pcs: Vec<u32> = (lowest.values())
            .map(|&(stmt, any)| {
                let a = stmt.unwrap_or(any);
                let past = self.past_entry(a);
                moved &= past != a;
                self.runtime(past)
            })
            .collect();
        pcs.sort_unstable();
        pcs.dedup();
        // Past a prologue the code is the function's first line of code (gdb says that line).
        let line = match pcs.first().and_then(|&pc| self.line_at(pc)) {
            Some(span) if moved => span.line,
            _ => chosen,
        };
        Ok((line, pcs))
    }

    /// `a`, or past the prologue when `a` is a function's entry (before
    /// `entry` runs, the function's registers are its caller's).
    fn past_entry(&self, a: u32) -> u32 {
        match self.scopes.functions.iter().find(|f| !f.inlined && f.entry == a) {
            Some(f) => self.after_prologue(f.scope, f.entry),
            None => a,
        }
    }

    fn after_prologue(&self, scope: usize, entry: u32) -> u32 {
        let ranges = &self.scopes.scopes[scope].ranges;
        let end = ranges.iter().find(|&&(s, e)| s <= entry && entry < e).map_or(entry, |&(_, e)| e);
        self.lines.after_prologue(entry, end).unwrap_or(entry)
    }

    /// Where to break for function `name` (plain, `relu_forward`, or
    /// qualified, `ns::f`; template arguments may be left out; a linkage
    /// name works too): each copy's entry after its prologue, and the
    /// start of each inlined copy. Several for overloads and inlined
    /// copies; none for a function the DWARF does not describe (the
    /// symbol table's are the caller's to add).
    pub fn function_breakpoints(&self, name: &str) -> Vec<u32> {
        let wanted = name.split('(').next().unwrap_or(name).trim();
        let mut pcs: Vec<u32> = (self.scopes.functions.iter())
            .filter(|f| names_match(&f.name, wanted) || f.linkage.as_deref() == Some(wanted))
            .map(|f| self.runtime(if f.inlined { f.entry } else { self.after_prologue(f.scope, f.entry) }))
            .collect();
        pcs.sort_unstable();
        pcs.dedup();
        pcs
    }
}

/// Whether qualified name `full` is what `wanted` names: equal, or equal
/// after a `::`, with or without template arguments.
fn names_match(full: &str, wanted: &str) -> bool {
    let suffix = |full: &str| {
        full == wanted
            || (full.len() > wanted.len()
                && full.ends_with(wanted)
                && full[..full.len() - wanted.len()].ends_with("::"))
    };
    suffix(full) || suffix(&strip_templates(full))
}

/// `at::Tensor::accessor<float, 1U>` → `at::Tensor::accessor`.
fn strip_templates(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}
