//! Links the `q7` binary as a position-dependent executable on Linux. As a
//! PIE it carried some 15,000 relative relocations that the dynamic loader
//! applied at every start (and the pages they dirtied): a quarter of the
//! instructions of `q7 pack` as a process (the start-up bench row). Nothing
//! in q7 depends on where its own image is loaded.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
