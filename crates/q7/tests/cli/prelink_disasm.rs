//! A prelinked image still decodes to the same instructions at its new
//! addresses: `llvm-objdump-22` on the `.text` of the cpu0 image bound to
//! window 0 and to window k (each wrapped in an ELF at its load base) shows
//! the same mnemonics at the same offsets, and every operand that is an
//! address inside the image (`L32R` literals, branch and call targets) moved
//! by exactly k·0x200000. The literal words themselves are data, listed in
//! the rebase table, and skipped.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;
use q7_elf::consts::*;
use q7_elf::write::{ElfBuilder, NewSection, NewSegment, NewSymbol};
use q7_elf::{ElfFile, Endian};
use q7_pack::prelink::{prelink, Target, Ucpl};
use q7_pack::{RebaseTable, StripOptions};

const MATTR: &str =
    "--mattr=+windowed,+density,+loop,+mul16,+mul32,+mul32high,+div32,+nsa,+minmax,+sext,+clamps,+bool,+fp";

/// One disassembled instruction: (byte count, mnemonic, operands).
type Line = (usize, String, String);

/// `code` as the `.text` of an Xtensa executable at `base`, with the
/// function symbols (offset, name) so the disassembler starts each function
/// on an instruction boundary; disassembled and keyed by offset from `base`.
fn disassemble(
    dir: &Path,
    name: &str,
    code: &[u8],
    base: u32,
    functions: &[(u32, String)],
) -> Option<BTreeMap<u32, Line>> {
    let mut b = ElfBuilder::new(Endian::Little, ET_EXEC, EM_XTENSA);
    b.flags = XTENSA_VENDOR_FLAGS;
    b.entry = base;
    let text = b.add_section(NewSection::progbits(".text", SHF_ALLOC | SHF_EXECINSTR, base, 4, code.to_vec()));
    b.add_segment(NewSegment { p_type: PT_LOAD, flags: PF_R | PF_X, align: 4, sections: vec![text] });
    for (offset, name) in functions {
        let (bind, kind, size) = (STB_GLOBAL, STT_FUNC, 0);
        b.add_symbol(NewSymbol { name: name.clone(), section: Some(text), value: base + offset, size, bind, kind });
    }
    let path = dir.join(name);
    std::fs::write(&path, b.build().unwrap()).unwrap();
    let out = peer("llvm-objdump-22", &["-d", MATTR, path.to_str().unwrap()])?;
    assert!(out.status.success(), "llvm-objdump: {}", stderr(&out));
    let mut lines = BTreeMap::new();
    for line in stdout(&out).lines() {
        let Some((addr, rest)) = line.trim().split_once(": ") else { continue };
        let Ok(addr) = u32::from_str_radix(addr, 16) else { continue };
        let mut fields = rest.split('\t');
        let bytes = fields.next().unwrap_or("").split_whitespace().count();
        let mnemonic = fields.next().unwrap_or("").trim().to_string();
        let operands = fields.next().unwrap_or("").trim().to_string();
        lines.insert(addr - base, (bytes, mnemonic, operands));
    }
    Some(lines)
}

/// Operands with every address inside `range` moved by `delta` (llvm-objdump
/// prints addresses in hex, `0x84000024` or `0x84000144 <checksum+0x38>`,
/// and immediates in decimal).
fn shifted(operands: &str, range: std::ops::Range<u64>, delta: u32) -> String {
    operands
        .split(", ")
        .map(|op| {
            let (number, label) = op.split_once(' ').map_or((op, ""), |(n, l)| (n, l));
            match number.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok()) {
                Some(a) if range.contains(&(a as u64)) => {
                    format!("{:#x}{}{label}", a + delta, if label.is_empty() { "" } else { " " })
                }
                _ => op.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn relocated_code_decodes_the_same_at_the_new_addresses() {
    let input = std::fs::read(fixture("prog_cpu0.so")).unwrap();
    let elf = ElfFile::parse(&input).unwrap();
    let text = elf.section_by_name(".text").unwrap();
    let (text_start, text_size) =
        ((text.addr - elf.load_segments().map(|p| p.vaddr).min().unwrap()) as usize, text.size as usize);
    let cleaned = q7_pack::strip_image(&input, &StripOptions::default(), &mut std::io::sink()).unwrap();
    let table = RebaseTable::of_image(&ElfFile::parse(&cleaned).unwrap()).unwrap().unwrap();
    let literal_words: Vec<u32> = table.addresses.iter().map(|a| a - table.link_base).collect();
    let in_literal = |off: u32, len: usize| literal_words.iter().any(|&w| off < w + 4 && w < off + len as u32);

    let functions: Vec<(u32, String)> = elf
        .symbols()
        .unwrap()
        .iter()
        .filter(|s| s.kind() == STT_FUNC && text.contains_vaddr(s.value))
        .map(|s| (s.value - text.addr, s.name.to_string()))
        .collect();
    assert!(functions.len() >= 8, "{functions:?}");

    let dir = tempfile::tempdir().unwrap();
    let bind = |k: u32| -> Ucpl { prelink(&input, Target::core(k), None).unwrap() };
    let cpu0 = bind(0);
    let base0 = cpu0.header.load_base;
    let code0 = &cpu0.image[text_start..text_start + text_size];
    let Some(dis0) = disassemble(dir.path(), "cpu0.elf", code0, base0 + text_start as u32, &functions) else { return };
    let image_range = base0 as u64..base0 as u64 + cpu0.header.memory_size as u64;

    for k in [3u32, 7] {
        let cpuk = bind(k);
        let delta = k * 0x20_0000;
        assert_eq!(cpuk.header.load_base, base0 + delta);
        let codek = &cpuk.image[text_start..text_start + text_size];
        let disk = disassemble(
            dir.path(),
            &format!("cpu{k}.elf"),
            codek,
            cpuk.header.load_base + text_start as u32,
            &functions,
        )
        .expect("peer ran once");
        let (mut compared, mut l32r, mut targets) = (0, 0, 0);
        for (&off, (len, mnemonic, operands)) in &dis0 {
            if in_literal(off + text_start as u32, *len) {
                continue;
            }
            let (lenk, mnemonick, operandsk) = disk.get(&off).unwrap_or_else(|| panic!("cpu{k}: no line at +{off:#x}"));
            assert_eq!((lenk, mnemonick), (len, mnemonic), "cpu{k} at +{off:#x}");
            let expected = shifted(operands, image_range.clone(), delta);
            assert_eq!(operandsk, &expected, "cpu{k} at +{off:#x} ({mnemonic})");
            compared += 1;
            l32r += usize::from(mnemonic == "l32r");
            targets += usize::from(expected != *operands);
        }
        assert!(compared > 80 && l32r > 10 && targets > l32r, "cpu{k}: {compared} lines, {l32r} l32r, {targets} moved");
    }
}
