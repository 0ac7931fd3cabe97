//! `q7 disasm --isa lx106` against GNU `xtensa-lx106-elf-objdump -d -z
//! --no-show-raw-insn` on the GNU call0 fixtures (kernels_gnu.o, kernels_gnu.so),
//! listing against listing address by address, and q7's decoder at every
//! address GNU lists.
//!
//! Both tools run on a copy without `.xt.prop*`/`.xt.lit*` (made by
//! `xtensa-lx106-elf-objcopy`): this test is about code without property
//! tables, where GNU decodes every byte as code and q7 restarts at targets and
//! lists `l32r` literals as words. With the tables both follow them; that is
//! `disasm_gnu_corpus.rs`.
//!
//! Normalisation, operand by operand (as crates/q7-isa/tests/gnu_peer.rs):
//! `rsr.sar a2` is `rsr a2, sar`; targets are bare hex (`84000040 <sym>`);
//! immediates may be `0x` hex; `l32r`'s `(value <sym>)` suffix is compared
//! with q7's literal value; GNU's `.byte` and `excw` (its fallback for
//! undecodable words) agree with q7's `.byte`.
//!
//! Allowed: the two sweeps' policy differences shared with the LLVM test
//! (a cut at the next symbol or target, a literal word, stepping out of step
//! after undecodable bytes).

use crate::common;
use crate::disasm_support;

use common::*;
use disasm_support::gnu::*;
use disasm_support::*;
use q7_image::disasm::IsaOptions;

const GNU_OBJDUMP: &str = "xtensa-lx106-elf-objdump";
const GNU_OBJCOPY: &str = "xtensa-lx106-elf-objcopy";

#[test]
fn gnu_call0_fixtures_match_gnu_objdump() {
    let isa = IsaOptions::lx106();
    let dir = tempfile::tempdir().unwrap();
    let mut listing = Tally::default();
    let mut decoder = Tally::default();
    let mut literals = 0;
    for name in ["kernels_gnu.o", "kernels_gnu.so"] {
        let path = fixture(name);
        let bare = dir.path().join(name);
        let strip =
            ["-R", ".xt.lit", "-R", ".rela.xt.lit", "--remove-section=.xt.prop*", "--remove-section=.rela.xt.prop*"];
        let mut args: Vec<&str> = strip.to_vec();
        args.extend([path.to_str().unwrap(), bare.to_str().unwrap()]);
        let Some(out) = peer(GNU_OBJCOPY, &args) else { return };
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let out = peer(GNU_OBJDUMP, &["-d", "-z", "--no-show-raw-insn", bare.to_str().unwrap()]).unwrap();
        assert!(out.status.success() && stderr(&out).is_empty(), "{name}: {}", stderr(&out));
        let theirs = parse_objdump(&stdout(&out));

        let ours = q7_listing(&bare, &["--isa", "lx106"]);
        let mut our_names: Vec<&str> = ours.iter().map(|s| s.name.as_str()).collect();
        our_names.sort();
        assert_eq!(our_names, theirs.keys().map(String::as_str).collect::<Vec<_>>(), "{name}: the same code sections");
        for section in &ours {
            let peer_section = &theirs[&section.name];
            let labelled = OurSection { name: format!("{name} {}", section.name), ..section.clone() };
            compare_section(&labelled, peer_section, &gnu_unknown, &judge_gnu, &mut listing);
            literals += section.lines.iter().filter(|l| l.literal.is_some()).count();

            let (bytes, base) = section_bytes(&path, &section.name);
            for (&addr, text) in &peer_section.lines {
                // GNU, like q7, cuts an instruction short at the next symbol.
                let next_label =
                    peer_section.labels.range(addr + 1..).next().map_or(bytes.len(), |&l| (l - base) as usize);
                let ours = Ours::decode(&bytes[(addr - base) as usize..next_label], addr, &isa);
                decoder.record(judge_gnu(&ours, text), || {
                    format!("{name} {} {addr:#010x}: q7 decodes {:?}, gnu {text:?}", section.name, ours.text())
                });
            }
        }
    }
    listing.assert_clean("q7 disasm --isa lx106 listing vs GNU objdump");
    decoder.assert_clean("q7 lx106 decoder at every GNU objdump address");
    assert!(literals > 0, "an l32r literal value was compared");
}
