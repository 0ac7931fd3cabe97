//! Tensor element types: sizes, the `c10::ScalarType` codes the tensor
//! descriptor carries (sdk/ABI.md), and the names users type.

use std::fmt;

/// Element type of a tensor, with its `c10::ScalarType` code (sdk/ABI.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(into = "String")]
pub enum DType {
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    F32,
    F64,
    Bool,
    BF16,
}

impl DType {
    pub const ALL: [DType; 10] = [
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::Bool,
        DType::BF16,
    ];

    pub fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 | DType::Bool => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// The `c10::ScalarType` number the tensor descriptor carries.
    pub fn code(self) -> u32 {
        match self {
            DType::U8 => 0,
            DType::I8 => 1,
            DType::I16 => 2,
            DType::I32 => 3,
            DType::I64 => 4,
            DType::F16 => 5,
            DType::F32 => 6,
            DType::F64 => 7,
            DType::Bool => 11,
            DType::BF16 => 15,
        }
    }

    pub fn from_code(code: u32) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.code() == code)
    }

    /// Parses a type name as given on the command line (`f32`, `float`, `bf16`, ...).
    pub fn parse_name(name: &str) -> Option<DType> {
        Some(match name {
            "u8" | "uint8" | "byte" => DType::U8,
            "i8" | "int8" | "char" => DType::I8,
            "i16" | "int16" | "short" => DType::I16,
            "i32" | "int32" | "int" => DType::I32,
            "i64" | "int64" | "long" => DType::I64,
            "f16" | "float16" | "half" => DType::F16,
            "f32" | "float32" | "float" => DType::F32,
            "f64" | "float64" | "double" => DType::F64,
            "bool" | "b1" => DType::Bool,
            "bf16" | "bfloat16" => DType::BF16,
            _ => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::Bool => "bool",
            DType::BF16 => "bfloat16",
        };
        f.write_str(name)
    }
}

impl From<DType> for String {
    fn from(d: DType) -> String {
        d.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_code(d.code()), Some(d));
            assert_eq!(DType::parse_name(&d.to_string()), Some(d));
        }
        assert_eq!(DType::F32.code(), 6);
        assert_eq!(DType::BF16.code(), 15);
    }
}

/// One element as a number: floats widened to f64 (exactly), integers kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Element {
    Float(f64),
    Int(i64),
}

/// IEEE half precision to single (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, _) => return f32::from_bits(sign) + (if sign != 0 { -1.0 } else { 1.0 }) * frac as f32 * 2f32.powi(-24),
        (0x1f, _) => sign | 0x7f80_0000 | (frac << 13),
        _ => sign | ((exp + 112) << 23) | (frac << 13),
    };
    f32::from_bits(bits)
}

impl DType {
    /// The element in the little-endian bytes `b` (at least [`DType::size`]
    /// of them; missing bytes read as zero).
    pub fn element(self, b: &[u8]) -> Element {
        let mut padded = [0u8; 8];
        let n = b.len().min(8);
        padded[..n].copy_from_slice(&b[..n]);
        let b = padded;
        let u16le = u16::from_le_bytes([b[0], b[1]]);
        let u32le = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        match self {
            DType::U8 | DType::Bool => Element::Int(b[0] as i64),
            DType::I8 => Element::Int(b[0] as i8 as i64),
            DType::I16 => Element::Int(u16le as i16 as i64),
            DType::I32 => Element::Int(u32le as i32 as i64),
            DType::I64 => Element::Int(i64::from_le_bytes(b)),
            DType::F16 => Element::Float(f16_to_f32(u16le) as f64),
            DType::BF16 => Element::Float(f32::from_bits((u16le as u32) << 16) as f64),
            DType::F32 => Element::Float(f32::from_bits(u32le) as f64),
            DType::F64 => Element::Float(f64::from_le_bytes(b)),
        }
    }

    /// Shortest text that reads back to the same value of this type.
    pub fn show(self, e: Element) -> String {
        match e {
            Element::Int(i) => i.to_string(),
            Element::Float(x) if self == DType::F64 => format!("{x:?}"),
            Element::Float(x) => format!("{:?}", x as f32),
        }
    }
}

#[cfg(test)]
mod element_tests {
    use super::*;

    #[test]
    fn elements_decode_as_their_type() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(DType::I16.element(&[0xfe, 0xff]), Element::Int(-2));
        assert_eq!(DType::F32.show(DType::F32.element(&1.5f32.to_le_bytes())), "1.5");
        assert_eq!(DType::BF16.element(&[0x80, 0x3f]), Element::Float(1.0));
    }
}
