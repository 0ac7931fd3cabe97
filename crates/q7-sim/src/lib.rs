//! q7-sim: an instruction-set simulator for the scalar Xtensa core of AWS
//! Neuron's GPSIMD Vision-Q7 cores, the eight-core machine that runs q7's op
//! images, and the host side of the device ABI (sdk/ABI.md).
//!
//! Layers, bottom up:
//!
//! * [`mem`]: regions, per-core page tables, code coherence, checker hooks;
//! * [`ops`] and [`block`]: instructions decoded once (by `q7-isa`, the
//!   decoder `q7 disasm` uses) into pre-decoded basic blocks;
//! * [`core`]: architectural state and the interpreter, including the real
//!   windowed-register exceptions and zero-overhead loops;
//! * [`firmware`]: the window handlers placed at iram0 for op images;
//! * [`machine`]: cores in deterministic round-robin, `simcall` services,
//!   instruction and wall-clock limits;
//! * [`bare`]: single bare-metal programs laid out like QEMU's `-M sim`;
//! * [`op`]: q7 op images on the 8-core machine: loading, launch blocks,
//!   tensors in and out ([`npy`] reads and writes `.npy` files);
//! * [`checks`]: what the hardware does not check (stray stores, races,
//!   reads of never-written output).
#![forbid(unsafe_code)]

pub mod bare;
pub mod block;
pub mod checks;
pub mod config;
pub mod core;
pub mod cost;
pub mod firmware;
pub mod machine;
pub mod mem;
pub mod npy;
pub mod op;
pub mod ops;
pub mod output;

/// Errors that keep a simulation from starting or finishing. One line each.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Image(String),
    #[error("{0}")]
    Launch(String),
}
