//! The reference: xt-pkg-loadlib's recipe (docs/FORMATS.md, "Packed load-lib") run with GNU
//! binutils for the open profile's `xtensa-lx106-elf-` tools, step by step as
//! the Perl script runs it. Tests compare q7's output with it and the
//! benchmark times it; q7 itself never calls it.
//!
//! Every tool runs as an argv list (no shell), in a temporary directory that
//! is removed afterwards.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::clean::{ALWAYS_REMOVED, SYMBOL_LOOKUP};

/// The GNU binutils the open profile installs (Debian `binutils-xtensa-lx106`).
pub const TOOL_PREFIX: &str = "xtensa-lx106-elf-";

#[derive(Debug, thiserror::Error)]
pub enum RecipeError {
    #[error("peer tool `{tool}` is not runnable ({reason}); run scripts/bootstrap.sh (Debian package binutils-xtensa-lx106)")]
    Missing { tool: String, reason: String },
    #[error("`{command}` failed ({status}): {stderr}")]
    Failed { command: String, status: String, stderr: String },
    #[error("recipe temporary files: {0}")]
    Io(#[from] std::io::Error),
}

/// Located binutils; [`Binutils::locate`] checks that each one runs.
#[derive(Clone, Debug)]
pub struct Binutils {
    prefix: String,
}

impl Binutils {
    pub fn locate() -> Result<Binutils, RecipeError> {
        let tools = Binutils { prefix: TOOL_PREFIX.to_string() };
        for tool in ["strip", "objcopy", "objdump", "as", "ld", "readelf"] {
            let name = tools.tool(tool);
            match Command::new(&name).arg("--version").output() {
                Ok(o) if o.status.success() => {}
                Ok(o) => return Err(RecipeError::Missing { tool: name, reason: format!("--version: {}", o.status) }),
                Err(e) => return Err(RecipeError::Missing { tool: name, reason: e.to_string() }),
            }
        }
        Ok(tools)
    }

    /// The full command name of a tool, e.g. `xtensa-lx106-elf-objcopy`.
    pub fn tool(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// Runs a tool and requires success; the output is returned for reading.
    pub fn run<S: AsRef<OsStr>>(&self, tool: &str, args: &[S]) -> Result<Output, RecipeError> {
        let name = self.tool(tool);
        let out = Command::new(&name)
            .args(args)
            .output()
            .map_err(|e| RecipeError::Missing { tool: name.clone(), reason: e.to_string() })?;
        if !out.status.success() {
            let command = std::iter::once(name)
                .chain(args.iter().map(|a| a.as_ref().to_string_lossy().into_owned()))
                .collect::<Vec<_>>()
                .join(" ");
            return Err(RecipeError::Failed {
                command,
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().replace('\n', " | "),
            });
        }
        Ok(out)
    }
}

/// The recipe's knobs: `-e` and `-l`.
#[derive(Clone, Debug)]
pub struct RecipeOptions {
    pub symbol: String,
    pub keep_symbol_lookup: bool,
}

impl Default for RecipeOptions {
    fn default() -> Self {
        RecipeOptions { symbol: crate::DEFAULT_SYMBOL.to_string(), keep_symbol_lookup: false }
    }
}

/// The recipe's two outputs.
#[derive(Clone, Debug)]
pub struct RecipeOutput {
    pub stripped: Vec<u8>,
    pub packed: Vec<u8>,
}

/// Packs `input` as xt-pkg-loadlib does (the overlay path, no `-p`).
pub fn pack_with_binutils(tools: &Binutils, input: &Path, opts: &RecipeOptions) -> Result<RecipeOutput, RecipeError> {
    let dir = tempfile::Builder::new().prefix("q7-recipe-").tempdir()?;
    let at = |name: &str| -> PathBuf { dir.path().join(name) };

    // 1. strip the non-loadable sections.
    let strip_tmp = at("strip.tmp");
    tools.run("strip", &[input.as_os_str(), OsStr::new("-o"), strip_tmp.as_os_str()])?;

    // 2. the fixed removals, the lookup tables without -l, and every empty section.
    let listing = tools.run("objdump", &[OsStr::new("-h"), strip_tmp.as_os_str()])?;
    let mut remove: Vec<String> = ALWAYS_REMOVED.iter().map(|n| n.trim_end_matches('*').to_string()).collect();
    if !opts.keep_symbol_lookup {
        remove.extend(SYMBOL_LOOKUP.iter().map(|n| n.to_string()));
    }
    for (name, size) in objdump_sections(&String::from_utf8_lossy(&listing.stdout)) {
        if size == 0 && !remove.contains(&name) {
            remove.push(name);
        }
    }
    let paged = at("paged.so");
    let mut args: Vec<String> = vec![path_arg(&strip_tmp), path_arg(&paged)];
    args.extend(remove.iter().map(|n| format!("--remove-section={n}")));
    tools.run("objcopy", &args)?;

    // 3. save the cleaned image (the Perl script copies it with objcopy).
    let saved = at("saved.stripped.so");
    tools.run("objcopy", &[paged.as_os_str(), saved.as_os_str()])?;

    // 4. an empty object with the image added as an allocated, read-only `libdata`.
    let empty_s = at("empty.s");
    std::fs::write(&empty_s, "")?;
    let empty_o = at("empty.o");
    tools.run("as", &[OsStr::new("-o"), empty_o.as_os_str(), empty_s.as_os_str()])?;
    let flattened = at("flattened.o");
    let add = format!("libdata={}", paged.display());
    tools.run(
        "objcopy",
        &[
            empty_o.as_os_str(),
            flattened.as_os_str(),
            OsStr::new("--add-section"),
            OsStr::new(&add),
            OsStr::new("--set-section-flags"),
            OsStr::new("libdata=readonly,alloc"),
        ],
    )?;

    // 5. the linker script naming the blob's start, and the alignment shim.
    let script = at("loadlib.ld");
    std::fs::write(&script, format!("SECTIONS {{ .rodata : {{ {} = . ; *(libdata) }} }}\n", opts.symbol))?;
    let shim_s = at("shim.s");
    std::fs::write(&shim_s, ".section libdata,\"a\"\n.align 4\n")?;
    let shim_o = at("shim.o");
    tools.run("as", &[OsStr::new("-o"), shim_o.as_os_str(), shim_s.as_os_str()])?;

    // 6. the relocatable link that writes the packed load-lib.
    let packed = at("out.packed.so");
    tools.run(
        "ld",
        &[
            OsStr::new("-r"),
            OsStr::new("-T"),
            script.as_os_str(),
            shim_o.as_os_str(),
            flattened.as_os_str(),
            OsStr::new("-o"),
            packed.as_os_str(),
        ],
    )?;

    // 7. read the outputs; the temporary directory goes away on drop.
    Ok(RecipeOutput { stripped: std::fs::read(&saved)?, packed: std::fs::read(&packed)? })
}

fn path_arg(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// (name, size) of each section in `objdump -h` output: the lines that
/// start with an index, e.g. `  0 .text  000001ac  84000000 …`.
pub fn objdump_sections(listing: &str) -> Vec<(String, u64)> {
    listing
        .lines()
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            f.next()?.parse::<u32>().ok()?;
            let name = f.next()?.to_string();
            let size = u64::from_str_radix(f.next()?, 16).ok()?;
            Some((name, size))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn objdump_listing_is_parsed_by_index_lines() {
        let listing = "\ns1.so:     file format elf32-xtensa-le\n\nSections:\nIdx Name          Size      VMA       LMA       File off  Algn\n  0 .text         000001ac  84000000  84000000  00000074  2**2\n                  CONTENTS, ALLOC, LOAD, READONLY, CODE\n  6 .note.GNU-stack 00000000  00000000  00000000  000002c4  2**0\n";
        assert_eq!(
            super::objdump_sections(listing),
            vec![(".text".to_string(), 0x1ac), (".note.GNU-stack".to_string(), 0)]
        );
    }
}
