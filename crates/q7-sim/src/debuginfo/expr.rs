//! The C/C++ expressions `print` and breakpoint conditions take:
//! identifiers (`x`, `ns::x`, `this`), registers (`$pc`, `$sp`, `$a2`,
//! `$f8`), integer literals (decimal, `0x`, `0b`, octal; `u`/`l`
//! suffixes), floating literals (`1.5`, `2e3`, `1.5f`), `true`/`false`,
//! character literals; unary `- + ! ~ * &`; binary `* / % + - << >> < <=
//! > >= == != & ^ | && ||` with C's precedence; member `.`/`->`, index
//! `[]` and parentheses.

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    Int { value: u128, unsigned: bool, long: bool },
    Float { value: f64, single: bool },
    Bool(bool),
    Char(i64),
    Name(String),
    Register(String),
    Unary(Unary, Box<Expr>),
    Binary(Binary, Box<Expr>, Box<Expr>),
    Member { base: Box<Expr>, name: String, arrow: bool },
    Index(Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unary {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddressOf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Binary {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl Binary {
    /// C's precedence: higher binds tighter.
    fn precedence(self) -> u8 {
        use Binary::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Le | Gt | Ge => 7,
            Eq | Ne => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            And => 2,
            Or => 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Int { value: u128, unsigned: bool, long: bool },
    Float { value: f64, single: bool },
    Char(i64),
    Name(String),
    Register(String),
    Op(&'static str),
}

/// Expressions are typed by hand: longer ones are refused rather than
/// risk deep recursion.
const MAX_LEN: usize = 4096;
const MAX_NESTING: usize = 128;

/// Operators, longest first (so `<=` is not read as `<`).
const OPERATORS: [&str; 28] = [
    "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "!", "~", "&", "^", "|",
    "(", ")", "[", "]", ".", ",", "?",
];

pub(crate) fn parse(text: &str) -> Result<Expr, String> {
    if text.len() > MAX_LEN {
        return Err(format!("longer than {MAX_LEN} characters"));
    }
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Err("empty expression".into());
    }
    let mut parser = Parser { tokens, at: 0, nesting: 0 };
    let expr = parser.binary(0)?;
    match parser.tokens.get(parser.at) {
        None => Ok(expr),
        Some(t) => Err(format!("unexpected {} after the expression", describe(t))),
    }
}

fn describe(t: &Token) -> String {
    match t {
        Token::Op(op) => format!("`{op}`"),
        Token::Name(n) => format!("`{n}`"),
        Token::Register(r) => format!("`${r}`"),
        _ => "a number".into(),
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || exponent_sign(&chars, i)) {
                i += 1;
            }
            tokens.push(number(&chars[start..i].iter().collect::<String>())?);
        } else if c.is_alphabetic() || c == '_' || (c == ':' && chars.get(i + 1) == Some(&':')) {
            let start = i;
            while i < chars.len() {
                if chars[i].is_alphanumeric() || chars[i] == '_' {
                    i += 1;
                } else if chars[i] == ':' && chars.get(i + 1) == Some(&':') {
                    i += 2;
                } else {
                    break;
                }
            }
            let name: String = chars[start..i].iter().collect();
            tokens.push(Token::Name(name.trim_start_matches("::").to_string()));
        } else if c == '$' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            if start == i {
                return Err("`$` without a register name".into());
            }
            tokens.push(Token::Register(chars[start..i].iter().collect()));
        } else if c == '\'' {
            let (value, next) = char_literal(&chars, i)?;
            tokens.push(Token::Char(value));
            i = next;
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(*op)) else {
                return Err(format!("unexpected character `{c}`"));
            };
            tokens.push(Token::Op(op));
            i += op.len();
        }
    }
    Ok(tokens)
}

/// A `+`/`-` right after the `e` of a decimal floating literal (`1e-3`).
fn exponent_sign(chars: &[char], i: usize) -> bool {
    matches!(chars[i], '+' | '-')
        && i > 0
        && matches!(chars[i - 1], 'e' | 'E')
        && !chars[..i].iter().collect::<String>().to_ascii_lowercase().contains("0x")
}

fn number(text: &str) -> Result<Token, String> {
    let lower = text.to_ascii_lowercase();
    let bad = || format!("invalid number `{text}`");
    let is_hex = lower.starts_with("0x");
    let is_float = !is_hex && (lower.contains('.') || lower.contains('e'));
    if is_float {
        let (digits, single) = match lower.strip_suffix('f') {
            Some(d) => (d, true),
            None => (lower.strip_suffix('l').unwrap_or(&lower), false),
        };
        let value: f64 = digits.parse().map_err(|_| bad())?;
        return Ok(Token::Float { value, single });
    }
    let body = lower.trim_end_matches(['u', 'l']);
    let suffix = &lower[body.len()..];
    if suffix.len() > 3 || suffix.matches('u').count() > 1 {
        return Err(bad());
    }
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x") {
        (h, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    let value = u128::from_str_radix(digits, radix).map_err(|_| bad())?;
    if value > u128::from(u64::MAX) {
        return Err(format!("number `{text}` is too large"));
    }
    Ok(Token::Int { value, unsigned: suffix.contains('u'), long: suffix.contains('l') })
}

/// `'a'`, `'\n'`, `'\0'`, `'\x41'`, `'\101'` at `chars[i]`; the value and
/// the index after the closing quote.
fn char_literal(chars: &[char], i: usize) -> Result<(i64, usize), String> {
    let bad = || "invalid character literal".to_string();
    let c = *chars.get(i + 1).ok_or_else(bad)?;
    let (value, mut next) = if c == '\\' {
        let e = *chars.get(i + 2).ok_or_else(bad)?;
        match e {
            'n' => (10, i + 3),
            't' => (9, i + 3),
            'r' => (13, i + 3),
            'a' => (7, i + 3),
            'b' => (8, i + 3),
            'f' => (12, i + 3),
            'v' => (11, i + 3),
            '\\' | '\'' | '"' | '?' => (e as i64, i + 3),
            'x' => {
                let end = (i + 3..chars.len()).find(|&j| !chars[j].is_ascii_hexdigit()).unwrap_or(chars.len());
                let digits: String = chars[i + 3..end].iter().collect();
                (i64::from_str_radix(&digits, 16).map_err(|_| bad())? & 0xff, end)
            }
            '0'..='7' => {
                let end = (i + 2..chars.len().min(i + 5))
                    .find(|&j| !('0'..='7').contains(&chars[j]))
                    .unwrap_or(chars.len().min(i + 5));
                let digits: String = chars[i + 2..end].iter().collect();
                (i64::from_str_radix(&digits, 8).map_err(|_| bad())? & 0xff, end)
            }
            _ => return Err(bad()),
        }
    } else if c == '\'' {
        return Err(bad());
    } else {
        (c as i64, i + 2)
    };
    if chars.get(next) != Some(&'\'') {
        return Err(bad());
    }
    next += 1;
    Ok((value, next))
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    nesting: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, op: &str) -> bool {
        match self.peek() {
            Some(Token::Op(o)) if *o == op => {
                self.at += 1;
                true
            }
            _ => false,
        }
    }

    fn expect(&mut self, op: &str) -> Result<(), String> {
        if self.eat(op) {
            Ok(())
        } else {
            Err(match self.peek() {
                Some(t) => format!("expected `{op}`, found {}", describe(t)),
                None => format!("expected `{op}` at the end"),
            })
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(format!("nested more than {MAX_NESTING} deep"));
        }
        Ok(())
    }

    /// Binary operators binding at least as tightly as `min`.
    fn binary(&mut self, min: u8) -> Result<Expr, String> {
        self.enter()?;
        let mut lhs = self.unary()?;
        while let Some(Token::Op(op)) = self.peek() {
            let Some(bin) = binary_op(op) else { break };
            if bin.precedence() < min {
                break;
            }
            self.at += 1;
            let rhs = self.binary(bin.precedence() + 1)?;
            lhs = Expr::Binary(bin, Box::new(lhs), Box::new(rhs));
        }
        self.nesting -= 1;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        let op = match self.peek() {
            Some(Token::Op("-")) => Some(Unary::Neg),
            Some(Token::Op("+")) => Some(Unary::Plus),
            Some(Token::Op("!")) => Some(Unary::Not),
            Some(Token::Op("~")) => Some(Unary::BitNot),
            Some(Token::Op("*")) => Some(Unary::Deref),
            Some(Token::Op("&")) => Some(Unary::AddressOf),
            _ => None,
        };
        match op {
            Some(op) => {
                self.at += 1;
                self.enter()?;
                let operand = self.unary()?;
                self.nesting -= 1;
                Ok(Expr::Unary(op, Box::new(operand)))
            }
            None => self.postfix(),
        }
    }

    fn postfix(&mut self) -> Result<Expr, String> {
        let mut expr = self.primary()?;
        loop {
            if self.eat("[") {
                let index = self.binary(0)?;
                self.expect("]")?;
                expr = Expr::Index(Box::new(expr), Box::new(index));
            } else if self.eat(".") || self.eat("->") {
                let arrow = self.tokens[self.at - 1] == Token::Op("->");
                let Some(Token::Name(name)) = self.peek().cloned() else {
                    return Err(format!("expected a member name after `{}`", if arrow { "->" } else { "." }));
                };
                self.at += 1;
                expr = Expr::Member { base: Box::new(expr), name, arrow };
            } else {
                return Ok(expr);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(token) = self.peek().cloned() else { return Err("the expression ends too early".into()) };
        self.at += 1;
        match token {
            Token::Int { value, unsigned, long } => Ok(Expr::Int { value, unsigned, long }),
            Token::Float { value, single } => Ok(Expr::Float { value, single }),
            Token::Char(c) => Ok(Expr::Char(c)),
            Token::Name(n) if n == "true" => Ok(Expr::Bool(true)),
            Token::Name(n) if n == "false" => Ok(Expr::Bool(false)),
            Token::Name(n) => Ok(Expr::Name(n)),
            Token::Register(r) => Ok(Expr::Register(r)),
            Token::Op("(") => {
                let inner = self.binary(0)?;
                self.expect(")")?;
                Ok(inner)
            }
            other => Err(format!("unexpected {}", describe(&other))),
        }
    }
}

fn binary_op(op: &str) -> Option<Binary> {
    use Binary::*;
    Some(match op {
        "*" => Mul,
        "/" => Div,
        "%" => Rem,
        "+" => Add,
        "-" => Sub,
        "<<" => Shl,
        ">>" => Shr,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "==" => Eq,
        "!=" => Ne,
        "&" => BitAnd,
        "^" => BitXor,
        "|" => BitOr,
        "&&" => And,
        "||" => Or,
        _ => return None,
    })
}
