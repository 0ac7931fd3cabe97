//! `cargo bench -p q7-pack`: q7's in-process packer against the GNU binutils
//! recipe on the largest fixture image, as the median of several runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use q7_pack::recipe::{pack_with_binutils, Binutils, RecipeOptions};
use q7_pack::PackOptions;

const Q7_RUNS: usize = 200;
const RECIPE_RUNS: usize = 20;

fn largest_fixture() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/bin");
    let mut images: Vec<(u64, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "so"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.len(), p)))
        .collect();
    images.sort();
    images.pop().expect("no fixture images in fixtures/bin").1
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let input = largest_fixture();
    let bytes = std::fs::read(&input).expect("read fixture");
    let opts = PackOptions::default();

    let q7 = median(
        (0..Q7_RUNS)
            .map(|_| {
                let t = Instant::now();
                let packed = q7_pack::pack(&bytes, &opts, &mut std::io::sink()).expect("q7 pack");
                let elapsed = t.elapsed();
                std::hint::black_box(packed);
                elapsed
            })
            .collect(),
    );

    let tools = Binutils::locate().unwrap_or_else(|e| panic!("{e}"));
    let recipe = median(
        (0..RECIPE_RUNS)
            .map(|_| {
                let t = Instant::now();
                let out = pack_with_binutils(&tools, &input, &RecipeOptions::default()).expect("binutils recipe");
                let elapsed = t.elapsed();
                std::hint::black_box(out);
                elapsed
            })
            .collect(),
    );

    println!(
        "{} ({} bytes): q7 pack: {:.1} µs (median of {Q7_RUNS}), binutils recipe: {:.1} ms (median of {RECIPE_RUNS}), ratio {:.0}×",
        input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        bytes.len(),
        q7.as_secs_f64() * 1e6,
        recipe.as_secs_f64() * 1e3,
        recipe.as_secs_f64() / q7.as_secs_f64()
    );
}
