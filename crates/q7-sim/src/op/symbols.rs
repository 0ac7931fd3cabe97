//! Names for code addresses of a loaded op: the function and offset from the
//! image's symbol table, and the source file and line from its DWARF line
//! table when the op was built with `-g`.

use std::fmt;
use std::sync::OnceLock;

pub use crate::debuginfo::DebugElf;

use q7_elf::ElfFile;

/// A code address, named.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CodeLocation {
    pub pc: u32,
    /// The function containing `pc` and the offset into it.
    pub function: Option<(String, u32)>,
    /// Source file and line (from a `-g` build).
    pub source: Option<(String, u32)>,
}

impl fmt::Display for CodeLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.function {
            Some((name, offset)) => write!(f, "{name}+{offset:#x}")?,
            None => write!(f, "{:#010x}", self.pc)?,
        }
        if let Some((file, line)) = &self.source {
            write!(f, " at {file}:{line}")?;
        }
        Ok(())
    }
}

/// The function symbols of an image, sorted by address.
#[derive(Clone, Debug, Default)]
pub struct FunctionTable {
    starts: Vec<Function>,
}

/// A function symbol; its C++ name is demangled when first asked for (an
/// image has hundreds of symbols, a run names a few pcs at most, and
/// demangling them all was most of opening an 8-core op).
#[derive(Clone, Debug)]
struct Function {
    address: u32,
    size: u32,
    symbol: String,
    demangled: OnceLock<String>,
}

impl Function {
    fn name(&self) -> &str {
        self.demangled.get_or_init(|| demangle(&self.symbol))
    }
}

impl FunctionTable {
    pub fn add(&mut self, address: u32, size: u32, name: &str) {
        self.starts.push(Function { address, size, symbol: name.to_string(), demangled: OnceLock::new() });
    }

    /// Sorts by address and keeps one symbol per address: the one with
    /// the smallest size, then the first demangled name (only symbols that
    /// share an address are demangled here).
    pub fn finish(&mut self) {
        self.starts.sort_by_key(|f| (f.address, f.size));
        let mut kept: Vec<Function> = Vec::with_capacity(self.starts.len());
        for f in self.starts.drain(..) {
            match kept.last_mut() {
                Some(last) if last.address == f.address => {
                    // Sorted: `f.size >= last.size`; names decide a tie.
                    if f.size == last.size && f.symbol != last.symbol && f.name() < last.name() {
                        *last = f;
                    }
                }
                _ => kept.push(f),
            }
        }
        self.starts = kept;
    }

    /// Entry addresses of the functions named `name` (demangled, without
    /// namespaces or parameters: `q7_tensor_to_tcm` finds `at::q7_tensor_to_tcm(…)`).
    pub fn entries_named(&self, name: &str) -> Vec<u32> {
        let base = |full: &str| {
            let head = full.split('(').next().unwrap_or(full);
            head.rsplit("::").next().unwrap_or(head).to_string()
        };
        self.starts.iter().filter(|f| base(f.name()) == name).map(|f| f.address).collect()
    }

    /// The function whose symbol is at or below `pc` (and, when the symbol
    /// has a size, covers it), demangled.
    pub fn containing(&self, pc: u32) -> Option<(&str, u32)> {
        let at = self.starts.partition_point(|f| f.address <= pc).checked_sub(1)?;
        let f = &self.starts[at];
        let offset = pc - f.address;
        (f.size == 0 || offset < f.size).then(|| (f.name(), offset))
    }
}

/// `_ZL4pokePVii` → `poke(int volatile*, int)`; other names (and names
/// nested past the demangler's limit) unchanged.
pub fn demangle(name: &str) -> String {
    q7_elf::demangle::demangle(name).unwrap_or_else(|| name.to_string())
}

/// The source line of `pc` (an address in the moved image) from the DWARF
/// line table of `debug`, if it has one covering `pc`.
pub fn source_line(debug: &DebugElf, pc: u32) -> Option<(String, u32)> {
    let file = ElfFile::parse(&debug.bytes).ok()?;
    file.section_by_name(".debug_line")?;
    let load = |id: gimli::SectionId| -> Result<gimli::EndianSlice<'_, gimli::LittleEndian>, gimli::Error> {
        let data = file.section_by_name(id.name()).map_or(&[][..], |s| s.data());
        Ok(gimli::EndianSlice::new(data, gimli::LittleEndian))
    };
    let dwarf = gimli::Dwarf::load(load).ok()?;
    let context = addr2line::Context::from_dwarf(dwarf).ok()?;
    own_line(&context, u64::from(pc.wrapping_sub(debug.delta)))
}

/// The line of `probe` in the file of the function it is in. Inside code
/// inlined from another file (an SDK header's accessor, `std::` helpers)
/// the line table names that file; the line wanted is the call in the
/// function's own file, so the innermost inlined frame whose line is in
/// the same file as the outermost's (the function the pc is in) names it.
fn own_line<R: gimli::Reader>(context: &addr2line::Context<R>, probe: u64) -> Option<(String, u32)> {
    let mut frames = context.find_frames(probe).skip_all_loads().ok()?;
    let mut lines: Vec<(&str, u32)> = Vec::new();
    while let Ok(Some(frame)) = frames.next() {
        if let Some(at) = frame.location {
            if let (Some(file), Some(line)) = (at.file, at.line) {
                lines.push((file, line));
            }
        }
    }
    let &(outer, _) = lines.last()?;
    let (file, line) = lines.iter().find(|(file, _)| *file == outer)?;
    Some((file.rsplit('/').next()?.to_string(), *line))
}

/// The source lines of `pcs` (as [`source_line`]), reading the DWARF once.
pub fn source_lines(debug: &DebugElf, pcs: &[u32]) -> Vec<Option<(String, u32)>> {
    let none = || vec![None; pcs.len()];
    let Ok(file) = ElfFile::parse(&debug.bytes) else { return none() };
    if file.section_by_name(".debug_line").is_none() {
        return none();
    }
    let load = |id: gimli::SectionId| -> Result<gimli::EndianSlice<'_, gimli::LittleEndian>, gimli::Error> {
        let data = file.section_by_name(id.name()).map_or(&[][..], |s| s.data());
        Ok(gimli::EndianSlice::new(data, gimli::LittleEndian))
    };
    let Some(context) = gimli::Dwarf::load(load).ok().and_then(|d| addr2line::Context::from_dwarf(d).ok()) else {
        return none();
    };
    pcs.iter()
        .map(|pc| {
            let location = context.find_location(u64::from(pc.wrapping_sub(debug.delta))).ok()??;
            Some((location.file?.rsplit('/').next()?.to_string(), location.line?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_cover_their_sizes() {
        let mut t = FunctionTable::default();
        t.add(0x100, 0x20, "a");
        t.add(0x200, 0, "b");
        t.add(0x300, 4, "_ZL4pokePVii");
        t.finish();
        assert_eq!(t.containing(0x110), Some(("a", 0x10)));
        assert_eq!(t.containing(0x130), None);
        assert_eq!(t.containing(0x2ff), Some(("b", 0xff)));
        assert_eq!(t.containing(0xff), None);
        assert_eq!(t.containing(0x302), Some(("poke(int volatile*, int)", 2)));
        // One symbol per address: the smallest size, then the first
        // demangled name (`_Z5bravov` sorts first mangled, `bravo()` after `a_alias`).
        t.add(0x400, 4, "_Z5bravov");
        t.add(0x400, 4, "a_alias");
        t.add(0x500, 8, "big");
        t.add(0x500, 0, "zero");
        t.finish();
        assert_eq!(t.containing(0x400), Some(("a_alias", 0)));
        assert_eq!(t.containing(0x508), Some(("zero", 8)));
        assert_eq!(t.entries_named("bravo"), Vec::<u32>::new());
        assert_eq!(t.entries_named("poke"), vec![0x300]);
        let loc = CodeLocation { pc: 0x110, function: Some(("a".into(), 0x10)), source: Some(("op.cpp".into(), 7)) };
        assert_eq!(loc.to_string(), "a+0x10 at op.cpp:7");
    }
}
