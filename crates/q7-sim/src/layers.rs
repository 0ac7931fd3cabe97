//! The crate's layers, checked: no module imports one that imports it back,
//! directly or through others (paths in code count, comments do not).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module name -> the top-level modules its code names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&src).expect("under src");
            let top = rel.components().next().expect("a component").as_os_str().to_string_lossy().replace(".rs", "");
            if top == "lib" || top == "layers" || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read module");
            let deps = graph.entry(top.clone()).or_default();
            for line in text.lines().map(str::trim_start).filter(|l| !l.starts_with("//")) {
                let code = line.split("//").next().unwrap_or_default();
                for (i, _) in code.match_indices("crate::") {
                    let name: String =
                        code[i + 7..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                    if !name.is_empty() && name != top {
                        deps.insert(name);
                    }
                }
            }
        }
    }
    graph
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = imports();
    assert!(graph.contains_key("cpu") && graph.contains_key("mem"), "{graph:?}");
    for start in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&String> = graph[start].iter().collect();
        while let Some(m) = todo.pop() {
            assert_ne!(m, start, "{start} reaches itself through {seen:?}: {graph:#?}");
            if seen.insert(m.clone()) {
                todo.extend(graph.get(m).into_iter().flatten());
            }
        }
    }
    // Memory and its checker know nothing of the CPU; the block cache
    // nothing of the core that runs it.
    for (low, high) in [("mem", "cpu"), ("checks", "cpu"), ("checks", "mem"), ("block", "cpu")] {
        assert!(!graph[low].contains(high), "{low} imports {high}");
    }
}
