//! Itanium C++ ABI names of symbols, demangled by the `cpp_demangle` crate in GNU
//! c++filt's spelling (`char const*`, `(unsigned char)1`, `[clone .isra.0]`),
//! which the roster contract test checks name by name against
//! `xtensa-lx106-elf-c++filt`.

use cpp_demangle::{DemangleOptions, ParseOptions, Symbol};

/// Deeper nesting than this is refused rather than recursed into: the names
/// come from untrusted images.
const MAX_DEPTH: u32 = 64;

/// Demangles `_Z…`; `None` when the name is not a valid mangled name (the
/// caller then shows the raw one).
pub fn demangle(mangled: &str) -> Option<String> {
    // Only `_Z` names: c++filt leaves plain C names alone, and so do we.
    if !mangled.starts_with("_Z") {
        return None;
    }
    let symbol = Symbol::new_with_options(mangled, &ParseOptions::default().recursion_limit(MAX_DEPTH)).ok()?;
    symbol.demangle_with_options(&DemangleOptions::default().recursion_limit(MAX_DEPTH)).ok()
}

#[cfg(test)]
mod tests {
    use super::demangle;

    #[test]
    fn seed_names() {
        assert_eq!(
            demangle("_Z16cptc_decode_implILh1EEvj25_TIE_xt_ivp32_xb_vec2Nx8US0_ttthb").as_deref(),
            Some("void cptc_decode_impl<(unsigned char)1>(unsigned int, _TIE_xt_ivp32_xb_vec2Nx8U, _TIE_xt_ivp32_xb_vec2Nx8U, unsigned short, unsigned short, unsigned short, unsigned char, bool)")
        );
        assert_eq!(demangle("_Z22cross_lane_reduce_implb").as_deref(), Some("cross_lane_reduce_impl(bool)"));
        assert_eq!(demangle("_Z11clamp_valueIiET_S0_S0_S0_").as_deref(), Some("int clamp_value<int>(int, int, int)"));
    }

    #[test]
    fn invalid_names_are_none() {
        for bad in ["", "_Z", "foo", "_Z3fooS4_", "_Z99x", "_Z9iota_implILb1EEvX"] {
            assert_eq!(demangle(bad), None, "{bad}");
        }
        // Deep nesting is refused, not a stack overflow.
        assert_eq!(demangle(&format!("_Z1f{}i", "P".repeat(5000))), None);
    }
}
