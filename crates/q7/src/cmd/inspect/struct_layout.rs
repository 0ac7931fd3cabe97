//! `q7 inspect struct-layout`: sizeof/offsetof of header structs, measured by
//! compiling and running a probe (docs/FACTS.md, "Compile-verified struct layouts"), with the header's own size
//! assertions re-checked.

use std::path::PathBuf;

use anyhow::{bail, Result};
use q7_analyst::struct_layout::{self, LayoutRequest};

/// Measure header structs by compiling a probe; re-check the header's size
/// assertions.
///
/// Measures structs declared in a C header by compiling and running a probe:
/// sizeof, alignment and every field's offset (nested structs and arrays
/// flattened as `a.b`, `arr[0]`), padding, and the header's own
/// `static_assert`/`_Static_assert` conditions checked against the result.
/// A wrong assertion does not stop the measurement: the probe compiles a
/// copy of the header without its assertions and evaluates them itself.
/// Exits non-zero when an assertion fails.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The C header to measure.
    header: PathBuf,
    /// Structs to measure: typedef names, `struct TAG`, `union TAG` or bare
    /// tags. With none, only the header's assertions are checked.
    structs: Vec<String>,
    /// Add a directory to the include search path (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a macro, `NAME` or `NAME=VALUE` (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// The C compiler to preprocess, compile and run the probe with; it must
    /// produce programs this machine can run. Run directly, never through a
    /// shell.
    #[arg(long, value_name = "CC", default_value = "cc")]
    cc: String,
    /// An extra compiler flag, e.g. `--cflag=-m32` for a 32-bit data model
    /// (repeatable).
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    cflags: Vec<String>,
    /// Array elements listed per array; the array's own line always gives
    /// its element count and total size.
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_elements: u64,
    /// Print the same content as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let request = LayoutRequest {
        header: args.header,
        structs: args.structs,
        include_dirs: args.include,
        defines: args.define,
        compiler: args.cc,
        cflags: args.cflags,
        max_elements: args.max_elements,
    };
    let report = struct_layout::measure(&request).map_err(|e| match e {
        // The library names the compiler; the flag that picks another is ours.
        struct_layout::LayoutError::Compiler { .. } => anyhow::anyhow!("{e} (choose one with --cc)"),
        e => e.into(),
    })?;
    if args.json {
        crate::io::print_json(&report)?;
    } else {
        struct_layout::write_report(&mut crate::io::text_stdout(), &report)?;
    }
    let failing: Vec<_> = report.failed_assertions().collect();
    if let Some(first) = failing.first() {
        let values = match (first.left, first.right) {
            (Some(l), Some(r)) => format!(" (the left side is {l}, not {r})"),
            _ => String::new(),
        };
        bail!(
            "{} of {} header assertions fail; first: {}: {}{values}",
            failing.len(),
            report.assertions.len(),
            first.location,
            first.condition
        );
    }
    Ok(())
}
