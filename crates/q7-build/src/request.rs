//! What a build is asked for and reports ([`BuildRequest`], [`BuildReport`]),
//! how it fails ([`BuildError`]) and who watches it ([`Observer`]): the
//! vocabulary the driver, the incremental steps, the IR compile and the
//! native run share, below all of them.

use std::path::{Path, PathBuf};

use crate::builddir::BuildDirError;
use crate::exec::ExecError;
use crate::schema::SchemaError;
use crate::sdk::SdkError;
use crate::toolchain::Toolchain;
use crate::wrapper::WrapperError;

pub use crate::observer::{Observer, Quiet};

/// Which toolchain the caller asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToolchainChoice {
    /// `xtensa-tools` when `xt-clang++` is found, else `open`.
    #[default]
    Auto,
    XtensaTools,
    Open,
}

/// Everything `q7 build` needs (the arguments of `compile()`).
#[derive(Clone, Debug, Default)]
pub struct BuildRequest {
    /// Library name; its extension, if any, is dropped (`librelu.so` → `librelu`).
    pub name: String,
    pub functions: Vec<String>,
    pub schemas: Vec<String>,
    pub sources: Vec<PathBuf>,
    pub build_dir: PathBuf,
    pub includes: Vec<PathBuf>,
    pub cflags: Vec<String>,
    pub multicore: bool,
    pub toolchain: ToolchainChoice,
    /// Parallel jobs (at least 1).
    pub jobs: usize,
}

/// What the build made and how much work it did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BuildReport {
    pub toolchain: Option<Toolchain>,
    /// The linked images, one per window.
    pub libraries: Vec<PathBuf>,
    pub stripped: Vec<PathBuf>,
    pub packed: Vec<PathBuf>,
    pub wrapper: PathBuf,
    /// Steps run and steps found up to date.
    pub steps_run: usize,
    pub steps_skipped: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("Could not find {0}")]
    ToolMissing(String),
    #[error("Cant find source file {0}")]
    MissingSource(String),
    #[error("{0}: is a directory, not a source file")]
    SourceIsDirectory(String),
    #[error("{0}: a source whose name starts with `@` is read by clang as a response file of options; rename it")]
    ResponseFileName(String),
    #[error("no source files: give the op's .cpp/.c/.S files")]
    NoSources,
    #[error("{0}: not a C, C++ or assembly source (.c .cpp .cc .cxx .S)")]
    UnknownLanguage(String),
    #[error("sources {0} and {1} would both compile to {2}")]
    ObjectClash(String, String, String),
    #[error("{path}: the build would overwrite this source with its generated {generated}; build into another directory or rename the source")]
    SourceOverwritten { path: String, generated: String },
    #[error(transparent)]
    Schema(#[from] SchemaError),
    #[error(transparent)]
    Wrapper(#[from] WrapperError),
    #[error("Error compiling {src}: {error}")]
    Compile { src: String, error: ExecError },
    /// A construct the open profile cannot compile correctly (one line).
    #[error("{src}: {reason}")]
    Refused { src: String, reason: String },
    #[error("Error linking {lib}: {error}")]
    Link { lib: String, error: ExecError },
    #[error("Error packing {lib}: {error}")]
    Pack { lib: String, error: String },
    #[error(transparent)]
    Sdk(#[from] SdkError),
    // The message carries the cause (not a `source` too: a chained report
    // would print it twice).
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("library name '{0}' is empty or not a plain file name")]
    BadName(String),
    #[error(transparent)]
    BuildDir(#[from] BuildDirError),
}

/// Opens (creating) `path` and waits for an exclusive lock on it; the lock
/// lasts as long as the returned file.
pub(crate) fn lock_file(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
    file.lock()?;
    Ok(file)
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |error| BuildError::Io { path: path.display().to_string(), error }
}

pub(crate) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// One compile job: a source and the object it makes.
pub(crate) struct Unit {
    pub(crate) src: PathBuf,
    pub(crate) obj: PathBuf,
}
