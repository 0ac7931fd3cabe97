//! Where a launch puts things: tensor memory holds, 64-byte aligned and in
//! argument order, the input tensors, then the destination tensor, then one
//! heap slice per core (docs/PLATFORM.md). All sizes are checked in 64
//! bits, so no shape can wrap into a small allocation.

use q7_target::memmap::{TENSOR_BASE, TENSOR_MAX};
use q7_target::DType;

use super::args::KernelArg;
use super::error::OpError;

/// The destination tensor `get_dst_tensor()` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destination {
    pub dtype: DType,
    pub shape: Vec<usize>,
}

impl Destination {
    /// The tensor's size in bytes, exactly (`None` past 2^128).
    pub fn bytes(&self) -> Option<u128> {
        self.shape.iter().try_fold(self.dtype.size() as u128, |n, &d| n.checked_mul(d as u128))
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

/// Addresses in tensor memory.
#[derive(Clone, Debug)]
pub struct Placement {
    /// One per tensor argument, in order.
    pub inputs: Vec<u32>,
    pub dst: u32,
    pub dst_bytes: u32,
    pub heap_base: u32,
    pub heap_per_core: u32,
    /// Bytes of tensor memory in use from `TENSOR_BASE`.
    pub tensor_size: u32,
}

fn align(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

/// Bytes left free after a tensor of `bytes` (as AddressSanitizer's red
/// zones): an access running past the tensor's end lands outside every live
/// range, where the checker sees it, not in the next tensor. An eighth of the
/// tensor, at least 256 bytes and at most 64 KiB.
pub fn red_zone(bytes: u64) -> u64 {
    align((bytes / 8).clamp(256, 64 << 10), 64)
}

/// Lays out the tensors, the destination and `cores` heap slices.
pub fn place(
    args: &[KernelArg],
    dst: &Destination,
    cores: usize,
    heap_per_core: Option<u32>,
) -> Result<Placement, OpError> {
    let limit = u64::from(TENSOR_MAX);
    let too_big = |what: &str, bytes: u128| OpError::TensorMemory { what: what.to_string(), bytes, limit };
    let mut cursor = 0u64;
    let mut inputs = Vec::new();
    for arg in args {
        if let KernelArg::Tensor(t) = arg {
            let at = align(cursor, 64);
            cursor = at + t.data.len() as u64 + red_zone(t.data.len() as u64);
            if cursor > limit {
                return Err(too_big("the input tensors", cursor as u128));
            }
            inputs.push(TENSOR_BASE + at as u32);
        }
    }
    let dst_bytes = dst.bytes().ok_or_else(|| OpError::TensorUncountable { shape: dst.shape.clone(), limit })?;
    let dst_at = align(cursor, 64);
    let end = (dst_at as u128).saturating_add(dst_bytes);
    if end > limit as u128 {
        return Err(too_big(&format!("the inputs and a destination of shape {:?}", dst.shape), end));
    }
    let heap_at = align(end as u64 + red_zone(end as u64 - dst_at), 0x1_0000);
    let room = limit.saturating_sub(heap_at);
    let heap_per_core = match heap_per_core {
        Some(h) => align(u64::from(h), 0x1000),
        None => ((64u64 << 20) / cores as u64).max(8 << 20).min(room / cores as u64) & !0xfff,
    };
    let tensor_size = heap_at + heap_per_core * cores as u64;
    if tensor_size > limit || heap_per_core == 0 {
        return Err(too_big(
            &format!("the tensors and {cores} heap slices of {heap_per_core:#x} bytes"),
            tensor_size as u128,
        ));
    }
    Ok(Placement {
        inputs,
        dst: TENSOR_BASE + dst_at as u32,
        dst_bytes: dst_bytes as u32,
        heap_base: TENSOR_BASE + heap_at as u32,
        heap_per_core: heap_per_core as u32,
        tensor_size: tensor_size as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_past_any_count_are_refused_in_words() {
        let dst = Destination { dtype: DType::F32, shape: vec![usize::MAX; 3] };
        let err = place(&[], &dst, 1, None).unwrap_err();
        assert!(err.to_string().starts_with("a destination of shape ["), "{err}");
    }

    #[test]
    fn huge_destinations_are_refused_not_wrapped() {
        for n in [268_435_456usize, 1 << 30, 1 << 32, 1 << 40, usize::MAX] {
            let dst = Destination { dtype: DType::F32, shape: vec![n] };
            let err = place(&[], &dst, 1, None).unwrap_err();
            assert!(matches!(err, OpError::TensorMemory { .. }), "{n}: {err}");
            // The byte count said is the true one, not a wrapped or saturated one.
            assert!(err.to_string().contains(&format!("need {} bytes", 4 * n as u128)), "{n}: {err}");
        }
        let dst = Destination { dtype: DType::F32, shape: vec![1 << 16, 1 << 16] };
        assert!(place(&[], &dst, 1, None).is_err());
    }

    #[test]
    fn layout_is_aligned_and_ordered() {
        let dst = Destination { dtype: DType::F32, shape: vec![3] };
        let p = place(&[], &dst, 8, None).unwrap();
        assert_eq!(p.dst, TENSOR_BASE);
        assert_eq!(p.dst_bytes, 12);
        assert_eq!(p.heap_base, TENSOR_BASE + 0x1_0000);
        assert_eq!(p.heap_per_core, 8 << 20);
    }
}
