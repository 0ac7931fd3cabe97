//! Finding the images of a build: a build directory (`NAME_cpu0..7.*` of a
//! multicore build, or one `NAME.*`), or one image file, bound to the
//! windows they were linked for (`q7_target::artifacts` names them).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use q7_target::{Artifact, ArtifactKind, Window};

use super::{OpError, OpImage};

/// The largest image file q7 reads: a window is at most 32 MiB, and a
/// linked `.so` with symbols and debug sections is a few times that.
pub const MAX_IMAGE_FILE: u64 = 256 << 20;

/// The image files of one op, in core order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageFiles {
    pub files: Vec<PathBuf>,
    /// Per-core images of a multicore build (else one single-core image).
    pub spmd: bool,
}

/// Reads a regular file of at most `limit` bytes; devices, pipes and
/// directories are refused instead of read without end.
pub fn read_regular_file(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, OpError> {
    let read_err = |error| OpError::Read { path: path.to_path_buf(), error };
    let meta = std::fs::metadata(path).map_err(read_err)?;
    if !meta.is_file() {
        return Err(OpError::NotRegularFile { path: path.to_path_buf() });
    }
    if meta.len() > limit {
        return Err(OpError::TooLarge { path: path.to_path_buf(), size: meta.len(), limit, what });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    crate::dense::advise_spare(&mut bytes);
    // `take` guards against a file that grows while it is read.
    File::open(path).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes)).map_err(read_err)?;
    if bytes.len() as u64 > limit {
        return Err(OpError::TooLarge { path: path.to_path_buf(), size: bytes.len() as u64, limit, what });
    }
    Ok(bytes)
}

/// The images `path` names: a build directory or one image file.
pub fn find_images(path: &Path) -> Result<ImageFiles, OpError> {
    let meta = std::fs::metadata(path).map_err(|error| OpError::Read { path: path.to_path_buf(), error })?;
    if meta.is_dir() {
        return find_in_directory(path);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let single = || ImageFiles { files: vec![path.to_path_buf()], spmd: false };
    let Some(artifact) = Artifact::parse(&name) else { return Ok(single()) };
    let Window::Core(core) = artifact.window else { return Ok(single()) };
    let dir = path.parent().unwrap_or(Path::new("."));
    let files: Vec<PathBuf> =
        Artifact::windows(true).into_iter().map(|w| dir.join(artifact.for_window(w).file_name())).collect();
    if files.iter().all(|f| f.is_file()) {
        return Ok(ImageFiles { files, spmd: true });
    }
    if core == 0 {
        // Core 0's image alone runs as a one-core SPMD launch.
        return Ok(ImageFiles { files: vec![path.to_path_buf()], spmd: true });
    }
    Err(OpError::LoneCoreImage { path: path.to_path_buf(), core })
}

fn find_in_directory(dir: &Path) -> Result<ImageFiles, OpError> {
    let read_err = |error| OpError::Read { path: dir.to_path_buf(), error };
    let mut artifacts: Vec<Artifact> = std::fs::read_dir(dir)
        .map_err(read_err)?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
        .filter_map(|e| Artifact::parse(&e.file_name().to_string_lossy()))
        .collect();
    artifacts.sort_by_key(Artifact::file_name);
    for kind in ArtifactKind::ALL {
        let cpu0 = artifacts.iter().find(|a| a.kind == kind && a.window == Window::Core(0));
        if let Some(first) = cpu0 {
            return find_images(&dir.join(first.file_name()));
        }
    }
    for kind in ArtifactKind::ALL {
        let single: Vec<&Artifact> =
            artifacts.iter().filter(|a| a.kind == kind && a.window == Window::Single).collect();
        match single.as_slice() {
            [one] => return Ok(ImageFiles { files: vec![dir.join(one.file_name())], spmd: false }),
            [] => {}
            many => {
                return Err(OpError::SeveralImages {
                    dir: dir.to_path_buf(),
                    names: many.iter().map(|a| a.file_name()).collect(),
                })
            }
        }
    }
    Err(OpError::NoImages { dir: dir.to_path_buf() })
}

/// Loads the first `cores` images, each bound to its window: core `k`'s
/// window for per-core images, the window a UCPL header names, or the
/// single fat core's. Stripped and packed images take their symbols from
/// the linked `.so` beside them when it is there.
pub fn load_images(found: &ImageFiles, cores: usize) -> Result<Vec<OpImage>, OpError> {
    let mut images = Vec::new();
    for (k, file) in found.files.iter().enumerate().take(cores) {
        let bytes = read_regular_file(file, MAX_IMAGE_FILE, "an op image")?;
        let window = if found.spmd {
            Window::Core(k as u32)
        } else if bytes.starts_with(b"UCPL ") {
            q7_pack::prelink::UcplHeader::decode(&bytes).ok().and_then(|h| h.window()).unwrap_or(Window::Single)
        } else {
            Window::Single
        };
        let mut image = OpImage::load(&bytes, window).map_err(|error| OpError::Image { path: file.clone(), error })?;
        if image.symbols.is_empty() {
            if let Some(so) = linked_sibling(file) {
                if let Ok(elf) = read_regular_file(&so, MAX_IMAGE_FILE, "an op image") {
                    image.add_symbols_from_sibling(&elf);
                }
            }
        }
        images.push(image);
    }
    Ok(images)
}

/// The linked `.so` next to a stripped or packed image, for its symbols.
fn linked_sibling(file: &Path) -> Option<PathBuf> {
    let artifact = Artifact::parse(&file.file_name()?.to_string_lossy())?;
    if !matches!(artifact.kind, ArtifactKind::Stripped | ArtifactKind::Packed) {
        return None;
    }
    let candidate = file.with_file_name(artifact.with_kind(ArtifactKind::Linked).file_name());
    candidate.is_file().then_some(candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, names: &[&str]) {
        for n in names {
            std::fs::write(dir.join(n), b"x").unwrap();
        }
    }

    #[test]
    fn build_directories() {
        let d = tempfile::tempdir().unwrap();
        let names: Vec<String> = (0..8).map(|k| format!("relu_cpu{k}.so")).collect();
        touch(d.path(), &names.iter().map(String::as_str).collect::<Vec<_>>());
        touch(d.path(), &["wrapper.o", "notes.txt"]);
        let found = find_images(d.path()).unwrap();
        assert!(found.spmd);
        assert_eq!(found.files[3], d.path().join("relu_cpu3.so"));

        let single = tempfile::tempdir().unwrap();
        touch(single.path(), &["relu.so", "relu.stripped.so", "relu.packed.so"]);
        assert_eq!(find_images(single.path()).unwrap().files, vec![single.path().join("relu.so")]);

        touch(single.path(), &["other.so"]);
        assert!(matches!(find_images(single.path()), Err(OpError::SeveralImages { .. })));
        let empty = tempfile::tempdir().unwrap();
        assert!(matches!(find_images(empty.path()), Err(OpError::NoImages { .. })));
    }

    #[test]
    fn a_lone_per_core_image_is_explained() {
        let d = tempfile::tempdir().unwrap();
        touch(d.path(), &["relu_cpu3.so", "relu_cpu0.so"]);
        let err = find_images(&d.path().join("relu_cpu3.so")).unwrap_err();
        assert!(matches!(err, OpError::LoneCoreImage { core: 3, .. }), "{err}");
        assert!(err.to_string().contains("linked for core 3's window"));
        let alone = find_images(&d.path().join("relu_cpu0.so")).unwrap();
        assert_eq!((alone.files.len(), alone.spmd), (1, true));
    }

    #[test]
    fn devices_are_not_read() {
        let err = read_regular_file(Path::new("/dev/zero"), 1 << 20, "an input").unwrap_err();
        assert_eq!(err.to_string(), "/dev/zero: not a regular file");
        let d = tempfile::tempdir().unwrap();
        let big = d.path().join("big.npy");
        std::fs::write(&big, vec![0u8; 100]).unwrap();
        let err = read_regular_file(&big, 10, "an input").unwrap_err();
        assert!(err.to_string().ends_with("100 bytes is larger than the 10-byte limit for an input"), "{err}");
    }
}
