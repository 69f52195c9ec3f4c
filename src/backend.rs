//! The backend interface: the few bulk operations that the methods ask of a device.
//!
//! A method is written once against [`Backend`] and runs on any device that implements it; the
//! CPU backend ([`crate::cpu::CpuBackend`]) is the first, the GPU backend plugs in the same way.
//! Methods never ask for single points, only for whole grids, so that a device can spread the
//! work as it likes, as long as it keeps the result independent of how it spread it.

use std::sync::Arc;

use precision::Real;

use crate::error::{Error, Result};
use crate::integrand::Integrand;

/// The points `a + (first + k * stride) * h` for `k < count`, in the working precision.
///
/// The point index `first + k * stride` is converted exactly (`from_i64`) and only then
/// multiplied by `h`, so that a point of a fine grid is the same number as the matching point
/// of a coarser grid built from the same `a` and an `h` scaled by a power of two.
///
/// ```
/// use hpquad::backend::UniformGrid;
/// // the new midpoints of a Romberg level with 8 intervals of [0, 1]
/// let grid = UniformGrid { a: 0.0, h: 0.125, first: 1, stride: 2, count: 4 };
/// assert_eq!(grid.point(3), Some(0.875));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UniformGrid<T> {
    /// The origin of the index.
    pub a: T,
    /// The spacing of the index.
    pub h: T,
    /// The index of the first point.
    pub first: u64,
    /// The step between the indices of consecutive points.
    pub stride: u64,
    /// The number of points.
    pub count: u64,
}

/// The largest number of points one uniform sum accepts: 2^40.
pub const MAX_GRID_POINTS: u64 = 1 << 40;

impl<T: Real> UniformGrid<T> {
    /// The index of point `k`, or `None` when it does not fit an `i64`.
    pub fn index(&self, k: u64) -> Option<i64> {
        let idx = self.first.checked_add(k.checked_mul(self.stride)?)?;
        i64::try_from(idx).ok()
    }

    /// Point `k` (`k < count`), or `None` when its index does not fit an `i64`.
    pub fn point(&self, k: u64) -> Option<T> {
        self.index(k).map(|i| self.a + T::from_i64(i) * self.h)
    }

    /// Checks what every backend needs of a grid: at most [`MAX_GRID_POINTS`] points, every
    /// index an `i64`.
    pub fn validate(&self) -> Result<()> {
        if self.count > MAX_GRID_POINTS {
            return Err(Error::InvalidOption {
                option: "grid",
                reason: format!(
                    "a uniform sum of {} points was asked for; at most 2^40 are supported",
                    self.count
                ),
            });
        }
        if self.count > 0 && self.index(self.count - 1).is_none() {
            return Err(Error::InvalidOption {
                option: "grid",
                reason: format!(
                    "the point index {} + {} * {} does not fit 63 bits",
                    self.first,
                    self.count - 1,
                    self.stride
                ),
            });
        }
        Ok(())
    }
}

/// A device that evaluates integrands over grids and reduces the values.
///
/// Contract: results are deterministic, the same bits for any degree of parallelism and on
/// every run; a NaN or infinite integrand value is [`Error::NonFinite`] naming the point with
/// the smallest index (never a NaN sum).
pub trait Backend: Sync {
    /// The device as shown in an estimate's per-stage record, e.g. `cpu (2 threads)`: a
    /// shared string, made once per backend, because every stage of every call records it.
    fn device(&self) -> Arc<str>;

    /// `sum_{k < count} f(a + (first + k * stride) * h)` for each grid, in the same order.
    ///
    /// Several grids in one call let a device work on all of them at once (the subintervals of
    /// a domain decomposition, the even and odd points of a trapezoid rule).
    fn uniform_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        grids: &[UniformGrid<T>],
    ) -> Result<Vec<T>>;

    /// The device that [`Backend::uniform_sums`] would run these grids on, for the per-stage
    /// record; a backend that dispatches per call (CPU for small batches, GPU for large ones)
    /// says which. The default is [`Backend::device`].
    fn device_for<T: Real, F: Integrand>(&self, _f: &F, _grids: &[UniformGrid<T>]) -> Arc<str> {
        self.device()
    }

    /// `f(x)` for every point of `points`, in order: the batch of a tanh-sinh level or of a
    /// Gauss rule on a set of intervals, whose nodes the method computed in `T`.
    ///
    /// A point is `f.dims()` consecutive coordinates: `points` holds `n * f.dims()` numbers,
    /// point-major (point `i` is `points[i * dims..(i + 1) * dims]`), and `n` values come back.
    /// A length that is not a multiple of the dimension is an error.
    ///
    /// The values are returned as they are, non-finite ones included, so that a method can
    /// decide what a value at an extreme node means (tanh-sinh truncates its tails where the
    /// weights are negligible); [`check_finite`] turns the first non-finite value into the
    /// error that names its point. Each value is the integrand's at that point alone, so the
    /// result does not depend on how the device spread the work.
    fn evaluate<T: Real, F: Integrand>(&self, f: &F, points: &[T]) -> Result<Vec<T>>;

    /// The device that [`Backend::evaluate`] would run `count` points on, for the per-stage
    /// record. The default is [`Backend::device`].
    fn device_for_points<T: Real, F: Integrand>(&self, _f: &F, _count: usize) -> Arc<str> {
        self.device()
    }

    /// The sum over one grid; see [`Backend::uniform_sums`].
    fn uniform_sum<T: Real, F: Integrand>(&self, f: &F, grid: &UniformGrid<T>) -> Result<T> {
        let sums = self.uniform_sums(f, std::slice::from_ref(grid))?;
        Ok(sums.first().copied().unwrap_or_else(T::zero))
    }
}

/// The error for a non-finite value, printed in the working precision.
pub(crate) fn non_finite<T: Real>(x: T, value: T) -> Error {
    Error::NonFinite {
        x: x.to_string(),
        value: value.to_string(),
    }
}

/// [`Error::NonFinite`] for the first point of `points` whose value is NaN or infinite.
///
/// `points` holds the points as [`Backend::evaluate`] takes them, `points.len() /
/// values.len()` coordinates each; a point of several is named as `(x1, x2, ...)`.
///
/// ```
/// use hpquad::backend::check_finite;
/// assert!(check_finite(&[0.0, 1.0], &[1.0, 2.0]).is_ok());
/// assert!(check_finite(&[0.0, 1.0], &[1.0, f64::INFINITY]).is_err());
/// // two points of the plane
/// let err = check_finite(&[0.0, 1.0, 0.5, 0.25], &[1.0, f64::NAN]).unwrap_err();
/// assert!(err.to_string().contains("(0.5, 0.25)"));
/// ```
pub fn check_finite<T: Real>(points: &[T], values: &[T]) -> Result<()> {
    let Some(i) = values.iter().position(|y| !y.is_finite()) else {
        return Ok(());
    };
    let dims = points.len() / values.len();
    if dims == 1 {
        return Err(non_finite(points[i], values[i]));
    }
    let coordinates: Vec<String> = points[i * dims..(i + 1) * dims]
        .iter()
        .map(|c| c.to_string())
        .collect();
    Err(Error::NonFinite {
        x: format!("({})", coordinates.join(", ")),
        value: values[i].to_string(),
    })
}

/// The number of points in `len` coordinates of an integrand of `dims` variables, or the error
/// for a length that is not a whole number of points.
pub(crate) fn point_count(dims: usize, len: usize) -> Result<usize> {
    if dims == 0 || len % dims != 0 {
        return Err(Error::InvalidOption {
            option: "points",
            reason: format!(
                "{len} coordinates are not a whole number of points of an integrand of {dims} \
                 variables"
            ),
        });
    }
    Ok(len / dims)
}

/// Refuses integrands that are not functions of one variable.
pub(crate) fn require_1d<F: Integrand>(f: &F) -> Result<()> {
    if f.dims() == 1 {
        Ok(())
    } else {
        Err(Error::InvalidOption {
            option: "integrand",
            reason: format!(
                "these backend operations are one-dimensional, but the integrand has {} \
                 variables",
                f.dims()
            ),
        })
    }
}
