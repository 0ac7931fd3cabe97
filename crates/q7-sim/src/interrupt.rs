//! Stopping a run from outside: the machine asks an [`Interrupt`] between
//! scheduling rounds (every few tens of thousands of instructions, well under
//! a millisecond), so Ctrl-C takes effect at once rather than when a budget
//! runs out. Front ends make their own: the CLI from SIGINT/SIGTERM
//! ([`ctrl_c`]), Python from `PyErr_CheckSignals`.

use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Arc, Once};

/// Asked between rounds whether the run should stop.
#[derive(Clone)]
pub struct Interrupt(Arc<dyn Fn() -> bool + Send + Sync>);

impl Interrupt {
    pub fn new(requested: impl Fn() -> bool + Send + Sync + 'static) -> Interrupt {
        Interrupt(Arc::new(requested))
    }

    pub fn requested(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Interrupt")
    }
}

/// Guards alive; while none is, a signal keeps its default action.
static ARMED: AtomicUsize = AtomicUsize::new(0);
/// The signal received while armed (0: none).
static PENDING: AtomicI32 = AtomicI32::new(0);
static INSTALL: Once = Once::new();

/// While the returned guard lives, the first SIGINT or SIGTERM asks the run
/// to stop (the returned [`Interrupt`] reports it) and a second one ends the
/// process as if q7 had no handler. Outside a guard, both act as by default,
/// so Ctrl-C still ends a build or a report at once.
pub fn ctrl_c() -> (CtrlCGuard, Interrupt) {
    INSTALL.call_once(install);
    PENDING.store(0, Ordering::SeqCst);
    ARMED.fetch_add(1, Ordering::SeqCst);
    (CtrlCGuard(()), Interrupt::new(|| PENDING.load(Ordering::Relaxed) != 0))
}

/// The signal that interrupted the last guarded run, if any (for the exit
/// status a shell expects: 128 + the signal).
pub fn received() -> Option<i32> {
    match PENDING.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Forgets the signal received (a debugger, whose every command may be
/// interrupted, clears it after each).
pub fn clear() {
    PENDING.store(0, Ordering::SeqCst);
}

/// See [`ctrl_c`].
pub struct CtrlCGuard(());

impl Drop for CtrlCGuard {
    fn drop(&mut self) {
        ARMED.fetch_sub(1, Ordering::SeqCst);
    }
}

#[allow(unsafe_code)]
extern "C" fn on_signal(signal: libc::c_int) {
    if ARMED.load(Ordering::SeqCst) > 0
        && PENDING.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    {
        return;
    }
    // SAFETY: `signal` and `raise` are async-signal-safe; restoring the
    // default and raising again ends the process as an unhandled signal would.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

#[allow(unsafe_code)]
fn install() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction with a plain handler and an empty mask
        // is valid; the handler only touches atomics and async-signal-safe calls.
        unsafe {
            // A signal the parent set to be ignored (nohup, a background
            // job) stays ignored.
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut old);
            if old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}
