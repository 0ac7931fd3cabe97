//! A set of byte offsets into one region, one bit per offset: the boundary
//! sweeps record targets and literal words here, so a pass needs no sorting
//! or deduplication, and two passes compare with one slice comparison.

/// Offsets `0..len` of one region, each present or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetSet {
    words: Vec<u64>,
    len: usize,
}

impl OffsetSet {
    /// An empty set of offsets below `len`.
    pub fn new(len: usize) -> OffsetSet {
        OffsetSet { words: vec![0; len.div_ceil(64)], len }
    }

    /// Adds `offset` (one at or past `len` is ignored: it names no byte).
    pub fn insert(&mut self, offset: usize) {
        if offset < self.len {
            self.words[offset / 64] |= 1 << (offset % 64);
        }
    }

    pub fn contains(&self, offset: usize) -> bool {
        offset < self.len && self.words[offset / 64] & (1 << (offset % 64)) != 0
    }

    /// The smallest offset in the set at or above `from`.
    pub fn first_from(&self, from: usize) -> Option<usize> {
        if from >= self.len {
            return None;
        }
        let mut index = from / 64;
        // The first word without the bits below `from`.
        let mut word = self.words[index] & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return Some(index * 64 + word.trailing_zeros() as usize);
            }
            index += 1;
            word = *self.words.get(index)?;
        }
    }

    /// The offsets in the set, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(index, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(index * 64 + bit)
            })
        })
    }

    /// Whether any offset in `from..to` is in the set.
    pub fn any_in(&self, from: usize, to: usize) -> bool {
        self.first_from(from).is_some_and(|at| at < to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_answers_as_a_sorted_list_does() {
        let members = [0, 1, 63, 64, 65, 127, 128, 500, 999];
        let mut set = OffsetSet::new(1000);
        for &m in members.iter().rev() {
            set.insert(m);
        }
        set.insert(1000); // past the end: names no byte
        assert_eq!(set.iter().collect::<Vec<_>>(), members);
        for from in 0..1001 {
            assert_eq!(set.first_from(from), members.iter().copied().find(|&m| m >= from), "from {from}");
            assert_eq!(set.contains(from), members.contains(&from), "at {from}");
        }
        assert!(set.any_in(66, 128) && !set.any_in(66, 127) && !set.any_in(1000, 2000));
        assert_eq!(OffsetSet::new(0).first_from(0), None);
    }
}
