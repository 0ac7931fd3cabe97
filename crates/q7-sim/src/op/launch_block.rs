//! The bytes the host writes for one core: the launch block header, the
//! argument records and the tensor descriptors (sdk/ABI.md; constants in
//! `q7_target::launch`). Each core gets a private copy in its window.

use q7_target::launch::{self, descriptor as desc, field, ArgKind};
use q7_target::memmap::{TCM_BASE, TCM_SIZE};
use q7_target::DType;

use super::args::KernelArg;
use super::error::OpError;
use super::placement::{Destination, Placement};

/// What differs between the cores' launch blocks.
pub struct CoreLaunch {
    pub core: usize,
    pub cores: usize,
    /// Address of the launch block in this core's window.
    pub base: u32,
    /// `q7_target::launch::FLAG_*` bits.
    pub flags: u32,
}

/// The launch block page of one core.
pub fn page(
    at: &CoreLaunch,
    function_index: u32,
    args: &[KernelArg],
    placement: &Placement,
    dst: &Destination,
) -> Result<Vec<u8>, OpError> {
    let mut page = vec![0u8; launch::PAGE as usize];
    let args_off = launch::HEADER;
    let mut desc_off = (args_off + launch::ARG_SIZE * args.len() as u32).next_multiple_of(8);
    let tensors = args.iter().filter(|a| matches!(a, KernelArg::Tensor(_))).count() as u32;
    if desc_off as u64 + u64::from(desc::SIZE) * (u64::from(tensors) + 1) > u64::from(launch::PAGE) {
        return Err(OpError::LaunchBlockFull { args: args.len() });
    }
    let mut tensor_index = 0;
    for (n, arg) in args.iter().enumerate() {
        let rec = (args_off + launch::ARG_SIZE * n as u32) as usize;
        let (kind, value) = match arg {
            KernelArg::Tensor(t) => {
                let d = encode_descriptor(t.dtype, &t.shape, placement.inputs[tensor_index]);
                tensor_index += 1;
                page[desc_off as usize..(desc_off + desc::SIZE) as usize].copy_from_slice(&d);
                let value = u64::from(at.base + desc_off);
                desc_off += desc::SIZE;
                (ArgKind::Tensor, value)
            }
            KernelArg::Double(v) => (ArgKind::Double, v.to_bits()),
            KernelArg::Int(v) => (ArgKind::Int64, *v as u64),
            KernelArg::Scalar(v) => (ArgKind::Scalar, v.to_bits()),
        };
        page[rec..rec + 4].copy_from_slice(&(kind as u32).to_le_bytes());
        page[rec + 8..rec + 16].copy_from_slice(&value.to_le_bytes());
    }
    let dst_desc = desc_off;
    page[dst_desc as usize..(dst_desc + desc::SIZE) as usize].copy_from_slice(&encode_descriptor(
        dst.dtype,
        &dst.shape,
        placement.dst,
    ));
    let heap = placement.heap_base + placement.heap_per_core * at.core as u32;
    for (off, v) in [
        (field::MAGIC, launch::MAGIC),
        (field::VERSION, launch::VERSION),
        (field::FUNCTION_INDEX, function_index),
        (field::CORE_ID, at.core as u32),
        (field::CORE_COUNT, at.cores as u32),
        (field::ARG_COUNT, args.len() as u32),
        (field::ARGS, at.base + args_off),
        (field::DST_DESCRIPTOR, at.base + dst_desc),
        (field::HEAP_BASE, heap),
        (field::HEAP_SIZE, placement.heap_per_core),
        (field::TCM_BASE, TCM_BASE),
        (field::TCM_SIZE, TCM_SIZE),
        (field::FLAGS, at.flags),
    ] {
        page[off as usize..off as usize + 4].copy_from_slice(&v.to_le_bytes());
    }
    Ok(page)
}

/// A tensor descriptor for a C-order tensor. The caller has checked the
/// rank (at most `MAX_RANK`).
pub fn encode_descriptor(dtype: DType, shape: &[usize], data: u32) -> [u8; desc::SIZE as usize] {
    debug_assert!(shape.len() <= desc::MAX_RANK);
    let mut d = [0u8; desc::SIZE as usize];
    d[desc::DTYPE..desc::DTYPE + 4].copy_from_slice(&dtype.code().to_le_bytes());
    d[desc::RANK..desc::RANK + 4].copy_from_slice(&(shape.len() as u32).to_le_bytes());
    d[desc::DATA..desc::DATA + 4].copy_from_slice(&data.to_le_bytes());
    let mut stride = 1i64;
    for (i, &size) in shape.iter().enumerate().rev().take(desc::MAX_RANK) {
        let (s, t) = (desc::SIZES + 8 * i, desc::STRIDES + 8 * i);
        d[s..s + 8].copy_from_slice(&(size as i64).to_le_bytes());
        d[t..t + 8].copy_from_slice(&stride.to_le_bytes());
        stride = stride.wrapping_mul(size as i64);
    }
    let numel = shape.iter().fold(1i64, |n, &s| n.wrapping_mul(s as i64));
    d[desc::NUMEL..desc::NUMEL + 8].copy_from_slice(&numel.to_le_bytes());
    d
}

/// A descriptor read back from device memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor {
    pub dtype: DType,
    pub data: u32,
    pub shape: Vec<usize>,
    /// In elements.
    pub strides: Vec<i64>,
}

impl Descriptor {
    pub fn decode(raw: &[u8]) -> Result<Descriptor, String> {
        let raw = raw.get(..desc::SIZE as usize).ok_or("short tensor descriptor")?;
        let u32_at = |o: usize| u32::from_le_bytes([raw[o], raw[o + 1], raw[o + 2], raw[o + 3]]);
        let i64_at = |o: usize| i64::from_le_bytes(raw[o..o + 8].try_into().unwrap_or([0; 8]));
        let code = u32_at(desc::DTYPE);
        let dtype = DType::from_code(code).ok_or_else(|| format!("tensor dtype code {code} is unknown"))?;
        let rank = u32_at(desc::RANK) as usize;
        if rank > desc::MAX_RANK {
            return Err(format!("tensor rank {rank} > {}", desc::MAX_RANK));
        }
        Ok(Descriptor {
            dtype,
            data: u32_at(desc::DATA),
            shape: (0..rank).map(|i| i64_at(desc::SIZES + 8 * i).max(0) as usize).collect(),
            strides: (0..rank).map(|i| i64_at(desc::STRIDES + 8 * i)).collect(),
        })
    }

    /// Elements in C order with no gaps.
    pub fn is_contiguous(&self) -> bool {
        let mut expect = 1i64;
        for (&size, &stride) in self.shape.iter().zip(&self.strides).rev() {
            if size > 1 && stride != expect {
                return false;
            }
            expect = expect.saturating_mul(size as i64);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_round_trip_at_every_rank() {
        for rank in 0..=desc::MAX_RANK {
            let shape: Vec<usize> = (0..rank).map(|i| i + 2).collect();
            let d = Descriptor::decode(&encode_descriptor(DType::BF16, &shape, 0xc000_0040)).unwrap();
            assert_eq!((d.dtype, d.data, &d.shape), (DType::BF16, 0xc000_0040, &shape));
            assert!(d.is_contiguous());
            if rank > 0 {
                assert_eq!(d.strides[rank - 1], 1);
                assert_eq!(d.strides[0], shape[1..].iter().product::<usize>() as i64);
            }
        }
    }
}
