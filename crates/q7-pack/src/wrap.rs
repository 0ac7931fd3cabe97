//! Steps 4–6 of xt-pkg-loadlib: the cleaned image as section data of a
//! relocatable object, under a global symbol at its first byte; and the way
//! back, from a packed object to the embedded image.

use q7_elf::consts::*;
use q7_elf::write::{ElfBuilder, NewSection, NewSymbol};
use q7_elf::{ElfFile, Endian, Header};

use crate::error::{PackError, Result};

/// The symbol name xt-pkg-loadlib's callers pass with `-e`.
pub const DEFAULT_SYMBOL: &str = "lib_func";

/// Alignment of the blob (the recipe's `.align 4` shim): the image's 32-bit
/// fields stay naturally aligned wherever a linker places `.rodata`.
pub const BLOB_ALIGN: u32 = 4;

/// Checks that `name` can be written as a symbol in assembly and linker
/// scripts: a letter, `_`, `.` or `$`, then letters, digits, `_`, `.`, `$`.
pub fn check_symbol_name(name: &str) -> Result<()> {
    let bad = |problem: &str| PackError::BadSymbol { name: name.to_string(), problem: problem.to_string() };
    let mut chars = name.chars();
    match chars.next() {
        None => return Err(bad("is empty")),
        Some(c) if c.is_ascii_digit() => return Err(bad("starts with a digit")),
        _ => {}
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')) {
        return Err(bad("may hold only ASCII letters, digits, `_`, `.` and `$`"));
    }
    Ok(())
}

/// Wraps `image` as an ET_REL Xtensa object in byte order `endian`: one
/// `.rodata` section (`SHF_ALLOC`, 4-byte aligned) holding the image, and a
/// global `symbol` (an `STT_OBJECT` sized to the image) at its first byte.
pub fn wrap_as_object(image: &[u8], endian: Endian, symbol: &str) -> Result<Vec<u8>> {
    check_symbol_name(symbol)?;
    let size = u32::try_from(image.len()).map_err(|_| PackError::Layout("image larger than 4 GiB".into()))?;
    let mut b = ElfBuilder::new(endian, ET_REL, EM_XTENSA);
    // What GNU as writes for the recipe's objects, so `ld -r` sees the same flags.
    b.flags = XTENSA_VENDOR_FLAGS;
    let rodata = b.add_section(NewSection::progbits(".rodata", SHF_ALLOC, 0, BLOB_ALIGN, image.to_vec()));
    b.add_section_symbol(rodata);
    b.add_symbol(NewSymbol {
        name: symbol.to_string(),
        section: Some(rodata),
        value: 0,
        size,
        bind: STB_GLOBAL,
        kind: STT_OBJECT,
    });
    Ok(b.build()?)
}

/// The image embedded in a packed object at `symbol`, found the way a
/// prelinker finds it: the symbol's section bytes from its value on, cut to
/// the size the embedded ELF header declares. Works on q7's objects and on
/// the GNU recipe's.
pub fn embedded_image<'a>(packed: &'a [u8], symbol: &str) -> Result<&'a [u8]> {
    let elf = ElfFile::parse_xtensa(packed)?;
    let not_packed = |why: String| PackError::NotPacked(why);
    let symbols = elf.symbols()?;
    let sym = symbols
        .iter()
        .find(|s| s.name == symbol && s.is_defined())
        .ok_or_else(|| not_packed(format!("no defined symbol `{symbol}`")))?;
    let section = elf
        .section(sym.shndx as usize)
        .filter(|s| s.has_file_bytes())
        .ok_or_else(|| not_packed(format!("`{symbol}` is not in a section with file bytes")))?;
    let bytes = section
        .data()
        .get(sym.value as usize..)
        .filter(|b| !b.is_empty())
        .ok_or_else(|| not_packed(format!("`{symbol}` = {:#x} is past the end of {}", sym.value, section.name)))?;
    let header = Header::parse(bytes)?;
    let size = header.declared_size();
    bytes.get(..size as usize).ok_or_else(|| {
        not_packed(format!("the embedded image declares {size:#x} bytes but {} holds {:#x}", section.name, bytes.len()))
    })
}
