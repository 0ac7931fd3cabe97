//! PyTorch operator schemas as the Neuron flow writes them, e.g.
//! `relu_forward(Tensor _0) -> Tensor` or `scale(Tensor x, float s, int n) -> Tensor`.
//!
//! q7 accepts the subset the device wrapper can marshal: arguments of kind
//! Tensor, Scalar (alias `number`), int (`int64_t`; also `long`/`long long`),
//! float (`double`), and exactly one Tensor return. Every violation is an
//! error that quotes the schema and points at the column.

use serde::Serialize;

/// How one argument crosses from host to device (sdk/ABI.md kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgKind {
    Tensor,
    Scalar,
    Int,
    Float,
}

impl ArgKind {
    /// The type as a schema spells it.
    pub fn schema_type(self) -> &'static str {
        match self {
            ArgKind::Tensor => "Tensor",
            ArgKind::Scalar => "Scalar",
            ArgKind::Int => "int",
            ArgKind::Float => "float",
        }
    }

    /// The C++ parameter type the user's function declares.
    pub fn cpp_param(self) -> &'static str {
        match self {
            ArgKind::Tensor => "const torch::Tensor&",
            ArgKind::Scalar => "torch::Scalar",
            ArgKind::Int => "int64_t",
            ArgKind::Float => "double",
        }
    }

    /// The C++ type of the local the wrapper pulls the argument into.
    pub fn cpp_local(self) -> &'static str {
        match self {
            ArgKind::Tensor => "torch::Tensor",
            other => other.cpp_param(),
        }
    }

    /// The runtime call that pulls the next argument of this kind.
    pub fn next_call(self) -> &'static str {
        match self {
            ArgKind::Tensor => "customop_next_tensor",
            ArgKind::Scalar => "customop_next_scalar",
            ArgKind::Int => "customop_next_int64",
            ArgKind::Float => "customop_next_double",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Arg {
    pub kind: ArgKind,
    pub name: String,
}

/// A parsed schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Schema {
    /// The full operator name, namespace included (`my_ops::relu`).
    pub name: String,
    pub args: Vec<Arg>,
}

impl std::fmt::Display for Schema {
    /// The canonical text, as torch prints it: `scale(Tensor x, float s) -> Tensor`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let args: Vec<String> = self.args.iter().map(|a| format!("{} {}", a.kind.schema_type(), a.name)).collect();
        write!(f, "{}({}) -> Tensor", self.name, args.join(", "))
    }
}

impl Schema {
    /// The operator name without its namespace.
    pub fn base_name(&self) -> &str {
        self.name.rsplit("::").next().unwrap_or(&self.name)
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("schema '{schema}': column {column}: {message}")]
pub struct SchemaError {
    pub schema: String,
    /// 1-based character column.
    pub column: usize,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token<'a> {
    Ident(&'a str),
    Punct(&'static str),
    Other(char),
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn skip_space(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next().filter(|c| c.is_whitespace()) {
            self.pos += c.len_utf8();
        }
    }

    /// The next token and the byte offset where it starts; `None` at the end.
    fn next(&mut self) -> Option<(usize, Token<'a>)> {
        self.skip_space();
        let start = self.pos;
        let rest = &self.text[start..];
        let c = rest.chars().next()?;
        for p in ["::", "->", "(", ")", ",", "?", "=", "[", "]"] {
            if rest.starts_with(p) {
                self.pos += p.len();
                return Some((start, Token::Punct(p)));
            }
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            self.pos += len;
            return Some((start, Token::Ident(&rest[..len])));
        }
        self.pos += c.len_utf8();
        Some((start, Token::Other(c)))
    }

    fn peek(&mut self) -> Option<(usize, Token<'a>)> {
        let save = self.pos;
        let t = self.next();
        self.pos = save;
        t
    }
}

struct Parser<'a> {
    lex: Lexer<'a>,
}

impl<'a> Parser<'a> {
    fn error(&self, byte: usize, message: impl Into<String>) -> SchemaError {
        let text = self.lex.text;
        SchemaError {
            schema: text.to_string(),
            column: text[..byte.min(text.len())].chars().count() + 1,
            message: message.into(),
        }
    }

    fn end(&self) -> usize {
        self.lex.text.len()
    }

    fn expect(&mut self, want: &'static str, what: &str) -> Result<usize, SchemaError> {
        match self.lex.next() {
            Some((at, Token::Punct(p))) if p == want => Ok(at),
            Some((at, t)) => Err(self.error(at, format!("expected {what}, found {}", describe(&t)))),
            None => Err(self.error(self.end(), format!("expected {what}, found the end of the schema"))),
        }
    }

    fn ident(&mut self, what: &str) -> Result<(usize, &'a str), SchemaError> {
        match self.lex.next() {
            Some((at, Token::Ident(s))) => Ok((at, s)),
            Some((at, t)) => Err(self.error(at, format!("expected {what}, found {}", describe(&t)))),
            None => Err(self.error(self.end(), format!("expected {what}, found the end of the schema"))),
        }
    }

    fn name(&mut self) -> Result<String, SchemaError> {
        let (_, first) = self.ident("the operator name")?;
        let mut name = first.to_string();
        while matches!(self.lex.peek(), Some((_, Token::Punct("::")))) {
            self.lex.next();
            let (_, part) = self.ident("a name after '::'")?;
            name.push_str("::");
            name.push_str(part);
        }
        Ok(name)
    }

    /// A type: one identifier, or the two-word `long long`.
    fn kind(&mut self) -> Result<(usize, ArgKind, &'a str), SchemaError> {
        let (at, word) = self.ident("an argument type")?;
        let kind = match word {
            "Tensor" => ArgKind::Tensor,
            "Scalar" | "number" => ArgKind::Scalar,
            "int" | "SymInt" => ArgKind::Int,
            "float" => ArgKind::Float,
            "long" => {
                if matches!(self.lex.peek(), Some((_, Token::Ident("long")))) {
                    self.lex.next();
                }
                ArgKind::Int
            }
            other => {
                return Err(self.error(
                    at,
                    format!("unsupported type '{other}' (q7 marshals Tensor, Scalar, int, float and long long)"),
                ))
            }
        };
        match self.lex.peek() {
            Some((p, Token::Punct("?"))) => Err(self.error(p, "optional arguments ('?') are not supported")),
            Some((p, Token::Punct("["))) => Err(self.error(p, "list arguments ('[]') are not supported")),
            Some((p, Token::Punct("("))) => Err(self.error(p, "alias annotations ('Tensor(a)') are not supported")),
            _ => Ok((at, kind, word)),
        }
    }

    fn schema(&mut self) -> Result<Schema, SchemaError> {
        let name = self.name()?;
        self.expect("(", "'(' after the operator name")?;
        let mut args: Vec<Arg> = Vec::new();
        if matches!(self.lex.peek(), Some((_, Token::Punct(")")))) {
            self.lex.next();
        } else {
            loop {
                let (_, kind, _) = self.kind()?;
                let (at, arg_name) = self.ident("an argument name")?;
                if args.iter().any(|a| a.name == arg_name) {
                    return Err(self.error(at, format!("argument '{arg_name}' appears twice")));
                }
                if let Some((p, Token::Punct("="))) = self.lex.peek() {
                    return Err(self.error(p, "default values are not supported"));
                }
                args.push(Arg { kind, name: arg_name.to_string() });
                match self.lex.next() {
                    Some((_, Token::Punct(","))) => continue,
                    Some((_, Token::Punct(")"))) => break,
                    Some((at, t)) => return Err(self.error(at, format!("expected ',' or ')', found {}", describe(&t)))),
                    None => return Err(self.error(self.end(), "expected ',' or ')', found the end of the schema")),
                }
            }
        }
        self.expect("->", "'->' and the return type")?;
        let ret_at = self.lex.peek().map_or(self.end(), |(at, _)| at);
        if matches!(self.lex.peek(), Some((_, Token::Punct("(")))) {
            return Err(self.error(ret_at, "exactly one Tensor return is supported, found a tuple"));
        }
        let (_, kind, word) = self.kind()?;
        if kind != ArgKind::Tensor {
            return Err(self.error(ret_at, format!("the return type must be Tensor, found '{word}'")));
        }
        if let Some((at, t)) = self.lex.next() {
            return Err(self.error(at, format!("unexpected {} after the return type", describe(&t))));
        }
        Ok(Schema { name, args })
    }
}

fn describe(t: &Token) -> String {
    match t {
        Token::Ident(s) => format!("'{s}'"),
        Token::Punct(p) => format!("'{p}'"),
        Token::Other(c) => format!("'{c}'"),
    }
}

/// Parses one schema string.
pub fn parse(text: &str) -> Result<Schema, SchemaError> {
    Parser { lex: Lexer { text, pos: 0 } }.schema()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn parses_the_neuron_shapes() {
        let s = parse("relu_forward(Tensor _0) -> Tensor").unwrap();
        assert_eq!(s.name, "relu_forward");
        assert_eq!(s.args, vec![Arg { kind: ArgKind::Tensor, name: "_0".into() }]);
        let s = parse("my_ops::scale(Tensor x, float s, int n, Scalar k, long long m, number q)->Tensor").unwrap();
        assert_eq!(s.name, "my_ops::scale");
        assert_eq!(s.base_name(), "scale");
        let kinds: Vec<ArgKind> = s.args.iter().map(|a| a.kind).collect();
        use ArgKind::*;
        assert_eq!(kinds, vec![Tensor, Float, Int, Scalar, Int, Scalar]);
        assert_eq!(parse("noargs() -> Tensor").unwrap().args, vec![]);
    }

    #[test]
    fn errors_name_the_schema_and_column() {
        assert_eq!(
            err("scale(Tensor x, flaot s) -> Tensor"),
            "schema 'scale(Tensor x, flaot s) -> Tensor': column 17: unsupported type 'flaot' (q7 marshals Tensor, Scalar, int, float and long long)"
        );
        assert_eq!(
            err("f(Tensor x) -> int"),
            "schema 'f(Tensor x) -> int': column 16: the return type must be Tensor, found 'int'"
        );
        assert!(err("f(Tensor x) -> (Tensor, Tensor)").contains("column 16: exactly one Tensor return"));
        assert!(err("f(Tensor x, Tensor x) -> Tensor").contains("column 20: argument 'x' appears twice"));
        assert!(err("f(Tensor? x) -> Tensor").contains("column 9: optional arguments"));
        assert!(err("f(float s=1.0) -> Tensor").contains("column 10: default values are not supported"));
        assert!(err("f(Tensor x)").contains("column 12: expected '->' and the return type, found the end"));
        assert!(err("f(Tensor x) -> Tensor extra").contains("column 23: unexpected 'extra'"));
        assert!(err("(Tensor x) -> Tensor").contains("column 1: expected the operator name, found '('"));
        assert!(err("f(Tensor x -> Tensor").contains("column 12: expected ',' or ')', found '->'"));
        assert!(err("").contains("column 1: expected the operator name, found the end"));
        assert_eq!(
            err("naïve(Tensor x) -> Tensor"),
            "schema 'naïve(Tensor x) -> Tensor': column 3: expected '(' after the operator name, found 'ï'"
        );
    }
}

/// The schema table the generated wrapper embeds in every image, so that a
/// runner can bind and check arguments from the image alone (stripped,
/// packed or prelinked alike). It is one NUL-terminated string in
/// `.rodata`: the line `q7.schemas/1`, then one line per function,
/// `INDEX<TAB>FUNCTION<TAB>SCHEMA` (docs/FORMATS.md).
pub mod table {
    use super::{parse, Schema, SchemaError};

    /// The first line; the version changes if the record format does.
    pub const MAGIC: &str = "q7.schemas/1\n";

    /// One function of an image.
    #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
    pub struct SchemaEntry {
        /// Its index for `get_func_ptr`.
        pub index: u32,
        /// The C++ compute function (`get_func_name`).
        pub function: String,
        /// Its schema; the schema's name is the op's name (`torch.ops`).
        pub schema: Schema,
    }

    #[derive(Debug, thiserror::Error, PartialEq, Eq)]
    pub enum TableError {
        #[error("schema table: line {line} is not INDEX<TAB>FUNCTION<TAB>SCHEMA")]
        BadLine { line: usize },
        #[error("schema table: no terminating NUL")]
        Unterminated,
        #[error("schema table: {0}")]
        Schema(#[from] SchemaError),
    }

    /// The table's text (without the NUL).
    pub fn encode(entries: &[SchemaEntry]) -> String {
        let mut out = String::from(MAGIC);
        for e in entries {
            out.push_str(&format!("{}\t{}\t{}\n", e.index, e.function, e.schema));
        }
        out
    }

    /// Decodes the text after [`MAGIC`] up to its NUL.
    pub fn decode(text: &str) -> Result<Vec<SchemaEntry>, TableError> {
        let body = text.strip_prefix(MAGIC).unwrap_or(text);
        let mut entries = Vec::new();
        for (n, line) in body.lines().enumerate() {
            let bad = TableError::BadLine { line: n + 2 };
            let mut fields = line.splitn(3, '\t');
            let (Some(index), Some(function), Some(schema)) = (fields.next(), fields.next(), fields.next()) else {
                return Err(bad);
            };
            let index = index.parse().map_err(|_| bad)?;
            entries.push(SchemaEntry { index, function: function.to_string(), schema: parse(schema)? });
        }
        Ok(entries)
    }

    /// Finds and decodes the table in an image's bytes; `Ok(None)` when the
    /// image has none (built by another wrapper generator).
    pub fn find(image: &[u8]) -> Result<Option<Vec<SchemaEntry>>, TableError> {
        let magic = MAGIC.as_bytes();
        let Some(start) = image.windows(magic.len()).position(|w| w == magic) else { return Ok(None) };
        let rest = &image[start..];
        let end = rest.iter().position(|&b| b == 0).ok_or(TableError::Unterminated)?;
        let text = std::str::from_utf8(&rest[..end]).map_err(|_| TableError::BadLine { line: 1 })?;
        decode(text).map(Some)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn round_trips_inside_image_bytes() {
            let entries = vec![
                SchemaEntry {
                    index: 0,
                    function: "relu_fwd".into(),
                    schema: parse("relu_forward(Tensor _0) -> Tensor").unwrap(),
                },
                SchemaEntry {
                    index: 1,
                    function: "ns::scale".into(),
                    schema: parse("scale(Tensor x, float s, int n, Scalar k) -> Tensor").unwrap(),
                },
            ];
            let mut image = vec![0x36u8, 0x41, 0x00];
            image.extend_from_slice(encode(&entries).as_bytes());
            image.extend_from_slice(&[0, 0xff]);
            assert_eq!(find(&image).unwrap(), Some(entries));
            assert_eq!(find(b"no table here").unwrap(), None);
        }

        #[test]
        fn damaged_tables_are_errors() {
            assert_eq!(find(b"q7.schemas/1\n0\trelu").unwrap_err(), TableError::Unterminated);
            assert_eq!(
                find(b"q7.schemas/1\nx\trelu\tf(Tensor a) -> Tensor\n\0").unwrap_err(),
                TableError::BadLine { line: 2 }
            );
            assert!(matches!(find(b"q7.schemas/1\n0\trelu\tf(Tensr a) -> Tensor\n\0"), Err(TableError::Schema(_))));
        }
    }
}
