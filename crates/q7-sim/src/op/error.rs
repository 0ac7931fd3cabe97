//! Why an op could not be run. One line each; the library names no CLI
//! flags (a front end adds its own hint from the typed fields).

use std::path::PathBuf;

use q7_target::schema::table::TableError;
use q7_target::schema::ArgKind;

use crate::SimError;

/// The kind of value a caller passed for an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GivenKind {
    Tensor,
    Scalar,
    Int,
    Double,
    /// A plain number, converted per the schema.
    Number,
}

impl GivenKind {
    pub fn describe(self) -> &'static str {
        match self {
            GivenKind::Tensor => "a tensor",
            GivenKind::Scalar => "a Scalar",
            GivenKind::Int => "an int",
            GivenKind::Double => "a float (double)",
            GivenKind::Number => "a number",
        }
    }
}

/// Variants that name a file carry the cause in their message, not as a
/// `source` (a chained report would print it twice).
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    #[error("{}: cannot read: {error}", path.display())]
    Read { path: PathBuf, error: std::io::Error },
    #[error("{}: not a regular file", path.display())]
    NotRegularFile { path: PathBuf },
    #[error("{}: {size} bytes is larger than the {limit}-byte limit for {what}", path.display())]
    TooLarge { path: PathBuf, size: u64, limit: u64, what: &'static str },
    #[error("{}: no op images (NAME_cpu0..7.so, NAME.so, .stripped.so, .packed.so or .ucpl)", dir.display())]
    NoImages { dir: PathBuf },
    #[error("{}: a custom-op archive with {message}", path.display())]
    Archive { path: PathBuf, message: String },
    #[error("{}: several op images ({}); name one", dir.display(), names.join(", "))]
    SeveralImages { dir: PathBuf, names: Vec<String> },
    #[error(
        "{}: this image is linked for core {core}'s window and runs only beside the other seven; \
         pass its build directory, or build for one core",
        path.display()
    )]
    LoneCoreImage { path: PathBuf, core: u32 },
    #[error("{}: a single-core image runs on one core, not {cores}", path.display())]
    SingleImageOnCores { path: PathBuf, cores: u32 },
    #[error("{}: {error}", path.display())]
    Image { path: PathBuf, error: SimError },
    #[error("{}: {error}", path.display())]
    SchemaTable { path: PathBuf, error: TableError },
    #[error("no function `{function}` in the op; it exports: {}", available.join(", "))]
    UnknownFunction { function: String, available: Vec<String> },
    #[error(
        "cannot find function `{function}`: the image has no symbols, no schema table and no name table naming it"
    )]
    NoFunctionTable { function: String },
    #[error("`{function}` takes {expected} argument(s) ({schema}), {given} given")]
    ArgCount { function: String, schema: String, expected: usize, given: usize },
    #[error(
        "`{function}` argument {} `{param}` is {} (schema type {}), but {} was given",
        index + 1, expected_describe(*expected), expected.schema_type(), given.describe()
    )]
    ArgKind { function: String, index: usize, param: String, expected: ArgKind, given: GivenKind },
    #[error("`{function}` argument {} `{param}` is an int, but {value} is not a whole number in range", index + 1)]
    NotAnInt { function: String, index: usize, param: String, value: f64 },
    #[error("`{function}` argument {} is a plain number, but the op has no schema table to give it a kind", index + 1)]
    UntypedNumber { function: String, index: usize },
    #[error("tensor `{tensor}` has rank {rank}; a tensor descriptor holds at most {max} dimensions")]
    Rank { tensor: String, rank: usize, max: usize },
    #[error("tensor `{tensor}` holds {bytes} bytes, but {have} bytes of data were given")]
    DataSize { tensor: String, bytes: u128, have: usize },
    #[error("{what} need {bytes} bytes, more than the {limit} bytes of tensor memory")]
    TensorMemory { what: String, bytes: u128, limit: u64 },
    #[error("a destination of shape {shape:?} needs more than 2^128 bytes, far more than the {limit} bytes of tensor memory")]
    TensorUncountable { shape: Vec<usize>, limit: u64 },
    #[error("{cores} images: a run takes 1 (single core) or 1..8 (SPMD)")]
    CoreCount { cores: usize },
    #[error("an image linked for the single fat core runs alone, not beside {} others", cores - 1)]
    SingleWindowShared { cores: usize },
    #[error("image {image} is bound to window cpu{window}, not cpu{image}")]
    WindowMismatch { image: usize, window: u32 },
    #[error("{args} arguments do not fit the 4 KiB launch block")]
    LaunchBlockFull { args: usize },
    #[error("{}: the shape function of `{function}`: {message}", path.display())]
    ShapeProgram { path: PathBuf, function: String, message: String },
    #[error(transparent)]
    Sim(#[from] SimError),
}

fn expected_describe(kind: ArgKind) -> &'static str {
    match kind {
        ArgKind::Tensor => "a tensor",
        ArgKind::Scalar => "a Scalar",
        ArgKind::Int => "an int",
        ArgKind::Float => "a float (double)",
    }
}
