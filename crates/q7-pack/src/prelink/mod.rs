//! The prelinker (docs/FORMATS.md, "UCPL image"): binds an image to a core window and emits it
//! as a UCPL image ([`ucpl`] documents the format).
//!
//! [`prelink`] takes a packed load-lib (the image under `lib_func` or `-e`),
//! a cleaned image (`q7 pack -s`, carrying `.q7.rebase`), a linked image with
//! the static relocations of `ld -q` (cleaned here as `q7 pack` would, so
//! both give the same bytes), a relocation-less image, or a UCPL file. Then:
//!
//! 1. **validate**: ELF32 Xtensa little-endian `EXEC`; no GOT and no dynamic
//!    relocations; at least one `PT_LOAD` with file bytes; no two segments
//!    overlapping in memory; the entry inside the image bytes;
//! 2. **place**: the new base is `--base`; else the image stays where it is
//!    when it already lies inside the target window; else it goes to the
//!    target window's base plus its offset in the window it was linked for
//!    (so an image linked at its window's start lands at the target window's
//!    start). The move must keep the image's largest alignment, and the
//!    whole memory (image + `.bss`) must fit the target window;
//! 3. **load**: the memory image from the lowest `PT_LOAD` address to the end
//!    of the last file-backed byte, gaps zero ([`memory`]);
//! 4. **relocate**: add the base delta to every word of the rebase table.
//!    `SLOT*_OP` operands (calls, branches, `L32R`) are PC-relative and need
//!    nothing when the whole image moves. An image without a table can only
//!    stay where it was linked (delta 0);
//! 5. **emit**: entry = `e_entry` + delta; memory size = image + the
//!    zero-filled tail; the UCPL header with the CRC-32 of the image bytes.
//!
//! The result equals, byte for byte, what GNU ld writes when it links the
//! same objects at the target window (the `prelink_rebase_oracle` test).

mod error;
pub mod memory;
mod report;
mod source;
pub mod ucpl;

use q7_target::memmap::{Window, CORE_COUNT};

pub use error::{PrelinkError, Result};
pub use memory::{LoadPlan, MemoryImage};
pub use report::write_ucpl_report;
pub use source::InputKind;
pub use ucpl::{Check, Ucpl, UcplHeader, UcplView, Validation, SINGLE_CORE_ID};

use source::Source;

/// Where to bind an image: a window (which gives the core id) and, when
/// given, the exact address of the image's first byte inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub window: Window,
    pub base: Option<u32>,
}

impl Target {
    pub fn core(id: u32) -> Target {
        Target { window: Window::Core(id), base: None }
    }

    pub fn single() -> Target {
        Target { window: Window::Single, base: None }
    }

    pub fn at_base(self, base: u32) -> Target {
        Target { base: Some(base), ..self }
    }

    /// The base for an image now at `start..end`: explicit; else where it
    /// is when it already lies inside the target window; else the same
    /// offset into the target window as into the window it sits in.
    fn new_base(&self, start: u32, end: u64) -> u32 {
        if let Some(base) = self.base {
            return base;
        }
        let w = self.window;
        if start >= w.base() && end <= w.end() {
            return start;
        }
        let offset = home_window(start, end).map_or(0, |home| start - home.base());
        w.base() + offset
    }
}

/// The window an image was linked for: the per-core window holding it, else
/// the single core's.
fn home_window(start: u32, end: u64) -> Option<Window> {
    Window::core_containing(start, end)
        .or_else(|| (start >= Window::Single.base() && end <= Window::Single.end()).then_some(Window::Single))
}

/// What [`prelink`] did, for logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    pub kind: InputKind,
    /// The image came out of a packed load-lib.
    pub packed: bool,
    pub link_base: u32,
    /// Words patched; `None` when the image carries no rebase table.
    pub patched_words: Option<usize>,
}

impl Provenance {
    pub fn delta(&self, new_base: u32) -> u32 {
        new_base.wrapping_sub(self.link_base)
    }
}

/// Binds `input` (a packed load-lib, a cleaned or linked image, or a UCPL
/// file) to `target`. `symbol` names the image in a packed load-lib
/// (default `lib_func`).
pub fn prelink(input: &[u8], target: Target, symbol: Option<&str>) -> Result<Ucpl> {
    if let Window::Core(id) = target.window {
        if id >= CORE_COUNT {
            return Err(PrelinkError::NoSuchCore(id));
        }
    }
    match source::read(input, symbol.unwrap_or(crate::DEFAULT_SYMBOL))? {
        Source::Ucpl(view) => {
            let plan = LoadPlan::of_ucpl(&view);
            let new_base = target.new_base(plan.base, plan.base as u64 + plan.memory_size);
            if new_base != plan.base {
                return Err(PrelinkError::UcplCannotMove { base: plan.base, new_base });
            }
            place(&plan, target, false)?;
            let provenance =
                Provenance { kind: InputKind::Ucpl, packed: false, link_base: plan.base, patched_words: None };
            Ok(emit(&plan, plan.load(input), target, provenance))
        }
        Source::Elf(src) => {
            let elf = q7_elf::ElfFile::parse(&src.image)?;
            let plan = LoadPlan::of_elf(&elf)?;
            let new_base = place(&plan, target, src.table.is_some())?;
            let mut memory = plan.load(&src.image);
            let patched_words = src.table.as_ref().map(|t| memory.rebase(t, new_base)).transpose()?;
            memory.base = new_base;
            let provenance = Provenance { kind: src.kind, packed: src.packed, link_base: plan.base, patched_words };
            Ok(emit(&plan, memory, target, provenance))
        }
    }
}

/// Step 2: the new base, checked against what the image allows.
fn place(plan: &LoadPlan, target: Target, movable: bool) -> Result<u32> {
    let end = plan.base as u64 + plan.memory_size;
    let new_base = target.new_base(plan.base, end);
    if !movable && new_base != plan.base {
        return Err(PrelinkError::NoRelocations { link_base: plan.base, new_base });
    }
    if !new_base.wrapping_sub(plan.base).is_multiple_of(plan.align) {
        return Err(PrelinkError::Misaligned { link_base: plan.base, new_base, align: plan.align });
    }
    let w = target.window;
    if plan.memory_size > w.size() as u64 {
        return Err(PrelinkError::TooLarge { size: plan.memory_size, window: w.label(), window_size: w.size() });
    }
    let new_end = new_base as u64 + plan.memory_size;
    if new_base < w.base() || new_end > w.end() {
        let window = w.label();
        return Err(PrelinkError::OutsideWindow {
            start: new_base,
            end: new_end,
            window,
            base: w.base(),
            window_end: w.end(),
        });
    }
    Ok(new_base)
}

/// Step 5. `place` bounded the sizes by the window (at most 32 MiB).
fn emit(plan: &LoadPlan, memory: MemoryImage, target: Target, provenance: Provenance) -> Ucpl {
    let delta = memory.base.wrapping_sub(plan.base);
    let entry = plan.entry.wrapping_add(delta);
    Ucpl::new(memory.base, entry, plan.memory_size as u32, target.window, memory.bytes, provenance)
}

#[cfg(test)]
mod tests;
