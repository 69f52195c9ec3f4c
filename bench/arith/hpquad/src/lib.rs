//! What the comparison's programs share: their timing loop.

use std::time::Instant;

/// The best of `reps` timed passes (after one untimed pass) in ns per result.
pub fn best_ns(reps: usize, results: usize, mut pass: impl FnMut()) -> f64 {
    pass();
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let start = Instant::now();
        pass();
        best = best.min(start.elapsed().as_secs_f64());
    }
    best * 1e9 / results as f64
}
