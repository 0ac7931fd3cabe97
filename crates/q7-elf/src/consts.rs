//! ELF constants q7 needs, with the names readelf prints for them.

pub const ELFMAG: [u8; 4] = *b"\x7fELF";
pub const ELFCLASS32: u8 = 1;
pub const ELFCLASS64: u8 = 2;
pub const EV_CURRENT: u8 = 1;

pub const EHDR_SIZE: usize = 52;
pub const PHDR_SIZE: usize = 32;
pub const SHDR_SIZE: usize = 40;
pub const SYM_SIZE: usize = 16;
pub const REL_SIZE: usize = 8;
pub const RELA_SIZE: usize = 12;

pub const ET_NONE: u16 = 0;
pub const ET_REL: u16 = 1;
pub const ET_EXEC: u16 = 2;
pub const ET_DYN: u16 = 3;
pub const ET_CORE: u16 = 4;

pub const EM_386: u16 = 3;
pub const EM_ARM: u16 = 40;
pub const EM_X86_64: u16 = 62;
pub const EM_XTENSA: u16 = 94;
pub const EM_AARCH64: u16 = 183;

pub const SHN_UNDEF: u16 = 0;
pub const SHN_LORESERVE: u16 = 0xff00;
pub const SHN_ABS: u16 = 0xfff1;
pub const SHN_COMMON: u16 = 0xfff2;
pub const SHN_XINDEX: u16 = 0xffff;

pub const SHT_NULL: u32 = 0;
pub const SHT_PROGBITS: u32 = 1;
pub const SHT_SYMTAB: u32 = 2;
pub const SHT_STRTAB: u32 = 3;
pub const SHT_RELA: u32 = 4;
pub const SHT_HASH: u32 = 5;
pub const SHT_DYNAMIC: u32 = 6;
pub const SHT_NOTE: u32 = 7;
pub const SHT_NOBITS: u32 = 8;
pub const SHT_REL: u32 = 9;
pub const SHT_DYNSYM: u32 = 11;
pub const SHT_INIT_ARRAY: u32 = 14;
pub const SHT_FINI_ARRAY: u32 = 15;
pub const SHT_PREINIT_ARRAY: u32 = 16;
pub const SHT_GROUP: u32 = 17;

pub const SHF_WRITE: u32 = 0x1;
pub const SHF_ALLOC: u32 = 0x2;
pub const SHF_EXECINSTR: u32 = 0x4;
pub const SHF_MERGE: u32 = 0x10;
pub const SHF_STRINGS: u32 = 0x20;
pub const SHF_INFO_LINK: u32 = 0x40;
pub const SHF_GROUP: u32 = 0x200;

pub const PT_NULL: u32 = 0;
pub const PT_LOAD: u32 = 1;
pub const PT_DYNAMIC: u32 = 2;
pub const PT_INTERP: u32 = 3;
pub const PT_NOTE: u32 = 4;
pub const PT_PHDR: u32 = 6;
pub const PT_TLS: u32 = 7;
pub const PT_GNU_STACK: u32 = 0x6474_e551;
pub const PT_GNU_RELRO: u32 = 0x6474_e552;

pub const PF_X: u32 = 1;
pub const PF_W: u32 = 2;
pub const PF_R: u32 = 4;

pub const STB_LOCAL: u8 = 0;
pub const STB_GLOBAL: u8 = 1;
pub const STB_WEAK: u8 = 2;

pub const STT_NOTYPE: u8 = 0;
pub const STT_OBJECT: u8 = 1;
pub const STT_FUNC: u8 = 2;
pub const STT_SECTION: u8 = 3;
pub const STT_FILE: u8 = 4;

/// The `e_flags` value the vendor toolchain writes into every Vision-Q7 image
/// (docs/FACTS.md, "Header validation": `e_flags 0x300`).
pub const XTENSA_VENDOR_FLAGS: u32 = 0x300;

pub fn type_name(e_type: u16) -> &'static str {
    match e_type {
        ET_NONE => "NONE",
        ET_REL => "REL",
        ET_EXEC => "EXEC",
        ET_DYN => "DYN",
        ET_CORE => "CORE",
        _ => "unknown",
    }
}

pub fn machine_name(machine: u16) -> &'static str {
    match machine {
        0 => "none",
        EM_386 => "Intel 80386",
        EM_ARM => "ARM",
        EM_X86_64 => "AMD x86-64",
        EM_XTENSA => "Tensilica Xtensa",
        EM_AARCH64 => "AArch64",
        8 => "MIPS",
        20 => "PowerPC",
        243 => "RISC-V",
        _ => "unknown machine",
    }
}

pub fn section_type_name(sh_type: u32) -> &'static str {
    match sh_type {
        SHT_NULL => "NULL",
        SHT_PROGBITS => "PROGBITS",
        SHT_SYMTAB => "SYMTAB",
        SHT_STRTAB => "STRTAB",
        SHT_RELA => "RELA",
        SHT_HASH => "HASH",
        SHT_DYNAMIC => "DYNAMIC",
        SHT_NOTE => "NOTE",
        SHT_NOBITS => "NOBITS",
        SHT_REL => "REL",
        SHT_DYNSYM => "DYNSYM",
        SHT_INIT_ARRAY => "INIT_ARRAY",
        SHT_FINI_ARRAY => "FINI_ARRAY",
        SHT_PREINIT_ARRAY => "PREINIT_ARRAY",
        SHT_GROUP => "GROUP",
        _ => "OTHER",
    }
}

pub fn segment_type_name(p_type: u32) -> &'static str {
    match p_type {
        PT_NULL => "NULL",
        PT_LOAD => "LOAD",
        PT_DYNAMIC => "DYNAMIC",
        PT_INTERP => "INTERP",
        PT_NOTE => "NOTE",
        PT_PHDR => "PHDR",
        PT_TLS => "TLS",
        PT_GNU_STACK => "GNU_STACK",
        PT_GNU_RELRO => "GNU_RELRO",
        _ => "OTHER",
    }
}

/// readelf-style `RWE` rendering of segment flags.
pub fn segment_flags(flags: u32) -> String {
    let mut s = String::with_capacity(3);
    s.push(if flags & PF_R != 0 { 'R' } else { ' ' });
    s.push(if flags & PF_W != 0 { 'W' } else { ' ' });
    s.push(if flags & PF_X != 0 { 'E' } else { ' ' });
    s.trim_end().to_string()
}

/// readelf-style `WAX` rendering of section flags (the subset q7 cares about).
pub fn section_flags(flags: u32) -> String {
    let mut s = String::new();
    for (bit, c) in [
        (SHF_WRITE, 'W'),
        (SHF_ALLOC, 'A'),
        (SHF_EXECINSTR, 'X'),
        (SHF_MERGE, 'M'),
        (SHF_STRINGS, 'S'),
        (SHF_INFO_LINK, 'I'),
        (SHF_GROUP, 'G'),
    ] {
        if flags & bit != 0 {
            s.push(c);
        }
    }
    s
}
