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
use crate::methods::cuhre::Hyperbox;
use crate::methods::gauss_product::{product_regions, ProductRule, ProductSums};
use crate::methods::pbcaq::region::{self, Region};
use crate::methods::{Options, Outcome};

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

    /// How many points of `f` one call of [`Backend::evaluate`] takes for about the cost of a
    /// call with one: on a device whose calls carry a large fixed cost (a kernel launch, the
    /// copies both ways, each thread's latency through the integrand) a method that knows its
    /// next batches may join them into one call up to this size, evaluating some points it may
    /// not need. The default, for the CPU, is 0: there every point costs its evaluation.
    fn points_per_call<T: Real, F: Integrand>(&self, _f: &F) -> usize {
        0
    }

    /// One region step of the adaptive cutting schemes ([`crate::methods::pbcaq`]): the
    /// region's α·β intervals each approximated by its rule pair, reduced to the accepted
    /// intervals' sums in the fixed order of [`crate::methods::pbcaq::region`] (the same bits
    /// on every device in dd and qd). A non-finite value is [`Error::NonFinite`] naming the
    /// point of smallest index. The default evaluates the region's points with
    /// [`Backend::evaluate`] and does the rest on the calling thread.
    fn region_step<T: Real, F: Integrand>(
        &self,
        f: &F,
        region: &Region<'_, T>,
    ) -> Result<region::RegionSums<T>> {
        region.step_by_evaluate(self, f)
    }

    /// The device that [`Backend::region_step`] would run `region` on, for the per-stage
    /// record. The default is [`Backend::device_for_points`] of its points.
    fn device_for_region<T: Real, F: Integrand>(&self, f: &F, region: &Region<'_, T>) -> Arc<str> {
        self.device_for_points::<T, F>(f, region.points())
    }

    /// Runs `job`, a method's whole run of many small parallel steps, where those steps are
    /// cheapest to start: the CPU backend runs it on a thread of its pool, so that each step's
    /// parallel loop starts from a worker (no hand-over into the pool and no wake-up of a
    /// blocked caller, tens of microseconds a step). The result does not depend on it. The
    /// default runs `job` on the calling thread.
    fn within<R: Send>(&self, job: impl FnOnce() -> R + Send) -> R {
        job()
    }

    /// A cubature rule's class sums and fourth differences on each region of a list
    /// ([`RuleSums`]): what a round of an adaptive cubature asks of the device. `centers` and
    /// `halfwidths` hold `f.dims()` values a region, region-major; `generators` say where the
    /// rule's points are. A region's points are those of [`rule_point`], each class summed in
    /// `T::Accumulator`; a non-finite value is reported in [`RuleSums::bad`], not as an error,
    /// so that the caller names the point.
    ///
    /// The default sums region after region on the calling thread, each in the order of its
    /// points: the same bits on every run.
    fn genz_malik_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        centers: &[T],
        halfwidths: &[T],
        generators: &RuleGenerators<T>,
    ) -> Result<RuleSums<T>> {
        let dims = rule_regions(f, centers, halfwidths)?;
        Ok(RuleSums::collect(
            centers
                .chunks_exact(dims)
                .zip(halfwidths.chunks_exact(dims))
                .map(|(c, h)| region_sums(f, c, h, generators)),
        ))
    }

    /// The device that [`Backend::genz_malik_sums`] would run `regions` regions of `f` with
    /// the rule of point set `set` on, for the per-stage record. The default is
    /// [`Backend::device`].
    fn device_for_rule<T: Real, F: Integrand>(
        &self,
        _f: &F,
        _regions: usize,
        _set: PointSet,
    ) -> Arc<str> {
        self.device()
    }

    /// The most regions that one call of [`Backend::genz_malik_sums`] with the rule of point
    /// set `set` should be given by a round of an adaptive cubature: enough to keep the device
    /// busy, few enough that a round splits little more than one region at a time would. It
    /// must depend on the integrand, the rule and the device only (never on the thread
    /// count), so that the rounds and the result are the same on every machine of the kind.
    /// The default, for the CPU, is [`CPU_ROUND_POINTS`] points' worth (at least one region).
    fn rule_round<T: Real, F: Integrand>(&self, f: &F, set: PointSet) -> usize {
        (CPU_ROUND_POINTS / set.points(f.dims().max(1))).max(1)
    }

    /// CUHRE in rounds with the region list kept by the device ([`crate::methods::cuhre::device`]),
    /// computing the rule of point set `set`, where the backend has such a device for `f` in
    /// `T`: the route of the parallel schedule there. The default, for the CPU, is `None`: the
    /// rounds run on the host ([`Backend::genz_malik_sums`]).
    fn cuhre_on_device<T: Real, F: Integrand>(
        &self,
        _f: &F,
        _region: &Hyperbox<T>,
        _options: &Options,
        _set: PointSet,
    ) -> Option<Result<Outcome<T>>> {
        None
    }

    /// The sums of a tensor-product Gauss–Legendre rule ([`ProductRule`]) on each region of a
    /// list: `lower` and `upper` hold `f.dims()` values a region, region-major. A region's
    /// sums are its blocks' ([`ProductRule::block_sums`]) added in block order, so that every
    /// backend gives the same bits however it spreads the blocks; a non-finite value is
    /// reported in [`ProductSums::bad`], not as an error, so that the caller names the point.
    ///
    /// The default sums region after region on the calling thread.
    fn product_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        rule: &ProductRule<T>,
        lower: &[T],
        upper: &[T],
    ) -> Result<Vec<ProductSums<T>>> {
        let dims = product_regions(f, rule, lower, upper)?;
        Ok(lower
            .chunks_exact(dims)
            .zip(upper.chunks_exact(dims))
            .map(|(l, u)| rule.region_sums(f, l, u))
            .collect())
    }

    /// The device that [`Backend::product_sums`] would run `points` points of `f` under `rule`
    /// on, for the per-stage record. The default is [`Backend::device`].
    fn device_for_product<T: Real, F: Integrand>(
        &self,
        _f: &F,
        _rule: &ProductRule<T>,
        _points: u64,
    ) -> Arc<str> {
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
    if dims == 0 || !len.is_multiple_of(dims) {
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

/// The rule points a round of an adaptive cubature hands the CPU at most: 2^16, enough to
/// spread the regions over the threads, few enough that a round splits little more than one
/// region at a time would (81 regions of 8 dimensions).
pub const CPU_ROUND_POINTS: usize = 1 << 16;

/// The point classes of a cubature rule at most: the degree-9 rule's nine (the degree-7
/// rule's five are the first five entries; the others stay zero).
pub const RULE_CLASSES: usize = 9;

/// The fully symmetric point sets of the cubature rules
/// ([`crate::methods::cuhre::CubatureRule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointSet {
    /// Genz and Malik's degree-7 rule, 2^n + 2n² + 2n + 1 points in five classes: the center;
    /// ±λa e_i and ±λb e_i; ±λb e_i ± λb e_j (i < j); the vertices ±λv.
    Degree7,
    /// DCUHRE's degree-9 rule, 2^n + 4n(n-1)(n-2)/3 + 6n(n-1) + 8n + 1 points in nine
    /// classes: the center; ±λa, ±λb, ±λc, ±λd on the axes; ±λb e_i ± λb e_j (i < j);
    /// ±λb e_i ± λa e_j (i ≠ j); ±λb e_i ± λb e_j ± λb e_k (i < j < k); the vertices ±λv.
    Degree9,
}

impl PointSet {
    /// The rule's degree: 7 or 9.
    pub fn degree(self) -> u32 {
        match self {
            PointSet::Degree7 => 7,
            PointSet::Degree9 => 9,
        }
    }

    /// The number of axis classes: 2 or 4.
    pub fn axis_classes(self) -> usize {
        match self {
            PointSet::Degree7 => 2,
            PointSet::Degree9 => 4,
        }
    }

    /// The number of point classes: 5 or 9.
    pub fn classes(self) -> usize {
        match self {
            PointSet::Degree7 => 5,
            PointSet::Degree9 => 9,
        }
    }

    /// The number of points in `dims` dimensions.
    pub fn points(self, dims: usize) -> usize {
        let n = dims;
        let pairs = n * n.saturating_sub(1) / 2;
        let vertices = 1usize << n;
        match self {
            PointSet::Degree7 => 1 + 4 * n + 4 * pairs + vertices,
            PointSet::Degree9 => {
                let triples = pairs * n.saturating_sub(2) / 3;
                1 + 8 * n + 12 * pairs + 8 * triples + vertices
            }
        }
    }
}

/// Where a cubature rule puts its points on [-1, 1]^n, in `T`: what a backend needs to
/// evaluate the rule's class sums ([`rule_point`], [`Backend::genz_malik_sums`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuleGenerators<T> {
    /// The point set.
    pub set: PointSet,
    /// The axis classes' generators in class order (classes 1 to 4): λa (inner) and λb
    /// (outer) for the fourth differences, then λc and λd (degree 9 only; 0 otherwise). The
    /// pair, mixed and triple classes use λb (and λa).
    pub axis: [T; 4],
    /// The vertices' generator λv.
    pub vertex: T,
    /// λa² / λb², the fourth differences' ratio.
    pub ratio: T,
}

/// A cubature rule's sums over a list of regions ([`Backend::genz_malik_sums`]): the integrand
/// summed over each of the rule's point classes, and the fourth divided difference along each
/// axis. Weights, volume and error are the caller's.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleSums<T> {
    /// For each region, the sum of the integrand over each point class, in the class order of
    /// [`rule_point`] (the rule's five or nine; zeros past its classes).
    pub classes: Vec<[T; RULE_CLASSES]>,
    /// For each region, the fourth divided difference along each axis, `dims` a region:
    /// |(f(c + λa h_i e_i) + f(c - λa h_i e_i) - 2 f(c)) - (λa²/λb²) (f(c + λb h_i e_i) +
    /// f(c - λb h_i e_i) - 2 f(c))|.
    pub fourth: Vec<f64>,
    /// The first region (in list order) with a point whose value is not finite, and the
    /// index of its first such point in the order of [`rule_point`].
    pub bad: Option<(usize, u64)>,
}

/// One region's part of [`RuleSums`]: class sums, fourth differences, first bad point.
pub(crate) type RegionSums<T> = ([T; RULE_CLASSES], Vec<f64>, Option<u64>);

impl<T: Real> RuleSums<T> {
    /// The list's sums from each region's, in list order.
    pub(crate) fn collect(regions: impl IntoIterator<Item = RegionSums<T>>) -> RuleSums<T> {
        let mut sums = RuleSums {
            classes: Vec::new(),
            fourth: Vec::new(),
            bad: None,
        };
        for (r, (classes, fourth, bad)) in regions.into_iter().enumerate() {
            sums.classes.push(classes);
            sums.fourth.extend(fourth);
            if sums.bad.is_none() {
                sums.bad = bad.map(|k| (r, k));
            }
        }
        sums
    }
}

/// The number of dimensions of the regions of a rule list, or the error for centers and
/// half-widths that are not whole regions of `f`.
pub(crate) fn rule_regions<T, F: Integrand>(
    f: &F,
    centers: &[T],
    halfwidths: &[T],
) -> Result<usize> {
    let dims = f.dims();
    if dims == 0 || !centers.len().is_multiple_of(dims) || halfwidths.len() != centers.len() {
        return Err(Error::InvalidOption {
            option: "regions",
            reason: format!(
                "{} centers and {} half-widths are not regions of {dims} dimensions",
                centers.len(),
                halfwidths.len()
            ),
        });
    }
    Ok(dims)
}

/// The pair i < j of index `p` among n axes, in the order (0,1), (0,2), ..., (1,2), ...
fn pair_of(mut p: u64, n: u64) -> (usize, usize) {
    let mut i = 0u64;
    while p >= n - 1 - i {
        p -= n - 1 - i;
        i += 1;
    }
    (i as usize, (i + 1 + p) as usize)
}

/// The triple i < j < k of index `t` among n axes, in lexicographic order.
fn triple_of(mut t: u64, n: u64) -> (usize, usize, usize) {
    let mut i = 0u64;
    loop {
        let rest = n - 1 - i;
        let with_i = rest * (rest - 1) / 2;
        if t < with_i {
            break;
        }
        t -= with_i;
        i += 1;
    }
    let (j, k) = pair_of(t, n - 1 - i);
    let first = i as usize + 1;
    (i as usize, first + j, first + k)
}

/// Point `k` of a cubature rule on the region `center ± half`, into `x`, in the order of
/// `kernels/genz_malik.cu` and `kernels/cuhre_list.cu`; returns the point's class. With A the
/// number of axis classes (2 or 4): 0 the center; 1 + 2A·i + 2c + s: the axis class c + 1 on
/// axis i (s = 1: minus); then for each pair of axes i < j in the order (0,1), (0,2), ...,
/// (1,2), ... four sign combinations of ±λb on both (bit 0 set: minus on axis i, bit 1: on
/// axis j); for degree 9 then for each pair eight points: bit 2 clear ±λb on i and ±λa on j,
/// set ±λa on i and ±λb on j, the signs as before; then for each triple i < j < k in
/// lexicographic order eight points ±λb (bits 0, 1, 2 for i, j, k); last the 2^n vertices,
/// bit d of the vertex's index set meaning -λv on axis d.
pub fn rule_point<T: Real>(
    k: u64,
    center: &[T],
    half: &[T],
    generators: &RuleGenerators<T>,
    x: &mut [T],
) -> usize {
    let n = center.len() as u64;
    let set = generators.set;
    let axis_classes = set.axis_classes() as u64;
    let [lambda_a, lambda_b, ..] = generators.axis;
    let signed = |c: T, step: T, minus: bool| if minus { c - step } else { c + step };
    x.copy_from_slice(center);
    let pairs = n * n.saturating_sub(1) / 2;
    let on_axes = 1 + 2 * axis_classes * n;
    let on_pairs = on_axes + 4 * pairs;
    let (on_mixed, on_triples) = match set {
        PointSet::Degree7 => (on_pairs, on_pairs),
        PointSet::Degree9 => {
            let triples = pairs * n.saturating_sub(2) / 3;
            (on_pairs + 8 * pairs, on_pairs + 8 * pairs + 8 * triples)
        }
    };
    if k == 0 {
        0
    } else if k < on_axes {
        let m = k - 1;
        let (i, within) = ((m / (2 * axis_classes)) as usize, m % (2 * axis_classes));
        let class = (within / 2) as usize;
        x[i] = signed(x[i], generators.axis[class] * half[i], within % 2 == 1);
        class + 1
    } else if k < on_pairs {
        let m = k - on_axes;
        let (i, j) = pair_of(m / 4, n);
        x[i] = signed(x[i], lambda_b * half[i], m & 1 == 1);
        x[j] = signed(x[j], lambda_b * half[j], m & 2 == 2);
        set.axis_classes() + 1
    } else if k < on_mixed {
        let m = k - on_pairs;
        let (i, j) = pair_of(m / 8, n);
        let (li, lj) = if m & 4 == 0 {
            (lambda_b, lambda_a)
        } else {
            (lambda_a, lambda_b)
        };
        x[i] = signed(x[i], li * half[i], m & 1 == 1);
        x[j] = signed(x[j], lj * half[j], m & 2 == 2);
        6
    } else if k < on_triples {
        let m = k - on_mixed;
        let (i, j, l) = triple_of(m / 8, n);
        x[i] = signed(x[i], lambda_b * half[i], m & 1 == 1);
        x[j] = signed(x[j], lambda_b * half[j], m & 2 == 2);
        x[l] = signed(x[l], lambda_b * half[l], m & 4 == 4);
        7
    } else {
        let m = k - on_triples;
        for (d, xd) in x.iter_mut().enumerate() {
            *xd = signed(*xd, generators.vertex * half[d], m >> d & 1 == 1);
        }
        set.classes() - 1
    }
}

/// The points of one region evaluated at once, at most (the CPU backend's chunk).
const RULE_CHUNK: usize = 512;

/// One region's class sums, fourth differences and first non-finite point, its points
/// evaluated in chunks on the calling thread and each class summed in `T::Accumulator` in the
/// order of the points: the same bits whichever thread runs it.
pub(crate) fn region_sums<T: Real, F: Integrand>(
    f: &F,
    center: &[T],
    half: &[T],
    generators: &RuleGenerators<T>,
) -> RegionSums<T> {
    let n = center.len();
    let count = generators.set.points(n) as u64;
    let block = 2 * generators.set.axis_classes();
    let mut sums = [T::zero().to_accumulator(); RULE_CLASSES];
    // f(c), then each axis's block (±λa, ±λb first): the fourth differences' values.
    let mut axis_values = Vec::with_capacity(block * n + 1);
    let mut bad = None;
    let mut columns: Vec<Vec<T>> = vec![Vec::with_capacity(RULE_CHUNK); n];
    let mut classes = Vec::with_capacity(RULE_CHUNK);
    let mut values = [T::zero(); RULE_CHUNK];
    let mut x = vec![T::zero(); n];
    let mut first = 0u64;
    while first < count {
        let len = (count - first).min(RULE_CHUNK as u64) as usize;
        classes.clear();
        for column in columns.iter_mut() {
            column.clear();
        }
        for k in first..first + len as u64 {
            classes.push(rule_point(k, center, half, generators, &mut x));
            for (column, &xd) in columns.iter_mut().zip(&x) {
                column.push(xd);
            }
        }
        let refs: Vec<&[T]> = columns.iter().map(Vec::as_slice).collect();
        f.eval_batch(&refs, &mut values[..len]);
        for (j, (&y, &class)) in values[..len].iter().zip(&classes).enumerate() {
            if bad.is_none() && !y.is_finite() {
                bad = Some(first + j as u64);
            }
            if axis_values.len() < block * n + 1 {
                axis_values.push(y);
            }
            sums[class] = sums[class] + y.to_accumulator();
        }
        first += len as u64;
    }
    let ratio = generators.ratio;
    let twice_center = axis_values[0] + axis_values[0];
    let fourth = axis_values[1..]
        .chunks_exact(block)
        .map(|a| {
            let second_a = a[0] + a[1] - twice_center;
            let second_b = a[2] + a[3] - twice_center;
            (second_a - ratio * second_b).abs().to_f64()
        })
        .collect();
    (sums.map(T::from_accumulator), fourth, bad)
}
