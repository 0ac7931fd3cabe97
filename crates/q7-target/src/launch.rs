//! The launch block the host writes at the top of each core's window before
//! the core starts, the argument records and the tensor descriptors it
//! points to (sdk/ABI.md is the contract; this module is its one copy in
//! Rust).

/// Size of the launch block page: the last 4 KiB of a window.
pub const PAGE: u32 = 0x1000;
/// `"Q7LB"` in memory.
pub const MAGIC: u32 = 0x424c_3751;
pub const VERSION: u32 = 1;
/// Bytes of header before the argument records.
pub const HEADER: u32 = 0x40;

/// Header field offsets.
pub mod field {
    pub const MAGIC: u32 = 0x00;
    pub const VERSION: u32 = 0x04;
    pub const FUNCTION_INDEX: u32 = 0x08;
    pub const CORE_ID: u32 = 0x0c;
    pub const CORE_COUNT: u32 = 0x10;
    pub const ARG_COUNT: u32 = 0x14;
    pub const ARGS: u32 = 0x18;
    pub const DST_DESCRIPTOR: u32 = 0x1c;
    pub const HEAP_BASE: u32 = 0x20;
    pub const HEAP_SIZE: u32 = 0x24;
    pub const TCM_BASE: u32 = 0x28;
    pub const TCM_SIZE: u32 = 0x2c;
    /// Written by the device: 0 or a [`super::Status`] code.
    pub const STATUS: u32 = 0x30;
    /// Written by the device: the returned tensor's descriptor address.
    pub const RESULT: u32 = 0x34;
    /// [`super::FLAG_NO_SDK_CHECKS`] and future host flags.
    pub const FLAGS: u32 = 0x38;
}

/// Launch flag: the SDK skips its runtime checks (TCM copy ranges, accessor
/// dtype and rank), behaving as the hardware would.
pub const FLAG_NO_SDK_CHECKS: u32 = 1;

/// Size of one argument record.
pub const ARG_SIZE: u32 = 16;

/// The kind word of an argument record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ArgKind {
    Tensor = 1,
    Double = 2,
    Int64 = 3,
    Scalar = 4,
}

/// Tensor descriptor layout.
pub mod descriptor {
    /// Size of a descriptor, 8-byte aligned.
    pub const SIZE: u32 = 160;
    pub const DTYPE: usize = 0x00;
    pub const RANK: usize = 0x04;
    pub const DATA: usize = 0x08;
    pub const FLAGS: usize = 0x0c;
    /// `sizes[MAX_RANK]`, int64.
    pub const SIZES: usize = 0x10;
    /// `strides[MAX_RANK]` in elements, int64.
    pub const STRIDES: usize = 0x50;
    pub const NUMEL: usize = 0x90;
    /// The most dimensions a descriptor holds.
    pub const MAX_RANK: usize = 8;
}

// The layout's own consistency, checked at compile time.
const _: () = assert!(field::RESULT + 4 <= HEADER);
const _: () = assert!(descriptor::STRIDES == descriptor::SIZES + 8 * descriptor::MAX_RANK);
const _: () = assert!(descriptor::NUMEL == descriptor::STRIDES + 8 * descriptor::MAX_RANK);
const _: () = assert!(descriptor::SIZE.is_multiple_of(8));

/// The launch status codes (also the exit code of a core that fails to
/// launch).
pub fn status_meaning(code: i32) -> &'static str {
    match code {
        1 => "bad launch block",
        2 => "function index out of range",
        3 => "argument kind mismatch",
        4 => "too few arguments",
        5 => "out of heap memory",
        6 => "out of TCM",
        7 => "abort or failed runtime check",
        _ => "unknown status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_reads_q7lb_in_memory() {
        assert_eq!(&MAGIC.to_le_bytes(), b"Q7LB");
    }
}
