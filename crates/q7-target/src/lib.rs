//! `q7-target`: the GPSIMD platform as q7 models it, below every pipeline
//! crate. It owns the facts that the linker scripts, the packer, the
//! prelinker, the simulator and the CLI must agree on, plus the two small
//! conventions every crate shares (number parsing, atomic output):
//!
//! * [`memmap`]: core windows (the aperture law), vectors, shared DRAM, TCM
//!   and tensor memory (docs/PLATFORM.md);
//! * [`launch`]: the launch block, argument records and tensor descriptors
//!   the host writes for the device runtime (sdk/ABI.md);
//! * [`dtype`]: tensor element types and their `c10::ScalarType` codes;
//! * [`schema`]: op schemas (`relu(Tensor _0, float s) -> Tensor`), the
//!   argument kinds a kernel takes; written into the wrapper by the build and
//!   read back by the simulator to bind arguments;
//! * [`artifacts`]: the file names of a build (`NAME_cpuN.so`, ...), made and
//!   parsed in one place;
//! * [`num`]: the one parser of `0x`-hex-or-decimal numbers;
//! * [`fs`]: the one way q7 writes an output file (atomically).
#![forbid(unsafe_code)]

pub mod artifacts;
pub mod digest;
pub mod dtype;
pub mod fs;
pub mod launch;
pub mod memmap;
pub mod num;
pub mod par;
pub mod schema;
pub mod stale;

pub use artifacts::{Artifact, ArtifactKind};
pub use dtype::{DType, Element};
pub use memmap::Window;
