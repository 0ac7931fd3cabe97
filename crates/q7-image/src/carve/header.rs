//! The few ELF header fields a carver needs, read from raw bytes at a magic
//! hit in either class, and the five checks (docs/FACTS.md, "Header validation") for a carved
//! image (ELF32, little-endian, EXEC, Xtensa, `e_flags 0x300`).

use serde::Serialize;

/// Xtensa images from the vendor toolchain carry these flags
/// (`EF_XTENSA_XT_INSN | EF_XTENSA_XT_LIT`).
pub const EXPECTED_FLAGS: u32 = 0x300;
const EM_XTENSA: u16 = 94;
const ET_EXEC: u16 = 2;

/// Header fields of an ELF file of either class, as far as the bytes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawHeader {
    pub class: u8,
    pub data: u8,
    pub e_type: u16,
    pub machine: u16,
    pub flags: u32,
    pub shoff: u64,
    pub shentsize: u16,
    pub shnum: u16,
    pub phoff: u64,
    pub phentsize: u16,
    pub phnum: u16,
    pub ehsize: u16,
}

impl RawHeader {
    /// Reads the header at the start of `b`; `None` when the bytes end
    /// before the header does or the class/data bytes are unknown.
    pub fn read(b: &[u8]) -> Option<RawHeader> {
        let (class, data) = (*b.get(4)?, *b.get(5)?);
        let le = match data {
            1 => true,
            2 => false,
            _ => return None,
        };
        let u16_at = |o: usize| -> Option<u16> {
            let x: [u8; 2] = b.get(o..o + 2)?.try_into().ok()?;
            Some(if le { u16::from_le_bytes(x) } else { u16::from_be_bytes(x) })
        };
        let u32_at = |o: usize| -> Option<u32> {
            let x: [u8; 4] = b.get(o..o + 4)?.try_into().ok()?;
            Some(if le { u32::from_le_bytes(x) } else { u32::from_be_bytes(x) })
        };
        let u64_at = |o: usize| -> Option<u64> {
            let x: [u8; 8] = b.get(o..o + 8)?.try_into().ok()?;
            Some(if le { u64::from_le_bytes(x) } else { u64::from_be_bytes(x) })
        };
        match class {
            1 => Some(RawHeader {
                class,
                data,
                e_type: u16_at(16)?,
                machine: u16_at(18)?,
                phoff: u32_at(28)? as u64,
                shoff: u32_at(32)? as u64,
                flags: u32_at(36)?,
                ehsize: u16_at(40)?,
                phentsize: u16_at(42)?,
                phnum: u16_at(44)?,
                shentsize: u16_at(46)?,
                shnum: u16_at(48)?,
            }),
            2 => Some(RawHeader {
                class,
                data,
                e_type: u16_at(16)?,
                machine: u16_at(18)?,
                phoff: u64_at(32)?,
                shoff: u64_at(40)?,
                flags: u32_at(48)?,
                ehsize: u16_at(52)?,
                phentsize: u16_at(54)?,
                phnum: u16_at(56)?,
                shentsize: u16_at(58)?,
                shnum: u16_at(60)?,
            }),
            _ => None,
        }
    }

    /// The carve size rule: the section header table is the last thing a
    /// linker writes, so the image ends at `e_shoff + e_shentsize·e_shnum`.
    /// Without section headers, the end of the program headers (or of the
    /// ELF header) is all the header can vouch for.
    pub fn declared_size(&self) -> u64 {
        if self.shnum > 0 {
            self.shoff.saturating_add(self.shentsize as u64 * self.shnum as u64)
        } else {
            let ph_end = self.phoff.saturating_add(self.phentsize as u64 * self.phnum as u64);
            ph_end.max(self.ehsize as u64)
        }
    }

    pub fn checks(&self) -> Vec<Check> {
        let class = match self.class {
            1 => "ELF32".to_string(),
            2 => "ELF64".to_string(),
            c => format!("class {c}"),
        };
        let data = match self.data {
            1 => "LE".to_string(),
            2 => "BE".to_string(),
            d => format!("data {d}"),
        };
        let e_type = match self.e_type {
            0 => "NONE".to_string(),
            1 => "REL".to_string(),
            2 => "EXEC".to_string(),
            3 => "DYN".to_string(),
            4 => "CORE".to_string(),
            t => format!("type {t}"),
        };
        let machine = match self.machine {
            EM_XTENSA => "Xtensa".to_string(),
            62 => "x86-64".to_string(),
            m => format!("machine {m}"),
        };
        vec![
            Check::new("class", "ELF32", class, self.class == 1, true),
            Check::new("data", "LE", data, self.data == 1, true),
            Check::new("type", "EXEC", e_type, self.e_type == ET_EXEC, true),
            Check::new("machine", "Xtensa", machine, self.machine == EM_XTENSA, true),
            Check::new(
                "flags",
                &format!("{EXPECTED_FLAGS:#x}"),
                format!("{:#x}", self.flags),
                self.flags == EXPECTED_FLAGS,
                false,
            ),
        ]
    }
}

/// One header check: what was expected, what was found. A failed `required`
/// check rejects the blob as an Xtensa image; a failed optional one (the
/// flags) is reported but does not.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Check {
    pub field: &'static str,
    pub expected: String,
    pub found: String,
    pub ok: bool,
    pub required: bool,
}

impl Check {
    fn new(field: &'static str, expected: &str, found: String, ok: bool, required: bool) -> Check {
        Check { field, expected: expected.to_string(), found, ok, required }
    }
}
