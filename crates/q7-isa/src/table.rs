//! The encoding table: for every opcode, its fixed bits, its operand fields in
//! assembler order, and the options it needs.
//!
//! Rows follow the opcode maps of the Xtensa ISA reference, grouped by major
//! opcode (op0) and then by the sub-opcode fields that select them.

use std::sync::OnceLock;

use crate::field::Field::{self, *};
use crate::format::Pattern;
use crate::insn::{Insn, Operand, Operands};
use crate::opcode::Opcode::{self, *};
use crate::options::{Feature, FeatureSet, IsaOptions};
use crate::regs::Access;

/// Which spelling of the floating-point update loads/stores a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FpForm {
    /// Not one of the two-spelling encodings.
    Only,
    /// `lsiu`-style: address = as + offset, written back.
    PreUpdate,
    /// `lsip`-style: address = as, then as += offset.
    PostIncrement,
}

/// One row of the table.
#[derive(Debug)]
pub(crate) struct Spec {
    pub op: Opcode,
    pub pattern: Pattern,
    pub fields: &'static [Field],
    pub requires: FeatureSet,
    pub fp_form: FpForm,
}

impl Spec {
    /// True when the row is an instruction on a core configured by `opts`.
    pub(crate) fn available(&self, opts: &IsaOptions) -> bool {
        opts.features.contains_all(self.requires)
            && match self.fp_form {
                FpForm::Only => true,
                FpForm::PreUpdate => !opts.fp_post_increment,
                FpForm::PostIncrement => opts.fp_post_increment,
            }
    }
}

const fn spec(op: Opcode, pattern: Pattern, fields: &'static [Field], requires: &[Feature]) -> Spec {
    Spec { op, pattern, fields, requires: FeatureSet::of(requires), fp_form: FpForm::Only }
}

const fn fp_update(op: Opcode, pattern: Pattern, fields: &'static [Field], form: FpForm) -> Spec {
    Spec { op, pattern, fields, requires: FeatureSet::of(&[Feature::SingleFloat]), fp_form: form }
}

const CORE: &[Feature] = &[];
const WINDOWED: &[Feature] = &[Feature::Windowed];
const BOOLEAN: &[Feature] = &[Feature::Boolean];
const FP: &[Feature] = &[Feature::SingleFloat];
const MAC16: &[Feature] = &[Feature::Mac16];
const DFP: &[Feature] = &[Feature::DoubleFloat];
const DENSITY: &[Feature] = &[Feature::Density];
const DCACHE: &[Feature] = &[Feature::DataCache];
const ICACHE: &[Feature] = &[Feature::InstCache];

const RRR: &[Field] = &[ArR, ArS, ArT];
const RR_T: &[Field] = &[ArR, ArT];
const AR_S: &[Field] = &[ArS];
const T_S: &[Field] = &[ArT, ArS];
const FFF: &[Field] = &[FrR, FrS, FrT];
const FF: &[Field] = &[FrR, FrS];
const BBB: &[Field] = &[BrR, BrS, BrT];
const BRANCH_RR: &[Field] = &[ArS, ArT, Branch8];
const NONE: &[Field] = &[];
const CACHE_LINE: &[Field] = &[ArS, Uimm8x4];
const CACHE_LOCK: &[Field] = &[ArS, Uimm4x16];

/// QRST group (op0 = 0) with the given op1 and op2.
const fn qrst(op1: u32, op2: u32) -> Pattern {
    Pattern::wide(0).op1(op1).op2(op2)
}
/// ST0 (op0 = 0, op1 = 0, op2 = 0) selected by r.
const fn st0(r: u32) -> Pattern {
    qrst(0, 0).r(r)
}
/// ST1 (op0 = 0, op1 = 0, op2 = 4) selected by r.
const fn st1(r: u32) -> Pattern {
    qrst(0, 4).r(r)
}
/// TLB group (op0 = 0, op1 = 0, op2 = 5) selected by r.
const fn tlb(r: u32) -> Pattern {
    qrst(0, 5).r(r)
}
/// FP1OP group (op0 = 0, op1 = 0xa, op2 = 0xf) selected by t.
const fn fp1op(t: u32) -> Pattern {
    qrst(0xa, 0xf).t(t)
}
/// DFP1OP group (op0 = 0, op1 = 0xf, op2 = 0xf) selected by t.
const fn dfp1op(t: u32) -> Pattern {
    qrst(0xf, 0xf).t(t)
}
/// LSAI group (op0 = 2) selected by r.
const fn lsai(r: u32) -> Pattern {
    Pattern::wide(2).r(r)
}
/// CACHE group (op0 = 2, r = 7) selected by t: RRI8, offset imm8 × 4.
const fn cache(t: u32) -> Pattern {
    lsai(7).t(t)
}
/// DCE (t = 8) and ICE (t = 13) in CACHE, selected by op1: RRI4, offset
/// bits 20..24 × 16.
const fn cache_lock(t: u32, op1: u32) -> Pattern {
    lsai(7).t(t).op1(op1)
}
/// B group (op0 = 7) selected by r.
const fn branch(r: u32) -> Pattern {
    Pattern::wide(7).r(r)
}
/// ST3 group (op0 = 0xd, r = 0xf) selected by t; s must be zero unless it is an operand.
const fn st3(t: u32) -> Pattern {
    Pattern::narrow(0xd).r(0xf).t(t)
}

// MAC16 (op0 = 4). op1[1:0] picks the halves (ll, hl, lh, hh), op1[3:2] the
// operation (umul, mul, mula, muls), op2 the operand sources.
const fn mac_aa(op: Opcode, op1: u32) -> Spec {
    spec(op, Pattern::wide(4).op2(7).op1(op1).r(0), &[ArS, ArT], MAC16)
}
const fn mac_ad(op: Opcode, op1: u32) -> Spec {
    spec(op, Pattern::wide(4).op2(3).op1(op1).r(0).field(4, 2, 0).field(7, 1, 0), &[ArS, MacY], MAC16)
}
const fn mac_da(op: Opcode, op1: u32) -> Spec {
    spec(op, Pattern::wide(4).op2(6).op1(op1).s(0).field(12, 2, 0).field(15, 1, 0), &[MacX, ArT], MAC16)
}
const fn mac_dd(op: Opcode, op1: u32) -> Spec {
    let pattern = Pattern::wide(4).op2(2).op1(op1).s(0).field(12, 2, 0).field(15, 1, 0);
    spec(op, pattern.field(4, 2, 0).field(7, 1, 0), &[MacX, MacY], MAC16)
}
const fn mac_da_load(op: Opcode, op1: u32, decrement: bool) -> Spec {
    let op2 = if decrement { 5 } else { 4 };
    spec(op, Pattern::wide(4).op2(op2).op1(op1).field(15, 1, 0), &[MacW, ArS, MacX, ArT], MAC16)
}
const fn mac_dd_load(op: Opcode, op1: u32, decrement: bool) -> Spec {
    let op2 = if decrement { 1 } else { 0 };
    let pattern = Pattern::wide(4).op2(op2).op1(op1).field(15, 1, 0).field(4, 2, 0).field(7, 1, 0);
    spec(op, pattern, &[MacW, ArS, MacX, MacY], MAC16)
}

pub(crate) static TABLE: &[Spec] = &[
    // ---- op0 = 0: QRST ----
    // ST0 r = 0: SNM0, selected by t = m:n.
    spec(Ill, st0(0).s(0).t(0), NONE, CORE),
    spec(Ret, st0(0).s(0).t(8), NONE, CORE),
    spec(Retw, st0(0).s(0).t(9), NONE, WINDOWED),
    spec(Jx, st0(0).t(0xa), AR_S, CORE),
    spec(Callx0, st0(0).t(0xc), AR_S, CORE),
    spec(Callx4, st0(0).t(0xd), AR_S, WINDOWED),
    spec(Callx8, st0(0).t(0xe), AR_S, WINDOWED),
    spec(Callx12, st0(0).t(0xf), AR_S, WINDOWED),
    spec(Movsp, st0(1), T_S, WINDOWED),
    // ST0 r = 2: SYNC, selected by t.
    spec(Isync, st0(2).s(0).t(0), NONE, CORE),
    spec(Rsync, st0(2).s(0).t(1), NONE, CORE),
    spec(Esync, st0(2).s(0).t(2), NONE, CORE),
    spec(Dsync, st0(2).s(0).t(3), NONE, CORE),
    spec(Excw, st0(2).s(0).t(8), NONE, &[Feature::Exception]),
    spec(Memw, st0(2).s(0).t(0xc), NONE, CORE),
    spec(Extw, st0(2).s(0).t(0xd), NONE, CORE),
    spec(Nop, st0(2).s(0).t(0xf), NONE, CORE),
    // ST0 r = 3: RFEI; t = 0 is RFET selected by s.
    spec(Rfe, st0(3).t(0).s(0), NONE, &[Feature::Exception]),
    spec(Rfde, st0(3).t(0).s(2), NONE, &[Feature::Exception]),
    spec(Rfwo, st0(3).t(0).s(4), NONE, WINDOWED),
    spec(Rfwu, st0(3).t(0).s(5), NONE, WINDOWED),
    spec(Rfi, st0(3).t(1), &[Uimm4S], &[Feature::HighPriInterrupts]),
    spec(Break, st0(4), &[Uimm4S, Uimm4T], &[Feature::Debug]),
    spec(Syscall, st0(5).s(0).t(0), NONE, &[Feature::Exception]),
    // The simulator-call instruction of the Tensilica ISS and QEMU semihosting.
    spec(Simcall, st0(5).s(1).t(0), NONE, CORE),
    spec(Rsil, st0(6), &[ArT, Uimm4S], &[Feature::Interrupt]),
    spec(Waiti, st0(7).t(0), &[Uimm4S], &[Feature::Interrupt]),
    spec(Lddr32P, st0(7).t(0xe), AR_S, &[Feature::Debug]),
    spec(Sddr32P, st0(7).t(0xf), AR_S, &[Feature::Debug]),
    spec(Any4, st0(8), &[BrT, BrS], BOOLEAN),
    spec(All4, st0(9), &[BrT, BrS], BOOLEAN),
    spec(Any8, st0(0xa), &[BrT, BrS], BOOLEAN),
    spec(All8, st0(0xb), &[BrT, BrS], BOOLEAN),
    // RST0, selected by op2.
    spec(And, qrst(0, 1), RRR, CORE),
    spec(Or, qrst(0, 2), RRR, CORE),
    spec(Xor, qrst(0, 3), RRR, CORE),
    spec(Ssr, st1(0).t(0), AR_S, CORE),
    spec(Ssl, st1(1).t(0), AR_S, CORE),
    spec(Ssa8l, st1(2).t(0), AR_S, CORE),
    spec(Ssa8b, st1(3).t(0), AR_S, CORE),
    spec(Ssai, st1(4).field(5, 3, 0), &[SsaiAmount], CORE),
    spec(Rer, st1(6), T_S, CORE),
    spec(Wer, st1(7), T_S, CORE),
    spec(Rotw, st1(8).s(0), &[RotwAmount], WINDOWED),
    spec(Nsa, st1(0xe), T_S, &[Feature::Nsa]),
    spec(Nsau, st1(0xf), T_S, &[Feature::Nsa]),
    spec(Ritlb0, tlb(3), T_S, &[Feature::RegionProtection]),
    spec(Iitlb, tlb(4).t(0), AR_S, &[Feature::RegionProtection]),
    spec(Pitlb, tlb(5), T_S, &[Feature::RegionProtection]),
    spec(Witlb, tlb(6), T_S, &[Feature::RegionProtection]),
    spec(Ritlb1, tlb(7), T_S, &[Feature::RegionProtection]),
    spec(Rdtlb0, tlb(0xb), T_S, &[Feature::RegionProtection]),
    spec(Idtlb, tlb(0xc).t(0), AR_S, &[Feature::RegionProtection]),
    spec(Pdtlb, tlb(0xd), T_S, &[Feature::RegionProtection]),
    spec(Wdtlb, tlb(0xe), T_S, &[Feature::RegionProtection]),
    spec(Rdtlb1, tlb(0xf), T_S, &[Feature::RegionProtection]),
    spec(Neg, qrst(0, 6).s(0), RR_T, CORE),
    spec(Abs, qrst(0, 6).s(1), RR_T, CORE),
    spec(Add, qrst(0, 8), RRR, CORE),
    spec(Addx2, qrst(0, 9), RRR, CORE),
    spec(Addx4, qrst(0, 0xa), RRR, CORE),
    spec(Addx8, qrst(0, 0xb), RRR, CORE),
    spec(Sub, qrst(0, 0xc), RRR, CORE),
    spec(Subx2, qrst(0, 0xd), RRR, CORE),
    spec(Subx4, qrst(0, 0xe), RRR, CORE),
    spec(Subx8, qrst(0, 0xf), RRR, CORE),
    // RST1, selected by op2; op2 bit 0 of slli/srai is shift-amount bit 4.
    spec(Slli, qrst(1, 0).release(1 << 20), &[ArR, ArS, SlliAmount], CORE),
    spec(Srai, qrst(1, 2).release(1 << 20), &[ArR, ArT, SraiAmount], CORE),
    spec(Srli, qrst(1, 4), &[ArR, ArT, Uimm4S], CORE),
    spec(Xsr, qrst(1, 6), &[ArT, Sr(Access::Exchange)], CORE),
    spec(Src, qrst(1, 8), RRR, CORE),
    spec(Srl, qrst(1, 9).s(0), RR_T, CORE),
    spec(Sll, qrst(1, 0xa).t(0), &[ArR, ArS], CORE),
    spec(Sra, qrst(1, 0xb).s(0), RR_T, CORE),
    spec(Mul16u, qrst(1, 0xc), RRR, &[Feature::Mul16]),
    spec(Mul16s, qrst(1, 0xd), RRR, &[Feature::Mul16]),
    // RST2.
    spec(Andb, qrst(2, 0), BBB, BOOLEAN),
    spec(Andbc, qrst(2, 1), BBB, BOOLEAN),
    spec(Orb, qrst(2, 2), BBB, BOOLEAN),
    spec(Orbc, qrst(2, 3), BBB, BOOLEAN),
    spec(Xorb, qrst(2, 4), BBB, BOOLEAN),
    spec(Mull, qrst(2, 8), RRR, &[Feature::Mul32]),
    spec(Muluh, qrst(2, 0xa), RRR, &[Feature::Mul32High]),
    spec(Mulsh, qrst(2, 0xb), RRR, &[Feature::Mul32High]),
    spec(Quou, qrst(2, 0xc), RRR, &[Feature::Div32]),
    spec(Quos, qrst(2, 0xd), RRR, &[Feature::Div32]),
    spec(Remu, qrst(2, 0xe), RRR, &[Feature::Div32]),
    spec(Rems, qrst(2, 0xf), RRR, &[Feature::Div32]),
    // RST3.
    spec(Rsr, qrst(3, 0), &[ArT, Sr(Access::Read)], CORE),
    spec(Wsr, qrst(3, 1), &[ArT, Sr(Access::Write)], CORE),
    spec(Sext, qrst(3, 2), &[ArR, ArS, SextBits], &[Feature::Sext]),
    spec(Clamps, qrst(3, 3), &[ArR, ArS, SextBits], &[Feature::Clamps]),
    spec(Min, qrst(3, 4), RRR, &[Feature::MinMax]),
    spec(Max, qrst(3, 5), RRR, &[Feature::MinMax]),
    spec(Minu, qrst(3, 6), RRR, &[Feature::MinMax]),
    spec(Maxu, qrst(3, 7), RRR, &[Feature::MinMax]),
    spec(Moveqz, qrst(3, 8), RRR, CORE),
    spec(Movnez, qrst(3, 9), RRR, CORE),
    spec(Movltz, qrst(3, 0xa), RRR, CORE),
    spec(Movgez, qrst(3, 0xb), RRR, CORE),
    spec(Movf, qrst(3, 0xc), &[ArR, ArS, BrT], BOOLEAN),
    spec(Movt, qrst(3, 0xd), &[ArR, ArS, BrT], BOOLEAN),
    spec(Rur, qrst(3, 0xe), &[ArR, UrRead], CORE),
    spec(Wur, qrst(3, 0xf), &[ArT, UrWrite], CORE),
    // EXTUI: op1 = 010x, op1 bit 0 is shift bit 4, op2 is the width - 1.
    spec(Extui, Pattern::wide(0).field(17, 3, 0b010), &[ArR, ArT, ExtuiShift, ExtuiWidth], CORE),
    // LSCX (op1 = 8).
    spec(Lsx, qrst(8, 0), &[FrR, ArS, ArT], FP),
    fp_update(Lsxu, qrst(8, 1), &[FrR, ArS, ArT], FpForm::PreUpdate),
    fp_update(Lsxp, qrst(8, 1), &[FrR, ArS, ArT], FpForm::PostIncrement),
    spec(Ssx, qrst(8, 4), &[FrR, ArS, ArT], FP),
    fp_update(Ssxu, qrst(8, 5), &[FrR, ArS, ArT], FpForm::PreUpdate),
    fp_update(Ssxp, qrst(8, 5), &[FrR, ArS, ArT], FpForm::PostIncrement),
    spec(Ldx, qrst(8, 2), &[FrR, ArS, ArT], DFP),
    spec(Ldxp, qrst(8, 3), &[FrR, ArS, ArT], DFP),
    spec(Sdx, qrst(8, 6), &[FrR, ArS, ArT], DFP),
    spec(Sdxp, qrst(8, 7), &[FrR, ArS, ArT], DFP),
    // LSC4 (op1 = 9).
    spec(L32e, qrst(9, 0), &[ArT, ArS, L32eOffset], WINDOWED),
    spec(S32e, qrst(9, 4), &[ArT, ArS, L32eOffset], WINDOWED),
    // FP0 (op1 = 0xa).
    spec(AddS, qrst(0xa, 0), FFF, FP),
    spec(SubS, qrst(0xa, 1), FFF, FP),
    spec(MulS, qrst(0xa, 2), FFF, FP),
    spec(MaddS, qrst(0xa, 4), FFF, FP),
    spec(MsubS, qrst(0xa, 5), FFF, FP),
    spec(MaddnS, qrst(0xa, 6), FFF, FP),
    spec(DivnS, qrst(0xa, 7), FFF, FP),
    spec(RoundS, qrst(0xa, 8), &[ArR, FrS, Uimm4T], FP),
    spec(TruncS, qrst(0xa, 9), &[ArR, FrS, Uimm4T], FP),
    spec(FloorS, qrst(0xa, 0xa), &[ArR, FrS, Uimm4T], FP),
    spec(CeilS, qrst(0xa, 0xb), &[ArR, FrS, Uimm4T], FP),
    spec(FloatS, qrst(0xa, 0xc), &[FrR, ArS, Uimm4T], FP),
    spec(UfloatS, qrst(0xa, 0xd), &[FrR, ArS, Uimm4T], FP),
    spec(UtruncS, qrst(0xa, 0xe), &[ArR, FrS, Uimm4T], FP),
    spec(MovS, fp1op(0), FF, FP),
    spec(AbsS, fp1op(1), FF, FP),
    spec(CvtdS, fp1op(2), FF, DFP),
    spec(ConstS, fp1op(3), &[FrR, Uimm4S], FP),
    spec(Rfr, fp1op(4), &[ArR, FrS], FP),
    spec(Wfr, fp1op(5), &[FrR, ArS], FP),
    spec(NegS, fp1op(6), FF, FP),
    spec(Div0S, fp1op(7), FF, FP),
    spec(Recip0S, fp1op(8), FF, FP),
    spec(Sqrt0S, fp1op(9), FF, FP),
    spec(Rsqrt0S, fp1op(0xa), FF, FP),
    spec(Nexp01S, fp1op(0xb), FF, FP),
    spec(MksadjS, fp1op(0xc), FF, FP),
    spec(MkdadjS, fp1op(0xd), FF, FP),
    spec(AddexpS, fp1op(0xe), FF, FP),
    spec(AddexpmS, fp1op(0xf), FF, FP),
    // FP1 (op1 = 0xb).
    spec(UnS, qrst(0xb, 1), &[BrR, FrS, FrT], FP),
    spec(OeqS, qrst(0xb, 2), &[BrR, FrS, FrT], FP),
    spec(UeqS, qrst(0xb, 3), &[BrR, FrS, FrT], FP),
    spec(OltS, qrst(0xb, 4), &[BrR, FrS, FrT], FP),
    spec(UltS, qrst(0xb, 5), &[BrR, FrS, FrT], FP),
    spec(OleS, qrst(0xb, 6), &[BrR, FrS, FrT], FP),
    spec(UleS, qrst(0xb, 7), &[BrR, FrS, FrT], FP),
    spec(MoveqzS, qrst(0xb, 8), &[FrR, FrS, ArT], FP),
    spec(MovnezS, qrst(0xb, 9), &[FrR, FrS, ArT], FP),
    spec(MovltzS, qrst(0xb, 0xa), &[FrR, FrS, ArT], FP),
    spec(MovgezS, qrst(0xb, 0xb), &[FrR, FrS, ArT], FP),
    spec(MovfS, qrst(0xb, 0xc), &[FrR, FrS, BrT], &[Feature::SingleFloat, Feature::Boolean]),
    spec(MovtS, qrst(0xb, 0xd), &[FrR, FrS, BrT], &[Feature::SingleFloat, Feature::Boolean]),
    // DFP1 (op1 = 0xe): compares and wfrd (QEMU's de233_fpu tables).
    spec(UnD, qrst(0xe, 1), &[BrR, FrS, FrT], DFP),
    spec(OeqD, qrst(0xe, 2), &[BrR, FrS, FrT], DFP),
    spec(UeqD, qrst(0xe, 3), &[BrR, FrS, FrT], DFP),
    spec(OltD, qrst(0xe, 4), &[BrR, FrS, FrT], DFP),
    spec(UltD, qrst(0xe, 5), &[BrR, FrS, FrT], DFP),
    spec(OleD, qrst(0xe, 6), &[BrR, FrS, FrT], DFP),
    spec(UleD, qrst(0xe, 7), &[BrR, FrS, FrT], DFP),
    spec(Wfrd, qrst(0xe, 8), &[FrR, ArS, ArT], DFP),
    // DFP0 (op1 = 0xf), laid out as FP0.
    spec(AddD, qrst(0xf, 0), FFF, DFP),
    spec(SubD, qrst(0xf, 1), FFF, DFP),
    spec(MulD, qrst(0xf, 2), FFF, DFP),
    spec(MaddD, qrst(0xf, 4), FFF, DFP),
    spec(MsubD, qrst(0xf, 5), FFF, DFP),
    spec(MaddnD, qrst(0xf, 6), FFF, DFP),
    spec(DivnD, qrst(0xf, 7), FFF, DFP),
    spec(RoundD, qrst(0xf, 8), &[ArR, FrS, Uimm4T], DFP),
    spec(TruncD, qrst(0xf, 9), &[ArR, FrS, Uimm4T], DFP),
    spec(FloorD, qrst(0xf, 0xa), &[ArR, FrS, Uimm4T], DFP),
    spec(CeilD, qrst(0xf, 0xb), &[ArR, FrS, Uimm4T], DFP),
    spec(FloatD, qrst(0xf, 0xc), &[FrR, ArS, Uimm4T], DFP),
    spec(UfloatD, qrst(0xf, 0xd), &[FrR, ArS, Uimm4T], DFP),
    spec(UtruncD, qrst(0xf, 0xe), &[ArR, FrS, Uimm4T], DFP),
    spec(MovD, dfp1op(0), FF, DFP),
    spec(AbsD, dfp1op(1), FF, DFP),
    spec(CvtsD, dfp1op(2), FF, DFP),
    spec(ConstD, dfp1op(3), &[FrR, Uimm4S], DFP),
    spec(Rfrd, dfp1op(4), &[ArR, FrS], DFP),
    spec(NegD, dfp1op(6), FF, DFP),
    spec(Div0D, dfp1op(7), FF, DFP),
    spec(Recip0D, dfp1op(8), FF, DFP),
    spec(Sqrt0D, dfp1op(9), FF, DFP),
    spec(Rsqrt0D, dfp1op(0xa), FF, DFP),
    spec(Nexp01D, dfp1op(0xb), FF, DFP),
    spec(MksadjD, dfp1op(0xc), FF, DFP),
    spec(MkdadjD, dfp1op(0xd), FF, DFP),
    spec(AddexpD, dfp1op(0xe), FF, DFP),
    spec(AddexpmD, dfp1op(0xf), FF, DFP),
    // ---- op0 = 1: L32R ----
    spec(L32r, Pattern::wide(1), &[ArT, L32rTarget], CORE),
    // ---- op0 = 2: LSAI, selected by r ----
    spec(L8ui, lsai(0), &[ArT, ArS, Uimm8x1], CORE),
    spec(L16ui, lsai(1), &[ArT, ArS, Uimm8x2], CORE),
    spec(L32i, lsai(2), &[ArT, ArS, Uimm8x4], CORE),
    spec(S8i, lsai(4), &[ArT, ArS, Uimm8x1], CORE),
    spec(S16i, lsai(5), &[ArT, ArS, Uimm8x2], CORE),
    spec(S32i, lsai(6), &[ArT, ArS, Uimm8x4], CORE),
    spec(L16si, lsai(9), &[ArT, ArS, Uimm8x2], CORE),
    spec(Movi, lsai(0xa), &[ArT, Simm12], CORE),
    spec(L32ai, lsai(0xb), &[ArT, ArS, Uimm8x4], &[Feature::MpSync]),
    spec(Addi, lsai(0xc), &[ArT, ArS, Simm8], CORE),
    spec(Addmi, lsai(0xd), &[ArT, ArS, Simm8Shl8], CORE),
    spec(S32c1i, lsai(0xe), &[ArT, ArS, Uimm8x4], &[Feature::S32c1i]),
    spec(S32ri, lsai(0xf), &[ArT, ArS, Uimm8x4], &[Feature::MpSync]),
    spec(Dpfr, cache(0), CACHE_LINE, DCACHE),
    spec(Dpfw, cache(1), CACHE_LINE, DCACHE),
    spec(Dpfro, cache(2), CACHE_LINE, DCACHE),
    spec(Dpfwo, cache(3), CACHE_LINE, DCACHE),
    spec(Dhwb, cache(4), CACHE_LINE, DCACHE),
    spec(Dhwbi, cache(5), CACHE_LINE, DCACHE),
    spec(Dhi, cache(6), CACHE_LINE, DCACHE),
    spec(Dii, cache(7), CACHE_LINE, DCACHE),
    spec(Dpfl, cache_lock(8, 0), CACHE_LOCK, DCACHE),
    spec(Dhu, cache_lock(8, 2), CACHE_LOCK, DCACHE),
    spec(Diu, cache_lock(8, 3), CACHE_LOCK, DCACHE),
    spec(Diwb, cache_lock(8, 4), CACHE_LOCK, DCACHE),
    spec(Diwbi, cache_lock(8, 5), CACHE_LOCK, DCACHE),
    spec(Ipf, cache(0xc), CACHE_LINE, ICACHE),
    spec(Ipfl, cache_lock(0xd, 0), CACHE_LOCK, ICACHE),
    spec(Ihu, cache_lock(0xd, 2), CACHE_LOCK, ICACHE),
    spec(Iiu, cache_lock(0xd, 3), CACHE_LOCK, ICACHE),
    spec(Ihi, cache(0xe), CACHE_LINE, ICACHE),
    spec(Iii, cache(0xf), CACHE_LINE, ICACHE),
    // ---- op0 = 3: LSCI, selected by r ----
    spec(Lsi, Pattern::wide(3).r(0), &[FrT, ArS, Uimm8x4], FP),
    spec(Ssi, Pattern::wide(3).r(4), &[FrT, ArS, Uimm8x4], FP),
    spec(Ldi, Pattern::wide(3).r(1), &[FrT, ArS, Uimm8x8], DFP),
    spec(Sdi, Pattern::wide(3).r(5), &[FrT, ArS, Uimm8x8], DFP),
    spec(Ldip, Pattern::wide(3).r(9), &[FrT, ArS, Uimm8x8], DFP),
    spec(Sdip, Pattern::wide(3).r(0xd), &[FrT, ArS, Uimm8x8], DFP),
    fp_update(Lsiu, Pattern::wide(3).r(8), &[FrT, ArS, Uimm8x4], FpForm::PreUpdate),
    fp_update(Lsip, Pattern::wide(3).r(8), &[FrT, ArS, Uimm8x4], FpForm::PostIncrement),
    fp_update(Ssiu, Pattern::wide(3).r(0xc), &[FrT, ArS, Uimm8x4], FpForm::PreUpdate),
    fp_update(Ssip, Pattern::wide(3).r(0xc), &[FrT, ArS, Uimm8x4], FpForm::PostIncrement),
    // ---- op0 = 4: MAC16 ----
    mac_aa(UmulAaLl, 0),
    mac_aa(UmulAaHl, 1),
    mac_aa(UmulAaLh, 2),
    mac_aa(UmulAaHh, 3),
    mac_aa(MulAaLl, 4),
    mac_aa(MulAaHl, 5),
    mac_aa(MulAaLh, 6),
    mac_aa(MulAaHh, 7),
    mac_ad(MulAdLl, 4),
    mac_ad(MulAdHl, 5),
    mac_ad(MulAdLh, 6),
    mac_ad(MulAdHh, 7),
    mac_da(MulDaLl, 4),
    mac_da(MulDaHl, 5),
    mac_da(MulDaLh, 6),
    mac_da(MulDaHh, 7),
    mac_dd(MulDdLl, 4),
    mac_dd(MulDdHl, 5),
    mac_dd(MulDdLh, 6),
    mac_dd(MulDdHh, 7),
    mac_aa(MulaAaLl, 8),
    mac_aa(MulaAaHl, 9),
    mac_aa(MulaAaLh, 10),
    mac_aa(MulaAaHh, 11),
    mac_ad(MulaAdLl, 8),
    mac_ad(MulaAdHl, 9),
    mac_ad(MulaAdLh, 10),
    mac_ad(MulaAdHh, 11),
    mac_da(MulaDaLl, 8),
    mac_da(MulaDaHl, 9),
    mac_da(MulaDaLh, 10),
    mac_da(MulaDaHh, 11),
    mac_dd(MulaDdLl, 8),
    mac_dd(MulaDdHl, 9),
    mac_dd(MulaDdLh, 10),
    mac_dd(MulaDdHh, 11),
    mac_aa(MulsAaLl, 12),
    mac_aa(MulsAaHl, 13),
    mac_aa(MulsAaLh, 14),
    mac_aa(MulsAaHh, 15),
    mac_ad(MulsAdLl, 12),
    mac_ad(MulsAdHl, 13),
    mac_ad(MulsAdLh, 14),
    mac_ad(MulsAdHh, 15),
    mac_da(MulsDaLl, 12),
    mac_da(MulsDaHl, 13),
    mac_da(MulsDaLh, 14),
    mac_da(MulsDaHh, 15),
    mac_dd(MulsDdLl, 12),
    mac_dd(MulsDdHl, 13),
    mac_dd(MulsDdLh, 14),
    mac_dd(MulsDdHh, 15),
    mac_da_load(MulaDaLlLdinc, 8, false),
    mac_da_load(MulaDaLlLddec, 8, true),
    mac_da_load(MulaDaHlLdinc, 9, false),
    mac_da_load(MulaDaHlLddec, 9, true),
    mac_da_load(MulaDaLhLdinc, 10, false),
    mac_da_load(MulaDaLhLddec, 10, true),
    mac_da_load(MulaDaHhLdinc, 11, false),
    mac_da_load(MulaDaHhLddec, 11, true),
    mac_dd_load(MulaDdLlLdinc, 8, false),
    mac_dd_load(MulaDdLlLddec, 8, true),
    mac_dd_load(MulaDdHlLdinc, 9, false),
    mac_dd_load(MulaDdHlLddec, 9, true),
    mac_dd_load(MulaDdLhLdinc, 10, false),
    mac_dd_load(MulaDdLhLddec, 10, true),
    mac_dd_load(MulaDdHhLdinc, 11, false),
    mac_dd_load(MulaDdHhLddec, 11, true),
    spec(Ldinc, Pattern::wide(4).op2(8).op1(0).field(14, 2, 0).t(0), &[MacW, ArS], MAC16),
    spec(Lddec, Pattern::wide(4).op2(9).op1(0).field(14, 2, 0).t(0), &[MacW, ArS], MAC16),
    // ---- op0 = 5: CALLN, selected by n ----
    spec(Call0, Pattern::wide(5).n(0), &[Call18], CORE),
    spec(Call4, Pattern::wide(5).n(1), &[Call18], WINDOWED),
    spec(Call8, Pattern::wide(5).n(2), &[Call18], WINDOWED),
    spec(Call12, Pattern::wide(5).n(3), &[Call18], WINDOWED),
    // ---- op0 = 6: SI, selected by n and m ----
    spec(J, Pattern::wide(6).n(0), &[Jump18], CORE),
    spec(Beqz, Pattern::wide(6).n(1).m(0), &[ArS, Branch12], CORE),
    spec(Bnez, Pattern::wide(6).n(1).m(1), &[ArS, Branch12], CORE),
    spec(Bltz, Pattern::wide(6).n(1).m(2), &[ArS, Branch12], CORE),
    spec(Bgez, Pattern::wide(6).n(1).m(3), &[ArS, Branch12], CORE),
    spec(Beqi, Pattern::wide(6).n(2).m(0), &[ArS, B4Const, Branch8], CORE),
    spec(Bnei, Pattern::wide(6).n(2).m(1), &[ArS, B4Const, Branch8], CORE),
    spec(Blti, Pattern::wide(6).n(2).m(2), &[ArS, B4Const, Branch8], CORE),
    spec(Bgei, Pattern::wide(6).n(2).m(3), &[ArS, B4Const, Branch8], CORE),
    spec(Entry, Pattern::wide(6).n(3).m(0), &[ArS, EntryFrame], WINDOWED),
    spec(Bf, Pattern::wide(6).n(3).m(1).r(0), &[BrS, Branch8], BOOLEAN),
    spec(Bt, Pattern::wide(6).n(3).m(1).r(1), &[BrS, Branch8], BOOLEAN),
    spec(Loop, Pattern::wide(6).n(3).m(1).r(8), &[ArS, LoopEnd], &[Feature::Loop]),
    spec(Loopnez, Pattern::wide(6).n(3).m(1).r(9), &[ArS, LoopEnd], &[Feature::Loop]),
    spec(Loopgtz, Pattern::wide(6).n(3).m(1).r(0xa), &[ArS, LoopEnd], &[Feature::Loop]),
    spec(Bltui, Pattern::wide(6).n(3).m(2), &[ArS, B4ConstU, Branch8], CORE),
    spec(Bgeui, Pattern::wide(6).n(3).m(3), &[ArS, B4ConstU, Branch8], CORE),
    // ---- op0 = 7: B, selected by r; r[0] of bbci/bbsi is bit-number bit 4 ----
    spec(Bnone, branch(0), BRANCH_RR, CORE),
    spec(Beq, branch(1), BRANCH_RR, CORE),
    spec(Blt, branch(2), BRANCH_RR, CORE),
    spec(Bltu, branch(3), BRANCH_RR, CORE),
    spec(Ball, branch(4), BRANCH_RR, CORE),
    spec(Bbc, branch(5), BRANCH_RR, CORE),
    spec(Bbci, branch(6).release(1 << 12), &[ArS, BitIndex, Branch8], CORE),
    spec(Bany, branch(8), BRANCH_RR, CORE),
    spec(Bne, branch(9), BRANCH_RR, CORE),
    spec(Bge, branch(0xa), BRANCH_RR, CORE),
    spec(Bgeu, branch(0xb), BRANCH_RR, CORE),
    spec(Bnall, branch(0xc), BRANCH_RR, CORE),
    spec(Bbs, branch(0xd), BRANCH_RR, CORE),
    spec(Bbsi, branch(0xe).release(1 << 12), &[ArS, BitIndex, Branch8], CORE),
    // ---- op0 = 8..=0xd: code density, 16 bits ----
    spec(L32iN, Pattern::narrow(8), &[ArT, ArS, Uimm4x4], DENSITY),
    spec(S32iN, Pattern::narrow(9), &[ArT, ArS, Uimm4x4], DENSITY),
    spec(AddN, Pattern::narrow(0xa), RRR, DENSITY),
    spec(AddiN, Pattern::narrow(0xb), &[ArR, ArS, AddiNImm], DENSITY),
    // ST2 (op0 = 0xc): bit 7 (i) selects movi.n, bit 6 (z) then beqz.n/bnez.n.
    spec(MoviN, Pattern::narrow(0xc).field(7, 1, 0), &[ArS, MoviNImm], DENSITY),
    spec(BeqzN, Pattern::narrow(0xc).field(6, 2, 0b10), &[ArS, BranchN6], DENSITY),
    spec(BnezN, Pattern::narrow(0xc).field(6, 2, 0b11), &[ArS, BranchN6], DENSITY),
    // ST3 (op0 = 0xd).
    spec(MovN, Pattern::narrow(0xd).r(0), T_S, DENSITY),
    spec(RetN, st3(0).s(0), NONE, DENSITY),
    spec(RetwN, st3(1).s(0), NONE, &[Feature::Density, Feature::Windowed]),
    spec(BreakN, st3(2), &[Uimm4S], &[Feature::Density, Feature::Debug]),
    spec(NopN, st3(3).s(0), NONE, DENSITY),
    spec(IllN, st3(6).s(0), NONE, DENSITY),
];

/// Table indices grouped by op0 and two more opcode nibbles, and the row of
/// every opcode.
struct Index {
    by_op0: [Op0Rows; 16],
    /// The rows of every sub-bucket, in table order, back to back.
    rows: Vec<u16>,
    by_opcode: Vec<Option<u16>>,
}

/// The rows of one op0, split by the values of the two nibbles most of them
/// fix, so a decode tries a handful of rows instead of every row of the op0
/// (QRST alone has hundreds). A row that leaves a key nibble (partly) free is
/// in every sub-bucket it can match; each keeps table order, so the first
/// match is the same row as in a scan of the whole table.
struct Op0Rows {
    /// Bit positions of the two key nibbles.
    shifts: [u32; 2],
    /// Range in `Index::rows` of each key `high nibble << 4 | low nibble`.
    ranges: Vec<(u32, u32)>,
}

impl Op0Rows {
    fn key(&self, word: u32) -> usize {
        ((word >> self.shifts[0] & 0xf) << 4 | (word >> self.shifts[1] & 0xf)) as usize
    }
}

/// The two nibbles (bit positions 4..24) fixed by the most of `rows`.
fn key_shifts(rows: &[u16]) -> [u32; 2] {
    let fixing =
        |shift: u32| rows.iter().filter(|&&row| TABLE[usize::from(row)].pattern.mask >> shift & 0xf == 0xf).count();
    let mut shifts: Vec<u32> = (1..6).map(|nibble| nibble * 4).collect();
    // Most-fixing first; ties keep the lower nibble first (stable sort).
    shifts.sort_by_key(|&shift| std::cmp::Reverse(fixing(shift)));
    [shifts[0], shifts[1]]
}

/// The keys (`high << 4 | low` nibble values at `shifts`) of the words
/// `spec` can match: every value of a key nibble's free bits.
fn keys_of(spec: &Spec, shifts: [u32; 2]) -> impl Iterator<Item = usize> {
    let [high, low] = shifts.map(|shift| {
        let (mask, value) = (spec.pattern.mask >> shift & 0xf, spec.pattern.value >> shift & 0xf);
        (value & mask, !mask & 0xf)
    });
    // Every value whose set bits are free, added to the fixed ones.
    let expand = |(fixed, free): (u32, u32)| (0..16u32).filter(move |v| v & !free == 0).map(move |v| fixed | v);
    expand(high).flat_map(move |h| expand(low).map(move |l| (h << 4 | l) as usize))
}

/// Splits one op0's rows (table order) by key, appending them to `rows`:
/// counted first, then placed, so no per-key allocation.
fn split_by_key(bucket: &[u16], rows: &mut Vec<u16>) -> Op0Rows {
    let shifts = key_shifts(bucket);
    let mut counts = [0u32; 256];
    for &row in bucket {
        keys_of(&TABLE[usize::from(row)], shifts).for_each(|key| counts[key] += 1);
    }
    let base = rows.len() as u32;
    let mut ranges = Vec::with_capacity(256);
    let mut next = base;
    for count in counts {
        ranges.push((next, next));
        next += count;
    }
    rows.resize(next as usize, 0);
    for &row in bucket {
        for key in keys_of(&TABLE[usize::from(row)], shifts) {
            let slot = &mut ranges[key].1;
            rows[*slot as usize] = row;
            *slot += 1;
        }
    }
    Op0Rows { shifts, ranges }
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut op0_rows: [Vec<u16>; 16] = Default::default();
        let mut by_opcode = vec![None; Opcode::ALL.len()];
        for (row, spec) in TABLE.iter().enumerate() {
            let row = row as u16;
            if let Some(bucket) = op0_rows.get_mut((spec.pattern.value & 0xf) as usize) {
                bucket.push(row);
            }
            if let Some(slot) = by_opcode.get_mut(spec.op as usize) {
                *slot = Some(row);
            }
        }
        let mut rows = Vec::new();
        let by_op0 = op0_rows.map(|bucket| split_by_key(&bucket, &mut rows));
        Index { by_op0, rows, by_opcode }
    })
}

/// The rows that may match `word` (op0 in its low nibble), in table order.
pub(crate) fn rows_for_word(word: u32) -> impl Iterator<Item = &'static Spec> {
    let index = index();
    let op0 = &index.by_op0[(word & 0xf) as usize];
    let (start, end) = op0.ranges[op0.key(word)];
    index.rows[start as usize..end as usize].iter().filter_map(|&row| TABLE.get(usize::from(row)))
}

/// The row that encodes `op` (every opcode has exactly one).
pub(crate) fn spec_of(op: Opcode) -> Option<&'static Spec> {
    let row = index().by_opcode.get(op as usize).copied().flatten()?;
    TABLE.get(usize::from(row))
}

// What the table knows about the plain types below it: an opcode's encoding
// and options, an instruction's length. Here rather than beside the types, so
// that `opcode` and `insn` import nothing that imports them back.
impl Opcode {
    /// The fixed bits and length of this opcode's encoding.
    pub fn pattern(self) -> Option<Pattern> {
        spec_of(self).map(|spec| spec.pattern)
    }

    /// The options a core needs for this instruction to exist.
    pub fn requires(self) -> FeatureSet {
        spec_of(self).map_or(FeatureSet::EMPTY, |spec| spec.requires)
    }

    /// True when the instruction exists on a core configured by `opts` (the
    /// post-increment and pre-update floating-point forms exclude each other).
    pub fn available(self, opts: &IsaOptions) -> bool {
        spec_of(self).is_some_and(|spec| spec.available(opts))
    }
}

impl Insn {
    /// Builds an instruction from parts, taking the length from the encoding
    /// table; `None` when there are too many operands. Operand validity is
    /// checked by [`crate::encode()`]. `None` also for an opcode without an encoding.
    pub fn new(op: Opcode, pc: u32, operands: &[Operand]) -> Option<Insn> {
        let len = spec_of(op)?.pattern.len;
        Some(Insn { op, len, pc, operands: Operands::from_slice(operands)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexed_rows_find_the_first_matching_row() {
        // Every row's own encoding with its free bits pseudo-random, plus
        // pseudo-random words: the index's first match is the table's.
        let mut state = 0x9e37_79b9u32;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            state >> 8
        };
        let mut words: Vec<u32> = (0..200_000).map(|_| next()).collect();
        for spec in TABLE {
            for _ in 0..64 {
                words.push(next() & !spec.pattern.mask | spec.pattern.value);
            }
        }
        for word in words {
            for len in [2u8, 3] {
                let word = if len == 2 { word & 0xffff } else { word };
                let first = |spec: &&Spec| spec.pattern.len == len && spec.pattern.matches(word);
                let scanned = TABLE.iter().filter(|s| s.pattern.value & 0xf == word & 0xf).find(first);
                let indexed = rows_for_word(word).find(first);
                assert_eq!(scanned.map(|s| s.op), indexed.map(|s| s.op), "word {word:#08x} len {len}");
            }
        }
    }

    #[test]
    fn every_opcode_has_one_row() {
        for &op in Opcode::ALL {
            let rows = TABLE.iter().filter(|s| s.op == op).count();
            assert_eq!(rows, 1, "{op:?}");
        }
        assert_eq!(TABLE.len(), Opcode::ALL.len());
    }

    #[test]
    fn operand_fields_avoid_fixed_bits() {
        // Every operand field must lie outside the row's fixed bits, or encoding
        // would corrupt the opcode. Checked by placing all-ones field values.
        for spec in TABLE {
            let free = !spec.pattern.mask & if spec.pattern.len == 2 { 0xffff } else { 0xff_ffff };
            for word in [0u32, 0xff_ffff, 0x5a_5a5a, 0xa5_a5a5] {
                let w = (word & free) | spec.pattern.value;
                assert!(spec.pattern.matches(w));
                for field in spec.fields {
                    if let Some(op) = field.decode(w, 0x1000, FeatureSet::all()) {
                        if let Ok(bits) = field.encode(op, 0x1000) {
                            assert_eq!(bits & spec.pattern.mask, 0, "{:?} {field:?}", spec.op);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn rows_do_not_overlap() {
        // Two rows that can match the same word must be alternative spellings
        // selected by an option (lsiu/lsip).
        for (i, a) in TABLE.iter().enumerate() {
            for b in &TABLE[i + 1..] {
                let common = a.pattern.mask & b.pattern.mask;
                let overlap = a.pattern.len == b.pattern.len && (a.pattern.value ^ b.pattern.value) & common == 0;
                if overlap {
                    assert!(
                        a.fp_form != FpForm::Only && b.fp_form != FpForm::Only && a.fp_form != b.fp_form,
                        "{:?} overlaps {:?}",
                        a.op,
                        b.op
                    );
                }
            }
        }
    }
}
