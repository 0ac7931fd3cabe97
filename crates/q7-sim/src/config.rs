//! Core configurations: which options a simulated core implements, where its
//! exception vectors are and what state it starts in.
//!
//! Two families matter: the Vision-Q7 scalar core that runs q7's op images
//! ([`CoreConfig::vision_q7`]) and QEMU's `de212` / `de233_fpu` sample cores,
//! which the differential tests mirror so the same program gives the same
//! output under both simulators.

use q7_isa::{Feature, IsaOptions};

/// Offsets of the XEA2 exception vectors from VECBASE (identical on every
/// configuration this simulator models; the window vectors are fixed by the
/// windowed-register option).
pub mod vector {
    pub const WINDOW_OVERFLOW4: u32 = 0x000;
    pub const WINDOW_UNDERFLOW4: u32 = 0x040;
    pub const WINDOW_OVERFLOW8: u32 = 0x080;
    pub const WINDOW_UNDERFLOW8: u32 = 0x0c0;
    pub const WINDOW_OVERFLOW12: u32 = 0x100;
    pub const WINDOW_UNDERFLOW12: u32 = 0x140;
    pub const KERNEL: u32 = 0x300;
    pub const USER: u32 = 0x340;
    pub const DOUBLE: u32 = 0x3c0;
}

/// Which special (`rsr`/`wsr`/`xsr`) and user (`rur`/`wur`) register
/// numbers a core has, per access, as 256-bit sets: any other access is
/// IllegalInstruction, as the core's decoder does not know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterAccess {
    pub read: [u32; 8],
    pub write: [u32; 8],
    pub exchange: [u32; 8],
    pub ur_read: [u32; 8],
    pub ur_write: [u32; 8],
}

impl RegisterAccess {
    /// Every number, every access (the op images' core: accesses are not
    /// checked).
    pub const ALL: RegisterAccess =
        RegisterAccess { read: [!0; 8], write: [!0; 8], exchange: [!0; 8], ur_read: [!0; 8], ur_write: [!0; 8] };

    /// The complement of sets of numbers that trap, as the test program
    /// tests/programs/sregs.c prints them under QEMU.
    const fn from_trapped(trapped: [[u32; 8]; 5]) -> RegisterAccess {
        let mut legal = [[0u32; 8]; 5];
        let mut i = 0;
        while i < 40 {
            legal[i / 8][i % 8] = !trapped[i / 8][i % 8];
            i += 1;
        }
        let [read, write, exchange, ur_read, ur_write] = legal;
        RegisterAccess { read, write, exchange, ur_read, ur_write }
    }

    pub fn has(set: &[u32; 8], n: u8) -> bool {
        set[usize::from(n / 32)] & 1 << (n % 32) != 0
    }
}

/// The interrupt option's configuration (XEA2): which interrupt is at
/// which level and of which type, and where each level vectors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterruptConfig {
    /// The interrupts of each level 1..=7 (index 0 unused).
    pub level_mask: [u32; 8],
    /// Interrupts INTSET may set; INTCLEAR clears these and `edge`.
    pub software: u32,
    pub edge: u32,
    /// The non-maskable interrupt(s), taken whatever INTENABLE says.
    pub nmi: u32,
    pub nmi_level: u32,
    /// The interrupt each of CCOMPARE0..2 raises.
    pub timers: [u8; 3],
    /// The level PS.EXCM masks up to.
    pub excm_level: u32,
    /// The level debug exceptions are taken at.
    pub debug_level: u32,
    /// Offsets from VECBASE of the level 2..=7 vectors (index = level).
    pub vectors: [u32; 8],
    /// Retired instructions per CCOUNT cycle: QEMU at `-icount shift=0`
    /// counts 1 ns per instruction, and the sample cores run at 40 MHz.
    pub insns_per_cycle: u64,
}

impl InterruptConfig {
    /// QEMU's de212 and de233_fpu (the same interrupt configuration: their
    /// core-isa.h XCHAL_INTLEVELn_MASK, XCHAL_INTTYPE_MASK_*, timers 6, 10
    /// and 13, EXCM level 3, debug level 6, NMI 14 at level 7).
    pub fn qemu_sample() -> InterruptConfig {
        InterruptConfig {
            level_mask: [0, 0x001f_80ff, 0x100, 0x0020_0e00, 0x1000, 0x2000, 0, 0x4000],
            software: 0x880,
            edge: 0x003f_8000,
            nmi: 0x4000,
            nmi_level: 7,
            timers: [6, 10, 13],
            excm_level: 3,
            debug_level: 6,
            vectors: [0, 0, 0x180, 0x1c0, 0x200, 0x240, 0x280, 0x2c0],
            insns_per_cycle: 25,
        }
    }
}

/// Who handles exceptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExceptionModel {
    /// The program brings its own vectors at VECBASE (bare-metal test
    /// programs, QEMU parity): every exception vectors there.
    ProgramVectors,
    /// q7 op images carry no vectors. Window overflow/underflow vector to the
    /// simulator's built-in firmware block (the `firmware` module); `movsp`'s
    /// Alloca exception is serviced natively; every other exception stops the
    /// core with a report, since there is no handler to run.
    Firmware,
}

/// Everything the ISS needs to know about one core.
#[derive(Clone, Debug)]
pub struct CoreConfig {
    /// Short name for reports (`vision-q7`, `de212`).
    pub name: &'static str,
    pub isa: IsaOptions,
    /// Physical address registers: 32 or 64.
    pub nareg: u32,
    /// VECBASE after reset.
    pub vecbase: u32,
    /// PS after reset.
    pub reset_ps: u32,
    pub exceptions: ExceptionModel,
    /// Unaligned loads and stores raise LoadStoreAlignment (else the low
    /// address bits are ignored, as the ISA allows without the option).
    pub unaligned_exception: bool,
    /// ATOMCTL after reset: the `s32c1i` policy per access type (2 bits
    /// each: bypass, write-through, write-back; 0 raises LoadStoreError).
    pub atomctl_reset: u32,
    /// The special and user registers the core has.
    pub registers: RegisterAccess,
    /// The interrupt and timer options, where modelled (QEMU's boards).
    pub interrupts: Option<InterruptConfig>,
    /// Region protection with an identity map (de212): the TLB
    /// instructions read and write each 512 MiB region's attribute. Without
    /// it they are not modelled.
    pub region_protection: bool,
    /// The MMU option's TLBs (de233_fpu): the TLB instructions work on
    /// them; translation is not applied (see `cpu::mmu`).
    pub mmu: bool,
}

impl CoreConfig {
    /// The scalar side of a Vision-Q7 GPSIMD core as q7's op images use it:
    /// the q7-isa Vision-Q7 options, 64 physical registers, vectors at iram0
    /// (0x0) served by the built-in firmware, and the start-up state of
    /// sdk/ABI.md (PS.WOE = 1, PS.UM = 1, EXCM = 0, INTLEVEL = 0).
    pub fn vision_q7() -> CoreConfig {
        CoreConfig {
            name: "vision-q7",
            isa: IsaOptions::vision_q7(),
            nareg: 64,
            vecbase: q7_target::memmap::VECTORS_BASE,
            reset_ps: crate::ps::WOE | crate::ps::UM,
            exceptions: ExceptionModel::Firmware,
            unaligned_exception: true,
            // INFERRED: op images' atomics work on every memory they use.
            atomctl_reset: 0x15,
            registers: RegisterAccess::ALL,
            interrupts: None,
            region_protection: false,
            mmu: false,
        }
    }

    /// QEMU's `de212` sample core: windowed with 32 physical registers, no
    /// FPU, no booleans, no MUL32HIGH, VECBASE 0x60000000, reset PS 0x1f.
    pub fn de212() -> CoreConfig {
        let isa = IsaOptions::vision_q7()
            .without(Feature::SingleFloat)
            .without(Feature::Boolean)
            .without(Feature::Mul32High)
            .without(Feature::ThreadPtr)
            .without(Feature::Coprocessor)
            .with(Feature::Mac16);
        CoreConfig {
            name: "de212",
            isa,
            nareg: 32,
            vecbase: 0x6000_0000,
            reset_ps: 0x1f,
            exceptions: ExceptionModel::ProgramVectors,
            unaligned_exception: true,
            // QEMU's reset value for cores with ATOMCTL: `s32c1i` to bypass
            // memory (all of this board's memory) raises LoadStoreError.
            atomctl_reset: 0x28,
            // QEMU's de212 (sregs.c's "rsr ... wur" lines under QEMU 7.2).
            registers: RegisterAccess::from_trapped([
                [0xfffceff0, 0xfffffff0, 0xfffffcff, 0xfffffef4, 0xfffcfffc, 0xff00fffc, 0xff00ff02, 0xffc8802b],
                [0xfffceff0, 0xfffffff0, 0xfffffcff, 0xfffffef4, 0xfffcfffc, 0xff01fffc, 0xff01ff02, 0xffc88a23],
                [0xfffceff0, 0xfffffff0, 0xfffffcff, 0xfffffef4, 0xfffcfffc, 0xff01fffc, 0xff01ff02, 0xffc88a2f],
                [!0, !0, !0, !0, !0, !0, !0, 0xffffffbf],
                [!0, !0, !0, !0, !0, !0, !0, 0xffffffbf],
            ]),
            interrupts: Some(InterruptConfig::qemu_sample()),
            region_protection: true,
            mmu: false,
        }
    }

    /// QEMU's `de233_fpu` sample core: like de212 plus the LX7 FPU
    /// (coprocessor 0, with the post-increment load/store forms), booleans and
    /// THREADPTR; RAM and vectors low (VECBASE 0x2000).
    pub fn de233_fpu() -> CoreConfig {
        CoreConfig {
            name: "de233_fpu",
            isa: IsaOptions::vision_q7().without(Feature::Mul32High).with(Feature::Mac16).with(Feature::DoubleFloat),
            nareg: 32,
            vecbase: 0x2000,
            reset_ps: 0x1f,
            exceptions: ExceptionModel::ProgramVectors,
            unaligned_exception: true,
            // QEMU's reset value for cores with ATOMCTL: `s32c1i` to bypass
            // memory (all of this board's memory) raises LoadStoreError.
            atomctl_reset: 0x28,
            // QEMU's de233_fpu (sregs.c's "rsr ... wur" lines under QEMU 7.2).
            registers: RegisterAccess::from_trapped([
                [0xfffcefe0, 0xfffffff0, 0x63f7fcff, 0xfffffef4, 0xfffcfffc, 0xff00fffc, 0xff00ff02, 0xffc8802a],
                [0xfffcefe0, 0xfffffff0, 0x63f7fcff, 0xfffffef4, 0xfffcfffc, 0xff01fffc, 0xff01ff02, 0xffc88a22],
                [0xfffcefe0, 0xfffffff0, 0x63f7fcff, 0xfffffef4, 0xfffcfffc, 0xff01fffc, 0xff01ff02, 0xffc88a2e],
                [!0, !0, !0, !0, !0, !0, !0, 0xfffffc3f],
                [!0, !0, !0, !0, !0, !0, !0, 0xfffffc3f],
            ]),
            interrupts: Some(InterruptConfig::qemu_sample()),
            region_protection: false,
            mmu: true,
        }
    }

    pub fn has(&self, feature: Feature) -> bool {
        self.isa.has(feature)
    }
}
