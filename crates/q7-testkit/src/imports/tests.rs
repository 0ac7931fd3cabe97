use super::{cycles, module_graph, Graph};
use std::path::PathBuf;

/// A throwaway crate: `files` as (path under src/, text).
fn planted(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("q7-imports-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn graph_of(name: &str, files: &[(&str, &str)]) -> Graph {
    let dir = planted(name, files);
    let g = module_graph(&dir.join("lib.rs")).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
    g
}

fn deps<'a>(g: &'a Graph, m: &str) -> Vec<&'a str> {
    g[m].iter().map(String::as_str).collect()
}

#[test]
fn a_planted_circle_is_named() {
    let g = graph_of(
        "circle",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
            ("b.rs", "pub struct B;\npub fn f() -> u32 { super::c::g() }\n"),
            ("c/mod.rs", "mod inner;\npub fn g() -> u32 { inner::h() }\n"),
            ("c/inner.rs", "pub fn h() -> u32 { let _ = crate::a::A(crate::b::B); 1 }\n"),
        ],
    );
    assert_eq!(deps(&g, "b"), ["c"]);
    assert_eq!(deps(&g, "c"), ["c::inner"]);
    assert_eq!(cycles(&g), [["a", "b", "c", "c::inner", "a"]]);
}

#[test]
fn comments_literals_and_facades_are_not_imports() {
    let g = graph_of(
        "facade",
        &[
            // lib.rs re-exports without using: a forward, not a dependency.
            ("lib.rs", "mod low;\nmod high;\npub use low::Low;\npub use high::*;\n"),
            ("low.rs", "// crate::high::f\n/* crate::high::f */\npub struct Low;\nconst S: &str = \"crate::high::f\";\nconst R: &str = r#\"super::high\"#;\nfn l<'a>(x: &'a str) -> char { let _ = x; 'c' }\n"),
            // Through the root's re-export, `crate::Low` is low.rs's.
            ("high.rs", "use crate::Low;\npub fn f(_: Low) {}\n#[cfg(test)]\nmod tests { use super::*; fn t() { f(crate::Low) } }\n"),
        ],
    );
    assert!(g["crate"].is_empty(), "{g:?}");
    assert!(g["low"].is_empty(), "{g:?}");
    assert_eq!(deps(&g, "high"), ["low"]);
    assert!(cycles(&g).is_empty());
}

#[test]
fn groups_aliases_and_globs_resolve_to_their_files() {
    let g = graph_of(
        "groups",
        &[
            ("lib.rs", "pub mod x;\nmod y;\nmod z;\n"),
            ("x/mod.rs", "mod p;\nmod q;\npub use p::*;\npub(crate) use q::Q as Qu;\n"),
            ("x/p.rs", "pub struct P;\n"),
            ("x/q.rs", "pub struct Q;\n"),
            ("y.rs", "use crate::x::{self, Qu as Q2};\nfn f() -> x::P { todo!() }\n"),
            ("z.rs", "use crate::x::*;\n"),
        ],
    );
    assert_eq!(deps(&g, "y"), ["x", "x::p", "x::q"]);
    assert_eq!(deps(&g, "z"), ["x", "x::q"]);
}

/// Every crate under crates/ (libraries and the CLI): no module file reaches
/// itself through the files it imports.
#[test]
fn no_crate_has_an_import_circle() {
    let crates = crate::repo_root().join("crates");
    let mut found = Vec::new();
    let mut read = 0;
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        for root in ["src/lib.rs", "src/main.rs"].map(|r| dir.join(r)).into_iter().filter(|r| r.is_file()) {
            let g = module_graph(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
            read += g.len();
            for c in cycles(&g) {
                found.push(format!("{}: {}", root.display(), c.join(" -> ")));
            }
        }
    }
    assert!(read > 200, "only {read} module files read under {}", crates.display());
    assert!(found.is_empty(), "import circles between module files:\n{}", found.join("\n"));
}
