//! The inputs the oracle feeds a leaf: the default boundary grid, a grid the
//! caller spells out, or reproducible pseudo-random pairs.

use crate::expr::Expr;

/// The values where integer semantics usually break: zero, one, the 8-bit
/// and 32-bit signed/unsigned edges.
pub const BOUNDARY_VALUES: [u32; 9] = [0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];

/// The seed used by `--random` when none is given, so runs are reproducible.
pub const DEFAULT_RANDOM_SEED: u64 = 0x517e_5eed;

/// A list of `(a, b)` pairs plus a sentence saying where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputSet {
    pub pairs: Vec<(u32, u32)>,
    pub description: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("bad grid pair `{pair}`: expected A,B (two values separated by a comma)")]
    PairShape { pair: String },
    #[error("bad grid value `{value}`: {message}")]
    Value { value: String, message: String },
    #[error("the grid is empty: give at least one A,B pair")]
    Empty,
}

/// Every ordered pair of [`BOUNDARY_VALUES`].
pub fn default_grid() -> InputSet {
    let pairs = BOUNDARY_VALUES.iter().flat_map(|&a| BOUNDARY_VALUES.iter().map(move |&b| (a, b))).collect();
    let n = BOUNDARY_VALUES.len();
    InputSet { pairs, description: format!("default boundary grid: {n} values x {n} = {} pairs", n * n) }
}

/// Parses `A,B;A,B;…`. Each value is a constant expression, so `-1`,
/// `0x80` and `1 << 31` all work.
pub fn parse_grid(text: &str) -> Result<InputSet, InputError> {
    let mut pairs = Vec::new();
    for pair in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let parts: Vec<&str> = pair.split(',').collect();
        let [a, b] = parts.as_slice() else {
            return Err(InputError::PairShape { pair: pair.to_string() });
        };
        pairs.push((constant(a)?, constant(b)?));
    }
    if pairs.is_empty() {
        return Err(InputError::Empty);
    }
    let n = pairs.len();
    Ok(InputSet { pairs, description: format!("given grid: {n} pair{}", if n == 1 { "" } else { "s" }) })
}

fn constant(text: &str) -> Result<u32, InputError> {
    let value_error = |message: String| InputError::Value { value: text.trim().to_string(), message };
    let expr =
        Expr::parse_constant(text.trim()).map_err(|e| value_error(format!("{} at column {}", e.message, e.column)))?;
    expr.eval(0, 0).map_err(|e| value_error(e.to_string()))
}

/// `count` pairs of uniformly distributed values from a SplitMix64 stream;
/// the same seed gives the same pairs on every machine.
pub fn random_pairs(count: usize, seed: u64) -> InputSet {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let pairs = (0..count)
        .map(|_| {
            let word = next();
            ((word >> 32) as u32, word as u32)
        })
        .collect();
    InputSet { pairs, description: format!("{count} random pairs, seed {seed:#x}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_grid_covers_every_boundary_pair() {
        let grid = default_grid();
        assert_eq!(grid.pairs.len(), 81);
        assert!(grid.pairs.contains(&(0x8000_0000, 0x7fff_ffff)));
        assert!(grid.pairs.contains(&(0xffff_ffff, 0)));
    }

    #[test]
    fn grid_values_are_constant_expressions() {
        let grid = parse_grid(" 0,1 ; 0x80 , -1;1<<31,255;").unwrap();
        assert_eq!(grid.pairs, vec![(0, 1), (0x80, 0xffff_ffff), (0x8000_0000, 255)]);
        assert_eq!(parse_grid("1,2,3"), Err(InputError::PairShape { pair: "1,2,3".into() }));
        assert!(matches!(parse_grid("1,x"), Err(InputError::Value { .. })));
        assert!(matches!(parse_grid("1,1/0"), Err(InputError::Value { .. })));
        assert_eq!(parse_grid(" ; "), Err(InputError::Empty));
    }

    #[test]
    fn random_pairs_are_reproducible() {
        let one = random_pairs(16, 7);
        assert_eq!(one, random_pairs(16, 7));
        assert_ne!(one.pairs, random_pairs(16, 8).pairs);
        assert!(one.pairs.iter().any(|&(a, _)| a > 0x8000_0000), "values span the whole range");
    }
}
