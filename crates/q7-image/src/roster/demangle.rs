//! An Itanium C++ ABI demangler for the subset kernel names use: nested
//! names, templates with type, integer, bool and enum literal arguments,
//! builtin types, pointers, references, cv-qualifiers, substitutions
//! (`S_`, `S<n>_`, `St`…), template parameters (`T_`, `T<n>_`), ctors and
//! dtors, common operators and clone suffixes. Output follows GNU c++filt's
//! spelling (`char const*`, `(unsigned char)1`, `> >`). Anything outside the
//! subset (function and array types, expressions, local names…) gives
//! `None`, and callers show the raw name.

/// Deeper nesting than this is refused rather than recursed into.
const MAX_DEPTH: usize = 64;

/// Demangles `_Z…`; `None` when the name is not in the supported subset.
pub fn demangle(mangled: &str) -> Option<String> {
    let mut p = Parser { s: mangled.as_bytes(), pos: 0, subs: Vec::new(), template_args: Vec::new(), depth: 0 };
    p.eat(b"_Z")?;
    let mut out = p.encoding()?;
    out.push_str(&p.clone_suffixes()?);
    (p.pos == p.s.len()).then_some(out)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    /// Substitution candidates in the order the ABI numbers them.
    subs: Vec<String>,
    /// The arguments `T_`… refer to: those of the encoding's own name.
    template_args: Vec<String>,
    depth: usize,
}

/// A parsed name and the facts the encoding needs about it.
struct Name {
    text: String,
    /// Ends in template arguments (so the signature starts with a return type).
    template: bool,
    ctor_dtor: bool,
    /// Member-function qualifiers from `N[K][V][r]…E`, printed after `()`.
    suffix: String,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<u8> {
        self.s.get(self.pos + n).copied()
    }

    fn eat(&mut self, lit: &[u8]) -> Option<()> {
        self.s[self.pos..].starts_with(lit).then(|| self.pos += lit.len())
    }

    fn encoding(&mut self) -> Option<String> {
        let name = self.name(true)?;
        if matches!(self.peek(), None | Some(b'.')) {
            return Some(name.text);
        }
        let ret = if name.template && !name.ctor_dtor { Some(self.ty()?) } else { None };
        let mut params = Vec::new();
        while !matches!(self.peek(), None | Some(b'.')) {
            params.push(self.ty()?);
        }
        let params = if params == ["void"] { String::new() } else { params.join(", ") };
        let ret = ret.map(|r| format!("{r} ")).unwrap_or_default();
        Some(format!("{ret}{}({params}){}", name.text, name.suffix))
    }

    /// `<name>`: nested, `St`-qualified, substitution-led or unscoped, each
    /// optionally followed by template arguments. `top` marks the encoding's
    /// own name, whose arguments `T_` refers to.
    fn name(&mut self, top: bool) -> Option<Name> {
        match self.peek()? {
            b'N' => self.nested_name(top),
            b'S' => {
                let text = if self.eat(b"St").is_some() {
                    format!("std::{}", self.unqualified_name()?)
                } else {
                    // A substitution can only start a name that goes on
                    // with template arguments.
                    let s = self.substitution()?;
                    if self.peek() != Some(b'I') {
                        return None;
                    }
                    let (args, list) = self.template_args()?;
                    if top {
                        self.template_args = list;
                    }
                    return Some(Name { text: s + &args, template: true, ctor_dtor: false, suffix: String::new() });
                };
                self.maybe_template(text, top)
            }
            _ => {
                let text = self.unqualified_name()?;
                self.maybe_template(text, top)
            }
        }
    }

    /// An unscoped (template) name: the template name itself is a
    /// substitution candidate, the template-id is not.
    fn maybe_template(&mut self, text: String, top: bool) -> Option<Name> {
        if self.peek() != Some(b'I') {
            return Some(Name { text, template: false, ctor_dtor: false, suffix: String::new() });
        }
        self.subs.push(text.clone());
        let (args, list) = self.template_args()?;
        if top {
            self.template_args = list;
        }
        Some(Name { text: text + &args, template: true, ctor_dtor: false, suffix: String::new() })
    }

    fn nested_name(&mut self, top: bool) -> Option<Name> {
        self.eat(b"N")?;
        let mut suffix = String::new();
        // CV-qualifiers then a ref-qualifier, printed in c++filt's order.
        let (mut restrict, mut volatile, mut konst) = (false, false, false);
        restrict |= self.eat(b"r").is_some();
        volatile |= self.eat(b"V").is_some();
        konst |= self.eat(b"K").is_some();
        for (on, word) in [(konst, " const"), (volatile, " volatile"), (restrict, " restrict")] {
            if on {
                suffix.push_str(word);
            }
        }
        if self.eat(b"R").is_some() {
            suffix.push_str(" &");
        } else if self.eat(b"O").is_some() {
            suffix.push_str(" &&");
        }
        let mut prefix: Option<String> = None;
        let mut last_name = String::new();
        let mut template = false;
        let mut ctor_dtor = false;
        let join = |prefix: &Option<String>, part: &str| match prefix {
            Some(p) => format!("{p}::{part}"),
            None => part.to_string(),
        };
        loop {
            let c = self.peek()?;
            let (text, substitutable) = match c {
                b'E' => {
                    self.pos += 1;
                    break;
                }
                b'S' if self.peek_at(1) == Some(b't') => {
                    self.pos += 2;
                    let n = self.unqualified_name()?;
                    last_name = n.clone();
                    template = false;
                    (join(&Some("std".into()), &n), true)
                }
                b'S' => {
                    template = false;
                    (self.substitution()?, false)
                }
                b'I' => {
                    let base = prefix.clone()?;
                    let (args, list) = self.template_args()?;
                    if top {
                        self.template_args = list;
                    }
                    template = true;
                    (base + &args, true)
                }
                b'T' => {
                    template = false;
                    (join(&prefix, &self.template_param()?), true)
                }
                b'C' | b'D' if matches!(self.peek_at(1), Some(b'0'..=b'5' | b'I')) => {
                    let dtor = c == b'D';
                    self.pos += 1;
                    self.eat(b"I");
                    self.pos += 1;
                    if last_name.is_empty() {
                        return None;
                    }
                    ctor_dtor = true;
                    template = false;
                    let base = last_name.split('<').next().unwrap_or_default().to_string();
                    (join(&prefix, &format!("{}{base}", if dtor { "~" } else { "" })), true)
                }
                _ => {
                    let n = self.unqualified_name()?;
                    last_name = n.clone();
                    template = false;
                    (join(&prefix, &n), true)
                }
            };
            if substitutable && self.peek() != Some(b'E') {
                self.subs.push(text.clone());
            }
            prefix = Some(text);
        }
        Some(Name { text: prefix?, template, ctor_dtor, suffix })
    }

    /// A source name or an operator name.
    fn unqualified_name(&mut self) -> Option<String> {
        self.eat(b"L"); // internal linkage marker
        match self.peek()? {
            b'0'..=b'9' => self.source_name(),
            b'a'..=b'z' => {
                let code = self.s.get(self.pos..self.pos + 2)?;
                let op = OPERATORS.iter().find(|(c, _)| c.as_bytes() == code)?.1;
                self.pos += 2;
                Some(format!("operator{op}"))
            }
            _ => None,
        }
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos]).ok()?.parse().ok()
    }

    fn source_name(&mut self) -> Option<String> {
        let len = self.number()?;
        let bytes = self.s.get(self.pos..self.pos.checked_add(len)?)?;
        self.pos += len;
        let id = std::str::from_utf8(bytes).ok()?;
        Some(if id.starts_with("_GLOBAL__N") { "(anonymous namespace)".into() } else { id.to_string() })
    }

    /// `S_`, `S<base-36>_` and the standard abbreviations.
    fn substitution(&mut self) -> Option<String> {
        self.eat(b"S")?;
        let c = self.peek()?;
        let abbreviation = match c {
            b'a' => Some("std::allocator"),
            b'b' => Some("std::basic_string"),
            b's' => Some("std::string"),
            b'i' => Some("std::istream"),
            b'o' => Some("std::ostream"),
            b'd' => Some("std::iostream"),
            _ => None,
        };
        if let Some(a) = abbreviation {
            self.pos += 1;
            return Some(a.to_string());
        }
        let mut id = 0usize;
        let mut digits = 0;
        while let Some(d) = self.peek().filter(|&d| d != b'_') {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'A'..=b'Z' => d - b'A' + 10,
                _ => return None,
            } as usize;
            id = id.checked_mul(36)?.checked_add(v)?;
            digits += 1;
            self.pos += 1;
        }
        self.eat(b"_")?;
        let index = if digits == 0 { 0 } else { id.checked_add(1)? };
        self.subs.get(index).cloned()
    }

    /// `T_` is the first template argument, `T<n>_` the (n+2)th.
    fn template_param(&mut self) -> Option<String> {
        self.eat(b"T")?;
        let index = if self.eat(b"_").is_some() {
            0
        } else {
            let n = self.number()?;
            self.eat(b"_")?;
            n.checked_add(1)?
        };
        self.template_args.get(index).cloned()
    }

    /// `I <arg>+ E`, printed `<a, b>` (with `> >` when an argument ends in
    /// `>`), plus the arguments one by one.
    fn template_args(&mut self) -> Option<(String, Vec<String>)> {
        self.eat(b"I")?;
        let mut args = Vec::new();
        while self.eat(b"E").is_none() {
            args.push(self.template_arg()?);
        }
        let joined = args.join(", ");
        let close = if joined.ends_with('>') { " >" } else { ">" };
        Some((format!("<{joined}{close}"), args))
    }

    fn template_arg(&mut self) -> Option<String> {
        match self.peek()? {
            b'L' => self.literal(),
            b'J' => {
                self.pos += 1;
                let mut items = Vec::new();
                while self.eat(b"E").is_none() {
                    items.push(self.template_arg()?);
                }
                Some(items.join(", "))
            }
            _ => self.ty(),
        }
    }

    /// `L <type> [n] <digits> E`, spelled as c++filt does.
    fn literal(&mut self) -> Option<String> {
        self.eat(b"L")?;
        let code = self.peek()?;
        let ty = match builtin(code) {
            Some(name) => {
                self.pos += 1;
                name.to_string()
            }
            None if code == b'_' => return None, // `L_Z…E`: external name
            None => self.ty()?,
        };
        let negative = self.eat(b"n").is_some();
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        let digits = std::str::from_utf8(&self.s[start..self.pos]).ok()?.to_string();
        self.eat(b"E")?;
        if digits.is_empty() {
            return None;
        }
        let value = if negative { format!("-{digits}") } else { digits };
        Some(match (builtin(code).is_some(), code) {
            (true, b'b') if value == "0" => "false".into(),
            (true, b'b') if value == "1" => "true".into(),
            (true, b'i') => value,
            (true, b'j') => format!("{value}u"),
            (true, b'l') => format!("{value}l"),
            (true, b'm') => format!("{value}ul"),
            (true, b'x') => format!("{value}ll"),
            (true, b'y') => format!("{value}ull"),
            _ => format!("({ty}){value}"),
        })
    }

    fn ty(&mut self) -> Option<String> {
        self.depth += 1;
        let t = if self.depth > MAX_DEPTH { None } else { self.ty_inner() };
        self.depth -= 1;
        t
    }

    fn ty_inner(&mut self) -> Option<String> {
        let c = self.peek()?;
        if let Some(name) = builtin(c) {
            self.pos += 1;
            return Some(name.to_string());
        }
        let (text, substitutable) = match c {
            b'r' | b'V' | b'K' => {
                let restrict = self.eat(b"r").is_some();
                let volatile = self.eat(b"V").is_some();
                let konst = self.eat(b"K").is_some();
                let mut t = self.ty()?;
                for (on, word) in [(konst, " const"), (volatile, " volatile"), (restrict, " restrict")] {
                    if on {
                        t.push_str(word);
                    }
                }
                (t, true)
            }
            b'P' | b'R' | b'O' => {
                self.pos += 1;
                let inner = self.ty()?;
                let sigil = match c {
                    b'P' => "*",
                    b'R' => "&",
                    _ => "&&",
                };
                (inner + sigil, true)
            }
            b'T' => {
                let t = self.template_param()?;
                self.template_id_after(t)?
            }
            b'D' => {
                let name = match self.peek_at(1)? {
                    b'n' => "decltype(nullptr)",
                    b'i' => "char32_t",
                    b's' => "char16_t",
                    b'u' => "char8_t",
                    b'a' => "auto",
                    _ => return None,
                };
                self.pos += 2;
                return Some(name.to_string());
            }
            b'S' if self.peek_at(1) != Some(b't') => {
                let s = self.substitution()?;
                if self.peek() == Some(b'I') {
                    let (args, _) = self.template_args()?;
                    (s + &args, true)
                } else {
                    (s, false)
                }
            }
            b'N' | b'S' | b'0'..=b'9' => (self.name(false)?.text, true),
            _ => return None,
        };
        if substitutable {
            self.subs.push(text.clone());
        }
        Some(text)
    }

    /// A template parameter used as a template name (`T_I…E`): the
    /// parameter is a candidate on its own, then the whole is returned.
    fn template_id_after(&mut self, t: String) -> Option<(String, bool)> {
        if self.peek() != Some(b'I') {
            return Some((t, true));
        }
        self.subs.push(t.clone());
        let (args, _) = self.template_args()?;
        Some((t + &args, true))
    }

    /// `.isra.0`, `.constprop.1`, `.cold`…: c++filt's `[clone …]`.
    fn clone_suffixes(&mut self) -> Option<String> {
        let mut out = String::new();
        while self.peek() == Some(b'.') {
            let start = self.pos;
            self.pos += 1;
            let word = self.pos;
            while matches!(self.peek(), Some(b'a'..=b'z' | b'_')) {
                self.pos += 1;
            }
            if self.pos == word && !matches!(self.peek(), Some(b'0'..=b'9')) {
                return None;
            }
            while self.peek() == Some(b'.') && matches!(self.peek_at(1), Some(b'0'..=b'9')) {
                self.pos += 1;
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.pos += 1;
                }
            }
            if self.pos == word {
                // `.<digits>` alone
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.pos += 1;
                }
            }
            out.push_str(&format!(" [clone {}]", std::str::from_utf8(&self.s[start..self.pos]).ok()?));
        }
        Some(out)
    }
}

fn builtin(c: u8) -> Option<&'static str> {
    Some(match c {
        b'v' => "void",
        b'w' => "wchar_t",
        b'b' => "bool",
        b'c' => "char",
        b'a' => "signed char",
        b'h' => "unsigned char",
        b's' => "short",
        b't' => "unsigned short",
        b'i' => "int",
        b'j' => "unsigned int",
        b'l' => "long",
        b'm' => "unsigned long",
        b'x' => "long long",
        b'y' => "unsigned long long",
        b'n' => "__int128",
        b'o' => "unsigned __int128",
        b'f' => "float",
        b'd' => "double",
        b'e' => "long double",
        b'g' => "__float128",
        b'z' => "...",
        _ => return None,
    })
}

const OPERATORS: &[(&str, &str)] = &[
    ("nw", " new"),
    ("na", " new[]"),
    ("dl", " delete"),
    ("da", " delete[]"),
    ("pl", "+"),
    ("mi", "-"),
    ("ml", "*"),
    ("dv", "/"),
    ("rm", "%"),
    ("an", "&"),
    ("or", "|"),
    ("eo", "^"),
    ("aS", "="),
    ("pL", "+="),
    ("mI", "-="),
    ("eq", "=="),
    ("ne", "!="),
    ("lt", "<"),
    ("gt", ">"),
    ("le", "<="),
    ("ge", ">="),
    ("nt", "!"),
    ("aa", "&&"),
    ("oo", "||"),
    ("ls", "<<"),
    ("rs", ">>"),
    ("ix", "[]"),
    ("cl", "()"),
    ("co", "~"),
    ("pp", "++"),
    ("mm", "--"),
];

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
    fn outside_the_subset_is_none() {
        for bad in ["", "_Z", "foo", "_Z3fooPFviE", "_ZZ3foovE1x", "_Z3fooS4_", "_Z1fT_", "_Z99x"] {
            assert_eq!(demangle(bad), None, "{bad}");
        }
        assert_eq!(demangle(&format!("_Z1f{}i", "P".repeat(500))), None);
    }
}
