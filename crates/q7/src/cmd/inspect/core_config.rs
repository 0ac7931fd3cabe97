//! `q7 inspect core-config`: Tensilica core descriptions normalised and
//! cross-validated (docs/FACTS.md, "Core-config cross-validation").

use std::path::PathBuf;

use anyhow::{bail, Result};
use q7_analyst::core_config::{self, Agreement};

/// Read and cross-validate Tensilica core descriptions (`*-params`,
/// `core-isa.h`).
///
/// Reads Tensilica-style core descriptions — `*-params` files (`Key = value`
/// lines) and `core-isa.h` headers (`#define XCHAL_… value`) — and prints the
/// normalised facts: config name, byte order, windowed registers, density,
/// loops, MUL/DIV options, FP, vector pipe, local memories… Given several
/// sources, facts they state alike are reported as corroborated by N
/// sources, and facts they state differently are listed side by side; the
/// exit status is non-zero when any fact conflicts.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Core description files; the format is recognised from the name
    /// (`.h`) or a `#define` line, anything else is read as a params file.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let mut sources = Vec::new();
    for path in &args.files {
        let bytes = crate::io::read_input(path)?;
        let text = String::from_utf8_lossy(&bytes);
        sources.push(core_config::parse_source(&path.display().to_string(), &text)?);
    }
    let report = core_config::cross_validate(&sources);
    if args.json {
        crate::io::print_json(&report)?;
    } else {
        core_config::write_report(&mut crate::io::text_stdout(), &report)?;
    }
    let conflicts: Vec<_> = report.conflicts().collect();
    if let Some(first) = conflicts.first() {
        let sides: Vec<String> =
            first.statements.iter().map(|s| format!("{} says {}", s.place(), s.normalised)).collect();
        bail!(
            "{} fact{} conflict between the sources; first: {}: {}",
            conflicts.len(),
            if conflicts.len() == 1 { "" } else { "s" },
            first.label,
            sides.join(", ")
        );
    }
    debug_assert!(report.facts.iter().all(|f| f.agreement != Agreement::Conflict));
    Ok(())
}
