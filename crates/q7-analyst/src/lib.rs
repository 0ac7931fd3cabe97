//! `q7-analyst`: the analyst kit of seed 003 — tools that turn a claim about
//! a shipped artifact into an auditable fact:
//!
//! * [`struct_layout`]: `sizeof`/`offsetof` of header structs, measured by
//!   compiling and running a probe, and the header's own size assertions
//!   re-checked against the measurement (seed 003 §2 c);
//! * [`core_config`]: Tensilica core descriptions (`*-params`, `core-isa.h`)
//!   normalised and cross-validated source against source (§2 f);
//! * [`oracle`]: a leaf of a host library executed on an input grid in a
//!   separate process and compared with a reference expression (§3–§4);
//! * [`diff`]: two images compared by hash, then section by section (§2 e).
//!
//! Every fact carries an [`Evidence`] tag (§2 g).
// Unsafe code only where a module allows it (and says why).
#![deny(unsafe_code)]

pub mod core_config;
pub mod diff;
pub mod evidence;
pub mod expr;
pub mod oracle;
pub mod sha256;
pub mod struct_layout;

pub use evidence::{Evidence, EvidenceKind};
