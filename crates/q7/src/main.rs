//! The `q7` binary: the CLI of the `q7` library crate.
#![forbid(unsafe_code)]

fn main() {
    std::process::exit(q7::main(std::env::args_os().collect()));
}
