//! Image diff on the workspace's fixture images: identical files, a rebased
//! pair, an in-place edit; and the code-decoder hook receives each changed
//! code range with its section's bytes and address.

use std::cell::RefCell;
use std::ops::Range;

use q7_analyst::diff::{diff, CodeDecoder, Input, NoDecoder, SectionStatus};
use q7_analyst::EvidenceKind;

fn fixture(name: &str) -> Vec<u8> {
    let path = q7_testkit::fixtures().join("bin").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn identical_files_stop_at_the_hash() {
    let a = fixture("prog_cpu0.so");
    let r = diff(Input { path: "a", bytes: &a }, Input { path: "b", bytes: &a }, 8, &NoDecoder).unwrap();
    assert!(r.identical && r.sections.is_empty());
    assert_eq!(r.a.sha256, r.b.sha256);
    assert_eq!(r.identity.kind, EvidenceKind::Observed);
}

#[test]
fn a_rebased_pair_is_recognised() {
    let (a, b) = (fixture("prog_cpu0.so"), fixture("prog_cpu1.so"));
    let r = diff(Input { path: "a", bytes: &a }, Input { path: "b", bytes: &b }, 8, &NoDecoder).unwrap();
    assert!(!r.identical);
    assert!(r.header_changes.iter().any(|h| h.field == "entry"));
    let text = r.sections.iter().find(|s| s.name == ".text").unwrap();
    assert_eq!(text.status, SectionStatus::Changed);
    let first = &text.ranges[0];
    assert_eq!(first.addr_b - first.addr_a, 0x20_0000);
    assert_eq!(first.file_offset_a, first.file_offset_b);
    assert_eq!(r.sections.iter().find(|s| s.name == ".dtors").unwrap().status, SectionStatus::Moved);
    let rebase = r.findings.iter().find(|f| f.text.contains("rebased by +0x200000")).expect("rebase finding");
    assert_eq!(rebase.evidence.kind, EvidenceKind::Inferred);
}

/// Records what the hook was given.
#[derive(Default)]
struct Recorder {
    calls: RefCell<Vec<(usize, u32, Range<u32>)>>,
}

impl CodeDecoder for Recorder {
    fn decode(&self, section_bytes: &[u8], section_addr: u32, range: Range<u32>) -> Option<Vec<String>> {
        self.calls.borrow_mut().push((section_bytes.len(), section_addr, range.clone()));
        Some(vec![format!("{:#x}: decoded", section_addr + range.start)])
    }
}

#[test]
fn an_in_place_code_edit_reaches_the_decoder_hook() {
    let a = fixture("prog_cpu0.so");
    let mut b = a.clone();
    b[0x100] ^= 0xff; // inside .text (file offset 0x74.., address 0x84000000..)
    let recorder = Recorder::default();
    let r = diff(Input { path: "a", bytes: &a }, Input { path: "b", bytes: &b }, 8, &recorder).unwrap();
    let text = r.sections.iter().find(|s| s.name == ".text").unwrap();
    assert_eq!((text.status, text.differing_bytes, text.ranges_total), (SectionStatus::Changed, 1, 1));
    let range = &text.ranges[0];
    assert_eq!((range.file_offset_a, range.len), (0x100, 1));
    assert_eq!(range.decoded_a.as_deref(), Some(&[format!("{:#x}: decoded", range.addr_a)][..]));
    let calls = recorder.calls.borrow();
    assert_eq!(calls.len(), 2, "once per side, for the code section only");
    assert_eq!(calls[0], (text.a.unwrap().size as usize, 0x8400_0000, range.section_offset..range.section_offset + 1));
    assert!(r.sections.iter().filter(|s| s.name != ".text").all(|s| s.status == SectionStatus::Identical));
    assert!(r.findings.iter().any(|f| f.text.starts_with("in-place edits")));
}

#[test]
fn not_elf_is_an_error_naming_the_file() {
    let a = fixture("prog_cpu0.so");
    let err =
        diff(Input { path: "a", bytes: &a }, Input { path: "notes.txt", bytes: b"hello" }, 8, &NoDecoder).unwrap_err();
    assert!(err.to_string().starts_with("notes.txt: "), "{err}");
}
