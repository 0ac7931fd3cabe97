//! Steps 1 and 2 of xt-pkg-loadlib as a decision per section: which sections
//! the cleaned image keeps, and for each one it drops, the step and the reason.

use q7_elf::consts::*;
use q7_elf::{ElfFile, Section};

use crate::rebase;

/// Sections xt-pkg-loadlib always removes (docs/FORMATS.md, "Packed load-lib", step 2). A name
/// ending in `*` matches as a prefix (`.xt.prop.<function>` in GNU objects).
pub const ALWAYS_REMOVED: &[&str] = &[".xtensa.info", ".xt.lit", ".xt.prop*", ".interp", ".got.loc", ".got"];

/// Dynamic symbol lookup tables, removed unless `-l` asks to keep them.
pub const SYMBOL_LOOKUP: &[&str] = &[".hash", ".dynstr", ".dynsym", ".rela.plt"];

/// What happens to one input section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Copied into the cleaned image.
    Keep,
    /// Rewritten from scratch (`.shstrtab`, `.q7.rebase`).
    Rebuilt,
    Removed(Removal),
}

/// Why a section was removed; [`Removal::why`] says it in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// Step 1 (`strip`): the section is not loaded. The payload names what it is.
    NotLoaded(&'static str),
    /// Step 2: on xt-pkg-loadlib's fixed list.
    AlwaysRemoved,
    /// Step 2: a dynamic symbol lookup table and `-l` was not given.
    SymbolLookup,
    /// Step 2: size 0.
    Empty,
}

impl Removal {
    /// The pipeline step that removes the section.
    pub fn step(self) -> &'static str {
        match self {
            Removal::NotLoaded(_) => "strip",
            _ => "clean",
        }
    }

    pub fn why(self) -> String {
        match self {
            Removal::NotLoaded(what) => format!("not loaded ({what})"),
            Removal::AlwaysRemoved => {
                "xt-pkg-loadlib always removes it (the device image carries no GOT or tool notes)".into()
            }
            Removal::SymbolLookup => "dynamic symbol lookup table, kept only with -l".into(),
            Removal::Empty => "empty".into(),
        }
    }
}

fn on_list(list: &[&str], name: &str) -> bool {
    list.iter().any(|pat| match pat.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == *pat,
    })
}

/// What a non-allocated section holds, for the strip step's log.
fn non_loaded_kind(s: &Section) -> &'static str {
    let name = &*s.name;
    match s.sh_type {
        SHT_SYMTAB => "symbol table",
        SHT_STRTAB => "string table",
        SHT_REL | SHT_RELA => "static relocations",
        SHT_NOTE => "note",
        _ if name.starts_with(".debug") || name.starts_with(".zdebug") || name.starts_with(".stab") => {
            "debug information"
        }
        _ if name == ".comment" => "toolchain comment",
        _ if name.starts_with(".xt.") || name == ".xtensa.info" => "Xtensa tool property table",
        _ => "non-allocated section",
    }
}

/// Decides the fate of every section (index 0, the null section, is `Keep`).
pub fn fates(elf: &ElfFile, keep_symbol_lookup: bool) -> Vec<Fate> {
    let shstrndx = elf.header().shstrndx as usize;
    elf.sections()
        .iter()
        .map(|s| {
            if s.index == 0 {
                Fate::Keep
            } else if s.index == shstrndx || s.name == rebase::SECTION_NAME {
                Fate::Rebuilt
            } else if !s.is_alloc() {
                Fate::Removed(Removal::NotLoaded(non_loaded_kind(s)))
            } else if on_list(ALWAYS_REMOVED, &s.name) {
                Fate::Removed(Removal::AlwaysRemoved)
            } else if !keep_symbol_lookup && on_list(SYMBOL_LOOKUP, &s.name) {
                Fate::Removed(Removal::SymbolLookup)
            } else if s.size == 0 {
                Fate::Removed(Removal::Empty)
            } else {
                Fate::Keep
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_patterns_match_function_property_tables() {
        assert!(on_list(ALWAYS_REMOVED, ".xt.prop"));
        assert!(on_list(ALWAYS_REMOVED, ".xt.prop._Z3foov"));
        assert!(!on_list(ALWAYS_REMOVED, ".xt.lit.foo"));
        assert!(on_list(ALWAYS_REMOVED, ".got"));
        assert!(!on_list(ALWAYS_REMOVED, ".got.plt"));
    }
}
