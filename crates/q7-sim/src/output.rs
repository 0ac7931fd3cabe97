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

/// Console state of a machine.
pub struct Output {
    mode: OutputMode,
    /// Partial lines per core and stream (index fd - 1).
    pending: Vec<[Vec<u8>; 2]>,
    /// Everything written, as delivered (with prefixes).
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Output {
    pub fn new(cores: usize, mode: OutputMode) -> Output {
        Output {
            mode,
            pending: (0..cores).map(|_| [Vec::new(), Vec::new()]).collect(),
            stdout: Vec::new(),
            stderr: Vec::new(),
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
            if b == b'\n' {
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
        if stream == 1 {
            self.stderr.extend_from_slice(bytes);
            if self.mode.stream {
                let _ = std::io::stderr().write_all(bytes);
            }
        } else {
            self.stdout.extend_from_slice(bytes);
            if self.mode.stream {
                let mut out = std::io::stdout();
                let _ = out.write_all(bytes);
                let _ = out.flush();
            }
        }
    }
}
