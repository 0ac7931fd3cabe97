//! The crate's tests against its public API and against peer tools, built
//! into the unit-test binary (one link per crate instead of one per file).
//! Each module's doc comment says what it covers; they name the crate as
//! `q7_build::…`, as a user would.

mod native_host;
mod sdk_numerics;
mod wrapper_snapshot;
