//! A half-infinite integral whose integrand decays fast, split where it has decayed: the finite
//! part by the rule a finite interval calls for, the tail by tanh-sinh's exp-sinh variant.
//!
//! Exp-sinh maps all of [a, ∞) at once, with nodes out to where the integrand underflows;
//! an integrand that oscillates as it decays (sin(x)/x·e^(−x)) narrows the strip of
//! analyticity of the mapped integrand, and the step must shrink with it: 1839 evaluations
//! in qd, where Gauss–Legendre on [0, 152] needs 384. So the search below looks for the
//! point L past which the integrand is negligible, at distances of about 2^(k/2), k = 0, 1, ..., 40,
//! from the finite end (out to 2^20), and takes the first L where |f|·(L − a) and the next
//! point's are below the tolerance times the largest such product seen before. Then
//!
//! ```text
//! ∫_a^∞ f = ∫_a^L f  +  ∫_L^∞ f
//!           finite:      tail: exp-sinh, to an absolute tolerance of 1/8 of the total's
//!           probe + rule
//! ```
//!
//! The search only places L: the tail is integrated, not assumed, so a wrong guess (a second
//! bump past L, a decay that stalls) costs evaluations, not honesty. An integrand that has
//! not decayed by 2^20 (algebraic decay, 1/(1 + x²)) is left to exp-sinh on the whole range.

use precision::Real;

use super::{tanh_sinh, timed, Interval, Options, Outcome, Stage};
use crate::backend::Backend;
use crate::error::Result;
use crate::integrand::Integrand;

/// The search's distances from the finite end are 2^(k/2) for k up to this (2^20).
const MAX_STEP: i32 = 40;

/// The search evaluates this many distances per backend call.
const SEARCH_BATCH: i32 = 8;

/// The share of the tolerance the tail is integrated to.
const TAIL_SHARE: f64 = 0.125;

/// Whether cutting pays in precision `T`: in dd and qd, where exp-sinh needs many levels on
/// oscillating tails. In f64 it needs few, and the cut's fixed cost (the search, the finite
/// part's probe, the tail: 90 to 140 evaluations) outweighs what it saves: x⁵e^(−x) on [0, ∞)
/// took 174 evaluations cut against 129 whole, e^x on (−∞, 0] 221 against 99, while
/// sin(x)/x·e^(−x) took 138 against 188. In qd those three took 475, 475 and 507 cut against
/// 694, 930 and 1839 whole; in dd 344, 236, 236 against 302, 416 and 821.
pub(crate) fn pays<T: Real>() -> bool {
    T::LIMBS >= 2
}

/// The search's k-th distance from the end, about 2^(k/2): 2^j for k = 2j and 11·2^(j−3)
/// for k = 2j + 1, short dyadic numbers so that the cut point reads plainly (176, not
/// 181.0193...).
fn distance(k: i32) -> f64 {
    let whole = precision::ldexp(1.0, k / 2);
    if k % 2 == 0 {
        whole
    } else {
        whole * 11.0 / 8.0
    }
}

/// Where a half-infinite range is cut.
pub(crate) struct Cut<T> {
    /// The point L past which the integrand is negligible.
    pub point: T,
    /// Evaluations the search spent.
    pub evaluations: u64,
    /// The search's record.
    pub stages: Vec<Stage>,
}

/// Searches from the finite end `end` of a half-infinite range (`upward`: [end, ∞), else
/// (−∞, end]) for the point past which `f` is negligible at tolerance `options`; `None` when
/// the integrand has not decayed by 2^20 from the end, or is not finite at a searched point
/// (left to the method that integrates the whole range to report).
pub(crate) fn search<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    end: T,
    upward: bool,
    options: &Options,
) -> Result<Option<Cut<T>>> {
    let relative = options.relative_for::<T>();
    let mut stages = Vec::new();
    let mut evaluations = 0;
    // The largest |f|·distance seen so far, and whether the previous point was below the
    // threshold it sets.
    let mut scale = 0.0_f64;
    let mut previous: Option<T> = None;
    let mut first = 0;
    while first <= MAX_STEP {
        let last = (first + SEARCH_BATCH - 1).min(MAX_STEP);
        let distances: Vec<f64> = (first..=last).map(distance).collect();
        let points: Vec<T> = distances
            .iter()
            .map(|&d| {
                let d = T::from_f64(d);
                if upward {
                    end + d
                } else {
                    end - d
                }
            })
            .collect();
        let count = points.len() as u64;
        let device = backend.device_for_points::<T, F>(f, points.len());
        let values = timed(&mut stages, 0, count, device, || {
            backend.evaluate(f, &points)
        })?;
        evaluations += count;
        for ((&x, value), distance) in points.iter().zip(&values).zip(&distances) {
            if !value.is_finite() {
                return Ok(None);
            }
            let weight = value.to_f64().abs() * distance;
            let threshold = options.absolute.max(relative * scale);
            if scale > 0.0 && weight <= threshold {
                if let Some(point) = previous {
                    return Ok(Some(Cut {
                        point,
                        evaluations,
                        stages,
                    }));
                }
                previous = Some(x);
            } else {
                previous = None;
            }
            scale = scale.max(weight);
        }
        first = last + 1;
    }
    Ok(None)
}

/// ∫ f over the half-infinite `[lo, hi]` (one of them infinite), cut at `cut`: the finite part
/// by `finite` (given its interval and options), the tail by exp-sinh to 1/8 of the
/// tolerance the finite part's size sets. The outcome's error is the sum of both, and it
/// converged when both did and the sum meets `options`.
pub(crate) fn split<T: Real, F: Integrand, B: Backend, C>(
    f: &F,
    backend: &B,
    (lo, hi): (T, T),
    cut: Cut<T>,
    options: &Options,
    finite: impl FnOnce(Interval<T>, &Options) -> Result<(Outcome<T>, C)>,
) -> Result<(Outcome<T>, C)> {
    let upward = lo.is_finite();
    let (near, tail) = if upward {
        (Interval::new(lo, cut.point), Interval::new(cut.point, hi))
    } else {
        (Interval::new(cut.point, hi), Interval::new(lo, cut.point))
    };
    let mut budget = *options;
    budget.max_evaluations = options.max_evaluations.saturating_sub(cut.evaluations);
    let (body, choice) = finite(near, &budget)?;

    let tail_options = Options {
        relative: Some(0.0),
        absolute: TAIL_SHARE
            * options
                .absolute
                .max(options.relative_for::<T>() * body.value.to_f64().abs()),
        max_evaluations: budget.max_evaluations.saturating_sub(body.evaluations),
        ..*options
    };
    let rest = tanh_sinh::tanh_sinh(f, backend, tail, &tail_options)?;

    let value = body.value + rest.value;
    let error = body.error + rest.error;
    let mut stages = cut.stages;
    stages.extend(body.stages);
    stages.extend(rest.stages);
    let outcome = Outcome {
        value,
        error,
        evaluations: cut.evaluations + body.evaluations + rest.evaluations,
        levels: body.levels.max(rest.levels),
        converged: body.converged && rest.converged && options.is_met::<T>(error, value.to_f64()),
        table: Vec::new(),
        stages,
    };
    Ok((outcome, choice))
}
