//! What a first build makes before it compiles the op, made ahead of it
//! (`q7 prepare`, `python -m q7.prepare`): the device SDK archive of the open
//! toolchain and, with `native`, the host SDK of each sanitizer that
//! `q7 run --native` links. Both land in the cache every build looks in
//! (crate::sdk::cache_root), keyed by their sources and compile commands, so
//! they are built once per q7 version and compiler, shared by the CLI and
//! the Python package.

use std::path::{Path, PathBuf};

use crate::driver::{self, BuildError, Observer, ToolchainChoice};
use crate::native::{self, NativeError};
use crate::sdk;
use crate::toolchain::Env;

/// The device SDK's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceSdk {
    /// The vendor's toolchain builds the ops: it brings its own SDK.
    Vendor,
    /// The archive, and whether it is built.
    Open { archive: PathBuf, built: bool },
}

#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Native(#[from] NativeError),
}

/// The cache q7 builds into; `fallback` when no home or cache directory is set.
pub fn cache(env: &dyn Env, fallback: &Path) -> PathBuf {
    sdk::cache_root(env, fallback)
}

/// Where the device SDK is and whether it is built, building nothing.
pub fn device_sdk(env: &dyn Env, cache: &Path) -> Result<DeviceSdk, BuildError> {
    if driver::uses_vendor(env, ToolchainChoice::Auto) {
        return Ok(DeviceSdk::Vendor);
    }
    let setup = driver::open_setup(env, cache)?;
    let (sdk, _) = sdk::locate(&setup, cache)?;
    let built = sdk.archive.exists();
    Ok(DeviceSdk::Open { archive: sdk.archive, built })
}

/// Builds what is missing (the device SDK; with `native` the host SDKs too)
/// with up to `jobs` compiles at once, and says where the device SDK is.
pub fn prepare(
    env: &dyn Env,
    cache: &Path,
    jobs: usize,
    native: bool,
    obs: &dyn Observer,
) -> Result<DeviceSdk, PrepareError> {
    let device = match device_sdk(env, cache)? {
        DeviceSdk::Open { built: false, .. } => {
            let setup = driver::open_setup(env, cache)?;
            let sdk = sdk::ensure(&setup, cache, jobs.max(1), obs).map_err(BuildError::from)?;
            DeviceSdk::Open { archive: sdk.archive, built: true }
        }
        ready => ready,
    };
    if native {
        native::prepare(env, cache, obs)?;
    }
    Ok(device)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::ProcessEnv;

    /// Counts notes; the rest is silent.
    #[derive(Default)]
    struct Notes(std::sync::Mutex<Vec<String>>);

    impl Observer for Notes {
        fn phase(&self, _: &str, _: usize) {}
        fn step(&self, _: &str, _: bool) {}
        fn command(&self, _: &crate::command::Command) {}
        fn note(&self, line: &str) {
            self.0.lock().unwrap().push(line.to_string());
        }
    }

    /// Two at once (the CLI and Python's background build): one builds,
    /// the other waits for it; a third call finds it built.
    #[test]
    fn prepare_builds_the_device_sdk_once_and_other_callers_wait_for_it() {
        if !Path::new("/usr/bin/clang-22").exists() {
            eprintln!("clang-22 not installed (scripts/bootstrap.sh): skipped");
            return;
        }
        let cache = tempfile::tempdir().unwrap();
        let Ok(DeviceSdk::Open { archive, built: false }) = device_sdk(&ProcessEnv, cache.path()) else {
            eprintln!("the vendor toolchain is installed: nothing to prepare");
            return;
        };
        let notes = Notes::default();
        let (first, second) = std::thread::scope(|s| {
            let a = s.spawn(|| prepare(&ProcessEnv, cache.path(), 1, false, &notes).unwrap());
            let b = s.spawn(|| prepare(&ProcessEnv, cache.path(), 1, false, &notes).unwrap());
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!(first, DeviceSdk::Open { archive: archive.clone(), built: true });
        assert_eq!(second, first);
        assert!(archive.is_file());
        // One built; the other, when it came while the first built, said it waited.
        let said = notes.0.lock().unwrap().clone();
        assert_eq!(said.iter().filter(|n| *n == sdk::BUILDING).count(), 1, "{said:?}");
        assert!(said.iter().all(|n| n == sdk::BUILDING || n.starts_with("waiting for q7's device SDK")), "{said:?}");
        // Found, not built again: no further note.
        assert_eq!(prepare(&ProcessEnv, cache.path(), 2, false, &notes).unwrap(), first);
        assert_eq!(notes.0.lock().unwrap().len(), said.len());
        assert_eq!(device_sdk(&ProcessEnv, cache.path()).unwrap(), first);
    }
}
