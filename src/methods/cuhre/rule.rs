//! A fully symmetric cubature rule on [-1, 1]^n with its null rules: the estimate of a region,
//! its error (DCUHRE's, Berntsen, Espelid and Genz, ACM TOMS 17 (1991) 437–451, after
//! Espelid's null rules) and the axis to split, from the rule's class sums
//! ([`crate::backend::RuleSums`]), which any backend computes. Two rules: Genz and Malik's
//! degree 7 ([`super::genz_malik`]) and DCUHRE's degree 9 ([`super::degree9`]);
//! [`super::choose_rule`] picks the one a run uses.
//!
//! Null rules are weight vectors on the rule's points that integrate every polynomial up to
//! some degree to zero, so that their value on f measures f's terms beyond that degree. Each
//! rule gives three null spaces of one or two dimensions, of falling degree; e_k is the largest
//! |N f| / Σ |N| over the k-th space (DCUHRE searches the span of two successive null rules the
//! same way: on a plane the largest ratio is where one class's weight vanishes, so the
//! candidates are those). DCUHRE's test for the asymptotic regime: where 5 e1 ≤ e2 and
//! 5 e2 ≤ e3 (the terms fall fast with the degree, as for a smooth f on a small region) the
//! error is e1; otherwise 5 max(e1, e2, e3) (DCUHRE's constants 5, 5, 1, 5). Values at
//! rounding level count as zero.
//!
//! The axis to split is the one with the largest fourth divided difference
//!
//! ```text
//! D_i = | f(λa e_i) + f(-λa e_i) - 2 f(0) - (λa²/λb²) (f(λb e_i) + f(-λb e_i) - 2 f(0)) |
//! ```
//!
//! which vanishes on quadratics along the axis (λa, λb the inner and outer axis generators).

use precision::Real;

use super::{degree9, genz_malik};
use crate::backend::{rule_point, PointSet, RuleGenerators, RuleSums, RULE_CLASSES};

/// The most variables the rules are built for: 2^20 + 2·20² + 2·20 + 1 = 1049417 points a
/// region (degree 7). The issue asks for at least 16 (66081 points a region).
pub const MAX_DIMS: usize = 20;

/// DCUHRE's constants: the asymptotic regime needs each null value 5 times its predecessor's;
/// the error is then 1 e1, else 5 times the largest.
const RATIO_TEST: f64 = 5.0;
const ASYMPTOTIC: f64 = 1.0;
const PESSIMISTIC: f64 = 5.0;

/// Null rule values within this many ulp of the values' size are rounding, not the integrand.
const NOISE: f64 = 64.0;

/// What a rule's constructor gives: where its points are, its weights per point (normalised
/// to sum to 1), and its three null spaces (a basis of one or two vectors each, weights per
/// point of each class).
pub(super) struct RuleParts<T> {
    pub generators: RuleGenerators<T>,
    pub weights: [T; RULE_CLASSES],
    pub null: [Vec<[T; RULE_CLASSES]>; 3],
}

/// A cubature rule in `n` dimensions with its constants in `T`.
#[derive(Debug, Clone)]
pub struct CubatureRule<T> {
    dims: usize,
    generators: RuleGenerators<T>,
    /// The rule's weights per point of each class.
    weights: [T; RULE_CLASSES],
    /// The null rules whose values are searched for e1, e2, e3: each space's candidates
    /// (weights per point of each class) with 1 / their 1-norm.
    null: [Vec<([T; RULE_CLASSES], f64)>; 3],
    /// |weight| per point, for the rounding floor.
    weights_abs: [f64; RULE_CLASSES],
    /// The number of points of each class.
    sizes: [f64; RULE_CLASSES],
}

/// What the rule gives for one region.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEstimate<T> {
    /// The rule's estimate of the integral over the region.
    pub value: T,
    /// The null rules' error estimate (DCUHRE's, before the check against the parent and
    /// before [`CubatureRule::claimed_error`]'s factor).
    pub error: f64,
    /// The null values e1, e2, e3 (falling degree), each normalised by its rule's 1-norm and
    /// times the volume; values at rounding level are 0.
    pub null: [f64; 3],
    /// Whether the null values passed the ratio test (5 e1 ≤ e2 and 5 e2 ≤ e3): the terms
    /// fall fast with the degree, as for a smooth f on a small region.
    pub asymptotic: bool,
    /// The error that rounding alone leaves in `value`: 4 ε Σ |w| |S| vol + 2 ε |value|,
    /// S the class sums (smaller than Σ |w f| where f changes sign within a class).
    pub floor: f64,
    /// The fourth divided difference along each axis.
    pub fourth_differences: Vec<f64>,
    /// The rounding level of each fourth difference, below which two are not told apart.
    pub difference_noise: Vec<f64>,
}

/// The number of points of each class of `set` in `dims` dimensions (0 for the classes it
/// does not have).
pub(super) fn class_sizes(set: PointSet, dims: usize) -> [i64; RULE_CLASSES] {
    let n = dims as i64;
    let pairs = n * (n - 1) / 2;
    let vertices = 1i64 << dims;
    match set {
        PointSet::Degree7 => [1, 2 * n, 2 * n, 4 * pairs, vertices, 0, 0, 0, 0],
        PointSet::Degree9 => {
            let triples = pairs * (n - 2).max(0) / 3;
            let axis = 2 * n;
            [
                1,
                axis,
                axis,
                axis,
                axis,
                4 * pairs,
                8 * pairs,
                8 * triples,
                vertices,
            ]
        }
    }
}

/// Σ over the classes of size × u × v: the inner product under which the null rules are made
/// orthogonal (the weights' dot product over the points).
pub(super) fn dot<T: Real>(
    sizes: &[i64; RULE_CLASSES],
    u: &[T; RULE_CLASSES],
    v: &[T; RULE_CLASSES],
) -> T {
    (0..RULE_CLASSES).fold(T::zero(), |s, k| s + T::from_i64(sizes[k]) * u[k] * v[k])
}

/// A basis of the null space of `rows` (each `RULE_CLASSES` numbers, on the classes where
/// `present`), by Gauss–Jordan elimination with partial pivoting in `T`; the absent classes get
/// weight 0.
pub(super) fn null_space<T: Real>(
    mut rows: Vec<[T; RULE_CLASSES]>,
    present: &[bool; RULE_CLASSES],
) -> Vec<[T; RULE_CLASSES]> {
    let mut pivots: Vec<usize> = Vec::new();
    let mut r = 0;
    for col in (0..RULE_CLASSES).filter(|&k| present[k]) {
        if r == rows.len() {
            break;
        }
        let best = (r..rows.len())
            .max_by(|&a, &b| {
                rows[a][col]
                    .abs()
                    .to_f64()
                    .total_cmp(&rows[b][col].abs().to_f64())
            })
            .unwrap_or(r);
        // A pivot at rounding level of its column's largest entry is a dependent row.
        let scale = rows
            .iter()
            .map(|row| row[col].abs().to_f64())
            .fold(0.0, f64::max);
        if rows[best][col].abs().to_f64() <= 1e3 * T::epsilon().to_f64() * scale {
            continue;
        }
        rows.swap(r, best);
        let p = rows[r][col];
        for x in rows[r].iter_mut() {
            *x /= p;
        }
        let pivot = rows[r];
        for (i, row) in rows.iter_mut().enumerate() {
            if i != r {
                let factor = row[col];
                for (x, &y) in row.iter_mut().zip(&pivot) {
                    *x -= factor * y;
                }
            }
        }
        pivots.push(col);
        r += 1;
    }
    (0..RULE_CLASSES)
        .filter(|&k| present[k] && !pivots.contains(&k))
        .map(|free| {
            let mut v = [T::zero(); RULE_CLASSES];
            v[free] = T::one();
            for (i, &col) in pivots.iter().enumerate() {
                v[col] = -rows[i][free];
            }
            v
        })
        .collect()
}

/// The candidates of a null space (a basis of one or two vectors) with 1 / their 1-norm: the
/// vector itself, or on a plane {a, b} the vectors b_K a − a_K b where class K's weight
/// vanishes, the corners of the plane's unit 1-norm ball, where |N f| / Σ |N| is largest.
fn candidates<T: Real>(
    basis: &[[T; RULE_CLASSES]],
    sizes: &[i64; RULE_CLASSES],
) -> Vec<([T; RULE_CLASSES], f64)> {
    let norm = |v: &[T; RULE_CLASSES]| -> f64 {
        (0..RULE_CLASSES)
            .map(|k| sizes[k] as f64 * v[k].abs().to_f64())
            .sum()
    };
    let vectors: Vec<[T; RULE_CLASSES]> = match basis {
        [a] => vec![*a],
        [a, b] => (0..RULE_CLASSES)
            .filter(|&k| sizes[k] > 0)
            .map(|k| std::array::from_fn(|c| b[k] * a[c] - a[k] * b[c]))
            .collect(),
        _ => Vec::new(),
    };
    vectors
        .into_iter()
        .filter_map(|v| {
            let n = norm(&v);
            (n > 0.0).then(|| (v, 1.0 / n))
        })
        .collect()
}

impl<T: Real> CubatureRule<T> {
    /// The rule of point set `set` in `dims` dimensions (1 to [`MAX_DIMS`]; degree 9 from 2).
    pub fn with_set(set: PointSet, dims: usize) -> CubatureRule<T> {
        let parts = match set {
            PointSet::Degree7 => genz_malik::parts(dims),
            PointSet::Degree9 => degree9::parts(dims),
        };
        let sizes = class_sizes(set, dims);
        CubatureRule {
            dims,
            generators: parts.generators,
            weights: parts.weights,
            null: parts.null.map(|basis| candidates(&basis, &sizes)),
            weights_abs: parts.weights.map(|w| w.abs().to_f64()),
            sizes: sizes.map(|m| m as f64),
        }
    }

    /// The number of variables.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The point set.
    pub fn set(&self) -> PointSet {
        self.generators.set
    }

    /// Points of the rule.
    pub fn points(&self) -> usize {
        self.generators.set.points(self.dims)
    }

    /// Where the points are, as [`crate::backend::Backend::genz_malik_sums`] takes it.
    pub fn generators(&self) -> &RuleGenerators<T> {
        &self.generators
    }

    /// The rule's weights per point of each class (normalised to sum to 1 over the points).
    pub fn weights(&self) -> &[T; RULE_CLASSES] {
        &self.weights
    }

    /// The null rules searched for e1, e2, e3 (weights per point of each class).
    pub fn null_rules(&self) -> [Vec<[T; RULE_CLASSES]>; 3] {
        std::array::from_fn(|k| self.null[k].iter().map(|(v, _)| *v).collect())
    }

    /// Appends the rule's points for the region `center ± half` to `out`, point-major, in the
    /// order of [`crate::backend::rule_point`] (the device kernels'), which
    /// [`CubatureRule::apply`] reads.
    pub fn abscissae(&self, center: &[T], half: &[T], out: &mut Vec<T>) {
        let n = self.dims;
        let mut x = vec![T::zero(); n];
        out.reserve(self.points() * n);
        for k in 0..self.points() as u64 {
            rule_point(k, center, half, &self.generators, &mut x);
            out.extend_from_slice(&x);
        }
    }

    /// The estimates from the values at the points of [`CubatureRule::abscissae`] for a region
    /// of half-widths `half`: the class sums (each in `T::Accumulator` in the order of the
    /// points) and fourth differences, then [`CubatureRule::estimate`].
    pub fn apply(&self, half: &[T], values: &[T]) -> RuleEstimate<T> {
        let n = self.dims;
        let mut sums = [T::zero().to_accumulator(); RULE_CLASSES];
        let center = vec![T::zero(); n];
        let mut x = vec![T::zero(); n];
        for (k, &y) in values.iter().enumerate() {
            let class = rule_point(k as u64, &center, half, &self.generators, &mut x);
            sums[class] = sums[class] + y.to_accumulator();
        }
        let block = 2 * self.generators.set.axis_classes();
        let twice_center = values[0] + values[0];
        let fourth: Vec<f64> = values[1..1 + block * n]
            .chunks_exact(block)
            .map(|a| {
                let second_a = a[0] + a[1] - twice_center;
                let second_b = a[2] + a[3] - twice_center;
                (second_a - self.generators.ratio * second_b).abs().to_f64()
            })
            .collect();
        self.estimate(half, &sums.map(T::from_accumulator), &fourth)
    }

    /// The estimates for a region of half-widths `half` from its class sums and fourth
    /// differences ([`RuleSums`]' entries for it).
    pub fn estimate(
        &self,
        half: &[T],
        sums: &[T; RULE_CLASSES],
        fourth: &[f64],
    ) -> RuleEstimate<T> {
        let n = self.dims;
        // h1 h2 ... hn 2^n, in the list kernel's order.
        let volume = half[1..]
            .iter()
            .fold(half[0], |v, &h| v * h)
            .ldexp(n as i32);
        // Over the rule's classes only, in class order, as the device's list kernel weighs.
        let classes = self.generators.set.classes();
        let rule = |w: &[T; RULE_CLASSES]| {
            T::from_accumulator(
                w[..classes]
                    .iter()
                    .zip(sums)
                    .fold(T::zero().to_accumulator(), |s, (&w, &v)| {
                        s + (w * v).to_accumulator()
                    }),
            )
        };
        let value = rule(&self.weights) * volume;
        let vol = volume.to_f64().abs();
        // A normalised null rule's value on rounding noise alone is a few ulp of the values'
        // size (the center's, or a class's average): below that it counts as zero, so that
        // a polynomial the rules integrate exactly passes the ratio test.
        let eps = T::epsilon().to_f64();
        let size = (0..RULE_CLASSES)
            .filter(|&k| self.sizes[k] > 0.0)
            .map(|k| sums[k].abs().to_f64() / self.sizes[k])
            .fold(0.0, f64::max);
        let noise = NOISE * eps * size;
        let e: [f64; 3] = std::array::from_fn(|k| {
            let e = self.null[k]
                .iter()
                .map(|(v, inverse_norm)| rule(v).abs().to_f64() * inverse_norm)
                .fold(0.0, f64::max);
            if e > noise {
                e
            } else {
                0.0
            }
        });
        let asymptotic = RATIO_TEST * e[0] <= e[1] && RATIO_TEST * e[1] <= e[2];
        // The degree-9 rule's e1 searches a plane of two null rules among five kinds of terms
        // of degree 8: it can be blind to one f (cos(2π·0.3 + Σ a_i x_i) on [0, 1]^6, the
        // Genz oscillatory family: e1 = 8.2e-10, e2 = 1.6e-5, e3 = 1.1e-3, the true error
        // 1.2e-8), so e1 is taken at least at the trend of the terms, e2 · (e2 / e3), the
        // same order h^8 asymptotically (here 2.4e-7).
        let trend = match self.generators.set {
            PointSet::Degree9 if e[2] > 0.0 => e[1] * (e[1] / e[2]),
            _ => 0.0,
        };
        let error = vol
            * if asymptotic {
                ASYMPTOTIC * e[0].max(trend)
            } else {
                PESSIMISTIC * e[0].max(e[1]).max(e[2])
            };

        let magnitude: f64 = self.weights_abs[..classes]
            .iter()
            .zip(sums)
            .map(|(w, s)| w * s.abs().to_f64())
            .sum();
        let floor = 4.0 * eps * magnitude * vol + 2.0 * eps * value.to_f64().abs();
        // An axis's points are about |f(c)| and the axis classes' average in size.
        let axis_size = 4.0 * sums[0].abs().to_f64()
            + (sums[1].abs().to_f64() + sums[2].abs().to_f64()) / n as f64;
        RuleEstimate {
            value,
            error,
            null: e.map(|e| e * vol),
            asymptotic,
            floor,
            fourth_differences: fourth.to_vec(),
            difference_noise: vec![8.0 * eps * axis_size; n],
        }
    }

    /// The rule as the device's list kernel takes it (`kernels/cuhre_list.cu`, `HPQ_K_*`): a
    /// header of [`table::HEADER`] doubles, then [`table::REALS`] values in `T`, each at a
    /// fixed slot whatever the rule (zero where the rule has no class or candidate), so that
    /// the kernel's indices are constants. The kernel weighs the classes and searches the
    /// candidates in the order here, which is [`CubatureRule::estimate`]'s.
    pub(crate) fn device_table(&self) -> DeviceTable<T> {
        use table::*;
        let mut header = vec![0.0; HEADER];
        header[EPSILON] = T::epsilon().to_f64();
        header[SAFETY] = self.safety(false);
        header[SAFETY_CHECKED] = self.safety(true);
        let mut reals = vec![T::zero(); REALS];
        let g = &self.generators;
        reals[GENERATORS..GENERATORS + 6].copy_from_slice(&[
            g.axis[0], g.axis[1], g.axis[2], g.axis[3], g.vertex, g.ratio,
        ]);
        reals[WEIGHTS..WEIGHTS + RULE_CLASSES].copy_from_slice(&self.weights);
        header[ABS_WEIGHTS..ABS_WEIGHTS + RULE_CLASSES].copy_from_slice(&self.weights_abs);
        header[SIZES..SIZES + RULE_CLASSES].copy_from_slice(&self.sizes);
        let mut c = 0;
        for (space, candidates) in self.null.iter().enumerate() {
            header[SPACES + space] = candidates.len() as f64;
            for (vector, inverse_norm) in candidates {
                header[INVERSE_NORMS + c] = *inverse_norm;
                let at = CANDIDATES + c * RULE_CLASSES;
                reals[at..at + RULE_CLASSES].copy_from_slice(vector);
                c += 1;
            }
        }
        debug_assert!(c <= MAX_CANDIDATES);
        DeviceTable { header, reals }
    }

    /// The factor on the null rules' error where they passed the ratio test, for this rule and
    /// a region that DCUHRE's check against its parent will see (`checked`: a half of a split)
    /// or not (the whole box, a list's initial regions): [`super::SAFETY_DEGREE7`] either way,
    /// [`super::SAFETY_DEGREE9`] or [`super::SAFETY_DEGREE9_CHECKED`].
    pub fn safety(&self, checked: bool) -> f64 {
        match (self.set(), checked) {
            (PointSet::Degree7, _) => super::SAFETY_DEGREE7,
            (PointSet::Degree9, false) => super::SAFETY_DEGREE9,
            (PointSet::Degree9, true) => super::SAFETY_DEGREE9_CHECKED,
        }
    }

    /// A region's error as the algorithms count it: `estimate.error` times
    /// [`CubatureRule::safety`] where the ratio test passed, DCUHRE's 5 max(e1, e2, e3) as it
    /// is where it failed. `checked`: the region is a half that the parent check will see.
    pub fn claimed_error(&self, estimate: &RuleEstimate<T>, checked: bool) -> f64 {
        if estimate.asymptotic {
            self.safety(checked) * estimate.error
        } else {
            estimate.error
        }
    }

    /// The estimates of region `r` of a list's [`RuleSums`].
    pub fn estimate_of(&self, half: &[T], sums: &RuleSums<T>, r: usize) -> RuleEstimate<T> {
        let n = self.dims;
        self.estimate(half, &sums.classes[r], &sums.fourth[r * n..(r + 1) * n])
    }
}

/// A rule's table for the device: [`CubatureRule::device_table`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DeviceTable<T> {
    /// [`table::HEADER`] doubles.
    pub header: Vec<f64>,
    /// [`table::REALS`] values.
    pub reals: Vec<T>,
}

/// Where [`CubatureRule::device_table`] puts each number: indices into the header (doubles)
/// and into the values in `T` that follow it. `kernels/cuhre_list.cu` defines the same
/// indices as `HPQ_K_*` (a test in `src/gpu/cuhre.rs` compares the two).
pub(crate) mod table {
    use crate::backend::RULE_CLASSES;

    /// The null rules' candidates at most: three spaces of at most one a class.
    pub const MAX_CANDIDATES: usize = 3 * RULE_CLASSES;
    /// Header: the precision's ε.
    pub const EPSILON: usize = 0;
    /// Header: the number of candidates of each null space (three doubles), in the order of
    /// the candidates.
    pub const SPACES: usize = 1;
    /// Header: |w| per point of each class.
    pub const ABS_WEIGHTS: usize = SPACES + 3;
    /// Header: the number of points of each class.
    pub const SIZES: usize = ABS_WEIGHTS + RULE_CLASSES;
    /// Header: each candidate's 1 / its 1-norm.
    pub const INVERSE_NORMS: usize = SIZES + RULE_CLASSES;
    /// Header: the factor on the null rules' error where the ratio test passed, for a region
    /// without a parent ([`super::CubatureRule::safety`]).
    pub const SAFETY: usize = INVERSE_NORMS + MAX_CANDIDATES;
    /// Header: the same for a half that the parent check will see.
    pub const SAFETY_CHECKED: usize = SAFETY + 1;
    /// The header's length.
    pub const HEADER: usize = SAFETY_CHECKED + 1;
    /// Values: λa, λb, λc, λd, λv and λa²/λb².
    pub const GENERATORS: usize = 0;
    /// Values: the rule's weight per point of each class.
    pub const WEIGHTS: usize = GENERATORS + 6;
    /// Values: each candidate's weights per point of each class, a class after another.
    pub const CANDIDATES: usize = WEIGHTS + RULE_CLASSES;
    /// The number of values.
    pub const REALS: usize = CANDIDATES + MAX_CANDIDATES * RULE_CLASSES;
}
