//! Getter-driven carving (docs/FACTS.md, "Getter-driven carve"): the host library's exported
//! `*_get` functions each return one embedded blob as
//!
//! ```text
//!   48 8d 05 <disp32>    lea  disp(%rip), %rax     ; data address
//!   48 c7 06 <imm32>     movq $size, (%rsi)        ; size out-parameter
//!   c3                   ret
//! ```
//!
//! Decoding those two instructions gives (address, size); the address maps
//! to a file offset through the host's sections, which matters because
//! `.data` is not loaded at its file offset (docs/FACTS.md, ".data VMA ≠ file offset").

use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, SymbolKind};
use serde::Serialize;

use super::{Hit, HostPlace};
use crate::roster::manifest::Header;

/// The longest getter body decoded when the symbol has no size.
const MAX_BODY: usize = 64;

/// The parts of an x86-64 host ELF the getter mode reads, owned.
pub(crate) struct HostFile {
    kind: String,
    sections: Vec<HostSection>,
    segments: Vec<(u64, u64, u64)>,
    getters: Vec<(String, u64, u64)>,
}

struct HostSection {
    name: String,
    vaddr: u64,
    size: u64,
    file: Option<(u64, u64)>,
}

impl HostFile {
    /// `None` unless `data` is a 64-bit x86 ELF the `object` crate reads.
    pub(crate) fn parse(data: &[u8]) -> Option<HostFile> {
        if !data.starts_with(super::ELF_MAGIC) || data.get(4) != Some(&2) {
            return None;
        }
        let file = object::File::parse(data).ok()?;
        if file.architecture() != object::Architecture::X86_64 {
            return None;
        }
        let sections = file
            .sections()
            .map(|s| HostSection {
                name: s.name().unwrap_or("").to_string(),
                vaddr: s.address(),
                size: s.size(),
                file: s.file_range(),
            })
            .collect();
        let segments = file
            .segments()
            .map(|s| {
                let (off, len) = s.file_range();
                (s.address(), off, len)
            })
            .collect();
        let mut getters: Vec<(String, u64, u64)> = file
            .dynamic_symbols()
            .filter(|s| s.is_definition() && s.is_global() && s.kind() == SymbolKind::Text)
            .filter_map(|s| Some((s.name().ok()?.to_string(), s.address(), s.size())))
            .filter(|(name, _, _)| name.ends_with("_get"))
            .collect();
        getters.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        let kind = format!("x86-64 ELF64 {:?} host library", file.kind()).replace("Dynamic", "DYN");
        Some(HostFile { kind, sections, segments, getters })
    }

    pub(crate) fn describe(&self) -> String {
        self.kind.clone()
    }

    /// Host section and address of a file offset.
    pub(crate) fn place_of_offset(&self, off: u64) -> Option<HostPlace> {
        self.sections.iter().filter(|s| s.vaddr != 0).find_map(|s| {
            let (start, len) = s.file?;
            (off >= start && off < start + len)
                .then(|| HostPlace { section: s.name.clone(), vaddr: s.vaddr + (off - start) })
        })
    }

    /// File offset of a host address: through the section holding it, else
    /// through a loadable segment.
    pub(crate) fn offset_of_vaddr(&self, va: u64) -> Option<(u64, String)> {
        let in_section = self.sections.iter().filter(|s| s.vaddr != 0).find_map(|s| {
            let (start, len) = s.file?;
            (va >= s.vaddr && va < s.vaddr + s.size.min(len)).then(|| (start + (va - s.vaddr), s.name.clone()))
        });
        in_section.or_else(|| {
            self.segments.iter().find_map(|&(vaddr, off, len)| {
                (va >= vaddr && va < vaddr + len).then(|| (off + (va - vaddr), "(segment)".to_string()))
            })
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct GetterScan {
    /// Exported defined functions whose name ends in `_get`.
    pub exported: usize,
    pub getters: Vec<Getter>,
    /// Getters paired by name (`<SLOT>_SO_get` with `<SLOT>_HDR_get`).
    pub slots: Vec<Slot>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Getter {
    pub name: String,
    pub vaddr: u64,
    pub file_offset: Option<u64>,
    /// The address `lea disp(%rip),%rax` loads.
    pub data_vaddr: Option<u64>,
    pub data_offset: Option<u64>,
    pub data_section: Option<String>,
    /// The value `movq $imm32,(%rsi)` stores.
    pub size: Option<u64>,
    pub returns: Returns,
}

impl Getter {
    /// `(file offset, size)` when this getter returns an accepted image.
    pub fn image_span(&self) -> Option<(u64, u64)> {
        match self.returns {
            Returns::Image { .. } => Some((self.data_offset?, self.size?)),
            _ => None,
        }
    }
}

/// What a getter hands back.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Returns {
    /// An Xtensa image: index into the magic hits and the distinct images.
    Image {
        hit: usize,
        image: usize,
    },
    /// An ELF that is not an accepted image, or whose size disagrees.
    OtherElf {
        problem: String,
    },
    Header {
        header: Header,
    },
    Unknown {
        first_bytes: String,
    },
    Undecoded {
        problem: String,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct Slot {
    pub name: String,
    pub body: Option<String>,
    pub header: Option<String>,
    pub image: Option<usize>,
    pub header_kind: Option<String>,
}

pub(crate) fn scan(data: &[u8], host: &HostFile, hits: &[Hit]) -> GetterScan {
    let getters: Vec<Getter> =
        host.getters.iter().map(|(name, vaddr, size)| decode_getter(data, host, hits, name, *vaddr, *size)).collect();
    GetterScan { exported: getters.len(), slots: pair_slots(&getters), getters }
}

fn decode_getter(data: &[u8], host: &HostFile, hits: &[Hit], name: &str, vaddr: u64, sym_size: u64) -> Getter {
    let mut g = Getter {
        name: name.to_string(),
        vaddr,
        file_offset: None,
        data_vaddr: None,
        data_offset: None,
        data_section: None,
        size: None,
        returns: Returns::Undecoded { problem: String::new() },
    };
    let undecoded = |problem: String| Returns::Undecoded { problem };
    let Some((body_off, _)) = host.offset_of_vaddr(vaddr) else {
        g.returns = undecoded(format!("address {vaddr:#x} is in no section with file bytes"));
        return g;
    };
    g.file_offset = Some(body_off);
    let len = if sym_size == 0 { MAX_BODY } else { (sym_size as usize).min(4096) };
    let body = &data[body_off as usize..(body_off as usize + len).min(data.len())];
    let decoded = match decode_body(body, vaddr) {
        Ok(d) => d,
        Err(problem) => {
            g.returns = undecoded(problem);
            return g;
        }
    };
    let (data_va, size) = decoded;
    g.data_vaddr = Some(data_va);
    g.size = Some(size);
    let Some((data_off, section)) = host.offset_of_vaddr(data_va) else {
        g.returns = undecoded(format!("data address {data_va:#x} is in no section with file bytes"));
        return g;
    };
    g.data_offset = Some(data_off);
    g.data_section = Some(section);
    let end = data_off.checked_add(size).filter(|&e| e <= data.len() as u64);
    let Some(end) = end else {
        g.returns = undecoded(format!("{size:#x} bytes at offset {data_off:#x} run past the end of the file"));
        return g;
    };
    let bytes = &data[data_off as usize..end as usize];
    g.returns = if bytes.starts_with(super::ELF_MAGIC) {
        match hits.binary_search_by_key(&data_off, |h| h.offset).ok() {
            Some(i) if hits[i].xtensa && hits[i].size == Some(size) => {
                Returns::Image { hit: i, image: hits[i].image.unwrap_or_default() }
            }
            Some(i) if hits[i].xtensa => Returns::OtherElf {
                problem: format!(
                    "getter size {size:#x} differs from the image header's {:#x}",
                    hits[i].size.unwrap_or_default()
                ),
            },
            _ => Returns::OtherElf { problem: "not an accepted Xtensa image".into() },
        }
    } else if bytes.first() == Some(&b'{') || bytes.first() == Some(&b'[') {
        Returns::Header { header: Header::classify(bytes) }
    } else {
        Returns::Unknown { first_bytes: hex_preview(bytes) }
    };
    g
}

/// Walks a getter body instruction by instruction (only the forms a getter
/// is made of), returning (data address, size).
fn decode_body(body: &[u8], vaddr: u64) -> Result<(u64, u64), String> {
    let mut lea = None;
    let mut size = None;
    let mut i = 0;
    while i < body.len() {
        let rest = &body[i..];
        let imm32 = |at: usize| rest.get(at..at + 4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        match rest {
            // lea disp32(%rip), %rax
            [0x48, 0x8d, 0x05, ..] => {
                let disp = imm32(3).ok_or("truncated lea")?;
                let next = vaddr + i as u64 + 7;
                lea = Some(next.wrapping_add(disp as i64 as u64));
                i += 7;
            }
            // movq $imm32, (%rsi): the immediate is sign-extended to 64 bits.
            [0x48, 0xc7, 0x06, ..] => {
                let imm = imm32(3).ok_or("truncated movq")?;
                if imm < 0 {
                    return Err(format!("negative size {imm} at +{i:#x}"));
                }
                size = Some(imm as u64);
                i += 7;
            }
            [0xf3, 0x0f, 0x1e, 0xfa, ..] => i += 4, // endbr64
            [0x90, ..] => i += 1,
            [0xc3, ..] => break,
            _ => {
                return Err(format!(
                    "unexpected instruction bytes {} at +{i:#x} (a getter is lea/movq/ret)",
                    hex_preview(rest)
                ))
            }
        }
    }
    match (lea, size) {
        (Some(a), Some(s)) => Ok((a, s)),
        (None, _) => Err("no `lea disp(%rip),%rax` (48 8d 05)".into()),
        (_, None) => Err("no `movq $size,(%rsi)` (48 c7 06)".into()),
    }
}

fn hex_preview(b: &[u8]) -> String {
    b.iter().take(4).map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

/// Pairs getters by the name without its last `_<ROLE>_get` part; the
/// image getter is the body, the JSON one the header.
fn pair_slots(getters: &[Getter]) -> Vec<Slot> {
    let mut slots: Vec<Slot> = Vec::new();
    for g in getters {
        let key = slot_key(&g.name);
        let index = match slots.iter().position(|s| s.name == key) {
            Some(i) => i,
            None => {
                slots.push(Slot { name: key, body: None, header: None, image: None, header_kind: None });
                slots.len() - 1
            }
        };
        let slot = &mut slots[index];
        match &g.returns {
            Returns::Image { image, .. } => {
                slot.body = Some(g.name.clone());
                slot.image = Some(*image);
            }
            Returns::Header { header } => {
                slot.header = Some(g.name.clone());
                slot.header_kind = Some(header.describe());
            }
            _ => {}
        }
    }
    slots
}

fn slot_key(name: &str) -> String {
    let stem = name.strip_suffix("_get").unwrap_or(name);
    match stem.rfind('_') {
        Some(i) if i > 0 => stem[..i].to_string(),
        _ => stem.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_getter_shape() {
        let body = [0x48, 0x8d, 0x05, 0xf9, 0x0e, 0, 0, 0x48, 0xc7, 0x06, 0xec, 0x08, 0, 0, 0xc3];
        assert_eq!(decode_body(&body, 0x1100), Ok((0x2000, 0x8ec)));
        let swapped =
            [0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0xc7, 0x06, 1, 0, 0, 0, 0x48, 0x8d, 0x05, 0xf0, 0xff, 0xff, 0xff, 0xc3];
        assert_eq!(decode_body(&swapped, 0x1000), Ok((0x1000 + 18 - 16, 1)));
        assert!(decode_body(&[0x55, 0xc3], 0).unwrap_err().contains("unexpected"));
        assert!(decode_body(&[0x48, 0x8d, 0x05, 1], 0).unwrap_err().contains("truncated"));
        assert!(decode_body(&[0xc3], 0).unwrap_err().contains("lea"));
    }

    #[test]
    fn slot_names_drop_the_role() {
        assert_eq!(slot_key("SUNDA_Q7_POOL_0_SO_get"), "SUNDA_Q7_POOL_0");
        assert_eq!(slot_key("SUNDA_Q7_POOL_0_HDR_get"), "SUNDA_Q7_POOL_0");
        assert_eq!(slot_key("_get"), "");
    }
}
