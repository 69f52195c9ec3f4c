//! Side and block cutting: the paper's Fig. 3 and the schemes built on it (see the module
//! above for SCAQ and PSCAQ, which are a reading).
//!
//! ```text
//! length ← b - a;  upper ← b
//! while upper > a:
//!     lower ← max(upper - length, a)
//!     cut [lower, upper] into α·β intervals; approximate each, with its error
//!     block:  if Σ errors ≤ τ · (upper - lower) / (b - a):
//!                 accumulate the region; upper ← lower; expansion step: length ← 2 length
//!             else: length ← length / 2
//!     side:   cut off the intervals within their shares, from upper down to the first that
//!             is not; upper ← its upper end; length ← 2 length if all were, else length / 2
//! ```
//!
//! The expansion step is always taken by PBCAQ, BCAQ, SCAQ and PSCAQ; PBCAQr, PBCAQs and
//! PBCAQg decide it ([`Expansion`]). `length` never exceeds b - a, and a region that would
//! leave less than one of its intervals below it reaches down to a instead.

use precision::Real;

use super::region::{Cut, Region, RegionSums};
use super::{Pass, Run, Scheme, Total};
use crate::backend::Backend;
use crate::error::Result;
use crate::integrand::Integrand;

/// One cutting run of `scheme` with regions of `intervals` intervals (SCAQ: 1); `None` when
/// not even the first region fits the evaluation cap.
pub(super) fn cutting<T: Real, F: Integrand, B: Backend>(
    run: &mut Run<'_, T, F, B>,
    scheme: Scheme,
    intervals: usize,
) -> Result<Option<Pass<T>>> {
    let (block, n, parallel) = match scheme {
        Scheme::Scaq => (false, 1, false),
        Scheme::Pscaq => (false, intervals, true),
        Scheme::Bcaq => (true, intervals, false),
        _ => (true, intervals, true),
    };
    let mut expansion = Expansion::of(scheme);
    let step = run.pair.points(n);
    if !run.affords(step) {
        return Ok(None);
    }
    let (a, b) = (run.a, run.b);
    let whole = b - a;
    let (mut upper, mut length) = (b, whole);
    let mut total = Total::new();
    while upper > a {
        // Under the cap, the last region's points stay in reserve for what is left.
        let last = !run.affords(2 * step);
        // What would be left below the region when it is less than one of its intervals
        // (a sliver that rounding leaves) joins it.
        let below = upper - length - a;
        let lower = if last || below * T::from_i64(n as i64) < length {
            a
        } else {
            upper - length
        };
        let mut region = Region::new(run.pair, lower, upper, n, Cut::Block);
        let narrow = run.too_narrow(region.end(1) - region.lower);
        // Side cutting judges each interval on its share, once the tolerance is known; a
        // narrow region is kept whole.
        let side = !block && !last && !narrow;
        if let (true, Some(tolerance)) = (side, run.tolerance) {
            region.cut = Cut::Side {
                tolerance,
                span: run.span,
            };
        }
        let mut sums = run.step(&region, parallel)?;
        // The sum only until the size is known (a block step's: every interval counted).
        run.size_known(|| T::from_accumulator(sums.value));
        if side && region.cut == Cut::Block {
            // The first region of a relative tolerance, stepped before the shares were known:
            // again, judged on them, when the cap leaves room for it and a last region.
            if !run.affords(3 * step) {
                total.add_region(&sums);
                return Ok(Some(total.pass(true)));
            }
            region.cut = Cut::Side {
                tolerance: run.tolerance.unwrap_or(0.0),
                span: run.span,
            };
            sums = run.step(&region, parallel)?;
        }
        if last {
            total.add_region(&sums);
            return Ok(Some(total.pass(true)));
        }
        if block {
            let share = run.share(upper - lower);
            if narrow || sums.error <= share.max(2.0 * sums.floor) {
                total.add_region(&sums);
                upper = lower;
                if expansion.expand(&sums, n, share, run.pair.order()) {
                    length = (length + length).min(whole);
                }
            } else {
                length = length.ldexp(-1);
            }
        } else {
            // The intervals from sums.first up were within their shares.
            total.add_region(&sums);
            upper = region.end(sums.first);
            length = if sums.first == 0 {
                (length + length).min(whole)
            } else {
                length.ldexp(-1)
            };
        }
    }
    Ok(Some(total.pass(false)))
}

/// When to take the expansion step after a region is accepted (§4.2).
#[derive(Debug, Clone)]
enum Expansion {
    /// Always (PBCAQ as in Fig. 3).
    Always,
    /// On a coin flip (PBCAQr).
    Coin(SplitMix64),
    /// When the errors fall across the region towards the next one (PBCAQs).
    Slope,
    /// When ln(share / error) exceeds what doubling the width costs (PBCAQg).
    Log,
}

impl Expansion {
    fn of(scheme: Scheme) -> Expansion {
        match scheme {
            Scheme::PbcaqR { seed } => Expansion::Coin(SplitMix64(seed)),
            Scheme::PbcaqS => Expansion::Slope,
            Scheme::PbcaqG => Expansion::Log,
            _ => Expansion::Always,
        }
    }

    /// Whether to double the length after accepting a region of `intervals` intervals with
    /// `sums` (the next region lies below its first interval) against `share`, with a rule
    /// whose error goes as width^order.
    fn expand<T: Real>(
        &mut self,
        sums: &RegionSums<T>,
        intervals: usize,
        share: f64,
        order: f64,
    ) -> bool {
        let error = sums.error;
        match self {
            Expansion::Always => true,
            Expansion::Coin(generator) => generator.next() >> 63 == 1,
            Expansion::Slope => {
                // The slope of the errors in the direction of travel (from upper down to
                // lower), as the difference between the halves: falling when the half next to
                // the region ahead holds less error than the half behind.
                intervals < 2 || sums.error_lower < sums.error_upper
            }
            Expansion::Log => {
                // Doubling the width of α·β intervals multiplies the region's error by
                // 2^order and its share by 2: worth trying when the margin covers that.
                error == 0.0 || (share / error).ln() >= std::f64::consts::LN_2 * (order - 1.0)
            }
        }
    }
}

/// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA
/// 2014): a 64-bit state, one addition and a mixing function a draw; enough for a coin.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // The first outputs for seed 0 of the reference implementation (Vigna's splitmix64.c).
        let mut g = SplitMix64(0);
        assert_eq!(g.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(g.next(), 0x06C4_5D18_8009_454F);
    }
}
