//! The examples and the builtin SORT/TopK library run under `q7 run` (the
//! eight-core simulator, with its stray-store, race and unwritten-read checks
//! on) and agree with host references written here: bit for bit where the op
//! fixes the order of its float operations, as every example does.
//!
//! Tensors travel as `.npy` files (format 1.0, `<f4`), written and read by
//! the small codec below.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::*;

// ---------------------------------------------------------------------------
// .npy format 1.0, little-endian float32 only.
// ---------------------------------------------------------------------------

fn npy_write(path: &Path, shape: &[usize], data: &[f32]) {
    assert_eq!(shape.iter().product::<usize>(), data.len());
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape_text = if shape.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    for v in data {
        bytes.extend(v.to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

fn npy_read(path: &Path) -> (Vec<usize>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "{}: not .npy 1.0", path.display());
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
    assert!(header.contains("'descr': '<f4'"), "{header}");
    assert!(header.contains("'fortran_order': False"), "{header}");
    let shape_text = header.split("'shape': (").nth(1).unwrap().split(')').next().unwrap();
    let shape: Vec<usize> =
        shape_text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
    let data: Vec<f32> =
        bytes[10 + len..].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(shape.iter().product::<usize>(), data.len(), "{header}");
    (shape, data)
}

#[test]
fn npy_codec_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.npy");
    npy_write(&p, &[2, 3], &[1.0, -2.5, 0.0, f32::INFINITY, -0.0, 3.25]);
    let (shape, data) = npy_read(&p);
    assert_eq!(shape, vec![2, 3]);
    assert_eq!(data[3], f32::INFINITY);
    assert_eq!(data[4].to_bits(), (-0.0f32).to_bits());
    assert_eq!((std::fs::read(&p).unwrap().len() - 24) % 64, 0, "the header pads to 64 bytes");
    npy_write(&p, &[0], &[]);
    assert_eq!(npy_read(&p), (vec![0], vec![]));
}

// ---------------------------------------------------------------------------
// Inputs, from the shared deterministic generator.
// ---------------------------------------------------------------------------

use q7_testkit::Rng;

fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| r.uniform(-100.0, 100.0)).collect()
}

/// Many ties: small integers.
fn ties(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| r.below(9) as f32 - 4.0).collect()
}

// ---------------------------------------------------------------------------
// Building and running.
// ---------------------------------------------------------------------------

fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("q7-cache")
}

/// Builds the project in `folder` (relative to the repository root) into a
/// build directory of this test binary, once per run.
fn build(folder: &str) -> PathBuf {
    let b = Path::new(env!("CARGO_TARGET_TMPDIR")).join("examples-run").join(folder.replace('/', "-"));
    let out = Command::new(env!("CARGO_BIN_EXE_q7"))
        .current_dir(root().join(folder))
        .env("Q7_CACHE_DIR", cache())
        .args(["build", "--toolchain", "open", "--build-dir"])
        .arg(&b)
        .output()
        .expect("run q7");
    assert!(out.status.success(), "{folder}: {}", stderr(&out));
    b
}

fn builtin() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build("builtin"))
}

/// A kernel argument of `q7 run`.
#[derive(Clone)]
enum Arg<'a> {
    Tensor(&'a [usize], &'a [f32]),
    Double(f64),
    Int(i64),
}

#[derive(Clone)]
struct Run<'a> {
    image: &'a Path,
    function: &'a str,
    args: Vec<Arg<'a>>,
    dst_shape: Option<Vec<usize>>,
    cores: Option<u32>,
    seed: u64,
    /// More flags, as given.
    flags: Vec<&'a str>,
}

impl<'a> Run<'a> {
    fn new(image: &'a Path, function: &'a str) -> Run<'a> {
        Run { image, function, args: Vec::new(), dst_shape: None, cores: None, seed: 0, flags: Vec::new() }
    }
    fn tensor(mut self, shape: &'a [usize], data: &'a [f32]) -> Self {
        self.args.push(Arg::Tensor(shape, data));
        self
    }
    fn double(mut self, v: f64) -> Self {
        self.args.push(Arg::Double(v));
        self
    }
    fn int(mut self, v: i64) -> Self {
        self.args.push(Arg::Int(v));
        self
    }
    fn dst(mut self, shape: &[usize]) -> Self {
        self.dst_shape = Some(shape.to_vec());
        self
    }
    fn cores(mut self, n: u32) -> Self {
        self.cores = Some(n);
        self
    }
    fn seed(mut self, s: u64) -> Self {
        self.seed = s;
        self
    }

    fn output(&self) -> (Output, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_q7"));
        cmd.arg("run").arg(self.image).args(["--fn", self.function]);
        for (i, a) in self.args.iter().enumerate() {
            match a {
                Arg::Tensor(shape, data) => {
                    let p = dir.path().join(format!("in{i}.npy"));
                    npy_write(&p, shape, data);
                    cmd.arg("--in").arg(p);
                }
                Arg::Double(v) => {
                    cmd.arg(format!("--double={v:?}"));
                }
                Arg::Int(v) => {
                    cmd.arg(format!("--int={v}"));
                }
            }
        }
        if let Some(shape) = &self.dst_shape {
            let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
            cmd.arg(format!("--dst-shape={}", dims.join(",")));
        }
        if let Some(n) = self.cores {
            cmd.arg(format!("--cores={n}"));
        }
        cmd.arg(format!("--seed={}", self.seed));
        cmd.args(&self.flags);
        cmd.arg("--out").arg(dir.path().join("out.npy"));
        (cmd.output().expect("run q7"), dir)
    }

    /// `q7 run IMAGE --fn F` with the arguments' shapes and values.
    fn describe(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| match a {
                Arg::Tensor(shape, _) => format!("--in {shape:?}"),
                Arg::Double(v) => format!("--double {v}"),
                Arg::Int(v) => format!("--int {v}"),
            })
            .collect();
        format!(
            "q7 run {} --fn {} {} (dst {:?}, cores {:?}, seed {})",
            self.image.display(),
            self.function,
            args.join(" "),
            self.dst_shape,
            self.cores,
            self.seed
        )
    }

    /// Runs and returns the output tensor; any failure or check finding
    /// fails the test.
    fn run(&self) -> (Vec<usize>, Vec<f32>) {
        let (out, dir) = self.output();
        assert!(out.status.success(), "{}: {}{}", self.describe(), stdout(&out), stderr(&out));
        npy_read(&dir.path().join("out.npy"))
    }
}

/// Bitwise equality, with every NaN equal to every NaN.
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn assert_same(what: &str, got: &[f32], want: &[f32]) {
    if !same_bits(got, want) {
        let first = got.iter().zip(want).position(|(x, y)| x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()));
        panic!(
            "{what}: {} outputs vs {} expected; first difference at {first:?}: {:?} vs {:?}",
            got.len(),
            want.len(),
            first.map(|i| got[i]),
            first.map(|i| want[i])
        );
    }
}

// ---------------------------------------------------------------------------
// Host references.
// ---------------------------------------------------------------------------

fn relu_ref(x: &[f32]) -> Vec<f32> {
    x.iter().map(|&v| if v > 0.0 { v } else { 0.0 }).collect()
}

fn scale_add_ref(x: &[f32], alpha: f64) -> Vec<f32> {
    let a = alpha as f32;
    x.iter()
        .map(|&v| {
            let scaled = a * v;
            v + scaled
        })
        .collect()
}

fn sum_ref(x: &[f32]) -> f32 {
    x.iter().fold(0.0f32, |s, &v| s + v)
}

fn max_ref(x: &[f32]) -> f32 {
    let mut best = x[0];
    for &v in &x[1..] {
        if v > best || v.is_nan() {
            best = v;
        }
        if best.is_nan() {
            break;
        }
    }
    best
}

/// Generalised IoU of box pairs, every rounding as in examples/giou_multicore.
fn giou_ref(a: &[f32], b: &[f32]) -> Vec<f32> {
    let max = |x: f32, y: f32| if x > y { x } else { y };
    let min = |x: f32, y: f32| if x < y { x } else { y };
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .map(|(a, b)| {
            let area_a = (a[2] - a[0]) * (a[3] - a[1]);
            let area_b = (b[2] - b[0]) * (b[3] - b[1]);
            let inter_w = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0);
            let inter_h = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0);
            let inter = inter_w * inter_h;
            let uni = (area_a + area_b) - inter;
            let iou = inter / uni;
            let hull = (max(a[2], b[2]) - min(a[0], b[0])) * (max(a[3], b[3]) - min(a[1], b[1]));
            iou - (hull - uni) / hull
        })
        .collect()
}

/// torch.sort's order: ascending, NaN last.
fn sort_ref(x: &[f32]) -> Vec<f32> {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or_else(|| a.is_nan().cmp(&b.is_nan())));
    v
}

/// torch.topk(x, k).values: the k largest, largest first (NaN counts as largest).
fn topk_ref(x: &[f32], k: usize) -> Vec<f32> {
    let mut v = sort_ref(x);
    v.reverse();
    v.truncate(k);
    v
}

/// Random [n, 4] boxes (x1, y1, x2, y2) with positive width and height.
fn boxes(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    let mut v = Vec::with_capacity(4 * n);
    for _ in 0..n {
        let (x, y) = (r.uniform(-50.0, 50.0), r.uniform(-50.0, 50.0));
        v.extend([x, y, x + r.uniform(0.5, 30.0), y + r.uniform(0.5, 30.0)]);
    }
    v
}

// ---------------------------------------------------------------------------
// The examples.
// ---------------------------------------------------------------------------

fn relu_inputs() -> Vec<Vec<f32>> {
    let mut special = vec![0.0, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE, -f32::MAX];
    special.extend(random(13, 1));
    vec![special, random(1000, 2), random(4099, 3), vec![]]
}

fn check_relu(folder: &str) {
    let b = build(&format!("examples/{folder}"));
    for x in relu_inputs() {
        let shape = [x.len()];
        let (out_shape, y) = Run::new(&b, "relu_forward").tensor(&shape, &x).run();
        assert_eq!(out_shape, shape, "{folder}");
        assert_same(&format!("{folder}, n = {}", x.len()), &y, &relu_ref(&x));
    }
}

#[test]
fn relu() {
    check_relu("relu");
}

#[test]
fn relu_stream() {
    check_relu("relu_stream");
}

#[test]
fn relu_tcm() {
    check_relu("relu_tcm");
}

#[test]
fn relu_multicore() {
    let b = build("examples/relu_multicore");
    for x in [random(1000, 4), random(4096, 5), random(8, 6)] {
        let shape = [x.len()];
        let (_, y) = Run::new(&b, "relu_forward").tensor(&shape, &x).run();
        assert_same(&format!("relu_multicore, n = {}", x.len()), &y, &relu_ref(&x));
    }
}

#[test]
fn scale_add() {
    let b = build("examples/scale_add");
    for (n, alpha) in [(1000, 0.3), (17, -2.5), (4099, 1e-3), (3, 0.0)] {
        let x = random(n, n as u64);
        let (_, y) = Run::new(&b, "scale_add").tensor(&[n], &x).double(alpha).run();
        assert_same(&format!("scale_add n = {n}, alpha = {alpha}"), &y, &scale_add_ref(&x, alpha));
    }
}

#[test]
fn reduce() {
    let b = build("examples/reduce");
    for (n, seed) in [(1, 7), (1000, 8), (4099, 9)] {
        let x = random(n, seed);
        let (shape, s) = Run::new(&b, "reduce_sum").tensor(&[n], &x).run();
        assert_eq!(shape, vec![1]);
        assert_same(&format!("reduce_sum n = {n}"), &s, &[sum_ref(&x)]);
        let (_, m) = Run::new(&b, "reduce_max").tensor(&[n], &x).run();
        assert_same(&format!("reduce_max n = {n}"), &m, &[max_ref(&x)]);
    }
    let (_, s) = Run::new(&b, "reduce_sum").tensor(&[0], &[]).run();
    assert_same("sum of nothing", &s, &[0.0]);
    let x = [1.0, f32::NAN, 3.0];
    let (_, m) = Run::new(&b, "reduce_max").tensor(&[3], &x).run();
    assert!(m[0].is_nan(), "max propagates NaN");
}

#[test]
fn giou_multicore() {
    let b = build("examples/giou_multicore");
    for n in [1, 7, 8, 101, 1000, 2051] {
        let (a, c) = (boxes(n, 10 + n as u64), boxes(n, 20 + n as u64));
        let shape = [n, 4];
        let (out_shape, g) = Run::new(&b, "giou_forward").tensor(&shape, &a).tensor(&shape, &c).dst(&[n]).run();
        assert_eq!(out_shape, vec![n]);
        assert_same(&format!("giou n = {n}"), &g, &giou_ref(&a, &c));
        assert!(g.iter().all(|&v| (-1.0 - 1e-6..=1.0 + 1e-6).contains(&v)), "GIoU lies in [-1, 1]");
    }
    // Identical boxes: 1; far-apart unit boxes: close to -1.
    let a = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0];
    let c = [0.0, 0.0, 1.0, 1.0, 99.0, 99.0, 100.0, 100.0];
    let (_, g) = Run::new(&b, "giou_forward").tensor(&[2, 4], &a).tensor(&[2, 4], &c).dst(&[2]).run();
    assert_eq!(g[0], 1.0);
    assert!(g[1] < -0.99, "{}", g[1]);
}

// ---------------------------------------------------------------------------
// The builtin library.
// ---------------------------------------------------------------------------

/// Sizes: below, at and above multiples of 8, and one whose per-core share
/// (8192 keys) does not fit TCM, so the local sort runs in the heap.
const SIZES: [usize; 9] = [1, 5, 8, 13, 100, 999, 1000, 4099, 40_003];

#[test]
fn sort_multicore_random_and_ties() {
    for (i, &n) in SIZES.iter().enumerate() {
        for x in [random(n, 100 + i as u64), ties(n, 200 + i as u64)] {
            let (shape, y) = Run::new(builtin(), "sort_multicore_compute").tensor(&[n], &x).run();
            assert_eq!(shape, vec![n]);
            assert_same(&format!("sort_multicore n = {n}"), &y, &sort_ref(&x));
        }
    }
}

#[test]
fn sort_multicore_special_values_and_core_counts() {
    let mut x = ties(1003, 300);
    x[0] = f32::NAN;
    x[17] = f32::INFINITY;
    x[18] = f32::NEG_INFINITY;
    x[500] = -0.0;
    x[999] = f32::NAN;
    x[2] = f32::MAX;
    x[3] = f32::from_bits(1); // the smallest subnormal
    let want = sort_ref(&x);
    for cores in [1, 2, 4, 8] {
        let (_, y) = Run::new(builtin(), "sort_multicore_compute").tensor(&[x.len()], &x).cores(cores).run();
        // -0.0 and 0.0 are equal keys for torch; compare them as values.
        let canon = |v: &[f32]| v.iter().map(|&f| if f == 0.0 { 0.0 } else { f }).collect::<Vec<f32>>();
        assert_same(&format!("special values on {cores} cores"), &canon(&y), &canon(&want));
    }
    // Other interleavings of the cores give the same result.
    for seed in [1, 2, 3] {
        let x = random(777, seed);
        let (_, y) = Run::new(builtin(), "sort_multicore_compute").tensor(&[777], &x).seed(seed).run();
        assert_same(&format!("seed {seed}"), &y, &sort_ref(&x));
    }
}

#[test]
fn sort_singlecore() {
    for (i, &n) in [1, 13, 1000, 4099, 5000].iter().enumerate() {
        let x = if i % 2 == 0 { random(n, 400 + i as u64) } else { ties(n, 400 + i as u64) };
        for cores in [1, 8] {
            let (_, y) = Run::new(builtin(), "sort_singlecore_compute").tensor(&[n], &x).cores(cores).run();
            assert_same(&format!("sort_singlecore n = {n} on {cores} cores"), &y, &sort_ref(&x));
        }
    }
}

#[test]
fn partial_sort_then_partial_merge() {
    for (i, &n) in [13usize, 1000, 1003, 4099].iter().enumerate() {
        let x = if i % 2 == 0 { random(n, 500 + i as u64) } else { ties(n, 500 + i as u64) };
        let (_, runs) = Run::new(builtin(), "partial_sort_multicore_compute").tensor(&[n], &x).run();
        // Eight balanced shares, each sorted, each a permutation of its input share.
        let (share, extra) = (n / 8, n % 8);
        let mut at = 0;
        for c in 0..8 {
            let len = share + usize::from(c < extra);
            assert_same(&format!("n = {n}: share of core {c}"), &runs[at..at + len], &sort_ref(&x[at..at + len]));
            at += len;
        }
        let (_, merged) = Run::new(builtin(), "partial_merge_multicore_compute").tensor(&[n], &runs).run();
        assert_same(&format!("partial merge n = {n}"), &merged, &sort_ref(&x));
    }
}

#[test]
fn topk_multicore() {
    for (i, &n) in [1usize, 13, 100, 1003, 4099].iter().enumerate() {
        let x = if i % 2 == 0 { random(n, 600 + i as u64) } else { ties(n, 600 + i as u64) };
        let mut ks = vec![0, 1, 3, n / 2, n];
        ks.retain(|&k| k <= n);
        ks.dedup();
        for k in ks {
            let (shape, y) =
                Run::new(builtin(), "topk_multicore_compute").tensor(&[n], &x).int(k as i64).dst(&[k]).run();
            assert_eq!(shape, vec![k]);
            assert_same(&format!("topk n = {n}, k = {k}"), &y, &topk_ref(&x, k));
        }
    }
}

#[test]
fn builtin_failures_are_reported_not_hung() {
    // An input whose shares are not sorted: the core that sees it fails, and
    // the others abandon the launch at the next barrier instead of waiting.
    let mut x: Vec<f32> = (0..100).map(|v| v as f32).collect();
    x.swap(95, 96); // in core 7's share
    let (out, _dir) = Run::new(builtin(), "partial_merge_multicore_compute").tensor(&[100], &x).output();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("[core 7] partial_merge_multicore_compute: the input is not sorted"), "{err}");
    assert!(err.contains("another core failed; abandoning the launch"), "{err}");

    let (out, _dir) =
        Run::new(builtin(), "topk_multicore_compute").tensor(&[4], &[1.0, 2.0, 3.0, 4.0]).int(5).dst(&[5]).output();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("topk_multicore_compute: k must lie in [0, x.numel()]"), "{}", stderr(&out));
}

/// The engine differential test on the example ops: each runs under
/// `--engine interp` and `--engine jit`, checks on and off; the output
/// tensors are identical to the bit and the JSON reports (instruction and
/// cycle counts per core, blocks decoded, findings, console) identical but
/// for the wall time and the output's path.
#[test]
fn engines_agree_on_the_examples() {
    let relu_x = random(20_000, 31);
    let (box_a, box_b) = (boxes(3000, 32), boxes(3000, 33));
    let sort_x = ties(5000, 34);
    let folders = ["relu", "relu_stream", "relu_tcm", "relu_multicore", "giou_multicore"];
    let images: Vec<PathBuf> = folders.iter().map(|f| build(&format!("examples/{f}"))).collect();
    let mut runs: Vec<Run> =
        images[..4].iter().map(|b| Run::new(b, "relu_forward").tensor(&[20_000], &relu_x)).collect();
    runs.push(Run::new(&images[4], "giou_forward").tensor(&[3000, 4], &box_a).tensor(&[3000, 4], &box_b).dst(&[3000]));
    runs.push(Run::new(builtin(), "sort_multicore_compute").tensor(&[5000], &sort_x));
    for run in runs {
        for checks in [&[][..], &["--no-checks"][..]] {
            let results: Vec<(String, Vec<u8>)> = ["interp", "jit"]
                .iter()
                .map(|engine| {
                    let mut run = run.clone();
                    // Counts per core are the round-robin's: without checks
                    // the cores would run on host threads, where how long a
                    // core spins waiting for another varies.
                    run.flags = [&["--json", "--deterministic", "--engine", engine][..], checks].concat();
                    let (out, dir) = run.output();
                    assert!(out.status.success(), "{} --engine {engine}: {}", run.describe(), stderr(&out));
                    let mut report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
                    // All but the wall time, where the output went and what
                    // the JIT compiled.
                    for key in ["wall_seconds", "output_path", "jit"] {
                        report.as_object_mut().unwrap().remove(key);
                    }
                    (report.to_string(), std::fs::read(dir.path().join("out.npy")).unwrap())
                })
                .collect();
            assert!(results[0].0.contains("\"instructions\""), "{}", results[0].0);
            assert_eq!(results[0].0, results[1].0, "{} {checks:?}: reports of the engines", run.describe());
            assert!(results[0].1 == results[1].1, "{} {checks:?}: output tensors of the engines", run.describe());
        }
    }
}
