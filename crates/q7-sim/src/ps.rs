//! Fields of the processor status register PS (XEA2).

pub const INTLEVEL_MASK: u32 = 0xf;
/// Exception mode: set while a handler runs; masks window checks.
pub const EXCM: u32 = 1 << 4;
/// User vector mode: exceptions go to the user (not kernel) vector.
pub const UM: u32 = 1 << 5;
/// The ring the core runs in (the MMU option); CRING is 0 under EXCM.
pub const RING_SHIFT: u32 = 6;
pub const RING_MASK: u32 = 3 << RING_SHIFT;
/// Old window base, saved by window exceptions for `rfwo`/`rfwu`.
pub const OWB_SHIFT: u32 = 8;
pub const OWB_MASK: u32 = 0xf << OWB_SHIFT;
/// Call increment of the last `callN` (1..3), consumed by `entry`.
pub const CALLINC_SHIFT: u32 = 16;
pub const CALLINC_MASK: u32 = 3 << CALLINC_SHIFT;
/// Window overflow enable.
pub const WOE: u32 = 1 << 18;
/// Bits PS holds on an LX core (the rest read as zero).
pub const WRITABLE: u32 = 0x0007_0fff;
