//! The instruction set: one [`Opcode`] per mnemonic.

macro_rules! opcodes {
    ($( $name:ident => $mnemonic:expr, )*) => {
        /// An Xtensa instruction, named after its assembler mnemonic.
        ///
        /// Variant names are the mnemonics in camel case, with `.n` → `N`,
        /// `.s` → `S` and dots dropped (`addi.n` is `AddiN`, `mula.dd.hl.ldinc`
        /// is `MulaDdHlLdinc`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $name, )*
        }

        impl Opcode {
            /// Every opcode, in declaration order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name,)*];

            /// The assembler mnemonic, as LLVM and GNU print it.
            pub const fn mnemonic(self) -> &'static str {
                match self {
                    $( Opcode::$name => $mnemonic, )*
                }
            }
        }
    };
}

opcodes! {
    // Core ALU and moves.
    Abs => "abs",
    Add => "add",
    Addi => "addi",
    Addmi => "addmi",
    Addx2 => "addx2",
    Addx4 => "addx4",
    Addx8 => "addx8",
    And => "and",
    Extui => "extui",
    Moveqz => "moveqz",
    Movgez => "movgez",
    Movi => "movi",
    Movltz => "movltz",
    Movnez => "movnez",
    Neg => "neg",
    Or => "or",
    Sub => "sub",
    Subx2 => "subx2",
    Subx4 => "subx4",
    Subx8 => "subx8",
    Xor => "xor",
    // Shifts.
    Sll => "sll",
    Slli => "slli",
    Sra => "sra",
    Srai => "srai",
    Src => "src",
    Srl => "srl",
    Srli => "srli",
    Ssa8b => "ssa8b",
    Ssa8l => "ssa8l",
    Ssai => "ssai",
    Ssl => "ssl",
    Ssr => "ssr",
    // Loads and stores.
    L8ui => "l8ui",
    L16si => "l16si",
    L16ui => "l16ui",
    L32i => "l32i",
    L32r => "l32r",
    S8i => "s8i",
    S16i => "s16i",
    S32i => "s32i",
    L32ai => "l32ai",
    S32ri => "s32ri",
    S32c1i => "s32c1i",
    // Branches.
    Ball => "ball",
    Bany => "bany",
    Bbc => "bbc",
    Bbci => "bbci",
    Bbs => "bbs",
    Bbsi => "bbsi",
    Beq => "beq",
    Beqi => "beqi",
    Beqz => "beqz",
    Bge => "bge",
    Bgei => "bgei",
    Bgeu => "bgeu",
    Bgeui => "bgeui",
    Bgez => "bgez",
    Blt => "blt",
    Blti => "blti",
    Bltu => "bltu",
    Bltui => "bltui",
    Bltz => "bltz",
    Bnall => "bnall",
    Bne => "bne",
    Bnei => "bnei",
    Bnez => "bnez",
    Bnone => "bnone",
    // Jumps and calls.
    Call0 => "call0",
    Callx0 => "callx0",
    J => "j",
    Jx => "jx",
    Ret => "ret",
    // Windowed registers.
    Call4 => "call4",
    Call8 => "call8",
    Call12 => "call12",
    Callx4 => "callx4",
    Callx8 => "callx8",
    Callx12 => "callx12",
    Entry => "entry",
    L32e => "l32e",
    Movsp => "movsp",
    Retw => "retw",
    Rfwo => "rfwo",
    Rfwu => "rfwu",
    Rotw => "rotw",
    S32e => "s32e",
    // Code density.
    AddN => "add.n",
    AddiN => "addi.n",
    BeqzN => "beqz.n",
    BnezN => "bnez.n",
    BreakN => "break.n",
    IllN => "ill.n",
    L32iN => "l32i.n",
    MovN => "mov.n",
    MoviN => "movi.n",
    NopN => "nop.n",
    RetN => "ret.n",
    RetwN => "retw.n",
    S32iN => "s32i.n",
    // Zero-overhead loops.
    Loop => "loop",
    Loopgtz => "loopgtz",
    Loopnez => "loopnez",
    // Multiply, divide and the small arithmetic options.
    Mul16s => "mul16s",
    Mul16u => "mul16u",
    Mull => "mull",
    Mulsh => "mulsh",
    Muluh => "muluh",
    Quos => "quos",
    Quou => "quou",
    Rems => "rems",
    Remu => "remu",
    Max => "max",
    Maxu => "maxu",
    Min => "min",
    Minu => "minu",
    Sext => "sext",
    Clamps => "clamps",
    Nsa => "nsa",
    Nsau => "nsau",
    // Boolean registers.
    All4 => "all4",
    All8 => "all8",
    Andb => "andb",
    Andbc => "andbc",
    Any4 => "any4",
    Any8 => "any8",
    Bf => "bf",
    Bt => "bt",
    Movf => "movf",
    Movt => "movt",
    Orb => "orb",
    Orbc => "orbc",
    Xorb => "xorb",
    // Special and user registers.
    Rsr => "rsr",
    Wsr => "wsr",
    Xsr => "xsr",
    Rur => "rur",
    Wur => "wur",
    // Processor control, exceptions and synchronization.
    Break => "break",
    Dsync => "dsync",
    Esync => "esync",
    Excw => "excw",
    Extw => "extw",
    Ill => "ill",
    Isync => "isync",
    Memw => "memw",
    Nop => "nop",
    Rer => "rer",
    Rfde => "rfde",
    Rfe => "rfe",
    Rfi => "rfi",
    Rsil => "rsil",
    Rsync => "rsync",
    Simcall => "simcall",
    Syscall => "syscall",
    Waiti => "waiti",
    Wer => "wer",
    Lddr32P => "lddr32.p",
    Sddr32P => "sddr32.p",
    // Region protection (instruction/data TLB).
    Idtlb => "idtlb",
    Iitlb => "iitlb",
    Pdtlb => "pdtlb",
    Pitlb => "pitlb",
    Rdtlb0 => "rdtlb0",
    Rdtlb1 => "rdtlb1",
    Ritlb0 => "ritlb0",
    Ritlb1 => "ritlb1",
    Wdtlb => "wdtlb",
    Witlb => "witlb",
    // Single-precision floating point.
    AbsS => "abs.s",
    AddS => "add.s",
    AddexpS => "addexp.s",
    AddexpmS => "addexpm.s",
    CeilS => "ceil.s",
    ConstS => "const.s",
    Div0S => "div0.s",
    DivnS => "divn.s",
    FloatS => "float.s",
    FloorS => "floor.s",
    MaddS => "madd.s",
    MaddnS => "maddn.s",
    MkdadjS => "mkdadj.s",
    MksadjS => "mksadj.s",
    MovS => "mov.s",
    MoveqzS => "moveqz.s",
    MovfS => "movf.s",
    MovgezS => "movgez.s",
    MovltzS => "movltz.s",
    MovnezS => "movnez.s",
    MovtS => "movt.s",
    MsubS => "msub.s",
    MulS => "mul.s",
    NegS => "neg.s",
    Nexp01S => "nexp01.s",
    OeqS => "oeq.s",
    OleS => "ole.s",
    OltS => "olt.s",
    Recip0S => "recip0.s",
    Rfr => "rfr",
    RoundS => "round.s",
    Rsqrt0S => "rsqrt0.s",
    Sqrt0S => "sqrt0.s",
    SubS => "sub.s",
    TruncS => "trunc.s",
    UeqS => "ueq.s",
    UfloatS => "ufloat.s",
    UleS => "ule.s",
    UltS => "ult.s",
    UnS => "un.s",
    UtruncS => "utrunc.s",
    Wfr => "wfr",
    Lsi => "lsi",
    Lsip => "lsip",
    Lsiu => "lsiu",
    Lsx => "lsx",
    Lsxp => "lsxp",
    Lsxu => "lsxu",
    Ssi => "ssi",
    Ssip => "ssip",
    Ssiu => "ssiu",
    Ssx => "ssx",
    Ssxp => "ssxp",
    Ssxu => "ssxu",
    // MAC16.
    UmulAaLl => "umul.aa.ll",
    UmulAaHl => "umul.aa.hl",
    UmulAaLh => "umul.aa.lh",
    UmulAaHh => "umul.aa.hh",
    MulAaLl => "mul.aa.ll",
    MulAaHl => "mul.aa.hl",
    MulAaLh => "mul.aa.lh",
    MulAaHh => "mul.aa.hh",
    MulAdLl => "mul.ad.ll",
    MulAdHl => "mul.ad.hl",
    MulAdLh => "mul.ad.lh",
    MulAdHh => "mul.ad.hh",
    MulDaLl => "mul.da.ll",
    MulDaHl => "mul.da.hl",
    MulDaLh => "mul.da.lh",
    MulDaHh => "mul.da.hh",
    MulDdLl => "mul.dd.ll",
    MulDdHl => "mul.dd.hl",
    MulDdLh => "mul.dd.lh",
    MulDdHh => "mul.dd.hh",
    MulaAaLl => "mula.aa.ll",
    MulaAaHl => "mula.aa.hl",
    MulaAaLh => "mula.aa.lh",
    MulaAaHh => "mula.aa.hh",
    MulaAdLl => "mula.ad.ll",
    MulaAdHl => "mula.ad.hl",
    MulaAdLh => "mula.ad.lh",
    MulaAdHh => "mula.ad.hh",
    MulaDaLl => "mula.da.ll",
    MulaDaHl => "mula.da.hl",
    MulaDaLh => "mula.da.lh",
    MulaDaHh => "mula.da.hh",
    MulaDdLl => "mula.dd.ll",
    MulaDdHl => "mula.dd.hl",
    MulaDdLh => "mula.dd.lh",
    MulaDdHh => "mula.dd.hh",
    MulsAaLl => "muls.aa.ll",
    MulsAaHl => "muls.aa.hl",
    MulsAaLh => "muls.aa.lh",
    MulsAaHh => "muls.aa.hh",
    MulsAdLl => "muls.ad.ll",
    MulsAdHl => "muls.ad.hl",
    MulsAdLh => "muls.ad.lh",
    MulsAdHh => "muls.ad.hh",
    MulsDaLl => "muls.da.ll",
    MulsDaHl => "muls.da.hl",
    MulsDaLh => "muls.da.lh",
    MulsDaHh => "muls.da.hh",
    MulsDdLl => "muls.dd.ll",
    MulsDdHl => "muls.dd.hl",
    MulsDdLh => "muls.dd.lh",
    MulsDdHh => "muls.dd.hh",
    MulaDaLlLdinc => "mula.da.ll.ldinc",
    MulaDaLlLddec => "mula.da.ll.lddec",
    MulaDaHlLdinc => "mula.da.hl.ldinc",
    MulaDaHlLddec => "mula.da.hl.lddec",
    MulaDaLhLdinc => "mula.da.lh.ldinc",
    MulaDaLhLddec => "mula.da.lh.lddec",
    MulaDaHhLdinc => "mula.da.hh.ldinc",
    MulaDaHhLddec => "mula.da.hh.lddec",
    MulaDdLlLdinc => "mula.dd.ll.ldinc",
    MulaDdLlLddec => "mula.dd.ll.lddec",
    MulaDdHlLdinc => "mula.dd.hl.ldinc",
    MulaDdHlLddec => "mula.dd.hl.lddec",
    MulaDdLhLdinc => "mula.dd.lh.ldinc",
    MulaDdLhLddec => "mula.dd.lh.lddec",
    MulaDdHhLdinc => "mula.dd.hh.ldinc",
    MulaDdHhLddec => "mula.dd.hh.lddec",
    Ldinc => "ldinc",
    Lddec => "lddec",
}

impl Opcode {
    /// The fixed bits and length of this opcode's encoding.
    pub fn pattern(self) -> Option<crate::format::Pattern> {
        crate::table::spec_of(self).map(|spec| spec.pattern)
    }

    /// The options a core needs for this instruction to exist.
    pub fn requires(self) -> crate::options::FeatureSet {
        crate::table::spec_of(self).map_or(crate::options::FeatureSet::EMPTY, |spec| spec.requires)
    }

    /// True when the instruction exists on a core configured by `opts` (the
    /// post-increment and pre-update floating-point forms exclude each other).
    pub fn available(self, opts: &crate::options::IsaOptions) -> bool {
        crate::table::spec_of(self).is_some_and(|spec| spec.available(opts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics_are_unique() {
        let mut names: Vec<&str> = Opcode::ALL.iter().map(|op| op.mnemonic()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
