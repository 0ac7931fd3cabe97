//! q7-sim: an instruction-set simulator for the scalar Xtensa core of AWS
//! Neuron's GPSIMD Vision-Q7 cores, the eight-core machine that runs q7's op
//! images, and the host side of the device ABI (sdk/ABI.md).
//!
//! Layers, bottom up (each imports only layers above it in this list; a
//! unit test keeps it so):
//!
//! * [`checks`]: what the hardware does not check (stray stores and loads,
//!   races, reads of never-written output, TCM or stack), from core ids,
//!   pcs and addresses;
//! * [`mem`]: regions, per-core page tables, code coherence, checker calls;
//! * [`stop`] and [`ps`]: why a core stops, the fields of PS;
//! * [`alu`]: the one ALU, and register-only loop bodies;
//! * [`uop`] and [`cost`]: instructions decoded once (by `q7-isa`, the
//!   decoder `q7 disasm` uses) into micro-ops, and their cycle costs;
//! * [`tally`]: which accesses the memory-class model prices, and the
//!   transfer calls' spans (`q7 run --stats` on the fast engines);
//! * [`block`]: pre-decoded basic blocks and the per-core block cache;
//! * [`config`] and [`firmware`]: core configurations, the window handlers
//!   placed at iram0 for op images;
//! * [`jit`]: the translating back end (Cranelift), which compiles hot
//!   blocks and hands every case it does not handle inline back to the
//!   interpreter before the op (the cpu layer enters it);
//! * [`cpu`]: architectural state and the interpreter, including the real
//!   windowed-register exceptions and zero-overhead loops;
//! * [`interrupt`]: how a front end asks a run to stop (Ctrl-C);
//! * [`machine`]: cores in deterministic round-robin, `simcall` services,
//!   instruction and wall-clock limits, interrupts;
//! * [`debug`]: the debugger's engine, a run as a timeline travelled both
//!   ways (snapshots, exact re-execution, breakpoints, watchpoints);
//! * [`bare`]: single bare-metal programs laid out like QEMU's `-M sim`;
//! * [`op`]: q7 op images on the 8-core machine: loading, launch blocks,
//!   tensors in and out, the op-running API ([`npy`] reads and writes
//!   `.npy` files);
//! * [`debuginfo`]: source lines, breakpoint addresses, locals and
//!   expressions of a `-g` image from its DWARF (it knows a frame only
//!   through a trait, nothing of the layers that run code).
//!
//! The crate's API is the modules other crates use (`bare`, `config`,
//! `debug`, `debuginfo`, `interrupt`, `jit` for the engine choice,
//! `machine`, `mem`, `npy`, `op`, `output`); the rest is `pub(crate)`.
// Unsafe code lives only where compiled code is entered (`jit`, `cpu`'s
// call into it), in `mem`'s zeroed page tables and in `dense` (huge-page
// advice), each use with its reason.
#![deny(unsafe_code)]

pub(crate) mod alu;
pub mod bare;
pub(crate) mod block;
pub(crate) mod checks;
pub mod config;
pub(crate) mod cost;
pub(crate) mod cpu;
pub mod debug;
pub mod debuginfo;
pub(crate) mod dense;
pub(crate) mod firmware;
pub mod interrupt;
#[allow(unsafe_code)]
pub mod jit;
pub mod machine;
pub mod mem;
pub mod npy;
pub mod op;
pub mod output;
pub(crate) mod profile;
pub(crate) mod ps;
pub(crate) mod stop;
pub(crate) mod tally;
pub(crate) mod uop;
pub(crate) mod zeroed;

#[cfg(test)]
mod layers;
#[cfg(test)]
extern crate self as q7_sim;
#[cfg(test)]
mod testsuite;

/// Errors that keep a simulation from starting or finishing. One line each;
/// each keeps its cause.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The program or image is not a usable ELF file.
    #[error(transparent)]
    Elf(#[from] q7_elf::Error),
    #[error("segment at {vaddr:#x} runs past the end of the file")]
    SegmentPastEnd { vaddr: u32 },
    #[error("the loadable segments at {first:#x} and {second:#x} overlap")]
    OverlappingSegments { first: u32, second: u32 },
    /// The image could not be bound to its window.
    #[error(transparent)]
    Prelink(#[from] q7_pack::prelink::PrelinkError),
    /// Loading bytes into simulated memory failed.
    #[error(transparent)]
    HostAccess(#[from] mem::HostAccessError),
    /// A host-driven call into the image (the function lookup) stopped.
    #[error("calling {addr:#x} to look up the function: {stop}")]
    CallStopped { addr: u32, stop: stop::Stop },
    #[error("calling {addr:#x} to look up the function did not return ({state})")]
    CallDidNotReturn { addr: u32, state: String },
}
