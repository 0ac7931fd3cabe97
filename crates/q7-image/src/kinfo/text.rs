//! Human rendering of a [`KernelTable`] and of a dispatcher lookup.

use std::io::{self, Write};

use super::{KernelTable, Record};

fn offset(o: Option<u32>) -> String {
    o.map_or("-".into(), |o| format!("{o:#x}"))
}

pub fn write_kinfo(out: &mut dyn Write, name: &str, t: &KernelTable) -> io::Result<()> {
    writeln!(
        out,
        "{name}: kernel_info_table at {:#010x} (file off {:#x}), {:#x} bytes = {} records, {} distinct entries",
        t.addr,
        t.file_offset,
        t.size,
        t.records.len(),
        t.entries.len()
    )?;
    writeln!(out, "  record = [u32 big-endian opcode][u32 little-endian entry]")?;
    writeln!(out, "\n  #   opcode       entry       file off  record at (file off)")?;
    for r in &t.records {
        let e = t.entry(r.entry);
        writeln!(
            out,
            "  {:<3} {:<12} {:#010x}  {:<8}  {:#010x} ({:#x})",
            r.index,
            format!("{} ({:#x})", r.opcode, r.opcode),
            r.entry,
            offset(e.and_then(|e| e.file_offset)),
            r.addr,
            r.file_offset
        )?;
    }
    writeln!(out, "\n  entries (opcodes sharing one kernel are listed together)")?;
    writeln!(out, "  entry       file off  section  opcodes       first bytes  prologue        frame  first return")?;
    for e in &t.entries {
        let p = &e.prologue;
        let ops: Vec<String> = e.opcodes.iter().map(u32::to_string).collect();
        let prologue = match (p.windowed, p.stack_register) {
            (true, Some(r)) => format!("entry a{r}, {}", p.frame_size.unwrap_or(0)),
            _ => "not windowed".into(),
        };
        let ret = match &p.ret {
            Some(r) => {
                format!("{} at {:#010x} (file off {:#x}), {} bytes", r.mnemonic, r.address, r.file_offset, r.length)
            }
            None => p.problem.clone().unwrap_or_else(|| "-".into()),
        };
        writeln!(
            out,
            "  {:#010x}  {:<8}  {:<7}  {:<12}  {:<11}  {:<14}  {:<5}  {ret}",
            e.address,
            offset(e.file_offset),
            e.section.as_deref().unwrap_or("-"),
            ops.join(","),
            p.bytes,
            prologue,
            p.frame_size.map_or("-".into(), |f| f.to_string()),
        )?;
    }
    let shared: Vec<&super::Entry> = t.entries.iter().filter(|e| e.opcodes.len() > 1).collect();
    let windowed = t.entries.iter().filter(|e| e.prologue.windowed).count();
    writeln!(
        out,
        "\n  {} of {} entries begin with a windowed `entry`; {} entr{} shared by several opcodes",
        windowed,
        t.entries.len(),
        shared.len(),
        if shared.len() == 1 { "y is" } else { "ies are" }
    )?;
    Ok(())
}

/// The `--opcode` answer: the record, or a clearly stated miss.
pub fn write_lookup(out: &mut dyn Write, t: &KernelTable, opcode: u32, found: Option<&Record>) -> io::Result<()> {
    match found {
        Some(r) => {
            let e = t.entry(r.entry);
            let frame = e.and_then(|e| e.prologue.frame_size).map_or("not windowed".into(), |f| format!("frame {f}"));
            writeln!(
                out,
                "opcode {opcode} ({opcode:#x}) -> entry {:#010x} (file off {}), record {}, {frame}",
                r.entry,
                offset(e.and_then(|e| e.file_offset)),
                r.index
            )
        }
        None => writeln!(
            out,
            "DISPATCH_MISS: opcode {opcode} ({opcode:#x}) is not in kernel_info_table ({} records)",
            t.records.len()
        ),
    }
}
