//! Romberg integration with recycled evaluations (parallel-romberg-quad-double, "Numerical
//! Integration"): the composite trapezoid rule, halving h at each level,
//!
//! ```text
//! T[0][0] = (b - a) / 2 * (f(a) + f(b))
//! T[i][0] = T[i-1][0] / 2 + h_i * sum_{k < 2^(i-1)} f(a + (2k + 1) h_i),   h_i = (b - a) / 2^i
//! T[i][j] = (4^j T[i][j-1] - T[i-1][j-1]) / (4^j - 1)
//! ```
//!
//! so that level i evaluates only its 2^(i-1) new midpoints (one backend uniform sum with
//! first = 1, stride = 2), and the diagonal `T[i][i]` is extrapolated on the errors.
//!
//! Domain decomposition (the paper's a = c_0 < ... < c_p = b): with `subintervals = p`, each of
//! p equal regions keeps its own table and stops refining when its own error estimate meets
//! its share of the tolerance; the regions still refining go to the backend together, one
//! uniform sum per region in one call, so they are processed in parallel. The integral is the
//! sum over the regions.
//!
//! Stopping: a region is done when, at level >= [`MIN_LEVEL`], `|T[i][i] - T[i-1][i-1]|` (plus
//! the rounding floor) is within `max(absolute / p, relative * |T[i][i]|)`; the whole estimate
//! converges when every region is done and the summed error meets the tolerance. The level and
//! evaluation caps stop the refinement with `converged = false` and the error reached.

use precision::Real;

use super::richardson::Table;
use super::trapezoid::{endpoints, in_halves, new_midpoints, times_step, too_wide};
use super::{oriented, rounding_floor, timed, Interval, Options, Outcome, UNDERFLOW_FLOOR};
use crate::backend::Backend;
use crate::error::Result;
use crate::integrand::Integrand;

/// The first level at which a region may stop: 2^4 = 16 intervals, so that a difference that is
/// small by accident of a coarse grid (a periodic integrand sampled at its zeros) is not taken
/// for convergence.
pub const MIN_LEVEL: u32 = 4;

/// One region [a, a + width] of the domain decomposition with its Romberg table.
struct Region<T> {
    a: T,
    width: T,
    table: Table<T>,
    done: bool,
}

impl<T: Real> Region<T> {
    /// Its error estimate: the change of the diagonal, never below the rounding floor.
    fn error(&self) -> f64 {
        let best = self.table.best();
        self.table.difference().unwrap_or(f64::INFINITY) + rounding_floor(best)
    }
}

/// Romberg integration of `f` over `interval` to the tolerance in `options`.
pub fn romberg<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    options.validate()?;
    oriented(interval, "Romberg integration", |a, b| {
        if too_wide(a, b) {
            let half = Options {
                subintervals: options.subintervals.div_ceil(2),
                ..*options
            };
            return in_halves(a, b, &half, |lo, hi, opts| {
                romberg(f, backend, Interval::new(lo, hi), opts)
            });
        }
        let p = options.subintervals;
        let mut stages = Vec::new();

        // a = c_0 < c_1 < ... < c_p = b, equal widths.
        let width = (b - a) / T::from_i64(p as i64);
        let mut regions: Vec<Region<T>> = (0..p)
            .map(|k| {
                let lo = a + T::from_i64(k as i64) * width;
                let hi = if k + 1 == p { b } else { lo + width };
                Region {
                    a: lo,
                    width: hi - lo,
                    table: Table::new(),
                    done: false,
                }
            })
            .collect();

        // Level 0: T[0][0] = width / 2 * (f(c_{k-1}) + f(c_k)) in every region.
        let grids: Vec<_> = regions
            .iter()
            .map(|r| endpoints(r.a, r.a + r.width))
            .collect();
        let mut evaluations = 2 * p;
        let device = backend.device_for(f, &grids);
        let sums = timed(&mut stages, 0, evaluations, device, || {
            backend.uniform_sums(f, &grids)
        })?;
        for (region, sum) in regions.iter_mut().zip(sums) {
            // (sum / 2) · width, not (sum · width) / 2, which overflows for a constant over
            // [0, 1.7e308]: the same bits elsewhere.
            region.table.push(sum.ldexp(-1) * region.width);
        }

        for level in 1..=options.max_levels {
            let active: Vec<usize> = (0..regions.len()).filter(|&k| !regions[k].done).collect();
            if active.is_empty() {
                break;
            }
            let new_points = active.len() as u64 * (1u64 << (level - 1));
            if evaluations + new_points > options.max_evaluations {
                break;
            }
            // Level i: only the 2^(i-1) new midpoints of each active region.
            let grids: Vec<_> = active
                .iter()
                .map(|&k| {
                    let r = &regions[k];
                    new_midpoints(r.a, r.width.ldexp(-(level as i32)), 1 << (level - 1))
                })
                .collect();
            let device = backend.device_for(f, &grids);
            let sums = timed(&mut stages, level, new_points, device, || {
                backend.uniform_sums(f, &grids)
            })?;
            evaluations += new_points;

            let share = options.absolute / p as f64;
            for (&k, sum) in active.iter().zip(sums) {
                let r = &mut regions[k];
                let previous = r.table.rows()[r.table.len() - 1][0];
                // h · sum, but where h is too small to hold its bits (an interval of width
                // 1e-310: h has lost i of them) as (width · sum) / 2^i, one rounding.
                let h = r.width.ldexp(-(level as i32));
                let scaled = times_step(sum, h, r.width, 1 << level);
                r.table.push(previous / 2.0 + scaled);
                let relative = options.relative_for::<T>() * r.table.best().to_f64().abs();
                // A table that overflowed from finite values stays so: stop refining it (the
                // caller reports the overflow) instead of running to the evaluation cap.
                let overflowed = !r.table.best().is_finite();
                r.done = overflowed
                    || level >= MIN_LEVEL && r.error() <= share.max(relative).max(UNDERFLOW_FLOOR);
            }
        }

        let mut value = T::zero();
        let mut error = 0.0;
        for r in &regions {
            value += r.table.best();
            error += r.error();
        }
        let all_done = regions.iter().all(|r| r.done);
        Ok(Outcome {
            value,
            error,
            evaluations,
            levels: regions
                .iter()
                .map(|r| r.table.len() as u32)
                .max()
                .unwrap_or(0),
            converged: all_done && options.is_met::<T>(error, value.to_f64()),
            table: summed_table(&regions),
            stages,
        })
    })
}

/// The Romberg table of the whole interval: the region tables summed entry by entry over the
/// rows that every region reached (extrapolation is linear, so this is the table of the
/// trapezoid rule started from p intervals). With one region, its table.
fn summed_table<T: Real>(regions: &[Region<T>]) -> Vec<Vec<T>> {
    let rows = regions.iter().map(|r| r.table.len()).min().unwrap_or(0);
    (0..rows)
        .map(|i| {
            (0..=i)
                .map(|j| {
                    regions
                        .iter()
                        .fold(T::zero(), |s, r| s + r.table.rows()[i][j])
                })
                .collect()
        })
        .collect()
}
