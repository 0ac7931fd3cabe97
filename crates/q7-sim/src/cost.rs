//! The cycle cost models. Two layers: the issue cost of each instruction
//! class (below; the block interpreter counts these on every run), and the
//! memory-class model [`MODEL`] that `q7 profile` adds on the profiling path
//! (`crate::profile`) and `q7 run --stats` on the normal engines
//! (`crate::tally`). `docs/COST_MODEL.md` documents both and the calibration.
//!
//! The issue costs are deliberately simple and stable, not a timing model
//! of the real pipeline (which is unpublished): every instruction costs one
//! cycle, plus
//!
//! | what | extra cycles |
//! |---|---|
//! | load (`l8ui`..`l32r`, `lsi`..) | +1 (a typical load-use stall) |
//! | 32-bit multiply (`mull`, `mulsh`, `muluh`) | +1 |
//! | divide / remainder (`quos`, `quou`, `rems`, `remu`) | +12 |
//! | taken branch, jump, call or return | +2 (added when taken, see [`TAKEN_BRANCH`]) |
//! | FP divide/sqrt step (`divn.s`, `div0.s`, ...) | +3 |
//!
//! Window overflow/underflow handlers cost what their instructions cost,
//! since the simulator really runs them.

use crate::alu::AluOp;
use crate::uop::Kind;

/// Extra cycles when a branch is taken, or a jump, call or return happens.
pub const TAKEN_BRANCH: u64 = 2;

/// Cycles charged for one op before any taken-branch penalty.
pub fn cycles(kind: Kind) -> u8 {
    use Kind::*;
    match kind {
        L8ui | L16ui | L16si | L32i | L32r | L32e | Lsi | Lsiu | Lsip | Lsx | Lsxu | Lsxp | S32c1i => 2,
        Alu(AluOp::Mull | AluOp::Mulsh | AluOp::Muluh) => 2,
        Quos | Quou | Rems | Remu => 13,
        DivnS | Div0S | Recip0S | Sqrt0S | Rsqrt0S => 4,
        _ => 1,
    }
}

/// Where a load or store lands, as the memory-class model prices it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum MemClass {
    /// The op's own window: code, literals, data, `.bss`, its stack.
    Local,
    /// The core's private TCM pool.
    Tcm,
    /// Tensor memory reached by ordinary loads and stores (accessors).
    TensorAccess,
    /// Tensor memory moved by the SDK's transfer calls (`q7_tensor_to_tcm`,
    /// `q7_tcm_to_tensor`, stream copies): priced as a DMA transfer.
    TensorTransfer,
    /// The shared DRAM staging window every core sees.
    SharedDram,
}

impl MemClass {
    pub const ALL: [MemClass; 5] =
        [MemClass::Local, MemClass::Tcm, MemClass::TensorAccess, MemClass::TensorTransfer, MemClass::SharedDram];

    pub fn name(self) -> &'static str {
        match self {
            MemClass::Local => "local",
            MemClass::Tcm => "tcm",
            MemClass::TensorAccess => "tensor-access",
            MemClass::TensorTransfer => "tensor-transfer",
            MemClass::SharedDram => "shared-dram",
        }
    }
}

/// The memory-class cost model (`docs/COST_MODEL.md` documents every
/// value and where it comes from). Instruction issue costs are [`cycles`]
/// and [`TAKEN_BRANCH`]; this adds what the memory system costs.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct CostModel {
    pub name: &'static str,
    pub version: u32,
    /// Core clock, to turn cycles into predicted device time.
    pub clock_hz: f64,
    /// Extra cycles per load or store, by class (indexed as [`MemClass::ALL`]);
    /// the transfer class is priced by `transfer_*` instead.
    pub access_latency: [f64; 5],
    /// Cycles to set up one transfer call (descriptor, DMA start, completion wait).
    pub transfer_setup: f64,
    /// Tensor-memory bytes a transfer moves per core cycle.
    pub transfer_bytes_per_cycle: f64,
}

/// The model `q7 profile` and `q7 run --stats` use.
pub const MODEL: CostModel = CostModel {
    name: "q7-memclass",
    version: 1,
    clock_hz: 1.4e9,
    // local, tcm, tensor-access (fitted: accessor/TCM relu = 27.25), (transfer: below), shared-dram
    access_latency: [0.0, 0.0, 113.0, 0.0, 40.0],
    transfer_setup: 300.0,
    transfer_bytes_per_cycle: 8.0,
};

impl CostModel {
    pub fn latency(&self, class: MemClass) -> f64 {
        self.access_latency[class as usize]
    }

    /// Cycles to move `bytes` of tensor memory in transfers.
    pub fn transfer_cycles(&self, bytes: u64) -> f64 {
        bytes as f64 / self.transfer_bytes_per_cycle
    }
}

/// Instruction classes, for reporting issue cycles by class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsnClass {
    Alu,
    MulDiv,
    LoadStore,
    Branch,
    Float,
    Other,
}

impl InsnClass {
    pub const ALL: [InsnClass; 6] = [
        InsnClass::Alu,
        InsnClass::MulDiv,
        InsnClass::LoadStore,
        InsnClass::Branch,
        InsnClass::Float,
        InsnClass::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            InsnClass::Alu => "alu",
            InsnClass::MulDiv => "mul-div",
            InsnClass::LoadStore => "load-store",
            InsnClass::Branch => "branch-call",
            InsnClass::Float => "float",
            InsnClass::Other => "other",
        }
    }
}

/// The class of an op, as the issue table above groups them.
pub fn insn_class(kind: Kind) -> InsnClass {
    use Kind::*;
    match kind {
        Alu(AluOp::Mull | AluOp::Mulsh | AluOp::Muluh | AluOp::Mul16u | AluOp::Mul16s) => InsnClass::MulDiv,
        Quos | Quou | Rems | Remu => InsnClass::MulDiv,
        Alu(_) | Ssr | Ssl | Ssa8l | Ssa8b | Ssai => InsnClass::Alu,
        L8ui | L16ui | L16si | L32i | L32r | S8i | S16i | S32i | S32c1i | L32e | S32e => InsnClass::LoadStore,
        Lsi | Lsiu | Lsip | Lsx | Lsxu | Lsxp | Ssi | Ssiu | Ssip | Ssx | Ssxu | Ssxp => InsnClass::LoadStore,
        Beq | Bne | Blt | Bge | Bltu | Bgeu | Ball | Bany | Bnall | Bnone | Bbc | Bbs | Beqi | Bnei | Blti | Bgei
        | Bltui | Bgeui | Bbci | Bbsi | Beqz | Bnez | Bltz | Bgez | Bf | Bt | J | Jx | Call0 | Callx0 | CallN
        | CallxN | Ret | Retw | Entry | Loop | Loopnez | Loopgtz => InsnClass::Branch,
        AddS | SubS | MulS | MaddS | MsubS | MaddnS | DivnS | MovS | AbsS | NegS | ConstS | Div0S | Recip0S
        | Sqrt0S | Rsqrt0S | Nexp01S | MksadjS | MkdadjS | AddexpS | AddexpmS | Rfr | Wfr | RoundS | TruncS
        | FloorS | CeilS | UtruncS | FloatS | UfloatS | UnS | OeqS | UeqS | OltS | UltS | OleS | UleS | MoveqzS
        | MovnezS | MovltzS | MovgezS | MovfS | MovtS => InsnClass::Float,
        _ => InsnClass::Other,
    }
}
