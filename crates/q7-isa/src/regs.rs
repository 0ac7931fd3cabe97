//! Special registers (`rsr`/`wsr`/`xsr`) and user registers (`rur`/`wur`).
//!
//! Numbers are those of the Xtensa ISA reference. A register exists only with
//! its option; some are read-only or write-only, and number 226 is named
//! INTERRUPT when read but INTSET when written. The table mirrors what LLVM's
//! Xtensa backend accepts so both disassemblers agree register by register.

use crate::options::{Feature, FeatureSet};

/// How an instruction accesses a special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// `rsr`
    Read,
    /// `wsr`
    Write,
    /// `xsr`
    Exchange,
}

/// Which accesses a special register allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Allowed {
    ReadWriteExchange,
    /// Readable and writable, but `xsr` is reserved.
    ReadWrite,
    ReadOnly,
    WriteOnly,
}

impl Allowed {
    const fn permits(self, access: Access) -> bool {
        match (self, access) {
            (Allowed::ReadWriteExchange, _) => true,
            (Allowed::ReadWrite, Access::Exchange) => false,
            (Allowed::ReadWrite, _) => true,
            (Allowed::ReadOnly, Access::Read) => true,
            (Allowed::WriteOnly, Access::Write) => true,
            _ => false,
        }
    }
}

struct SpecialRegister {
    number: u8,
    name: &'static str,
    /// `None` for registers every core has.
    feature: Option<Feature>,
    allowed: Allowed,
}

const fn sr(number: u8, name: &'static str, feature: Option<Feature>) -> SpecialRegister {
    SpecialRegister { number, name, feature, allowed: Allowed::ReadWriteExchange }
}

const fn sr_limited(number: u8, name: &'static str, feature: Option<Feature>, allowed: Allowed) -> SpecialRegister {
    SpecialRegister { number, name, feature, allowed }
}

use Feature as F;

const SPECIAL_REGISTERS: &[SpecialRegister] = &[
    sr(0, "lbeg", Some(F::Loop)),
    sr(1, "lend", Some(F::Loop)),
    sr(2, "lcount", Some(F::Loop)),
    sr(3, "sar", None),
    sr(4, "br", Some(F::Boolean)),
    sr(5, "litbase", Some(F::ExtendedL32r)),
    sr(12, "scompare1", Some(F::S32c1i)),
    sr(16, "acclo", Some(F::Mac16)),
    sr(17, "acchi", Some(F::Mac16)),
    sr(32, "m0", Some(F::Mac16)),
    sr(33, "m1", Some(F::Mac16)),
    sr(34, "m2", Some(F::Mac16)),
    sr(35, "m3", Some(F::Mac16)),
    sr(72, "windowbase", Some(F::Windowed)),
    sr(73, "windowstart", Some(F::Windowed)),
    sr(96, "ibreakenable", Some(F::Debug)),
    sr(97, "memctl", Some(F::DataCache)),
    sr(99, "atomctl", Some(F::S32c1i)),
    sr(104, "ddr", Some(F::Debug)),
    sr(128, "ibreaka0", Some(F::Debug)),
    sr(129, "ibreaka1", Some(F::Debug)),
    sr(144, "dbreaka0", Some(F::Debug)),
    sr(145, "dbreaka1", Some(F::Debug)),
    sr(160, "dbreakc0", Some(F::Debug)),
    sr(161, "dbreakc1", Some(F::Debug)),
    sr_limited(176, "configid0", None, Allowed::ReadWrite),
    sr(177, "epc1", Some(F::Exception)),
    sr(178, "epc2", Some(F::HighPriInterrupts)),
    sr(179, "epc3", Some(F::HighPriInterrupts)),
    sr(180, "epc4", Some(F::HighPriInterrupts)),
    sr(181, "epc5", Some(F::HighPriInterrupts)),
    sr(182, "epc6", Some(F::HighPriInterrupts)),
    sr(183, "epc7", Some(F::HighPriInterrupts)),
    sr(192, "depc", Some(F::Exception)),
    sr(194, "eps2", Some(F::HighPriInterrupts)),
    sr(195, "eps3", Some(F::HighPriInterrupts)),
    sr(196, "eps4", Some(F::HighPriInterrupts)),
    sr(197, "eps5", Some(F::HighPriInterrupts)),
    sr(198, "eps6", Some(F::HighPriInterrupts)),
    sr(199, "eps7", Some(F::HighPriInterrupts)),
    sr_limited(208, "configid1", None, Allowed::ReadOnly),
    sr(209, "excsave1", Some(F::Exception)),
    sr(210, "excsave2", Some(F::HighPriInterrupts)),
    sr(211, "excsave3", Some(F::HighPriInterrupts)),
    sr(212, "excsave4", Some(F::HighPriInterrupts)),
    sr(213, "excsave5", Some(F::HighPriInterrupts)),
    sr(214, "excsave6", Some(F::HighPriInterrupts)),
    sr(215, "excsave7", Some(F::HighPriInterrupts)),
    sr(224, "cpenable", Some(F::Coprocessor)),
    // 226 reads the pending interrupts and writes (sets) them: two names.
    sr_limited(226, "interrupt", Some(F::Interrupt), Allowed::ReadWrite),
    sr_limited(227, "intclear", Some(F::Interrupt), Allowed::WriteOnly),
    sr(228, "intenable", Some(F::Interrupt)),
    sr(230, "ps", None),
    sr(231, "vecbase", Some(F::RelocatableVector)),
    sr(232, "exccause", Some(F::Exception)),
    sr_limited(233, "debugcause", Some(F::Debug), Allowed::ReadOnly),
    sr(234, "ccount", Some(F::Timers)),
    sr_limited(235, "prid", Some(F::Prid), Allowed::ReadOnly),
    sr(236, "icount", Some(F::Debug)),
    sr(237, "icountlevel", Some(F::Debug)),
    sr(238, "excvaddr", Some(F::Exception)),
    sr(240, "ccompare0", Some(F::Timers)),
    sr(241, "ccompare1", Some(F::Timers)),
    sr(242, "ccompare2", Some(F::Timers)),
    sr(244, "misc0", Some(F::MiscSr)),
    sr(245, "misc1", Some(F::MiscSr)),
    sr(246, "misc2", Some(F::MiscSr)),
    sr(247, "misc3", Some(F::MiscSr)),
];

/// Special register 226: INTERRUPT when read, INTSET when written.
pub const INTERRUPT: u8 = 226;
/// Special register 3, the shift amount register.
pub const SAR: u8 = 3;
/// Special register 224, coprocessor enable bits.
pub const CPENABLE: u8 = 224;
/// Special register 235, the processor id.
pub const PRID: u8 = 235;

fn find_special(number: u8) -> Option<&'static SpecialRegister> {
    SPECIAL_REGISTERS.iter().find(|sr| sr.number == number)
}

/// True when special register `number` exists with `features` and permits `access`.
pub fn special_register_valid(number: u8, access: Access, features: FeatureSet) -> bool {
    find_special(number).is_some_and(|sr| sr.allowed.permits(access) && sr.feature.is_none_or(|f| features.contains(f)))
}

/// True when special register `number` permits `access` on some configuration.
pub fn special_register_known(number: u8, access: Access) -> bool {
    find_special(number).is_some_and(|sr| sr.allowed.permits(access))
}

/// The lower-case assembler name of special register `number` as accessed by
/// `access`, or `None` for a number without a name.
pub fn special_register_name(number: u8, access: Access) -> Option<&'static str> {
    if number == INTERRUPT && access == Access::Write {
        return Some("intset");
    }
    find_special(number).map(|sr| sr.name)
}

/// The number of the special register called `name` (case-insensitive),
/// including the write-side alias `intset`.
pub fn special_register_number(name: &str) -> Option<u8> {
    if name.eq_ignore_ascii_case("intset") {
        return Some(INTERRUPT);
    }
    SPECIAL_REGISTERS.iter().find(|sr| sr.name.eq_ignore_ascii_case(name)).map(|sr| sr.number)
}

struct UserRegister {
    number: u8,
    name: &'static str,
    feature: Feature,
}

const USER_REGISTERS: &[UserRegister] = &[
    UserRegister { number: 231, name: "threadptr", feature: F::ThreadPtr },
    UserRegister { number: 232, name: "fcr", feature: F::SingleFloat },
    UserRegister { number: 233, name: "fsr", feature: F::SingleFloat },
];

/// User register 231, the thread pointer.
pub const THREADPTR: u8 = 231;
/// User register 232, floating-point control.
pub const FCR: u8 = 232;
/// User register 233, floating-point status.
pub const FSR: u8 = 233;

/// True when user register `number` exists with `features`.
pub fn user_register_valid(number: u8, features: FeatureSet) -> bool {
    USER_REGISTERS.iter().any(|ur| ur.number == number && features.contains(ur.feature))
}

/// True when user register `number` exists on some configuration.
pub fn user_register_known(number: u8) -> bool {
    USER_REGISTERS.iter().any(|ur| ur.number == number)
}

/// The lower-case assembler name of user register `number`.
pub fn user_register_name(number: u8) -> Option<&'static str> {
    USER_REGISTERS.iter().find(|ur| ur.number == number).map(|ur| ur.name)
}

/// The number of the user register called `name` (case-insensitive).
pub fn user_register_number(name: &str) -> Option<u8> {
    USER_REGISTERS.iter().find(|ur| ur.name.eq_ignore_ascii_case(name)).map(|ur| ur.number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupt_has_two_names() {
        assert_eq!(special_register_name(226, Access::Read), Some("interrupt"));
        assert_eq!(special_register_name(226, Access::Write), Some("intset"));
        assert_eq!(special_register_number("INTSET"), Some(226));
        assert!(!special_register_known(226, Access::Exchange));
    }

    #[test]
    fn read_only_registers_reject_writes() {
        let all = FeatureSet::all();
        assert!(special_register_valid(PRID, Access::Read, all));
        assert!(!special_register_valid(PRID, Access::Write, all));
        assert!(!special_register_valid(PRID, Access::Read, FeatureSet::EMPTY));
        assert!(special_register_valid(SAR, Access::Exchange, FeatureSet::EMPTY));
        assert!(!special_register_valid(6, Access::Read, all));
    }

    #[test]
    fn user_registers() {
        assert_eq!(user_register_name(THREADPTR), Some("threadptr"));
        assert_eq!(user_register_number("FSR"), Some(FSR));
        assert!(!user_register_valid(FCR, FeatureSet::EMPTY));
    }

    #[test]
    fn numbers_are_sorted_and_unique() {
        for pair in SPECIAL_REGISTERS.windows(2) {
            assert!(pair[0].number < pair[1].number);
        }
    }
}
