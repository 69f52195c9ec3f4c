//! Quadrature rules on [-1, 1] computed in the working precision: Gauss–Legendre
//! ([`legendre`]) and its Gauss–Kronrod extension ([`kronrod`]), for any number of points.
//!
//! A rule is symmetric, so it stores the non-negative half of its nodes, largest first, with
//! their weights. It is computed once per process for each precision and number of points and
//! shared through an [`Arc`]: a second request costs a lookup.
//!
//! Nodes are found by Newton's method on the defining polynomial, evaluated by its three-term
//! recurrence in a precision at least as wide as the working one (double-double for f64,
//! quad-double for double-double and quad-double), and rounded to the working precision once
//! at the end; Gauss–Legendre's Newton starts in f64 and double-double, so that only its
//! last two or three steps pay for the wide precision. A weight is the value of a smooth formula at its node; the node, once rounded,
//! is off the true zero by up to half an ulp, and near ±1 the formula is steep enough to turn
//! that into hundreds of ulp. So each weight is evaluated at the rounded node and corrected to
//! first order by the last Newton step δ (which is below the node's ulp but still known):
//! w(x + δ) ≈ w(x) + δ w'(x), w' by a central difference (in f64 for Gauss–Legendre: δ w'
//! needs a few digits of w' only).
//!
//! ```
//! use hpquad::rules;
//! use hpquad::precision::Qd;
//! // ∫_{-1}^{1} x^6 dx = 2/7, exact for 4 Gauss points (degree 7).
//! let rule = rules::legendre::<Qd>(4)?;
//! let mut points = Vec::new();
//! rule.abscissae(Qd::from(-1), Qd::from(1), &mut points);
//! let values: Vec<Qd> = points.iter().map(|&x| x.powi(6)).collect();
//! let error = rule.integrate(&values, Qd::from(1)) - Qd::from(2) / Qd::from(7);
//! assert!(error.abs().to_f64() < 1e-62);
//! # Ok::<(), hpquad::Error>(())
//! ```

mod kronrod;
mod legendre;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use precision::lanes::Operand;
use precision::{Dd, Qd, Real};

use crate::columns;
use crate::error::{Error, Result};
use crate::expr::zeros;

/// The largest Gauss–Legendre rule [`legendre`] computes.
pub const MAX_LEGENDRE_POINTS: usize = 4096;

/// The largest embedded Gauss rule [`kronrod`] extends (Patterson's series for the Stieltjes
/// polynomial loses accuracy beyond a few hundred points).
pub const MAX_KRONROD_GAUSS_POINTS: usize = 256;

/// An n-point interpolatory rule on [-1, 1], symmetric about 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule<T> {
    points: usize,
    nodes: Vec<T>,
    /// 1 − x for each node x, to the working precision of the difference itself (from the
    /// wide precision's node and its last Newton step), not the rounded 1 − x.
    complements: Vec<T>,
    weights: Vec<T>,
    /// How to read the size of the Legendre coefficients of the values' interpolant (rules of
    /// at least [`Spectrum::MIN_POINTS`] points).
    spectrum: Option<Spectrum<T>>,
}

/// Functionals on a Gauss–Legendre rule's values giving the Legendre coefficients of their
/// interpolant at four degrees: two in the middle of the rule's range (m, m + 1 with
/// m = n/2) and its top two (n − 2, n − 1). A pair at each place, as an even or odd integrand
/// has every other coefficient zero.
#[derive(Debug, Clone, PartialEq)]
struct Spectrum<T> {
    degrees: [usize; 4],
    /// For each degree, (k + 1/2) w_i P_k(x_i) over the non-negative nodes x_i.
    functionals: [Vec<T>; 4],
    /// The same, node by node: the four functionals of node i at 4i..4i + 4.
    by_node: Vec<T>,
}

impl<T: Copy> Spectrum<T> {
    fn new(degrees: [usize; 4], functionals: [Vec<T>; 4]) -> Spectrum<T> {
        let by_node = (0..functionals[0].len())
            .flat_map(|i| functionals.iter().map(move |u| u[i]))
            .collect();
        Spectrum {
            degrees,
            functionals,
            by_node,
        }
    }
}

impl<T> Spectrum<T> {
    /// The smallest rule with a spectrum: its middle and top pairs are apart.
    const MIN_POINTS: usize = 7;

    fn degrees_for(n: usize) -> Option<[usize; 4]> {
        (n >= Self::MIN_POINTS).then(|| {
            let m = n / 2;
            [m, m + 1, n - 2, n - 1]
        })
    }
}

/// How fast the Legendre coefficients of a rule's values fall: the larger of each pair of
/// coefficients (degrees m, m + 1 with m = n/2, and n − 2, n − 1). For an
/// integrand analytic on the interval they fall geometrically (at least), and the rule's own
/// error is the part of the spectrum from degree 2n on (see the adaptive Gauss–Legendre
/// method, which extrapolates the fall).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tail {
    /// max(|c_m|, |c_(m+1)|), m = n/2.
    pub middle: f64,
    /// max(|c_(n−2)|, |c_(n−1)|).
    pub top: f64,
    /// The degrees from the middle pair to the top pair: n − 2 − m.
    pub span: usize,
}

/// A rule's weights and spectrum functionals per point ([`Rule::point_functionals`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PointFunctionals<T> {
    /// The weight of each point.
    pub weights: Vec<T>,
    /// (k + 1/2) w P_k(x) at each point x, for the degrees k of [`Rule::tail`]: the middle
    /// pair, then the top pair. Σ over the points of one of them times the values is that
    /// Legendre coefficient of the values' interpolant.
    pub functionals: [Vec<T>; 4],
    /// The degrees from the middle pair to the top pair ([`Tail::span`]).
    pub span: usize,
}

impl<T: Real> Rule<T> {
    /// The number of points of the whole rule.
    pub fn points(&self) -> usize {
        self.points
    }

    /// The non-negative nodes, largest first; 0 is the last one when the rule has an odd
    /// number of points.
    pub fn nodes(&self) -> &[T] {
        &self.nodes
    }

    /// The weights of [`Rule::nodes`] (each stands for both x and -x).
    pub fn weights(&self) -> &[T] {
        &self.weights
    }

    /// 1 − x for each of [`Rule::nodes`], accurate relative to itself (see
    /// [`Rule::abscissae`]).
    pub fn complements(&self) -> &[T] {
        &self.complements
    }

    /// Appends the rule's points on [a, b] to `out`: for each node x, the point at −x then the
    /// one at x (the centre once). With c = [`midpoint`] and h = [`half_width`], a node up to
    /// 1/2 gives c ∓ h·x; a node past 1/2 gives a + h·(1 − x) and b − h·(1 − x), from the
    /// end it is near and the node's complement kept to full relative precision. So a point
    /// near an end carries the rounding of its own size and of its distance from that end,
    /// where c − h·x carried ε·|c| (and the rounded node's ε·h): on [0, 600] the points next
    /// to 0 were off by 3·10⁻¹⁴, which e^(−x) turned into an error fifteen times the f64
    /// estimate's claim.
    pub fn abscissae(&self, a: T, b: T, out: &mut Vec<T>) {
        push_abscissae(&self.nodes, &self.complements, a, b, out);
    }

    /// The rule applied to `values`, the integrand at the points of [`Rule::abscissae`] in
    /// that order: half_width · Σ w_i f(x_i).
    ///
    /// The products are summed in `T::Accumulator` (double-double for f64), so the sum adds no
    /// rounding error of its own beyond the last.
    pub fn integrate(&self, values: &[T], half_width: T) -> T {
        let sum = if by_columns::<T>() {
            self.sum_by_columns(values)
        } else {
            self.sum_by_node(values)
        };
        T::from_accumulator(sum) * half_width
    }

    /// Σ w_i f(x_i), one node at a time.
    fn sum_by_node(&self, values: &[T]) -> T::Accumulator {
        let mut sum = T::zero().to_accumulator();
        for_each_pair(&self.nodes, values, |i, pair| {
            sum = sum + (self.weights[i] * pair).to_accumulator()
        });
        sum
    }

    /// [`Rule::sum_by_node`] with the pairs and products as column operations: the same bits.
    fn sum_by_columns(&self, values: &[T]) -> T::Accumulator {
        let sides = Sides::of(&self.nodes, values);
        let pairs = sides.pairs(|pairs, minus, plus| columns::add(pairs, minus, plus));
        let mut products = zeros::<T>(pairs.len());
        columns::mul(
            &mut products,
            Operand::Column(&self.weights),
            Operand::Column(&pairs),
        );
        products.iter().fold(T::zero().to_accumulator(), |sum, &p| {
            sum + p.to_accumulator()
        })
    }

    /// The sizes of the Legendre coefficients of `values` (the integrand at the points of
    /// [`Rule::abscissae`]) in the middle and at the top of the rule's range, in units of the
    /// values: `None` for a rule of fewer than 7 points, or where the top coefficients are above
    /// `ceiling` (the spectrum has not begun to fall, and the middle pair is not read: the
    /// functionals cost two products a point).
    ///
    /// ```
    /// use hpquad::rules;
    /// // e^x on [-1, 1]: its Legendre coefficients fall like 1/(2^k k!).
    /// let rule = rules::legendre::<f64>(12)?;
    /// let mut points = Vec::new();
    /// rule.abscissae(0.0, 1.0, &mut points);
    /// let values: Vec<f64> = points.iter().map(|x| x.exp()).collect();
    /// let tail = rule.tail(&values, f64::INFINITY).unwrap();
    /// assert!(tail.top < 1e-4 * tail.middle); // c_10 / c_6 ≈ 2^6 6! / (2^10 10!) ≈ 1e-5
    /// # Ok::<(), hpquad::Error>(())
    /// ```
    pub fn tail(&self, values: &[T], ceiling: f64) -> Option<Tail> {
        let spectrum = self.spectrum.as_ref()?;
        let all = by_columns::<T>().then(|| self.coefficients_by_columns(spectrum, values));
        let coefficient = |j: usize| {
            let c = match all {
                Some(all) => all[j],
                None => self.coefficient_by_node(spectrum, values, j),
            };
            c.abs().to_f64()
        };
        let [m, _, top, _] = spectrum.degrees;
        let top_pair = coefficient(2).max(coefficient(3));
        if top_pair > ceiling {
            return None;
        }
        Some(Tail {
            middle: coefficient(0).max(coefficient(1)),
            top: top_pair,
            span: top - m,
        })
    }

    /// The coefficient at `spectrum.degrees[j]`, one node at a time: Σ u_i (f(x_i) ± f(−x_i))
    /// (P_k(−x) = (−1)^k P_k(x)), u_i f(0) at a node x = 0.
    fn coefficient_by_node(&self, spectrum: &Spectrum<T>, values: &[T], j: usize) -> T {
        let u = &spectrum.functionals[j];
        let odd = spectrum.degrees[j] % 2 == 1;
        let mut sum = T::zero();
        let mut k = 0;
        for (i, &x) in self.nodes.iter().enumerate() {
            if x == T::zero() {
                sum += u[i] * values[k];
                k += 1;
            } else {
                // Values come as f(-x), f(x).
                let pair = if odd {
                    values[k + 1] - values[k]
                } else {
                    values[k + 1] + values[k]
                };
                sum += u[i] * pair;
                k += 2;
            }
        }
        sum
    }

    /// The four coefficients of [`Rule::coefficient_by_node`] with the pairs and the products
    /// as column operations and the four sums side by side, each in node order: the same
    /// bits.
    fn coefficients_by_columns(&self, spectrum: &Spectrum<T>, values: &[T]) -> [T; 4] {
        let sides = Sides::of(&self.nodes, values);
        let even = sides.pairs(|pairs, minus, plus| columns::add(pairs, plus, minus));
        let odd = sides.pairs(|pairs, minus, plus| columns::sub(pairs, plus, minus));
        let n = self.nodes.len();
        let odd_degree = spectrum.degrees.map(|d| d % 2 == 1);
        let pairs: Vec<T> = (0..n)
            .flat_map(|i| odd_degree.map(|o| if o { odd[i] } else { even[i] }))
            .collect();
        let mut products = zeros::<T>(4 * n);
        columns::mul(
            &mut products,
            Operand::Column(&spectrum.by_node),
            Operand::Column(&pairs),
        );
        let (mut sums, mut next) = (zeros::<T>(4), zeros::<T>(4));
        for node in products.chunks_exact(4) {
            columns::add(&mut next, Operand::Column(&sums), Operand::Column(node));
            std::mem::swap(&mut sums, &mut next);
        }
        [sums[0], sums[1], sums[2], sums[3]]
    }

    /// The rule's weight and its spectrum's four functionals at each point of
    /// [`Rule::abscissae`], in that order: what a product of rules needs to weigh a point and
    /// to read the Legendre coefficients of the values along each axis (the functionals of
    /// [`Rule::tail`], at degrees m, m + 1, n − 2 and n − 1 with m = n/2). `None` for a rule of
    /// fewer than 7 points.
    pub fn point_functionals(&self) -> Option<PointFunctionals<T>> {
        let spectrum = self.spectrum.as_ref()?;
        let mut weights = Vec::with_capacity(self.points);
        let mut functionals: [Vec<T>; 4] = Default::default();
        for (i, &x) in self.nodes.iter().enumerate() {
            let sides: &[bool] = if x == T::zero() {
                &[false]
            } else {
                &[true, false]
            };
            // f(-x) first, then f(x), as the abscissae; P_k(-x) = (-1)^k P_k(x).
            for &minus in sides {
                weights.push(self.weights[i]);
                for (j, out) in functionals.iter_mut().enumerate() {
                    let u = spectrum.functionals[j][i];
                    out.push(if minus && spectrum.degrees[j] % 2 == 1 {
                        -u
                    } else {
                        u
                    });
                }
            }
        }
        let [middle, _, top, _] = spectrum.degrees;
        Some(PointFunctionals {
            weights,
            functionals,
            span: top - middle,
        })
    }

    /// The rule applied to |f|: |half_width| · Σ w_i |f(x_i)|, the scale of the rounding
    /// errors in [`Rule::integrate`]: a scale, so summed in f64 (in qd, two of the few
    /// operations a point the rule adds to the integrand's).
    pub fn integrate_abs(&self, values: &[T], half_width: T) -> f64 {
        let mut sum = 0.0;
        for_each_node(&self.nodes, values, |i, f| {
            sum += self.weights[i].to_f64() * f.to_f64().abs()
        });
        sum * half_width.to_f64().abs()
    }

    /// What rounding the abscissae to the working precision does to [`Rule::integrate`] on
    /// [a, b]: ε Σ w_i (|p_i| + h·min(x_i, 1 − x_i)) |f'(p_i)| · h for the points p_i of
    /// [`Rule::abscissae`] (nodes x_i, h the half-width), each off by the rounding of its size
    /// and of its offset from the centre or end it was formed from, with f' from the values
    /// at the neighbouring points. A steep integrand far from 0 turns that rounding into
    /// errors well above ε |f| (sin(10πx) at x = 20 in dd: the argument 628 carries 628 ε),
    /// which no difference between rules shows.
    pub fn abscissa_rounding(&self, values: &[T], a: T, b: T) -> f64 {
        abscissa_rounding(
            &self.nodes,
            &self.complements,
            &self.weights,
            self.points,
            values,
            a,
            b,
        )
    }
}

/// The (2n+1)-point Gauss–Kronrod rule on [-1, 1] with its embedded n-point Gauss rule.
#[derive(Debug, Clone, PartialEq)]
pub struct KronrodRule<T> {
    gauss_points: usize,
    nodes: Vec<T>,
    /// 1 − x for each node x, as [`Rule`]'s.
    complements: Vec<T>,
    weights: Vec<T>,
    gauss_weights: Vec<T>,
}

/// What one Gauss–Kronrod rule gives on one interval: both estimates and the two magnitudes
/// that QUADPACK's error heuristic needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KronrodSums<T> {
    /// The (2n+1)-point Kronrod estimate.
    pub kronrod: T,
    /// The embedded n-point Gauss estimate.
    pub gauss: T,
    /// The Kronrod rule applied to |f| (QUADPACK's resabs).
    pub abs: T,
    /// The Kronrod rule applied to |f - mean| with mean = kronrod / width (QUADPACK's resasc).
    pub asc: T,
}

impl<T: Real> KronrodRule<T> {
    /// n, the points of the embedded Gauss rule.
    pub fn gauss_points(&self) -> usize {
        self.gauss_points
    }

    /// 2n + 1, the points of the whole rule.
    pub fn points(&self) -> usize {
        2 * self.gauss_points + 1
    }

    /// The n + 1 non-negative nodes, largest first. The Gauss nodes are those at odd
    /// positions (1, 3, ...): the Kronrod nodes interlace them, the largest node is a Kronrod
    /// node, and 0 (last) is a Gauss node when n is odd.
    pub fn nodes(&self) -> &[T] {
        &self.nodes
    }

    /// The Kronrod weights of [`KronrodRule::nodes`].
    pub fn weights(&self) -> &[T] {
        &self.weights
    }

    /// The weights of the embedded Gauss rule, aligned with [`KronrodRule::nodes`]: zero at
    /// the Kronrod-only nodes.
    pub fn gauss_weights(&self) -> &[T] {
        &self.gauss_weights
    }

    /// 1 − x for each of [`KronrodRule::nodes`], accurate relative to itself.
    pub fn complements(&self) -> &[T] {
        &self.complements
    }

    /// Appends the rule's 2n+1 points on [a, b] to `out`, placed and ordered as
    /// [`Rule::abscissae`] places and orders them.
    pub fn abscissae(&self, a: T, b: T, out: &mut Vec<T>) {
        push_abscissae(&self.nodes, &self.complements, a, b, out);
    }

    /// What rounding the abscissae to the working precision does to the Kronrod estimate on
    /// [a, b]: see [`Rule::abscissa_rounding`].
    pub fn abscissa_rounding(&self, values: &[T], a: T, b: T) -> f64 {
        abscissa_rounding(
            &self.nodes,
            &self.complements,
            &self.weights,
            self.points(),
            values,
            a,
            b,
        )
    }

    /// Both rules applied to `values` (the integrand at the points of
    /// [`KronrodRule::abscissae`], in that order), with the magnitudes of QUADPACK's QK
    /// routines.
    pub fn integrate(&self, values: &[T], half_width: T) -> KronrodSums<T> {
        // The two estimates are summed in T::Accumulator (see Rule::integrate), the
        // magnitudes in T.
        let mut kronrod = T::zero().to_accumulator();
        let mut gauss = T::zero().to_accumulator();
        let mut abs = T::zero();
        for_each_node(&self.nodes, values, |i, f| {
            kronrod = kronrod + (self.weights[i] * f).to_accumulator();
            gauss = gauss + (self.gauss_weights[i] * f).to_accumulator();
            abs += self.weights[i] * f.abs();
        });
        let kronrod = T::from_accumulator(kronrod);
        let gauss = T::from_accumulator(gauss);
        // The mean of f over [-1, 1] is kronrod / 2.
        let mean = kronrod.ldexp(-1);
        let mut asc = T::zero();
        for_each_node(&self.nodes, values, |i, f| {
            asc += self.weights[i] * (f - mean).abs()
        });
        let h = half_width.abs();
        KronrodSums {
            kronrod: kronrod * half_width,
            gauss: gauss * half_width,
            abs: abs * h,
            asc: asc * h,
        }
    }
}

/// [`Rule::abscissa_rounding`] for any symmetric rule given by its non-negative `nodes`
/// (largest first), their `complements`, their `weights` and its number of points `n`.
fn abscissa_rounding<T: Real>(
    nodes: &[T],
    complements: &[T],
    weights: &[T],
    n: usize,
    values: &[T],
    a: T,
    b: T,
) -> f64 {
    let (c, h) = (midpoint(a, b).to_f64(), half_width(a, b).to_f64());
    // The j-th point in increasing order, with its value, weight and the offset it was formed
    // with: the left halves (values 0, 2, 4, ...) outermost first, the centre of an odd rule
    // (the last value), then the right halves (values ..., 3, 1) innermost first.
    let pairs = n / 2;
    let at = |j: usize| -> (f64, f64, f64, f64) {
        let (i, side, k) = if j < pairs {
            (j, -1.0, 2 * j)
        } else if n % 2 == 1 && j == pairs {
            (pairs, 0.0, n - 1)
        } else {
            let i = n - 1 - j;
            (i, 1.0, 2 * i + 1)
        };
        let x = nodes[i].to_f64();
        let offset = h.abs() * x.min(complements[i].to_f64());
        (
            c + side * h * x,
            values[k].to_f64(),
            weights[i].to_f64(),
            offset,
        )
    };
    if n < 2 {
        return 0.0;
    }
    // Each point is looked up once, and slides from `hi` through `mid` to `lo`: the first
    // point's left neighbour is itself, as is the last one's right.
    let mut sum = 0.0;
    let (mut lo, mut mid) = (at(0), at(0));
    for j in 0..n {
        let hi = at((j + 1).min(n - 1));
        let slope = (hi.1 - lo.1) / (hi.0 - lo.0);
        let (p, _, w, offset) = mid;
        sum += w * (p.abs() + offset) * slope.abs();
        (lo, mid) = (mid, hi);
    }
    T::epsilon().to_f64() * sum * h.abs()
}

/// Whether a rule's bookkeeping (points, estimate, coefficients) runs in column operations
/// rather than node by node: in qd, where an operation costs enough to pay for the columns'
/// copies. Measured with `auto`, one thread, best of 2000 (2-core Xeon): qd sin x on [0, 1]
/// (48 points) 21.0 → 16.3 µs, e^(2x) sin 3x on [0, 5] 47.1 → 40.5 µs; in f64 sin x 1.9 → 3.1
/// µs and in dd 6.4 → 7.1 µs, so those keep the loop.
fn by_columns<T: Real>() -> bool {
    T::LIMBS == 4
}

/// The points of a symmetric rule with non-negative `nodes` (largest first) and their
/// `complements` on [a, b]: see [`Rule::abscissae`].
fn push_abscissae<T: Real>(nodes: &[T], complements: &[T], a: T, b: T, out: &mut Vec<T>) {
    if by_columns::<T>() {
        push_abscissae_by_columns(nodes, complements, a, b, out);
    } else {
        push_abscissae_by_node(nodes, complements, a, b, out);
    }
}

fn push_abscissae_by_node<T: Real>(nodes: &[T], complements: &[T], a: T, b: T, out: &mut Vec<T>) {
    let (center, half) = (midpoint(a, b), half_width(a, b));
    for (&x, &complement) in nodes.iter().zip(complements) {
        if x == T::zero() {
            out.push(center);
        } else if near_end(x) {
            let dx = half * complement;
            out.push(a + dx);
            out.push(b - dx);
        } else {
            let dx = half * x;
            out.push(center - dx);
            out.push(center + dx);
        }
    }
}

/// [`push_abscissae_by_node`] in column operations, the same bits: near the ends the points
/// are a + d and b − d with d = h·(1 − x), elsewhere c − d and c + d with d = h·x, each the sum
/// of a base and a signed offset (a − d is a + (−d) to the bit), in one column product and two
/// column sums.
fn push_abscissae_by_columns<T: Real>(
    nodes: &[T],
    complements: &[T],
    a: T,
    b: T,
    out: &mut Vec<T>,
) {
    let (center, half) = (midpoint(a, b), half_width(a, b));
    let n = nodes.len();
    let ends: Vec<bool> = nodes.iter().map(|&x| near_end(x)).collect();
    let offsets: Vec<T> = (0..n)
        .map(|i| if ends[i] { complements[i] } else { nodes[i] })
        .collect();
    let mut dx = zeros::<T>(n);
    columns::mul(&mut dx, Operand::Constant(half), Operand::Column(&offsets));
    let (mut low, mut high) = (zeros::<T>(n), zeros::<T>(n));
    for (side, end, lower) in [(&mut low, a, true), (&mut high, b, false)] {
        let bases: Vec<T> = ends.iter().map(|&e| if e { end } else { center }).collect();
        // +d from a and from the centre upward, −d from b and from the centre downward.
        let steps: Vec<T> = (0..n)
            .map(|i| if ends[i] == lower { dx[i] } else { -dx[i] })
            .collect();
        columns::add(side, Operand::Column(&bases), Operand::Column(&steps));
    }
    for (i, &x) in nodes.iter().enumerate() {
        if x == T::zero() {
            out.push(center);
        } else {
            out.push(low[i]);
            out.push(high[i]);
        }
    }
}

/// Whether the points of node x are formed from the ends (x past 1/2) rather than the centre.
/// The device kernels (region.cu, batch.cu) make the same choice from the same leading limb.
pub(crate) fn near_end<T: Real>(x: T) -> bool {
    x.to_f64() > 0.5
}

/// The midpoint (a + b)/2 of a finite interval, without overflow: where a + b overflows (both
/// bounds beyond half the largest number, of one sign), a/2 + b/2, which is exact there.
/// Elsewhere the usual form. The centre from which [`Rule::abscissae`] places the points
/// near the middle.
pub fn midpoint<T: Real>(a: T, b: T) -> T {
    let sum = a + b;
    if sum.is_finite() {
        sum.ldexp(-1)
    } else {
        a.ldexp(-1) + b.ldexp(-1)
    }
}

/// The half-width (b − a)/2 of a finite interval, without overflow: where b − a overflows
/// (bounds near ±1.8e308 of opposite signs), b/2 − a/2, which is exact there. The scale of
/// [`Rule::abscissae`] and [`Rule::integrate`].
pub fn half_width<T: Real>(a: T, b: T) -> T {
    let width = b - a;
    if width.is_finite() {
        width.ldexp(-1)
    } else {
        b.ldexp(-1) - a.ldexp(-1)
    }
}

/// Calls `visit(i, f(-x_i) + f(x_i))` (or `f(0)` for the centre) for each node.
fn for_each_pair<T: Real>(nodes: &[T], values: &[T], mut visit: impl FnMut(usize, T)) {
    let mut k = 0;
    for (i, &x) in nodes.iter().enumerate() {
        if x == T::zero() {
            visit(i, values[k]);
            k += 1;
        } else {
            visit(i, values[k] + values[k + 1]);
            k += 2;
        }
    }
}

/// A symmetric rule's values split by node: f(−x_i) and f(x_i) for each node x_i > 0 (the
/// values come in that order), and the value at a node x_i = 0, if the rule has one.
struct Sides<T> {
    minus: Vec<T>,
    plus: Vec<T>,
    center: Option<(usize, T)>,
}

impl<T: Real> Sides<T> {
    fn of(nodes: &[T], values: &[T]) -> Sides<T> {
        let n = nodes.len();
        let (mut minus, mut plus) = (zeros::<T>(n), zeros::<T>(n));
        let mut center = None;
        let mut k = 0;
        for (i, &x) in nodes.iter().enumerate() {
            if x == T::zero() {
                center = Some((i, values[k]));
                k += 1;
            } else {
                (minus[i], plus[i]) = (values[k], values[k + 1]);
                k += 2;
            }
        }
        Sides {
            minus,
            plus,
            center,
        }
    }

    /// `combine(pairs, minus, plus)` for each node (a column operation), with the value itself
    /// at the node x = 0.
    fn pairs(&self, combine: impl FnOnce(&mut [T], Operand<'_, T>, Operand<'_, T>)) -> Vec<T> {
        let mut pairs = zeros::<T>(self.minus.len());
        combine(
            &mut pairs,
            Operand::Column(&self.minus),
            Operand::Column(&self.plus),
        );
        if let Some((i, v)) = self.center {
            pairs[i] = v;
        }
        pairs
    }
}

/// Calls `visit(i, f)` for every value, with `i` the index of its (non-negative) node.
fn for_each_node<T: Real>(nodes: &[T], values: &[T], mut visit: impl FnMut(usize, T)) {
    let mut k = 0;
    for (i, &x) in nodes.iter().enumerate() {
        visit(i, values[k]);
        k += 1;
        if x != T::zero() {
            visit(i, values[k]);
            k += 1;
        }
    }
}

/// The n-point Gauss–Legendre rule in precision `T`, computed on first use and cached for the
/// process. `n` must be between 1 and [`MAX_LEGENDRE_POINTS`].
pub fn legendre<T: Real>(n: usize) -> Result<Arc<Rule<T>>> {
    if n == 0 || n > MAX_LEGENDRE_POINTS {
        return Err(Error::InvalidOption {
            option: "rule",
            reason: format!(
                "a Gauss–Legendre rule of {n} points was asked for; give between 1 and \
                 {MAX_LEGENDRE_POINTS}"
            ),
        });
    }
    Ok(cached::<Rule<T>>(Kind::Legendre, n, || {
        in_wide_precision::<T, _>(
            || legendre::compute::<Dd, T>(n),
            || legendre::compute::<Qd, T>(n),
        )
    }))
}

/// The (2n+1)-point Gauss–Kronrod rule extending the n-point Gauss rule, in precision `T`,
/// computed on first use and cached for the process. `n` must be between 1 and
/// [`MAX_KRONROD_GAUSS_POINTS`].
pub fn kronrod<T: Real>(n: usize) -> Result<Arc<KronrodRule<T>>> {
    if n == 0 || n > MAX_KRONROD_GAUSS_POINTS {
        return Err(Error::InvalidOption {
            option: "rule",
            reason: format!(
                "a Gauss–Kronrod extension of the {n}-point Gauss rule was asked for; give n \
                 between 1 and {MAX_KRONROD_GAUSS_POINTS}"
            ),
        });
    }
    Ok(cached::<KronrodRule<T>>(Kind::Kronrod, n, || {
        in_wide_precision::<T, _>(
            || kronrod::compute::<Dd, T>(n),
            || kronrod::compute::<Qd, T>(n),
        )
    }))
}

/// Runs the computation in double-double for an f64 rule and in quad-double otherwise (the
/// widest type there is; see the module's note on weights for how qd keeps its last bits).
fn in_wide_precision<T: Real, R>(dd: impl FnOnce() -> R, qd: impl FnOnce() -> R) -> R {
    if T::LIMBS < Dd::LIMBS {
        dd()
    } else {
        qd()
    }
}

/// Rounds a value of the wide precision `W` to `T` (the limbs summed from the smallest).
pub(crate) fn narrow<W: Real, T: Real>(w: W) -> T {
    if T::LIMBS == W::LIMBS {
        T::from_limbs(&w.limbs())
    } else {
        w.limbs()[..W::LIMBS]
            .iter()
            .rev()
            .fold(T::zero(), |sum, &limb| sum + limb)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Legendre,
    Kronrod,
}

/// A map of the process-wide caches (the rules here, tanh-sinh's levels), hashed with
/// [`KeyHasher`].
pub(crate) type CacheMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// The hasher of [`CacheMap`]: FxHash's rotate, xor and multiply per word (as in rustc). The
/// caches' keys are a few small integers and a `TypeId`, never chosen by an adversary, so the
/// default SipHash buys nothing here, and it cost about as much as the rest of the lookup in a
/// Gauss–Legendre integral of a few microseconds (a lookup per rule per call).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

type Rules = CacheMap<(Kind, TypeId, usize), Arc<dyn Any + Send + Sync>>;
type Cache = Mutex<Rules>;

/// The process-wide cache: the rule of this kind, precision and size, computed by `compute`
/// when it is not there yet. The computation runs outside the lock (it is deterministic, so a
/// second thread computing the same rule at the same time gets the same rule).
fn cached<R: Any + Send + Sync>(kind: Kind, n: usize, compute: impl FnOnce() -> R) -> Arc<R> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(CacheMap::default()));
    let key = (kind, TypeId::of::<R>(), n);
    let hit = lock(cache).get(&key).cloned();
    let stored = match hit {
        Some(rule) => rule,
        None => {
            let rule: Arc<dyn Any + Send + Sync> = Arc::new(compute());
            lock(cache).entry(key).or_insert(rule).clone()
        }
    };
    // The key holds R's TypeId, so every entry under it is an R.
    match stored.downcast::<R>() {
        Ok(rule) => rule,
        Err(_) => unreachable!("the rule cache is keyed by the rule's type"),
    }
}

/// The cache's map; a panic elsewhere while it was held leaves it usable (it only ever holds
/// complete rules).
fn lock(cache: &Cache) -> std::sync::MutexGuard<'_, Rules> {
    cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// 1 − (x + δ) for a computed zero x of a polynomial and its last Newton step δ: the
/// complement of the true zero. Near 1 the subtraction is exact and δ (below an ulp of x)
/// still counts, so the complement is good to the precision of `W` relative to itself, where
/// 1 − x rounded to `T` would only be good to an ulp of x.
fn complement<W: Real>(x: W, delta: W) -> W {
    (W::one() - x) - delta
}

/// The weight formula `weight` at a computed zero `x` of a polynomial, corrected to the true
/// zero x + δ: w(x) + δ w'(x), with w' by a central difference of step h = ε^(1/3) (1 - |x|),
/// small against the scale on which w varies near x (the spacing of the zeros, of order
/// 1 - |x| near the ends) and large enough that the difference keeps two thirds of the digits
/// (δ is below an ulp, so that is plenty).
fn corrected_weight<W: Real>(x: W, delta: W, weight: impl Fn(W) -> W) -> W {
    let w = weight(x);
    if delta == W::zero() {
        return w;
    }
    let h = W::from_f64(W::epsilon().to_f64().cbrt()) * (W::one() - x.abs());
    let slope = (weight(x + h) - weight(x - h)) / (h + h);
    w + delta * slope
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::columns::limbs;

    fn random<X: Real>(rng: &mut StdRng) -> X {
        let q = X::from_f64(rng.gen_range(-1.0..1.0)) / X::from_f64(3.0);
        q.ldexp(rng.gen_range(-20..=20))
    }

    /// Points, estimate and spectrum of rules with and without a centre node, on intervals
    /// with nodes near their ends and in the middle: the column forms have the node loops'
    /// bits in every precision (whichever of the two `by_columns` picks for it).
    fn columns_are_the_node_loop<X: Real>() {
        let mut rng = StdRng::seed_from_u64(29);
        for n in [7, 8, 12, 13, 24, 25, 64] {
            let rule = legendre::<X>(n).expect("a rule");
            let spectrum = rule.spectrum.as_ref().expect("a spectrum");
            for _ in 0..20 {
                let a = random::<X>(&mut rng);
                let b = a + random::<X>(&mut rng).abs() + X::from_f64(1e-3);
                let values: Vec<X> = (0..n).map(|_| random::<X>(&mut rng)).collect();
                let name = format!("{} n={n}", X::NAME);
                let (mut by_node, mut by_columns) = (Vec::new(), Vec::new());
                push_abscissae_by_node(&rule.nodes, &rule.complements, a, b, &mut by_node);
                push_abscissae_by_columns(&rule.nodes, &rule.complements, a, b, &mut by_columns);
                assert_eq!(limbs(&by_columns), limbs(&by_node), "{name}: points");
                let sums = [rule.sum_by_node(&values), rule.sum_by_columns(&values)]
                    .map(|s| X::from_accumulator(s));
                assert_eq!(limbs(&sums[1..]), limbs(&sums[..1]), "{name}: estimate");
                let node: Vec<X> = (0..4)
                    .map(|j| rule.coefficient_by_node(spectrum, &values, j))
                    .collect();
                let columns = rule.coefficients_by_columns(spectrum, &values);
                assert_eq!(limbs(&columns), limbs(&node), "{name}: coefficients");
            }
        }
    }

    #[test]
    fn rule_columns_have_the_node_loops_bits() {
        columns_are_the_node_loop::<f64>();
        columns_are_the_node_loop::<Dd>();
        columns_are_the_node_loop::<Qd>();
    }
}
