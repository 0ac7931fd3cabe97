//! Round-trip properties of the decoder and encoder:
//! * `encode(decode(bytes)) == bytes` for every word that decodes;
//! * `decode(encode(insn)) == insn` for instructions built with systematically
//!   varied operands, whenever the encoder accepts them;
//! * decoding never panics, whatever the bytes, length or options.

use super::common;

use common::{mixed_words, template_word, Rng};
use q7_isa::{decode, decode_word, encode, sweep, FeatureSet, Insn, IsaOptions, Opcode, Operand};

/// Both floating-point update spellings, so every opcode is reachable.
fn option_sets() -> [IsaOptions; 2] {
    let full = IsaOptions::full();
    [full, IsaOptions { fp_post_increment: false, ..full }]
}

fn options_for(op: Opcode) -> IsaOptions {
    option_sets().into_iter().find(|o| op.available(o)).expect("every opcode exists in some option set")
}

/// Addresses that exercise alignment (call/l32r) and wrap-around of targets.
const PCS: [u32; 6] = [0, 1, 2, 3, 0x8400_1235, 0xffff_fffe];

#[test]
fn every_decodable_word_re_encodes_to_itself() {
    let mut rng = Rng::new(0x0dd);
    for &op in Opcode::ALL {
        let opts = options_for(op);
        let pattern = op.pattern().expect("encoding");
        let width: u32 = if pattern.len == 2 { 0xffff } else { 0xff_ffff };
        let free_bits = (!pattern.mask & width).count_ones();
        // Every operand combination when there are at most 2^12, else a sample.
        let words: Vec<u32> = if free_bits <= 12 {
            let free = !pattern.mask & width;
            // Enumerate the subsets of the free bits.
            let mut subset = 0u32;
            let mut all = Vec::new();
            loop {
                all.push(pattern.value | subset);
                subset = subset.wrapping_sub(free) & free;
                if subset == 0 {
                    break;
                }
            }
            all
        } else {
            (0..4096).map(|_| template_word(op, &mut rng)).collect()
        };
        let mut decoded = 0;
        for word in words {
            for pc in PCS {
                let Ok(insn) = decode_word(word, pattern.len, pc, &opts) else { continue };
                assert_eq!(insn.op, op, "{word:#08x} decodes to another opcode");
                let encoded = encode(&insn).unwrap_or_else(|e| panic!("{insn:?} ({word:#08x}): {e}"));
                assert_eq!(encoded.word(), word, "{insn} at {pc:#x}");
                decoded += 1;
            }
        }
        assert!(decoded > 0, "{op:?} never decoded");
    }
}

#[test]
fn random_words_re_encode_to_themselves() {
    for opts in option_sets() {
        let mut rng = Rng::new(0xfeed);
        for bytes in mixed_words(300_000, 0xbeef, &opts) {
            let pc = rng.next_u32();
            if let Ok(insn) = decode(&bytes, pc, &opts) {
                let encoded = encode(&insn).unwrap_or_else(|e| panic!("{insn:?}: {e}"));
                assert_eq!(encoded.as_bytes(), &bytes[..usize::from(insn.len)], "{insn} at {pc:#x}");
            }
        }
    }
}

/// Candidate values for an immediate: boundaries of every field width and
/// scale the ISA uses, with neighbours, and a spread of others.
fn immediate_candidates() -> Vec<i32> {
    let mut values = vec![0, 1, 2, 3, 4, 7, 8, 15, 16, 22, 23, 31, 32, 33, 60, 64, 95, 96, 127, 128];
    values.extend([255, 256, 510, 512, 1020, 1024, 2047, 2048, 32512, 32760, 32768, 65536]);
    let mut all: Vec<i32> = values.iter().flat_map(|&v| [v - 1, v, v + 1, -v - 1, -v, -v + 1]).collect();
    all.extend((-300..300).step_by(7));
    all.sort_unstable();
    all.dedup();
    all
}

/// Candidate targets: offsets around `pc` covering every branch range edge.
fn target_candidates(pc: u32) -> Vec<u32> {
    let mut offsets: Vec<i64> = vec![0, 1, 2, 3, 4, 5, 63, 64, 67, 68, 127, 128, 131, 132, 255, 259, 260];
    offsets.extend([2047, 2048, 2051, 2052, 131071, 131072, 131075, 131076, 524287, 524288, 524292]);
    offsets.extend([262140, 262144, 262148]);
    let mut all: Vec<u32> = offsets.iter().flat_map(|&o| [o, -o]).map(|o| pc.wrapping_add(o as i32 as u32)).collect();
    all.extend((0..64).map(|i| pc.wrapping_add(i * 4097)));
    all
}

/// Register candidates: every valid number and the first invalid one.
fn register_candidates(operand: Operand) -> Vec<Operand> {
    match operand {
        Operand::Ar(_) => (0..=16).map(Operand::Ar).collect(),
        Operand::Fr(_) => (0..=16).map(Operand::Fr).collect(),
        Operand::Br(_) => (0..=16).map(Operand::Br).collect(),
        Operand::Mr(_) => (0..=4).map(Operand::Mr).collect(),
        Operand::Sr(_) => (0..=255).map(Operand::Sr).collect(),
        Operand::Ur(_) => (0..=255).map(Operand::Ur).collect(),
        Operand::Imm(_) => immediate_candidates().into_iter().map(Operand::Imm).collect(),
        Operand::Target(_) => vec![],
    }
}

#[test]
fn systematically_varied_operands_round_trip() {
    let mut rng = Rng::new(0x5eed);
    for &op in Opcode::ALL {
        let mut accepted = 0usize;
        let opts = options_for(op);
        let len = op.pattern().expect("encoding").len;
        // A valid instance gives the operand kinds; then vary one operand at a time.
        let base = (0..10_000)
            .find_map(|_| decode_word(template_word(op, &mut rng), len, 0x1000, &opts).ok())
            .unwrap_or_else(|| panic!("no instance of {op:?}"));
        for pc in PCS {
            if base.target().is_none() {
                // The instance itself, moved to `pc`.
                let moved = Insn { pc, ..base };
                let encoded = encode(&moved).unwrap_or_else(|e| panic!("{moved}: {e}"));
                assert_eq!(decode(&encoded, pc, &opts), Ok(moved));
                accepted += 1;
            }
            for position in 0..base.operands().len() {
                let candidates = match base.operands()[position] {
                    Operand::Target(_) => target_candidates(pc).into_iter().map(Operand::Target).collect(),
                    other => register_candidates(other),
                };
                for candidate in candidates {
                    let mut operands = base.operands().to_vec();
                    operands[position] = candidate;
                    let insn = Insn::new(op, pc, &operands).expect("operand count fits");
                    let Ok(encoded) = encode(&insn) else { continue };
                    assert_eq!(decode(&encoded, pc, &opts), Ok(insn), "{insn} re-decodes differently");
                    accepted += 1;
                }
            }
        }
        assert!(accepted >= PCS.len() * base.operands().len().max(1), "{op:?}: only {accepted} accepted");
    }
}

#[test]
fn decoding_never_panics() {
    let option_sets = [
        IsaOptions::full(),
        IsaOptions::vision_q7().with_lx_scalar(true),
        IsaOptions::lx106(),
        IsaOptions { features: FeatureSet::EMPTY, bundle_lengths: [Some(8), Some(16)], ..IsaOptions::full() },
    ];
    let mut rng = Rng::new(7);
    let mut buffer = vec![0u8; 4096];
    for opts in &option_sets {
        // Every 2-byte prefix, with and without a third byte.
        for w in 0..=0xffffu32 {
            let bytes = w.to_le_bytes();
            let _ = decode(&bytes[..2], w, opts);
            let _ = decode(&bytes[..3], w, opts);
            let _ = decode(&bytes[..1], w, opts);
        }
        for byte in buffer.iter_mut() {
            *byte = rng.next_u32() as u8;
        }
        let mut covered = 0;
        for item in sweep(&buffer, 0xffff_f000, opts) {
            assert!(!item.bytes.is_empty());
            if let Ok(insn) = &item.result {
                let _ = insn.to_string();
            }
            covered += item.bytes.len();
        }
        assert_eq!(covered, buffer.len(), "the sweep covers every byte once");
    }
}
