//! Work spread over the machine's cores with scoped threads (the reports
//! are short-lived processes; a thread pool would outlive its use).

/// Threads to use for `items` units of work: one per core, at most one per unit.
pub(crate) fn workers(items: usize) -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(items).max(1)
}

/// `f` over every item on all cores, results in item order.
/// (`R` may borrow from the items.)
pub(crate) fn map_parallel<'t, T: Sync, R: Send>(items: &'t [T], f: impl Fn(&'t T) -> R + Sync) -> Vec<R> {
    let n = workers(items.len());
    if n <= 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(n);
    std::thread::scope(|scope| {
        let f = &f;
        let parts: Vec<_> =
            items.chunks(chunk).map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>())).collect();
        parts.into_iter().flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_parallel_keeps_item_order() {
        let items: Vec<u32> = (0..1001).collect();
        assert_eq!(map_parallel(&items, |x| x * 3), items.iter().map(|x| x * 3).collect::<Vec<_>>());
        assert!(map_parallel(&[] as &[u32], |x| *x).is_empty());
    }
}
