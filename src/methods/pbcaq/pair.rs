//! The coarse and fine rule on one interval, and the error estimate that their difference gives.
//!
//! Every scheme of the family cuts runs of adjacent intervals (a region is one run, a CAQ
//! interval a run of one) and asks two things of the pair: the points of a run, which go to
//! the backend in one batch, and from their values each interval's estimate, error and
//! rounding floor.
//!
//! - Trapezoid against Simpson, the paper's pair (its footnote 2): T = h/2 (f(a) + f(b)),
//!   S = h/6 (f(a) + 4 f(m) + f(b)), value S, error |S - T|. Adjacent intervals share their
//!   ends, so a run of n intervals costs 2n + 1 points. |S - T| = h³ |f''| / 12 + O(h⁵) is
//!   the error of the coarse rule, far above the fine rule's h⁵ |f''''| / 2880 on small
//!   intervals: honest, and the reason the pair cannot reach dd or qd accuracy in a sane
//!   number of intervals.
//! - Gauss–Kronrod (the default): the (2n+1)-point Kronrod rule and its n-point Gauss rule
//!   from [`crate::rules::kronrod`], with QUADPACK's error (Piessens et al. 1983, QK21):
//!   resasc · min(1, (200 |K - G| / resasc)^1.5). See `gauss_kronrod.rs` for the constants;
//!   here the power is r √r, which the GPU's region kernel rounds as the host does.
//!
//! The rounding floor of an interval is what no halving removes: the values' rounding
//! (4 ε ∫|f|, the sums being compensated, and 2 ε |value|) plus what rounding the abscissae to
//! the working precision does to the sum ([`crate::rules::KronrodRule::abscissa_rounding`]).
//! Both shrink with the width as a share of the tolerance does, so an interval whose error is
//! within twice its floor is final: halving it would never bring it closer.

use std::sync::Arc;

use precision::Real;

use super::super::gauss_kronrod::quadpack_estimate;
use super::super::rounding_floor;
use crate::error::Result;
use crate::rules::{self, KronrodRule};

/// The pair of rules applied to each interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IntervalRule {
    /// A Gauss–Kronrod pair whose order fits the precision ([`default_gauss_points`]):
    /// G10–K21 for f64, G20–K41 for dd and qd.
    #[default]
    GaussKronrod,
    /// The paper's pair: trapezoid (coarse) against Simpson (fine), 2 points per interval.
    TrapezoidSimpson,
}

impl IntervalRule {
    /// The name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            IntervalRule::GaussKronrod => "gauss-kronrod",
            IntervalRule::TrapezoidSimpson => "trapezoid-simpson",
        }
    }
}

/// The Gauss rule that the default Kronrod rule extends, by precision: 10 for f64 (G10–K21,
/// QUADPACK's QAGS rule), 20 for dd and qd (G20–K41).
///
/// Measured by `tests/pbcaq.rs::kronrod_orders` (release build, 2 threads; `cargo test
/// --release --test pbcaq -- --ignored --nocapture kronrod_orders`): evaluations summed over
/// the first interval of each Table 2 function, at the default tolerance (qd: 1e-50), every
/// run converged and honest:
///
/// ```text
///            G7      G10     G15     G20     G30     G40
/// f64 CAQ    7170    5628    4464    5330
/// f64 PBCAQ  411k    280k    377k    249k
/// dd  CAQ            15498   11718   11562   12566
/// dd  PBCAQ          699k    984k    651k    921k
/// qd  CAQ                    31310   23944   23546   28512
/// qd  PBCAQ                  1.85M   1.22M   1.78M   1.18M
/// ```
///
/// CAQ shows the order alone: flat near the best. PBCAQ's figures are x^(-x)'s, whose kink at
/// 0 costs a region per halving (the smooth functions take one region at every order), and
/// move with α·β, which steps by powers of two as the rule grows ([`super::region_intervals`]).
/// G10 is within a quarter of the best in f64 and the best of PBCAQ's first three; G20 is at
/// or near the best of both schemes in dd and qd.
pub fn default_gauss_points<T: Real>() -> usize {
    match T::LIMBS {
        1 => 10,
        _ => 20,
    }
}

/// One interval's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Piece<T> {
    /// The fine rule's estimate of the integral over the interval.
    pub value: T,
    /// The error estimate, never below `floor`.
    pub error: f64,
    /// The error that rounding alone leaves.
    pub floor: f64,
}

impl<T> Piece<T> {
    /// Whether the piece needs no halving to meet `tolerance`: its error is within it, or
    /// within twice its rounding floor (see the module's note).
    pub fn is_final(&self, tolerance: f64) -> bool {
        self.error <= tolerance.max(2.0 * self.floor)
    }
}

/// The pair of rules in the working precision, as a region step ([`super::region::Region`])
/// applies it to each interval.
#[derive(Debug, Clone)]
pub enum Pair<T> {
    /// A Gauss–Kronrod rule: the Kronrod estimate, QUADPACK's error from the Gauss one.
    Kronrod(Arc<KronrodRule<T>>),
    /// The paper's pair: Simpson's estimate, its difference from the trapezoid's the error.
    TrapezoidSimpson,
}

impl<T: Real> Pair<T> {
    /// The pair for `rule`, a Kronrod rule extending `gauss_points` Gauss points (`None`:
    /// [`default_gauss_points`]).
    pub(super) fn new(rule: IntervalRule, gauss_points: Option<usize>) -> Result<Pair<T>> {
        Ok(match rule {
            IntervalRule::GaussKronrod => Pair::Kronrod(rules::kronrod::<T>(
                gauss_points.unwrap_or_else(default_gauss_points::<T>),
            )?),
            IntervalRule::TrapezoidSimpson => Pair::TrapezoidSimpson,
        })
    }

    /// The points that a run of `count` adjacent intervals costs.
    pub fn points(&self, count: usize) -> usize {
        match self {
            Pair::Kronrod(rule) => count * rule.points(),
            Pair::TrapezoidSimpson => 2 * count + 1,
        }
    }

    /// The index of interval `i`'s first point in the points of a run (as the pair lays out its abscissae):
    /// the run's intervals from `i` on have theirs from there.
    pub fn first_point(&self, i: usize) -> usize {
        match self {
            Pair::Kronrod(rule) => i * rule.points(),
            Pair::TrapezoidSimpson => 2 * i,
        }
    }

    /// The power of the width in an interval's error estimate, for a smooth integrand:
    /// |S - T| goes as h³; QUADPACK's scaled Kronrod error as h · (h^(2n+1) / h)^1.5 =
    /// h^(3n+1). PBCAQg compares the region's margin with what doubling the width costs.
    pub(super) fn order(&self) -> f64 {
        match self {
            Pair::Kronrod(rule) => 3.0 * rule.gauss_points() as f64 + 1.0,
            Pair::TrapezoidSimpson => 3.0,
        }
    }

    /// Appends the points of the run of intervals [ends[i], ends[i + 1]] to `out`: the Kronrod
    /// abscissae of each interval in turn, or the ends and midpoints in increasing order.
    pub(crate) fn abscissae(&self, ends: &[T], out: &mut Vec<T>) {
        match self {
            Pair::Kronrod(rule) => {
                for end in ends.windows(2) {
                    rule.abscissae(end[0], end[1], out);
                }
            }
            Pair::TrapezoidSimpson => {
                for end in ends.windows(2) {
                    out.push(end[0]);
                    out.push(end[0] + (end[1] - end[0]).ldexp(-1));
                }
                if let Some(&last) = ends.last() {
                    out.push(last);
                }
            }
        }
    }

    /// Each interval's result from `values`, the integrand at the points of
    /// [`Pair::abscissae`] for the same `ends`.
    pub(crate) fn estimates(&self, ends: &[T], values: &[T], out: &mut Vec<Piece<T>>) {
        match self {
            Pair::Kronrod(rule) => {
                let chunks = values.chunks(rule.points());
                for (end, values) in ends.windows(2).zip(chunks) {
                    out.push(kronrod(rule, end[0], end[1], values));
                }
            }
            Pair::TrapezoidSimpson => {
                for (i, end) in ends.windows(2).enumerate() {
                    let f = &values[2 * i..2 * i + 3];
                    out.push(trapezoid_simpson(end[0], end[1], f[0], f[1], f[2]));
                }
            }
        }
    }
}

/// The Kronrod estimate of [a, b] with QUADPACK's error, floored at its rounding, the
/// abscissae's included: the adaptive Gauss–Kronrod method's estimate
/// ([`quadpack_estimate`]). The device's region kernel (`kernels/region.cu`) computes the same
/// piece operation for operation, so that dd and qd steps give the same bits on both.
fn kronrod<T: Real>(rule: &KronrodRule<T>, a: T, b: T, values: &[T]) -> Piece<T> {
    let (value, error, floor) = quadpack_estimate(rule, a, b, values);
    Piece {
        value,
        error: error.max(floor),
        floor,
    }
}

/// Simpson's estimate of [a, b] with |Simpson - trapezoid| as its error, floored at its
/// rounding: the values' (as for Kronrod) and the midpoint's abscissa, off by ε |m|, which
/// moves the sum by about (2/3) h |f'| ε |m| ≈ (2/3) ε |m| |f(b) - f(a)|.
fn trapezoid_simpson<T: Real>(a: T, b: T, fa: T, fm: T, fb: T) -> Piece<T> {
    let h = b - a;
    let ends = fa + fb;
    // (f(a) + f(b)) · h, halved: h/2 rounds where h is an odd number of subnormal units,
    // and the difference from Simpson then claimed an error of 2^-32 relative on a constant
    // over [1e-310, 2e-310] (never converging). The same bits wherever h/2 is exact; as
    // before where the product overflows.
    let whole = ends * h;
    let trapezoid = if whole.is_finite() {
        whole.ldexp(-1)
    } else {
        ends * h.ldexp(-1)
    };
    let simpson = (ends + fm.ldexp(2)) * h / T::from_f64(6.0);
    let eps = T::epsilon().to_f64();
    let resabs = ((fa.abs() + fb.abs() + fm.abs().ldexp(2)) * h / T::from_f64(6.0)).to_f64();
    let midpoint = (a + h.ldexp(-1)).abs().to_f64();
    let floor = (4.0 * eps * resabs).max(rounding_floor(simpson))
        + 2.0 / 3.0 * eps * midpoint * (fb - fa).abs().to_f64();
    Piece {
        value: simpson,
        error: (simpson - trapezoid).abs().to_f64().max(floor),
        floor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use precision::Dd;

    #[test]
    fn trapezoid_simpson_is_exact_on_cubics_and_reports_the_trapezoid_error() {
        // x³ on [0, 1] and [1, 2]: Simpson is exact (1/4, 15/4), the trapezoid gives 1/2 and
        // 9/2, so the errors are 1/4 and 3/4.
        let pair = Pair::<f64>::TrapezoidSimpson;
        let ends = [0.0, 1.0, 2.0];
        let mut points = Vec::new();
        pair.abscissae(&ends, &mut points);
        assert_eq!(points, vec![0.0, 0.5, 1.0, 1.5, 2.0]);
        let values: Vec<f64> = points.iter().map(|x| x * x * x).collect();
        let mut pieces = Vec::new();
        pair.estimates(&ends, &values, &mut pieces);
        assert_eq!(pieces[0].value, 0.25);
        assert_eq!(pieces[1].value, 3.75);
        assert_eq!(pieces[0].error, 0.25);
        assert_eq!(pieces[1].error, 0.75);
    }

    #[test]
    fn kronrod_pieces_follow_their_rule() {
        // e^x on [0, 1] and [1, 2] in dd: each to the working precision, error near the floor.
        let pair = Pair::<Dd>::new(IntervalRule::GaussKronrod, None).unwrap();
        let ends = [Dd::from(0), Dd::from(1), Dd::from(2)];
        let mut points = Vec::new();
        pair.abscissae(&ends, &mut points);
        assert_eq!(points.len(), pair.points(2));
        let values: Vec<Dd> = points.iter().map(|x| x.exp()).collect();
        let mut pieces = Vec::new();
        pair.estimates(&ends, &values, &mut pieces);
        let e = Dd::e();
        for (piece, exact) in pieces.iter().zip([e - 1.0, e * e - e]) {
            let actual = (piece.value - exact).abs().to_f64();
            assert!(actual <= piece.error, "{actual} > {}", piece.error);
            assert!(piece.error < 1e-29, "{}", piece.error);
            assert!(piece.is_final(0.0));
        }
    }
}
