//! Richardson extrapolation of the trapezoid rule (parallel-trapezoid-richardson, "Method and
//! Parallelization"). The trapezoid error is a series in h^2, so two grids cancel its leading
//! term:
//!
//! ```text
//! F = 4/3 T(h/2) - 1/3 T(h) + O(h^4)
//! ```
//!
//! and, repeating the step over grids h, h/2, ..., h/2^(m-1), the full Richardson table
//!
//! ```text
//! T[i][0] = T(h / 2^i),   T[i][j] = (4^j T[i][j-1] - T[i-1][j-1]) / (4^j - 1)
//! ```
//!
//! whose diagonal gains two orders per row. As in the paper, every grid of the scheme is known
//! in advance, so all the points go to the backend in one call (one stage, like the paper's one
//! kernel launch over the 2N + 1 points). [`Table`] is the same table that Romberg builds level by
//! level.

use precision::Real;

use super::trapezoid::{
    check_intervals, endpoints, in_halves, new_midpoints, refine, times_step, too_wide,
};
use super::{oriented, rounding_floor, timed, Interval, Options, Outcome};
use crate::backend::{Backend, UniformGrid};
use crate::error::{Error, Result};
use crate::integrand::Integrand;

/// The Richardson table: row `i` starts with T(h/2^i) and holds its extrapolations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table<T> {
    rows: Vec<Vec<T>>,
}

impl<T: Real> Table<T> {
    /// An empty table.
    pub fn new() -> Table<T> {
        Table { rows: Vec::new() }
    }

    /// Adds the row of the next trapezoid value T(h/2^i) and extrapolates it against the row
    /// above: `T[i][j] = (4^j T[i][j-1] - T[i-1][j-1]) / (4^j - 1)`.
    pub fn push(&mut self, trapezoid: T) {
        let mut row = Vec::with_capacity(self.rows.len() + 1);
        row.push(trapezoid);
        if let Some(above) = self.rows.last() {
            for (j, &prev) in above.iter().enumerate() {
                // 4^j and 4^j - 1 in T: exact as long as T carries 2j bits.
                let r = T::one().ldexp(2 * (j as i32 + 1));
                let scaled = r * row[j];
                row.push(if scaled.is_finite() {
                    (scaled - prev) / (r - 1.0)
                } else {
                    // 4^j T overflows for an integral near the largest number (4^25 is
                    // 10^15): the same extrapolation as a correction, which does not.
                    row[j] + (row[j] - prev) / (r - 1.0)
                });
            }
        }
        self.rows.push(row);
    }

    /// The rows so far.
    pub fn rows(&self) -> &[Vec<T>] {
        &self.rows
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row was pushed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The latest diagonal entry `T[i][i]`, the best estimate.
    pub fn best(&self) -> T {
        self.rows
            .last()
            .and_then(|row| row.last().copied())
            .unwrap_or_else(T::zero)
    }

    /// `|T[i][i] - T[i-1][i-1]|`, the change of the diagonal: an estimate of the error of
    /// `T[i-1][i-1]` and so a pessimistic one of `T[i][i]`. `None` before two rows.
    pub fn difference(&self) -> Option<f64> {
        let n = self.rows.len();
        (n >= 2).then(|| {
            (self.rows[n - 1][n - 1] - self.rows[n - 2][n - 2])
                .abs()
                .to_f64()
        })
    }

    /// The rows, consuming the table.
    pub fn into_rows(self) -> Vec<Vec<T>> {
        self.rows
    }
}

/// Richardson extrapolation over `grids` trapezoid grids, the coarsest with `intervals`
/// intervals; `grids = 2` is the paper's two-grid scheme 4/3 T(h/2) - 1/3 T(h).
///
/// The error estimate is `|T[m-1][m-1] - T[m-2][m-2]|`, an estimate of the error of the
/// previous diagonal entry and so an upper estimate for the returned one.
pub fn richardson<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    intervals: u64,
    grids: u32,
    options: &Options,
) -> Result<Outcome<T>> {
    options.validate()?;
    check_intervals(intervals)?;
    let finest = intervals.checked_shl(grids.saturating_sub(1)).filter(|&n| {
        n >> grids.saturating_sub(1) == intervals && n <= crate::backend::MAX_GRID_POINTS
    });
    if !(2..=41).contains(&grids) || finest.is_none() {
        return Err(Error::InvalidOption {
            option: "grids",
            reason: format!(
                "{grids} grids over {intervals} intervals were asked for; give at least 2 grids \
                 and at most 2^40 intervals on the finest"
            ),
        });
    }
    oriented(interval, "Richardson extrapolation", |a, b| {
        if too_wide(a, b) {
            // n/2 coarse intervals a half (rounded up): for an even n, the same grids.
            let half = intervals.div_ceil(2);
            return in_halves(a, b, options, |lo, hi, opts| {
                richardson(f, backend, Interval::new(lo, hi), half, grids, opts)
            });
        }
        let n = intervals;
        let width = b - a;
        let h = width / T::from_i64(n as i64);
        // The coarse grid's points, then the midpoints that each halving adds.
        let mut point_grids = vec![
            endpoints(a, b),
            UniformGrid {
                a,
                h,
                first: 1,
                stride: 1,
                count: n - 1,
            },
        ];
        for i in 1..grids {
            point_grids.push(new_midpoints(a, h.ldexp(-(i as i32)), n << (i - 1)));
        }
        let evaluations = point_grids.iter().map(|g| g.count).sum();
        let mut stages = Vec::new();
        let sums = timed(
            &mut stages,
            grids - 1,
            evaluations,
            backend.device_for(f, &point_grids),
            || backend.uniform_sums(f, &point_grids),
        )?;

        let mut table = Table::new();
        let mut trapezoid = times_step(sums[0] / 2.0 + sums[1], h, width, n);
        table.push(trapezoid);
        for i in 1..grids {
            let step = h.ldexp(-(i as i32));
            trapezoid = refine(trapezoid, step, width, n << i, sums[i as usize + 1]);
            table.push(trapezoid);
        }
        let value = table.best();
        let error = table.difference().unwrap_or(f64::INFINITY) + rounding_floor(value);
        Ok(Outcome {
            value,
            error,
            evaluations,
            levels: grids,
            converged: options.is_met::<T>(error, value.to_f64()),
            table: table.into_rows(),
            stages,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extrapolation_is_exact_for_h_squared_errors() {
        // T(h) = 1 + h^2 with h = 1, 1/2: one step recovers 1.
        let mut t = Table::new();
        t.push(2.0);
        t.push(1.25);
        assert_eq!(t.best(), 1.0);
        assert_eq!(t.difference(), Some(1.0));
    }
}
