//! The DWARF line tables of every unit, flattened: one file table for the
//! image, sequences sorted by address, rows as plain numbers. All
//! addresses here are link addresses (the caller applies the delta).

use std::collections::HashMap;

use gimli::Reader as _;

use super::{DebugInfoError, Dwarf, Unit};

/// One row of a line table: the code from `addr` up to the next row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    pub addr: u32,
    /// Index into [`LineTable::files`].
    pub file: u32,
    /// 0: code the compiler attributes to no line.
    pub line: u32,
    pub is_stmt: bool,
}

/// A contiguous run of code (one function with `-ffunction-sections`).
#[derive(Clone, Debug)]
pub(crate) struct Sequence {
    pub start: u32,
    pub end: u32,
    pub rows: Vec<Row>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct LineTable {
    /// Full paths as the compiler recorded them (directory joined).
    pub files: Vec<String>,
    pub sequences: Vec<Sequence>,
    /// Per unit, the line program's file index -> [`LineTable::files`] index
    /// (what `DW_AT_call_file` and `DW_AT_decl_file` name).
    pub unit_files: Vec<Vec<Option<u32>>>,
}

impl LineTable {
    pub fn read(dwarf: &Dwarf, units: &[Unit]) -> Result<LineTable, DebugInfoError> {
        let mut table = LineTable::default();
        let mut ids: HashMap<String, u32> = HashMap::new();
        for unit in units {
            let Some(program) = unit.line_program.clone() else {
                table.unit_files.push(Vec::new());
                continue;
            };
            let header = program.header();
            // DWARF 5 counts files from 0, earlier versions from 1.
            let count = header.file_names().len() as u64 + 1;
            let mut map = Vec::with_capacity(count as usize);
            for index in 0..count {
                let path = header.file(index).and_then(|file| file_path(dwarf, unit, header, file));
                map.push(path.map(|p| {
                    let next = ids.len() as u32;
                    *ids.entry(p.clone()).or_insert_with(|| {
                        table.files.push(p);
                        next
                    })
                }));
            }
            let mut rows = program.rows();
            let mut current: Vec<Row> = Vec::new();
            while let Some((_, row)) = rows.next_row().map_err(DebugInfoError::dwarf)? {
                let addr = row.address() as u32;
                if row.end_sequence() {
                    let rows = std::mem::take(&mut current);
                    // Code the linker dropped (--gc-sections) keeps its
                    // rows at address 0 (or a tombstone): not code.
                    if let Some(first) = rows.first() {
                        if first.addr != 0 && first.addr < addr && addr != u32::MAX {
                            table.sequences.push(Sequence { start: first.addr, end: addr, rows });
                        }
                    }
                    continue;
                }
                let file = map.get(row.file_index() as usize).copied().flatten().unwrap_or(u32::MAX);
                let line = row.line().map_or(0, |l| u32::try_from(l.get()).unwrap_or(u32::MAX));
                current.push(Row { addr, file, line, is_stmt: row.is_stmt() });
            }
            table.unit_files.push(map);
        }
        table.sequences.sort_by_key(|s| s.start);
        Ok(table)
    }

    /// The sequence holding link address `a`, and the index of the row
    /// that covers it.
    pub fn row_at(&self, a: u32) -> Option<(&Sequence, usize)> {
        let at = self.sequences.partition_point(|s| s.start <= a).checked_sub(1)?;
        let seq = &self.sequences[at];
        if a >= seq.end {
            return None;
        }
        let row = seq.rows.partition_point(|r| r.addr <= a).checked_sub(1)?;
        Some((seq, row))
    }

    /// Whether some statement row starts exactly at `a`.
    pub fn is_statement(&self, a: u32) -> bool {
        let Some((seq, i)) = self.row_at(a) else { return false };
        // Several rows may share an address; the first of them is at or before `i`.
        seq.rows[..=i].iter().rev().take_while(|r| r.addr == a).any(|r| r.is_stmt && r.line != 0)
    }

    /// Indices of the files `query` names: the whole path, or a suffix of
    /// it that starts at a path component (`relu.cpp`, `ops/relu.cpp`).
    pub fn files_matching(&self, query: &str) -> Vec<u32> {
        let query = query.trim_start_matches("./");
        (self.files.iter().enumerate())
            .filter(|(_, path)| {
                *path == query
                    || (path.len() > query.len()
                        && path.ends_with(query)
                        && path.as_bytes()[path.len() - query.len() - 1] == b'/')
            })
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// The first statement row after the function's entry (gdb's
    /// prologue rule: the second row of the function), if the function
    /// starting at `entry` and ending at `end` has one.
    pub fn after_prologue(&self, entry: u32, end: u32) -> Option<u32> {
        let (seq, i) = self.row_at(entry)?;
        seq.rows[i..]
            .iter()
            .take_while(|r| r.addr < end)
            .find(|r| r.addr > entry && r.is_stmt && r.line != 0)
            .map(|r| r.addr)
    }
}

/// A file entry's path: absolute names as they are, others under their
/// directory (itself under the unit's directory when relative).
fn file_path(
    dwarf: &Dwarf,
    unit: &Unit,
    header: &gimli::LineProgramHeader<super::R>,
    file: &gimli::FileEntry<super::R>,
) -> Option<String> {
    let text = |value| -> Option<String> {
        let r = dwarf.attr_string(unit, value).ok()?;
        Some(r.to_string_lossy().ok()?.into_owned())
    };
    let name = text(file.path_name())?;
    if name.starts_with('/') {
        return Some(name);
    }
    let mut dir = file.directory(header).and_then(text).unwrap_or_default();
    if !dir.starts_with('/') {
        if let Some(comp) = unit.comp_dir.as_ref().and_then(|c| c.to_string_lossy().ok()) {
            dir = if dir.is_empty() { comp.into_owned() } else { format!("{comp}/{dir}") };
        }
    }
    Some(if dir.is_empty() { name } else { format!("{}/{name}", dir.trim_end_matches('/')) })
}
