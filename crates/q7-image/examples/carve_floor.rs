//! The floor under `q7 inspect carve` for `scripts/bench.sh`: map the file as
//! carve does and count `\x7fELF` with memchr's vectorised `memmem`, the
//! file split across every core, and nothing else (no header checks, no
//! hashing, no report). No carve can take less time than this process on
//! the same machine, so its ratio to `grep -abo` bounds carve's.
//!
//! `cargo run --release -p q7-image --example carve_floor -- FILE` prints the
//! number of magic hits.

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: carve_floor FILE");
        return ExitCode::from(2);
    };
    let data = match q7_image::carve::map_file(path.as_ref()) {
        Ok(data) => data,
        Err(error) => {
            eprintln!("carve_floor: {}: {error}", path.to_string_lossy());
            return ExitCode::FAILURE;
        }
    };
    let magic = q7_image::carve::ELF_MAGIC;
    let finder = memchr::memmem::Finder::new(magic);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let part = data.len().div_ceil(cores).max(1);
    // Each part counts the magics that start inside it (reading up to three
    // bytes past its end), so a magic across a boundary counts once.
    let count = |start: usize| {
        let end = (start + part).min(data.len());
        let window = &data[start..(end + magic.len() - 1).min(data.len())];
        finder.find_iter(window).filter(|&at| start + at < end).count()
    };
    let hits: usize = std::thread::scope(|scope| {
        let others: Vec<_> =
            (1..cores).map(|i| i * part).filter(|&s| s < data.len()).map(|s| scope.spawn(move || count(s))).collect();
        count(0) + others.into_iter().map(|h| h.join().expect("count thread")).sum::<usize>()
    });
    println!("{hits}");
    ExitCode::SUCCESS
}
