//! A deterministic smoke version of the `elf_parse` fuzz target that runs in
//! every test pass: thousands of mutated fixture images through the reader
//! and the layout report. Errors are fine; a panic fails the test.

use q7_elf::ElfFile;
use q7_image::layout::{Layout, SetFacts};

#[test]
fn mutated_fixtures_never_panic() {
    let dir = q7_testkit::fixtures().join("bin");
    let seeds = ["prog_cpu0.so", "prog_cpu1.stripped.so", "kernels_gnu.so", "prog.o"];
    let mut rng = q7_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut parsed = 0;
    for seed in seeds {
        let good = std::fs::read(dir.join(seed)).unwrap();
        for _ in 0..5000 {
            let mut b = good.clone();
            // The ELF header (52 bytes) is where lies hurt: aim there too.
            rng.mutate(&mut b, 52);
            if let Ok(elf) = ElfFile::parse(&b) {
                parsed += 1;
                let l = Layout::of(&elf);
                let _ = SetFacts::of(&[l.clone(), l]);
                let _ = elf.symbols();
                for s in elf.relocation_sections() {
                    let _ = elf.relocations(s);
                }
            }
        }
    }
    assert!(parsed > 1000, "mutations too destructive to exercise the report: {parsed}");
}
