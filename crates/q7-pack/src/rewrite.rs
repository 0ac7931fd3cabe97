//! Step 3: writes the cleaned image.
//!
//! Loadable bytes keep their file offsets (as `strip` and `objcopy` keep
//! them), so the program headers read the same as the input's. The file is
//! cut into *pieces*: maximal runs of overlapping spans that must move
//! together (the ELF header, the program header table, each segment's file
//! bytes, each kept section's bytes). Without a page size every piece stays
//! put; with one (`-p`), a piece holding a `PT_LOAD` segment moves forward
//! until `p_offset ≡ p_vaddr (mod max(page, p_align))`. Bytes of removed
//! sections that lie inside a piece become zero, as `objcopy` leaves them;
//! everything outside the pieces is dropped. The kept non-loadable sections
//! (`.q7.rebase`, `.shstrtab`) and the section header table follow.

use q7_elf::consts::*;
use q7_elf::{ElfFile, Endian};

use crate::clean::Fate;
use crate::error::{PackError, Result};
use crate::log::Log;

/// How much bigger than its input a page-aligned image may grow.
const MAX_GROWTH: u64 = 64 << 20;

/// A run of input file bytes that moves as one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub start: u64,
    pub end: u64,
    /// How far forward the piece moves in the output (0 without `-p`).
    pub delta: u64,
    /// Program headers (by index) whose file bytes lie in the piece.
    pub segments: Vec<usize>,
}

struct Span {
    start: u64,
    end: u64,
    /// For a `PT_LOAD` under `-p`: (modulus, required `offset` residue, segment index).
    congruence: Option<(u64, u64, usize)>,
    segment: Option<usize>,
}

/// Cuts the input into pieces and decides how far each one moves.
pub fn plan(elf: &ElfFile, fates: &[Fate], page: Option<u32>) -> Result<Vec<Piece>> {
    let h = elf.header();
    let len = elf.data().len() as u64;
    // The ELF32 header proper; a larger e_ehsize claims nothing a loader reads.
    let mut spans = vec![Span { start: 0, end: EHDR_SIZE as u64, congruence: None, segment: None }];
    if h.phnum > 0 {
        let start = h.phoff as u64;
        spans.push(Span { start, end: start + PHDR_SIZE as u64 * h.phnum as u64, congruence: None, segment: None });
    }
    for p in elf.segments().iter().filter(|p| p.filesz > 0) {
        let congruence = page.filter(|_| p.is_load()).map(|page| {
            let modulus = page_modulus(page, p.align);
            let residue = (p.vaddr as u64).wrapping_sub(p.offset as u64) % modulus;
            (modulus, residue, p.index)
        });
        let start = p.offset as u64;
        spans.push(Span { start, end: start + p.filesz as u64, congruence, segment: Some(p.index) });
    }
    // Index 0 is the null section, whatever its header says.
    for s in elf.sections().iter().skip(1).filter(|s| fates[s.index] == Fate::Keep && s.has_file_bytes()) {
        let start = s.offset as u64;
        spans.push(Span { start, end: start + s.size as u64, congruence: None, segment: None });
    }
    spans.sort_by_key(|s| (s.start, s.end));

    // Overlapping spans share file bytes, so they form one piece.
    let mut groups: Vec<(u64, Vec<Span>)> = Vec::new();
    for span in spans {
        match groups.last_mut() {
            Some((end, g)) if span.start < *end => {
                *end = (*end).max(span.end);
                g.push(span);
            }
            _ => groups.push((span.end, vec![span])),
        }
    }

    let mut pieces = Vec::with_capacity(groups.len());
    let mut cursor = 0u64;
    for (end, group) in groups {
        let start = group[0].start;
        let delta = piece_delta(&group, cursor.saturating_sub(start), page)?;
        if start == 0 && delta != 0 {
            let seg = group.iter().find_map(|s| s.congruence.map(|c| c.2)).unwrap_or(0);
            return Err(page_error(
                page,
                format!("segment {seg} holds the ELF header, so it cannot move to a page-aligned offset"),
            ));
        }
        cursor = end + delta;
        let mut segments: Vec<usize> = group.iter().filter_map(|s| s.segment).collect();
        segments.sort_unstable();
        segments.dedup();
        pieces.push(Piece { start, end, delta, segments });
    }
    if cursor > len.saturating_add(MAX_GROWTH) {
        return Err(page_error(
            page,
            format!(
                "aligning the segments would grow the image to {cursor:#x} bytes (at most 64 MiB more than its input)"
            ),
        ));
    }
    Ok(pieces)
}

/// The modulus a segment's offset must agree with its address under `-p`:
/// the page size, or the segment's own alignment when that is a larger power of two.
fn page_modulus(page: u32, p_align: u32) -> u64 {
    let own = if p_align.is_power_of_two() { p_align } else { 1 };
    page.max(own) as u64
}

fn page_error(page: Option<u32>, problem: String) -> PackError {
    PackError::PageAlign { page: page.unwrap_or(1), problem }
}

/// The smallest move ≥ `at_least` that satisfies every `PT_LOAD` of the group.
fn piece_delta(group: &[Span], at_least: u64, page: Option<u32>) -> Result<u64> {
    let rules: Vec<(u64, u64, usize)> = group.iter().filter_map(|s| s.congruence).collect();
    let Some(&(modulus, residue, _)) = rules.iter().max_by_key(|r| r.0) else {
        return Ok(at_least);
    };
    // `offset + delta ≡ vaddr`, i.e. `delta ≡ residue (mod modulus)`.
    let delta = at_least + (residue + modulus - at_least % modulus) % modulus;
    if let Some(&(m, r, seg)) = rules.iter().find(|&&(m, r, _)| delta % m != r % m) {
        return Err(page_error(
            page,
            format!(
                "segments {} and {seg} share file bytes but need different offsets modulo {m:#x} (residues {:#x} and {r:#x})",
                rules[0].2,
                rules[0].1 % m
            ),
        ));
    }
    Ok(delta)
}

/// Where input file offset `off` lands in the output.
pub fn map_offset(pieces: &[Piece], off: u64) -> u64 {
    match pieces.iter().rev().find(|p| p.start <= off) {
        Some(p) => off + p.delta,
        None => off,
    }
}

/// Writes the cleaned image: pieces, zeroed removed sections, then
/// `extra` non-allocated sections (name, bytes), `.shstrtab` and the headers.
pub fn write(
    elf: &ElfFile,
    fates: &[Fate],
    pieces: &[Piece],
    page: Option<u32>,
    extra: &[(&str, Vec<u8>)],
    log: &mut Log,
) -> Result<Vec<u8>> {
    let data = elf.data();
    let loadable_end = pieces.iter().map(|p| p.end + p.delta).max().unwrap_or(0);
    let mut out = vec![0u8; loadable_end as usize];
    for p in pieces {
        out[(p.start + p.delta) as usize..(p.end + p.delta) as usize]
            .copy_from_slice(&data[p.start as usize..p.end as usize]);
    }
    zero_removed_sections(elf, fates, pieces, &mut out, log);
    // A lying section table may have claimed the header: it is the input's, patched below.
    out[..EHDR_SIZE].copy_from_slice(&data[..EHDR_SIZE]);

    let (shoff, shnum) = append_section_table(elf, fates, pieces, extra, &mut out)?;
    let phoff = clamp_u32(map_offset(pieces, elf.header().phoff as u64))?;
    write_program_headers(elf, pieces, page, phoff, &mut out)?;
    let e = elf.endian();
    put_u32s(&mut out[28..], e, &[if elf.header().phnum > 0 { phoff } else { 0 }, shoff]);
    out[46..48].copy_from_slice(&e.u16_bytes(SHDR_SIZE as u16));
    out[48..50].copy_from_slice(&e.u16_bytes(shnum));
    out[50..52].copy_from_slice(&e.u16_bytes(shnum - 1));

    let moved: Vec<&Piece> = pieces.iter().filter(|p| p.delta > 0).collect();
    for p in &moved {
        log.line(format_args!(
            "layout: file bytes {:#x}..{:#x} (program headers {:?}) moved to {:#x} to page-align them",
            p.start,
            p.end,
            p.segments,
            p.start + p.delta
        ));
    }
    if moved.is_empty() {
        log.line(format_args!("layout: loadable bytes 0x0..{loadable_end:#x} keep their file offsets"));
    }
    Ok(out)
}

/// Appends the `extra` sections, `.shstrtab` and the section header table
/// (kept sections renumbered in input order, then the rebuilt ones); returns
/// (e_shoff, e_shnum).
fn append_section_table(
    elf: &ElfFile,
    fates: &[Fate],
    pieces: &[Piece],
    extra: &[(&str, Vec<u8>)],
    out: &mut Vec<u8>,
) -> Result<(u32, u16)> {
    let kept: Vec<usize> = (1..fates.len()).filter(|&i| fates[i] == Fate::Keep).collect();
    let mut new_index = vec![0u32; fates.len()];
    for (n, &i) in kept.iter().enumerate() {
        new_index[i] = n as u32 + 1;
    }
    let shnum = 1 + kept.len() + extra.len() + 1;
    if shnum >= SHN_LORESERVE as usize {
        return Err(PackError::Layout(format!("{shnum} sections need extended section numbering")));
    }
    // A link to a removed section becomes 0, as objcopy leaves it.
    let remap = |i: u32| new_index.get(i as usize).copied().unwrap_or(0);

    let mut shstrtab = vec![0u8];
    let mut headers: Vec<[u32; 10]> = vec![[0; 10]];
    for &i in &kept {
        let s = &elf.sections()[i];
        let info_is_index = s.flags & SHF_INFO_LINK != 0 || matches!(s.sh_type, SHT_REL | SHT_RELA);
        let info = if info_is_index { remap(s.info) } else { s.info };
        let offset = clamp_u32(map_offset(pieces, s.offset as u64))?;
        let name = push_name(&mut shstrtab, &s.name);
        headers.push([name, s.sh_type, s.flags, s.addr, offset, s.size, remap(s.link), info, s.addralign, s.entsize]);
    }
    for (name, bytes) in extra {
        pad_to(out, 4);
        let name = push_name(&mut shstrtab, name);
        headers.push([name, SHT_PROGBITS, 0, 0, clamp_u32(out.len() as u64)?, bytes.len() as u32, 0, 0, 4, 0]);
        out.extend_from_slice(bytes);
    }
    let name = push_name(&mut shstrtab, ".shstrtab");
    headers.push([name, SHT_STRTAB, 0, 0, clamp_u32(out.len() as u64)?, shstrtab.len() as u32, 0, 0, 1, 0]);
    out.extend_from_slice(&shstrtab);
    pad_to(out, 4);
    let shoff = clamp_u32(out.len() as u64)?;
    for h in &headers {
        for f in h {
            out.extend_from_slice(&elf.endian().u32_bytes(*f));
        }
    }
    clamp_u32(out.len() as u64)?;
    Ok((shoff, shnum as u16))
}

/// Rewrites the program header table at `phoff`: offsets follow their
/// pieces; under `-p` every `PT_LOAD` gets the page alignment, and one
/// without file bytes (`.bss`) an offset congruent to its address.
fn write_program_headers(elf: &ElfFile, pieces: &[Piece], page: Option<u32>, phoff: u32, out: &mut [u8]) -> Result<()> {
    for (k, p) in elf.segments().iter().enumerate() {
        let (mut offset, mut align) = (p.offset, p.align);
        if p.filesz > 0 {
            offset = clamp_u32(map_offset(pieces, p.offset as u64))?;
        }
        if let (true, Some(page)) = (p.is_load(), page) {
            let modulus = page_modulus(page, p.align);
            align = modulus as u32;
            if p.filesz == 0 {
                offset = (p.vaddr as u64 % modulus) as u32;
            }
        }
        let fields = [p.p_type, offset, p.vaddr, p.paddr, p.filesz, p.memsz, p.flags, align];
        put_u32s(&mut out[phoff as usize + k * PHDR_SIZE..], elf.endian(), &fields);
    }
    Ok(())
}

/// Zero-fills the bytes of removed sections that a kept piece still holds
/// (sections inside a loadable segment), so no removed content is carried.
fn zero_removed_sections(elf: &ElfFile, fates: &[Fate], pieces: &[Piece], out: &mut [u8], log: &mut Log) {
    for s in elf.sections().iter().filter(|s| matches!(fates[s.index], Fate::Removed(_)) && s.has_file_bytes()) {
        let (start, end) = (s.offset as u64, s.offset as u64 + s.size as u64);
        for p in pieces {
            let (a, b) = (start.max(p.start), end.min(p.end));
            if a < b {
                out[(a + p.delta) as usize..(b + p.delta) as usize].fill(0);
                log.line(format_args!(
                    "clean: [{}] {} bytes {a:#x}..{b:#x} lie inside kept file bytes: zero-filled",
                    s.index, s.name
                ));
            }
        }
    }
}

fn clamp_u32(v: u64) -> Result<u32> {
    u32::try_from(v).map_err(|_| PackError::Layout(format!("file offset {v:#x} does not fit ELF32")))
}

fn pad_to(out: &mut Vec<u8>, align: usize) {
    out.resize(out.len().div_ceil(align) * align, 0);
}

fn push_name(table: &mut Vec<u8>, name: &str) -> u32 {
    let at = table.len() as u32;
    table.extend_from_slice(name.as_bytes());
    table.push(0);
    at
}

fn put_u32s(out: &mut [u8], e: Endian, fields: &[u32]) {
    for (k, f) in fields.iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(&e.u32_bytes(*f));
    }
}
