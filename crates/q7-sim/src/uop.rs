//! Pre-decoded instructions: the interpreter's form of a [`q7_isa::Insn`].
//!
//! The decoder gives operands in assembler order with immediates and targets
//! resolved. This module maps each instruction once to a compact [`Op`]: a
//! semantic [`Kind`] (aliases such as `add`/`add.n` share one) with register
//! numbers in `a`/`b`/`c`, and immediates in `imm`/`target`. Executing an op
//! never looks at the instruction bytes or the operand list again.

use q7_isa::{Insn, Opcode, Operand};

use crate::alu::{AluOp, PureOp};

/// What an op does. Field use is documented per variant group as
/// `a, b, c / imm / target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// a = ALU(b, c, imm, SAR) (see [`crate::alu`]); `divide` and the
    /// other ops that can trap are kinds of their own.
    Alu(AluOp),
    // a = b op c, raising IntegerDivideByZero
    Quos,
    Quou,
    Rems,
    Remu,
    // SAR setters: from a(b), or imm
    Ssr,
    Ssl,
    Ssa8l,
    Ssa8b,
    Ssai,
    // loads: a = mem[b + imm]
    L8ui,
    L16ui,
    L16si,
    L32i,
    /// a = mem[target]
    L32r,
    // stores: mem[b + imm] = a
    S8i,
    S16i,
    S32i,
    /// mem[b + imm] = a if it equals SCOMPARE1; a = old value
    S32c1i,
    /// window-exception load/store (same addressing, no other difference here)
    L32e,
    S32e,
    // branches on two registers: if cond(a(b), a(c)) goto target
    Beq,
    Bne,
    Blt,
    Bge,
    Bltu,
    Bgeu,
    Ball,
    Bany,
    Bnall,
    Bnone,
    Bbc,
    Bbs,
    // branches on a register and imm
    Beqi,
    Bnei,
    Blti,
    Bgei,
    Bltui,
    Bgeui,
    Bbci,
    Bbsi,
    // branches on a register and zero
    Beqz,
    Bnez,
    Bltz,
    Bgez,
    // branches on boolean b(b)
    Bf,
    Bt,
    // jumps and calls
    J,
    Jx,
    Call0,
    Callx0,
    /// imm = call increment 1..3
    CallN,
    CallxN,
    Ret,
    Retw,
    /// b = stack register, imm = frame size
    Entry,
    Movsp,
    Rotw,
    Rfwo,
    Rfwu,
    Rfe,
    Rfde,
    Rfi,
    // zero-overhead loops: count in a(b), end in target
    Loop,
    Loopnez,
    Loopgtz,
    // booleans
    Andb,
    Andbc,
    Orb,
    Orbc,
    Xorb,
    Any4,
    All4,
    Any8,
    All8,
    Movf,
    Movt,
    // special and user registers: register number in imm
    Rsr,
    Wsr,
    Xsr,
    Rur,
    Wur,
    Rsil,
    // control
    /// imm = s, target = t (break s, t; break.n s has t = 0)
    Break,
    Ill,
    Simcall,
    Syscall,
    Waiti,
    // single-precision FP: f registers in a, b, c (a = destination)
    AddS,
    SubS,
    MulS,
    MaddS,
    MsubS,
    MaddnS,
    DivnS,
    MovS,
    AbsS,
    NegS,
    ConstS,
    Div0S,
    Recip0S,
    Sqrt0S,
    Rsqrt0S,
    Nexp01S,
    MksadjS,
    MkdadjS,
    AddexpS,
    AddexpmS,
    /// a(a) = bits of f(b)
    Rfr,
    /// f(a) = bits of a(b)
    Wfr,
    // conversions: imm = scale
    RoundS,
    TruncS,
    FloorS,
    CeilS,
    UtruncS,
    FloatS,
    UfloatS,
    // compares: b(a) = cmp(f(b), f(c))
    UnS,
    OeqS,
    UeqS,
    OltS,
    UltS,
    OleS,
    UleS,
    // conditional FP moves: f(a) = f(b) if cond(a(c) / b(c))
    MoveqzS,
    MovnezS,
    MovltzS,
    MovgezS,
    MovfS,
    MovtS,
    // FP loads/stores: f(a), base a(b), offset imm (or a(c) for the x forms)
    Lsi,
    Lsiu,
    Lsip,
    Lsx,
    Lsxu,
    Lsxp,
    Ssi,
    Ssiu,
    Ssip,
    Ssx,
    Ssxu,
    Ssxp,
    /// MAC16: a, b = the multiplicands' registers (AR or M, see imm),
    /// c = the load base AR; imm packs [`mac16`]'s fields.
    Mac16,
    /// A double-precision op (the double-precision option, whose f
    /// registers are 64 bits wide; single ops keep their own kinds and set
    /// the high halves as QEMU does: `Cpu::step_single`). The interpreter
    /// runs it by `opcode` (a, b, c, imm laid out as the single forms');
    /// compiled code leaves it to it.
    Fp64,
    /// A TLB instruction: imm = [`tlb`] operation, a = at, b = as.
    Tlb,
    /// A cache instruction naming a line by address (`dhwb`, `dhwbi`,
    /// `dhi`, `dpfl`, `dhu`): with no cache modelled, it loads a byte at
    /// a(b) + imm (as QEMU does), so an address no memory answers faults.
    /// The other cache instructions are no-ops.
    CacheProbe,
    /// Decoded but not modelled (MAC16, TLB, debug-register transfers):
    /// raises an illegal-instruction report naming the mnemonic.
    Unsupported,
    /// Bytes that do not decode: imm = the raw word, len = bytes covered.
    Undecodable,
}

/// What a single-precision op leaves in the high half of its destination
/// on a core whose f registers are 64 bits wide (the double-precision
/// option), as QEMU does; the interpreter and compiled code both follow it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HighHalf {
    /// A move (taken, for the conditional ones) copies the whole register.
    Moved,
    /// `wfr` sign-extends the word.
    SignExtended,
    /// No f register written, or a step that leaves its destination alone.
    Untouched,
    /// A computed or loaded single value, zero-extended.
    Cleared,
}

impl Kind {
    /// See [`HighHalf`].
    pub fn high_half(self) -> HighHalf {
        use Kind::*;
        match self {
            MovS | MoveqzS | MovnezS | MovltzS | MovgezS | MovfS | MovtS => HighHalf::Moved,
            Wfr => HighHalf::SignExtended,
            Rfr | RoundS | TruncS | FloorS | CeilS | UtruncS => HighHalf::Untouched,
            UnS | OeqS | UeqS | OltS | UltS | OleS | UleS => HighHalf::Untouched,
            Ssi | Ssiu | Ssip | Ssx | Ssxu | Ssxp => HighHalf::Untouched,
            // The steps (see `cpu::fp::steps`).
            Div0S | Sqrt0S | Nexp01S | AddexpS | MaddnS | DivnS => HighHalf::Untouched,
            _ => HighHalf::Cleared,
        }
    }

    /// Whether the op's only effects are on the core's own registers, plus
    /// loads: no store, no special-register write, nothing that reaches
    /// the machine (what the deadlock look ahead may run).
    pub fn touches_only_registers_and_loads(self) -> bool {
        use Kind::*;
        !matches!(
            self,
            S8i | S16i
                | S32i
                | S32c1i
                | S32e
                | Ssi
                | Ssiu
                | Ssip
                | Ssx
                | Ssxu
                | Ssxp
                | Wsr
                | Xsr
                | Wur
                | Rsil
                | Rfe
                | Rfde
                | Rfi
                | Rfwo
                | Rfwu
                | Break
                | Ill
                | Simcall
                | Syscall
                | Waiti
                | Mac16
                | Fp64
                | Tlb
                | Unsupported
                | Undecodable
        )
    }

    /// The conditional branches: on two registers, a register and an
    /// immediate, a register and zero, or a boolean.
    pub fn is_conditional_branch(self) -> bool {
        use Kind::*;
        matches!(
            self,
            Beq | Bne
                | Blt
                | Bge
                | Bltu
                | Bgeu
                | Ball
                | Bany
                | Bnall
                | Bnone
                | Bbc
                | Bbs
                | Beqi
                | Bnei
                | Blti
                | Bgei
                | Bltui
                | Bgeui
                | Bbci
                | Bbsi
                | Beqz
                | Bnez
                | Bltz
                | Bgez
                | Bf
                | Bt
        )
    }
}

// Kind stays one byte (the ALU ops fill the niche), so an op stays 24.
const _: () = assert!(std::mem::size_of::<Kind>() == 1);

/// One pre-decoded instruction. `repr(C)` keeps the fields the dispatch
/// reads first (kind and registers) together in the first word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Op {
    pub kind: Kind,
    pub a: u8,
    pub b: u8,
    pub c: u8,
    /// Highest 4-register window frame (register / 4) the instruction names:
    /// the windowed-register overflow check compares it with the free frames.
    pub frame: u8,
    /// Length in bytes (2 or 3).
    pub len: u8,
    /// Cycles of the cost model (`cost::cycles`, set by the block builder).
    pub cycles: u8,
    pub imm: u32,
    pub target: u32,
    pub pc: u32,
    /// The opcode, for traces and reports.
    pub opcode: Opcode,
}

impl Op {
    pub fn next_pc(&self) -> u32 {
        self.pc.wrapping_add(u32::from(self.len))
    }

    /// The register-only form of the op, when it is an ALU op.
    pub fn register_only(&self) -> Option<PureOp> {
        match self.kind {
            Kind::Alu(op) => Some(PureOp { op, a: self.a & 15, b: self.b & 15, c: self.c & 15, imm: self.imm }),
            _ => None,
        }
    }

    /// Transfers of CCOUNT (234) and CCOMPARE0..2 (240..242), which
    /// read the time or schedule by it.
    pub fn uses_time(&self) -> bool {
        matches!(self.kind, Kind::Rsr | Kind::Wsr | Kind::Xsr) && matches!(self.imm, 234 | 240..=242)
    }

    /// Ops after which a block ends: they change the pc, the window, the
    /// loop registers, or need the machine's attention.
    pub fn ends_block(&self) -> bool {
        use Kind::*;
        self.kind.is_conditional_branch()
            || matches!(
                self.kind,
                J | Jx
                    | Call0
                    | Callx0
                    | CallN
                    | CallxN
                    | Ret
                    | Retw
                    | Entry
                    | Movsp
                    | Rotw
                    | Rfwo
                    | Rfwu
                    | Rfe
                    | Rfde
                    | Rfi
                    | Loop
                    | Loopnez
                    | Loopgtz
                    | Wsr
                    | Xsr
                    | Rsil
                    | Break
                    | Ill
                    | Simcall
                    | Syscall
                    | Waiti
                    | Unsupported
                    | Undecodable
            )
    }
}

fn ar(op: &Operand) -> u8 {
    match *op {
        Operand::Ar(n) | Operand::Fr(n) | Operand::Br(n) | Operand::Mr(n) | Operand::Sr(n) | Operand::Ur(n) => n,
        _ => 0,
    }
}

fn imm(op: &Operand) -> u32 {
    match *op {
        Operand::Imm(v) => v as u32,
        Operand::Target(t) => t,
        _ => 0,
    }
}

/// Maps a decoded instruction to its op.
/// A register a memory op moves data through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataRegister {
    /// a0..a15 of the current window.
    A(u8),
    /// f0..f15.
    F(u8),
}

/// What a load or store moves: the bytes at `addr` and the register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataAccess {
    pub load: bool,
    pub addr: u32,
    pub size: u32,
    pub register: DataRegister,
}

impl Op {
    /// The data this op loads or stores, with `ar` the current window's
    /// registers before it runs (for a debugger's dataflow); `None` for
    /// every other op.
    pub fn data_access(&self, ar: &[u32; 16]) -> Option<DataAccess> {
        let r = |n: u8| ar[usize::from(n & 15)];
        let (a, b) = (self.a, self.b);
        let at = |load, size, register| Some(DataAccess { load, addr: r(b).wrapping_add(self.imm), size, register });
        match self.kind {
            Kind::L8ui => at(true, 1, DataRegister::A(a)),
            Kind::L16ui | Kind::L16si => at(true, 2, DataRegister::A(a)),
            Kind::L32i | Kind::L32e => at(true, 4, DataRegister::A(a)),
            Kind::L32r => Some(DataAccess { load: true, addr: self.target, size: 4, register: DataRegister::A(a) }),
            Kind::S8i => at(false, 1, DataRegister::A(a)),
            Kind::S16i => at(false, 2, DataRegister::A(a)),
            Kind::S32i | Kind::S32e => at(false, 4, DataRegister::A(a)),
            Kind::Lsi | Kind::Lsiu | Kind::Lsx | Kind::Lsxu | Kind::Lsip | Kind::Lsxp => {
                Some(DataAccess { load: true, addr: self.fp_address(ar), size: 4, register: DataRegister::F(a & 15) })
            }
            Kind::Ssi | Kind::Ssiu | Kind::Ssx | Kind::Ssxu | Kind::Ssip | Kind::Ssxp => {
                Some(DataAccess { load: false, addr: self.fp_address(ar), size: 4, register: DataRegister::F(a & 15) })
            }
            _ => None,
        }
    }

    /// The address of an FP load or store (base plus offset, or the base
    /// alone for the post-increment forms).
    fn fp_address(&self, ar: &[u32; 16]) -> u32 {
        let base = ar[usize::from(self.b & 15)];
        match self.kind {
            Kind::Lsip | Kind::Lsxp | Kind::Ssip | Kind::Ssxp => base,
            Kind::Lsx | Kind::Lsxu | Kind::Ssx | Kind::Ssxu => base.wrapping_add(ar[usize::from(self.c & 15)]),
            _ => base.wrapping_add(self.imm),
        }
    }
}

pub fn translate(insn: &Insn) -> Op {
    use Kind::*;
    use Opcode as O;
    let ops = insn.operands();
    let get = |i: usize| ops.get(i).copied().unwrap_or(Operand::Imm(0));
    let r = |i: usize| ar(&get(i));
    let v = |i: usize| imm(&get(i));
    let mut op = Op {
        kind: Alu(AluOp::Nop),
        a: 0,
        b: 0,
        c: 0,
        frame: 0,
        len: insn.len,
        cycles: 1,
        imm: 0,
        target: 0,
        pc: insn.pc,
        opcode: insn.op,
    };
    // Shapes, by operand layout.
    let rrr = |op: &mut Op, k: Kind| {
        op.kind = k;
        op.a = r(0);
        op.b = r(1);
        op.c = r(2);
    };
    let rr = |op: &mut Op, k: Kind| {
        op.kind = k;
        op.a = r(0);
        op.b = r(1);
    };
    let rri = |op: &mut Op, k: Kind| {
        op.kind = k;
        op.a = r(0);
        op.b = r(1);
        op.imm = v(2);
    };
    let branch_rr = |op: &mut Op, k: Kind| {
        op.kind = k;
        op.b = r(0);
        op.c = r(1);
        op.target = v(2);
    };
    let branch_ri = |op: &mut Op, k: Kind| {
        op.kind = k;
        op.b = r(0);
        op.imm = v(1);
        op.target = v(2);
    };
    let branch_z = |op: &mut Op, k: Kind| {
        op.kind = k;
        op.b = r(0);
        op.target = v(1);
    };
    match insn.op {
        O::Add | O::AddN => rrr(&mut op, Alu(AluOp::Add)),
        O::Addx2 => rrr(&mut op, Alu(AluOp::Addx2)),
        O::Addx4 => rrr(&mut op, Alu(AluOp::Addx4)),
        O::Addx8 => rrr(&mut op, Alu(AluOp::Addx8)),
        O::Sub => rrr(&mut op, Alu(AluOp::Sub)),
        O::Subx2 => rrr(&mut op, Alu(AluOp::Subx2)),
        O::Subx4 => rrr(&mut op, Alu(AluOp::Subx4)),
        O::Subx8 => rrr(&mut op, Alu(AluOp::Subx8)),
        O::And => rrr(&mut op, Alu(AluOp::And)),
        O::Or => rrr(&mut op, Alu(AluOp::Or)),
        O::Xor => rrr(&mut op, Alu(AluOp::Xor)),
        O::Mull => rrr(&mut op, Alu(AluOp::Mull)),
        O::Mul16u => rrr(&mut op, Alu(AluOp::Mul16u)),
        O::Mul16s => rrr(&mut op, Alu(AluOp::Mul16s)),
        O::Mulsh => rrr(&mut op, Alu(AluOp::Mulsh)),
        O::Muluh => rrr(&mut op, Alu(AluOp::Muluh)),
        O::Quos => rrr(&mut op, Quos),
        O::Quou => rrr(&mut op, Quou),
        O::Rems => rrr(&mut op, Rems),
        O::Remu => rrr(&mut op, Remu),
        O::Min => rrr(&mut op, Alu(AluOp::Min)),
        O::Max => rrr(&mut op, Alu(AluOp::Max)),
        O::Minu => rrr(&mut op, Alu(AluOp::Minu)),
        O::Maxu => rrr(&mut op, Alu(AluOp::Maxu)),
        O::Moveqz => rrr(&mut op, Alu(AluOp::Moveqz)),
        O::Movnez => rrr(&mut op, Alu(AluOp::Movnez)),
        O::Movltz => rrr(&mut op, Alu(AluOp::Movltz)),
        O::Movgez => rrr(&mut op, Alu(AluOp::Movgez)),
        O::Src => rrr(&mut op, Alu(AluOp::Src)),
        O::Sll => rr(&mut op, Alu(AluOp::Sll)),
        O::Sra => rr(&mut op, Alu(AluOp::Sra)),
        O::Srl => rr(&mut op, Alu(AluOp::Srl)),
        O::Neg => rr(&mut op, Alu(AluOp::Neg)),
        O::Abs => rr(&mut op, Alu(AluOp::Abs)),
        O::MovN => rr(&mut op, Alu(AluOp::Mov)),
        O::Nsa => rr(&mut op, Alu(AluOp::Nsa)),
        O::Nsau => rr(&mut op, Alu(AluOp::Nsau)),
        O::Addi | O::Addmi | O::AddiN => rri(&mut op, Alu(AluOp::Addi)),
        O::Slli => rri(&mut op, Alu(AluOp::Slli)),
        O::Srai => rri(&mut op, Alu(AluOp::Srai)),
        O::Srli => rri(&mut op, Alu(AluOp::Srli)),
        O::Extui => {
            rri(&mut op, Alu(AluOp::Extui));
            op.imm = v(2) | v(3) << 8;
        }
        O::Sext => rri(&mut op, Alu(AluOp::Sext)),
        O::Clamps => rri(&mut op, Alu(AluOp::Clamps)),
        O::Movi | O::MoviN => {
            op.kind = Alu(AluOp::Movi);
            op.a = r(0);
            op.imm = v(1);
        }
        O::Ssr => {
            op.kind = Ssr;
            op.b = r(0);
        }
        O::Ssl => {
            op.kind = Ssl;
            op.b = r(0);
        }
        O::Ssa8l => {
            op.kind = Ssa8l;
            op.b = r(0);
        }
        O::Ssa8b => {
            op.kind = Ssa8b;
            op.b = r(0);
        }
        O::Ssai => {
            op.kind = Ssai;
            op.imm = v(0);
        }
        O::L8ui => rri(&mut op, L8ui),
        O::L16ui => rri(&mut op, L16ui),
        O::L16si => rri(&mut op, L16si),
        O::L32i | O::L32iN | O::L32ai => rri(&mut op, L32i),
        O::L32r => {
            op.kind = L32r;
            op.a = r(0);
            op.target = v(1);
        }
        O::S8i => rri(&mut op, S8i),
        O::S16i => rri(&mut op, S16i),
        O::S32i | O::S32iN | O::S32ri => rri(&mut op, S32i),
        O::S32c1i => rri(&mut op, S32c1i),
        O::L32e => rri(&mut op, L32e),
        O::S32e => rri(&mut op, S32e),
        O::Beq => branch_rr(&mut op, Beq),
        O::Bne => branch_rr(&mut op, Bne),
        O::Blt => branch_rr(&mut op, Blt),
        O::Bge => branch_rr(&mut op, Bge),
        O::Bltu => branch_rr(&mut op, Bltu),
        O::Bgeu => branch_rr(&mut op, Bgeu),
        O::Ball => branch_rr(&mut op, Ball),
        O::Bany => branch_rr(&mut op, Bany),
        O::Bnall => branch_rr(&mut op, Bnall),
        O::Bnone => branch_rr(&mut op, Bnone),
        O::Bbc => branch_rr(&mut op, Bbc),
        O::Bbs => branch_rr(&mut op, Bbs),
        O::Beqi => branch_ri(&mut op, Beqi),
        O::Bnei => branch_ri(&mut op, Bnei),
        O::Blti => branch_ri(&mut op, Blti),
        O::Bgei => branch_ri(&mut op, Bgei),
        O::Bltui => branch_ri(&mut op, Bltui),
        O::Bgeui => branch_ri(&mut op, Bgeui),
        O::Bbci => branch_ri(&mut op, Bbci),
        O::Bbsi => branch_ri(&mut op, Bbsi),
        O::Beqz | O::BeqzN => branch_z(&mut op, Beqz),
        O::Bnez | O::BnezN => branch_z(&mut op, Bnez),
        O::Bltz => branch_z(&mut op, Bltz),
        O::Bgez => branch_z(&mut op, Bgez),
        O::Bf => branch_z(&mut op, Bf),
        O::Bt => branch_z(&mut op, Bt),
        O::J => {
            op.kind = J;
            op.target = v(0);
        }
        O::Jx => {
            op.kind = Jx;
            op.b = r(0);
        }
        O::Call0 => {
            op.kind = Call0;
            op.target = v(0);
        }
        O::Callx0 => {
            op.kind = Callx0;
            op.b = r(0);
        }
        O::Call4 | O::Call8 | O::Call12 => {
            op.kind = CallN;
            op.imm = call_increment(insn.op);
            op.target = v(0);
            op.a = (op.imm * 4) as u8;
        }
        O::Callx4 | O::Callx8 | O::Callx12 => {
            op.kind = CallxN;
            op.imm = call_increment(insn.op);
            op.b = r(0);
            op.a = (op.imm * 4) as u8;
        }
        O::Ret | O::RetN => op.kind = Ret,
        O::Retw | O::RetwN => op.kind = Retw,
        O::Entry => {
            op.kind = Entry;
            op.b = r(0);
            op.imm = v(1);
        }
        O::Movsp => rr(&mut op, Movsp),
        O::Rotw => {
            op.kind = Rotw;
            op.imm = v(0);
        }
        O::Rfwo => op.kind = Rfwo,
        O::Rfwu => op.kind = Rfwu,
        O::Rfe => op.kind = Rfe,
        O::Rfde => op.kind = Rfde,
        O::Rfi => {
            op.kind = Rfi;
            op.imm = v(0);
        }
        O::Loop => branch_z(&mut op, Loop),
        O::Loopnez => branch_z(&mut op, Loopnez),
        O::Loopgtz => branch_z(&mut op, Loopgtz),
        O::Andb => rrr(&mut op, Andb),
        O::Andbc => rrr(&mut op, Andbc),
        O::Orb => rrr(&mut op, Orb),
        O::Orbc => rrr(&mut op, Orbc),
        O::Xorb => rrr(&mut op, Xorb),
        O::Any4 => rr(&mut op, Any4),
        O::All4 => rr(&mut op, All4),
        O::Any8 => rr(&mut op, Any8),
        O::All8 => rr(&mut op, All8),
        O::Movf => rrr(&mut op, Movf),
        O::Movt => rrr(&mut op, Movt),
        O::Rsr | O::Wsr | O::Xsr => {
            op.kind = match insn.op {
                O::Rsr => Rsr,
                O::Wsr => Wsr,
                _ => Xsr,
            };
            op.a = r(0);
            op.imm = u32::from(r(1));
        }
        O::Rur => {
            op.kind = Rur;
            op.a = r(0);
            op.imm = u32::from(r(1));
        }
        O::Wur => {
            op.kind = Wur;
            op.a = r(0);
            op.imm = u32::from(r(1));
        }
        O::Rsil => {
            op.kind = Rsil;
            op.a = r(0);
            op.imm = v(1);
        }
        O::Nop | O::NopN | O::Memw | O::Isync | O::Rsync | O::Esync | O::Dsync | O::Excw | O::Extw => {
            op.kind = Alu(AluOp::Nop)
        }
        O::Dhwb | O::Dhwbi | O::Dhi | O::Dpfl | O::Dhu => {
            op.kind = CacheProbe;
            op.b = r(0);
            op.imm = v(1);
        }
        O::Dpfr
        | O::Dpfw
        | O::Dpfro
        | O::Dpfwo
        | O::Dii
        | O::Diu
        | O::Diwb
        | O::Diwbi
        | O::Ipf
        | O::Ipfl
        | O::Ihu
        | O::Iiu
        | O::Ihi
        | O::Iii => op.kind = Alu(AluOp::Nop),
        O::Break => {
            op.kind = Break;
            op.imm = v(0);
            op.target = v(1);
        }
        O::BreakN => {
            op.kind = Break;
            op.imm = v(0);
        }
        O::Ill | O::IllN => op.kind = Ill,
        O::Simcall => op.kind = Simcall,
        O::Syscall => op.kind = Syscall,
        O::Waiti => {
            op.kind = Waiti;
            op.imm = v(0);
        }
        O::AddS => rrr(&mut op, AddS),
        O::SubS => rrr(&mut op, SubS),
        O::MulS => rrr(&mut op, MulS),
        O::MaddS => rrr(&mut op, MaddS),
        O::MsubS => rrr(&mut op, MsubS),
        O::MaddnS => rrr(&mut op, MaddnS),
        O::DivnS => rrr(&mut op, DivnS),
        O::MovS => rr(&mut op, MovS),
        O::AbsS => rr(&mut op, AbsS),
        O::NegS => rr(&mut op, NegS),
        O::ConstS => {
            op.kind = ConstS;
            op.a = r(0);
            op.imm = v(1);
        }
        O::Div0S => rr(&mut op, Div0S),
        O::Recip0S => rr(&mut op, Recip0S),
        O::Sqrt0S => rr(&mut op, Sqrt0S),
        O::Rsqrt0S => rr(&mut op, Rsqrt0S),
        O::Nexp01S => rr(&mut op, Nexp01S),
        O::MksadjS => rr(&mut op, MksadjS),
        O::MkdadjS => rr(&mut op, MkdadjS),
        O::AddexpS => rr(&mut op, AddexpS),
        O::AddexpmS => rr(&mut op, AddexpmS),
        O::Rfr => rr(&mut op, Rfr),
        O::Wfr => rr(&mut op, Wfr),
        O::RoundS => rri(&mut op, RoundS),
        O::TruncS => rri(&mut op, TruncS),
        O::FloorS => rri(&mut op, FloorS),
        O::CeilS => rri(&mut op, CeilS),
        O::UtruncS => rri(&mut op, UtruncS),
        O::FloatS => rri(&mut op, FloatS),
        O::UfloatS => rri(&mut op, UfloatS),
        O::UnS => rrr(&mut op, UnS),
        O::OeqS => rrr(&mut op, OeqS),
        O::UeqS => rrr(&mut op, UeqS),
        O::OltS => rrr(&mut op, OltS),
        O::UltS => rrr(&mut op, UltS),
        O::OleS => rrr(&mut op, OleS),
        O::UleS => rrr(&mut op, UleS),
        O::MoveqzS => rrr(&mut op, MoveqzS),
        O::MovnezS => rrr(&mut op, MovnezS),
        O::MovltzS => rrr(&mut op, MovltzS),
        O::MovgezS => rrr(&mut op, MovgezS),
        O::MovfS => rrr(&mut op, MovfS),
        O::MovtS => rrr(&mut op, MovtS),
        O::Lsi => rri(&mut op, Lsi),
        O::Lsiu => rri(&mut op, Lsiu),
        O::Lsip => rri(&mut op, Lsip),
        O::Lsx => rrr(&mut op, Lsx),
        O::Lsxu => rrr(&mut op, Lsxu),
        O::Lsxp => rrr(&mut op, Lsxp),
        O::Ssi => rri(&mut op, Ssi),
        O::Ssiu => rri(&mut op, Ssiu),
        O::Ssip => rri(&mut op, Ssip),
        O::Ssx => rrr(&mut op, Ssx),
        O::Ssxu => rrr(&mut op, Ssxu),
        O::Ssxp => rrr(&mut op, Ssxp),
        O::AddD | O::SubD | O::MulD | O::MaddD | O::MsubD | O::MaddnD | O::DivnD | O::Wfrd => rrr(&mut op, Fp64),
        O::UnD | O::OeqD | O::UeqD | O::OltD | O::UltD | O::OleD | O::UleD => rrr(&mut op, Fp64),
        O::Ldx | O::Ldxp | O::Sdx | O::Sdxp => rrr(&mut op, Fp64),
        O::MovD | O::AbsD | O::NegD | O::CvtsD | O::CvtdS | O::Rfrd => rr(&mut op, Fp64),
        O::Div0D | O::Recip0D | O::Sqrt0D | O::Rsqrt0D | O::Nexp01D => rr(&mut op, Fp64),
        O::MksadjD | O::MkdadjD | O::AddexpD | O::AddexpmD => rr(&mut op, Fp64),
        O::RoundD | O::TruncD | O::FloorD | O::CeilD | O::UtruncD | O::FloatD | O::UfloatD => rri(&mut op, Fp64),
        O::Ldi | O::Ldip | O::Sdi | O::Sdip => rri(&mut op, Fp64),
        O::ConstD => {
            op.kind = Fp64;
            op.a = r(0);
            op.imm = v(1);
        }
        O::Ritlb0 | O::Ritlb1 | O::Rdtlb0 | O::Rdtlb1 | O::Pitlb | O::Pdtlb | O::Witlb | O::Wdtlb => {
            rr(&mut op, Tlb);
            op.imm = tlb::of(insn.op);
        }
        O::Iitlb | O::Idtlb => {
            op.kind = Tlb;
            op.b = r(0);
            op.imm = tlb::of(insn.op);
        }
        _ if insn.op.requires().contains(q7_isa::Feature::Mac16) => {
            op.kind = Mac16;
            (op.a, op.b, op.c, op.imm) = mac16::pack(insn);
        }
        _ => op.kind = Unsupported,
    }
    op.frame = highest_frame(insn);
    op
}

/// The operation of a [`Kind::Tlb`] op: bit 0 the data TLB, bits 1.. what.
pub mod tlb {
    use q7_isa::Opcode;

    pub const DATA: u32 = 1;
    pub const READ0: u32 = 0 << 1;
    pub const READ1: u32 = 1 << 1;
    pub const PROBE: u32 = 2 << 1;
    pub const WRITE: u32 = 3 << 1;
    pub const INVALIDATE: u32 = 4 << 1;

    pub fn of(op: Opcode) -> u32 {
        match op {
            Opcode::Ritlb0 => READ0,
            Opcode::Rdtlb0 => READ0 | DATA,
            Opcode::Ritlb1 => READ1,
            Opcode::Rdtlb1 => READ1 | DATA,
            Opcode::Pitlb => PROBE,
            Opcode::Pdtlb => PROBE | DATA,
            Opcode::Witlb => WRITE,
            Opcode::Wdtlb => WRITE | DATA,
            Opcode::Iitlb => INVALIDATE,
            _ => INVALIDATE | DATA,
        }
    }
}

/// The fields of a [`Kind::Mac16`] op, packed in `imm` from the mnemonic
/// (`mula.da.hl.ldinc`: operation, sources, halves, load) and operands.
pub mod mac16 {
    use q7_isa::{Insn, Operand};

    pub const UMUL: u32 = 0;
    pub const MUL: u32 = 1;
    pub const MULA: u32 = 2;
    pub const MULS: u32 = 3;
    /// `ldinc`/`lddec`: the load alone.
    pub const NONE: u32 = 4;

    /// The operation (bits 0..3).
    pub fn operation(imm: u32) -> u32 {
        imm & 7
    }
    /// Whether the first (second) multiplicand is its register's high half.
    pub fn high(imm: u32, which: u32) -> bool {
        imm >> (3 + which) & 1 != 0
    }
    /// Whether the first (second) multiplicand is an M register.
    pub fn from_m(imm: u32, which: u32) -> bool {
        imm >> (5 + which) & 1 != 0
    }
    /// The load's address step: 0 (none), 4 (ldinc) or -4 (lddec).
    pub fn step(imm: u32) -> i32 {
        match imm >> 7 & 3 {
            1 => 4,
            2 => -4,
            _ => 0,
        }
    }
    /// The M register the load writes.
    pub fn target(imm: u32) -> usize {
        (imm >> 9 & 3) as usize
    }

    /// (a, b, c, imm) of a MAC16 instruction.
    pub fn pack(insn: &Insn) -> (u8, u8, u8, u32) {
        let mut parts = insn.op.mnemonic().split('.');
        let operation = match parts.next() {
            Some("umul") => UMUL,
            Some("mul") => MUL,
            Some("mula") => MULA,
            Some("muls") => MULS,
            _ => NONE,
        };
        let ops = insn.operands();
        let number = |i: usize| match ops.get(i) {
            Some(Operand::Ar(n) | Operand::Mr(n)) => (*n, matches!(ops.get(i), Some(Operand::Mr(_)))),
            _ => (0, false),
        };
        let mut imm = operation;
        let (mut a, mut b) = (0, 0);
        // The sources and halves come after the operation: `da.hl`.
        if operation != NONE {
            let _sources = parts.next();
            if let Some(halves) = parts.next() {
                imm |= u32::from(halves.starts_with('h')) << 3 | u32::from(halves.ends_with('h')) << 4;
            }
        }
        let load = insn.op.mnemonic().ends_with("inc") || insn.op.mnemonic().ends_with("dec");
        let first = if load { 2 } else { 0 };
        if operation != NONE {
            let (x, x_m) = number(first);
            let (y, y_m) = number(first + 1);
            (a, b) = (x, y);
            imm |= u32::from(x_m) << 5 | u32::from(y_m) << 6;
        }
        let mut c = 0;
        if load {
            let step = if insn.op.mnemonic().ends_with("inc") { 1 } else { 2 };
            imm |= step << 7 | u32::from(number(0).0 & 3) << 9;
            c = number(1).0;
        }
        (a, b, c, imm)
    }
}

fn call_increment(op: Opcode) -> u32 {
    match op {
        Opcode::Call4 | Opcode::Callx4 => 1,
        Opcode::Call8 | Opcode::Callx8 => 2,
        _ => 3,
    }
}

/// The highest window frame (AR number / 4) an instruction reads or writes,
/// including the implicit return-address register of `callN`/`callxN`.
fn highest_frame(insn: &Insn) -> u8 {
    let explicit = insn.operands().iter().filter_map(|o| match o {
        Operand::Ar(n) => Some(*n),
        _ => None,
    });
    let implicit = match insn.op {
        Opcode::Call4 | Opcode::Callx4 => Some(4),
        Opcode::Call8 | Opcode::Callx8 => Some(8),
        Opcode::Call12 | Opcode::Callx12 => Some(12),
        _ => None,
    };
    explicit.chain(implicit).max().map_or(0, |r| r / 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_isa::{decode, IsaOptions};

    fn op_of(bytes: &[u8]) -> Op {
        translate(&decode(bytes, 0x1000, &IsaOptions::vision_q7()).unwrap())
    }

    #[test]
    fn aliases_share_a_kind() {
        // add.n a2, a3, a4 and add a2, a3, a4
        let narrow = op_of(&[0x4a, 0x23]);
        let wide = op_of(&[0x40, 0x23, 0x80]);
        assert_eq!((narrow.kind, narrow.a, narrow.b, narrow.c), (Kind::Alu(AluOp::Add), 2, 3, 4));
        assert_eq!((wide.kind, wide.a, wide.b, wide.c), (Kind::Alu(AluOp::Add), 2, 3, 4));
        assert_eq!((narrow.len, wide.len), (2, 3));
    }

    #[test]
    fn call8_names_a8() {
        // call8 with offset 0 at 0x1000: target (0x1000 & !3) + 4
        let op = op_of(&[0x25, 0x00, 0x00]);
        assert_eq!((op.kind, op.imm, op.frame, op.target), (Kind::CallN, 2, 2, 0x1004));
        assert!(op.ends_block());
    }
}
