//! The GPSIMD memory map (docs/PLATFORM.md): where each core's window sits
//! and how big it is, and the regions every core shares or owns privately.

use serde::Serialize;

/// Number of SPMD cores.
pub const CORE_COUNT: u32 = 8;
/// Base of core 0's window, and of the single fat core's window.
pub const WINDOW_BASE: u32 = 0x8400_0000;
/// Size of (and stride between) the per-core windows: 2 MiB.
pub const WINDOW_SIZE: u32 = 0x0020_0000;
/// Size of the single fat core's window: all eight windows, 32 MiB.
pub const SINGLE_WINDOW_SIZE: u32 = 0x0200_0000;
/// The vectors (iram0) region, identical for all cores.
pub const VECTORS_BASE: u32 = 0;
pub const VECTORS_SIZE: u32 = 0x1000;
/// The shared DRAM staging window `[0x80000, 0x90000)`.
pub const SHARED_DRAM_BASE: u32 = 0x0008_0000;
pub const SHARED_DRAM_SIZE: u32 = 0x0001_0000;
/// Each core's private TCM pool (every core sees its own at this address).
pub const TCM_BASE: u32 = 0x9000_0000;
pub const TCM_SIZE: u32 = 0x4000;
/// Tensor memory ("HBM"): tensors and the per-core heap slices.
pub const TENSOR_BASE: u32 = 0xc000_0000;
/// The most tensor memory a run may use: 512 MiB.
pub const TENSOR_MAX: u32 = 0x2000_0000;

/// A window an image can be linked into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Window {
    /// SPMD core `0..8` with its 2 MiB window.
    Core(u32),
    /// One fat core owning 32 MiB at [`WINDOW_BASE`].
    Single,
}

impl Window {
    /// All nine windows in LSP order: cpu0..cpu7, then single.
    pub fn all() -> impl Iterator<Item = Window> {
        (0..CORE_COUNT).map(Window::Core).chain(std::iter::once(Window::Single))
    }

    /// The aperture law: `base(id) = 0x84000000 + id·0x200000`.
    pub const fn base(self) -> u32 {
        match self {
            Window::Core(i) => WINDOW_BASE + i * WINDOW_SIZE,
            Window::Single => WINDOW_BASE,
        }
    }

    pub const fn size(self) -> u32 {
        match self {
            Window::Core(_) => WINDOW_SIZE,
            Window::Single => SINGLE_WINDOW_SIZE,
        }
    }

    pub const fn end(self) -> u64 {
        self.base() as u64 + self.size() as u64
    }

    /// The LSP directory name the vendor driver passes to `-mlsp=`.
    pub fn lsp_name(self) -> String {
        match self {
            Window::Core(i) => format!("lsp_fll_load_cpu{i}"),
            Window::Single => "lsp_fll_load_cpu_single".into(),
        }
    }

    /// Human label: `cpu3` or `single`.
    pub fn label(self) -> String {
        match self {
            Window::Core(i) => format!("cpu{i}"),
            Window::Single => "single".into(),
        }
    }

    /// The launch block (sdk/ABI.md): the last page of the window, where
    /// the host writes the launch block and below which the stack grows.
    pub const fn launch_block(self) -> u32 {
        (self.end() - crate::launch::PAGE as u64) as u32
    }

    /// The per-core window that contains `[start, end)` entirely, if any.
    pub fn core_containing(start: u32, end: u64) -> Option<Window> {
        let w = Window::Core(start.checked_sub(WINDOW_BASE)? / WINDOW_SIZE);
        match w {
            Window::Core(i) if i < CORE_COUNT && end <= w.end() => Some(w),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aperture_law_tiles_sixteen_mib() {
        let bases: Vec<u32> = (0..8).map(|i| Window::Core(i).base()).collect();
        assert_eq!(bases[3], 0x8460_0000);
        assert_eq!(Window::Core(7).end(), 0x8500_0000);
        for w in bases.windows(2) {
            assert_eq!(w[1] - w[0], WINDOW_SIZE);
        }
        assert_eq!(Window::Single.end(), 0x8600_0000);
    }

    #[test]
    fn core_containing_respects_window_edges() {
        assert_eq!(Window::core_containing(0x8420_0000, 0x8440_0000), Some(Window::Core(1)));
        assert_eq!(Window::core_containing(0x8420_0000, 0x8440_0001), None);
        assert_eq!(Window::core_containing(0x83ff_ffff, 0x8400_0010), None);
        assert_eq!(Window::core_containing(0x8500_0000, 0x8500_0010), None);
    }

    #[test]
    fn launch_block_is_the_last_page_of_each_window() {
        assert_eq!(Window::Core(0).launch_block(), 0x841f_f000);
        assert_eq!(Window::Core(7).launch_block(), 0x84ff_f000);
        assert_eq!(Window::Single.launch_block(), 0x85ff_f000);
    }
}
