//! When each phase of a build ran and how much work its steps did, so `-v`
//! can show where the wall time goes and how well the jobs overlapped.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One phase: its span from the start of the build and the summed wall time
/// of its steps (above the span when steps overlapped).
#[derive(Clone, Debug, serde::Serialize)]
pub struct PhaseTime {
    pub name: String,
    pub start: Duration,
    pub end: Duration,
    pub steps: usize,
    pub work: Duration,
    /// The longest single job (a phase cannot end sooner).
    pub longest: Duration,
}

impl PhaseTime {
    /// Work over elapsed time: how many steps ran at once on average.
    pub fn overlap(&self) -> f64 {
        let span = (self.end - self.start).as_secs_f64();
        if span > 0.0 {
            self.work.as_secs_f64() / span
        } else {
            1.0
        }
    }

    /// The shortest this phase could take with `jobs` free cores: its longest
    /// job, or its work shared out evenly, whichever is longer.
    pub fn bound(&self, jobs: usize) -> Duration {
        self.longest.max(self.work / jobs.max(1) as u32)
    }
}

/// Records phases as the build runs them.
pub struct Timeline {
    origin: Instant,
    phases: Vec<PhaseTime>,
}

/// The step clock of one running phase; shared by its worker threads.
pub struct StepClock {
    work_ns: AtomicU64,
    longest_ns: AtomicU64,
}

impl StepClock {
    /// Runs one job, adding its wall time to the phase's work.
    pub fn step<R>(&self, f: impl FnOnce() -> R) -> R {
        let t = Instant::now();
        let r = f();
        let ns = t.elapsed().as_nanos() as u64;
        self.work_ns.fetch_add(ns, Ordering::Relaxed);
        self.longest_ns.fetch_max(ns, Ordering::Relaxed);
        r
    }
}

impl Timeline {
    pub fn start() -> Timeline {
        Timeline { origin: Instant::now(), phases: Vec::new() }
    }

    /// Runs phase `name` of `steps` steps; `f` times each step with the clock.
    pub fn phase<R>(&mut self, name: &str, steps: usize, f: impl FnOnce(&StepClock) -> R) -> R {
        let start = self.origin.elapsed();
        let clock = StepClock { work_ns: AtomicU64::new(0), longest_ns: AtomicU64::new(0) };
        let r = f(&clock);
        let end = self.origin.elapsed();
        let timed = clock.work_ns.into_inner();
        // A phase that timed no jobs counts as one job of its whole span.
        let (work, longest) = if timed == 0 {
            (end - start, end - start)
        } else {
            (Duration::from_nanos(timed), Duration::from_nanos(clock.longest_ns.into_inner()))
        };
        self.phases.push(PhaseTime { name: name.to_string(), start, end, steps, work, longest });
        r
    }

    pub fn phases(&self) -> &[PhaseTime] {
        &self.phases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_steps_show_as_more_work_than_span() {
        let mut t = Timeline::start();
        t.phase("serial", 1, |_| std::thread::sleep(Duration::from_millis(5)));
        t.phase("two at once", 2, |clock| {
            std::thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| clock.step(|| std::thread::sleep(Duration::from_millis(20))));
                }
            })
        });
        let p = t.phases();
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].name.as_str(), p[1].name.as_str()), ("serial", "two at once"));
        assert!(p[0].end <= p[1].start);
        assert!(p[0].work >= Duration::from_millis(5));
        assert!(p[1].work >= Duration::from_millis(40), "{:?}", p[1].work);
        assert_eq!(p[1].steps, 2);
        assert!(p[1].longest >= Duration::from_millis(20) && p[1].longest < p[1].work);
        // Two 20 ms jobs: on two free cores the phase takes one job's time.
        assert_eq!(p[1].bound(2), p[1].longest.max(p[1].work / 2));
        assert_eq!(p[1].bound(1), p[1].work);
    }
}
