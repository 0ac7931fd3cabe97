//! Embeds the open device SDK (`sdk/include`, `sdk/src`) into the crate so
//! the q7 binary can build it anywhere without the source tree.

use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let sdk = manifest.join("../../sdk").canonicalize().expect("the sdk/ directory beside crates/");
    let mut files = Vec::new();
    for part in ["include", "src"] {
        println!("cargo:rerun-if-changed={}", sdk.join(part).display());
        walk(&sdk.join(part), &mut files);
    }
    let mut code = String::from(
        "/// The SDK's files: (path relative to sdk/, contents).\npub static SDK_FILES: &[(&str, &[u8])] = &[\n",
    );
    for f in &files {
        let rel = f.strip_prefix(&sdk).unwrap().to_string_lossy().replace('\\', "/");
        code.push_str(&format!("    ({rel:?}, include_bytes!({:?})),\n", f.display().to_string()));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("sdk_files.rs");
    std::fs::write(out, code).unwrap();
}
