//! The file-level import graph of a crate, read from its sources: which
//! module file names which through `crate::`, `super::`, `self::` or a child
//! module's name. Paths through a re-export (`pub use`) lead to the file that
//! defines the item, so a facade `mod.rs` or `lib.rs` is not a dependency of
//! everything it re-exports. A file naming its enclosing modules (`super::`)
//! is not an edge: it is a part of them. Comments and literals do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate, `[]` for the crate root.
type ModPath = Vec<String>;

/// Module file (`"crate"`, `"jit::fp"`) -> the module files it names.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
    /// A literal or lifetime: breaks a path, names nothing.
    Other,
}

/// Rust tokens enough for paths: comments, strings, chars and lifetimes are
/// skipped whole so their text never reads as code.
fn lex(src: &str) -> Vec<Tok> {
    let s: Vec<char> = src.chars().collect();
    let (mut i, mut out) = (0, Vec::new());
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied().unwrap_or(' ');
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == '*' {
            let (mut depth, mut j) = (1, i + 2);
            while j < s.len() && depth > 0 {
                match (s[j], s.get(j + 1).copied().unwrap_or(' ')) {
                    ('/', '*') => (depth, j) = (depth + 1, j + 2),
                    ('*', '/') => (depth, j) = (depth - 1, j + 2),
                    _ => j += 1,
                }
            }
            i = j;
        } else if (c == 'r' || (c == 'b' && next == 'r')) && raw_string_start(&s, i).is_some() {
            let (hashes, body) = raw_string_start(&s, i).unwrap_or((0, i));
            let mut j = body;
            while j < s.len() && !(s[j] == '"' && (1..=hashes).all(|k| s.get(j + k) == Some(&'#'))) {
                j += 1;
            }
            i = j + 1 + hashes;
            out.push(Tok::Other);
        } else if c == '"' || (c == 'b' && next == '"') {
            let mut j = if c == 'b' { i + 2 } else { i + 1 };
            while j < s.len() && s[j] != '"' {
                j += if s[j] == '\\' { 2 } else { 1 };
            }
            i = j + 1;
            out.push(Tok::Other);
        } else if c == '\'' || (c == 'b' && next == '\'') {
            // A char literal closes within a few characters; a lifetime does not.
            let j = if c == 'b' { i + 1 } else { i };
            let close = if s.get(j + 1) == Some(&'\\') {
                (j + 3..s.len().min(j + 12)).find(|&k| s[k] == '\'')
            } else {
                Some(j + 2).filter(|&k| s.get(k) == Some(&'\''))
            };
            match close {
                Some(k) => i = k + 1,
                None => {
                    i = j + 1;
                    while i < s.len() && ident(s[i]) {
                        i += 1;
                    }
                }
            }
            out.push(Tok::Other);
        } else if ident(c) {
            let start = i;
            while i < s.len() && ident(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            if word == "r" && s.get(i) == Some(&'#') {
                i += 1; // raw identifier `r#name`: the name follows
                continue;
            }
            out.push(if c.is_ascii_digit() { Tok::Other } else { Tok::Ident(word) });
        } else if c == ':' && next == ':' {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// At `r"`, `r#"`, `br"`…: the number of `#` and where the body starts.
fn raw_string_start(s: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = if s[i] == 'b' { i + 2 } else { i + 1 };
    if i > 0 && (s[i - 1].is_alphanumeric() || s[i - 1] == '_') {
        return None;
    }
    let mut hashes = 0;
    while s.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (s.get(j) == Some(&'"')).then_some((hashes, j + 1))
}

/// One name a `use` binds: `use a::b::{c as d, e::*}` gives `a::b::c` as
/// `d` and the glob `a::b::e`.
#[derive(Debug)]
struct UseItem {
    path: Vec<String>,
    /// The name bound (`None` for a glob or `as _`).
    binding: Option<String>,
    public: bool,
}

/// What one module (file or inline `mod x { … }`) declares.
#[derive(Debug, Default)]
struct Module {
    file: ModPath,
    children: BTreeSet<String>,
    uses: Vec<UseItem>,
    items: BTreeSet<String>,
    /// Paths in code (outside `use`), each starting at this module.
    paths: Vec<Vec<String>>,
    /// Identifiers in code outside `use`: a `pub use` whose name the file
    /// also uses is a dependency, not only a re-export.
    idents: BTreeSet<String>,
}

struct Crate {
    modules: BTreeMap<ModPath, Module>,
}

/// Reads the crate rooted at `root` (`src/lib.rs` or `src/main.rs`) through
/// its `mod NAME;` declarations.
fn read_crate(root: &Path) -> Result<Crate, String> {
    let mut krate = Crate { modules: BTreeMap::new() };
    let mut todo: Vec<(ModPath, PathBuf, PathBuf)> = vec![(vec![], root.to_path_buf(), dir_of(root, true))];
    while let Some((path, file, dir)) = todo.pop() {
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (decl, child_dir) in parse_file(&mut krate, &path, &lex(&text), &dir) {
            let mod_rs = child_dir.join(decl.last().map_or("", String::as_str));
            let flat = mod_rs.with_extension("rs");
            let (file, is_mod_rs) = if flat.is_file() { (flat, false) } else { (mod_rs.join("mod.rs"), true) };
            if !file.is_file() {
                return Err(format!(
                    "module {} has no file {} or {}",
                    decl.join("::"),
                    mod_rs.display(),
                    file.display()
                ));
            }
            let dir = dir_of(&file, is_mod_rs);
            todo.push((decl, file, dir));
        }
    }
    Ok(krate)
}

/// Where a file's child modules live: beside `mod.rs`/`lib.rs`, under the
/// stem for `name.rs`.
fn dir_of(file: &Path, is_mod_rs: bool) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    if is_mod_rs {
        parent
    } else {
        parent.join(file.file_stem().unwrap_or_default())
    }
}

/// Records one file's modules; returns its `mod NAME;` declarations with the
/// directory each child file is looked up in.
fn parse_file(krate: &mut Crate, file: &ModPath, toks: &[Tok], dir: &Path) -> Vec<(ModPath, PathBuf)> {
    let mut decls = Vec::new();
    // Inline modules open in this file: (path, brace depth at their `{`).
    let mut stack: Vec<(ModPath, usize)> = vec![(file.clone(), 0)];
    let mut depth = 0usize;
    let mut i = 0;
    krate.modules.entry(file.clone()).or_default().file = file.clone();
    let id = |k: usize| match toks.get(k) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    while i < toks.len() {
        let here = stack.last().map(|s| s.0.clone()).unwrap_or_default();
        match &toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if stack.len() > 1 && stack.last().is_some_and(|s| s.1 == depth) {
                    stack.pop();
                }
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let Some(name) = id(i + 1) {
                    let mut child = here.clone();
                    child.push(name.to_string());
                    krate.modules.entry(here.clone()).or_default().children.insert(name.to_string());
                    if toks.get(i + 2) == Some(&Tok::Punct('{')) {
                        krate.modules.entry(child.clone()).or_default().file = file.clone();
                        stack.push((child, depth));
                        depth += 1;
                        i += 3;
                        continue;
                    }
                    // Inline modules nest their children's directory.
                    let sub = child[file.len()..child.len() - 1].iter().fold(dir.to_path_buf(), |d, n| d.join(n));
                    decls.push((child, sub));
                    i += 2;
                    continue;
                }
            }
            Tok::Ident(kw) if kw == "use" => {
                let public = matches!(toks.get(i.wrapping_sub(1)), Some(Tok::Ident(p)) if p == "pub")
                    || (toks.get(i.wrapping_sub(1)) == Some(&Tok::Punct(')'))
                        && (2..6).any(|k| id(i.wrapping_sub(k)) == Some("pub")));
                let mut uses = Vec::new();
                let end = parse_use_tree(toks, i + 1, &[], public, &mut uses);
                krate.modules.entry(here).or_default().uses.extend(uses);
                i = end;
                continue;
            }
            Tok::Ident(kw)
                if matches!(
                    kw.as_str(),
                    "fn" | "struct" | "enum" | "type" | "const" | "static" | "trait" | "union"
                ) =>
            {
                if let Some(name) = id(i + 1) {
                    krate.modules.entry(here).or_default().items.insert(name.to_string());
                }
            }
            Tok::Ident(kw) if kw == "macro_rules" => {
                if let Some(name) = id(i + 2) {
                    krate.modules.entry(here).or_default().items.insert(name.to_string());
                }
            }
            Tok::Ident(first)
                if toks.get(i + 1) == Some(&Tok::Sep) && toks.get(i.wrapping_sub(1)) != Some(&Tok::Sep) =>
            {
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::Sep) {
                    match id(j + 1) {
                        Some(s) => path.push(s.to_string()),
                        None => break,
                    }
                    j += 2;
                }
                let m = krate.modules.entry(here).or_default();
                m.idents.extend(path.iter().cloned());
                m.paths.push(path);
                i = j;
                continue;
            }
            Tok::Ident(name) => {
                krate.modules.entry(here).or_default().idents.insert(name.clone());
            }
            _ => {}
        }
        i += 1;
    }
    decls
}

/// Parses a use tree from `i` up to its `;` (or the `,`/`}` closing a
/// group); returns the position after it.
fn parse_use_tree(toks: &[Tok], mut i: usize, prefix: &[String], public: bool, out: &mut Vec<UseItem>) -> usize {
    let mut path = prefix.to_vec();
    if toks.get(i) == Some(&Tok::Sep) {
        i += 1; // `use ::name`: an external crate
        path.push(String::new());
    }
    loop {
        match toks.get(i) {
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                i += 1;
                if toks.get(i) == Some(&Tok::Sep) {
                    i += 1;
                    continue;
                }
                let mut binding = path.last().cloned();
                if binding.as_deref() == Some("self") {
                    path.pop();
                    binding = path.last().cloned();
                }
                if matches!(toks.get(i), Some(Tok::Ident(a)) if a == "as") {
                    binding = match toks.get(i + 1) {
                        Some(Tok::Ident(n)) => Some(n.clone()),
                        _ => None,
                    };
                    i += 2;
                }
                out.push(UseItem { path, binding, public });
                break;
            }
            Some(Tok::Punct('*')) => {
                out.push(UseItem { path, binding: None, public });
                i += 1;
                break;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                while !matches!(toks.get(i), None | Some(Tok::Punct('}'))) {
                    i = parse_use_tree(toks, i, &path, public, out);
                    if toks.get(i) == Some(&Tok::Punct(',')) {
                        i += 1;
                    }
                }
                i += 1;
                break;
            }
            _ => break,
        }
    }
    if prefix.is_empty() {
        while !matches!(toks.get(i), None | Some(Tok::Punct(';'))) {
            i += 1;
        }
        i += 1;
    }
    i
}

/// Where a path leads: a module itself, or an item defined in one.
#[derive(Clone, Debug, PartialEq)]
enum Target {
    Module(ModPath),
    Item(ModPath),
}

impl Target {
    fn module(&self) -> &ModPath {
        match self {
            Target::Module(m) | Target::Item(m) => m,
        }
    }
}

impl Crate {
    /// Resolves `path` as written in module `at`; `None` for a path outside
    /// the crate (std, a dependency) or a local name.
    fn resolve(&self, at: &ModPath, path: &[String], budget: u32) -> Option<Target> {
        let first = path.first()?;
        let (mut cur, mut rest) = match first.as_str() {
            "crate" => (vec![], &path[1..]),
            "self" => (at.clone(), &path[1..]),
            "super" => (at[..at.len().saturating_sub(1)].to_vec(), &path[1..]),
            _ => (at.clone(), path),
        };
        while rest.first().is_some_and(|s| s == "super") {
            cur.pop();
            rest = &rest[1..];
        }
        let relative = !matches!(first.as_str(), "crate" | "self" | "super");
        for (k, seg) in rest.iter().enumerate() {
            match self.step(&cur, seg, budget) {
                Some(Target::Module(m)) => cur = m,
                Some(item) => return Some(item),
                None if relative && k == 0 => return None,
                None => return Some(Target::Item(cur)),
            }
        }
        Some(Target::Module(cur))
    }

    /// One segment `seg` named in module `cur`.
    fn step(&self, cur: &ModPath, seg: &str, budget: u32) -> Option<Target> {
        let m = self.modules.get(cur)?;
        if m.children.contains(seg) {
            let mut child = cur.clone();
            child.push(seg.to_string());
            return Some(Target::Module(child));
        }
        if budget == 0 {
            return None;
        }
        if let Some(u) = m.uses.iter().find(|u| u.binding.as_deref() == Some(seg)) {
            return self.resolve(cur, &u.path, budget - 1);
        }
        if m.items.contains(seg) {
            return Some(Target::Item(cur.clone()));
        }
        for glob in m.uses.iter().filter(|u| u.binding.is_none()) {
            if let Some(Target::Module(g)) = self.resolve(cur, &glob.path, budget - 1) {
                if g != *cur {
                    if let Some(t) = self.step(&g, seg, budget - 1) {
                        return Some(t);
                    }
                }
            }
        }
        None
    }

    /// The module files `at` depends on through one `use` item.
    fn use_deps(&self, at: &ModPath, u: &UseItem, out: &mut BTreeSet<ModPath>) {
        let Some(target) = self.resolve(at, &u.path, 16) else { return };
        let file = |m: &ModPath| self.modules.get(m).map(|x| x.file.clone());
        out.extend(file(target.module()));
        // A glob brings in what the module re-exports, too.
        if u.binding.is_none() {
            if let Some(m) = self.modules.get(target.module()) {
                for r in m.uses.iter().filter(|r| r.public && r.binding.is_some()) {
                    if let Some(t) = self.resolve(target.module(), &r.path, 16) {
                        out.extend(file(t.module()));
                    }
                }
            }
        }
    }

    fn graph(&self) -> Graph {
        let name = |m: &ModPath| if m.is_empty() { "crate".to_string() } else { m.join("::") };
        let mut graph = Graph::new();
        for (at, m) in &self.modules {
            let mut deps = BTreeSet::new();
            for u in &m.uses {
                // A re-export the file does not use itself only forwards a name.
                if !u.public || u.binding.as_ref().is_some_and(|b| m.idents.contains(b)) {
                    self.use_deps(at, u, &mut deps);
                }
            }
            for p in &m.paths {
                if let Some(t) = self.resolve(at, p, 16) {
                    deps.extend(self.modules.get(t.module()).map(|x| x.file.clone()));
                }
            }
            // A file is part of the modules enclosing it: naming what they
            // define is not an import (the parent naming the child is).
            deps.retain(|d| !m.file.starts_with(d));
            graph.entry(name(&m.file)).or_default().extend(deps.iter().map(name));
        }
        graph
    }
}

/// The file-level import graph of the crate whose root file is `root`.
pub fn module_graph(root: &Path) -> Result<Graph, String> {
    Ok(read_crate(root)?.graph())
}

/// One circle per strongly connected group of modules, each as the modules
/// in order with the first repeated at the end; empty when imports are one-way.
pub fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut done: BTreeSet<&String> = BTreeSet::new();
    for start in graph.keys() {
        if done.contains(start) {
            continue;
        }
        if let Some(path) = shortest_path(graph, start, start) {
            done.extend(path.iter().filter_map(|n| graph.get_key_value(n).map(|(k, _)| k)));
            out.push(path);
        }
    }
    out
}

/// Breadth-first: the shortest path from `from` back to `to`, both ends included.
fn shortest_path(graph: &Graph, from: &String, to: &String) -> Option<Vec<String>> {
    let mut prev: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(n) = queue.pop_front() {
        for d in graph.get(n).into_iter().flatten() {
            if d == to {
                let mut path = vec![to.clone(), n.clone()];
                let mut cur = n;
                while cur != from {
                    cur = prev[cur];
                    path.push(cur.clone());
                }
                path.reverse();
                return Some(path);
            }
            if !prev.contains_key(d) && d != from {
                prev.insert(d, n);
                queue.push_back(d);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
