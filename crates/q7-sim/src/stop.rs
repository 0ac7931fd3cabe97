//! Why a core stops: the XEA2 exception cause codes and the reports a core
//! gives when nothing can handle an exception (or it cannot go on).

use std::fmt;

use crate::mem::MemFault;

/// EXCCAUSE values (Xtensa ISA, exception causes).
pub mod cause {
    pub const ILLEGAL_INSTRUCTION: u32 = 0;
    pub const SYSCALL: u32 = 1;
    pub const INSTRUCTION_FETCH_ERROR: u32 = 2;
    pub const LOAD_STORE_ERROR: u32 = 3;
    pub const ALLOCA: u32 = 5;
    pub const INTEGER_DIVIDE_BY_ZERO: u32 = 6;
    pub const PRIVILEGED: u32 = 8;
    /// An instruction fetch from an address no memory answers.
    pub const INSTR_PIF_ADDR_ERROR: u32 = 14;
    pub const LOAD_STORE_ALIGNMENT: u32 = 9;
    /// A load or store to an address no memory answers.
    pub const LOAD_STORE_PIF_ADDR_ERROR: u32 = 15;
    /// Coprocessor n disabled is 32 + n.
    pub const COPROCESSOR0_DISABLED: u32 = 32;

    pub fn name(cause: u32) -> &'static str {
        match cause {
            ILLEGAL_INSTRUCTION => "IllegalInstruction",
            SYSCALL => "Syscall",
            INSTRUCTION_FETCH_ERROR => "InstructionFetchError",
            LOAD_STORE_ERROR => "LoadStoreError",
            ALLOCA => "Alloca",
            INTEGER_DIVIDE_BY_ZERO => "IntegerDivideByZero",
            PRIVILEGED => "Privileged",
            LOAD_STORE_ALIGNMENT => "LoadStoreAlignment",
            INSTR_PIF_ADDR_ERROR => "InstrPIFAddrError",
            LOAD_STORE_PIF_ADDR_ERROR => "LoadStorePIFAddrError",
            32..=39 => "CoprocessorDisabled",
            _ => "exception",
        }
    }
}

/// Why a core stopped for good (other than a clean exit).
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// Bytes at `pc` are not an instruction of this core.
    Illegal {
        pc: u32,
        bytes: Vec<u8>,
        why: String,
    },
    /// A decoded instruction the simulator does not model.
    Unsupported {
        pc: u32,
        mnemonic: &'static str,
    },
    /// An access hit unmapped memory, another core's memory, or a region
    /// without the permission; `explanation` names the region.
    Memory {
        pc: u32,
        fault: MemFault,
        explanation: String,
    },
    Unaligned {
        pc: u32,
        addr: u32,
        size: u8,
        store: bool,
    },
    DivideByZero {
        pc: u32,
    },
    /// `entry`/`movsp` moved the stack pointer below the end of `.bss`.
    StackOverflow {
        pc: u32,
        sp: u32,
        floor: u32,
    },
    Breakpoint {
        pc: u32,
        s: u32,
        t: u32,
    },
    /// An exception with no handler: ill, syscall, coprocessor disabled...
    Unhandled {
        pc: u32,
        cause: u32,
    },
    /// An exception raised while PS.EXCM was set (inside a handler).
    DoubleException {
        pc: u32,
        cause: u32,
    },
    /// A windowed return that cannot be executed (`retw` with call
    /// increment 0, or with window overflow disabled).
    BadReturn {
        pc: u32,
        why: String,
    },
    /// `waiti` with no interrupt source: the core would sleep forever.
    Waiti {
        pc: u32,
    },
}

impl Stop {
    pub fn pc(&self) -> u32 {
        match *self {
            Stop::Illegal { pc, .. }
            | Stop::Unsupported { pc, .. }
            | Stop::Memory { pc, .. }
            | Stop::Unaligned { pc, .. }
            | Stop::DivideByZero { pc }
            | Stop::StackOverflow { pc, .. }
            | Stop::Breakpoint { pc, .. }
            | Stop::Unhandled { pc, .. }
            | Stop::DoubleException { pc, .. }
            | Stop::BadReturn { pc, .. }
            | Stop::Waiti { pc } => pc,
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Illegal { pc, bytes, why } => {
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                write!(f, "illegal instruction at {pc:#010x} (bytes {}): {why}", hex.join(" "))
            }
            Stop::Unsupported { pc, mnemonic } => {
                write!(f, "instruction `{mnemonic}` at {pc:#010x} is not modelled by the simulator")
            }
            Stop::Memory { pc, explanation, .. } => write!(f, "memory fault at pc {pc:#010x}: {explanation}"),
            Stop::Unaligned { pc, addr, size, store } => write!(
                f,
                "unaligned {size}-byte {} {addr:#010x} at pc {pc:#010x}",
                if *store { "store to" } else { "load from" }
            ),
            Stop::DivideByZero { pc } => write!(f, "integer divide by zero at pc {pc:#010x}"),
            Stop::StackOverflow { pc, sp, floor } => write!(
                f,
                "stack overflow at pc {pc:#010x}: the stack pointer would drop to {sp:#010x}, below the end of .bss at {floor:#010x}"
            ),
            Stop::Breakpoint { pc, s, t } => write!(f, "breakpoint `break {s}, {t}` at pc {pc:#010x}"),
            Stop::Unhandled { pc, cause } => write!(
                f,
                "unhandled {} exception (EXCCAUSE {cause}) at pc {pc:#010x}: q7 op images carry no exception handlers",
                cause::name(*cause)
            ),
            Stop::DoubleException { pc, cause } => {
                write!(f, "double exception: {} (EXCCAUSE {cause}) at pc {pc:#010x} inside a handler", cause::name(*cause))
            }
            Stop::BadReturn { pc, why } => write!(f, "bad windowed return at pc {pc:#010x}: {why}"),
            Stop::Waiti { pc } => write!(f, "waiti at pc {pc:#010x}: no interrupt can wake the core"),
        }
    }
}
