//! The `sha256sum` form of a digest, which the diff and oracle reports print.

use sha2::{Digest, Sha256};

/// The SHA-256 of `data` as 64 lowercase hex digits.
pub fn hex_digest(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::hex_digest;

    #[test]
    fn matches_the_fips_180_examples() {
        assert_eq!(hex_digest(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(hex_digest(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
