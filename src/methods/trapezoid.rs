//! The composite trapezoidal rule (parallel-trapezoid-richardson, "Method and
//! Parallelization"):
//!
//! ```text
//! T(h) = h * ( (f(a) + f(b)) / 2 + sum_{k=1}^{n-1} f(a + k h) ),   h = (b - a) / n
//! ```
//!
//! a second-order rule, F = T(h) + O(h^2). The sums run on the backend; the paper's
//! serial summation becomes the backend's deterministic parallel one.
//!
//! The rule alone has no error estimate. When `n` is even, the even-indexed points already form
//! the grid of step 2h, so T(2h) comes for free and |T(h) - T(2h)| / 3 estimates the error of
//! T(h) (the leading h^2 terms of the two differ by a factor 4). An odd `n` gets no estimate:
//! `error` is infinite and `converged` false.

use precision::Real;

use super::{oriented, rounding_floor, timed, Interval, Options, Outcome};
use crate::backend::{Backend, UniformGrid};
use crate::error::{Error, Result};
use crate::integrand::Integrand;

/// The composite trapezoid rule with `intervals` intervals of [a, b].
pub fn trapezoid<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    intervals: u64,
    options: &Options,
) -> Result<Outcome<T>> {
    options.validate()?;
    check_intervals(intervals)?;
    oriented(interval, "the trapezoid rule", |a, b| {
        if too_wide(a, b) {
            // n/2 intervals a half (rounded up): for an even n, the same rule.
            let half = intervals.div_ceil(2);
            return in_halves(a, b, options, |lo, hi, opts| {
                trapezoid(f, backend, Interval::new(lo, hi), half, opts)
            });
        }
        let n = intervals;
        let h = (b - a) / T::from_i64(n as i64);
        let mut stages = Vec::new();
        let ends = endpoints(a, b);
        // The trapezoid values, coarsest first: T(2h), T(h) for even n, T(h) alone for odd.
        let mut values = Vec::with_capacity(2);
        if n.is_multiple_of(2) {
            let evens = UniformGrid {
                a,
                h,
                first: 2,
                stride: 2,
                count: n / 2 - 1,
            };
            let odds = UniformGrid {
                a,
                h,
                first: 1,
                stride: 2,
                count: n / 2,
            };
            let grids = [ends, evens, odds];
            let device = backend.device_for(f, &grids);
            let sums = timed(&mut stages, 0, n + 1, device, || {
                backend.uniform_sums(f, &grids)
            })?;
            let coarse = (sums[0] / 2.0 + sums[1]) * (h * 2.0); // T(2h)
            values.push(coarse);
            values.push(refine(coarse, h, sums[2])); // T(h)
        } else {
            let interior = UniformGrid {
                a,
                h,
                first: 1,
                stride: 1,
                count: n - 1,
            };
            let grids = [ends, interior];
            let device = backend.device_for(f, &grids);
            let sums = timed(&mut stages, 0, n + 1, device, || {
                backend.uniform_sums(f, &grids)
            })?;
            values.push((sums[0] / 2.0 + sums[1]) * h);
        }
        let value = values[values.len() - 1];
        let levels = values.len() as u32;
        let error = match values[..] {
            // |T(h) - T(2h)| is three times the asymptotic error of T(h): the margin covers the
            // h^4 term, which the asymptotic estimate misses.
            [coarse, fine] => (fine - coarse).abs().to_f64() + rounding_floor(value),
            _ => f64::INFINITY,
        };
        Ok(Outcome {
            value,
            error,
            evaluations: n + 1,
            levels,
            converged: options.is_met::<T>(error, value.to_f64()),
            // One column: the trapezoid values T(2h), T(h), not extrapolated.
            table: values.into_iter().map(|v| vec![v]).collect(),
            stages,
        })
    })
}

/// Whether b − a overflows: an interval from near −1.8e308 to near +1.8e308 is wider than
/// the largest number, and the grid points a + k·h near b would overflow with it.
pub(crate) fn too_wide<T: Real>(a: T, b: T) -> bool {
    !(b - a).is_finite()
}

/// A uniform-grid method over an interval wider than the largest number ([`too_wide`]):
/// `run` over each half [a, c] and [c, b], c = a/2 + b/2 (each narrower than the largest
/// number), with half the absolute tolerance and half the evaluations each, and the two outcomes added: values,
/// errors, evaluations, tables entry by entry (over the rows both reached; the rules and
/// their extrapolations are linear in the integrand's values), stages one after the other.
/// Converged when both halves converged and the summed error meets the tolerance.
pub(crate) fn in_halves<T: Real>(
    a: T,
    b: T,
    options: &Options,
    run: impl Fn(T, T, &Options) -> Result<Outcome<T>>,
) -> Result<Outcome<T>> {
    let c = a.ldexp(-1) + b.ldexp(-1);
    let half = Options {
        absolute: options.absolute / 2.0,
        max_evaluations: options.max_evaluations / 2,
        ..*options
    };
    let lower = run(a, c, &half)?;
    let upper = run(c, b, &half)?;
    let value = lower.value + upper.value;
    let error = lower.error + upper.error;
    let rows = lower.table.len().min(upper.table.len());
    let table = (0..rows)
        .map(|i| {
            lower.table[i]
                .iter()
                .zip(&upper.table[i])
                .map(|(&x, &y)| x + y)
                .collect()
        })
        .collect();
    Ok(Outcome {
        value,
        error,
        evaluations: lower.evaluations + upper.evaluations,
        levels: lower.levels.max(upper.levels),
        converged: lower.converged && upper.converged && options.is_met::<T>(error, value.to_f64()),
        table,
        stages: lower.stages.into_iter().chain(upper.stages).collect(),
    })
}

/// The two endpoints a and b, as the grid a + {0, 1} * (b - a).
pub(crate) fn endpoints<T: Real>(a: T, b: T) -> UniformGrid<T> {
    UniformGrid {
        a,
        h: b - a,
        first: 0,
        stride: 1,
        count: 2,
    }
}

/// The points that halving a grid of `n` intervals of step 2h adds: a + (2k + 1) h, k < n.
pub(crate) fn new_midpoints<T: Real>(a: T, h: T, n: u64) -> UniformGrid<T> {
    UniformGrid {
        a,
        h,
        first: 1,
        stride: 2,
        count: n,
    }
}

/// T(h) from T(2h) and the sum over the new midpoints: T(h) = T(2h) / 2 + h * sum
/// (the recycling step of parallel-romberg-quad-double's `comptrap`).
pub(crate) fn refine<T: Real>(coarse: T, h: T, midpoint_sum: T) -> T {
    coarse / 2.0 + h * midpoint_sum
}

/// Refuses interval counts that a uniform grid cannot hold.
pub(crate) fn check_intervals(intervals: u64) -> Result<()> {
    if intervals == 0 || intervals > crate::backend::MAX_GRID_POINTS {
        return Err(Error::InvalidOption {
            option: "intervals",
            reason: format!("{intervals} intervals were asked for; give between 1 and 2^40"),
        });
    }
    Ok(())
}
