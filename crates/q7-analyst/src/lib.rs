//! `q7-analyst`: the analyst kit of docs/FACTS.md, "Analyst methods" — tools that turn a claim about
//! a shipped artifact into an auditable fact:
//!
//! * [`struct_layout`]: `sizeof`/`offsetof` of header structs, measured by
//!   compiling and running a probe, and the header's own size assertions
//!   re-checked against the measurement ("Compile-verified struct layouts");
//! * [`core_config`]: Tensilica core descriptions (`*-params`, `core-isa.h`)
//!   normalised and cross-validated source against source ("Core-config cross-validation");
//! * [`oracle`]: a leaf of a host library executed on an input grid in a
//!   separate process and compared with a reference expression ("Value oracle");
//! * [`diff`]: two images compared by hash, then section by section ("Cross-generation diff").
//!
//! Every fact carries an [`Evidence`] tag (docs/FACTS.md, "Evidence vocabulary").
// Unsafe code only where a module allows it (and says why).
#![deny(unsafe_code)]

pub mod core_config;
pub mod diff;
pub mod evidence;
pub mod expr;
pub mod oracle;
pub mod struct_layout;

pub use evidence::{Evidence, EvidenceKind};

#[cfg(test)]
extern crate self as q7_analyst;
#[cfg(test)]
mod testsuite;
