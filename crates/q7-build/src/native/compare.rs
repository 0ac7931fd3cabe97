//! Where two runs' outputs differ: `q7 run --compare` sets the host build's
//! output beside the simulator's. Exact by default (bit for bit, any NaN
//! equal to any NaN); with a relative tolerance for float ops whose compiler
//! may contract a multiply and an add into one rounding on one side only.

use q7_target::{DType, Element};

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
        let (x, y) = (native.dtype.element(a), simulated.dtype.element(b));
        if equal(x, y, tolerance) {
            continue;
        }
        differing += 1;
        if first.len() < keep {
            first.push(Difference {
                index,
                position: position(index, simulated.shape),
                native: native.dtype.show(x),
                simulated: simulated.dtype.show(y),
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
}
