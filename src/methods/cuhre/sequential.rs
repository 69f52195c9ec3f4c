//! Sequential CUHRE, the paper's Algorithm 1 (Arumugam et al., §II.B), on the calling thread:
//!
//! ```text
//! (I_g, ε_g, κ) ← C-RULES([a, b]);  H ← {([a, b], I_g, ε_g, κ)}
//! while ε_g > max(τ_abs, τ_rel |I_g|):
//!     ([a, b], I, ε, κ) ← EXTRACT-MAX(H)
//!     split [a, b] at the middle of axis κ; C-RULES on both halves
//!     I_g ← I_g - I + I_left + I_right;  ε_g ← ε_g - ε + ε_left + ε_right
//!     INSERT both halves into H
//! ```
//!
//! The baseline that the parallel schedule's speed is measured against: one region a step,
//! its two children's points evaluated on the calling thread.

use precision::Real;

use super::regions::Regions;
use super::Finish;
use crate::backend::Backend;
use crate::error::Result;
use crate::integrand::Integrand;
use crate::methods::Options;

/// Runs Algorithm 1 on the box `[lower, upper]` until the tolerance, the evaluation cap or a
/// queue with nothing left to split stops it.
pub(super) fn run<T: Real, F: Integrand, B: Backend>(
    regions: &mut Regions<'_, T, F, B>,
    lower: &[T],
    upper: &[T],
    options: &Options,
) -> Result<Finish> {
    let per_split = 2 * regions.rule.points() as u64;
    regions.start(lower, upper, false)?;
    loop {
        if super::overflowed(regions) {
            return Ok(Finish::Exhausted);
        }
        if super::met(regions, options) {
            return Ok(Finish::Met);
        }
        if regions.evaluations.saturating_add(per_split) > options.max_evaluations {
            return Ok(Finish::Capped);
        }
        let (_, error) = regions.running();
        let worst = regions.worklist.take_worst(error, f64::INFINITY, 1);
        if worst.is_empty() {
            return Ok(Finish::Exhausted);
        }
        regions.split(&worst, false)?;
    }
}
