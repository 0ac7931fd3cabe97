//! `q7 disasm --isa lx106` against GNU `xtensa-lx106-elf-objdump -d -z` on a
//! corpus of GNU-compiled call0 code with its `.xt.prop` property tables
//! (built by the committed recipe `fixtures/disasm_corpus.sh`: the corpus C
//! file and the SDK's C sources at -O0, -O2 and -Os, as objects and linked
//! images). Both tools read the tables, so the listings must agree address
//! by address: instructions by meaning (see `disasm_support::gnu`), literal
//! words by value, fill and undecodable bytes byte by byte (GNU lists one
//! `.byte` per byte, q7 up to four per line).
//!
//! Goal: at least 99.9 % of GNU's lines agree, and every disagreement left is
//! of a kind listed and explained here ([`GNU_REAPPLIES_RELOCS`],
//! [`GNU_STALE_ARCHIVE_TABLE`]), each checked against the peer run on a
//! corrected copy.

use crate::common;
use crate::disasm_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use disasm_support::gnu::*;
use disasm_support::*;

const GNU_OBJDUMP: &str = "xtensa-lx106-elf-objdump";

/// One unit of a listing at an address.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Unit {
    /// An instruction's text (GNU) or record (q7).
    Insn(String),
    Word(u32),
    Byte(u8),
}

/// The corpus (its directory and files), built once for both tests of this
/// file (a few seconds of GNU compiles) into the target's temporary
/// directory, anew in each test run; `None` (tests skipped) when the GNU
/// compiler is missing.
fn corpus() -> Option<&'static (PathBuf, Vec<PathBuf>)> {
    static CORPUS: std::sync::OnceLock<Option<(PathBuf, Vec<PathBuf>)>> = std::sync::OnceLock::new();
    CORPUS
        .get_or_init(|| {
            peer("xtensa-lx106-elf-gcc", &["--version"])?;
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("disasm-corpus");
            let _ = std::fs::remove_dir_all(&dir);
            let out = std::process::Command::new(root().join("fixtures/disasm_corpus.sh")).arg(&dir).output().unwrap();
            assert!(out.status.success(), "fixtures/disasm_corpus.sh: {}", stderr(&out));
            let mut files: Vec<PathBuf> =
                std::fs::read_dir(dir.join("obj")).unwrap().map(|e| e.unwrap().path()).collect();
            files.extend(["O0", "O2", "Os"].map(|level| dir.join(format!("linked_{level}.elf"))));
            // The committed GNU C++ fixtures (-ffunction-sections, one table per function).
            files.extend(["kernels_gnu.o", "kernels_gnu.so"].map(fixture));
            files.sort();
            Some((dir, files))
        })
        .as_ref()
}

/// GNU's listing: per `member section` (member empty outside an archive),
/// the unit at each address.
fn gnu_units(path: &Path) -> BTreeMap<String, BTreeMap<u32, Unit>> {
    let out = peer(GNU_OBJDUMP, &["-d", "-z", path.to_str().unwrap()]).unwrap();
    assert!(out.status.success(), "{}: {}", path.display(), stderr(&out));
    let mut sections: BTreeMap<String, BTreeMap<u32, Unit>> = BTreeMap::new();
    let mut current = None;
    let (mut in_archive, mut member) = (false, String::new());
    for line in stdout(&out).lines() {
        if line.starts_with("In archive ") {
            in_archive = true;
        } else if let Some((name, _)) = line.split_once(":     file format ") {
            member = if in_archive { name.to_string() } else { String::new() };
        } else if let Some(name) = line.strip_prefix("Disassembly of section ").and_then(|l| l.strip_suffix(':')) {
            current = Some(format!("{member} {name}"));
            continue;
        }
        let Some(section) = current.clone() else { continue };
        // "   8:\t00000020 \t" or "  2d:\t0782f6        \tbgeui\ta2, 8, ..."
        let Some((addr, rest)) = line.split_once(":\t") else { continue };
        let Ok(addr) = u32::from_str_radix(addr.trim(), 16) else { continue };
        let (raw, text) = rest.split_once('\t').unwrap_or((rest, ""));
        let (raw, text) = (raw.trim(), squash(text));
        let unit = if text == "excw" {
            // GNU's text for a 3-byte word it cannot decode here: its bytes.
            let bytes = (0..raw.len()).step_by(2).rev().map(|i| u8::from_str_radix(&raw[i..i + 2], 16).unwrap());
            for (i, byte) in bytes.enumerate() {
                sections.entry(section.clone()).or_default().insert(addr + i as u32, Unit::Byte(byte));
            }
            continue;
        } else if text.is_empty() && raw.len() == 8 {
            Unit::Word(u32::from_str_radix(raw, 16).unwrap())
        } else if let Some(byte) = text.strip_prefix(".byte ") {
            let value = byte.strip_prefix("0x").unwrap_or(byte);
            Unit::Byte(u8::from_str_radix(value, 16).unwrap())
        } else {
            Unit::Insn(text)
        };
        sections.entry(section).or_default().insert(addr, unit);
    }
    sections
}

/// One section of q7's listing: units and records by address.
type OurUnits = (BTreeMap<u32, Unit>, BTreeMap<u32, Ours>);

/// q7's listing in the same units, and the records by address.
fn q7_units(path: &Path) -> BTreeMap<String, OurUnits> {
    let mut out = BTreeMap::new();
    for section in q7_listing(path, &["--isa", "lx106"]) {
        let mut units = BTreeMap::new();
        let mut records = BTreeMap::new();
        for line in &section.lines {
            match line.mnemonic.as_str() {
                ".word" => {
                    units.insert(line.address, Unit::Word(u32::from_le_bytes(line.bytes[..4].try_into().unwrap())));
                }
                ".byte" => {
                    for (i, &b) in line.bytes.iter().enumerate() {
                        units.insert(line.address + i as u32, Unit::Byte(b));
                    }
                }
                _ => {
                    units.insert(line.address, Unit::Insn(line.text()));
                }
            }
            records.insert(line.address, line.clone());
        }
        // `lib.a(member.o)` is GNU's `member.o`.
        let member = section.file.strip_suffix(')').and_then(|f| f.rsplit_once('(')).map_or("", |(_, m)| m);
        out.insert(format!("{member} {}", section.name), (units, records));
    }
    out
}

/// GNU objdump reads the `.xt.prop` of a linked image that kept its
/// relocations (`ld -q`, as the committed fixtures are linked) wrongly: it
/// applies the kept `.rela.xt.prop` to addresses that are already final, so
/// its blocks land elsewhere (kernels_gnu.so: all of `.text` as literal
/// words). For such a file the peer is also run on a copy without the
/// `.rela.xt.prop*` sections; a disagreement with the original that agrees
/// with the copy is explained by [`GNU_REAPPLIES_RELOCS`].
const GNU_REAPPLIES_RELOCS: &str =
    "GNU objdump relocates a `ld -q` image's .xt.prop a second time; without .rela.xt.prop it lists what q7 lists";

/// GNU objdump caches a section's property table by the section's address in
/// memory; walking an archive it sometimes keeps the previous member's table
/// for the next member (libgcc.a's `_popcountsi2.o` literals come out as
/// code). A disagreement that GNU does not have on the extracted member
/// (`ar x`) is explained by this.
const GNU_STALE_ARCHIVE_TABLE: &str =
    "GNU objdump reuses a previous archive member's property table; on the extracted member it lists what q7 lists";

/// GNU's listing of each member of `archive`, extracted with `ar x`, keyed
/// like [`gnu_units`] of the whole archive; `None` for a plain file.
fn gnu_units_of_extracted_members(archive: &Path, scratch: &Path) -> Option<BTreeMap<String, BTreeMap<u32, Unit>>> {
    if !std::fs::read(archive).unwrap().starts_with(b"!<arch>\n") {
        return None;
    }
    let dir = scratch.join(format!("x-{}", archive.file_name().unwrap().to_string_lossy()));
    std::fs::create_dir_all(&dir).unwrap();
    let out =
        std::process::Command::new("xtensa-lx106-elf-ar").arg("x").arg(archive).current_dir(&dir).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let member = path.file_name().unwrap().to_string_lossy().to_string();
        for (key, units) in gnu_units(&path) {
            all.insert(format!("{member}{key}"), units);
        }
    }
    Some(all)
}

/// A copy of `path` without `.rela.xt.prop*`/`.rela.xt.lit*` when it is a
/// linked image that has them (see [`GNU_REAPPLIES_RELOCS`]).
fn without_prop_relocs(path: &Path, dir: &Path) -> Option<PathBuf> {
    let data = std::fs::read(path).unwrap();
    let Ok(elf) = q7_elf::ElfFile::parse(&data) else { return None };
    let linked = elf.header().e_type != q7_elf::consts::ET_REL;
    if !linked || !elf.sections().iter().any(|s| s.name.starts_with(".rela.xt.prop")) {
        return None;
    }
    let copy = dir.join(format!("norel-{}", path.file_name().unwrap().to_string_lossy()));
    let args = ["--remove-section=.rela.xt.prop*", "--remove-section=.rela.xt.lit*", path.to_str().unwrap()];
    let mut args: Vec<&str> = args.to_vec();
    args.push(copy.to_str().unwrap());
    let out = peer("xtensa-lx106-elf-objcopy", &args).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    Some(copy)
}

/// The comparison of q7 with GNU over a set of files.
#[derive(Default)]
struct Comparison {
    files: usize,
    agree: usize,
    /// GNU's lines.
    total: usize,
    explained: BTreeMap<&'static str, usize>,
    unexplained: Vec<String>,
    /// Agreeing lines by kind: instructions, words, bytes.
    kinds: std::collections::HashMap<std::mem::Discriminant<Unit>, usize>,
    /// Archive members listed.
    members: std::collections::BTreeSet<String>,
}

impl Comparison {
    fn add(&mut self, path: &Path, scratch: &Path) {
        self.files += 1;
        let theirs = gnu_units(path);
        let fixed_peer = without_prop_relocs(path, scratch).map(|copy| gnu_units(&copy));
        let extracted = gnu_units_of_extracted_members(path, scratch);
        let ours = q7_units(path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let their_names: Vec<&String> = theirs.keys().collect();
        let our_names: Vec<&String> = ours.iter().filter(|(_, (u, _))| !u.is_empty()).map(|(n, _)| n).collect();
        assert_eq!(our_names, their_names, "{name}: the same members and code sections listed");
        for (section, peer) in &theirs {
            self.members.insert(section.split_once(' ').map_or("", |(m, _)| m).to_string());
            let (units, records) = &ours[section];
            let fixed = fixed_peer.as_ref().and_then(|p| p.get(section));
            let alone = extracted.as_ref().and_then(|p| p.get(section));
            let addresses: std::collections::BTreeSet<u32> = units.keys().chain(peer.keys()).copied().collect();
            for addr in addresses {
                let (o, t) = (units.get(&addr), peer.get(&addr));
                let agrees = |theirs: Option<&Unit>| match (o, theirs) {
                    (Some(Unit::Insn(_)), Some(Unit::Insn(text))) => judge_gnu(&records[&addr], text) == Verdict::Agree,
                    (a, b) => a == b,
                };
                self.total += usize::from(t.is_some());
                if agrees(t) {
                    self.agree += 1;
                    *self.kinds.entry(std::mem::discriminant(t.unwrap())).or_default() += 1;
                } else if fixed.is_some_and(|f| agrees(f.get(&addr))) {
                    *self.explained.entry(GNU_REAPPLIES_RELOCS).or_default() += 1;
                } else if alone.is_some_and(|f| agrees(f.get(&addr))) {
                    *self.explained.entry(GNU_STALE_ARCHIVE_TABLE).or_default() += 1;
                } else {
                    self.unexplained.push(format!("{name} {section} {addr:#x}: q7 {o:?}, gnu {t:?}"));
                }
            }
        }
    }

    fn share(&self) -> f64 {
        self.agree as f64 / self.total as f64
    }

    /// Prints the tally; fails on an unexplained disagreement, or when less
    /// than 99.9 % of GNU's lines agree or are explained.
    fn assert_good(&self, what: &str) {
        eprintln!(
            "{what}: {} files, {} archive members: {} of {} GNU lines agree ({:.3} %); explained: {:#?}",
            self.files,
            self.members.iter().filter(|m| !m.is_empty()).count(),
            self.agree,
            self.total,
            100.0 * self.share(),
            self.explained
        );
        assert!(
            self.unexplained.is_empty(),
            "{what}: {} unexplained disagreements, first ones:\n{}",
            self.unexplained.len(),
            self.unexplained.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
        );
        let understood = (self.agree + self.explained.values().sum::<usize>()) as f64 / self.total as f64;
        assert!(understood >= 0.999, "{what}: agreed or explained {:.3} % is below 99.9 %", 100.0 * understood);
    }

    fn agreeing(&self, kind: &Unit) -> usize {
        self.kinds.get(&std::mem::discriminant(kind)).copied().unwrap_or(0)
    }
}

#[test]
fn gnu_corpus_agrees_with_gnu_objdump() {
    let Some((_, files)) = corpus() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let mut comparison = Comparison::default();
    for path in files {
        comparison.add(path, scratch.path());
    }
    comparison.assert_good("GNU lx106 corpus");
    assert!(comparison.share() >= 0.999, "agreement {:.3} % is below 99.9 %", 100.0 * comparison.share());
    // Literal words and fill bytes were listed (and agreed), not only code.
    for kind in [Unit::Word(0), Unit::Byte(0), Unit::Insn(String::new())] {
        assert!(comparison.agreeing(&kind) > 100, "too few agreeing {kind:?} lines");
    }
    assert!(comparison.total > 10_000, "the corpus is big enough to measure 99.9 % ({} lines)", comparison.total);
}

/// `q7 disasm` of an archive lists every ELF member under its name, as
/// `objdump -d` does: the corpus's own archive and the toolchain's libgcc.a
/// (third-party code, much of it hand-written assembly).
#[test]
fn archives_list_every_member_like_gnu_objdump() {
    let Some((dir, _)) = corpus() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let libgcc = peer("xtensa-lx106-elf-gcc", &["-print-libgcc-file-name"]).unwrap();
    let libgcc = PathBuf::from(stdout(&libgcc).trim());
    for archive in [dir.join("libcorpus.a"), libgcc] {
        let out = peer("xtensa-lx106-elf-ar", &["t", archive.to_str().unwrap()]).unwrap();
        let names: Vec<String> = stdout(&out).lines().map(String::from).collect();
        let mut comparison = Comparison::default();
        comparison.add(&archive, scratch.path());
        comparison.assert_good(&archive.display().to_string());
        // Every member with code was listed under its own name.
        let listed: Vec<&String> = comparison.members.iter().collect();
        assert!(listed.iter().all(|m| names.contains(m)), "{listed:?} vs {names:?}");
        assert!(listed.len() > 20, "{archive:?}: {} members with code listed", listed.len());
    }
}
