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

use super::{holds_every_bit, oriented, rounding_floor, timed, Interval, Options, Outcome};
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
        let width = b - a;
        let h = width / T::from_i64(n as i64);
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
            // T(2h), the step 2h = width / (n/2)
            let coarse = times_step(sums[0] / 2.0 + sums[1], h * 2.0, width, n / 2);
            values.push(coarse);
            values.push(refine(coarse, h, width, n, sums[2])); // T(h)
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
            values.push(times_step(sums[0] / 2.0 + sums[1], h, width, n));
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
/// Converged when both halves converged and the summed error meets the tolerance. A half
/// that overflowed, with the other of the opposite sign or NaN, is
/// [`Error::OverflowInHalves`]: the integral may be finite, but the halves cannot tell.
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
    // A half that overflowed leaves the sum unknown (x over [-1.7e308, 1.7e308]: -inf + inf,
    // for an integral of 0; inf and a finite negative number), unless both halves are of one
    // sign, where the integral is beyond the range too (the caller reports that).
    let (low, high) = (lower.value.to_f64(), upper.value.to_f64());
    let overflowed = !(low.is_finite() && high.is_finite());
    let one_sign = (low >= 0.0 && high >= 0.0) || (low <= 0.0 && high <= 0.0);
    if overflowed && !one_sign {
        return Err(Error::OverflowInHalves {
            middle: c.to_string(),
            lower_half: lower.value.to_string(),
            upper_half: upper.value.to_string(),
            evaluations: lower.evaluations + upper.evaluations,
        });
    }
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
/// (the recycling step of parallel-romberg-quad-double's `comptrap`), h = width / n as
/// [`times_step`] takes it.
pub(crate) fn refine<T: Real>(coarse: T, h: T, width: T, n: u64, midpoint_sum: T) -> T {
    coarse / 2.0 + times_step(midpoint_sum, h, width, n)
}

/// h · sum for the step h = width / n of a grid (`h` as computed), without the rounding of a
/// step too small to hold its precision's bits ([`holds_every_bit`]): there as
/// (width · sum) / n, which rounds once in full precision. Over [1e-310, 2e-310] with 1024
/// intervals, h has 35 bits and h · sum was off by 1e-11 relative; over [5e-324, 1e-320]
/// h = 2023/1024 subnormal units rounds to 2 and T(h) was 1% too large. Not everywhere:
/// width · sum overflows on an interval near 1.8e308 wide, and h · sum is the usual form.
pub(crate) fn times_step<T: Real>(sum: T, h: T, width: T, n: u64) -> T {
    if holds_every_bit(h) {
        h * sum
    } else {
        width * sum / T::from_i64(n as i64)
    }
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
