//! Shared by the `q7 disasm` tests: reading q7's JSON listing, reading an
//! objdump listing (LLVM or GNU), and the address-by-address comparison of
//! the two with a tally of allowed disagreements.
#![allow(dead_code)] // each test binary uses a different subset

pub mod gnu;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use q7_image::disasm::q7_isa::{self, IsaOptions};

/// One `insn` record of q7's JSON listing (an instruction or `.byte` line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ours {
    pub address: u32,
    pub bytes: Vec<u8>,
    pub mnemonic: String,
    pub operands: String,
    pub target: Option<u32>,
    pub literal: Option<u32>,
    pub error: Option<String>,
}

impl Ours {
    pub fn decoded(&self) -> bool {
        self.error.is_none()
    }

    /// A literal word (`.word`), listed as data.
    pub fn is_word(&self) -> bool {
        self.mnemonic == ".word"
    }

    /// `mnemonic operands`, single-spaced.
    pub fn text(&self) -> String {
        squash(&format!("{} {}", self.mnemonic, self.operands))
    }

    /// The same fields from a fresh decode of `bytes` at `pc` (not cut at labels).
    pub fn decode(bytes: &[u8], pc: u32, isa: &IsaOptions) -> Ours {
        let result = q7_isa::decode(bytes, pc, isa);
        let len = result.as_ref().map_or(bytes.len().min(3), |i| usize::from(i.len));
        let (mnemonic, operands, error) = match &result {
            Ok(insn) => {
                let text = insn.to_string();
                let (m, o) = text.split_once('\t').unwrap_or((&text, ""));
                (m.to_string(), o.to_string(), None)
            }
            Err(e) => (".byte".to_string(), String::new(), Some(e.to_string())),
        };
        let target = result.as_ref().ok().and_then(|i| i.target());
        Ours { address: pc, bytes: bytes[..len].to_vec(), mnemonic, operands, target, literal: None, error }
    }
}

/// One listed section of q7's JSON output.
#[derive(Clone, Debug, Default)]
pub struct OurSection {
    /// The `path` of the file record before it (`lib.a(member.o)` in an archive).
    pub file: String,
    pub name: String,
    pub address: u32,
    /// Where q7 found instruction boundaries: `xt.prop`, `xt.lit` or `targets`.
    pub boundaries: String,
    pub labels: BTreeSet<u32>,
    pub lines: Vec<Ours>,
}

/// Parses the JSON Lines of `q7 disasm --json`.
pub fn parse_q7_json(text: &str) -> Vec<OurSection> {
    let mut sections: Vec<OurSection> = Vec::new();
    let mut file = String::new();
    for line in text.lines() {
        let record: serde_json::Value = serde_json::from_str(line).expect("each line is a JSON object");
        let number = |key: &str| record[key].as_u64().map(|v| v as u32);
        match record["type"].as_str().expect("a type") {
            "file" => file = record["path"].as_str().unwrap().to_string(),
            "section" => sections.push(OurSection {
                file: file.clone(),
                name: record["name"].as_str().unwrap().to_string(),
                address: number("address").unwrap(),
                boundaries: record["boundaries"].as_str().unwrap().to_string(),
                ..OurSection::default()
            }),
            "label" => {
                sections.last_mut().unwrap().labels.insert(number("address").unwrap());
            }
            "insn" => {
                let hex = record["bytes"].as_str().unwrap();
                let bytes =
                    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
                sections.last_mut().unwrap().lines.push(Ours {
                    address: number("address").unwrap(),
                    bytes,
                    mnemonic: record["mnemonic"].as_str().unwrap().to_string(),
                    operands: record["operands"].as_str().unwrap().to_string(),
                    target: number("target"),
                    literal: number("literal"),
                    error: record["error"].as_str().map(String::from),
                });
            }
            other => panic!("unexpected record type {other}"),
        }
    }
    sections
}

/// One section of an objdump listing: instruction text by address, and labels.
#[derive(Clone, Debug, Default)]
pub struct PeerSection {
    pub lines: BTreeMap<u32, String>,
    pub labels: BTreeSet<u32>,
}

/// Parses `objdump -d --no-show-raw-insn` output (LLVM or GNU) by section name.
pub fn parse_objdump(text: &str) -> BTreeMap<String, PeerSection> {
    let mut out: BTreeMap<String, PeerSection> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("Disassembly of section ").and_then(|l| l.strip_suffix(':')) {
            current = Some(name.to_string());
            out.entry(name.to_string()).or_default();
            continue;
        }
        let Some(section) = current.as_ref().and_then(|name| out.get_mut(name)) else { continue };
        if let Some((addr, _)) = line.split_once(" <").filter(|_| line.ends_with(">:")) {
            if let Ok(addr) = u32::from_str_radix(addr.trim(), 16) {
                section.labels.insert(addr);
            }
            continue;
        }
        let Some((addr, text)) = line.split_once(':') else { continue };
        let Ok(addr) = u32::from_str_radix(addr.trim(), 16) else { continue };
        section.lines.insert(addr, squash(text));
    }
    out.retain(|_, s| !s.lines.is_empty());
    out
}

/// Collapses runs of whitespace to one space.
pub fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How one of our lines compares with the peer's text at the same address.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Agree,
    Allowed(&'static str),
    Disagree,
}

/// Counts of a comparison: agreements, allowed disagreements by reason, and
/// the disagreements themselves.
#[derive(Debug, Default)]
pub struct Tally {
    pub agree: usize,
    pub allowed: BTreeMap<&'static str, usize>,
    pub disagreements: Vec<String>,
    /// Bytes of the longest stretch where the sweeps were out of step.
    pub longest_desync: u32,
}

impl Tally {
    pub fn record(&mut self, verdict: Verdict, what: impl FnOnce() -> String) {
        match verdict {
            Verdict::Agree => self.agree += 1,
            Verdict::Allowed(reason) => *self.allowed.entry(reason).or_default() += 1,
            Verdict::Disagree => self.disagreements.push(what()),
        }
    }

    /// Prints the tally and fails on any disagreement.
    pub fn assert_clean(&self, what: &str) {
        eprintln!(
            "{what}: {} agree; longest out-of-step stretch {} bytes; allowed disagreements: {:#?}",
            self.agree, self.longest_desync, self.allowed
        );
        assert!(
            self.disagreements.is_empty(),
            "{} disagreements ({what}), first ones:\n{}",
            self.disagreements.len(),
            self.disagreements.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
        );
        assert!(self.agree > 0, "nothing compared ({what})");
    }
}

/// Reasons shared by both peers.
pub const CUT_AT_LABEL: &str = "the peer decodes across the next symbol (padding before it); q7 restarts there";
pub const DESYNC: &str = "the sweeps step differently after undecodable bytes until they meet again";
pub const CUT_AT_TARGET: &str = "the peer decodes across a branch target or a property-table block end \
                                 (padding before it); q7 restarts the sweep there, as GNU objdump does";
pub const LITERAL_WORD: &str = "q7 lists an l32r literal word as .word; the peer decodes its bytes as code";

/// Compares one section address by address.
///
/// At an address both list, `judge` decides; q7's `.byte` for an instruction
/// cut short by the next label against a peer instruction is [`CUT_AT_LABEL`].
/// An address only one side lists is allowed ([`DESYNC`]) only while the
/// sweeps are out of step: after a common address where either side had
/// undecodable bytes or a cut, until a common address where both decoded.
pub fn compare_section(
    ours: &OurSection,
    theirs: &PeerSection,
    peer_unknown: &dyn Fn(&str) -> bool,
    judge: &dyn Fn(&Ours, &str) -> Verdict,
    tally: &mut Tally,
) {
    let by_address: BTreeMap<u32, &Ours> = ours.lines.iter().map(|l| (l.address, l)).collect();
    // q7 restarts the sweep at a literal word as at a label.
    let words: BTreeSet<u32> = ours.lines.iter().filter(|l| l.is_word()).map(|l| l.address).collect();
    // ... and at every branch, jump, loop or call target its listing names.
    let targets: BTreeSet<u32> = ours.lines.iter().filter_map(|l| l.target).collect();
    let addresses: BTreeSet<u32> = by_address.keys().chain(theirs.lines.keys()).copied().collect();
    let mut in_step = true;
    let mut desync_from = 0;
    for addr in addresses {
        if !in_step {
            tally.longest_desync = tally.longest_desync.max(addr - desync_from);
        }
        let what = |detail: String| format!("{} {addr:#010x}: {detail}", ours.name);
        match (by_address.get(&addr), theirs.lines.get(&addr)) {
            (Some(line), Some(text)) => {
                let next = addr + line.bytes.len() as u32;
                let cut_at_label = line.error.as_deref().is_some_and(|e| e.contains("truncated"))
                    && (ours.labels.contains(&next) || words.contains(&next));
                let cut_at_target = line.error.as_deref().is_some_and(|e| e.contains("truncated"))
                    && !cut_at_label
                    && (targets.contains(&next) || ours.boundaries == "xt.prop");
                let verdict = if !line.decoded() && peer_unknown(text) {
                    Verdict::Agree
                } else if cut_at_target && !peer_unknown(text) {
                    Verdict::Allowed(CUT_AT_TARGET)
                } else if line.is_word() {
                    Verdict::Allowed(LITERAL_WORD)
                } else if cut_at_label && !peer_unknown(text) {
                    Verdict::Allowed(CUT_AT_LABEL)
                } else {
                    judge(line, text)
                };
                tally.record(verdict, || what(format!("q7 {:?}, peer {text:?}", line.text())));
                if in_step {
                    desync_from = addr;
                }
                in_step = line.decoded() && !line.is_word() && !peer_unknown(text);
            }
            (Some(line), None) => {
                let verdict = if in_step { Verdict::Disagree } else { Verdict::Allowed(DESYNC) };
                tally.record(verdict, || what(format!("only q7 lists {:?}", line.text())));
            }
            (None, Some(text)) => {
                let verdict = if in_step { Verdict::Disagree } else { Verdict::Allowed(DESYNC) };
                tally.record(verdict, || what(format!("only the peer lists {text:?}")));
            }
            (None, None) => unreachable!(),
        }
    }
}

/// The bytes of section `name` of an ELF file, and its address.
pub fn section_bytes(path: &Path, name: &str) -> (Vec<u8>, u32) {
    let data = std::fs::read(path).unwrap();
    let elf = q7_elf::ElfFile::parse(&data).unwrap();
    let section = elf.section_by_name(name).unwrap_or_else(|| panic!("{}: no section {name}", path.display()));
    (section.data().to_vec(), section.addr)
}

/// Runs `q7 disasm --json` with extra arguments and parses the listing.
pub fn q7_listing(path: &Path, extra: &[&str]) -> Vec<OurSection> {
    let mut args = vec!["disasm", path.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_q7")).args(&args).output().expect("run q7");
    assert!(out.status.success(), "q7 {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    parse_q7_json(&String::from_utf8(out.stdout).unwrap())
}
