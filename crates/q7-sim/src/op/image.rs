//! Op images as the machine loads them: any input q7's prelinker accepts (a
//! UCPL image, a `.packed.so`, a `.stripped.so`, a linked `.so`) bound to a
//! core window, plus the symbols of the image when some file carries them.

use std::collections::HashMap;

use q7_pack::prelink::{self, Target};
use q7_target::memmap::Window;

use super::symbols::{source_line, CodeLocation, DebugElf, FunctionTable};
use crate::SimError;

/// An image bound to a window, ready to copy into memory.
#[derive(Clone, Debug)]
pub struct OpImage {
    pub window: Window,
    /// Address of the first image byte.
    pub base: u32,
    pub entry: u32,
    /// The loadable bytes (code and data); `.bss` follows, zero.
    pub bytes: Vec<u8>,
    /// Image plus `.bss`: the stack must stay above `base + memory_size`.
    pub memory_size: u32,
    /// Symbol addresses at the bound location (empty without a symbol table).
    pub symbols: HashMap<String, u32>,
    /// What the input was, for messages.
    pub kind: &'static str,
    /// Function symbols at the bound location, for naming code addresses.
    pub functions: FunctionTable,
    /// The ELF file with DWARF line tables for this image (a `-g` build).
    pub debug: Option<DebugElf>,
}

impl OpImage {
    /// Binds `input` to `window` with q7's prelinker (an image that already
    /// sits in the window stays where it is linked).
    pub fn load(input: &[u8], window: Window) -> Result<OpImage, SimError> {
        let target = match window {
            Window::Core(i) => Target::core(i),
            Window::Single => Target::single(),
        };
        let ucpl = prelink::prelink(input, target, None).map_err(SimError::Prelink)?;
        let delta = ucpl.header.load_base.wrapping_sub(ucpl.provenance.link_base);
        let mut image = OpImage {
            window,
            base: ucpl.header.load_base,
            entry: ucpl.header.entry,
            memory_size: ucpl.header.memory_size,
            bytes: ucpl.image,
            symbols: HashMap::new(),
            kind: ucpl.provenance.kind.describe(),
            functions: FunctionTable::default(),
            debug: None,
        };
        image.add_symbols_from(input, delta);
        Ok(image)
    }

    /// The symbols (and DWARF) of a program linked where it runs (a bare
    /// program): names for its code, no bytes of its own.
    pub fn symbols_of(elf: &[u8]) -> OpImage {
        let mut image = OpImage {
            window: Window::Single,
            base: 0,
            entry: 0,
            bytes: Vec::new(),
            memory_size: 0,
            symbols: HashMap::new(),
            kind: "program",
            functions: FunctionTable::default(),
            debug: None,
        };
        image.add_symbols_from(elf, 0);
        image
    }

    /// Takes function and object symbols from `elf` (the image itself, or
    /// the unstripped `.so` next to a stripped one), moved by `delta`.
    /// Inputs without a symbol table add nothing.
    pub fn add_symbols_from(&mut self, elf: &[u8], delta: u32) {
        let Ok(file) = q7_elf::ElfFile::parse(elf) else { return };
        let Ok(symbols) = file.symbols() else { return };
        self.symbols.reserve(symbols.len());
        for sym in symbols {
            // Defined symbols of types NOTYPE, OBJECT and FUNC only.
            if sym.shndx == 0 || sym.kind() > 2 || sym.name.is_empty() {
                continue;
            }
            let value = if sym.shndx == 0xfff1 { sym.value } else { sym.value.wrapping_add(delta) };
            if sym.kind() == 2 {
                self.functions.add(value, sym.size, &sym.name);
            }
            // The first definition of a name wins (the image's before a sibling's).
            if !self.symbols.contains_key(sym.name.as_ref()) {
                self.symbols.insert(sym.name.into_owned(), value);
            }
        }
        self.functions.finish();
        if self.debug.is_none() && file.section_by_name(".debug_line").is_some() {
            self.debug = Some(DebugElf { bytes: elf.into(), delta });
        }
    }

    /// Names a code address in this image: function and offset, and the
    /// source line when the image carries DWARF.
    pub fn locate(&self, pc: u32) -> CodeLocation {
        let function = self.functions.containing(pc).map(|(name, offset)| (name.to_string(), offset));
        let source = self.debug.as_ref().and_then(|d| source_line(d, pc));
        CodeLocation { pc, function, source }
    }

    /// Symbols from a sibling file linked at `link_base` (an unstripped
    /// `.so` for a stripped or packed image of the same link).
    pub fn add_symbols_from_sibling(&mut self, elf: &[u8]) {
        let Ok(file) = q7_elf::ElfFile::parse(elf) else { return };
        let Some(link_base) = q7_pack::rebase::link_base(&file) else { return };
        self.add_symbols_from(elf, self.base.wrapping_sub(link_base));
    }

    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.symbols.get(name).copied()
    }

    /// The end of `.bss`: the lowest address the stack may reach.
    pub fn end(&self) -> u32 {
        self.base.wrapping_add(self.memory_size)
    }

    /// The launch block (sdk/ABI.md): the last 4 KiB of the window.
    pub fn launch_block(&self) -> u32 {
        self.window.launch_block()
    }

    /// The window's stack top: the launch block's address.
    pub fn stack_top(&self) -> u32 {
        self.launch_block()
    }

    /// Every address where the NUL-terminated string `text` is in the image
    /// (also as the tail of a longer string: callers look for pointers).
    pub fn find_strings(&self, text: &str) -> Vec<u32> {
        let needle: Vec<u8> = text.bytes().chain(std::iter::once(0)).collect();
        self.bytes
            .windows(needle.len())
            .enumerate()
            .filter(|(_, w)| *w == needle.as_slice())
            .map(|(i, _)| self.base + i as u32)
            .collect()
    }

    /// The aligned word at `addr` inside the image bytes.
    pub fn word_at(&self, addr: u32) -> Option<u32> {
        let off = addr.checked_sub(self.base)? as usize;
        let b = self.bytes.get(off..off + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}
