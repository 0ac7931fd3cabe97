//! Xtensa relocation types as a data table: what each one patches and how a
//! prelinker that moves a whole image by a constant must treat it.

/// How a relocation behaves when an entire linked image moves by `delta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelocKind {
    /// Does nothing (`R_XTENSA_NONE`) or only marks code for the linker's
    /// relaxation pass.
    Marker,
    /// An absolute value of `size` bytes: add `delta` when the image moves.
    Absolute { size: u8 },
    /// A PC-relative value of `size` bytes: unchanged when the image moves.
    PcRelative { size: u8 },
    /// An instruction operand in FLIX slot `slot` (`*_OP`) or its alternate
    /// form (`*_ALT`): PC-relative for branches, calls and L32R, so a whole-image
    /// move leaves it alone.
    Slot { slot: u8, alternate: bool },
    /// The difference of two symbols (`DIFF*`, `PDIFF*`, `NDIFF*`): invariant.
    Difference { size: u8 },
    /// Dynamic-linking relocations that a bare-metal image must not carry.
    Dynamic,
    /// Thread-local storage: not supported on the device.
    Tls,
}

/// One row of the relocation table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelocInfo {
    pub r_type: u8,
    pub name: &'static str,
    pub kind: RelocKind,
}

pub const R_XTENSA_NONE: u8 = 0;
pub const R_XTENSA_32: u8 = 1;
pub const R_XTENSA_RELATIVE: u8 = 5;
pub const R_XTENSA_32_PCREL: u8 = 14;
pub const R_XTENSA_SLOT0_OP: u8 = 20;

const fn row(r_type: u8, name: &'static str, kind: RelocKind) -> RelocInfo {
    RelocInfo { r_type, name, kind }
}

use RelocKind::*;

/// The fixed (non-slot) relocation numbers from the Xtensa ELF ABI.
const FIXED: &[RelocInfo] = &[
    row(0, "R_XTENSA_NONE", Marker),
    row(1, "R_XTENSA_32", Absolute { size: 4 }),
    row(2, "R_XTENSA_RTLD", Dynamic),
    row(3, "R_XTENSA_GLOB_DAT", Dynamic),
    row(4, "R_XTENSA_JMP_SLOT", Dynamic),
    row(5, "R_XTENSA_RELATIVE", Dynamic),
    row(6, "R_XTENSA_PLT", Dynamic),
    row(8, "R_XTENSA_OP0", Slot { slot: 0, alternate: false }),
    row(9, "R_XTENSA_OP1", Slot { slot: 1, alternate: false }),
    row(10, "R_XTENSA_OP2", Slot { slot: 2, alternate: false }),
    row(11, "R_XTENSA_ASM_EXPAND", Marker),
    row(12, "R_XTENSA_ASM_SIMPLIFY", Marker),
    row(14, "R_XTENSA_32_PCREL", PcRelative { size: 4 }),
    row(15, "R_XTENSA_GNU_VTINHERIT", Marker),
    row(16, "R_XTENSA_GNU_VTENTRY", Marker),
    row(17, "R_XTENSA_DIFF8", Difference { size: 1 }),
    row(18, "R_XTENSA_DIFF16", Difference { size: 2 }),
    row(19, "R_XTENSA_DIFF32", Difference { size: 4 }),
    row(50, "R_XTENSA_TLSDESC_FN", Tls),
    row(51, "R_XTENSA_TLSDESC_ARG", Tls),
    row(52, "R_XTENSA_TLS_DTPOFF", Tls),
    row(53, "R_XTENSA_TLS_TPOFF", Tls),
    row(54, "R_XTENSA_TLS_FUNC", Tls),
    row(55, "R_XTENSA_TLS_ARG", Tls),
    row(56, "R_XTENSA_TLS_CALL", Tls),
    row(57, "R_XTENSA_PDIFF8", Difference { size: 1 }),
    row(58, "R_XTENSA_PDIFF16", Difference { size: 2 }),
    row(59, "R_XTENSA_PDIFF32", Difference { size: 4 }),
    row(60, "R_XTENSA_NDIFF8", Difference { size: 1 }),
    row(61, "R_XTENSA_NDIFF16", Difference { size: 2 }),
    row(62, "R_XTENSA_NDIFF32", Difference { size: 4 }),
];

const SLOT_OP_NAMES: [&str; 15] = [
    "R_XTENSA_SLOT0_OP",
    "R_XTENSA_SLOT1_OP",
    "R_XTENSA_SLOT2_OP",
    "R_XTENSA_SLOT3_OP",
    "R_XTENSA_SLOT4_OP",
    "R_XTENSA_SLOT5_OP",
    "R_XTENSA_SLOT6_OP",
    "R_XTENSA_SLOT7_OP",
    "R_XTENSA_SLOT8_OP",
    "R_XTENSA_SLOT9_OP",
    "R_XTENSA_SLOT10_OP",
    "R_XTENSA_SLOT11_OP",
    "R_XTENSA_SLOT12_OP",
    "R_XTENSA_SLOT13_OP",
    "R_XTENSA_SLOT14_OP",
];

const SLOT_ALT_NAMES: [&str; 15] = [
    "R_XTENSA_SLOT0_ALT",
    "R_XTENSA_SLOT1_ALT",
    "R_XTENSA_SLOT2_ALT",
    "R_XTENSA_SLOT3_ALT",
    "R_XTENSA_SLOT4_ALT",
    "R_XTENSA_SLOT5_ALT",
    "R_XTENSA_SLOT6_ALT",
    "R_XTENSA_SLOT7_ALT",
    "R_XTENSA_SLOT8_ALT",
    "R_XTENSA_SLOT9_ALT",
    "R_XTENSA_SLOT10_ALT",
    "R_XTENSA_SLOT11_ALT",
    "R_XTENSA_SLOT12_ALT",
    "R_XTENSA_SLOT13_ALT",
    "R_XTENSA_SLOT14_ALT",
];

/// Looks up a relocation type; `None` for numbers the ABI does not define.
pub fn info(r_type: u8) -> Option<RelocInfo> {
    match r_type {
        20..=34 => {
            Some(row(r_type, SLOT_OP_NAMES[(r_type - 20) as usize], Slot { slot: r_type - 20, alternate: false }))
        }
        35..=49 => {
            Some(row(r_type, SLOT_ALT_NAMES[(r_type - 35) as usize], Slot { slot: r_type - 35, alternate: true }))
        }
        _ => FIXED.iter().copied().find(|r| r.r_type == r_type),
    }
}

/// The readelf name of a relocation type, or `R_XTENSA_<n>` if unknown.
pub fn name(r_type: u8) -> String {
    info(r_type).map_or_else(|| format!("R_XTENSA_<{r_type}>"), |i| i.name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_rows_are_contiguous() {
        assert_eq!(info(20).unwrap().name, "R_XTENSA_SLOT0_OP");
        assert_eq!(info(34).unwrap().name, "R_XTENSA_SLOT14_OP");
        assert_eq!(info(35).unwrap().name, "R_XTENSA_SLOT0_ALT");
        assert_eq!(info(49).unwrap().kind, Slot { slot: 14, alternate: true });
    }

    #[test]
    fn only_r_xtensa_32_moves_with_the_image() {
        let moving: Vec<u8> =
            (0..=255u8).filter(|&t| matches!(info(t).map(|i| i.kind), Some(Absolute { .. }))).collect();
        assert_eq!(moving, vec![R_XTENSA_32]);
        assert_eq!(name(7), "R_XTENSA_<7>");
    }
}
