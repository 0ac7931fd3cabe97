//! A declaration parser for the common subset of C that interface headers
//! use: struct/union/enum definitions (nested, anonymous, with bit-fields
//! and arrays), typedefs, and `_Static_assert`. It only needs the *shape* of
//! each struct — member names, which members are aggregates, how many array
//! dimensions each has — because every number (sizes, offsets, array
//! lengths) is measured by the compiled probe, never computed here.
//!
//! Everything else (function prototypes and bodies, variables, GNU
//! attributes) is skipped by bracket matching. A declaration the parser
//! cannot follow is skipped up to its `;` and noted, so one exotic line in a
//! system header cannot hide the structs the caller asked about.

use super::lex::{Location, Token, TokenKind, Tokens};
use super::unit::{Aggregate, AggregateKind, Assertion, Base, Member, TypeSpec, Unit};

const BUILTIN_TYPE_WORDS: &[&str] = &[
    "void",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "_Bool",
    "bool",
    "_Complex",
    "__complex__",
    "__int128",
    "__signed__",
    "__signed",
    "__unsigned__",
    "_Float16",
    "_Float32",
    "_Float64",
    "_Float128",
    "_Float32x",
    "_Float64x",
    "_Float128x",
    "__fp16",
    "__bf16",
    "_Decimal32",
    "_Decimal64",
    "_Decimal128",
];

/// Words that may appear among specifiers and change nothing about layout.
const IGNORED_SPECIFIER_WORDS: &[&str] = &[
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
    "__const",
    "__const__",
    "__volatile",
    "__volatile__",
    "extern",
    "static",
    "auto",
    "register",
    "inline",
    "__inline",
    "__inline__",
    "_Noreturn",
    "__extension__",
    "_Thread_local",
    "__thread",
    "thread_local",
    "constexpr",
];

/// Words followed by a parenthesised argument the parser skips whole.
const SKIPPED_WITH_PARENS: &[&str] =
    &["__attribute__", "__attribute", "__declspec", "_Alignas", "alignas", "__asm__", "__asm", "asm", "__alignas"];

const ASSERT_WORDS: &[&str] = &["_Static_assert", "static_assert"];

#[derive(Debug)]
struct ParseFailure(String);

type PResult<T> = Result<T, ParseFailure>;

/// Parses a whole translation unit.
pub fn parse(text: &str, tokens: &Tokens) -> Unit {
    let mut p = Parser { text, tokens: &tokens.tokens, locations: &tokens.locations, pos: 0, unit: Unit::default() };
    while p.pos < p.tokens.len() {
        let start = p.pos;
        if let Err(ParseFailure(message)) = p.external_declaration() {
            let location = p.location_of(start);
            p.unit.skipped.push((location, message));
            p.pos = start;
            p.skip_declaration();
        }
        if p.pos == start {
            p.pos += 1;
        }
    }
    p.unit
}

struct Parser<'a> {
    text: &'a str,
    tokens: &'a [Token],
    locations: &'a [Location],
    pos: usize,
    unit: Unit,
}

/// The outcome of parsing declaration specifiers.
struct Specifiers {
    base: Base,
    display: String,
    is_typedef: bool,
}

/// One declarator: the declared name and what it adds to the base type.
#[derive(Default)]
struct Declarator {
    name: Option<String>,
    indirect: bool,
    /// A function or pointer to function (for display only).
    function: bool,
    dims: Vec<Option<String>>,
}

impl<'a> Parser<'a> {
    fn word(&self, i: usize) -> &'a str {
        self.tokens.get(i).map_or("", |t| &self.text[t.start..t.end])
    }

    fn peek(&self) -> &'a str {
        self.word(self.pos)
    }

    fn peek_kind(&self) -> Option<TokenKind> {
        self.tokens.get(self.pos).map(|t| t.kind)
    }

    fn location_of(&self, i: usize) -> Location {
        let index = self.tokens.get(i).or(self.tokens.last()).map_or(0, |t| t.location);
        self.locations.get(index).cloned().unwrap_or(Location { file: "?".into(), line: 0, system: false })
    }

    fn expect(&mut self, word: &str) -> PResult<()> {
        if self.peek() == word {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.failure(&format!("expected `{word}`")))
        }
    }

    fn failure(&self, what: &str) -> ParseFailure {
        match self.tokens.get(self.pos) {
            Some(_) => ParseFailure(format!("{what}, found `{}`", self.peek())),
            None => ParseFailure(format!("{what}, found the end of the file")),
        }
    }

    /// Skips a balanced `(…)`, `[…]` or `{…}` group starting at the cursor;
    /// returns the text strictly inside it.
    fn skip_group(&mut self) -> PResult<String> {
        let open = self.peek();
        let close = match open {
            "(" => ")",
            "[" => "]",
            "{" => "}",
            _ => return Err(self.failure("expected a bracket")),
        };
        let first = self.pos;
        let mut depth = 0usize;
        while self.pos < self.tokens.len() {
            match self.peek() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        let inner = self.text_between(first + 1, self.pos);
                        if self.peek() != close {
                            return Err(ParseFailure(format!("`{open}` closed by `{}`", self.peek())));
                        }
                        self.pos += 1;
                        return Ok(inner);
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        Err(ParseFailure(format!("`{open}` is never closed")))
    }

    /// Source text of tokens `from..to`, spaced as written.
    fn text_between(&self, from: usize, to: usize) -> String {
        if from >= to {
            return String::new();
        }
        let start = self.tokens[from].start;
        let end = self.tokens[to - 1].end;
        self.text[start..end].split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Error recovery: skip to the `;` or `}` that ends the declaration.
    fn skip_declaration(&mut self) {
        while self.pos < self.tokens.len() {
            match self.peek() {
                ";" => {
                    self.pos += 1;
                    return;
                }
                "(" | "[" | "{" => {
                    let was_brace = self.peek() == "{";
                    if self.skip_group().is_err() {
                        self.pos = self.tokens.len();
                        return;
                    }
                    // A function body ends its definition without a `;`.
                    if was_brace && self.peek() != ";" && self.peek() != "," {
                        return;
                    }
                }
                _ => self.pos += 1,
            }
        }
    }

    fn skip_attributes(&mut self) -> PResult<()> {
        while SKIPPED_WITH_PARENS.contains(&self.peek()) {
            self.pos += 1;
            if self.peek() == "(" {
                self.skip_group()?;
            }
        }
        Ok(())
    }

    fn external_declaration(&mut self) -> PResult<()> {
        if self.peek() == ";" {
            self.pos += 1;
            return Ok(());
        }
        if ASSERT_WORDS.contains(&self.peek()) {
            return self.static_assertion();
        }
        let specifiers = self.specifiers()?;
        if self.peek() == ";" {
            self.pos += 1;
            return Ok(());
        }
        loop {
            let declarator_start = self.pos;
            let declarator = self.declarator()?;
            self.skip_attributes()?;
            if self.peek() == "{" {
                // A function definition: its body ends the declaration.
                self.skip_group()?;
                return Ok(());
            }
            if self.peek() == "=" {
                self.skip_initializer();
            }
            if specifiers.is_typedef {
                let name = declarator.name.clone().ok_or_else(|| ParseFailure("typedef without a name".into()))?;
                let ty = self.type_spec(&specifiers, &declarator);
                let location = self.location_of(declarator_start);
                self.unit.typedefs.insert(name, (ty, location));
            }
            match self.peek() {
                "," => self.pos += 1,
                ";" => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.failure("expected `,` or `;` after a declarator")),
            }
        }
    }

    fn skip_initializer(&mut self) {
        while self.pos < self.tokens.len() && self.peek() != "," && self.peek() != ";" {
            if matches!(self.peek(), "(" | "[" | "{") {
                if self.skip_group().is_err() {
                    return;
                }
            } else {
                self.pos += 1;
            }
        }
    }

    fn static_assertion(&mut self) -> PResult<()> {
        let first = self.pos;
        let location = self.location_of(first);
        self.pos += 1;
        if self.peek() != "(" {
            return Err(self.failure("expected `(` after the assertion keyword"));
        }
        let open = self.pos;
        self.skip_group()?;
        let close = self.pos - 1;
        // Split the argument at its first top-level comma: condition, message.
        let mut depth = 0usize;
        let mut comma = None;
        for i in open + 1..close {
            match self.word(i) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                "," if depth == 0 => {
                    comma = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let condition_end = comma.unwrap_or(close);
        let condition = self.text_between(open + 1, condition_end);
        let message = comma.map(|c| self.text_between(c + 1, close));
        let sides = self.equality_sides(open + 1, condition_end);
        let mut end = self.tokens[close].end;
        if self.peek() == ";" {
            end = self.tokens[self.pos].end;
            self.pos += 1;
        }
        let span = (self.tokens[first].start, end);
        self.unit.assertions.push(Assertion { location, condition, sides, message, span });
        Ok(())
    }

    /// The two sides of `L == R` when `==` is the condition's only top-level
    /// operator that binds as loosely or more loosely than `==`.
    fn equality_sides(&self, from: usize, to: usize) -> Option<(String, String)> {
        let mut depth = 0usize;
        let mut split = None;
        for i in from..to {
            match self.word(i) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                "==" if depth == 0 => {
                    if split.is_some() {
                        return None;
                    }
                    split = Some(i);
                }
                "!=" | "&" | "^" | "|" | "&&" | "||" | "?" | ":" | "," | "=" if depth == 0 => return None,
                _ => {}
            }
        }
        let split = split?;
        (split > from && split + 1 < to).then(|| (self.text_between(from, split), self.text_between(split + 1, to)))
    }

    fn specifiers(&mut self) -> PResult<Specifiers> {
        let mut base: Option<Base> = None;
        let mut words: Vec<&str> = Vec::new();
        let mut display = String::new();
        let mut is_typedef = false;
        loop {
            let word = self.peek();
            if word == "typedef" {
                is_typedef = true;
                self.pos += 1;
            } else if IGNORED_SPECIFIER_WORDS.contains(&word) {
                self.pos += 1;
            } else if SKIPPED_WITH_PARENS.contains(&word) {
                self.skip_attributes()?;
            } else if word == "struct" || word == "union" {
                let kind = if word == "struct" { AggregateKind::Struct } else { AggregateKind::Union };
                let (b, text) = self.aggregate_specifier(kind)?;
                base = Some(b);
                display = text;
            } else if word == "enum" {
                self.pos += 1;
                self.skip_attributes()?;
                let tag = (self.peek_kind() == Some(TokenKind::Ident)).then(|| self.peek().to_string());
                if tag.is_some() {
                    self.pos += 1;
                }
                if self.peek() == ":" {
                    // C23 fixed underlying type: `enum e : uint8_t { … }`.
                    self.pos += 1;
                    while self.pos < self.tokens.len() && !matches!(self.peek(), "{" | ";") {
                        self.pos += 1;
                    }
                }
                if self.peek() == "{" {
                    self.skip_group()?;
                }
                base = Some(Base::Enum);
                display = tag.map_or("enum".to_string(), |t| format!("enum {t}"));
            } else if BUILTIN_TYPE_WORDS.contains(&word) {
                words.push(word);
                self.pos += 1;
            } else if matches!(word, "__typeof__" | "__typeof" | "typeof" | "_Atomic" | "__auto_type")
                && self.word(self.pos + 1) == "("
            {
                self.pos += 1;
                let inner = self.skip_group()?;
                base = Some(Base::Opaque(format!("{word}({inner})")));
                display = format!("{word}({inner})");
            } else if self.peek_kind() == Some(TokenKind::Ident) && base.is_none() && words.is_empty() {
                // The first identifier before any type word names a type.
                base = Some(Base::Named(word.to_string()));
                display = word.to_string();
                self.pos += 1;
            } else {
                break;
            }
        }
        let base = match base {
            Some(b) => b,
            None if !words.is_empty() => {
                display = words.join(" ");
                Base::Builtin(display.clone())
            }
            None => return Err(self.failure("expected a type")),
        };
        Ok(Specifiers { base, display, is_typedef })
    }

    fn aggregate_specifier(&mut self, kind: AggregateKind) -> PResult<(Base, String)> {
        let location = self.location_of(self.pos);
        self.pos += 1;
        self.skip_attributes()?;
        let tag = (self.peek_kind() == Some(TokenKind::Ident)).then(|| self.peek().to_string());
        if tag.is_some() {
            self.pos += 1;
        }
        self.skip_attributes()?;
        let display = match &tag {
            Some(t) => format!("{} {t}", kind.keyword()),
            None => format!("{} {{…}}", kind.keyword()),
        };
        if self.peek() != "{" {
            let tag = tag.ok_or_else(|| self.failure("expected a tag or `{` after struct/union"))?;
            return Ok((Base::TagRef(kind, tag), display));
        }
        self.pos += 1;
        let mut members = Vec::new();
        while self.peek() != "}" {
            if self.pos >= self.tokens.len() {
                return Err(ParseFailure("a struct body is never closed".into()));
            }
            self.member_declaration(&mut members)?;
        }
        self.pos += 1;
        let id = self.unit.aggregates.len();
        self.unit.aggregates.push(Aggregate { kind, tag: tag.clone(), members, location });
        if let Some(tag) = tag {
            self.unit.tags.insert((kind, tag), id);
        }
        Ok((Base::Aggregate(id), display))
    }

    fn member_declaration(&mut self, members: &mut Vec<Member>) -> PResult<()> {
        match self.peek() {
            ";" => {
                self.pos += 1;
                return Ok(());
            }
            w if ASSERT_WORDS.contains(&w) => return self.static_assertion(),
            _ => {}
        }
        let specifiers = self.specifiers()?;
        if self.peek() == ";" {
            // No declarator: an anonymous struct/union member (C11), or a
            // nested definition that only declares its tag.
            self.pos += 1;
            if let Base::Aggregate(id) = specifiers.base {
                if self.unit.aggregates[id].tag.is_none() {
                    let ty = self.type_spec(&specifiers, &Declarator::default());
                    members.push(Member { name: None, ty, bit_width: None });
                }
            }
            return Ok(());
        }
        loop {
            let declarator = if self.peek() == ":" { Declarator::default() } else { self.declarator()? };
            let bit_width = if self.peek() == ":" {
                self.pos += 1;
                let start = self.pos;
                while self.pos < self.tokens.len() && !matches!(self.peek(), "," | ";") {
                    if matches!(self.peek(), "(" | "[") {
                        self.skip_group()?;
                    } else {
                        self.pos += 1;
                    }
                }
                Some(self.text_between(start, self.pos))
            } else {
                None
            };
            self.skip_attributes()?;
            let ty = self.type_spec(&specifiers, &declarator);
            members.push(Member { name: declarator.name, ty, bit_width });
            match self.peek() {
                "," => self.pos += 1,
                ";" => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.failure("expected `,` or `;` after a member")),
            }
        }
    }

    /// Pointers, a name (or a parenthesised inner declarator), then array
    /// and function suffixes. An inner declarator owns the name; its own
    /// pointer or function suffix makes the whole member one scalar.
    fn declarator(&mut self) -> PResult<Declarator> {
        let mut pointers = 0;
        loop {
            if self.peek() == "*" || self.peek() == "^" {
                pointers += 1;
                self.pos += 1;
            } else if IGNORED_SPECIFIER_WORDS.contains(&self.peek()) {
                self.pos += 1;
            } else if SKIPPED_WITH_PARENS.contains(&self.peek()) {
                self.skip_attributes()?;
            } else {
                break;
            }
        }
        let mut result = Declarator { indirect: pointers > 0, ..Declarator::default() };
        let mut inner: Option<Declarator> = None;
        if self.peek() == "(" && self.is_nested_declarator() {
            self.pos += 1;
            inner = Some(self.declarator()?);
            self.expect(")")?;
        } else if self.peek_kind() == Some(TokenKind::Ident) {
            result.name = Some(self.peek().to_string());
            self.pos += 1;
        }
        let mut function = false;
        loop {
            match self.peek() {
                "[" => {
                    let inside = self.skip_group()?;
                    result.dims.push((!inside.is_empty()).then_some(inside));
                }
                "(" => {
                    self.skip_group()?;
                    function = true;
                }
                _ => break,
            }
        }
        match inner {
            Some(inner) if inner.indirect || function => {
                Ok(Declarator { indirect: true, function: function || inner.function, ..inner })
            }
            Some(mut inner) => {
                inner.dims.extend(result.dims);
                Ok(inner)
            }
            None => {
                result.indirect |= function;
                result.function = function;
                Ok(result)
            }
        }
    }

    /// After `(`: a nested declarator starts with `*`, `^`, `(`, `[` or a
    /// name; a parameter list starts with a type or `)`.
    fn is_nested_declarator(&self) -> bool {
        let next = self.word(self.pos + 1);
        match next {
            "*" | "^" | "(" | "[" => true,
            _ => {
                self.tokens.get(self.pos + 1).is_some_and(|t| t.kind == TokenKind::Ident)
                    && !BUILTIN_TYPE_WORDS.contains(&next)
                    && !IGNORED_SPECIFIER_WORDS.contains(&next)
                    && !matches!(next, "struct" | "union" | "enum")
                    && !self.unit.typedefs.contains_key(next)
                    && !SKIPPED_WITH_PARENS.contains(&next)
            }
        }
    }

    fn type_spec(&self, specifiers: &Specifiers, declarator: &Declarator) -> TypeSpec {
        let dims: String = declarator.dims.iter().map(|d| format!("[{}]", d.as_deref().unwrap_or(""))).collect();
        // Spelled as C would: `int (*[2])(…)` for an array of function pointers.
        let display = match (declarator.function, declarator.indirect) {
            (true, _) => format!("{} (*{dims})(…)", specifiers.display),
            (false, true) => format!("{} *{dims}", specifiers.display),
            (false, false) => format!("{}{dims}", specifiers.display),
        };
        TypeSpec {
            base: specifiers.base.clone(),
            indirect: declarator.indirect,
            dims: declarator.dims.clone(),
            display,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lex::tokenize;
    use super::super::unit::{is_exact_width_name, Resolved};
    use super::*;

    fn unit(text: &str) -> Unit {
        parse(text, &tokenize(text, "t.h"))
    }

    fn member_names(u: &Unit, id: usize) -> Vec<String> {
        u.aggregates[id].members.iter().map(|m| m.name.clone().unwrap_or_else(|| "<anon>".into())).collect()
    }

    #[test]
    fn structs_typedefs_and_nesting() {
        let u = unit(
            "typedef unsigned int u32;\n\
             struct inner { u32 x; unsigned char pad[3]; };\n\
             typedef struct outer { struct inner in; struct inner many[2][3]; u32 *p; \
               void (*cb)(int, char *); int (*arr_of_fp[4])(void); union { int i; float f; }; \
               unsigned flag : 1, : 3, mode : 4; char tail[]; } outer_t;",
        );
        let outer = u.tags[&(AggregateKind::Struct, "outer".into())];
        assert_eq!(
            member_names(&u, outer),
            ["in", "many", "p", "cb", "arr_of_fp", "<anon>", "flag", "<anon>", "mode", "tail"]
        );
        let m = &u.aggregates[outer].members;
        assert_eq!(m[1].ty.dims.len(), 2);
        assert!(m[2].ty.indirect && m[3].ty.indirect && m[4].ty.indirect);
        assert_eq!(m[4].ty.dims, vec![Some("4".to_string())]);
        assert_eq!(m[6].bit_width.as_deref(), Some("1"));
        assert_eq!(m[9].ty.dims, vec![None]);
        assert_eq!(u.resolve(&m[0].ty).0, Resolved::Aggregate(u.tags[&(AggregateKind::Struct, "inner".into())]));
        let (outer_t, _) = &u.typedefs["outer_t"];
        assert_eq!(u.resolve(outer_t).0, Resolved::Aggregate(outer));
        assert_eq!(u.scalar_words(&u.aggregates[0].members[0].ty), (Some("unsigned int".into()), false));
        assert!(!u.has_exact_width_name(&u.aggregates[0].members[0].ty), "u32 is not a standard name");
        assert!(u.skipped.is_empty(), "{:?}", u.skipped);
    }

    #[test]
    fn exact_width_names_are_recognised_through_chains() {
        let u = unit(
            "typedef unsigned long __uint64_t; typedef __uint64_t uint64_t; typedef uint64_t my_u64;\n\
                      typedef unsigned long size_t; struct s { my_u64 a; size_t n; };",
        );
        let s = u.tags[&(AggregateKind::Struct, "s".into())];
        assert!(u.has_exact_width_name(&u.aggregates[s].members[0].ty));
        assert!(!u.has_exact_width_name(&u.aggregates[s].members[1].ty));
        assert!(!is_exact_width_name("uint128_t") && is_exact_width_name("__int8_t"));
    }

    #[test]
    fn typedef_arrays_add_dimensions() {
        let u = unit("typedef unsigned char block[4]; struct s { block b[2]; };");
        let s = u.tags[&(AggregateKind::Struct, "s".into())];
        assert_eq!(u.resolve(&u.aggregates[s].members[0].ty), (Resolved::Scalar, 2, true));
    }

    #[test]
    fn assertions_with_sides_and_spans() {
        let text = "struct s { int a; _Static_assert(sizeof(int) == 4, \"int\"); };\n\
                    _Static_assert(sizeof(struct s) == 4, \"size\");\nstatic_assert(1 && 2 == 2);";
        let u = unit(text);
        assert_eq!(u.assertions.len(), 3);
        let a = &u.assertions[1];
        assert_eq!(a.condition, "sizeof(struct s) == 4");
        assert_eq!(a.sides, Some(("sizeof(struct s)".to_string(), "4".to_string())));
        assert_eq!(a.message.as_deref(), Some("\"size\""));
        assert_eq!(&text[a.span.0..a.span.1], "_Static_assert(sizeof(struct s) == 4, \"size\");");
        assert_eq!(u.assertions[2].sides, None);
        assert_eq!(a.location.line, 2);
    }

    #[test]
    fn functions_attributes_and_junk_are_skipped() {
        let u = unit(
            "extern int printf(const char *__restrict f, ...) __attribute__((format(printf, 1, 2)));\n\
             static inline int add(int a, int b) { struct { int x; } t = { a }; return t.x + b; }\n\
             int @@@ nonsense;\n\
             struct __attribute__((packed)) p { char c; int i __attribute__((aligned(2))); };\n\
             enum color { RED, GREEN } ;\n\
             int table[3] = { 1, 2, 3 };",
        );
        let p = u.tags[&(AggregateKind::Struct, "p".into())];
        assert_eq!(member_names(&u, p), ["c", "i"]);
        assert_eq!(u.skipped.len(), 1, "{:?}", u.skipped);
        assert_eq!(u.skipped[0].0.line, 3);
    }
}
