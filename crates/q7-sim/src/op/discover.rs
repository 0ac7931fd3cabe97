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
        // `lib<name>.so` beside the compute images is the Python front
        // end's archive of them, and a host shape library is no image.
        .filter(|e| !is_archive_or_host_elf(&e.path()))
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

/// The one custom-op archive (`lib<name>.so`, an `ar` archive) in `dir`,
/// if there is exactly one.
pub fn lone_archive(dir: &Path) -> Option<PathBuf> {
    let mut archives = std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        name.starts_with("lib") && name.ends_with(".so") && p.is_file() && is_archive_file(p)
    });
    let first = archives.next()?;
    archives.next().is_none().then_some(first)
}

/// Whether `path` starts as an `ar` archive does (`lib<name>.so` of a
/// custom-op project: the shape library, the compute images, metadata.json).
pub fn is_archive_file(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok() && q7_elf::ar::is_archive(&magic)
}

/// An archive, or an ELF file for another machine (a host library).
fn is_archive_or_host_elf(path: &Path) -> bool {
    let mut head = [0u8; 20];
    if File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_err() {
        return false;
    }
    let machine = match head[5] {
        2 => u16::from_be_bytes([head[18], head[19]]),
        _ => u16::from_le_bytes([head[18], head[19]]),
    };
    q7_elf::ar::is_archive(&head) || (head.starts_with(b"\x7fELF") && machine != q7_elf::consts::EM_XTENSA)
}

/// The compute images in a custom-op archive, each bound to its window:
/// the Xtensa ELF members named as `q7 build` names images (the shape
/// library is a host ELF and is passed over).
pub fn load_archive(path: &Path, cores: Option<u32>) -> Result<Vec<OpImage>, OpError> {
    let bytes = read_regular_file(path, 9 * MAX_IMAGE_FILE, "a custom-op archive")?;
    let bad = |message: String| OpError::Archive { path: path.to_path_buf(), message };
    let members = q7_elf::ar::members(&bytes).map_err(|e| bad(e.to_string()))?;
    let mut found: Vec<(Window, &[u8])> = members
        .iter()
        .filter(|m| q7_elf::ElfFile::parse_xtensa(m.data).is_ok())
        .filter_map(|m| Some((Artifact::parse(&m.name)?.window, m.data)))
        .collect();
    found.sort_by_key(|(window, _)| match window {
        Window::Core(k) => *k,
        Window::Single => u32::MAX,
    });
    let spmd = found.first().is_some_and(|(w, _)| *w == Window::Core(0));
    if found.is_empty() || (!spmd && found.len() > 1) {
        return Err(bad(format!("{} compute images among its members (one, or one per core)", found.len())));
    }
    let count = match cores {
        Some(n @ 2..) if !spmd => return Err(OpError::SingleImageOnCores { path: path.to_path_buf(), cores: n }),
        Some(n) => (n as usize).min(found.len()),
        None => found.len(),
    };
    (found.into_iter().take(count))
        .map(|(window, data)| {
            OpImage::load(data, window).map_err(|error| OpError::Image { path: path.to_path_buf(), error })
        })
        .collect()
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
