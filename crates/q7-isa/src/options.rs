//! Configuration options: which Xtensa ISA options a core implements and how
//! instruction lengths are decided.
//!
//! Xtensa cores are configured; an encoding is only an instruction when the
//! option that defines it is present. The feature names follow the LLVM Xtensa
//! backend (`llvm-mc -triple=xtensa -mattr=help`) so that [`IsaOptions::llvm_mattr`]
//! can drive the peer disassembler with exactly the options we decode.

use std::fmt;

macro_rules! features {
    ($( $(#[$doc:meta])* $name:ident => $llvm:expr, )*) => {
        /// One configurable Xtensa ISA option.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Feature {
            $( $(#[$doc])* $name, )*
        }

        impl Feature {
            /// Every feature, in declaration order.
            pub const ALL: &'static [Feature] = &[$(Feature::$name,)*];

            /// The LLVM `-mattr` feature names that enable this option (empty when
            /// LLVM's Xtensa backend does not model it).
            pub const fn llvm_names(self) -> &'static [&'static str] {
                match self { $(Feature::$name => $llvm,)* }
            }
        }
    };
}

features! {
    /// Code density: 16-bit `.n` instructions.
    Density => &["density"],
    /// Windowed registers: `entry`, `retw`, `call4/8/12`, `rotw`, `l32e`...
    Windowed => &["windowed"],
    /// Zero-overhead loops: `loop`, `loopnez`, `loopgtz`, LBEG/LEND/LCOUNT.
    Loop => &["loop"],
    /// 16-bit multiplies `mul16s`/`mul16u`.
    Mul16 => &["mul16"],
    /// 32-bit multiply `mull`.
    Mul32 => &["mul32"],
    /// High-half multiplies `muluh`/`mulsh`.
    Mul32High => &["mul32high"],
    /// Integer divide: `quos`, `quou`, `rems`, `remu`.
    Div32 => &["div32"],
    /// `min`, `max`, `minu`, `maxu`.
    MinMax => &["minmax"],
    /// `sext`.
    Sext => &["sext"],
    /// `nsa`, `nsau`.
    Nsa => &["nsa"],
    /// `clamps`.
    Clamps => &["clamps"],
    /// Boolean registers b0..b15 and the instructions that use them.
    Boolean => &["bool"],
    /// Single-precision floating point (coprocessor 0), FCR/FSR.
    SingleFloat => &["fp"],
    /// Double-precision floating point (the DFP option, coprocessor 0 with
    /// 64-bit f registers): `add.d`, `ldi`, `wfrd`... LLVM 22 lacks it.
    DoubleFloat => &[],
    /// `s32c1i`, SCOMPARE1, ATOMCTL.
    S32c1i => &["s32c1i"],
    /// Multiprocessor synchronization: `l32ai`, `s32ri` (not modelled by LLVM).
    MpSync => &[],
    /// THREADPTR user register.
    ThreadPtr => &["threadptr"],
    /// Exception option: `rfe`, `rfde`, `syscall`, `excw`, EPC1, EXCCAUSE...
    Exception => &["exception"],
    /// Interrupt option: `rsil`, `waiti`, INTENABLE...
    Interrupt => &["interrupt"],
    /// High-priority interrupts, levels 2..=7: `rfi`, EPCn/EPSn/EXCSAVEn.
    HighPriInterrupts => &[
        "highpriinterrupts",
        "highpriinterrupts-level3",
        "highpriinterrupts-level4",
        "highpriinterrupts-level5",
        "highpriinterrupts-level6",
        "highpriinterrupts-level7",
    ],
    /// Debug option: `break`, `break.n`, `lddr32.p`, breakpoint registers.
    Debug => &["debug"],
    /// Coprocessor context option: CPENABLE.
    Coprocessor => &["coprocessor"],
    /// MISC0..MISC3 scratch registers.
    MiscSr => &["miscsr"],
    /// Processor id register PRID.
    Prid => &["prid"],
    /// CCOUNT and CCOMPARE0..2.
    Timers => &["timers1", "timers2", "timers3"],
    /// Data cache option: MEMCTL, `dhwb`, `dii`, `dpfr`... (with line
    /// locking: `dpfl`, `dhu`, `diu`).
    DataCache => &["dcache"],
    /// Instruction cache option: `ihi`, `iii`, `ipf` (with line locking:
    /// `ipfl`, `ihu`, `iiu`). LLVM 22 has neither cache's instructions.
    InstCache => &[],
    /// Extended L32R: LITBASE.
    ExtendedL32r => &["extendedl32r"],
    /// Relocatable vectors: VECBASE.
    RelocatableVector => &["rvector"],
    /// Region protection: `ritlb0`, `witlb`, `pdtlb`...
    RegionProtection => &["regprotect"],
    /// MAC16 multiply-accumulate: ACCLO/ACCHI, m0..m3, `mula.dd.ll.ldinc`...
    Mac16 => &["mac16"],
}

/// A set of [`Feature`]s.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FeatureSet(u64);

impl FeatureSet {
    /// No options at all: the core ISA only.
    pub const EMPTY: FeatureSet = FeatureSet(0);

    /// Builds a set from a list of features.
    pub const fn of(features: &[Feature]) -> FeatureSet {
        let mut bits = 0u64;
        let mut i = 0;
        while i < features.len() {
            bits |= 1 << features[i] as u8;
            i += 1;
        }
        FeatureSet(bits)
    }

    /// Every feature this crate knows.
    pub const fn all() -> FeatureSet {
        FeatureSet::of(Feature::ALL)
    }

    pub const fn contains(self, feature: Feature) -> bool {
        self.0 & (1 << feature as u8) != 0
    }

    /// True when every feature of `other` is in `self`.
    pub const fn contains_all(self, other: FeatureSet) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn with(self, feature: Feature) -> FeatureSet {
        FeatureSet(self.0 | 1 << feature as u8)
    }

    pub const fn without(self, feature: Feature) -> FeatureSet {
        FeatureSet(self.0 & !(1 << feature as u8))
    }

    /// The features in the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.iter().copied().filter(move |f| self.contains(*f))
    }
}

impl fmt::Debug for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// How the decoder treats a core: its options and its length rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IsaOptions {
    /// The ISA options the core implements.
    pub features: FeatureSet,
    /// Scalar-LX length rule: op0 ∈ {0xe, 0xf} is a 3-byte instruction (a scalar
    /// core without FLIX), instead of the start of a wide bundle.
    pub lx_scalar: bool,
    /// Lengths of the FLIX bundle formats that start with op0 = 0xe and 0xf
    /// (index 0 and 1), when known for the core; `None` = unknown.
    pub bundle_lengths: [Option<u8>; 2],
    /// The floating-point load/store-with-update encodings (LSCI r = 8/12,
    /// LSCX op2 = 1/5) are the post-increment forms `lsip`/`ssip`/`lsxp`/`ssxp`
    /// (address = as, then as += offset) of the newer FPU, rather than the classic
    /// `lsiu`/`ssiu`/`lsxu`/`ssxu` (address = as + offset, written back).
    pub fp_post_increment: bool,
}

impl IsaOptions {
    /// Every option this crate decodes, with the newer FPU's post-increment forms.
    /// This matches `llvm-objdump --mattr=<IsaOptions::full().llvm_mattr()>`.
    pub const fn full() -> IsaOptions {
        IsaOptions {
            features: FeatureSet::all(),
            lx_scalar: false,
            bundle_lengths: [None, None],
            fp_post_increment: true,
        }
    }

    /// The scalar side of an AWS Neuron GPSIMD Vision-Q7 core (`ncore2gp`):
    /// windowed LX7 with loops, the multiply/divide options, booleans and the
    /// single-precision FPU; no MAC16. FLIX bundle lengths are not modelled.
    pub const fn vision_q7() -> IsaOptions {
        IsaOptions {
            features: FeatureSet::all().without(Feature::Mac16).without(Feature::DoubleFloat),
            lx_scalar: false,
            bundle_lengths: [None, None],
            fp_post_increment: true,
        }
    }

    /// The ESP8266 `lx106` core of GNU `xtensa-lx106-elf-*`: call0 ABI, density,
    /// 16/32-bit multiplies, NSA, exceptions, interrupts, debug.
    pub const fn lx106() -> IsaOptions {
        IsaOptions {
            features: FeatureSet::of(&[
                Feature::Density,
                Feature::Mul16,
                Feature::Mul32,
                Feature::Nsa,
                Feature::Exception,
                Feature::Interrupt,
                Feature::HighPriInterrupts,
                Feature::Debug,
                Feature::Prid,
                Feature::Timers,
                Feature::ExtendedL32r,
                Feature::RelocatableVector,
                Feature::RegionProtection,
            ]),
            lx_scalar: false,
            bundle_lengths: [None, None],
            fp_post_increment: false,
        }
    }

    /// Returns a copy with `feature` added.
    pub const fn with(mut self, feature: Feature) -> IsaOptions {
        self.features = self.features.with(feature);
        self
    }

    /// Returns a copy with `feature` removed.
    pub const fn without(mut self, feature: Feature) -> IsaOptions {
        self.features = self.features.without(feature);
        self
    }

    /// Returns a copy with the scalar-LX length rule switched on or off.
    pub const fn with_lx_scalar(mut self, on: bool) -> IsaOptions {
        self.lx_scalar = on;
        self
    }

    pub const fn has(&self, feature: Feature) -> bool {
        self.features.contains(feature)
    }

    /// The `-mattr=` value that makes LLVM's Xtensa backend decode the same
    /// options (features LLVM does not model are left out).
    pub fn llvm_mattr(&self) -> String {
        let names: Vec<String> =
            self.features.iter().flat_map(|f| f.llvm_names().iter()).map(|name| format!("+{name}")).collect();
        names.join(",")
    }
}

impl Default for IsaOptions {
    fn default() -> Self {
        IsaOptions::vision_q7()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_set_operations() {
        let set = FeatureSet::EMPTY.with(Feature::Density).with(Feature::Loop);
        assert!(set.contains(Feature::Density));
        assert!(!set.contains(Feature::Windowed));
        assert!(set.contains_all(FeatureSet::of(&[Feature::Loop])));
        assert_eq!(set.without(Feature::Loop), FeatureSet::of(&[Feature::Density]));
        assert!(Feature::ALL.len() < 64);
    }

    #[test]
    fn mattr_lists_llvm_names() {
        let opts = IsaOptions::lx106();
        let mattr = opts.llvm_mattr();
        assert!(mattr.starts_with("+density,+mul16,+mul32,+nsa"));
        assert!(!mattr.contains("windowed"));
        assert!(IsaOptions::full().llvm_mattr().contains("+highpriinterrupts-level7"));
    }
}
