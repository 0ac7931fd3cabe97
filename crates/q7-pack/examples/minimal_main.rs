//! The start-up reference of `cargo bench -p q7-pack`: a Rust binary that
//! does nothing, built with the same profile as `q7`, so that `q7 pack` as a
//! process can be set against what any Rust process costs to start.

fn main() {}
