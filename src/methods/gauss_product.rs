//! Adaptive tensor-product Gauss–Legendre cubature over a box: for smooth integrands of a few
//! variables to the full accuracy of dd and qd, where the fully symmetric rules of CUHRE
//! (degree 7 or 9) would need billions of regions (exp(x·y) over the unit square to 1e-40 in qd:
//! CUHRE stops at 4·10^-31 after 1.3·10^8 evaluations; this method meets it in thousands).
//!
//! A region's rule is the product of the m-point Gauss–Legendre rule on every axis (m^n
//! points, exact for every polynomial of degree 2m − 1 in each variable; m from the precision
//! and the dimension, [`points_per_axis`]). Its error is read axis by axis from the same
//! values: along axis d the rule's values, summed with the other axes' weights, are the
//! m-point rule's values of g_d(t) = ∫ f over the other axes, and the product's error is the
//! sum over the axes of the one-dimensional rules' errors on those g_d (the error of a product
//! telescopes axis by axis). Each g_d's Legendre coefficients at the middle and the top of the
//! rule's range ([`rules::Rule::point_functionals`]) give its rule's error as the adaptive
//! Gauss–Legendre method reads it (`Spectral`: geometric fall extrapolated to degree 2m,
//! counted at three quarters of its rate): the error E_d of the axis. Where the coefficients do
//! not fall fast (a feature the rule does not resolve, a kink) E_d is 2 h m max(c) (the
//! spectrum left up to degree 2m at its present size) or ∫|f| over the region, whichever is
//! larger while the top coefficients are above a thousandth of the mean |f|; where they are at
//! rounding level, 0. The region's error is Σ_d E_d, and it is split in two along the axis of
//! the largest E_d.
//!
//! The regions are worked on in rounds (as CUHRE's rounds): the box first, split whatever its
//! estimate (a region's error is trusted only once DCUHRE's check of two halves against their
//! parent has seen it, [`super::cuhre::device::settle`]); then each round splits the worst regions
//! while the errors of those not taken exceed half the tolerance, and the backend evaluates
//! all the halves in one call ([`Backend::product_sums`]). A region whose error is within twice
//! its rounding floor, or too narrow to halve, is final. The same bits on every run and for
//! any thread count: the regions and every sum are in a fixed order.
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

/// The most points of one region: m^n ≤ 2^24.
pub const MAX_REGION_POINTS: u64 = 1 << 24;

/// The fewest points an axis may have: the rule's spectrum needs seven.
const MIN_POINTS: usize = 8;

/// Coefficients within this many ulp of the mean |f| are rounding.
const NOISE: f64 = 1000.0;

/// The fibers (lines of m points along the first axis) of one block of a region's sums: the
/// unit in which every backend sums and combines, so that the bits do not depend on how a
/// backend spreads the blocks.
pub const BLOCK_FIBERS: u64 = 64;

/// The points on each axis for precision `T` in `dims` dimensions: 12 in f64, 20 in dd, 32 in
/// qd (each halving of a resolved axis then cuts its error by about 2^(2m): 2^24, 2^40, 2^64),
/// fewer where m^n would pass [`MAX_REGION_POINTS`]; an error where that leaves fewer than 8
/// (more than 8 variables).
pub fn points_per_axis<T: Real>(dims: usize) -> Result<usize> {
    let wanted: usize = match T::LIMBS {
        1 => 12,
        2 => 20,
        _ => 32,
    };
    let mut m = wanted;
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

/// The product of the m-point Gauss–Legendre rule on each of `dims` axes, with what a backend
/// needs to sum it: the weight of each point of the one-dimensional rule and, per point, its
/// spectrum functionals over its weight.
#[derive(Debug, Clone)]
pub struct ProductRule<T> {
    dims: usize,
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

impl<T: Real> ProductRule<T> {
    /// The rule of `m` points an axis in `dims` dimensions (m ≥ 8).
    pub fn new(dims: usize, m: usize) -> Result<ProductRule<T>> {
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
        Ok(ProductRule {
            dims,
            rule,
            weights: parts.weights,
            functionals: parts.functionals,
            ratios,
            span: parts.span,
        })
    }

    /// The number of variables.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The points on each axis.
    pub fn points_per_axis(&self) -> usize {
        self.weights.len()
    }

    /// The points of one region, m^n.
    pub fn points(&self) -> u64 {
        (self.points_per_axis() as u64).pow(self.dims as u32)
    }

    /// The fibers of one region, m^(n−1): lines of m points along the first axis.
    pub fn fibers(&self) -> u64 {
        (self.points_per_axis() as u64).pow(self.dims as u32 - 1)
    }

    /// The blocks of one region ([`BLOCK_FIBERS`] fibers each, the last one fewer).
    pub fn blocks(&self) -> u64 {
        self.fibers().div_ceil(BLOCK_FIBERS)
    }

    /// The weight of each point of the one-dimensional rule, in the order of
    /// [`ProductRule::axis_points`].
    pub fn weights(&self) -> &[T] {
        &self.weights
    }

    /// The four spectrum functionals of each point of the one-dimensional rule
    /// ([`rules::PointFunctionals`]).
    pub fn functionals(&self) -> &[Vec<T>; 4] {
        &self.functionals
    }

    /// The functionals over the point's weight: what a fiber's weighted sum is multiplied by
    /// for the axes other than the first.
    pub fn ratios(&self) -> &[Vec<T>; 4] {
        &self.ratios
    }

    /// The m points of each axis of the box `lower`..`upper`, axis after axis, as
    /// [`rules::Rule::abscissae`] places them.
    pub fn axis_points(&self, lower: &[T], upper: &[T]) -> Vec<T> {
        let mut out = Vec::with_capacity(self.dims * self.points_per_axis());
        for (&a, &b) in lower.iter().zip(upper) {
            self.rule.abscissae(a, b, &mut out);
        }
        out
    }

    /// The sums of block `block` of the region whose axis points are `points`
    /// ([`ProductRule::axis_points`]), on the calling thread, in the order of its points: the
    /// unit that [`ProductRule::region_sums`] and every backend add in block order.
    pub fn block_sums<F: Integrand>(&self, f: &F, points: &[T], block: u64) -> ProductSums<T> {
        let (n, m) = (self.dims, self.points_per_axis());
        let first = block * BLOCK_FIBERS;
        let fibers = (self.fibers() - first).min(BLOCK_FIBERS) as usize;
        // The block's points as columns, first axis fastest.
        let mut columns: Vec<Vec<T>> = vec![Vec::with_capacity(fibers * m); n];
        let mut digits = vec![0usize; n];
        for fiber in first..first + fibers as u64 {
            fiber_digits(fiber, m, &mut digits);
            for (d, column) in columns.iter_mut().enumerate() {
                if d == 0 {
                    column.extend_from_slice(&points[..m]);
                } else {
                    let x = points[d * m + digits[d]];
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
            fiber_digits(fiber, m, &mut digits);
            // Along the fiber: Σ w f, the first axis's functionals, Σ w |f|.
            let mut along = T::zero().to_accumulator();
            let mut tail0 = [T::zero(); 4];
            let mut abs = 0.0;
            for (j, &y) in ys.iter().enumerate() {
                if sums.bad.is_none() && !y.is_finite() {
                    sums.bad = Some(fiber * m as u64 + j as u64);
                }
                along = along + (self.weights[j] * y).to_accumulator();
                for (k, t) in tail0.iter_mut().enumerate() {
                    *t += self.functionals[k][j] * y;
                }
                abs += self.weights[j].to_f64() * y.to_f64().abs();
            }
            let along = T::from_accumulator(along);
            // The other axes' weight of the fiber.
            let w = digits[1..]
                .iter()
                .fold(T::one(), |w, &j| w * self.weights[j]);
            let weighted = w * along;
            sums.value = sums.value + weighted.to_accumulator();
            for (t, &u) in sums.tails[0].iter_mut().zip(&tail0) {
                *t += w * u;
            }
            for (tails, &j) in sums.tails[1..].iter_mut().zip(&digits[1..]) {
                for (k, t) in tails.iter_mut().enumerate() {
                    *t += weighted * self.ratios[k][j];
                }
            }
            sums.abs += w.to_f64() * abs;
        }
        sums
    }

    /// The sums of the region `lower`..`upper` on the calling thread: its blocks in order.
    pub fn region_sums<F: Integrand>(&self, f: &F, lower: &[T], upper: &[T]) -> ProductSums<T> {
        let points = self.axis_points(lower, upper);
        let mut sums = ProductSums::zero(self.dims);
        for block in 0..self.blocks() {
            sums.add(&self.block_sums(f, &points, block));
        }
        sums
    }

    /// A region's estimate from its sums: the value, the error Σ_d E_d, the rounding floor and
    /// the axis of the largest E_d that can be halved (see the module's description).
    pub fn estimate(&self, lower: &[T], upper: &[T], sums: &ProductSums<T>) -> Raw<T> {
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
        let m = self.points_per_axis();
        let errors: Vec<f64> = sums
            .tails
            .iter()
            .map(|c| {
                let c = c.map(|x| x.abs().to_f64());
                let tail = Tail {
                    middle: c[0].max(c[1]),
                    top: c[2].max(c[3]),
                    span: self.span,
                };
                let largest = tail.middle.max(tail.top);
                if largest <= NOISE * eps * mean {
                    0.0
                } else if let Some(s) = (tail.top <= ONSET * mean)
                    .then(|| Spectral::of(Some(tail), m, scale))
                    .flatten()
                {
                    s.error
                } else {
                    // Not resolved: the spectrum left up to degree 2m at its present size, at
                    // least ∫|f| while the top coefficients are above ONSET of the mean.
                    let spread = 2.0 * scale * m as f64 * largest;
                    if tail.top > ONSET * mean {
                        spread.max(magnitude)
                    } else {
                        spread
                    }
                }
            })
            .collect();
        let axis = (0..self.dims)
            .filter(|&d| splittable(lower[d], upper[d]))
            .max_by(|&a, &b| errors[a].total_cmp(&errors[b]).then(b.cmp(&a)));
        Raw {
            value,
            error: errors.iter().sum(),
            floor: 4.0 * eps * magnitude + 2.0 * eps * value.to_f64().abs(),
            axis,
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

/// The digits of `fiber` in base `m`, axes 1.. (axis 1 fastest); `digits[0]` is left alone.
fn fiber_digits(mut fiber: u64, m: usize, digits: &mut [usize]) {
    for d in digits[1..].iter_mut() {
        *d = (fiber % m as u64) as usize;
        fiber /= m as u64;
    }
}

/// One live region.
#[derive(Debug, Clone)]
struct Region<T> {
    lower: Vec<T>,
    upper: Vec<T>,
    value: T,
    /// The settled error.
    error: f64,
    /// The axis to split along; `None` when final.
    axis: Option<usize>,
}

/// Integrates `f` over `region` with the product rule of [`points_per_axis`] points an axis,
/// regions in rounds on `backend` (see the module's description), until the error estimate
/// meets `options`' tolerance, the evaluation cap would be passed, or no region can be split.
pub fn gauss_product<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    region: &Hyperbox<T>,
    options: &Options,
) -> Result<Outcome<T>> {
    let n = region.dims();
    let rule = ProductRule::<T>::new(n, points_per_axis::<T>(n)?)?;
    let per_region = rule.points();
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
    // The regions to evaluate: (lower, upper, parent's value); children come in pairs.
    let mut pending: Vec<(Vec<T>, Vec<T>)> =
        vec![(region.lower().to_vec(), region.upper().to_vec())];
    let mut parents: Vec<T> = Vec::new();
    let (converged, error) = loop {
        let start = Instant::now();
        let (lower, upper): (Vec<T>, Vec<T>) = pending
            .iter()
            .flat_map(|(l, u)| l.iter().copied().zip(u.iter().copied()))
            .unzip();
        let sums = backend.product_sums(f, &rule, &lower, &upper)?;
        for ((l, u), s) in pending.iter().zip(&sums) {
            if let Some(k) = s.bad {
                return Err(non_finite(f, &rule, l, u, k));
            }
        }
        let raws: Vec<Raw<T>> = pending
            .iter()
            .zip(&sums)
            .map(|((l, u), s)| rule.estimate(l, u, s))
            .collect();
        let count = pending.len() as u64 * per_region;
        evaluations += count;
        if parents.is_empty() {
            // The box keeps its axis even when its error is at rounding level: it is split
            // whatever it claims, so that every region the run ends with has been checked.
            let settled = settle(&raws, None);
            for ((l, u), (raw, (error, _))) in pending.drain(..).zip(raws.iter().zip(settled)) {
                live.push(Region {
                    lower: l,
                    upper: u,
                    value: raw.value,
                    error,
                    axis: raw.axis,
                });
            }
        } else {
            let mut next = pending.drain(..);
            for (pair, &parent) in raws.chunks_exact(2).zip(&parents) {
                for (raw, (error, axis)) in pair.iter().zip(settle(pair, Some(parent))) {
                    let (l, u) = next.next().expect("a region for each estimate");
                    live.push(Region {
                        lower: l,
                        upper: u,
                        value: raw.value,
                        error,
                        axis,
                    });
                }
            }
        }
        stages.push(Stage {
            level: round,
            points: count,
            device: backend.device_for_product::<T, F>(f, count),
            elapsed: start.elapsed(),
        });

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
        // The box's own estimate is not trusted: it is split whatever it claims.
        if round > 0 && error <= tol {
            break (true, error);
        }
        let mut order: Vec<usize> = (0..live.len())
            .filter(|&i| live[i].axis.is_some())
            .collect();
        order.sort_by(|&a, &b| live[b].error.total_cmp(&live[a].error).then(a.cmp(&b)));
        let budget = (options.max_evaluations - evaluations) / (2 * per_region);
        let mut rest = error;
        let mut taken = Vec::new();
        for &i in &order {
            if (round > 0 && rest <= tol / 2.0) || taken.len() as u64 == budget {
                break;
            }
            rest -= live[i].error;
            taken.push(i);
        }
        if taken.is_empty() {
            break (error <= tol, error);
        }
        taken.sort_unstable();
        let mut kept = Vec::with_capacity(live.len() + taken.len());
        let mut next_taken = taken.iter().peekable();
        parents.clear();
        for (i, r) in live.drain(..).enumerate() {
            if next_taken.peek() == Some(&&i) {
                next_taken.next();
                let d = r.axis.expect("only regions with an axis are split");
                let mid = rules::midpoint(r.lower[d], r.upper[d]);
                let mut left_upper = r.upper.clone();
                left_upper[d] = mid;
                let mut right_lower = r.lower.clone();
                right_lower[d] = mid;
                pending.push((r.lower, left_upper));
                pending.push((right_lower, r.upper));
                parents.push(r.value);
            } else {
                kept.push(r);
            }
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
    let m = rule.points_per_axis();
    let points = rule.axis_points(lower, upper);
    let mut rest = k;
    let x: Vec<T> = (0..rule.dims())
        .map(|d| {
            let j = (rest % m as u64) as usize;
            rest /= m as u64;
            points[d * m + j]
        })
        .collect();
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
