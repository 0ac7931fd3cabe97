//! Where the cores' `write` simcalls go: streamed to the host's stdout/stderr
//! or captured, optionally line-buffered with a `[core N] ` prefix so the
//! output of eight cores stays readable when interleaved.

use std::io::Write;

/// How console output is delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputMode {
    /// Prefix each line with `[core N] `.
    pub prefix: bool,
    /// Write through to the host's stdout/stderr (else only capture).
    pub stream: bool,
}

/// Captured console output kept per stream; the rest is counted in
/// [`Output::dropped`] (an op printing in a loop must not exhaust memory).
pub const CAPTURE_LIMIT: usize = 1 << 20;
/// A line longer than this is delivered in pieces, each prefixed.
pub const MAX_LINE: usize = 4096;

/// Console state of a machine.
#[derive(Clone)]
pub struct Output {
    mode: OutputMode,
    /// Partial lines per core and stream (index fd - 1).
    pending: Vec<[Vec<u8>; 2]>,
    /// Everything written, as delivered (with prefixes).
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Bytes not captured because a stream reached [`CAPTURE_LIMIT`].
    pub dropped: u64,
}

impl Output {
    pub fn new(cores: usize, mode: OutputMode) -> Output {
        Output {
            mode,
            pending: (0..cores).map(|_| [Vec::new(), Vec::new()]).collect(),
            stdout: Vec::new(),
            stderr: Vec::new(),
            dropped: 0,
        }
    }

    /// Bytes `core` wrote to `fd` (1 or 2; anything else counts as 1).
    pub fn write(&mut self, core: usize, fd: u32, bytes: &[u8]) {
        let stream = usize::from(fd == 2);
        if !self.mode.prefix {
            self.deliver(stream, bytes);
            return;
        }
        let mut pending = std::mem::take(&mut self.pending[core][stream]);
        for &b in bytes {
            pending.push(b);
            if b == b'\n' || pending.len() >= MAX_LINE {
                if b != b'\n' {
                    pending.push(b'\n');
                }
                let mut line = format!("[core {core}] ").into_bytes();
                line.extend_from_slice(&pending);
                self.deliver(stream, &line);
                pending.clear();
            }
        }
        self.pending[core][stream] = pending;
    }

    /// Emits unterminated lines (at the end of a run).
    pub fn flush(&mut self) {
        for core in 0..self.pending.len() {
            for stream in 0..2 {
                let rest = std::mem::take(&mut self.pending[core][stream]);
                if !rest.is_empty() {
                    let mut line = format!("[core {core}] ").into_bytes();
                    line.extend_from_slice(&rest);
                    line.push(b'\n');
                    self.deliver(stream, &line);
                }
            }
        }
    }

    fn deliver(&mut self, stream: usize, bytes: &[u8]) {
        let captured = if stream == 1 { &mut self.stderr } else { &mut self.stdout };
        let room = CAPTURE_LIMIT.saturating_sub(captured.len()).min(bytes.len());
        captured.extend_from_slice(&bytes[..room]);
        self.dropped += (bytes.len() - room) as u64;
        if stream == 1 {
            if self.mode.stream {
                let _ = std::io::stderr().write_all(bytes);
            }
        } else if self.mode.stream {
            let mut out = std::io::stdout();
            let _ = out.write_all(bytes);
            let _ = out.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_is_capped_and_long_lines_split() {
        let mut out = Output::new(1, OutputMode { prefix: true, stream: false });
        let chunk = vec![b'x'; 1000];
        for _ in 0..2000 {
            out.write(0, 1, &chunk);
        }
        out.flush();
        assert_eq!(out.stdout.len(), CAPTURE_LIMIT);
        let prefix = "[core 0] ".len() as u64 + 1;
        let lines = 2_000_000u64.div_ceil(MAX_LINE as u64);
        assert_eq!(out.dropped + CAPTURE_LIMIT as u64, 2_000_000 + lines * prefix);
        assert!(out.stdout.starts_with(b"[core 0] xxx"));
        assert_eq!(out.stdout.iter().position(|&b| b == b'\n'), Some("[core 0] ".len() + MAX_LINE));
    }
}
