//! CAQ, the paper's "common adaptive quadrature" (§2): sequential, queue-based divide and
//! conquer, the baseline of every speedup.
//!
//! ```text
//! queue ← [(a, b) with its estimate]
//! while an interval i_m is left in the queue (first in, first out):
//!     if |s_c - s_f| ≤ τ_m: accumulate s_f            (an immediate computation)
//!     else: estimate both halves, queue them with τ_m / 2 each   (a mediate computation)
//! ```
//!
//! τ_m is the interval's share of the tolerance, τ · width / (b - a). The queue holds
//! intervals already estimated, so when the evaluation cap comes, every interval still in it
//! is counted with its own estimate and error. One interval (or one pair of halves) is
//! evaluated at a time, on the calling thread.

use std::collections::VecDeque;

use precision::Real;

use super::{Pass, Run, Total};
use crate::backend::Backend;
use crate::error::Result;
use crate::integrand::Integrand;

/// One CAQ run; `None` when not even the first interval fits the evaluation cap.
pub(super) fn caq<T: Real, F: Integrand, B: Backend>(
    run: &mut Run<'_, T, F, B>,
) -> Result<Option<Pass<T>>> {
    if !run.affords(run.pair.points(1)) {
        return Ok(None);
    }
    let (a, b) = (run.a, run.b);
    let first = run.pieces(&[a, b])?;
    run.size_known(|| first[0].value);
    let mut queue = VecDeque::from([(a, b, first[0])]);
    let mut total = Total::new();
    let mut capped = false;
    while let Some((lower, upper, piece)) = queue.pop_front() {
        let width = upper - lower;
        if piece.is_final(run.share(width)) || run.too_narrow(width) {
            total.add(&[piece]);
            continue;
        }
        if !run.affords(run.pair.points(2)) {
            // The cap: what is left counts as it stands.
            capped = true;
            total.add(&[piece]);
            for (_, _, piece) in queue.drain(..) {
                total.add(&[piece]);
            }
            break;
        }
        let middle = lower + width.ldexp(-1);
        let halves = run.pieces(&[lower, middle, upper])?;
        queue.push_back((lower, middle, halves[0]));
        queue.push_back((middle, upper, halves[1]));
    }
    Ok(Some(total.pass(capped)))
}
