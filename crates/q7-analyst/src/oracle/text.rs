//! Human rendering of [`OracleReport`].

use std::io::{self, Write};

use super::{OracleReport, Outcome, Sample};

fn outcome_text(o: Outcome) -> String {
    match o {
        Outcome::Returned { status: 0, value } => format!("{value:#x}"),
        Outcome::Returned { status, value } => format!("{value:#x} (status {status})"),
        Outcome::Crashed { signal } if signal == libc::SIGALRM => "timed out".to_string(),
        Outcome::Crashed { signal } => format!("crashed ({})", super::signal_name(signal)),
        Outcome::NotRun => "not run".to_string(),
    }
}

/// Writes the report; `show` caps the examples listed per comparison.
pub fn write_report(out: &mut dyn Write, r: &OracleReport) -> io::Result<()> {
    writeln!(out, "oracle: {} (sha256 {})", r.library, r.library_sha256)?;
    for leaf in &r.leaves {
        let place = leaf.offset.map_or("offset unknown".to_string(), |o| format!("at library base + {o:#x}"));
        writeln!(out, "  leaf      {} {place}  {}", leaf.symbol, leaf.evidence)?;
    }
    if let Some(model) = &r.model {
        writeln!(out, "  model     {model}")?;
    }
    writeln!(out, "  inputs    {}", r.inputs.description)?;
    writeln!(out, "  calls     {} returned  {}", r.calls_returned, r.execution)?;
    for leaf in r.leaves.iter().filter(|l| l.nonzero_status_calls > 0) {
        let n = leaf.nonzero_status_calls;
        writeln!(out, "  status    {} returned non-zero on {n} call{}", leaf.symbol, if n == 1 { "" } else { "s" })?;
    }

    for c in &r.comparisons {
        let verdict = match (c.agree, c.disagree, c.incomparable) {
            (_, d, _) if d > 0 => "DISAGREE",
            (0, _, _) => "NOTHING TO COMPARE",
            (_, _, 0) => "AGREE",
            _ => "AGREE where both have values",
        };
        writeln!(out, "\n  {} vs {}: {verdict}", c.left, c.right)?;
        writeln!(
            out,
            "    {} agree, {} disagree, {} not comparable  {}",
            c.agree, c.disagree, c.incomparable, c.evidence
        )?;
        for m in &c.first_mismatches {
            writeln!(out, "    ({:#x}, {:#x}): {} {:#x}, {} {:#x}", m.a, m.b, c.left, m.left, c.right, m.right)?;
        }
        if c.disagree > c.first_mismatches.len() {
            writeln!(out, "    … {} more mismatches", c.disagree - c.first_mismatches.len())?;
        }
    }

    if !r.crashes.is_empty() {
        writeln!(out, "\n  crashes")?;
        for crash in &r.crashes {
            writeln!(out, "    {}  {}", crash.message, crash.evidence)?;
        }
    }
    if r.stopped_early {
        writeln!(out, "  stopped after {} crashes (--max-crashes)", r.crashes.len())?;
    }
    if r.inputs_not_run > 0 {
        writeln!(out, "  {} input(s) not run on every leaf", r.inputs_not_run)?;
    }
    if r.model_errors.count > 0 {
        writeln!(out, "\n  model errors on {} input(s)", r.model_errors.count)?;
        for e in &r.model_errors.first {
            writeln!(out, "    ({:#x}, {:#x}): {}", e.a, e.b, e.error)?;
        }
    }

    // With nothing to compare against, the values themselves are the result.
    if r.comparisons.is_empty() {
        writeln!(out, "\n  values")?;
        for s in &r.samples {
            write_sample(out, s)?;
        }
    }
    if r.comparisons.iter().all(|c| c.holds()) && !r.comparisons.is_empty() && r.crashes.is_empty() {
        writeln!(
            out,
            "\n  scope     the agreement covers the {} inputs above only  [INFERRED: other inputs were not executed]",
            r.inputs.count
        )?;
    }
    Ok(())
}

fn write_sample(out: &mut dyn Write, s: &Sample) -> io::Result<()> {
    let values: Vec<String> = s.leaves.iter().map(|o| outcome_text(*o)).collect();
    writeln!(out, "    ({:#x}, {:#x}) -> {}", s.a, s.b, values.join("  "))
}
