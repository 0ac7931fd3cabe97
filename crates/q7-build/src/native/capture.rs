//! What q7 keeps of a host run's output: the first and the last bytes, and
//! how many there were in all. An op printing without end streams through
//! (when asked) without growing q7.

use std::io::{Read, Write};
use std::thread::JoinHandle;

/// A stream's bounded copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Kept {
    pub head: Vec<u8>,
    /// The last bytes after `head` (empty while everything fits in `head`).
    pub tail: Vec<u8>,
    /// Bytes the stream carried in all.
    pub total: u64,
}

impl Kept {
    /// Bytes neither in `head` nor in `tail`.
    pub fn cut(&self) -> u64 {
        self.total - (self.head.len() + self.tail.len()) as u64
    }

    /// Head and tail, with a line saying how much is missing between them.
    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if self.cut() > 0 {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("[q7: {} bytes of output cut here]\n", self.cut()));
        }
        text.push_str(&String::from_utf8_lossy(&self.tail));
        text
    }
}

/// Keeps the first `head` and the last `tail` bytes pushed into it.
struct Keeper {
    kept: Kept,
    head: usize,
    tail: usize,
}

impl Keeper {
    fn push(&mut self, mut bytes: &[u8]) {
        self.kept.total += bytes.len() as u64;
        let room = self.head - self.kept.head.len();
        if room > 0 {
            let n = room.min(bytes.len());
            self.kept.head.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
        }
        let tail = &mut self.kept.tail;
        tail.extend_from_slice(bytes);
        // Trimmed only once twice the size, so each byte is moved O(1) times.
        if tail.len() > 2 * self.tail.max(1) {
            tail.drain(..tail.len() - self.tail);
        }
    }

    fn finish(mut self) -> Kept {
        let tail = &mut self.kept.tail;
        if tail.len() > self.tail {
            tail.drain(..tail.len() - self.tail);
        }
        self.kept
    }
}

/// Reads `from` to its end on a thread of its own, copying each chunk to
/// `echo` (until that fails: the reader went away) and keeping `head` and
/// `tail` bytes.
pub(crate) fn spawn(
    mut from: impl Read + Send + 'static,
    mut echo: Option<Box<dyn Write + Send>>,
    head: usize,
    tail: usize,
) -> JoinHandle<Kept> {
    std::thread::spawn(move || {
        let mut keeper = Keeper { kept: Kept::default(), head, tail };
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            if let Some(out) = echo.as_mut() {
                if out.write_all(&buf[..n]).and_then(|()| out.flush()).is_err() {
                    echo = None;
                }
            }
            keeper.push(&buf[..n]);
        }
        keeper.finish()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(chunks: &[&[u8]], head: usize, tail: usize) -> Kept {
        let mut k = Keeper { kept: Kept::default(), head, tail };
        for c in chunks {
            k.push(c);
        }
        k.finish()
    }

    #[test]
    fn short_output_is_kept_whole() {
        let k = keep(&[b"ab", b"cd"], 8, 8);
        assert_eq!((k.head.as_slice(), k.tail.as_slice(), k.total, k.cut()), (&b"abcd"[..], &b""[..], 4, 0));
        assert_eq!(k.text(), "abcd");
    }

    #[test]
    fn long_output_keeps_its_ends_and_counts_the_rest() {
        let lines: Vec<String> = (0..1000).map(|i| format!("line {i}\n")).collect();
        let chunks: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
        let all: Vec<u8> = lines.concat().into_bytes();
        let k = keep(&chunks, 100, 50);
        assert_eq!(k.head, all[..100]);
        assert_eq!(k.tail, all[all.len() - 50..]);
        assert_eq!(k.total, all.len() as u64);
        assert_eq!(k.cut(), all.len() as u64 - 150);
        assert!(k.text().contains(&format!("\n[q7: {} bytes of output cut here]\n", k.cut())));
        assert!(k.text().ends_with("line 999\n"));
    }

    #[test]
    fn the_reader_echoes_everything_and_keeps_its_bound() {
        let data: Vec<u8> = (0..200_000u32).flat_map(|i| (i as u8).to_le_bytes()).collect();
        let echoed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Sink {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let k =
            spawn(std::io::Cursor::new(data.clone()), Some(Box::new(Sink(echoed.clone()))), 1000, 1000).join().unwrap();
        assert_eq!(*echoed.lock().unwrap(), data);
        assert_eq!((k.head.len(), k.tail.len(), k.total), (1000, 1000, data.len() as u64));
    }
}
