//! The `.npy` header: a Python dict literal of exactly `descr`,
//! `fortran_order` and `shape`, read as NumPy reads it (a literal, so a
//! key given twice keeps its last value; any other key, or a value of the
//! wrong type, is an error).

/// The three fields, checked for type.
#[derive(Debug, PartialEq)]
pub(super) struct Header {
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
}

#[derive(Debug, PartialEq)]
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

pub(super) fn parse(text: &str) -> Result<Header, String> {
    let mut entries: Vec<(String, Value)> = Vec::new();
    let mut p = Parser { rest: text.trim() };
    p.expect('{')?;
    while !p.eat('}') {
        let key = p.string()?;
        p.expect(':')?;
        let value = p.value()?;
        entries.retain(|(k, _)| *k != key);
        entries.push((key, value));
        if !p.eat(',') {
            p.expect('}')?;
            break;
        }
    }
    if !p.rest.trim().is_empty() {
        return Err(format!("text after the .npy header's dict: `{}`", p.rest.trim()));
    }
    let mut take = |key: &str| {
        let i = entries.iter().position(|(k, _)| k == key).ok_or_else(|| format!("no '{key}' in the .npy header"))?;
        Ok::<_, String>(entries.remove(i).1)
    };
    let (descr, fortran, shape) = (take("descr")?, take("fortran_order")?, take("shape")?);
    if let Some((extra, _)) = entries.first() {
        return Err(format!("the .npy header has a key '{extra}' besides descr, fortran_order and shape"));
    }
    Ok(Header {
        descr: match descr {
            Value::Str(s) => s,
            other => return Err(format!("'descr' is {other:?}, not a string")),
        },
        fortran_order: match fortran {
            Value::Bool(b) => b,
            other => return Err(format!("'fortran_order' is {other:?}, not True or False")),
        },
        shape: match shape {
            Value::Tuple(dims) => dims,
            other => return Err(format!("'shape' is {other:?}, not a tuple of dimensions")),
        },
    })
}

struct Parser<'a> {
    rest: &'a str,
}

impl Parser<'_> {
    fn eat(&mut self, c: char) -> bool {
        self.rest = self.rest.trim_start();
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("malformed .npy header: `{c}` expected at `{}`", snippet(self.rest)))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.rest = self.rest.trim_start();
        let quote = self.rest.chars().next().filter(|q| *q == '\'' || *q == '"');
        let quote =
            quote.ok_or_else(|| format!("malformed .npy header: a string expected at `{}`", snippet(self.rest)))?;
        let body = &self.rest[1..];
        let end = body.find(quote).ok_or("malformed .npy header: an unterminated string")?;
        self.rest = &body[end + 1..];
        Ok(body[..end].to_string())
    }

    fn value(&mut self) -> Result<Value, String> {
        self.rest = self.rest.trim_start();
        for (word, value) in [("True", true), ("False", false)] {
            if let Some(rest) = self.rest.strip_prefix(word) {
                self.rest = rest;
                return Ok(Value::Bool(value));
            }
        }
        if self.eat('(') {
            let mut dims = Vec::new();
            while !self.eat(')') {
                self.rest = self.rest.trim_start();
                let digits = self.rest.bytes().take_while(u8::is_ascii_digit).count();
                let dim = self.rest[..digits]
                    .parse::<usize>()
                    .map_err(|_| format!("bad dimension at `{}` in the .npy shape", snippet(self.rest)))?;
                self.rest = self.rest[digits..].strip_prefix('L').unwrap_or(&self.rest[digits..]);
                dims.push(dim);
                if !self.eat(',') {
                    self.expect(')')?;
                    break;
                }
            }
            return Ok(Value::Tuple(dims));
        }
        self.string().map(Value::Str)
    }
}

fn snippet(text: &str) -> &str {
    let end = text.char_indices().nth(20).map_or(text.len(), |(i, _)| i);
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_numpy_writes() {
        let h = parse("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }    \n").unwrap();
        assert_eq!(h, Header { descr: "<f4".into(), fortran_order: false, shape: vec![3, 4] });
        assert_eq!(parse("{'descr': '|u1', 'fortran_order': False, 'shape': (7,)}").unwrap().shape, [7]);
        assert_eq!(
            parse("{\"descr\":\"<i8\",\"fortran_order\":True,\"shape\":()}").unwrap().shape,
            Vec::<usize>::new()
        );
        assert_eq!(parse("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L)}").unwrap().shape, [2, 3]);
    }

    #[test]
    fn a_key_given_twice_keeps_its_last_value_as_in_python() {
        let h = parse("{'descr': '<f4', 'shape': (1,), 'fortran_order': False, 'shape': (2, 2)}").unwrap();
        assert_eq!(h.shape, [2, 2]);
    }

    #[test]
    fn wrong_types_extra_keys_and_strings_hiding_keys_are_refused() {
        for (text, why) in [
            ("{'descr': '<f4', 'fortran_order': 'yes', 'shape': (1,)}", "not True or False"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': 1}", "a string expected"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "a string expected"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 'y'}", "a key 'x'"),
            ("{'descr': \"'shape': (9,)\", 'fortran_order': False}", "no 'shape'"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", "bad dimension"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk", "text after"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}
