//! The kernel roster (docs/FORMATS.md, "`.xt.prop` rosters"): the `.xt.prop.<mangled>` section names,
//! the only per-kernel names a stripped image keeps, demangled; and the
//! opcode → entry → name table, joining the `kernel_info_table` to a
//! SUNDA-style JSON manifest where one is given.

pub mod manifest;
mod text;

use q7_elf::ElfFile;
use serde::Serialize;

use crate::kinfo::KernelTable;
use manifest::Header;
pub use text::write_roster;

/// Property sections are named `.xt.prop.<function symbol>`.
pub const PROP_PREFIX: &str = ".xt.prop.";
/// A property record: address, size, flags (u32 each, image byte order).
const PROP_RECORD: usize = 12;
/// The record flag for instructions (others mark literals, alignment, data).
const PROP_INSN: u32 = 0x2;

#[derive(Clone, Debug, Serialize)]
pub struct Roster {
    pub names: Vec<NamedKernel>,
    /// `None` when the image has no kernel_info_table.
    pub table: Option<KernelTable>,
    pub manifest: ManifestState,
    pub join: Vec<JoinRow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NamedKernel {
    pub section: String,
    pub mangled: String,
    /// `None` when the name is not a valid Itanium mangled name.
    pub demangled: Option<String>,
    /// Lowest code address the property records cover (the function's
    /// start once linked), with its file offset.
    pub address: Option<u32>,
    pub file_offset: Option<u32>,
    /// Opcodes whose table entry is this address.
    pub opcodes: Vec<u32>,
}

impl NamedKernel {
    /// The demangled name, or the raw one when undecodable.
    pub fn display(&self) -> &str {
        self.demangled.as_deref().unwrap_or(&self.mangled)
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ManifestState {
    /// No `--manifest` given.
    None,
    /// The given file is the `dummy_message` stub: nothing to join.
    Stub,
    Manifest {
        version: Option<String>,
        names: usize,
    },
    /// The given file is JSON without `{name, opcode}` entries, or not JSON.
    Unusable {
        problem: String,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct JoinRow {
    pub opcode: u32,
    pub entry: Option<u32>,
    pub file_offset: Option<u32>,
    pub name: Option<String>,
    /// `joined`, `table only`, `manifest only`, `no manifest (stub)` or
    /// `no manifest`.
    pub status: &'static str,
}

impl Roster {
    /// Builds the roster of `elf`, joined to `manifest` (the header bytes)
    /// when given.
    pub fn of(elf: &ElfFile, manifest: Option<&[u8]>) -> Roster {
        let table = KernelTable::of(elf).ok();
        let header = manifest.map(Header::classify);
        let names = named_kernels(elf, table.as_ref());
        let (state, join) = join(table.as_ref(), header.as_ref());
        Roster { names, table, manifest: state, join }
    }
}

fn named_kernels(elf: &ElfFile, table: Option<&KernelTable>) -> Vec<NamedKernel> {
    let e = elf.endian();
    elf.sections()
        .iter()
        .filter_map(|s| {
            let mangled = s.name.strip_prefix(PROP_PREFIX)?.to_string();
            let address = s
                .data()
                .chunks_exact(PROP_RECORD)
                .map(|r| {
                    let word = |at: usize| e.u32([r[at], r[at + 1], r[at + 2], r[at + 3]]);
                    (word(0), word(4), word(8))
                })
                .filter(|&(addr, size, flags)| size > 0 && addr != 0 && flags & PROP_INSN != 0)
                .map(|(addr, _, _)| addr)
                .min();
            let opcodes = match (table, address) {
                (Some(t), Some(a)) => t.entry(a).map(|e| e.opcodes.clone()).unwrap_or_default(),
                _ => Vec::new(),
            };
            Some(NamedKernel {
                section: s.name.to_string(),
                demangled: q7_elf::demangle::demangle(&mangled),
                mangled,
                file_offset: address.and_then(|a| elf.vaddr_to_offset(a)),
                address,
                opcodes,
            })
        })
        .collect()
}

fn join(table: Option<&KernelTable>, header: Option<&Header>) -> (ManifestState, Vec<JoinRow>) {
    let state = match header {
        None => ManifestState::None,
        Some(Header::Stub { .. }) => ManifestState::Stub,
        Some(Header::Manifest(m)) => ManifestState::Manifest { version: m.version.clone(), names: m.kernels.len() },
        Some(Header::OtherJson) => ManifestState::Unusable { problem: "JSON without {name, opcode} entries".into() },
        Some(Header::NotJson { problem }) => ManifestState::Unusable { problem: format!("not JSON: {problem}") },
    };
    let kernels = match header {
        Some(Header::Manifest(m)) => m.kernels.as_slice(),
        _ => &[],
    };
    let unnamed = match state {
        ManifestState::Manifest { .. } => "table only",
        ManifestState::Stub => "no manifest (stub)",
        _ => "no manifest",
    };
    let mut rows: Vec<JoinRow> = Vec::new();
    for r in table.map(|t| t.records.as_slice()).unwrap_or_default() {
        let name = kernels.iter().find(|k| k.opcode == r.opcode).map(|k| k.name.clone());
        rows.push(JoinRow {
            opcode: r.opcode,
            entry: Some(r.entry),
            file_offset: table.and_then(|t| t.entry(r.entry)).and_then(|e| e.file_offset),
            status: if name.is_some() { "joined" } else { unnamed },
            name,
        });
    }
    let in_table: Vec<u32> = rows.iter().map(|r| r.opcode).collect();
    for k in kernels.iter().filter(|k| !in_table.contains(&k.opcode)) {
        rows.push(JoinRow {
            opcode: k.opcode,
            entry: None,
            file_offset: None,
            name: Some(k.name.clone()),
            status: "manifest only",
        });
    }
    (state, rows)
}
