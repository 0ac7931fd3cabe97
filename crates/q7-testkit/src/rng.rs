//! The one pseudo-random generator of the tests and benchmarks: SplitMix64
//! (Steele, Lea and Flood, 2014), small, fast and the same on every machine,
//! so a failing seed reproduces.

/// A deterministic generator of test inputs; never for anything secret.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The high half of [`Rng::next_u64`] (its better-mixed bits).
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A value in `0..n`; `0` when `n` is 0 (so callers can index an empty
    /// range's start without a special case).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A float spread evenly over `[lo, hi)`, from 24 random bits.
    pub fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// Damages `bytes` the way the smoke versions of the fuzz targets do: one
    /// to three edits, each a random byte, a random 32-bit word or a
    /// truncation (never to empty). With `hot > 0` a fourth kind of edit aims
    /// at the first `hot` bytes (a file header, where lies hurt most).
    pub fn mutate(&mut self, bytes: &mut Vec<u8>, hot: usize) {
        let kinds = if hot > 0 { 4 } else { 3 };
        for _ in 0..1 + self.below(3) {
            match self.below(kinds) {
                0 => {
                    let at = self.below(bytes.len());
                    bytes[at] = self.next_u64() as u8;
                }
                1 if bytes.len() >= 8 => {
                    let at = self.below(bytes.len() - 4);
                    bytes[at..at + 4].copy_from_slice(&self.next_u32().to_le_bytes());
                }
                3 => {
                    let at = self.below(hot.min(bytes.len()));
                    bytes[at] = self.next_u64() as u8;
                }
                _ => bytes.truncate(self.below(bytes.len() + 1).max(1)),
            }
        }
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes()[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn matches_the_splitmix64_reference_sequence() {
        // The first outputs of the reference C code (splitmix64.c) from seed 0.
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn ranges_hold() {
        let mut rng = Rng::new(7);
        for _ in 0..1000 {
            assert!(rng.below(10) < 10);
            let x = rng.uniform(-100.0, 100.0);
            assert!((-100.0..100.0).contains(&x), "{x}");
        }
        assert_eq!(rng.below(0), 0);
        let mut buf = [0u8; 13];
        rng.fill(&mut buf);
        assert!(buf.iter().any(|&b| b != 0));
    }

    #[test]
    fn mutations_change_but_never_empty_the_input() {
        let mut rng = Rng::new(3);
        let good: Vec<u8> = (0..64).collect();
        let mut changed = 0;
        for _ in 0..500 {
            let mut b = good.clone();
            rng.mutate(&mut b, 16);
            assert!(!b.is_empty());
            changed += usize::from(b != good);
        }
        assert!(changed > 400, "{changed}");
    }
}
