use serde::Serialize;

/// Byte order of an ELF file, taken from `e_ident[EI_DATA]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    /// Reads a `u16` from the first two bytes of `b` (callers bound-check).
    pub fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }

    pub fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    pub fn u16_bytes(self, v: u16) -> [u8; 2] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    pub fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    /// The `e_ident[EI_DATA]` byte for this order.
    pub const fn ident_byte(self) -> u8 {
        match self {
            Endian::Little => 1,
            Endian::Big => 2,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Endian::Little => "little-endian",
            Endian::Big => "big-endian",
        }
    }
}

/// Reads fixed-size fields out of a slice that the caller already bounded.
pub(crate) struct FieldReader<'a> {
    pub bytes: &'a [u8],
    pub endian: Endian,
}

impl FieldReader<'_> {
    pub fn u8(&self, off: usize) -> u8 {
        self.bytes[off]
    }

    pub fn u16(&self, off: usize) -> u16 {
        self.endian.u16([self.bytes[off], self.bytes[off + 1]])
    }

    pub fn u32(&self, off: usize) -> u32 {
        let b = &self.bytes[off..off + 4];
        self.endian.u32([b[0], b[1], b[2], b[3]])
    }
}
