//! Work spread over threads, results in item order: the one parallel map
//! the reports (over bytes and images) and the build (over compile jobs)
//! share. Scoped threads, not a pool: every caller is a short-lived process.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Threads to use for `items` units of work: one per core, at most one per unit.
pub fn workers(items: usize) -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(items).max(1)
}

/// `work` over every item on all cores, results in item order (`R` may
/// borrow from the items).
pub fn map<'t, T: Sync, R: Send>(items: &'t [T], work: impl Fn(&'t T) -> R + Sync) -> Vec<R> {
    match try_map(items, workers(items.len()), |t| Ok::<R, std::convert::Infallible>(work(t))) {
        Ok(results) => results,
        Err(never) => match never {},
    }
}

/// `work` over `items` on up to `jobs` threads, each taking the next few
/// items as it finishes (items differ in cost). After the first error no
/// new item starts, and the first error in item order is returned.
pub fn try_map<'t, T: Sync, R: Send, E: Send>(
    items: &'t [T],
    jobs: usize,
    work: impl Fn(&'t T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E> {
    let jobs = jobs.clamp(1, items.len().max(1));
    if jobs == 1 {
        return items.iter().map(work).collect();
    }
    // Items claimed a few at a time: one atomic add per batch, and still
    // many batches per thread to even out their costs.
    let batch = (items.len() / (jobs * 16)).max(1);
    let (next, failed) = (AtomicUsize::new(0), AtomicBool::new(false));
    let done: Vec<Vec<(usize, Result<R, E>)>> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    while !failed.load(Ordering::Relaxed) {
                        let start = next.fetch_add(batch, Ordering::Relaxed);
                        let Some(chunk) = items.get(start..items.len().min(start + batch)) else { break };
                        if chunk.is_empty() {
                            break;
                        }
                        for (i, item) in chunk.iter().enumerate() {
                            let r = work(item);
                            let bad = r.is_err();
                            out.push((start + i, r));
                            if bad {
                                failed.store(true, Ordering::Relaxed);
                                break;
                            }
                        }
                    }
                    out
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let mut slots: Vec<Option<Result<R, E>>> = (0..items.len()).map(|_| None).collect();
    for (i, r) in done.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_item_order() {
        let items: Vec<u32> = (0..1001).collect();
        assert_eq!(map(&items, |x| x * 3), items.iter().map(|x| x * 3).collect::<Vec<_>>());
        assert!(map(&[] as &[u32], |x| *x).is_empty());
        let words = ["a", "bb"];
        let borrowed: Vec<&str> = map(&words, |w| &w[..1]);
        assert_eq!(borrowed, ["a", "b"]);
    }

    #[test]
    fn try_map_keeps_order_and_reports_the_first_error() {
        let items: Vec<u32> = (0..50).collect();
        let doubled = try_map(&items, 4, |&i| Ok::<_, String>(i * 2)).unwrap();
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert_eq!(try_map(&items, 1, |&i| if i == 3 || i == 7 { Err(i) } else { Ok(i) }), Err(3));
        let r = try_map(&items, 4, |&i| if i == 3 || i == 7 { Err(i) } else { Ok(i) });
        assert!(matches!(r, Err(3) | Err(7)), "{r:?}");
        // After an error, items not yet started do not start.
        let started = AtomicUsize::new(0);
        let many: Vec<u32> = (0..10_000).collect();
        let _ = try_map(&many, 2, |&i| {
            started.fetch_add(1, Ordering::Relaxed);
            if i == 0 {
                Err(())
            } else {
                Ok(())
            }
        });
        assert!(started.load(Ordering::Relaxed) < many.len(), "every item ran after the first failed");
    }
}
