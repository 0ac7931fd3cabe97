use std::fmt;
use std::io::Write;

/// The `-v` narration: one line per event, written to the caller's sink.
/// A sink that fails (a closed stderr) does not stop the packing.
pub struct Log<'a> {
    sink: &'a mut dyn Write,
}

impl<'a> Log<'a> {
    pub fn new(sink: &'a mut dyn Write) -> Log<'a> {
        Log { sink }
    }

    pub fn line(&mut self, args: fmt::Arguments) {
        let _ = writeln!(self.sink, "{args}");
    }
}
