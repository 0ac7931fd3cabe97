//! Reference expressions for the value oracle: C operators with C precedence
//! over `u32`, wrapping arithmetic, the variables `a` and `b`, and a few
//! helper functions for signed and bit-level semantics that plain unsigned C
//! cannot spell.
//!
//! Choices C leaves undefined are fixed here: shifts by 32 or more give 0
//! (`>>` is logical; `sra` is the arithmetic one), and division or remainder
//! by zero is an error for that input, never a value.

use std::fmt;

/// A parsed expression, ready to evaluate many times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    source: String,
    root: Node,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Number(u32),
    Var(Var),
    Unary(UnaryOp, Box<Node>),
    Binary(BinaryOp, Box<Node>, Box<Node>),
    Conditional(Box<Node>, Box<Node>, Box<Node>),
    Call(&'static Function, Vec<Node>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Var {
    A,
    B,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UnaryOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinaryOp {
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

/// Binding strength of each binary operator (higher binds tighter), as in C.
fn precedence(op: BinaryOp) -> u8 {
    use BinaryOp::*;
    match op {
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

/// A parse failure, with the 1-based column it was found at.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad expression `{source_text}`: {message} at column {column}")]
pub struct ParseError {
    pub source_text: String,
    pub message: String,
    pub column: usize,
}

/// An evaluation failure for one input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("division by zero")]
    DivisionByZero,
    #[error("{0}")]
    BadArgument(String),
}

type Implementation = fn(&[u32]) -> Result<u32, EvalError>;

/// A helper function callable from an expression.
#[derive(Debug)]
pub struct Function {
    pub name: &'static str,
    pub arity: usize,
    pub meaning: &'static str,
    implementation: Implementation,
}

impl PartialEq for Function {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Function {}

fn signed(v: u32) -> i32 {
    v as i32
}

fn bit_count(v: u32) -> Result<u32, EvalError> {
    if (1..=32).contains(&v) {
        Ok(v)
    } else {
        Err(EvalError::BadArgument(format!("bit count {v} is outside 1..=32")))
    }
}

fn sign_extend(x: u32, bits: u32) -> Result<u32, EvalError> {
    let n = bit_count(bits)?;
    let shift = 32 - n;
    Ok(((x << shift) as i32 >> shift) as u32)
}

fn zero_extend(x: u32, bits: u32) -> Result<u32, EvalError> {
    let n = bit_count(bits)?;
    Ok(if n == 32 { x } else { x & ((1u32 << n) - 1) })
}

/// The helper functions, in the order `--help` lists them.
pub static FUNCTIONS: &[Function] = &[
    Function {
        name: "sext",
        arity: 2,
        meaning: "sign-extend x from its low y bits",
        implementation: |v| sign_extend(v[0], v[1]),
    },
    Function {
        name: "zext",
        arity: 2,
        meaning: "keep the low y bits of x",
        implementation: |v| zero_extend(v[0], v[1]),
    },
    Function {
        name: "slt",
        arity: 2,
        meaning: "signed x < y",
        implementation: |v| Ok(u32::from(signed(v[0]) < signed(v[1]))),
    },
    Function {
        name: "sle",
        arity: 2,
        meaning: "signed x <= y",
        implementation: |v| Ok(u32::from(signed(v[0]) <= signed(v[1]))),
    },
    Function {
        name: "sgt",
        arity: 2,
        meaning: "signed x > y",
        implementation: |v| Ok(u32::from(signed(v[0]) > signed(v[1]))),
    },
    Function {
        name: "sge",
        arity: 2,
        meaning: "signed x >= y",
        implementation: |v| Ok(u32::from(signed(v[0]) >= signed(v[1]))),
    },
    Function {
        name: "sdiv",
        arity: 2,
        meaning: "signed division, truncating (INT_MIN / -1 wraps)",
        implementation: |v| match v[1] {
            0 => Err(EvalError::DivisionByZero),
            _ => Ok(signed(v[0]).wrapping_div(signed(v[1])) as u32),
        },
    },
    Function {
        name: "srem",
        arity: 2,
        meaning: "signed remainder, sign of x",
        implementation: |v| match v[1] {
            0 => Err(EvalError::DivisionByZero),
            _ => Ok(signed(v[0]).wrapping_rem(signed(v[1])) as u32),
        },
    },
    Function {
        name: "sra",
        arity: 2,
        meaning: "arithmetic shift x right by y (y >= 32 gives the sign)",
        implementation: |v| Ok((signed(v[0]) >> v[1].min(31)) as u32),
    },
    Function { name: "min", arity: 2, meaning: "unsigned minimum", implementation: |v| Ok(v[0].min(v[1])) },
    Function { name: "max", arity: 2, meaning: "unsigned maximum", implementation: |v| Ok(v[0].max(v[1])) },
    Function {
        name: "smin",
        arity: 2,
        meaning: "signed minimum",
        implementation: |v| Ok(signed(v[0]).min(signed(v[1])) as u32),
    },
    Function {
        name: "smax",
        arity: 2,
        meaning: "signed maximum",
        implementation: |v| Ok(signed(v[0]).max(signed(v[1])) as u32),
    },
    Function {
        name: "abs",
        arity: 1,
        meaning: "signed absolute value (INT_MIN wraps)",
        implementation: |v| Ok(signed(v[0]).wrapping_abs() as u32),
    },
    Function {
        name: "clz",
        arity: 1,
        meaning: "leading zero bits (32 for 0)",
        implementation: |v| Ok(v[0].leading_zeros()),
    },
    Function {
        name: "ctz",
        arity: 1,
        meaning: "trailing zero bits (32 for 0)",
        implementation: |v| Ok(v[0].trailing_zeros()),
    },
    Function { name: "popcount", arity: 1, meaning: "set bits", implementation: |v| Ok(v[0].count_ones()) },
    Function {
        name: "rotl",
        arity: 2,
        meaning: "rotate x left by y mod 32",
        implementation: |v| Ok(v[0].rotate_left(v[1] % 32)),
    },
    Function {
        name: "rotr",
        arity: 2,
        meaning: "rotate x right by y mod 32",
        implementation: |v| Ok(v[0].rotate_right(v[1] % 32)),
    },
];

impl Expr {
    /// Parses an expression over the variables `a` and `b`.
    pub fn parse(source: &str) -> Result<Expr, ParseError> {
        Self::parse_with(source, true)
    }

    /// Parses a constant expression (no variables), e.g. a grid value.
    pub fn parse_constant(source: &str) -> Result<Expr, ParseError> {
        Self::parse_with(source, false)
    }

    fn parse_with(source: &str, variables: bool) -> Result<Expr, ParseError> {
        let tokens = tokenize(source)?;
        let mut parser = Parser { source, tokens, pos: 0, variables };
        let root = parser.conditional()?;
        if let Some(t) = parser.peek() {
            return Err(parser.error_at(t.column, format!("unexpected `{}`", t.text)));
        }
        Ok(Expr { source: source.to_string(), root })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Evaluates with `a` and `b` bound.
    pub fn eval(&self, a: u32, b: u32) -> Result<u32, EvalError> {
        eval(&self.root, a, b)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn eval(node: &Node, a: u32, b: u32) -> Result<u32, EvalError> {
    Ok(match node {
        Node::Number(v) => *v,
        Node::Var(Var::A) => a,
        Node::Var(Var::B) => b,
        Node::Unary(op, x) => {
            let x = eval(x, a, b)?;
            match op {
                UnaryOp::Neg => x.wrapping_neg(),
                UnaryOp::Plus => x,
                UnaryOp::Not => u32::from(x == 0),
                UnaryOp::BitNot => !x,
            }
        }
        // The logical operators and `?:` evaluate lazily, as in C, so a
        // guard such as `b != 0 && a / b` does not divide by zero.
        Node::Binary(BinaryOp::And, l, r) => u32::from(eval(l, a, b)? != 0 && eval(r, a, b)? != 0),
        Node::Binary(BinaryOp::Or, l, r) => u32::from(eval(l, a, b)? != 0 || eval(r, a, b)? != 0),
        Node::Conditional(c, t, e) => {
            if eval(c, a, b)? != 0 {
                eval(t, a, b)?
            } else {
                eval(e, a, b)?
            }
        }
        Node::Binary(op, l, r) => binary(*op, eval(l, a, b)?, eval(r, a, b)?)?,
        Node::Call(function, args) => {
            let values = args.iter().map(|x| eval(x, a, b)).collect::<Result<Vec<u32>, EvalError>>()?;
            (function.implementation)(&values)?
        }
    })
}

fn binary(op: BinaryOp, l: u32, r: u32) -> Result<u32, EvalError> {
    use BinaryOp::*;
    Ok(match op {
        Mul => l.wrapping_mul(r),
        Div => l.checked_div(r).ok_or(EvalError::DivisionByZero)?,
        Rem => l.checked_rem(r).ok_or(EvalError::DivisionByZero)?,
        Add => l.wrapping_add(r),
        Sub => l.wrapping_sub(r),
        Shl => l.checked_shl(r).unwrap_or(0),
        Shr => l.checked_shr(r).unwrap_or(0),
        Lt => u32::from(l < r),
        Le => u32::from(l <= r),
        Gt => u32::from(l > r),
        Ge => u32::from(l >= r),
        Eq => u32::from(l == r),
        Ne => u32::from(l != r),
        BitAnd => l & r,
        BitXor => l ^ r,
        BitOr => l | r,
        And => u32::from(l != 0 && r != 0),
        Or => u32::from(l != 0 || r != 0),
    })
}

#[derive(Clone, Debug)]
struct Token {
    text: String,
    column: usize,
}

const PUNCTUATORS: &[&str] = &[
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "&", "^", "|", "!", "~", "?",
    ":", "(", ")", ",",
];

fn tokenize(source: &str) -> Result<Vec<Token>, ParseError> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_alphanumeric() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        } else if let Some(p) = PUNCTUATORS.iter().find(|p| source[i..].starts_with(**p)) {
            i += p.len();
        } else {
            let ch = source[i..].chars().next().unwrap_or('?');
            return Err(ParseError {
                source_text: source.to_string(),
                message: format!("unexpected character `{ch}`"),
                column: source[..i].chars().count() + 1,
            });
        }
        tokens.push(Token { text: source[start..i].to_string(), column: source[..start].chars().count() + 1 });
    }
    Ok(tokens)
}

struct Parser<'s> {
    source: &'s str,
    tokens: Vec<Token>,
    pos: usize,
    variables: bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_is(&self, text: &str) -> bool {
        self.peek().is_some_and(|t| t.text == text)
    }

    fn end_column(&self) -> usize {
        self.source.chars().count() + 1
    }

    fn error_at(&self, column: usize, message: impl Into<String>) -> ParseError {
        ParseError { source_text: self.source.to_string(), message: message.into(), column }
    }

    fn expect(&mut self, text: &str) -> Result<(), ParseError> {
        match self.peek() {
            Some(t) if t.text == text => {
                self.pos += 1;
                Ok(())
            }
            Some(t) => Err(self.error_at(t.column, format!("expected `{text}`, found `{}`", t.text))),
            None => Err(self.error_at(self.end_column(), format!("expected `{text}`, found the end"))),
        }
    }

    /// `cond ? then : else`, right-associative, lowest precedence.
    fn conditional(&mut self) -> Result<Node, ParseError> {
        let cond = self.binary(1)?;
        if !self.peek_is("?") {
            return Ok(cond);
        }
        self.pos += 1;
        let then = self.conditional()?;
        self.expect(":")?;
        let otherwise = self.conditional()?;
        Ok(Node::Conditional(Box::new(cond), Box::new(then), Box::new(otherwise)))
    }

    /// Precedence climbing over the left-associative binary operators.
    fn binary(&mut self, min_precedence: u8) -> Result<Node, ParseError> {
        let mut left = self.unary()?;
        while let Some(op) = self.peek().and_then(|t| binary_op(&t.text)) {
            let p = precedence(op);
            if p < min_precedence {
                break;
            }
            self.pos += 1;
            let right = self.binary(p + 1)?;
            left = Node::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Node, ParseError> {
        let op = match self.peek().map(|t| t.text.as_str()) {
            Some("-") => UnaryOp::Neg,
            Some("+") => UnaryOp::Plus,
            Some("!") => UnaryOp::Not,
            Some("~") => UnaryOp::BitNot,
            _ => return self.primary(),
        };
        self.pos += 1;
        Ok(Node::Unary(op, Box::new(self.unary()?)))
    }

    fn primary(&mut self) -> Result<Node, ParseError> {
        let Some(token) = self.peek().cloned() else {
            return Err(self.error_at(self.end_column(), "expected a value, found the end"));
        };
        self.pos += 1;
        let text = token.text.as_str();
        if text == "(" {
            let inner = self.conditional()?;
            self.expect(")")?;
            return Ok(inner);
        }
        if text.as_bytes()[0].is_ascii_digit() {
            return parse_number(text).map(Node::Number).map_err(|m| self.error_at(token.column, m));
        }
        if text.as_bytes()[0].is_ascii_alphabetic() || text.starts_with('_') {
            if self.peek_is("(") {
                return self.call(&token);
            }
            return match (text, self.variables) {
                ("a", true) => Ok(Node::Var(Var::A)),
                ("b", true) => Ok(Node::Var(Var::B)),
                (_, true) => {
                    Err(self.error_at(token.column, format!("unknown name `{text}` (the inputs are `a` and `b`)")))
                }
                (_, false) => Err(self.error_at(token.column, format!("`{text}`: a constant was expected"))),
            };
        }
        Err(self.error_at(token.column, format!("unexpected `{text}`")))
    }

    fn call(&mut self, name: &Token) -> Result<Node, ParseError> {
        let function = FUNCTIONS.iter().find(|f| f.name == name.text).ok_or_else(|| {
            let known: Vec<&str> = FUNCTIONS.iter().map(|f| f.name).collect();
            self.error_at(name.column, format!("unknown function `{}` (known: {})", name.text, known.join(", ")))
        })?;
        self.expect("(")?;
        let mut args = Vec::new();
        if !self.peek_is(")") {
            loop {
                args.push(self.conditional()?);
                if !self.peek_is(",") {
                    break;
                }
                self.pos += 1;
            }
        }
        self.expect(")")?;
        if args.len() != function.arity {
            return Err(self.error_at(
                name.column,
                format!("`{}` takes {} argument(s), given {}", function.name, function.arity, args.len()),
            ));
        }
        Ok(Node::Call(function, args))
    }
}

fn binary_op(text: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match text {
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

/// A C integer literal: decimal, `0x` hex, `0b` binary or leading-`0` octal,
/// with optional `u`/`l` suffixes; it must fit in 32 bits.
fn parse_number(text: &str) -> Result<u32, String> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = if let Some(hex) = lower.strip_prefix("0x") {
        (16, hex)
    } else if let Some(bin) = lower.strip_prefix("0b") {
        (2, bin)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    let value = u64::from_str_radix(body, radix).map_err(|_| format!("bad number `{text}`"))?;
    u32::try_from(value).map_err(|_| format!("number `{text}` does not fit in 32 bits"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(src: &str, a: u32, b: u32) -> Result<u32, EvalError> {
        Expr::parse(src).unwrap().eval(a, b)
    }

    #[test]
    fn c_precedence_and_associativity() {
        assert_eq!(eval("1 + 2 * 3", 0, 0), Ok(7));
        assert_eq!(eval("10 - 4 - 3", 0, 0), Ok(3));
        assert_eq!(eval("1 << 2 + 1", 0, 0), Ok(8));
        assert_eq!(eval("a & 0xff == 0xff", 0x1ff, 0), Ok(1), "== binds tighter than &");
        // 1 | (6 ^ (3 & 5)) = 7; left to right it would be 4.
        assert_eq!(eval("1 | 6 ^ 3 & 5", 0, 0), Ok(7));
        assert_eq!(eval("a < b ? 7 : b < a ? 8 : 9", 1, 1), Ok(9));
        assert_eq!(eval("-a", 1, 0), Ok(0xffff_ffff));
        assert_eq!(eval("!a + ~b", 0, 0), Ok(0));
    }

    #[test]
    fn wrapping_and_undefined_corners() {
        assert_eq!(eval("a + b", 0xffff_ffff, 2), Ok(1));
        assert_eq!(eval("a * b", 0x8000_0000, 2), Ok(0));
        assert_eq!(eval("a << 32", 1, 0), Ok(0));
        assert_eq!(eval("a >> b", 0x8000_0000, 31), Ok(1));
        assert_eq!(eval("a / b", 1, 0), Err(EvalError::DivisionByZero));
        assert_eq!(eval("a % b", 1, 0), Err(EvalError::DivisionByZero));
        assert_eq!(eval("b != 0 && a / b", 1, 0), Ok(0), "&& is lazy");
        assert_eq!(eval("b ? a / b : 0", 1, 0), Ok(0), "?: is lazy");
    }

    #[test]
    fn literals_and_functions() {
        assert_eq!(eval("0x10 + 010 + 0b11 + 7u", 0, 0), Ok(16 + 8 + 3 + 7));
        assert_eq!(eval("sext(a, 8)", 0x80, 0), Ok(0xffff_ff80));
        assert_eq!(eval("zext(a, 8)", 0x1234, 0), Ok(0x34));
        assert_eq!(eval("slt(a, b)", 0xffff_ffff, 0), Ok(1));
        assert_eq!(eval("sdiv(a, b)", 0x8000_0000, 0xffff_ffff), Ok(0x8000_0000));
        assert_eq!(eval("sra(a, 40)", 0x8000_0000, 0), Ok(0xffff_ffff));
        assert_eq!(eval("clz(0) + popcount(0xff)", 0, 0), Ok(40));
        assert!(matches!(eval("sext(a, 0)", 1, 0), Err(EvalError::BadArgument(_))));
    }

    #[test]
    fn errors_name_the_column() {
        let e = Expr::parse("a <> b").unwrap_err();
        assert_eq!(e.column, 4);
        assert_eq!(e.to_string(), "bad expression `a <> b`: unexpected `>` at column 4");
        assert!(Expr::parse("c + 1").unwrap_err().message.contains("unknown name `c`"));
        assert!(Expr::parse("(a + b").unwrap_err().message.contains("expected `)`"));
        assert!(Expr::parse("a $ b").unwrap_err().message.contains("unexpected character `$`"));
        assert!(Expr::parse("0x1ffffffff").unwrap_err().message.contains("32 bits"));
        assert!(Expr::parse("frob(a)").unwrap_err().message.contains("unknown function"));
        assert!(Expr::parse("min(a)").unwrap_err().message.contains("takes 2"));
        assert!(Expr::parse_constant("a").unwrap_err().message.contains("constant"));
        assert!(Expr::parse("").unwrap_err().message.contains("found the end"));
    }
}
