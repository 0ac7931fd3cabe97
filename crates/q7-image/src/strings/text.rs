//! Human rendering of a [`StringsReport`].

use std::io::{self, Write};

use super::StringsReport;

pub fn write_strings(out: &mut dyn Write, name: &str, r: &StringsReport) -> io::Result<()> {
    let total: usize = r.sections.iter().map(|s| s.strings.len()).sum();
    writeln!(
        out,
        "{name}: {total} strings of {}+ printable bytes in {} allocated sections (aligned in-image address words excluded)",
        r.min_len,
        r.sections.len()
    )?;
    for s in &r.sections {
        writeln!(
            out,
            "\n  {} at {:#010x} (file off {:#x}), {:#x} bytes: {} strings, {} address words skipped",
            s.name,
            s.addr,
            s.offset,
            s.size,
            s.strings.len(),
            s.address_words
        )?;
        for x in &s.strings {
            writeln!(out, "    {:#010x}  {:#08x}  {:?}", x.addr, x.file_offset, x.text)?;
        }
    }
    Ok(())
}
