//! q7 builds only the invoked subcommand's parser at start-up
//! (`cmd::command`); what lists subcommands (`q7 --help`, `q7 inspect
//! --help`, `q7 help …`, a typo) still names each with its summary, and a
//! subcommand's own help and errors are whole.

use crate::common::{q7, stderr, stdout};

#[test]
fn help_lists_every_subcommand_with_its_summary() {
    let top = stdout(&q7(&["--help"]));
    for line in [
        "  pack         Package a linked Xtensa image as a relocatable load-lib",
        "  inspect      Analyse images and host libraries",
        "  run          Run a built op on real tensors in the Vision-Q7 simulator",
        "  strip        Strip and clean a linked Xtensa image",
    ] {
        assert!(top.contains(line), "{line:?} missing from q7 --help:\n{top}");
    }
    assert_eq!(stdout(&q7(&["help"])), top);
    let inspect = stdout(&q7(&["inspect", "--help"]));
    for line in [
        "  layout         The layout report (same as `q7 layout`)",
        "  struct-layout  Measure header structs by compiling a probe",
        "  carve          Carve embedded Xtensa images out of a host file",
    ] {
        assert!(inspect.contains(line), "{line:?} missing from q7 inspect --help:\n{inspect}");
    }
    assert_eq!(stdout(&q7(&["help", "inspect"])), inspect);
}

#[test]
fn a_subcommand_parses_and_explains_itself_alone() {
    let pack = stdout(&q7(&["pack", "--help"]));
    assert!(pack.starts_with("Package a linked Xtensa image"), "{pack}");
    assert!(pack.contains("Usage: q7 pack [OPTIONS] --output <OUT.packed.so> <INPUT.so>"), "{pack}");
    let layout = stdout(&q7(&["inspect", "layout", "--help"]));
    assert!(layout.starts_with("The layout report (same as `q7 layout`)\n"), "{layout}");
    assert_eq!(stdout(&q7(&["pack", "--version"])), format!("q7-pack {}\n", env!("CARGO_PKG_VERSION")));
    let typo = stderr(&q7(&["pakc"]));
    assert!(
        typo.contains("unrecognized subcommand 'pakc'") && typo.contains("similar subcommand exists: 'pack'"),
        "{typo}"
    );
    let bad = stderr(&q7(&["inspect", "carve", "--bogus"]));
    assert!(bad.contains("unexpected argument '--bogus'") && bad.contains("Usage: q7 inspect carve"), "{bad}");
}
