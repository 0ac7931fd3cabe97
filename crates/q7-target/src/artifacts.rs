//! The names of a build's artefacts, made and parsed in one place.
//!
//! A single-core build of `NAME` writes `NAME.so` (linked, with `-q`
//! relocations), `NAME.stripped.so` and `NAME.packed.so`; a multicore build
//! writes the same three per core as `NAME_cpuK.*` (the `_cpuK` suffix is a
//! contract of the vendor driver). `q7 prelink --all-cores` writes
//! `NAME.cpuK.ucpl`.

use crate::memmap::{Window, CORE_COUNT};

/// The host shape program's file name in a build directory: `q7 build
/// --shape` writes it, a run of the op asks it for the destination.
pub const SHAPE_PROGRAM: &str = "q7-shape";

/// What stage of the pipeline a file comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArtifactKind {
    /// `*.so`: linked by the build, symbols and relocations kept.
    Linked,
    /// `*.stripped.so`: the cleaned image `q7 pack` saves.
    Stripped,
    /// `*.packed.so`: the relocatable load-lib object.
    Packed,
    /// `*.ucpl`: an image bound to a window by `q7 prelink`.
    Ucpl,
}

impl ArtifactKind {
    /// Every kind, in the order a loader prefers them (most information first).
    pub const ALL: [ArtifactKind; 4] =
        [ArtifactKind::Linked, ArtifactKind::Stripped, ArtifactKind::Packed, ArtifactKind::Ucpl];

    pub const fn suffix(self) -> &'static str {
        match self {
            ArtifactKind::Linked => ".so",
            ArtifactKind::Stripped => ".stripped.so",
            ArtifactKind::Packed => ".packed.so",
            ArtifactKind::Ucpl => ".ucpl",
        }
    }

    /// The separator before `cpuK` in a per-core name.
    const fn core_separator(self) -> &'static str {
        match self {
            ArtifactKind::Ucpl => ".cpu",
            _ => "_cpu",
        }
    }

    /// The kind whose suffix ends `file`, longest suffix first.
    fn of(file: &str) -> Option<(ArtifactKind, &str)> {
        [ArtifactKind::Stripped, ArtifactKind::Packed, ArtifactKind::Ucpl, ArtifactKind::Linked]
            .into_iter()
            .find_map(|k| file.strip_suffix(k.suffix()).map(|stem| (k, stem)))
    }
}

/// One artefact of a build: op library name, window, kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Artifact {
    /// The library name the build was given (`librelu`, `relu`, ...).
    pub name: String,
    /// `Window::Core(k)` for the `_cpuK` files of a multicore build,
    /// `Window::Single` otherwise.
    pub window: Window,
    pub kind: ArtifactKind,
}

impl Artifact {
    pub fn new(name: impl Into<String>, window: Window, kind: ArtifactKind) -> Artifact {
        Artifact { name: name.into(), window, kind }
    }

    /// The windows a build links for: eight cores, or the single fat core.
    pub fn windows(multicore: bool) -> Vec<Window> {
        if multicore {
            (0..CORE_COUNT).map(Window::Core).collect()
        } else {
            vec![Window::Single]
        }
    }

    /// The file name without its kind's suffix: `NAME` or `NAME_cpuK`.
    pub fn stem(&self) -> String {
        match self.window {
            Window::Core(k) => format!("{}{}{k}", self.name, self.kind.core_separator()),
            Window::Single => self.name.clone(),
        }
    }

    pub fn file_name(&self) -> String {
        format!("{}{}", self.stem(), self.kind.suffix())
    }

    /// The same artefact at another pipeline stage.
    pub fn with_kind(&self, kind: ArtifactKind) -> Artifact {
        Artifact { kind, ..self.clone() }
    }

    /// The same artefact for another window (the other cores' files).
    pub fn for_window(&self, window: Window) -> Artifact {
        Artifact { window, ..self.clone() }
    }

    /// Reads a file name back. Names without a `cpuK` part are single-core
    /// artefacts; an unknown suffix gives `None`.
    pub fn parse(file: &str) -> Option<Artifact> {
        let (kind, stem) = ArtifactKind::of(file)?;
        if let Some((name, k)) = stem.rsplit_once(kind.core_separator()) {
            if !name.is_empty() && !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(k) = k.parse::<u32>() {
                    if k < CORE_COUNT {
                        return Some(Artifact::new(name, Window::Core(k), kind));
                    }
                }
            }
        }
        (!stem.is_empty()).then(|| Artifact::new(stem, Window::Single, kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for multicore in [false, true] {
            for window in Artifact::windows(multicore) {
                for kind in ArtifactKind::ALL {
                    let a = Artifact::new("librelu", window, kind);
                    assert_eq!(Artifact::parse(&a.file_name()), Some(a));
                }
            }
        }
    }

    #[test]
    fn contract_names() {
        let cpu3 = Artifact::new("relu", Window::Core(3), ArtifactKind::Linked);
        assert_eq!(cpu3.file_name(), "relu_cpu3.so");
        assert_eq!(cpu3.with_kind(ArtifactKind::Stripped).file_name(), "relu_cpu3.stripped.so");
        assert_eq!(cpu3.with_kind(ArtifactKind::Packed).file_name(), "relu_cpu3.packed.so");
        assert_eq!(cpu3.with_kind(ArtifactKind::Ucpl).file_name(), "relu.cpu3.ucpl");
        assert_eq!(Artifact::new("relu", Window::Single, ArtifactKind::Linked).file_name(), "relu.so");
    }

    #[test]
    fn parses_what_users_have() {
        let p = |s: &str| Artifact::parse(s).map(|a| (a.name, a.window, a.kind));
        assert_eq!(p("relu_cpu0.stripped.so"), Some(("relu".into(), Window::Core(0), ArtifactKind::Stripped)));
        assert_eq!(p("relu.cpu7.ucpl"), Some(("relu".into(), Window::Core(7), ArtifactKind::Ucpl)));
        assert_eq!(p("relu.so"), Some(("relu".into(), Window::Single, ArtifactKind::Linked)));
        // Not a core: out of range, or not a number.
        assert_eq!(p("relu_cpu9.so"), Some(("relu_cpu9".into(), Window::Single, ArtifactKind::Linked)));
        assert_eq!(p("relu_cpux.so"), Some(("relu_cpux".into(), Window::Single, ArtifactKind::Linked)));
        assert_eq!(p("relu.npy"), None);
        assert_eq!(p(".so"), None);
    }
}
