//! The UCPL image format (docs/FORMATS.md, "UCPL image"; q7's definition, the vendor's is
//! unpublished beyond the magic): a 32-byte little-endian header, then the
//! image bytes a core loads at the header's load base.
//!
//! | off | size | field |
//! |---|---|---|
//! | 0x00 | 5 | magic `"UCPL "` |
//! | 0x05 | 1 | format version = 1 |
//! | 0x06 | 2 | header size = 32 |
//! | 0x08 | 4 | load base: the address of the first image byte |
//! | 0x0C | 4 | entry address |
//! | 0x10 | 4 | image bytes that follow the header |
//! | 0x14 | 4 | memory size (image + zero-filled `.bss`) |
//! | 0x18 | 4 | core id 0..7, or 0xFFFFFFFF for the single fat core |
//! | 0x1C | 4 | CRC-32 (IEEE) of the image bytes |
//!
//! Reading is two steps so a report can show every problem at once:
//! [`Ucpl::parse`] only needs 32 bytes to decode the header, and
//! [`UcplView::validate`] runs each check. [`Ucpl::load`] does both and
//! fails on the first failed check (what a loader wants).

use crc32fast::hash as crc32;
use q7_target::memmap::{Window, CORE_COUNT};

use super::error::{PrelinkError, Result};
use super::Provenance;

pub const MAGIC: [u8; 5] = *b"UCPL ";
pub const VERSION: u8 = 1;
pub const HEADER_SIZE: usize = 32;
/// The core id of an image bound to the single fat core's window.
pub const SINGLE_CORE_ID: u32 = 0xFFFF_FFFF;

/// The header fields as stored (a parsed header may hold any values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UcplHeader {
    pub magic: [u8; 5],
    pub version: u8,
    pub header_size: u16,
    pub load_base: u32,
    pub entry: u32,
    pub image_size: u32,
    pub memory_size: u32,
    pub core_id: u32,
    pub crc32: u32,
}

impl UcplHeader {
    pub fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut out = [0u8; HEADER_SIZE];
        out[0..5].copy_from_slice(&self.magic);
        out[5] = self.version;
        out[6..8].copy_from_slice(&self.header_size.to_le_bytes());
        let words = [self.load_base, self.entry, self.image_size, self.memory_size, self.core_id, self.crc32];
        for (i, w) in words.iter().enumerate() {
            out[8 + 4 * i..12 + 4 * i].copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Decodes the first 32 bytes without judging the values.
    pub fn decode(bytes: &[u8]) -> Result<UcplHeader> {
        let Some(h) = bytes.get(..HEADER_SIZE) else {
            return Err(PrelinkError::Ucpl(format!(
                "{} bytes is shorter than the {HEADER_SIZE}-byte header",
                bytes.len()
            )));
        };
        let word = |o: usize| u32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]]);
        Ok(UcplHeader {
            magic: [h[0], h[1], h[2], h[3], h[4]],
            version: h[5],
            header_size: u16::from_le_bytes([h[6], h[7]]),
            load_base: word(8),
            entry: word(12),
            image_size: word(16),
            memory_size: word(20),
            core_id: word(24),
            crc32: word(28),
        })
    }

    /// The window the core id names, if it names one.
    pub fn window(&self) -> Option<Window> {
        window_of_core_id(self.core_id)
    }
}

/// `0..8` is an SPMD core, [`SINGLE_CORE_ID`] the fat core.
pub fn window_of_core_id(core_id: u32) -> Option<Window> {
    match core_id {
        SINGLE_CORE_ID => Some(Window::Single),
        i if i < CORE_COUNT => Some(Window::Core(i)),
        _ => None,
    }
}

pub fn core_id_of_window(window: Window) -> u32 {
    match window {
        Window::Core(i) => i,
        Window::Single => SINGLE_CORE_ID,
    }
}

/// A prelinked image: what [`super::prelink`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ucpl {
    pub header: UcplHeader,
    pub image: Vec<u8>,
    /// How it was made, for logs.
    pub provenance: Provenance,
}

impl Ucpl {
    /// A version-1 image bound to `window`, with the CRC computed.
    pub(crate) fn new(
        load_base: u32,
        entry: u32,
        memory_size: u32,
        window: Window,
        image: Vec<u8>,
        provenance: Provenance,
    ) -> Ucpl {
        let header = UcplHeader {
            magic: MAGIC,
            version: VERSION,
            header_size: HEADER_SIZE as u16,
            load_base,
            entry,
            // The caller checked the image against a window of at most 32 MiB.
            image_size: image.len() as u32,
            memory_size,
            core_id: core_id_of_window(window),
            crc32: crc32(&image),
        };
        Ucpl { header, image, provenance }
    }

    /// The file: header then image.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_SIZE + self.image.len());
        out.extend_from_slice(&self.header.encode());
        out.extend_from_slice(&self.image);
        out
    }

    /// Decodes the header; judges nothing (see [`UcplView::validate`]).
    pub fn parse(bytes: &[u8]) -> Result<UcplView<'_>> {
        let header = UcplHeader::decode(bytes)?;
        Ok(UcplView { header, file: bytes })
    }

    /// Parses and validates: the view of a file every check passes, or the
    /// first failed check as the error.
    pub fn load(bytes: &[u8]) -> Result<UcplView<'_>> {
        let view = Ucpl::parse(bytes)?;
        view.validate().into_result()?;
        Ok(view)
    }
}

/// A UCPL file as read.
#[derive(Clone, Copy, Debug)]
pub struct UcplView<'a> {
    pub header: UcplHeader,
    file: &'a [u8],
}

impl<'a> UcplView<'a> {
    pub fn file_size(&self) -> usize {
        self.file.len()
    }

    /// The declared image bytes, when the file holds all of them.
    pub fn image(&self) -> Option<&'a [u8]> {
        self.file.get(HEADER_SIZE..HEADER_SIZE.checked_add(self.header.image_size as usize)?)
    }

    /// Runs every check; see [`Validation`].
    pub fn validate(&self) -> Validation {
        let h = &self.header;
        let mut checks = Vec::new();
        let mut check = |name: &'static str, ok: bool, detail: String| checks.push(Check { name, ok, detail });

        let magic_ok = h.magic == MAGIC;
        let magic_detail = if magic_ok {
            "\"UCPL \"".to_string()
        } else if h.magic.starts_with(&q7_elf::consts::ELFMAG) {
            "an ELF file, not a UCPL image (q7 prelink binds it)".to_string()
        } else {
            format!("{}, expected \"UCPL \"", show_bytes(&h.magic))
        };
        check("magic", magic_ok, magic_detail);
        let version_ok = h.version == VERSION;
        check(
            "version",
            version_ok,
            if version_ok { "1".into() } else { format!("{}, this q7 reads version {VERSION}", h.version) },
        );
        let header_ok = h.header_size as usize == HEADER_SIZE;
        check(
            "header size",
            header_ok,
            if header_ok {
                "32".into()
            } else {
                format!("{}, version 1 headers are {HEADER_SIZE} bytes", h.header_size)
            },
        );
        let declared = HEADER_SIZE as u64 + h.image_size as u64;
        let actual = self.file.len() as u64;
        check(
            "file size",
            declared == actual,
            if declared == actual {
                format!("{actual:#x} = 32 + {:#x} image bytes", h.image_size)
            } else {
                format!("file is {actual:#x} bytes, the header says 32 + {:#x} = {declared:#x}", h.image_size)
            },
        );
        let sizes_ok = h.image_size <= h.memory_size;
        check(
            "memory size",
            sizes_ok,
            if sizes_ok {
                format!(
                    "{:#x} >= {:#x} image bytes (+{:#x} zero-filled)",
                    h.memory_size,
                    h.image_size,
                    h.memory_size - h.image_size
                )
            } else {
                format!("{:#x} is smaller than the {:#x} image bytes", h.memory_size, h.image_size)
            },
        );
        let window = h.window();
        check(
            "core id",
            window.is_some(),
            match window {
                Some(w) => format!("{} ({})", show_core_id(h.core_id), w.label()),
                None => format!("{} is neither 0..7 nor 0xffffffff (single)", h.core_id),
            },
        );
        let end = h.load_base as u64 + h.memory_size as u64;
        let (window_ok, window_detail) = match window {
            None => (false, "no window: the core id is invalid".to_string()),
            Some(w) => {
                let ok = h.load_base >= w.base() && end <= w.end();
                let verb = if ok { "inside" } else { "not inside" };
                (
                    ok,
                    format!("{:#x}..{end:#x} {verb} {} window {:#x}..{:#x}", h.load_base, w.label(), w.base(), w.end()),
                )
            }
        };
        check("window", window_ok, window_detail);
        let image_end = h.load_base as u64 + h.image_size as u64;
        let entry_ok = h.entry >= h.load_base && (h.entry as u64) < image_end;
        let verb = if entry_ok { "inside" } else { "not inside" };
        check("entry", entry_ok, format!("{:#x} {verb} the image bytes {:#x}..{image_end:#x}", h.entry, h.load_base));
        let (crc_ok, crc_detail) = match self.image() {
            Some(image) => {
                let computed = crc32(image);
                let ok = computed == h.crc32;
                (
                    ok,
                    if ok {
                        format!("{computed:#010x}")
                    } else {
                        format!("stored {:#010x}, the image bytes give {computed:#010x}", h.crc32)
                    },
                )
            }
            None => (false, format!("cannot check: the file holds fewer than the {:#x} image bytes", h.image_size)),
        };
        check("crc-32", crc_ok, crc_detail);
        Validation { checks }
    }
}

/// One check of [`UcplView::validate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    /// The values checked, one line.
    pub detail: String,
}

/// Every check of a UCPL file, in header order: magic, version, header
/// size, file size (32 + image bytes), memory size (≥ image bytes), core id
/// (0..7 or 0xFFFFFFFF), window (load base .. base + memory size inside the
/// core's window), entry (inside the image bytes), CRC-32 of the image bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    pub checks: Vec<Check>,
}

impl Validation {
    pub fn is_valid(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }

    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.ok)
    }

    /// The first failed check as an error.
    pub fn into_result(self) -> Result<()> {
        match self.failures().next() {
            Some(c) => Err(PrelinkError::Ucpl(format!("{}: {}", c.name, c.detail))),
            None => Ok(()),
        }
    }
}

/// `3` or `0xffffffff`.
pub fn show_core_id(core_id: u32) -> String {
    if core_id == SINGLE_CORE_ID {
        format!("{core_id:#x}")
    } else {
        core_id.to_string()
    }
}

/// Printable ASCII as a quoted string, anything else as hex bytes.
fn show_bytes(bytes: &[u8]) -> String {
    if bytes.iter().all(|b| (0x20..0x7f).contains(b) && *b != b'"') {
        format!("\"{}\"", String::from_utf8_lossy(bytes))
    } else {
        format!("bytes {bytes:02x?}")
    }
}
