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
