//! Where two runs' outputs differ: `q7 run --compare` sets the host build's
//! output beside the simulator's. Exact by default (bit for bit, any NaN
//! equal to any NaN); with a relative tolerance for float ops whose compiler
//! may contract a multiply and an add into one rounding on one side only.

use q7_target::DType;

/// One differing element.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Difference {
    /// Flat (row-major) index.
    pub index: usize,
    /// The same index per dimension.
    pub position: Vec<usize>,
    pub native: String,
    pub simulated: String,
}

/// The outcome of a comparison.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Comparison {
    pub elements: usize,
    pub differing: usize,
    /// The first few differences, in index order.
    pub first: Vec<Difference>,
    /// Set when shape or dtype already differ (no element is compared then).
    pub mismatch: Option<String>,
}

impl Comparison {
    pub fn same(&self) -> bool {
        self.differing == 0 && self.mismatch.is_none()
    }
}

/// One element as a number: floats widened to f64 (exactly), integers kept.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Element {
    Float(f64),
    Int(i64),
}

fn f16_to_f32(h: u16) -> f32 {
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

fn element(dtype: DType, b: &[u8]) -> Element {
    let u16le = || u16::from_le_bytes([b[0], b[1]]);
    match dtype {
        DType::U8 | DType::Bool => Element::Int(b[0] as i64),
        DType::I8 => Element::Int(b[0] as i8 as i64),
        DType::I16 => Element::Int(u16le() as i16 as i64),
        DType::I32 => Element::Int(i32::from_le_bytes(b[..4].try_into().unwrap_or_default()) as i64),
        DType::I64 => Element::Int(i64::from_le_bytes(b[..8].try_into().unwrap_or_default())),
        DType::F16 => Element::Float(f16_to_f32(u16le()) as f64),
        DType::BF16 => Element::Float(f32::from_bits((u16le() as u32) << 16) as f64),
        DType::F32 => Element::Float(f32::from_le_bytes(b[..4].try_into().unwrap_or_default()) as f64),
        DType::F64 => Element::Float(f64::from_le_bytes(b[..8].try_into().unwrap_or_default())),
    }
}

/// Shortest text that reads back to the same value of the element's type.
fn show(dtype: DType, e: Element) -> String {
    match e {
        Element::Int(i) => i.to_string(),
        Element::Float(x) if dtype == DType::F64 => format!("{x:?}"),
        Element::Float(x) => format!("{:?}", x as f32),
    }
}

fn equal(a: Element, b: Element, tolerance: Option<f64>) -> bool {
    match (a, b) {
        (Element::Int(x), Element::Int(y)) => x == y,
        (Element::Float(x), Element::Float(y)) => {
            if x.is_nan() || y.is_nan() {
                return x.is_nan() && y.is_nan();
            }
            match tolerance {
                None => x.to_bits() == y.to_bits(),
                Some(rel) => x == y || (x - y).abs() <= rel * x.abs().max(y.abs()),
            }
        }
        _ => false,
    }
}

fn position(mut index: usize, shape: &[usize]) -> Vec<usize> {
    let mut pos = vec![0; shape.len()];
    for (d, &size) in shape.iter().enumerate().rev() {
        if size > 0 {
            pos[d] = index % size;
            index /= size;
        }
    }
    pos
}

/// A tensor's description for comparison.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub dtype: DType,
    pub shape: &'a [usize],
    pub data: &'a [u8],
}

/// Compares `native` with `simulated`, keeping the first `keep` differences.
pub fn compare(native: View, simulated: View, tolerance: Option<f64>, keep: usize) -> Comparison {
    let elements = simulated.shape.iter().product();
    if native.dtype != simulated.dtype || native.shape != simulated.shape {
        let mismatch = format!(
            "native output is {} {:?}, simulated {} {:?}",
            native.dtype, native.shape, simulated.dtype, simulated.shape
        );
        return Comparison { elements, differing: elements, first: Vec::new(), mismatch: Some(mismatch) };
    }
    let size = simulated.dtype.size();
    let mut differing = 0;
    let mut first = Vec::new();
    for (index, (a, b)) in native.data.chunks_exact(size).zip(simulated.data.chunks_exact(size)).enumerate() {
        if a == b {
            continue;
        }
        let (x, y) = (element(native.dtype, a), element(simulated.dtype, b));
        if equal(x, y, tolerance) {
            continue;
        }
        differing += 1;
        if first.len() < keep {
            first.push(Difference {
                index,
                position: position(index, simulated.shape),
                native: show(native.dtype, x),
                simulated: show(simulated.dtype, y),
            });
        }
    }
    Comparison { elements, differing, first, mismatch: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn exact_by_default_with_a_tolerance_on_request() {
        let shape = [2, 2];
        let a = floats(&[1.0, 2.0, f32::NAN, 4.0]);
        let b = floats(&[1.0, 2.000_000_2, f32::from_bits(0x7fc0_0001), -0.0]);
        let view = |d| View { dtype: DType::F32, shape: &shape, data: d };
        let exact = compare(view(&a), view(&b), None, 10);
        assert_eq!(exact.differing, 2, "{exact:?}");
        assert_eq!(exact.first[0].index, 1);
        assert_eq!(exact.first[0].position, vec![0, 1]);
        assert_eq!(exact.first[0].native, "2.0");
        assert_eq!(exact.first[0].simulated, "2.0000002", "f32 elements print as f32");
        assert_eq!(exact.first[1].position, vec![1, 1]);
        let loose = compare(view(&a), view(&b), Some(1e-6), 10);
        assert_eq!(loose.differing, 1, "4.0 vs -0.0 is beyond any relative tolerance");
    }

    #[test]
    fn shapes_must_agree() {
        let a = floats(&[1.0, 2.0]);
        let c = compare(
            View { dtype: DType::F32, shape: &[2], data: &a },
            View { dtype: DType::F32, shape: &[1, 2], data: &a },
            None,
            10,
        );
        assert!(!c.same());
        assert!(c.mismatch.unwrap().contains("[1, 2]"));
    }

    #[test]
    fn half_precision_widens_exactly() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert!(f16_to_f32(0x7e00).is_nan());
    }
}
