//! Running a built op, start to finish: the library API every front end
//! (`q7 run`, the Python package, tests) calls.
//!
//! ```text
//! OpLibrary::open(path)        find the images (discover), bind them to windows,
//!                              read the schema table the wrapper embeds
//!   .run(function, args, opts) bind args to the schema (args), lay out tensor
//!                              memory (placement), write launch blocks
//!                              (launch_block), run the machine (session) and
//!                              return a typed OpReport (report)
//! ```
//!
//! Memory an op sees is described in docs/PLATFORM.md; the launch block and
//! descriptors in sdk/ABI.md. The destination tensor is what
//! `get_dst_tensor()` returns: by default it has the shape and dtype of the
//! first tensor argument (override with [`OpOptions::dst`], e.g. from the
//! op's shape function: [`OpLibrary::shape_destination`]); its bytes start
//! as zero but count as never written for the checker. The output is the
//! tensor core 0 returned; when that is the destination tensor, or nothing
//! was returned, the output is the destination tensor, which all cores wrote.

mod args;
pub mod debug;
mod discover;
mod error;
pub mod image;
mod launch_block;
mod lookup;
mod placement;
pub mod profile;
pub mod profile_text;
mod report;
mod session;
pub mod shape_program;
mod symbols;

use std::path::{Path, PathBuf};

pub use args::{ArgValue, KernelArg, Number, TensorArg};
pub use discover::{find_images, load_images, read_regular_file, ImageFiles, MAX_IMAGE_FILE};
pub use error::{GivenKind, OpError};
pub use image::OpImage;
pub use launch_block::{encode_descriptor, Descriptor};
pub use placement::{place, Destination, Placement};
pub use q7_target::launch::status_meaning;
use q7_target::schema::table::{self, SchemaEntry};
pub use report::{
    in_sdk, op_frame, CoreStats, Failure, FindingCounts, FindingReport, JitStats, OpReport, Outcome, OutputSource,
    OutputTensor, RunningCore, UnwrittenOutput,
};
pub use session::OpSession;
pub use symbols::{CodeLocation, DebugElf};

use crate::machine::RunLimits;

/// How to run.
#[derive(Clone, Debug)]
pub struct OpOptions {
    pub limits: RunLimits,
    /// Stray-store, race and unwritten-read checks.
    pub checks: bool,
    /// The SDK's own runtime checks (TCM copy ranges, accessor dtype and
    /// rank); off behaves as the hardware would.
    pub sdk_checks: bool,
    pub trace: bool,
    /// Print the cores' output as it comes (it is captured either way).
    pub stream_output: bool,
    /// Heap slice per core; default 64 MiB over all cores (at least 8 MiB each).
    pub heap_per_core: Option<u32>,
    /// Destination tensor; default: the first tensor argument's shape and dtype.
    pub dst: Option<Destination>,
    /// Function index, skipping the lookup by name.
    pub function_index: Option<u32>,
    /// Run one instruction at a time and read the call stack of every kept
    /// finding (what [`OpLibrary::locate_findings`] runs).
    pub locate_findings: bool,
}

impl Default for OpOptions {
    fn default() -> Self {
        OpOptions {
            limits: RunLimits::default(),
            checks: true,
            sdk_checks: true,
            trace: false,
            stream_output: false,
            heap_per_core: None,
            dst: None,
            function_index: None,
            locate_findings: false,
        }
    }
}

/// An op's images bound to their windows, ready to run any of its functions
/// any number of times.
#[derive(Clone, Debug)]
pub struct OpLibrary {
    /// What was opened, for messages.
    pub path: PathBuf,
    /// One per core that runs, in core order.
    pub images: Vec<OpImage>,
    /// The wrapper's schema table (`None` for images built without one).
    pub schemas: Option<Vec<SchemaEntry>>,
    /// The host shape program a `q7 build --shape` left beside the images.
    pub shape_program: Option<PathBuf>,
}

impl OpLibrary {
    /// Opens a build directory or an image. `cores` runs fewer cores of a
    /// multicore build (default: all eight, or one for a single-core build).
    pub fn open(path: &Path, cores: Option<u32>) -> Result<OpLibrary, OpError> {
        if path.is_file() && discover::is_archive_file(path) {
            return OpLibrary::from_images(path, discover::load_archive(path, cores)?);
        }
        let found = match find_images(path) {
            // What the Python front end leaves in an author's folder: its
            // archive alone (the images are in a subdirectory).
            Err(OpError::NoImages { dir }) => match discover::lone_archive(&dir) {
                Some(archive) => return OpLibrary::from_images(&archive, discover::load_archive(&archive, cores)?),
                None => return Err(OpError::NoImages { dir }),
            },
            found => found?,
        };
        let cores = match (cores, found.spmd) {
            (Some(n @ 2..), false) => return Err(OpError::SingleImageOnCores { path: path.to_path_buf(), cores: n }),
            (Some(n), _) => n as usize,
            (None, true) => found.files.len(),
            (None, false) => 1,
        };
        let images = load_images(&found, cores)?;
        OpLibrary::from_images(path, images)
    }

    /// Wraps images already loaded (one per core).
    pub fn from_images(path: &Path, images: Vec<OpImage>) -> Result<OpLibrary, OpError> {
        let schemas = match images.first() {
            Some(first) => {
                table::find(&first.bytes).map_err(|error| OpError::SchemaTable { path: path.to_path_buf(), error })?
            }
            None => None,
        };
        Ok(OpLibrary { path: path.to_path_buf(), images, schemas, shape_program: shape_program::find(path) })
    }

    /// The schema entry for `name`: a compute function or an op name
    /// (with or without its namespace).
    pub fn entry(&self, name: &str) -> Option<&SchemaEntry> {
        let entries = self.schemas.as_deref()?;
        entries
            .iter()
            .find(|e| e.function == name)
            .or_else(|| entries.iter().find(|e| e.schema.name == name || e.schema.base_name() == name))
    }

    /// The destination the op's shape function gives for `args` (`None`
    /// without a shape program, or when it does not register `function`).
    pub fn shape_destination(&self, function: &str, args: &[ArgValue]) -> Result<Option<Destination>, OpError> {
        let Some(program) = &self.shape_program else { return Ok(None) };
        // The shape sources know the op and its compute function; the image may know either.
        let entry = self.entry(function);
        // Wrong arguments are refused against the schema, as a run would, not by the program.
        args::bind(function, entry, args)?;
        let name = entry.map_or(function, |e| e.function.as_str());
        shape_program::destination(program, name, args)
    }

    /// `args` checked against `function`'s schema and kinded as a launch
    /// passes them (what `q7 run --native` hands the host build).
    pub fn bind<'v>(&self, function: &str, args: &'v [ArgValue<'v>]) -> Result<Vec<KernelArg<'v>>, OpError> {
        args::bind(function, self.entry(function), args)
    }

    /// Runs `function` (a compute function or op name) on `args`.
    pub fn run(&self, function: &str, args: &[ArgValue], opts: &OpOptions) -> Result<OpReport, OpError> {
        self.prepare(function, args, opts)?.run()
    }

    /// Gives `report`'s findings their call stacks: the run is deterministic,
    /// so it runs again, one instruction at a time, stopping after each
    /// access that makes a finding to read the stack (only failing runs pay
    /// for this). A finding the second run does not make again (a race under
    /// a different interleaving) keeps an empty stack.
    pub fn locate_findings(
        &self,
        function: &str,
        args: &[ArgValue],
        opts: &OpOptions,
        report: &mut OpReport,
    ) -> Result<(), OpError> {
        if report.findings.is_empty() {
            return Ok(());
        }
        let opts = OpOptions { locate_findings: true, trace: false, stream_output: false, ..opts.clone() };
        let located = self.prepare(function, args, &opts)?.run()?;
        for finding in &mut report.findings {
            if let Some(same) = located.findings.iter().find(|l| l.message == finding.message) {
                finding.stack = same.stack.clone();
            }
        }
        Ok(())
    }

    /// Loads a machine for one launch without running it.
    pub fn prepare<'v>(
        &self,
        function: &str,
        args: &'v [ArgValue<'v>],
        opts: &OpOptions,
    ) -> Result<OpSession<'_>, OpError> {
        let entry = self.entry(function);
        if entry.is_none() && opts.function_index.is_none() {
            if let Some(entries) = &self.schemas {
                return Err(OpError::UnknownFunction {
                    function: function.to_string(),
                    available: entries.iter().map(|e| e.function.clone()).collect(),
                });
            }
        }
        let bound = args::bind(function, entry, args)?;
        let function_name = entry.map_or(function, |e| e.function.as_str());
        let index = opts.function_index.or(entry.map(|e| e.index));
        session::prepare(&self.images, function_name, entry.map(|e| e.schema.name.clone()), index, &bound, opts)
    }
}
