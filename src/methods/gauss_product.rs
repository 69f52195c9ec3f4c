//! Adaptive tensor-product Gauss–Legendre cubature over a box: for smooth integrands of a few
//! variables to the full accuracy of dd and qd, where the fully symmetric rules of CUHRE
//! (degree 7 or 9) would need billions of regions (exp(x·y) over the unit square to 1e-40 in qd:
//! CUHRE stops at 4·10^-31 after 1.3·10^8 evaluations; this method meets it in thousands).
//!
//! A region's rule is the product of an m_d-point Gauss–Legendre rule on each axis d (m_1 ⋯ m_n
//! points, exact for every polynomial of degree 2m_d − 1 in variable d), m_d = m on every axis to
//! start (m from the precision and the dimension, [`points_per_axis`]). Its error is read axis by
//! axis from the same values: along axis d the rule's values, summed with the other axes' weights,
//! are the m_d-point rule's values of g_d(t) = ∫ f over the other axes, and the product's error is
//! the sum over the axes of the one-dimensional rules' errors on those g_d (the error of a product
//! telescopes axis by axis). Each g_d's Legendre coefficients at the middle and the top of the
//! rule's range ([`rules::Rule::point_functionals`]) give its rule's error as the adaptive
//! Gauss–Legendre method reads it (`Spectral`: geometric fall extrapolated to degree 2m, counted at
//! three quarters of its rate): the error E_d of the axis. Where the coefficients do not fall fast
//! or the top ones are above a thousandth of the mean |f| (a feature the rule does not resolve, a
//! kink) E_d is 2 h m max(c) (the spectrum left up to degree 2m at its present size), and at least
//! ∫|f| over the region where they neither fall nor are below that thousandth (the rule may not see
//! the integrand at all); where they are at rounding level, 0. The region's error is Σ_d E_d, and
//! it is refined along the axis of the largest E_d: where that axis's coefficients fall by
//! [`RAISE_FALL`] a degree or faster, its points are raised (m_d → 3m_d/2, up to
//! [`most_points_per_axis`], the region within [`MAX_RAISED_POINTS`]: the error times about
//! fall^m_d, more than a halving's 2^-2m_d, for 3/4 of its points), else the region is halved. The
//! axes of one integrand ask for different numbers of points (cos(Σ i x_i) varies i times faster
//! along axis i), which a rule of one m on every axis pays for on all of them.
//!
//! The regions are worked on in rounds (as CUHRE's rounds): the box first, split whatever its
//! estimate (a region's error is trusted only once DCUHRE's check of two halves against their
//! parent has seen it, [`super::cuhre::device::settle`]); then each round refines the worst
//! regions while the errors of those not taken exceed half the tolerance, and the backend
//! evaluates the new regions in one call for each shape ([`Backend::product_sums`]). A raised
//! region is checked against its previous rule as halves are against their parent: the
//! difference of the two values is about the previous rule's error on that axis, and where it
//! exceeds the previous reading the new one is scaled by the shortfall and is at least the
//! difference (`settle_raised`). A region whose error is within twice its rounding floor, or
//! too narrow to halve, is final. The same bits on every run and for any thread count: the
//! regions and every sum are in a fixed order.
//!
//! ```
//! use hpquad::cpu::CpuBackend;
//! use hpquad::expr::Expr;
//! use hpquad::methods::cuhre::Hyperbox;
//! use hpquad::methods::gauss_product::gauss_product;
//! use hpquad::methods::Options;
//! use hpquad::precision::{Dd, Real};
//!
//! // ∫∫ x e^(x y) over the unit square = e − 2.
//! let f = Expr::parse("x*exp(x*y)", 2)?;
//! let unit = Hyperbox::new(vec![Dd::zero(); 2], vec![Dd::one(); 2])?;
//! let options = Options { relative: Some(1e-30), ..Options::default() };
//! let out = gauss_product(&f, &CpuBackend::new(2)?, &unit, &options)?;
//! assert!(out.converged);
//! let exact = Dd::one().exp() - Dd::from(2);
//! assert!((out.value - exact).abs().to_f64() <= out.error);
//! # Ok::<(), hpquad::Error>(())
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use precision::Real;

use super::adaptive::splittable;
use super::cuhre::device::{settle, Raw};
use super::cuhre::Hyperbox;
use super::gauss_legendre::{Spectral, ONSET};
use super::{Options, Outcome, Stage};
use crate::backend::{check_finite, Backend};
use crate::error::{Error, Result};
use crate::integrand::Integrand;
use crate::rules::{self, half_width, Tail};

/// The most points of a run's first region: m^n ≤ 2^24.
pub const MAX_REGION_POINTS: u64 = 1 << 24;

/// The most points of a region whose axes were raised: 2^28.
pub const MAX_RAISED_POINTS: u64 = 1 << 28;

/// The fewest points an axis may have: the rule's spectrum needs seven.
const MIN_POINTS: usize = 8;

/// Coefficients within this many ulp of the mean |f| are rounding.
const NOISE: f64 = 1000.0;

/// The fibers (lines of m points along the first axis) of one block of a region's sums: the
/// unit in which every backend sums and combines, so that the bits do not depend on how a
/// backend spreads the blocks.
pub const BLOCK_FIBERS: u64 = 64;

/// The points on each axis a run starts with for precision `T` in `dims` dimensions: 12 in
/// f64, 20 in dd, 32 in qd (each halving of a resolved axis then cuts its error by about
/// 2^(2m): 2^24, 2^40, 2^64), fewer where m^n would pass [`MAX_REGION_POINTS`]; an error
/// where that leaves fewer than 8 (more than 8 variables).
pub fn points_per_axis<T: Real>(dims: usize) -> Result<usize> {
    let mut m = start_points::<T>();
    while m >= MIN_POINTS
        && (m as u64)
            .checked_pow(dims as u32)
            .is_none_or(|p| p > MAX_REGION_POINTS)
    {
        m -= 1;
    }
    if m < MIN_POINTS {
        return Err(Error::InvalidOption {
            option: "method",
            reason: format!(
                "gauss-product takes at most 8 variables (a region of {MIN_POINTS}^n points \
                 within 2^24); the integrand has {dims}: use cuhre-parallel"
            ),
        });
    }
    Ok(m)
}

/// The points an axis starts with in a few dimensions, by precision.
fn start_points<T: Real>() -> usize {
    match T::LIMBS {
        1 => 12,
        2 => 20,
        _ => 32,
    }
}

/// The most points an axis is raised to in precision `T`: twice the start, 24 in f64, 40 in
/// dd, 64 in qd.
pub fn most_points_per_axis<T: Real>() -> usize {
    2 * start_points::<T>()
}

/// Whether the automatic method takes this method for `f` over a box of `dims` axes, with the
/// reason: an expression with no operation that can put a kink or a jump inside (abs, floor,
/// min, ...; Rust code cannot be checked), in at most 4 dimensions, or 5 and 6 where dd or qd
/// is asked for or a relative tolerance of at most 1e-8 (`relative`, `None` for the default
/// 1000 ε). On smooth integrands the products converge geometrically where CUHRE's rules of
/// degree 7 and 9 converge like a power of the regions' width (README: in 3 dimensions, 10^-10
/// in f64 with 10 to 60 times fewer evaluations, and dd, where CUHRE stops at its cap, in
/// milliseconds); below 1e-8 in 5 and 6 dimensions the m^n points of a first region cost more
/// than CUHRE needs.
pub fn suits<F: Integrand>(
    f: &F,
    dims: usize,
    wide: bool,
    relative: Option<f64>,
) -> Option<String> {
    let smooth = f.tape().is_some_and(|tape| !tape.has_kinks());
    let tight = wide || relative.is_none_or(|r| r <= 1e-8);
    (smooth && (dims <= 4 || (dims <= 6 && tight))).then(|| {
        format!(
            "the integrand has {dims} variables and no operation that can put a kink or a jump \
             inside: products of Gauss–Legendre rules converge geometrically on it"
        )
    })
}

/// One axis's m-point Gauss–Legendre rule with what a backend needs to sum it: the weight of
/// each point and, per point, its spectrum functionals and those over its weight.
#[derive(Debug)]
pub struct AxisRule<T> {
    rule: Arc<rules::Rule<T>>,
    /// The weight of each point of [`rules::Rule::abscissae`].
    weights: Vec<T>,
    /// The four spectrum functionals of each point ([`rules::PointFunctionals`]).
    functionals: [Vec<T>; 4],
    /// The functionals over the point's weight.
    ratios: [Vec<T>; 4],
    /// The degrees from the spectrum's middle pair to its top pair.
    span: usize,
}

impl<T: Real> AxisRule<T> {
    /// The rule of `m` points (m ≥ 8).
    pub fn new(m: usize) -> Result<AxisRule<T>> {
        let rule = rules::legendre::<T>(m)?;
        let parts = rule
            .point_functionals()
            .ok_or_else(|| Error::InvalidOption {
                option: "method",
                reason: format!(
                    "a product rule needs at least {MIN_POINTS} points an axis, not {m}"
                ),
            })?;
        let ratios = std::array::from_fn(|k| {
            parts.functionals[k]
                .iter()
                .zip(&parts.weights)
                .map(|(&u, &w)| u / w)
                .collect()
        });
        Ok(AxisRule {
            rule,
            weights: parts.weights,
            functionals: parts.functionals,
            ratios,
            span: parts.span,
        })
    }

    /// The number of points.
    pub fn points(&self) -> usize {
        self.weights.len()
    }

    /// The weight of each point, in the order [`ProductRule::axis_points`] places them.
    pub fn weights(&self) -> &[T] {
        &self.weights
    }

    /// The four spectrum functionals of each point ([`rules::PointFunctionals`]).
    pub fn functionals(&self) -> &[Vec<T>; 4] {
        &self.functionals
    }

    /// The functionals over the point's weight: what a fiber's weighted sum is multiplied by
    /// for the axes other than the first.
    pub fn ratios(&self) -> &[Vec<T>; 4] {
        &self.ratios
    }
}

/// The product of a Gauss–Legendre rule on each axis ([`AxisRule`]), the same on every axis
/// or not: m_1 · m_2 ⋯ m_n points, their values summed as backends sum them.
#[derive(Debug, Clone)]
pub struct ProductRule<T> {
    axes: Vec<Arc<AxisRule<T>>>,
}

/// A region's sums under a [`ProductRule`] (or a block's part of them): Σ W f over its points
/// (W the product of the axes' weights), for each axis the four spectrum functionals of g_d,
/// Σ W |f|, and the first point whose value is not finite.
#[derive(Debug, Clone, PartialEq)]
pub struct ProductSums<T: Real> {
    /// Σ W f, in the accumulator.
    pub value: T::Accumulator,
    /// Per axis, Σ W_(others) u_k f for the four spectrum functionals u_k along that axis.
    pub tails: Vec<[T; 4]>,
    /// Σ W |f|.
    pub abs: f64,
    /// The index of the first point (first axis fastest) whose value is not finite.
    pub bad: Option<u64>,
}

impl<T: Real> ProductSums<T> {
    /// No points' sums.
    pub fn zero(dims: usize) -> ProductSums<T> {
        ProductSums {
            value: T::zero().to_accumulator(),
            tails: vec![[T::zero(); 4]; dims],
            abs: 0.0,
            bad: None,
        }
    }

    /// Adds the sums of the next block (in point order).
    pub fn add(&mut self, next: &ProductSums<T>) {
        self.value = self.value + next.value;
        for (t, u) in self.tails.iter_mut().zip(&next.tails) {
            for k in 0..4 {
                t[k] += u[k];
            }
        }
        self.abs += next.abs;
        self.bad = self.bad.or(next.bad);
    }
}

/// A region's estimate under a [`ProductRule`]: the value, error, floor and axis as every
/// region list reads them, and how the rule's points on that axis would serve it.
#[derive(Debug, Clone, Copy)]
pub struct ProductEstimate<T> {
    /// The value, the error Σ_d E_d, the rounding floor and the axis of the largest E_d.
    pub raw: Raw<T>,
    /// Whether the axis's coefficients fall fast enough (by at least [`RAISE_FALL`] a degree)
    /// that more points on it cut its error further than halving the region would.
    pub raise: bool,
}

/// A geometric fall of the coefficients per degree at or below which more points on the axis
/// (m → 3m/2: the error times fall^m) gain more than a halving (about 2^-2m for an analytic
/// integrand), at three quarters of its cost.
pub const RAISE_FALL: f64 = 0.25;

impl<T: Real> ProductRule<T> {
    /// The rule of `m` points on each of `dims` axes (dims ≥ 1, m ≥ 8).
    pub fn new(dims: usize, m: usize) -> Result<ProductRule<T>> {
        let axis = Arc::new(AxisRule::new(m)?);
        Self::with_axes(std::iter::repeat_n(axis, dims).collect())
    }

    /// The product of `axes`, the first axis's rule first (at least one).
    pub fn with_axes(axes: Vec<Arc<AxisRule<T>>>) -> Result<ProductRule<T>> {
        if axes.is_empty() {
            return Err(Error::InvalidOption {
                option: "method",
                reason: "a product rule needs at least one axis".into(),
            });
        }
        Ok(ProductRule { axes })
    }

    /// The number of variables.
    pub fn dims(&self) -> usize {
        self.axes.len()
    }

    /// The rule of axis `d`.
    pub fn axis(&self, d: usize) -> &AxisRule<T> {
        &self.axes[d]
    }

    /// The points on each axis.
    pub fn shape(&self) -> Vec<usize> {
        self.axes.iter().map(|a| a.points()).collect()
    }

    /// The points on every axis where all axes have the same number, else `None`.
    pub fn uniform_points(&self) -> Option<usize> {
        let m = self.axes[0].points();
        self.axes.iter().all(|a| a.points() == m).then_some(m)
    }

    /// The points of one region, m_1 · m_2 ⋯ m_n.
    pub fn points(&self) -> u64 {
        self.axes.iter().map(|a| a.points() as u64).product()
    }

    /// The fibers of one region, m_2 ⋯ m_n: lines of m_1 points along the first axis.
    pub fn fibers(&self) -> u64 {
        self.axes[1..].iter().map(|a| a.points() as u64).product()
    }

    /// The blocks of one region ([`BLOCK_FIBERS`] fibers each, the last one fewer).
    pub fn blocks(&self) -> u64 {
        self.fibers().div_ceil(BLOCK_FIBERS)
    }

    /// The points of each axis of the box `lower`..`upper`, axis after axis (m_d of axis d),
    /// as [`rules::Rule::abscissae`] places them.
    pub fn axis_points(&self, lower: &[T], upper: &[T]) -> Vec<T> {
        let mut out = Vec::with_capacity(self.axes.iter().map(|a| a.points()).sum());
        for ((&a, &b), axis) in lower.iter().zip(upper).zip(&self.axes) {
            axis.rule.abscissae(a, b, &mut out);
        }
        out
    }

    /// Where each axis's points start in [`ProductRule::axis_points`].
    fn offsets(&self) -> Vec<usize> {
        self.axes
            .iter()
            .scan(0, |start, a| {
                let here = *start;
                *start += a.points();
                Some(here)
            })
            .collect()
    }

    /// The point of index `k` (first axis fastest) of the region whose axis points are
    /// `points`.
    fn point(&self, points: &[T], mut k: u64) -> Vec<T> {
        self.axes
            .iter()
            .zip(self.offsets())
            .map(|(a, start)| {
                let m = a.points() as u64;
                let j = (k % m) as usize;
                k /= m;
                points[start + j]
            })
            .collect()
    }

    /// The sums of block `block` of the region whose axis points are `points`
    /// ([`ProductRule::axis_points`]), on the calling thread, in the order of its points: the
    /// unit that [`ProductRule::region_sums`] and every backend add in block order.
    pub fn block_sums<F: Integrand>(&self, f: &F, points: &[T], block: u64) -> ProductSums<T> {
        let n = self.dims();
        let first_axis = &self.axes[0];
        let m = first_axis.points();
        let offsets = self.offsets();
        let first = block * BLOCK_FIBERS;
        let fibers = (self.fibers() - first).min(BLOCK_FIBERS) as usize;
        // The block's points as columns, first axis fastest.
        let mut columns: Vec<Vec<T>> = vec![Vec::with_capacity(fibers * m); n];
        let mut digits = vec![0usize; n];
        for fiber in first..first + fibers as u64 {
            self.fiber_digits(fiber, &mut digits);
            for (d, column) in columns.iter_mut().enumerate() {
                if d == 0 {
                    column.extend_from_slice(&points[..m]);
                } else {
                    let x = points[offsets[d] + digits[d]];
                    column.extend(std::iter::repeat_n(x, m));
                }
            }
        }
        let refs: Vec<&[T]> = columns.iter().map(Vec::as_slice).collect();
        let mut values = vec![T::zero(); fibers * m];
        f.eval_batch(&refs, &mut values);

        let mut sums = ProductSums::zero(n);
        for (i, ys) in values.chunks_exact(m).enumerate() {
            let fiber = first + i as u64;
            self.fiber_digits(fiber, &mut digits);
            // Along the fiber: Σ w f, the first axis's functionals, Σ w |f|.
            let mut along = T::zero().to_accumulator();
            let mut tail0 = [T::zero(); 4];
            let mut abs = 0.0;
            for (j, &y) in ys.iter().enumerate() {
                if sums.bad.is_none() && !y.is_finite() {
                    sums.bad = Some(fiber * m as u64 + j as u64);
                }
                along = along + (first_axis.weights[j] * y).to_accumulator();
                for (k, t) in tail0.iter_mut().enumerate() {
                    *t += first_axis.functionals[k][j] * y;
                }
                abs += first_axis.weights[j].to_f64() * y.to_f64().abs();
            }
            let along = T::from_accumulator(along);
            // The other axes' weight of the fiber.
            let w = self.axes[1..]
                .iter()
                .zip(&digits[1..])
                .fold(T::one(), |w, (a, &j)| w * a.weights[j]);
            let weighted = w * along;
            sums.value = sums.value + weighted.to_accumulator();
            for (t, &u) in sums.tails[0].iter_mut().zip(&tail0) {
                *t += w * u;
            }
            for ((tails, a), &j) in sums.tails[1..]
                .iter_mut()
                .zip(&self.axes[1..])
                .zip(&digits[1..])
            {
                for (k, t) in tails.iter_mut().enumerate() {
                    *t += weighted * a.ratios[k][j];
                }
            }
            sums.abs += w.to_f64() * abs;
        }
        sums
    }

    /// The digits of `fiber`, axes 1.. (axis 1 fastest), each in its axis's base;
    /// `digits[0]` is left alone.
    fn fiber_digits(&self, mut fiber: u64, digits: &mut [usize]) {
        for (d, a) in digits[1..].iter_mut().zip(&self.axes[1..]) {
            let m = a.points() as u64;
            *d = (fiber % m) as usize;
            fiber /= m;
        }
    }

    /// The sums of the region `lower`..`upper` on the calling thread: its blocks in order.
    pub fn region_sums<F: Integrand>(&self, f: &F, lower: &[T], upper: &[T]) -> ProductSums<T> {
        let points = self.axis_points(lower, upper);
        let mut sums = ProductSums::zero(self.dims());
        for block in 0..self.blocks() {
            sums.add(&self.block_sums(f, &points, block));
        }
        sums
    }

    /// A region's estimate from its sums: the value, the error Σ_d E_d, the rounding floor,
    /// the axis of the largest E_d that can be halved (see the module's description), and
    /// whether more points on that axis would serve it better than a halving.
    pub fn estimate(&self, lower: &[T], upper: &[T], sums: &ProductSums<T>) -> ProductEstimate<T> {
        let half: Vec<T> = lower
            .iter()
            .zip(upper)
            .map(|(&a, &b)| half_width(a, b))
            .collect();
        let scale = half[1..].iter().fold(half[0], |v, &h| v * h);
        let value = T::from_accumulator(sums.value) * scale;
        let scale = scale.to_f64().abs();
        let eps = T::epsilon().to_f64();
        // ∫|f| over the region, and the mean |g_d| over [-1, 1] in the functionals' units.
        let magnitude = scale * sums.abs;
        let mean = sums.abs / 2.0;
        // Each axis's error and, where it is a geometric reading, the coefficients' fall.
        let readings: Vec<(f64, Option<f64>)> = sums
            .tails
            .iter()
            .zip(&self.axes)
            .map(|(c, axis)| {
                let m = axis.points();
                let c = c.map(|x| x.abs().to_f64());
                let tail = Tail {
                    middle: c[0].max(c[1]),
                    top: c[2].max(c[3]),
                    span: axis.span,
                };
                let largest = tail.middle.max(tail.top);
                let spectral = Spectral::of(Some(tail), m, scale);
                let fall = spectral.map(|s| s.fall);
                match spectral {
                    _ if largest <= NOISE * eps * mean => (0.0, None),
                    Some(s) if tail.top <= ONSET * mean => (s.error, fall),
                    _ => {
                        // Not resolved: the spectrum left up to degree 2m at its present size;
                        // where the coefficients do not fall either while the top ones are
                        // above ONSET of the mean, the rule may not see the integrand at all:
                        // at least ∫|f|.
                        let spread = 2.0 * scale * m as f64 * largest;
                        if spectral.is_none() && tail.top > ONSET * mean {
                            (spread.max(magnitude), None)
                        } else {
                            (spread, fall)
                        }
                    }
                }
            })
            .collect();
        let axis = (0..self.dims())
            .filter(|&d| splittable(lower[d], upper[d]))
            .max_by(|&a, &b| readings[a].0.total_cmp(&readings[b].0).then(b.cmp(&a)));
        ProductEstimate {
            raw: Raw {
                value,
                error: readings.iter().map(|r| r.0).sum(),
                floor: 4.0 * eps * magnitude + 2.0 * eps * value.to_f64().abs(),
                axis,
            },
            raise: axis.is_some_and(|d| readings[d].1.is_some_and(|fall| fall <= RAISE_FALL)),
        }
    }
}

/// The dimension of the regions whose corners are `lower` and `upper` (region-major), after
/// checking that they are whole regions of `f`'s and `rule`'s dimension.
pub(crate) fn product_regions<T: Real, F: Integrand>(
    f: &F,
    rule: &ProductRule<T>,
    lower: &[T],
    upper: &[T],
) -> Result<usize> {
    let dims = f.dims();
    if dims == 0
        || dims != rule.dims()
        || !lower.len().is_multiple_of(dims)
        || upper.len() != lower.len()
    {
        return Err(Error::InvalidOption {
            option: "regions",
            reason: format!(
                "{} lower and {} upper corner coordinates are not regions of a rule of {} \
                 dimensions for an integrand of {dims}",
                lower.len(),
                upper.len(),
                rule.dims()
            ),
        });
    }
    Ok(dims)
}

/// One live region.
#[derive(Debug, Clone)]
struct Region<T> {
    lower: Vec<T>,
    upper: Vec<T>,
    /// The points on each axis of its rule.
    shape: Vec<usize>,
    value: T,
    /// Its rule's own error reading, before the checks.
    reading: f64,
    /// The settled error.
    error: f64,
    /// The axis to refine; `None` when final.
    axis: Option<usize>,
    /// Whether refining it raises the points on `axis` rather than halving it.
    raise: bool,
}

/// A region to evaluate, and what its estimate is checked against.
struct Pending<T> {
    lower: Vec<T>,
    upper: Vec<T>,
    shape: Vec<usize>,
    origin: Origin<T>,
}

#[derive(Clone, Copy)]
enum Origin<T> {
    /// The box: its estimate is not trusted, it is halved whatever it claims.
    Box,
    /// One of the two halves (evaluated one after the other) of a region whose estimate was
    /// `parent`.
    Half { parent: T },
    /// A region evaluated again with more points on one axis: its previous rule's value and
    /// reading.
    Raised { value: T, reading: f64 },
}

/// The rules of a run by shape, each axis's rule made once.
struct Rules<T> {
    axes: BTreeMap<usize, Arc<AxisRule<T>>>,
    products: BTreeMap<Vec<usize>, ProductRule<T>>,
}

impl<T: Real> Rules<T> {
    fn new() -> Rules<T> {
        Rules {
            axes: BTreeMap::new(),
            products: BTreeMap::new(),
        }
    }

    /// The rule with `shape[d]` points on axis d.
    fn get(&mut self, shape: &[usize]) -> Result<&ProductRule<T>> {
        if !self.products.contains_key(shape) {
            let mut axes = Vec::with_capacity(shape.len());
            for &m in shape {
                let axis = match self.axes.get(&m) {
                    Some(axis) => axis.clone(),
                    None => {
                        let axis = Arc::new(AxisRule::new(m)?);
                        self.axes.insert(m, axis.clone());
                        axis
                    }
                };
                axes.push(axis);
            }
            self.products
                .insert(shape.to_vec(), ProductRule::with_axes(axes)?);
        }
        Ok(&self.products[shape])
    }
}

/// The shape of `region` with the points on its axis raised (3m/2, even, at most `most`),
/// where its estimate asks for that and the region stays within [`MAX_RAISED_POINTS`].
fn raised_shape<T>(region: &Region<T>, most: usize) -> Option<Vec<usize>> {
    let d = region.axis.filter(|_| region.raise)?;
    let m = region.shape[d];
    if m >= most {
        return None;
    }
    let mut shape = region.shape.clone();
    shape[d] = ((m + m / 2).div_ceil(2) * 2).min(most);
    let points = shape.iter().try_fold(1u64, |p, &m| p.checked_mul(m as u64));
    points
        .is_some_and(|p| p <= MAX_RAISED_POINTS)
        .then_some(shape)
}

/// The check of a region evaluated again with more points on one axis against its previous
/// rule (`value`, `reading`): d = |I_new − I_old| is about the previous rule's true error.
/// Where d is within the previous reading the readings are borne out and the new one stands;
/// where it is above, the new reading is scaled by d / reading and is at least d. Then the
/// floor and finality, as [`settle`]'s.
fn settle_raised<T: Real>(raw: &Raw<T>, value: T, reading: f64) -> (f64, Option<usize>) {
    let d = (raw.value - value).abs().to_f64();
    let error = if d <= reading {
        raw.error
    } else if reading > 0.0 {
        (raw.error * (d / reading)).max(d)
    } else {
        raw.error.max(d)
    };
    let error = error.max(raw.floor);
    let axis = if error <= 2.0 * raw.floor {
        None
    } else {
        raw.axis
    };
    (error, axis)
}

/// Integrates `f` over `region` with products of Gauss–Legendre rules, [`points_per_axis`]
/// points an axis to start, regions in rounds on `backend` (see the module's description),
/// until the error estimate meets `options`' tolerance, the evaluation cap would be passed,
/// or no region can be refined.
pub fn gauss_product<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    region: &Hyperbox<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    let n = region.dims();
    let most = most_points_per_axis::<T>();
    let mut rules = Rules::<T>::new();
    let first = vec![points_per_axis::<T>(n)?; n];
    let per_region = rules.get(&first)?.points();
    if per_region > options.max_evaluations {
        return Err(Error::InvalidOption {
            option: "max_evaluations",
            reason: format!(
                "one region of the product rule is {per_region} evaluations, more than the cap \
                 of {}",
                options.max_evaluations
            ),
        });
    }
    let mut stages: Vec<Stage> = Vec::new();
    let mut evaluations = 0u64;
    let mut live: Vec<Region<T>> = Vec::new();
    let mut round = 0u32;
    let mut pending = vec![Pending {
        lower: region.lower().to_vec(),
        upper: region.upper().to_vec(),
        shape: first,
        origin: Origin::Box,
    }];
    let (converged, error) = loop {
        // One backend call for the pending regions of each shape, shapes in order of first
        // appearance.
        let mut estimates: Vec<Option<ProductEstimate<T>>> = vec![None; pending.len()];
        let mut shapes: Vec<&[usize]> = Vec::new();
        for p in &pending {
            if !shapes.contains(&p.shape.as_slice()) {
                shapes.push(&p.shape);
            }
        }
        for shape in shapes {
            let start = Instant::now();
            let members: Vec<usize> = (0..pending.len())
                .filter(|&i| pending[i].shape == shape)
                .collect();
            let rule = rules.get(shape)?;
            let (lower, upper): (Vec<T>, Vec<T>) = members
                .iter()
                .flat_map(|&i| {
                    let p = &pending[i];
                    p.lower.iter().copied().zip(p.upper.iter().copied())
                })
                .unzip();
            let sums = backend.product_sums(f, rule, &lower, &upper)?;
            for (&i, s) in members.iter().zip(&sums) {
                let p = &pending[i];
                if let Some(k) = s.bad {
                    return Err(non_finite(f, rule, &p.lower, &p.upper, k));
                }
                estimates[i] = Some(rule.estimate(&p.lower, &p.upper, s));
            }
            let count = members.len() as u64 * rule.points();
            evaluations += count;
            stages.push(Stage {
                level: round,
                points: count,
                device: backend.device_for_product(f, rule, count),
                elapsed: start.elapsed(),
            });
        }
        let mut items = pending.drain(..).zip(estimates.into_iter().flatten());
        let mut place = |p: Pending<T>, e: &ProductEstimate<T>, (error, axis), raise| {
            live.push(Region {
                lower: p.lower,
                upper: p.upper,
                shape: p.shape,
                value: e.raw.value,
                reading: e.raw.error,
                error,
                axis,
                raise,
            })
        };
        while let Some((p, e)) = items.next() {
            match p.origin {
                Origin::Box => {
                    // The box keeps its axis even when its error is at rounding level: it is
                    // halved whatever it claims, so that every region the run ends with has
                    // been checked.
                    let (error, _) = settle(&[e.raw], None)[0];
                    let axis = e.raw.axis;
                    place(p, &e, (error, axis), false);
                }
                Origin::Half { parent } => {
                    let (q, g) = items.next().expect("halves come in pairs");
                    let settled = settle(&[e.raw, g.raw], Some(parent));
                    let (raise_p, raise_q) = (e.raise, g.raise);
                    place(p, &e, settled[0], raise_p);
                    place(q, &g, settled[1], raise_q);
                }
                Origin::Raised { value, reading } => {
                    let settled = settle_raised(&e.raw, value, reading);
                    let raise = e.raise;
                    place(p, &e, settled, raise);
                }
            }
        }
        drop(items);

        let value = total(&live);
        let error: f64 = live.iter().map(|r| r.error).sum();
        if !value.to_f64().is_finite() || error.is_nan() {
            return Err(Error::Overflow {
                value: value.to_string(),
                evaluations,
            });
        }
        let tol = options
            .absolute
            .max(options.relative_for::<T>() * value.to_f64().abs());
        // The box's own estimate is not trusted: it is halved whatever it claims.
        if round > 0 && error <= tol {
            break (true, error);
        }
        let mut order: Vec<usize> = (0..live.len())
            .filter(|&i| live[i].axis.is_some())
            .collect();
        order.sort_by(|&a, &b| live[b].error.total_cmp(&live[a].error).then(a.cmp(&b)));
        let budget = options.max_evaluations - evaluations;
        let (mut rest, mut spent) = (error, 0u64);
        let mut taken: Vec<(usize, Option<Vec<usize>>)> = Vec::new();
        for &i in &order {
            if round > 0 && rest <= tol / 2.0 {
                break;
            }
            let region = &live[i];
            let raised = raised_shape(region, most);
            let cost = match &raised {
                Some(shape) => rules.get(shape)?.points(),
                None => 2 * rules.get(&region.shape)?.points(),
            };
            if spent + cost > budget {
                break;
            }
            spent += cost;
            rest -= region.error;
            taken.push((i, raised));
        }
        if taken.is_empty() {
            break (error <= tol, error);
        }
        taken.sort_unstable_by_key(|t| t.0);
        let mut kept = Vec::with_capacity(live.len() + taken.len());
        let mut next_taken = taken.into_iter().peekable();
        for (i, r) in live.drain(..).enumerate() {
            let Some((_, raised)) = next_taken.next_if(|t| t.0 == i) else {
                kept.push(r);
                continue;
            };
            if let Some(shape) = raised {
                pending.push(Pending {
                    lower: r.lower,
                    upper: r.upper,
                    shape,
                    origin: Origin::Raised {
                        value: r.value,
                        reading: r.reading,
                    },
                });
                continue;
            }
            let d = r.axis.expect("only regions with an axis are refined");
            let mid = rules::midpoint(r.lower[d], r.upper[d]);
            let mut left_upper = r.upper.clone();
            left_upper[d] = mid;
            let mut right_lower = r.lower.clone();
            right_lower[d] = mid;
            let origin = Origin::Half { parent: r.value };
            pending.push(Pending {
                lower: r.lower,
                upper: left_upper,
                shape: r.shape.clone(),
                origin,
            });
            pending.push(Pending {
                lower: right_lower,
                upper: r.upper,
                shape: r.shape,
                origin,
            });
        }
        live = kept;
        round += 1;
    };
    Ok(Outcome {
        value: total(&live),
        error,
        evaluations,
        levels: round + 1,
        converged,
        table: Vec::new(),
        stages,
    })
}

/// Σ of the live regions' estimates in the accumulator, in list order.
fn total<T: Real>(live: &[Region<T>]) -> T {
    T::from_accumulator(live.iter().fold(T::zero().to_accumulator(), |s, r| {
        s + r.value.to_accumulator()
    }))
}

/// The error for point `k` of the region `lower`..`upper` (first axis fastest), whose value
/// was not finite.
fn non_finite<T: Real, F: Integrand>(
    f: &F,
    rule: &ProductRule<T>,
    lower: &[T],
    upper: &[T],
    k: u64,
) -> Error {
    let x = rule.point(&rule.axis_points(lower, upper), k);
    let columns: Vec<&[T]> = x.iter().map(std::slice::from_ref).collect();
    let mut y = [T::zero()];
    f.eval_batch(&columns, &mut y);
    match check_finite(&x, &y) {
        Err(e) => e,
        Ok(()) => {
            let coordinates: Vec<String> = x.iter().map(|c| c.to_string()).collect();
            Error::NonFinite {
                x: format!("({})", coordinates.join(", ")),
                value: format!("not a finite number on the device (here {})", y[0]),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(value: f64, error: f64) -> Raw<f64> {
        Raw {
            value,
            error,
            floor: 1e-30,
            axis: Some(0),
        }
    }

    #[test]
    fn a_raised_region_keeps_its_reading_only_where_the_previous_one_held() {
        // The values moved by less than the previous reading: the new reading stands.
        assert_eq!(
            settle_raised(&raw(1.0, 1e-12), 1.0 + 1e-9, 1e-8),
            (1e-12, Some(0))
        );
        // By ten times the previous reading: the new one ten times over, at least the move.
        let (error, _) = settle_raised(&raw(1.0, 1e-12), 1.0 + 1e-7, 1e-8);
        assert!(error >= 1e-7 * 0.99, "{error:e}");
        let (error, _) = settle_raised(&raw(1.0, 1e-5), 1.0 + 1e-7, 1e-8);
        assert!((error / 1e-4 - 1.0).abs() < 1e-6, "{error:e}");
        // A previous reading of zero: the move, never an infinity or a NaN.
        let (error, _) = settle_raised(&raw(1.0, 0.0), 1.0 + 1e-7, 0.0);
        assert!(error.is_finite() && error >= 0.99e-7, "{error:e}");
        // Within twice the floor: final.
        assert_eq!(settle_raised(&raw(1.0, 0.0), 1.0, 0.0).1, None);
    }
}
