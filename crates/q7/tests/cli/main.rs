//! The q7 command line's integration tests, one module per area, linked
//! as one test binary (a link per test file costs minutes on 2 cores).
//! Each module's doc comment says what it covers.

mod analyst_support;
mod common;
mod disasm_support;
mod pack_support;
mod run_support;

mod analyst_core_config;
mod analyst_diff;
mod analyst_malformed_inputs;
mod analyst_oracle;
mod analyst_struct_layout;
mod archive_inputs;
mod build_errors;
mod build_legalize;
mod build_open;
mod build_shape;
mod build_vendor_argv;
mod builtin_structure;
mod csmith_diff;
mod disasm_boundaries;
mod disasm_cli;
mod disasm_gnu_corpus;
mod disasm_gnu_peer;
mod disasm_llvm_peer;
mod examples_build;
mod examples_run;
mod fixtures_rebuild;
mod inspect_carve;
mod inspect_kinfo;
mod inspect_rebase;
mod inspect_roster;
mod inspect_strings;
mod layout_svg;
mod layout_vs_readelf;
mod library_messages;
mod lsp;
mod malformed_inputs;
mod native_run;
mod pack_cli;
mod pack_errors;
mod pack_peers;
mod patterns_run;
mod prelink_cli;
mod prelink_errors;
mod prelink_rebase_oracle;
mod profile;
mod run_api;
mod run_bare;
mod run_checks;
mod run_fuzz;
mod run_relu;
mod sdk_check;
mod stats_model;
mod trust;
