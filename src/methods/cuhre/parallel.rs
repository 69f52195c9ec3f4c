//! CUHRE in rounds, for all CPU cores or the GPU: each round splits a batch of the worst
//! regions and gets all the children's class sums in one [`Backend::genz_malik_sums`] call
//! (rayon over the regions, or the rule kernel's block a region).
//!
//! The batch: the worst region, then the next worst as long as the error left in the regions
//! not taken still exceeds half the tolerance (splitting fewer could not meet it even if the
//! split ones became exact), at most half [`Backend::rule_round`] (the backend's round: 2^16 points'
//! worth on the CPU, 2^15 regions on the GPU) and the evaluation cap. Unlike the paper's GPU algorithm (its first phase splits every region above
//! a threshold into d pieces, its second runs Algorithm 1 per thread), a round keeps the one
//! global priority queue, so the regions split are close to Algorithm 1's and the batch size
//! does not depend on the number of threads: the same bits for any thread count.

use precision::Real;

use super::regions::Regions;
use super::Finish;
use crate::backend::Backend;
use crate::error::Result;
use crate::integrand::Integrand;
use crate::methods::Options;

/// Runs the rounds on the box `[lower, upper]` until the tolerance, the evaluation cap or a
/// queue with nothing left to split stops them.
pub(super) fn run<T: Real, F: Integrand, B: Backend>(
    regions: &mut Regions<'_, T, F, B>,
    lower: &[T],
    upper: &[T],
    options: &Options,
) -> Result<Finish> {
    let per_split = 2 * regions.rule.points() as u64;
    regions.start(lower, upper, true)?;
    // Splits a round: half the regions the backend takes in one call.
    let set = regions.rule.set();
    let round = (regions.backend.rule_round::<T, F>(regions.f, set) as u64 / 2).max(1);
    loop {
        if super::overflowed(regions) {
            return Ok(Finish::Exhausted);
        }
        if super::met(regions, options) {
            return Ok(Finish::Met);
        }
        let budget = options.max_evaluations.saturating_sub(regions.evaluations) / per_split;
        let max = budget.min(round) as usize;
        if max == 0 {
            return Ok(Finish::Capped);
        }
        let (value, error) = regions.running();
        let target = super::tolerance::<T>(options, value) / 2.0;
        let batch = regions.worklist.take_worst(error, target, max);
        if batch.is_empty() {
            return Ok(Finish::Exhausted);
        }
        regions.split(&batch, true)?;
    }
}
