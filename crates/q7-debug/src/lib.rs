//! The debugger's command language: one line in, text out, over a debugged
//! op's timeline ([`q7_sim::op::debug::OpDebug`]). The CLI's prompt and
//! `-x` scripts, its Debug Adapter Protocol server and the Python package's
//! `q7.pm()`/`q7.debug()` all drive the same [`Session`].

#![forbid(unsafe_code)]

pub mod dap;
mod motion;
mod session;

pub use session::{Flow, Move, NewBreakpoint, Session, Stop, COMMAND_NAMES};
