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

use super::pair::Piece;
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
    let mut ends = Vec::with_capacity(n + 1);
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
        region_ends(lower, upper, n, &mut ends);
        let pieces = run.pieces(&ends, parallel)?;
        // The sum only until the size is known: after that it would be work thrown away.
        run.size_known(|| sum(&pieces));
        if last {
            total.add(&pieces);
            return Ok(Some(total.pass(true)));
        }
        let narrow = run.too_narrow(ends[1] - ends[0]);
        if block {
            let share = run.share(upper - lower);
            let error: f64 = pieces.iter().map(|p| p.error).sum();
            let floor: f64 = pieces.iter().map(|p| p.floor).sum();
            if narrow || error <= share.max(2.0 * floor) {
                total.add(&pieces);
                upper = lower;
                if expansion.expand(&pieces, share, error, run.pair.order()) {
                    length = (length + length).min(whole);
                }
            } else {
                length = length.ldexp(-1);
            }
        } else {
            let kept = pieces
                .iter()
                .zip(ends.windows(2))
                .rev()
                .take_while(|(piece, end)| narrow || piece.is_final(run.share(end[1] - end[0])))
                .count();
            let cut = n - kept;
            total.add(&pieces[cut..]);
            upper = ends[cut];
            length = if kept == n {
                (length + length).min(whole)
            } else {
                length.ldexp(-1)
            };
        }
    }
    Ok(Some(total.pass(false)))
}

/// The ends of `n` equal intervals of [lower, upper], the last exactly `upper`.
fn region_ends<T: Real>(lower: T, upper: T, n: usize, ends: &mut Vec<T>) {
    ends.clear();
    let width = (upper - lower) / T::from_i64(n as i64);
    ends.extend((0..n).map(|i| lower + width * T::from_i64(i as i64)));
    ends.push(upper);
}

/// The pieces' sum, for the size of the integral.
fn sum<T: Real>(pieces: &[Piece<T>]) -> T {
    let mut value = T::zero().to_accumulator();
    for piece in pieces {
        value = value + piece.value.to_accumulator();
    }
    T::from_accumulator(value)
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

    /// Whether to double the length after accepting `pieces` (in increasing order; the next
    /// region lies below the first), whose errors sum to `error` against `share`, with a rule
    /// whose error goes as width^order.
    fn expand<T>(&mut self, pieces: &[Piece<T>], share: f64, error: f64, order: f64) -> bool {
        match self {
            Expansion::Always => true,
            Expansion::Coin(generator) => generator.next() >> 63 == 1,
            Expansion::Slope => {
                // The slope of the errors in the direction of travel (from upper down to
                // lower), as the difference between the halves: falling when the half next to
                // the region ahead holds less error than the half behind.
                let (ahead, behind) = pieces.split_at(pieces.len() / 2);
                let sum = |half: &[Piece<T>]| half.iter().map(|p| p.error).sum::<f64>();
                ahead.is_empty() || sum(ahead) < sum(behind)
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

    #[test]
    fn region_ends_tile_the_region() {
        let mut ends = Vec::new();
        region_ends(1.0, 2.0, 4, &mut ends);
        assert_eq!(ends, vec![1.0, 1.25, 1.5, 1.75, 2.0]);
    }
}
