//! The `kernel_info_table` (docs/FORMATS.md, "kernel_info_table"): N × 8-byte records of
//! `[u32 big-endian opcode][u32 little-endian entry address]`, many opcodes
//! to one entry. Each entry is checked for the windowed prologue
//! (`entry a1,N`, first byte 0x36) and followed to its first return.

mod text;

use q7_elf::{ElfFile, Error, Result};
use serde::Serialize;

pub use text::{write_kinfo, write_lookup};

pub const SECTION: &str = "kernel_info_table";
pub const RECORD_SIZE: u32 = 8;
/// How far past an entry the return search walks at most.
const MAX_WALK: u32 = 0x1_0000;

#[derive(Clone, Debug, Serialize)]
pub struct KernelTable {
    pub addr: u32,
    pub file_offset: u32,
    pub size: u32,
    pub records: Vec<Record>,
    /// Distinct entry addresses in order of first appearance.
    pub entries: Vec<Entry>,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Record {
    pub index: usize,
    pub opcode: u32,
    pub entry: u32,
    /// Where the record itself sits.
    pub addr: u32,
    pub file_offset: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub address: u32,
    pub file_offset: Option<u32>,
    pub section: Option<String>,
    pub opcodes: Vec<u32>,
    pub prologue: Prologue,
}

/// What the bytes at an entry say.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Prologue {
    /// The first three bytes, hex.
    pub bytes: String,
    /// `entry as, imm`: the first byte is 0x36.
    pub windowed: bool,
    /// The stack register `as` (bits 8..11; a1 in every real kernel).
    pub stack_register: Option<u8>,
    /// The 12-bit immediate (bits 12..23) × 8.
    pub frame_size: Option<u32>,
    pub ret: Option<Return>,
    pub problem: Option<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Return {
    pub mnemonic: &'static str,
    pub address: u32,
    pub file_offset: u32,
    /// Bytes from the entry to the end of the return instruction.
    pub length: u32,
}

impl KernelTable {
    /// Decodes the table of an Xtensa image.
    pub fn of(elf: &ElfFile) -> Result<KernelTable> {
        let s = elf.section_by_name(SECTION).ok_or_else(|| {
            Error::Malformed(format!("no {SECTION} section (not a microcode image with a kernel table)"))
        })?;
        let bad = |problem: String| Error::BadSection { index: s.index, name: s.name.to_string(), problem };
        if s.is_nobits() {
            return Err(bad("is NOBITS: the table has no bytes in the file".into()));
        }
        if s.size % RECORD_SIZE != 0 {
            return Err(bad(format!("size {:#x} is not a multiple of the 8-byte record", s.size)));
        }
        let records: Vec<Record> = s
            .data()
            .chunks_exact(RECORD_SIZE as usize)
            .enumerate()
            .map(|(i, r)| Record {
                index: i,
                // The mixed-endian record: opcode in network order, entry in
                // the device's own little-endian order.
                opcode: u32::from_be_bytes([r[0], r[1], r[2], r[3]]),
                entry: u32::from_le_bytes([r[4], r[5], r[6], r[7]]),
                addr: s.addr.wrapping_add(i as u32 * RECORD_SIZE),
                file_offset: s.offset + i as u32 * RECORD_SIZE,
            })
            .collect();
        let mut entries: Vec<Entry> = Vec::new();
        for r in &records {
            match entries.iter_mut().find(|e| e.address == r.entry) {
                Some(e) => e.opcodes.push(r.opcode),
                None => entries.push(examine_entry(elf, r.entry, r.opcode)),
            }
        }
        Ok(KernelTable { addr: s.addr, file_offset: s.offset, size: s.size, records, entries })
    }

    /// The dispatcher's lookup: the first record with this opcode.
    pub fn lookup(&self, opcode: u32) -> Option<&Record> {
        self.records.iter().find(|r| r.opcode == opcode)
    }

    pub fn entry(&self, address: u32) -> Option<&Entry> {
        self.entries.iter().find(|e| e.address == address)
    }
}

fn examine_entry(elf: &ElfFile, address: u32, opcode: u32) -> Entry {
    let section = elf.sections().iter().find(|s| s.size > 0 && s.has_file_bytes() && s.contains_vaddr(address));
    let mut entry = Entry {
        address,
        file_offset: elf.vaddr_to_offset(address),
        section: section.map(|s| s.name.to_string()),
        opcodes: vec![opcode],
        prologue: Prologue {
            bytes: String::new(),
            windowed: false,
            stack_register: None,
            frame_size: None,
            ret: None,
            problem: None,
        },
    };
    let Some(s) = section else {
        entry.prologue.problem = Some("the entry address is in no section with file bytes".into());
        return entry;
    };
    let code = &s.data()[(address - s.addr) as usize..];
    entry.prologue = decode_prologue(code, address, s.offset + (address - s.addr));
    entry
}

/// Reads the `entry` instruction at the start of `code` and walks forward to
/// the first `retw.n`/`retw`.
pub fn decode_prologue(code: &[u8], address: u32, file_offset: u32) -> Prologue {
    let mut p = Prologue {
        bytes: code.iter().take(3).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" "),
        windowed: false,
        stack_register: None,
        frame_size: None,
        ret: None,
        problem: None,
    };
    if code.len() < 3 {
        p.problem = Some("fewer than 3 bytes of code at the entry".into());
        return p;
    }
    if code[0] != 0x36 {
        p.problem = Some(format!("first byte {:#04x} is not a windowed `entry` (0x36)", code[0]));
        return p;
    }
    let word = u32::from_le_bytes([code[0], code[1], code[2], 0]);
    p.windowed = true;
    p.stack_register = Some(((word >> 8) & 0xf) as u8);
    p.frame_size = Some((word >> 12) * 8);
    p.ret = find_return(code, address, file_offset);
    if p.ret.is_none() {
        p.problem = Some("no retw.n/retw found after the entry".into());
    }
    p
}

/// Steps through instructions by the scalar-LX length rule (op0 8..=13 is a
/// 2-byte density instruction, everything else 3 bytes; docs/FACTS.md, "Scalar-LX length rule").
fn find_return(code: &[u8], address: u32, file_offset: u32) -> Option<Return> {
    let mut at = 0usize;
    while at + 2 <= code.len() && (at as u32) < MAX_WALK {
        let op0 = code[at] & 0xf;
        let len = if (8..=13).contains(&op0) { 2 } else { 3 };
        let mnemonic = match &code[at..] {
            [0x1d, 0xf0, ..] => Some("retw.n"),
            [0x90, 0x00, 0x00, ..] => Some("retw"),
            _ => None,
        };
        if let Some(mnemonic) = mnemonic {
            let length = (at + len) as u32;
            return Some(Return {
                mnemonic,
                address: address + at as u32,
                file_offset: file_offset + at as u32,
                length,
            });
        }
        at += len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_immediate_is_the_frame_over_eight() {
        // The vendor's two spellings (docs/FACTS.md): 36 41 00 = 32 bytes, 36 01 02 = 256 bytes.
        let p = decode_prologue(&[0x36, 0x41, 0x00, 0x1d, 0xf0], 0x100, 0x10);
        assert_eq!((p.windowed, p.stack_register, p.frame_size), (true, Some(1), Some(32)));
        assert_eq!(p.ret, Some(Return { mnemonic: "retw.n", address: 0x103, file_offset: 0x13, length: 5 }));
        let p = decode_prologue(&[0x36, 0x01, 0x02, 0x0c, 0x02, 0x90, 0x00, 0x00], 0, 0);
        assert_eq!(p.frame_size, Some(256));
        assert_eq!(p.ret.map(|r| (r.mnemonic, r.address)), Some(("retw", 5)));
    }

    #[test]
    fn non_windowed_and_short_code_are_reported() {
        assert!(decode_prologue(&[0x12, 0xc1, 0xf0], 0, 0).problem.unwrap().contains("not a windowed"));
        assert!(decode_prologue(&[0x36], 0, 0).problem.is_some());
        assert!(decode_prologue(&[0x36, 0x41, 0x00], 0, 0).problem.unwrap().contains("no retw"));
    }
}
