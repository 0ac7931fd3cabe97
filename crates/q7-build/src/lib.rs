//! `q7-build`: everything `q7 build` needs to turn op sources into linked,
//! packed per-core images: schemas, wrapper codegen, linker support
//! packages, the toolchains' argv (`toolchain`) and the build driver.
// Unsafe code lives only in `native::child` (the host run's process group,
// seccomp filter and signal handlers).
#![deny(unsafe_code)]

pub mod backend_errors;
pub mod builddir;
pub mod command;
pub mod driver;
pub mod exec;
pub mod incremental;
mod ir_compile;
pub mod legalize;
pub mod lsp;
pub mod native;
mod observer;
pub mod prepare;
mod request;
pub mod toolchain;
pub use q7_target::schema;
pub mod sdk;
pub mod shape;
pub mod timeline;
pub mod wrapper;

#[cfg(test)]
extern crate self as q7_build;
#[cfg(test)]
mod testsuite;
