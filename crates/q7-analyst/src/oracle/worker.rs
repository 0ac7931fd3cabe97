//! The child side of the oracle: loads the library, resolves the leaves and
//! calls them on the pairs it reads from stdin. It runs in its own process
//! (the `q7` binary re-executed with a hidden subcommand), so whatever a leaf
//! does to its address space cannot take the analysis down with it.
//!
//! Protocol, one line per message, written to the original stdout:
//!   `symbol <i> <offset-hex or ?>` for every leaf, then `ready`;
//!   `result <leaf> <status> <value>` after each call (flushed at once, so
//!   the parent can tell which call a crash interrupted);
//!   `error <message>` when the library or a symbol cannot be loaded.
//! Input lines are `<a> <b>` in decimal; end of input ends the run.
#![allow(unsafe_code)] // dlopen/dlsym, calling the leaves, and the child's raw descriptors

use std::ffi::{c_int, c_uint, c_void, CStr, CString};
use std::fs::File;
use std::io::{BufRead, Write};
use std::os::fd::FromRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The leaf ABI of docs/FACTS.md, "Value oracle": `int leaf(void *state, unsigned a, unsigned b,
/// unsigned *result)`.
type LeafFn = unsafe extern "C" fn(*mut c_void, c_uint, c_uint, *mut c_uint) -> c_int;

/// Exit status of a worker that reported an `error` line.
pub const EXIT_LOAD_ERROR: i32 = 3;

/// Runs the worker until stdin ends. Returns the process exit status.
pub fn serve(library: &Path, symbols: &[String], timeout_secs: u32) -> i32 {
    // SAFETY: plain libc calls on this process's own descriptors and limits.
    let protocol_fd = unsafe {
        // A crashing leaf must not leave core files behind.
        let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        // Keep the protocol on a private copy of stdout and point fd 1 at
        // stderr, so a leaf that prints cannot corrupt the protocol.
        let fd = libc::dup(1);
        libc::dup2(2, 1);
        fd
    };
    if protocol_fd < 0 {
        return EXIT_LOAD_ERROR;
    }
    // SAFETY: `protocol_fd` is a fresh descriptor that nothing else owns.
    let mut protocol = std::io::BufWriter::new(unsafe { File::from_raw_fd(protocol_fd) });
    match load(library, symbols) {
        Ok(leaves) => {
            for (i, (_, offset)) in leaves.iter().enumerate() {
                let offset = offset.map_or("?".to_string(), |o| format!("{o:x}"));
                let _ = writeln!(protocol, "symbol {i} {offset}");
            }
            let _ = writeln!(protocol, "ready");
            let _ = protocol.flush();
            let functions: Vec<LeafFn> = leaves.iter().map(|(f, _)| *f).collect();
            call_each_input(&functions, timeout_secs, &mut protocol)
        }
        Err(message) => {
            let _ = writeln!(protocol, "error {}", message.replace('\n', " "));
            let _ = protocol.flush();
            EXIT_LOAD_ERROR
        }
    }
}

fn call_each_input(leaves: &[LeafFn], timeout_secs: u32, protocol: &mut impl Write) -> i32 {
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return 1 };
        let mut words = line.split_whitespace().map(str::parse::<u32>);
        let (Some(Ok(a)), Some(Ok(b))) = (words.next(), words.next()) else { return 1 };
        for (i, leaf) in leaves.iter().enumerate() {
            let mut value: c_uint = 0;
            // SAFETY: this is the point of the worker: the leaf is foreign
            // code called with the documented ABI. If it faults, this process
            // dies and the parent reports the signal; the alarm turns a hang
            // into SIGALRM the same way.
            let status = unsafe {
                libc::alarm(timeout_secs);
                let status = leaf(std::ptr::null_mut(), a, b, &mut value);
                libc::alarm(0);
                status
            };
            if writeln!(protocol, "result {i} {status} {value}").and_then(|_| protocol.flush()).is_err() {
                return 1;
            }
        }
    }
    0
}

/// Opens the library and resolves every symbol, with each one's offset from
/// the library's load base (the number `nm` prints for it).
fn load(library: &Path, symbols: &[String]) -> Result<Vec<(LeafFn, Option<usize>)>, String> {
    // A bare file name would make dlopen search the library path instead of
    // opening the file the caller named.
    let path = if library.as_os_str().as_bytes().contains(&b'/') {
        library.to_path_buf()
    } else {
        Path::new(".").join(library)
    };
    let c_path =
        CString::new(path.as_os_str().as_bytes()).map_err(|_| "library path contains a NUL byte".to_string())?;
    // SAFETY: dlopen runs the library's constructors; a crash there kills
    // only this worker, and the parent reports it as a crash while loading.
    let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(format!("cannot load {}: {}", library.display(), last_dl_error()));
    }
    let mut leaves = Vec::new();
    for name in symbols {
        let c_name = CString::new(name.as_str()).map_err(|_| format!("symbol `{name}` contains a NUL byte"))?;
        // SAFETY: `handle` is a live dlopen handle and `c_name` a C string.
        let address = unsafe { libc::dlsym(handle, c_name.as_ptr()) };
        if address.is_null() {
            return Err(format!("{} has no symbol `{name}`", library.display()));
        }
        // SAFETY: dladdr only reads the loader's tables for `address`.
        let offset = unsafe {
            let mut info: libc::Dl_info = std::mem::zeroed();
            (libc::dladdr(address, &mut info) != 0 && !info.dli_fbase.is_null())
                .then(|| address as usize - info.dli_fbase as usize)
        };
        // SAFETY: the caller asserts the symbol has the leaf ABI; that is the
        // hypothesis the oracle exists to test, in a process that may die.
        let function: LeafFn = unsafe { std::mem::transmute::<*mut c_void, LeafFn>(address) };
        leaves.push((function, offset));
    }
    Ok(leaves)
}

fn last_dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string owned by libc.
    unsafe {
        let message = libc::dlerror();
        if message.is_null() {
            "unknown error".to_string()
        } else {
            CStr::from_ptr(message).to_string_lossy().into_owned()
        }
    }
}
