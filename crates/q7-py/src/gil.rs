//! Taking the GIL back, safely while the interpreter exits.
//!
//! A run or build releases the GIL. When the main thread leaves while a
//! daemon thread is in one, that thread must not take the GIL again:
//! during finalization CPython ends it inside the acquisition (pthread_exit,
//! a forced unwind through Rust frames), and once the interpreter is gone
//! pyo3 panics, which aborts the process. So q7 registers an `atexit` handler (atexit handlers run before
//! finalization begins). From then on no other thread takes the GIL: a
//! poll through [`with_gil`] gets `None`, and a thread leaving
//! [`allow_threads`] sleeps until the process ends, as CPython 3.14 itself
//! does with such threads. The handler waits for threads already taking
//! the GIL, so none is caught halfway.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::ThreadId;

use pyo3::prelude::*;

struct State {
    /// The thread that ran the atexit handler (it may go on calling q7).
    exiting: Option<ThreadId>,
    /// Threads between announcing an acquisition and releasing the GIL.
    taking: usize,
}

static STATE: Mutex<State> = Mutex::new(State { exiting: None, taking: 0 });
static RELEASED: Condvar = Condvar::new();

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// One thread's acquisition in progress; dropped once it holds no GIL or
/// (for [`allow_threads`]) holds it again as its caller did.
struct Taking;

impl Taking {
    /// None once the interpreter exits, for every thread but the exiting one.
    fn begin() -> Option<Taking> {
        let mut state = state();
        match state.exiting {
            Some(thread) if thread != std::thread::current().id() => None,
            _ => {
                state.taking += 1;
                Some(Taking)
            }
        }
    }
}

impl Drop for Taking {
    fn drop(&mut self) {
        state().taking -= 1;
        RELEASED.notify_all();
    }
}

/// `f` with the GIL, from a thread that does not hold it; `None` (and `f`
/// not called) once the interpreter is exiting.
pub fn with_gil<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    let _taking = Taking::begin()?;
    Some(Python::with_gil(f))
}

/// `py.allow_threads(f)`, except that a thread whose interpreter began
/// exiting while `f` ran never takes the GIL back: it sleeps until the
/// process ends (its result is of no one's use by then).
pub fn allow_threads<T: Send, F: Send + FnOnce() -> T>(py: Python<'_>, f: F) -> T {
    let (value, _taking) = py.allow_threads(|| {
        let value = f();
        match Taking::begin() {
            Some(taking) => (value, taking),
            None => loop {
                std::thread::park();
            },
        }
    });
    value
}

/// The atexit handler: no thread but this one takes the GIL from now on.
#[pyfunction]
pub fn interpreter_exits(py: Python<'_>) {
    // Without the GIL: a thread counted in `taking` may be waiting for it.
    py.allow_threads(|| {
        let mut state = state();
        state.exiting = Some(std::thread::current().id());
        while state.taking > 0 {
            state = RELEASED.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    });
}
