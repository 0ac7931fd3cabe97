use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use q7_elf::ElfFile;
use q7_image::kinfo::{self, KernelTable, Record};
use serde::Serialize;

/// Decode an image's kernel_info_table (docs/FORMATS.md): records of
/// [u32 big-endian opcode][u32 little-endian entry], opcodes grouped by
/// entry, each entry checked for a windowed `entry a1,N` with its frame size
/// and its first `retw.n`/`retw`. With --opcode, do the dispatcher's lookup.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Xtensa image with a kernel_info_table section, or an `ar` archive (one
    /// report per ELF member; not with --opcode).
    image: PathBuf,
    /// Look this opcode up (decimal or 0x hex); prints DISPATCH_MISS when absent.
    #[arg(long, value_parser = parse_opcode)]
    opcode: Option<u32>,
    /// With --opcode: exit with status 1 on DISPATCH_MISS.
    #[arg(long, requires = "opcode")]
    strict: bool,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

fn parse_opcode(s: &str) -> Result<u32, String> {
    q7_target::num::parse_u32(s).ok_or_else(|| format!("`{s}` is not a 32-bit number"))
}

#[derive(Serialize)]
struct Report<'a> {
    path: String,
    #[serde(flatten)]
    table: &'a KernelTable,
}

#[derive(Serialize)]
struct Lookup<'a> {
    path: String,
    opcode: u32,
    dispatch_miss: bool,
    record: Option<&'a Record>,
    entry: Option<&'a kinfo::Entry>,
}

pub fn run(args: Args) -> Result<()> {
    let inputs = crate::io::read_image_lists("q7 inspect kinfo", std::slice::from_ref(&args.image))?.remove(0);
    if inputs.archive {
        return run_archive(&args, &inputs);
    }
    let bytes = inputs.bytes(&inputs.parts[0].1);
    let name = args.image.display().to_string();
    let elf = ElfFile::parse_xtensa(bytes).with_context(|| name.clone())?;
    let table = KernelTable::of(&elf).with_context(|| name.clone())?;
    let Some(opcode) = args.opcode else {
        if args.json {
            return crate::io::print_json(&Report { path: name, table: &table });
        }
        return Ok(kinfo::write_kinfo(&mut crate::io::text_stdout(), &name, &table)?);
    };
    let found = table.lookup(opcode);
    if args.json {
        crate::io::print_json(&Lookup {
            path: name,
            opcode,
            dispatch_miss: found.is_none(),
            record: found,
            entry: found.and_then(|r| table.entry(r.entry)),
        })?;
    } else {
        kinfo::write_lookup(&mut crate::io::text_stdout(), &table, opcode, found)?;
    }
    if found.is_none() && args.strict {
        bail!("DISPATCH_MISS for opcode {opcode} ({opcode:#x}) with --strict");
    }
    Ok(())
}

/// One report per ELF member of an archive (a lookup names one image).
fn run_archive(args: &Args, inputs: &crate::io::Images) -> Result<()> {
    if args.opcode.is_some() {
        bail!("{}: --opcode looks up one image, not an archive", args.image.display());
    }
    let mut tables = Vec::new();
    for (name, range) in &inputs.parts {
        let elf = ElfFile::parse_xtensa(inputs.bytes(range)).with_context(|| name.clone())?;
        tables.push((name.clone(), KernelTable::of(&elf).with_context(|| name.clone())?));
    }
    if args.json {
        let reports: Vec<Report> = tables.iter().map(|(path, table)| Report { path: path.clone(), table }).collect();
        return crate::io::print_json(&reports);
    }
    let mut out = crate::io::text_stdout();
    for (i, (name, table)) in tables.iter().enumerate() {
        if i > 0 {
            use std::io::Write;
            writeln!(out)?;
        }
        kinfo::write_kinfo(&mut out, name, table)?;
    }
    Ok(())
}
