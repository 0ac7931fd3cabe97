//! The packer's and prelinker's tests against their public API and the GNU
//! binutils peers, built into the unit-test binary. Each module's doc comment
//! says what it covers; they name the crate as `q7_pack::…`, as a user would.

mod pack_rebase;
mod pack_recipe;
mod prelink_disasm;
mod support;
