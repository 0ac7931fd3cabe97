//! `q7 build`'s progress line on a terminal: `PHASE [=====>    ] POS/LEN
//! STEP`, redrawn in place, with whole lines printed above it.
//!
//! Written here rather than taken from a progress-bar crate: the one q7 used
//! pulled in libm (its rate estimator), and loading one more shared library
//! is a measurable part of every q7 process's start.

use std::sync::Mutex;

use console::Term;

const BAR_WIDTH: usize = 30;

#[derive(Default)]
struct State {
    prefix: String,
    len: u64,
    pos: u64,
    message: String,
    /// Whether the line is on the terminal (so that a printed line clears it).
    drawn: bool,
}

/// A progress line on stderr; every method redraws it.
pub struct Progress {
    term: Term,
    state: Mutex<State>,
}

impl Progress {
    /// A progress line when stderr is a terminal.
    pub fn on_terminal() -> Option<Progress> {
        let term = Term::stderr();
        term.is_term().then(|| Progress { term, state: Mutex::new(State::default()) })
    }

    /// A new phase of `len` steps.
    pub fn phase(&self, prefix: &str, len: u64) {
        self.update(|s| {
            s.prefix = prefix.to_string();
            (s.len, s.pos) = (len, 0);
        });
    }

    /// One step done, named `message`.
    pub fn step(&self, message: String) {
        self.update(|s| {
            s.message = message;
            s.pos += 1;
        });
    }

    /// `line` above the progress line.
    pub fn println(&self, line: &str) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self.clear(&mut state).and_then(|()| self.term.write_line(line));
        let _ = self.draw(&mut state);
    }

    /// Takes the progress line off the terminal.
    pub fn finish_and_clear(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self.clear(&mut state);
    }

    fn update(&self, change: impl FnOnce(&mut State)) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        change(&mut state);
        let _ = self.draw(&mut state);
    }

    fn clear(&self, state: &mut State) -> std::io::Result<()> {
        if std::mem::take(&mut state.drawn) {
            self.term.clear_line()?;
        }
        Ok(())
    }

    fn draw(&self, state: &mut State) -> std::io::Result<()> {
        let line = render(state);
        // One column short of the width, so the line never wraps.
        let width = usize::from(self.term.size().1).saturating_sub(1);
        self.term.clear_line()?;
        self.term.write_str(&console::truncate_str(&line, width, ""))?;
        self.term.flush()?;
        state.drawn = true;
        Ok(())
    }
}

/// `PHASE [=====>    ] POS/LEN MESSAGE`.
fn render(s: &State) -> String {
    let filled = if s.len == 0 { 0 } else { (s.pos.min(s.len) as usize * BAR_WIDTH) / s.len as usize };
    let head = if filled < BAR_WIDTH && s.pos > 0 { ">" } else { "" };
    let rest = BAR_WIDTH - filled - head.len();
    format!("{:>8} [{}{head}{}] {}/{} {}", s.prefix, "=".repeat(filled), " ".repeat(rest), s.pos, s.len, s.message)
}

#[cfg(test)]
mod tests {
    use super::{render, State};

    #[test]
    fn the_line_shows_phase_bar_count_and_step() {
        let mut s = State { prefix: "compile".into(), len: 4, ..State::default() };
        assert_eq!(render(&s), format!(" compile [{}] 0/4 ", " ".repeat(30)));
        s.pos = 1;
        s.message = "relu.cpp".into();
        assert_eq!(render(&s), format!(" compile [{}>{}] 1/4 relu.cpp", "=".repeat(7), " ".repeat(22)));
        s.pos = 4;
        assert_eq!(render(&s), format!(" compile [{}] 4/4 relu.cpp", "=".repeat(30)));
    }
}
