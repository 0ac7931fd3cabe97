//! The flat container (docs/FORMATS.md, "Embedded-image containers"): `[JSON header | ELF image]` items back
//! to back, optionally separated by whitespace or NUL padding. A JSON value
//! ends where its closing bracket does; an image where its header says.

use serde::Serialize;
use serde_json::Value;

use super::Hit;
use crate::roster::manifest::Header;

#[derive(Clone, Debug, Serialize)]
pub struct FlatScan {
    pub items: Vec<FlatItem>,
    /// Why the walk stopped before the end of the file, if it did.
    pub stopped: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FlatItem {
    Header { offset: u64, len: u64, header: Header },
    Image { offset: u64, size: u64, hit: usize, image: Option<usize> },
}

impl FlatScan {
    /// `(offset, size)` of every image item.
    pub fn images(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.items.iter().filter_map(|i| match i {
            FlatItem::Image { offset, size, .. } => Some((*offset, *size)),
            FlatItem::Header { .. } => None,
        })
    }

    /// Each image with the header item just before it.
    pub fn pairs(&self) -> Vec<(Option<&Header>, &FlatItem)> {
        let mut out = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            if let FlatItem::Image { .. } = item {
                let header = match i.checked_sub(1).map(|p| &self.items[p]) {
                    Some(FlatItem::Header { header, .. }) => Some(header),
                    _ => None,
                };
                out.push((header, item));
            }
        }
        out
    }
}

fn is_padding(b: u8) -> bool {
    matches!(b, 0 | b' ' | b'\n' | b'\r' | b'\t')
}

/// A flat container starts (after padding) with a JSON object.
pub(crate) fn looks_flat(data: &[u8]) -> bool {
    // NUL padding (a zero-filled file) is skipped a block at a time.
    let zeros = data.chunks_exact(64).take_while(|c| c.iter().all(|&b| b == 0)).count() * 64;
    data[zeros..].iter().find(|&&b| !is_padding(b)) == Some(&b'{')
}

pub(crate) fn scan(data: &[u8], hits: &[Hit]) -> FlatScan {
    let mut items = Vec::new();
    let mut pos = 0usize;
    let stopped = loop {
        while pos < data.len() && is_padding(data[pos]) {
            pos += 1;
        }
        if pos >= data.len() {
            break None;
        }
        let rest = &data[pos..];
        if rest[0] == b'{' || rest[0] == b'[' {
            let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
            match stream.next() {
                Some(Ok(v)) => {
                    let len = stream.byte_offset();
                    items.push(FlatItem::Header {
                        offset: pos as u64,
                        len: len as u64,
                        header: Header::from_value(&v),
                    });
                    pos += len;
                }
                Some(Err(e)) => break Some(format!("JSON at {pos:#x} does not parse: {e}")),
                None => break None,
            }
        } else if rest.starts_with(super::ELF_MAGIC) {
            // Hits are in file order.
            let Ok(i) = hits.binary_search_by_key(&(pos as u64), |h| h.offset) else {
                break Some(format!("ELF at {pos:#x} was not seen by the magic scan"));
            };
            let hit = &hits[i];
            match (hit.size, &hit.size_note) {
                (Some(size), None) => {
                    items.push(FlatItem::Image { offset: pos as u64, size, hit: i, image: hit.image });
                    pos += size as usize;
                }
                (_, note) => {
                    break Some(format!("ELF at {pos:#x} has no usable size ({})", note.as_deref().unwrap_or("?")))
                }
            }
        } else {
            break Some(format!("byte {:#04x} at {pos:#x} starts neither JSON nor an ELF image", rest[0]));
        }
    };
    FlatScan { items, stopped }
}

#[cfg(test)]
mod tests {
    use super::looks_flat;

    #[test]
    fn padding_of_any_length_before_the_first_json_value() {
        for zeros in [0, 1, 63, 64, 65, 200] {
            let mut data = vec![0u8; zeros];
            assert!(!looks_flat(&data), "{zeros} zeros alone");
            data.extend_from_slice(b" \n\t{}");
            assert!(looks_flat(&data), "{zeros} zeros, then JSON");
            data[zeros + 3] = b'x';
            assert!(!looks_flat(&data), "{zeros} zeros, then not JSON");
        }
    }
}
