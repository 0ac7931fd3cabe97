//! Human rendering of a [`Roster`].

use std::io::{self, Write};

use super::{ManifestState, Roster};

pub fn write_roster(out: &mut dyn Write, name: &str, r: &Roster) -> io::Result<()> {
    let table = match &r.table {
        Some(t) => format!("kernel_info_table {} records, {} entries", t.records.len(), t.entries.len()),
        None => "no kernel_info_table".into(),
    };
    writeln!(out, "{name}: {} .xt.prop.<mangled> names, {table}", r.names.len())?;

    writeln!(out, "\n  .xt.prop roster (demangled; the raw name where the demangler does not apply)")?;
    writeln!(out, "    code at     file off  opcodes  name")?;
    for k in &r.names {
        let ops: Vec<String> = k.opcodes.iter().map(u32::to_string).collect();
        writeln!(
            out,
            "    {:<10}  {:<8}  {:<7}  {}",
            k.address.map_or("-".into(), |a| format!("{a:#010x}")),
            k.file_offset.map_or("-".into(), |o| format!("{o:#x}")),
            if ops.is_empty() { "-".into() } else { ops.join(",") },
            k.display()
        )?;
        if k.demangled.is_some() {
            writeln!(out, "    {:<10}  {:<8}  {:<7}    {}", "", "", "", k.mangled)?;
        }
    }

    let manifest = match &r.manifest {
        ManifestState::None => "no manifest given: opcodes stay unnamed".to_string(),
        ManifestState::Stub => "no manifest (stub): the header is {\"dummy_message\":…}, nothing to join".into(),
        ManifestState::Manifest { version, names } => format!(
            "manifest with {names} names{}",
            version.as_deref().map(|v| format!(", ulib_to_ucode_version {v}")).unwrap_or_default()
        ),
        ManifestState::Unusable { problem } => format!("manifest unusable: {problem}"),
    };
    writeln!(out, "\n  opcode -> entry -> name  ({manifest})")?;
    writeln!(out, "    opcode  entry       file off  name                              status")?;
    for row in &r.join {
        writeln!(
            out,
            "    {:<6}  {:<10}  {:<8}  {:<32}  {}",
            row.opcode,
            row.entry.map_or("-".into(), |e| format!("{e:#010x}")),
            row.file_offset.map_or("-".into(), |o| format!("{o:#x}")),
            row.name.as_deref().unwrap_or("-"),
            row.status
        )?;
    }
    Ok(())
}
