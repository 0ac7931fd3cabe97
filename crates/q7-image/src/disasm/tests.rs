use super::*;

fn options(isa: IsaOptions) -> DisasmOptions {
    DisasmOptions { isa, isa_name: "test".into(), symbols: true, ..DisasmOptions::default() }
}

fn listing(data: &[u8], options: &DisasmOptions) -> String {
    let dis = Disassembly::prepare(data, options).unwrap();
    let mut out = Vec::new();
    dis.write_text(&mut out, "blob").unwrap();
    String::from_utf8(out).unwrap()
}

/// The instruction lines of a listing, without the address and byte columns.
fn texts(listing: &str) -> Vec<String> {
    listing.lines().filter(|l| l.len() > 23 && l.as_bytes()[8] == b':').map(|l| l[23..].to_string()).collect()
}

#[test]
fn raw_code_with_targets_and_literals() {
    // The word at the base is loaded by the l32r, so it is listed as a
    // literal (its bytes would also decode: ret.n; retw.n); its value
    // points at the retw.n at base + 0xd.
    let code = [
        0x0d, 0xf0, 0x1d, 0xf0, // literal 0xf01df00d
        0x36, 0x41, 0x00, // entry a1, 32
        0x81, 0xfe, 0xff, // l32r a8, base
        0x46, 0x00, 0x00, // j base + 0xf
        0x1d, 0xf0, // retw.n
        0x36, 0x41, 0x00, // entry a1, 32
        0x00, // a truncated instruction
    ];
    let mut opts = options(IsaOptions::vision_q7());
    opts.base = Some(0xf01d_f000);
    let text = listing(&code, &opts);
    assert!(text.starts_with("blob: raw code, 19 bytes at 0xf01df000; ISA test\n"), "{text}");
    assert!(text.contains("\nDisassembly of section raw:\n\nf01df000 <raw>:\n"), "{text}");
    assert!(text.contains("f01df007: 81 fe ff     l32r\ta8, 0xf01df000 <raw>  ; 0xf01df00d <raw+0xd>\n"), "{text}");
    assert!(text.contains("f01df00a: 46 00 00     j\t0xf01df00f <raw+0xf>\n"), "{text}");
    assert!(text.contains("f01df012: 00           .byte\t0x00\n"), "{text}");
    assert!(text.contains("f01df000: 0d f0 1d f0  .word\t0xf01df00d\n"), "{text}");
    assert_eq!(texts(&text).len(), 7, "{text}");
}

#[test]
fn padding_before_a_branch_target_does_not_swallow_it() {
    // The pattern: `j` over one fill byte to an aligned target that a
    // branch also names. A plain sweep reads `00 0c c2` as one word.
    let code = [
        0x8c, 0x82, // 0: beqz.n a2, 0xc
        0x86, 0x01, 0x00, // 2: j 0xc
        0x1d, 0xf0, // 5: retw.n
        0x1d, 0xf0, // 7: retw.n
        0x1d, 0xf0, // 9: retw.n
        0x00, // b: fill before the aligned target
        0x0c, 0xc2, // c: movi.n a2, 12
        0x1d, 0xf0, // e: retw.n
    ];
    let text = listing(&code, &options(IsaOptions::vision_q7()));
    let lines = texts(&text);
    assert!(lines.contains(&"movi.n\ta2, 12".to_string()), "{text}");
    assert!(text.contains("0000000b: 00           .byte\t0x00\n"), "{text}");
}

#[test]
fn lx_scalar_rule_keeps_wide_op0_words_three_bytes() {
    // op0 0xe and 0xf words, then retw.n and entry.
    let code = [0x0e, 0x11, 0x22, 0x0f, 0x33, 0x44, 0x1d, 0xf0, 0x36, 0x41, 0x00];
    let scalar = listing(&code, &options(IsaOptions::vision_q7().with_lx_scalar(true)));
    assert_eq!(
        texts(&scalar),
        [".byte\t0x0e, 0x11, 0x22", ".byte\t0x0f, 0x33, 0x44", "retw.n", "entry\ta1, 32"],
        "{scalar}"
    );
    // Under the Vision rule op0 0xe starts a bundle of unknown length: one
    // byte is skipped and the sweep loses step.
    let vision = listing(&code, &options(IsaOptions::vision_q7()));
    assert_eq!(texts(&vision)[0], ".byte\t0x0e");
    assert_ne!(texts(&vision), texts(&scalar));
}

#[test]
fn long_undecodable_runs_are_split() {
    // A reserved word under the scalar rule skips to the next retw.n.
    let code = [0x20, 0, 0, 1, 2, 3, 4, 5, 6, 0x1d, 0xf0];
    let text = listing(&code, &options(IsaOptions::vision_q7().with_lx_scalar(true)));
    assert_eq!(
        texts(&text),
        [".byte\t0x20, 0x00, 0x00, 0x01", ".byte\t0x02, 0x03, 0x04, 0x05", ".byte\t0x06", "retw.n"]
    );
}

#[test]
fn range_parsing() {
    assert_eq!(AddrRange::parse("0x10..32").unwrap(), AddrRange { start: 16, end: 32 });
    assert_eq!(AddrRange::parse("0..0x100000000").unwrap().end, 1 << 32);
    for bad in ["", "10", "0x20..0x10", "5..5", "x..10", "0..0x1000000001", "-1..4"] {
        let error = AddrRange::parse(bad).unwrap_err().to_string();
        assert!(error.starts_with("bad address range"), "{bad}: {error}");
    }
}

#[test]
fn user_errors_are_reported_before_writing() {
    let opts = options(IsaOptions::vision_q7());
    assert!(matches!(Disassembly::prepare(&[], &opts), Err(DisasmError::Empty)));
    let mut with_section = opts.clone();
    with_section.section = Some(".text".into());
    assert!(matches!(Disassembly::prepare(&[0x1d, 0xf0], &with_section), Err(DisasmError::SectionOnRaw)));
    let mut outside = opts.clone();
    outside.range = Some(AddrRange { start: 0x100, end: 0x200 });
    let error = Disassembly::prepare(&[0x1d, 0xf0], &outside).unwrap_err();
    assert_eq!(error.to_string(), "address range 0x100..0x200 covers no bytes of the executable sections");
    assert!(matches!(Disassembly::prepare(b"\x7fELF\x01", &opts), Err(DisasmError::Elf(_))));
}

#[test]
fn raw_input_stops_at_the_top_of_the_address_space() {
    let mut opts = options(IsaOptions::vision_q7());
    opts.base = Some(0xffff_fffe);
    let text = listing(&[0x1d, 0xf0, 0x1d, 0xf0], &opts);
    assert_eq!(texts(&text), ["retw.n"]);
}

/// SplitMix64, for reproducible random inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Lists `data` every way the options allow; must never panic.
pub(super) fn list_every_way(data: &[u8], selector: u64) {
    let isas = [IsaOptions::vision_q7(), IsaOptions::lx106(), IsaOptions::full()];
    let mut opts = options(isas[(selector % 3) as usize].with_lx_scalar(selector & 4 != 0));
    opts.symbols = selector & 8 == 0;
    if selector & 16 != 0 {
        opts.range = Some(AddrRange { start: selector >> 40 & 0xffff, end: (selector >> 40 & 0xffff) + 0x40 });
    }
    if !data.starts_with(b"\x7fELF") {
        opts.base = Some((selector >> 8) as u32);
    }
    if let Ok(dis) = Disassembly::prepare(data, &opts) {
        dis.write_text(io::sink(), "fuzz").unwrap();
        dis.write_json(io::sink(), "fuzz").unwrap();
    }
}

#[test]
fn random_and_mutated_inputs_never_panic() {
    let mut rng = Rng(0x00d1_5a5e);
    for _ in 0..2000 {
        let len = (rng.next() % 300) as usize;
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        list_every_way(&data, rng.next());
    }
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/bin");
    for name in ["prog_cpu0.so", "prog.o", "kernels_gnu.so", "prog_cpu3.stripped.so"] {
        let good = std::fs::read(fixtures.join(name)).unwrap();
        list_every_way(&good, 0);
        for _ in 0..400 {
            let mut data = good.clone();
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() % data.len() as u64) as usize;
                data[at] = rng.next() as u8;
            }
            data.truncate(data.len() - (rng.next() % 8) as usize);
            list_every_way(&data, rng.next());
        }
    }
}
