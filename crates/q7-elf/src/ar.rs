//! Reading `ar` archives (static libraries such as `libq7sdk.a`, and the
//! host-side `lib<name>.so` archive torch-neuronx builds): the members, by
//! name, as borrowed byte ranges.
//!
//! The format: the magic `!<arch>\n`, then per member a 60-byte header
//! (name 16, date 12, uid 6, gid 6, mode 8, size 10 as ASCII decimal, then
//! the two bytes `` `\n``) and `size` bytes of data padded to an even offset.
//! Names follow GNU (`name/`; `/123` = offset 123 into the `//` long-name
//! table) or BSD (`#1/N`: the name is the first N data bytes) conventions;
//! the symbol tables (`/`, `/SYM64/`, `__.SYMDEF*`) and the name table are
//! not members. Thin archives (`!<thin>\n`, data kept in other files) are
//! refused. Every problem is an [`ArError`] naming the member and offset.

use std::borrow::Cow;

/// The first bytes of a (regular) archive.
pub const AR_MAGIC: &[u8; 8] = b"!<arch>\n";
const THIN_MAGIC: &[u8; 8] = b"!<thin>\n";
const HEADER_LEN: usize = 60;

/// Whether `data` is an `ar` archive (regular or thin).
pub fn is_archive(data: &[u8]) -> bool {
    data.starts_with(AR_MAGIC) || data.starts_with(THIN_MAGIC)
}

/// One member: its name and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    pub name: Cow<'a, str>,
    /// Offset of the member's header in the archive.
    pub offset: usize,
    /// Offset of `data` in the archive.
    pub data_offset: usize,
    pub data: &'a [u8],
}

/// Why bytes are not a readable archive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArError {
    #[error("not an ar archive (no `!<arch>` magic)")]
    NotArchive,
    #[error("thin ar archive: its members are separate files, not stored in it")]
    Thin,
    #[error("ar member header at {offset:#x}: {problem}")]
    BadHeader { offset: usize, problem: String },
    #[error("ar member `{name}` at {offset:#x}: {problem}")]
    BadMember { name: String, offset: usize, problem: String },
}

/// The members of the archive `data`, in order.
pub fn members(data: &[u8]) -> Result<Vec<Member<'_>>, ArError> {
    if data.starts_with(THIN_MAGIC) {
        return Err(ArError::Thin);
    }
    if !data.starts_with(AR_MAGIC) {
        return Err(ArError::NotArchive);
    }
    let mut out = Vec::new();
    let mut long_names: &[u8] = &[];
    let mut pos = AR_MAGIC.len();
    while pos < data.len() {
        // Some writers pad the archive's end with a newline.
        if data[pos..].iter().all(|&b| b == b'\n') {
            break;
        }
        let bad = |problem: &str| ArError::BadHeader { offset: pos, problem: problem.to_string() };
        let header = data.get(pos..pos + HEADER_LEN).ok_or_else(|| bad("truncated (a header is 60 bytes)"))?;
        if &header[58..60] != b"`\n" {
            return Err(bad("missing the `\\n terminator"));
        }
        let size = ascii_number(&header[48..58]).ok_or_else(|| bad("size is not a decimal number"))?;
        let start = pos + HEADER_LEN;
        let body = start.checked_add(size).filter(|&end| end <= data.len()).map(|end| &data[start..end]);
        let raw_name = ascii_field(&header[..16]);
        let body = body.ok_or_else(|| ArError::BadMember {
            name: raw_name.to_string(),
            offset: pos,
            problem: format!("{size} bytes of data run past the end of the archive ({} bytes)", data.len()),
        })?;
        let next = start + size + size % 2;
        match raw_name {
            "/" | "/SYM64/" | "__.SYMDEF" | "__.SYMDEF SORTED" => {}
            "//" => long_names = body,
            _ => out.push(member(raw_name, pos, body, long_names)?),
        }
        pos = next;
    }
    Ok(out)
}

/// Resolves a member's name and strips a BSD name from its data.
fn member<'a>(raw: &'a str, offset: usize, body: &'a [u8], long_names: &'a [u8]) -> Result<Member<'a>, ArError> {
    let bad = |problem: String| ArError::BadMember { name: raw.to_string(), offset, problem };
    if let Some(len) = raw.strip_prefix("#1/") {
        let len: usize = len.parse().map_err(|_| bad("BSD name length is not a number".into()))?;
        let name = body.get(..len).ok_or_else(|| bad(format!("BSD name of {len} bytes is longer than the data")))?;
        let name = String::from_utf8_lossy(name);
        let name = Cow::Owned(name.trim_end_matches('\0').to_string());
        return Ok(Member { name, offset, data_offset: offset + HEADER_LEN + len, data: &body[len..] });
    }
    if let Some(index) = raw.strip_prefix('/') {
        let index: usize = index.parse().map_err(|_| bad("long-name reference is not a number".into()))?;
        let rest =
            long_names.get(index..).ok_or_else(|| bad(format!("long name at {index} is outside the // table")))?;
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let name = String::from_utf8_lossy(&rest[..end]);
        let name = name.strip_suffix('/').unwrap_or(&name).to_string();
        return Ok(Member { name: Cow::Owned(name), offset, data_offset: offset + HEADER_LEN, data: body });
    }
    let name = Cow::Borrowed(raw.strip_suffix('/').unwrap_or(raw));
    Ok(Member { name, offset, data_offset: offset + HEADER_LEN, data: body })
}

/// A space-padded ASCII header field.
fn ascii_field(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or("?").trim_end_matches(' ')
}

fn ascii_number(bytes: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(bytes).ok()?.trim_end_matches(' ');
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, size: usize) -> Vec<u8> {
        let text = format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644);
        assert_eq!(text.len(), HEADER_LEN);
        text.into_bytes()
    }

    fn archive(parts: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = AR_MAGIC.to_vec();
        for (name, data) in parts {
            out.extend(header(name, data.len()));
            out.extend_from_slice(data);
            if data.len() % 2 == 1 {
                out.push(b'\n');
            }
        }
        out
    }

    #[test]
    fn gnu_short_long_and_symbol_table_names() {
        let names = b"a_rather_long_member_name.o/\n";
        let data = archive(&[("/", b"\0\0\0\0"), ("//", names), ("short.o/", b"abc"), ("/0", b"xy")]);
        let list = members(&data).unwrap();
        let got: Vec<(&str, &[u8])> = list.iter().map(|m| (&*m.name, m.data)).collect();
        assert_eq!(got, [("short.o", &b"abc"[..]), ("a_rather_long_member_name.o", &b"xy"[..])]);
    }

    #[test]
    fn bsd_names_are_taken_from_the_data() {
        let data = archive(&[("#1/8", b"bcmp.o\0\0CODE")]);
        let list = members(&data).unwrap();
        assert_eq!((&*list[0].name, list[0].data), ("bcmp.o", &b"CODE"[..]));
        assert_eq!(&data[list[0].data_offset..][..4], b"CODE");
    }

    #[test]
    fn malformed_archives_are_one_line_errors() {
        assert_eq!(members(b"!<thin>\n"), Err(ArError::Thin));
        assert_eq!(members(b"hello"), Err(ArError::NotArchive));
        let mut data = archive(&[("x.o/", b"abcd")]);
        data.truncate(data.len() - 1);
        let error = members(&data).unwrap_err().to_string();
        assert!(error.contains("`x.o/`") && error.contains("past the end"), "{error}");
        let mut data = archive(&[("x.o/", b"abcd")]);
        data[8 + 48] = b'z';
        assert!(members(&data).unwrap_err().to_string().contains("size is not a decimal"));
        assert!(members(&data[..20]).unwrap_err().to_string().contains("truncated"));
        assert_eq!(members(AR_MAGIC).unwrap(), []);
    }
}
