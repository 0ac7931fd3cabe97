//! The simulator's tests against its public API and against QEMU, built into
//! the unit-test binary (one link instead of one per file). Each module's doc
//! comment says what it covers; they name the crate as `q7_sim::…`, as a user
//! would. The programs they run are built from `tests/programs/`.

mod debugging;
mod debuginfo_ops;
mod engine_differential;
mod iss_reports;
mod jit_ops;
mod jit_sharing;
mod qemu_differential;
mod stopping;
