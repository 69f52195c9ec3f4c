//! The Genz–Malik degree-7 cubature rule with its embedded degree-5 rule (A. C. Genz and A. A.
//! Malik, "An adaptive algorithm for numerical integration over an n-dimensional rectangular
//! region", J. Comput. Appl. Math. 6 (1980) 295–302), the rule of CUHRE's C-RULES for the
//! paper's purpose (Arumugam et al., §II.B): an estimate, an error estimate and the axis to
//! split, from 2^n + 2n² + 2n + 1 points.
//!
//! On [-1, 1]^n, with e_i the unit vectors and the weights normalised to sum to 1:
//!
//! ```text
//! point set                           count        degree 7 weight              degree 5 weight
//! 0                                   1            (12824 - 9120n + 400n²)/19683  (729 - 950n + 50n²)/729
//! ±λ2 e_i                             2n           980/6561                       245/486
//! ±λ3 e_i                             2n           (1820 - 400n)/19683            (265 - 100n)/1458
//! ±λ4 e_i ± λ4 e_j  (i < j)           2n(n - 1)    200/19683                      25/729
//! (±λ5, ..., ±λ5)                     2^n          6859/19683 / 2^n               0
//! λ2² = 9/70, λ3² = λ4² = 9/10, λ5² = 9/19
//! ```
//!
//! Every constant is an exact rational (or the square root of one) computed in the working
//! precision, so the rule is exact to the last bit of f64, dd or qd on every monomial of degree
//! at most 7. All the points fall into the five classes of the table (orbits of the symmetry
//! group of the cube), and every weight is a class's, so a region's estimates come from the
//! five class sums ([`crate::backend::RuleSums`]), which any backend computes.
//!
//! The error estimate is DCUHRE's (Berntsen, Espelid and Genz, ACM TOMS 17 (1991) 437–451,
//! after Espelid's null rules): null rules are weight vectors on the same points that integrate
//! every polynomial up to some degree to zero, so that their value on f measures f's terms
//! beyond that degree. On five classes a fully symmetric null rule is another weight vector
//! over the class sums; the rule has one of degree 5 (N1 ∝ I7 - I5: degree 5 leaves four
//! conditions on five weights), and we take N2 of degree 3 and N3 of degree 1, each orthogonal
//! to the rules before it and to the degree-7 rule (Σ over the points of the product of the
//! weights), their weights solved in the working precision. Each value is normalised by its
//! rule's 1-norm: e_k = |N_k f| / Σ |N_k|. DCUHRE's test for the asymptotic regime: where
//! 5 e1 ≤ e2 and 5 e2 ≤ e3 (the terms fall fast with the degree, as for a smooth f on a small
//! region) the error is e1; otherwise 5 max(e1, e2, e3) (DCUHRE's constants 5, 5, 1, 5). With
//! one null rule of degree 5 (DCUHRE's degree-7 rule has a sixth class and two) e1 is a single
//! rule's value, not the largest over the span of two; DCUHRE's parent check (`regions.rs`)
//! catches a null rule that vanishes by accident.
//!
//! The axis to split is the one with the largest fourth divided difference
//!
//! ```text
//! D_i = | f(λ2 e_i) + f(-λ2 e_i) - 2 f(0) - (λ2²/λ3²) (f(λ3 e_i) + f(-λ3 e_i) - 2 f(0)) |
//! ```
//!
//! which vanishes on quadratics along the axis (λ2²/λ3² = 1/7).

use precision::Real;

use crate::backend::{rule_point, RuleSums};

/// The most variables the rule is built for: 2^20 + 2·20² + 2·20 + 1 = 1049417 points a
/// region. The issue asks for at least 16 (66081 points a region).
pub const MAX_DIMS: usize = 20;

/// The number of points of the rule in `dims` dimensions: 2^n + 2n² + 2n + 1.
pub fn rule_points(dims: usize) -> usize {
    (1usize << dims) + 2 * dims * dims + 2 * dims + 1
}

/// DCUHRE's constants: the asymptotic regime needs each null rule's value 5 times its
/// predecessor's; the error is then 1 e1, else 5 times the largest.
const RATIO_TEST: f64 = 5.0;
const ASYMPTOTIC: f64 = 1.0;
const PESSIMISTIC: f64 = 5.0;

/// Null rule values within this many ulp of the values' size are rounding, not the integrand.
const NOISE: f64 = 64.0;

/// The rule in `n` dimensions with its constants in `T`.
#[derive(Debug, Clone)]
pub struct GenzMalik<T> {
    dims: usize,
    /// λ2, λ3, λ4 (= λ3), λ5 and λ2²/λ3² = 1/7: what [`crate::backend::Backend::genz_malik_sums`]
    /// takes.
    constants: [T; 5],
    /// Degree-7 weights of the five classes, per point (the last already divided by 2^n).
    w7: [T; 5],
    /// Degree-5 weights (none on the vertices).
    w5: [T; 5],
    /// The null rules of degrees 5, 3 and 1, per point.
    null: [[T; 5]; 3],
    /// 1 / (the 1-norm of each null rule: Σ over the points of |weight|).
    null_norm: [f64; 3],
    /// |w7| per point, for the rounding floor.
    w7_abs: [f64; 5],
    /// The number of points of each class.
    sizes: [f64; 5],
}

/// What the rule gives for one region.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEstimate<T> {
    /// The degree-7 estimate of the integral over the region.
    pub value: T,
    /// The null rules' error estimate (DCUHRE's, before the check against the parent).
    pub error: f64,
    /// |I7 - I5|.
    pub difference: f64,
    /// The null rules' values e1, e2, e3 (degrees 5, 3, 1), each normalised by its rule's
    /// 1-norm and times the volume; values at rounding level are 0.
    pub null: [f64; 3],
    /// Whether the null rules passed the ratio test (5 e1 ≤ e2 and 5 e2 ≤ e3): the terms fall
    /// fast with the degree, as for a smooth f on a small region.
    pub asymptotic: bool,
    /// The error that rounding alone leaves in `value`: 4 ε Σ |w| |S| vol + 2 ε |value|,
    /// S the class sums (smaller than Σ |w f| where f changes sign within a class).
    pub floor: f64,
    /// The fourth divided difference along each axis.
    pub fourth_differences: Vec<f64>,
    /// The rounding level of each fourth difference, below which two are not told apart.
    pub difference_noise: Vec<f64>,
}

fn ratio<T: Real>(p: i64, q: i64) -> T {
    T::from_i64(p) / T::from_i64(q)
}

/// A vector spanning the null space of `rows` (c - 1 rows of c numbers, full rank), by
/// Gaussian elimination with partial pivoting in `T`.
fn null_vector<T: Real>(mut rows: Vec<Vec<T>>) -> Vec<T> {
    let c = rows.len() + 1;
    let mut pivots = Vec::with_capacity(rows.len());
    let mut r = 0;
    for col in 0..c {
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
        if rows[best][col].abs().to_f64() == 0.0 {
            continue;
        }
        rows.swap(r, best);
        let p = rows[r][col];
        for x in rows[r].iter_mut() {
            *x /= p;
        }
        let pivot = rows[r].clone();
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
    let free = (0..c).find(|k| !pivots.contains(k)).unwrap_or(c - 1);
    let mut v = vec![T::zero(); c];
    v[free] = T::one();
    for (i, &col) in pivots.iter().enumerate() {
        v[col] = -rows[i][free];
    }
    v
}

impl<T: Real> GenzMalik<T> {
    /// The rule in `dims` dimensions (1 to [`MAX_DIMS`]; in one dimension it is a 7-point
    /// symmetric rule of degree 7, the pair class being empty).
    pub fn new(dims: usize) -> GenzMalik<T> {
        let n = dims as i64;
        let lambda3 = ratio::<T>(9, 10).sqrt();
        let w7 = [
            ratio(12824 - 9120 * n + 400 * n * n, 19683),
            ratio(980, 6561),
            ratio(1820 - 400 * n, 19683),
            ratio(200, 19683),
            ratio::<T>(6859, 19683).ldexp(-(dims as i32)),
        ];
        let w5 = [
            ratio(729 - 950 * n + 50 * n * n, 729),
            ratio(245, 486),
            ratio(265 - 100 * n, 1458),
            ratio(25, 729),
            T::zero(),
        ];
        // Class sizes and the class sums of x1² (per unit weight), with λ2² = 9/70,
        // λ3² = λ4² = 9/10, λ5² = 9/19: the moments a null rule of degree 3 must not see
        // (odd ones vanish by symmetry). N1 = I7 - I5 is of degree 5 by construction.
        let size = [1, 2 * n, 2 * n, 2 * n * (n - 1), 1 << n].map(T::from_i64);
        let (a, b, c) = (ratio::<T>(9, 70), ratio::<T>(9, 10), ratio::<T>(9, 19));
        let two = T::from_i64(2);
        let four_pairs = T::from_i64(4 * (n - 1));
        let vertices = size[4];
        let square = [T::zero(), two * a, two * b, four_pairs * b, vertices * c];
        // The classes that have points (in one dimension the pairs have none).
        let classes: Vec<usize> = (0..5).filter(|&k| size[k].to_f64() > 0.0).collect();
        let on = |row: [T; 5]| classes.iter().map(|&k| row[k]).collect::<Vec<T>>();
        let dot = |v: [T; 5]| on(std::array::from_fn(|k| size[k] * v[k]));
        let expand = |v: Vec<T>| {
            let mut full = [T::zero(); 5];
            for (&k, x) in classes.iter().zip(v) {
                full[k] = x;
            }
            full
        };
        let n1: [T; 5] = std::array::from_fn(|k| w7[k] - w5[k]);
        let mut rows2 = vec![on(size), on(square), dot(n1), dot(w7)];
        rows2.truncate(classes.len() - 1);
        let n2 = expand(null_vector(rows2));
        let mut rows3 = vec![on(size), dot(n1), dot(n2), dot(w7)];
        rows3.truncate(classes.len() - 1);
        let n3 = expand(null_vector(rows3));
        let null = [n1, n2, n3];
        let null_norm = null.map(|v| {
            let norm: f64 = (0..5).map(|k| size[k].to_f64() * v[k].abs().to_f64()).sum();
            1.0 / norm
        });
        GenzMalik {
            dims,
            constants: [
                ratio::<T>(9, 70).sqrt(),
                lambda3,
                lambda3,
                ratio::<T>(9, 19).sqrt(),
                ratio(1, 7),
            ],
            w7,
            w5,
            null,
            null_norm,
            w7_abs: w7.map(|w| w.abs().to_f64()),
            sizes: size.map(|m| m.to_f64()),
        }
    }

    /// The number of variables.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Points of the rule: 2^n + 2n² + 2n + 1.
    pub fn points(&self) -> usize {
        rule_points(self.dims)
    }

    /// λ2, λ3, λ4, λ5 and λ2²/λ3², as [`crate::backend::Backend::genz_malik_sums`] takes them.
    pub fn constants(&self) -> &[T; 5] {
        &self.constants
    }

    /// The null rules of degrees 5, 3 and 1, weights per point of each class.
    pub fn null_rules(&self) -> &[[T; 5]; 3] {
        &self.null
    }

    /// Appends the rule's points for the region `center ± half` to `out`, point-major, in the
    /// order of [`crate::backend::rule_point`] (the device kernel's), which
    /// [`GenzMalik::apply`] reads.
    pub fn abscissae(&self, center: &[T], half: &[T], out: &mut Vec<T>) {
        let n = self.dims;
        let mut x = vec![T::zero(); n];
        out.reserve(self.points() * n);
        for k in 0..self.points() as u64 {
            rule_point(k, center, half, &self.constants, &mut x);
            out.extend_from_slice(&x);
        }
    }

    /// The estimates from the values at the points of [`GenzMalik::abscissae`] for a region
    /// of half-widths `half`: the class sums (each in `T::Accumulator` in the order of the
    /// points) and fourth differences, then [`GenzMalik::estimate`].
    pub fn apply(&self, half: &[T], values: &[T]) -> RuleEstimate<T> {
        let n = self.dims;
        let mut sums = [T::zero().to_accumulator(); 5];
        let center = vec![T::zero(); n];
        let mut x = vec![T::zero(); n];
        for (k, &y) in values.iter().enumerate() {
            let class = rule_point(k as u64, &center, half, &self.constants, &mut x);
            sums[class] = sums[class] + y.to_accumulator();
        }
        let twice_center = values[0] + values[0];
        let fourth: Vec<f64> = values[1..1 + 4 * n]
            .chunks_exact(4)
            .map(|a| {
                let second2 = a[0] + a[1] - twice_center;
                let second3 = a[2] + a[3] - twice_center;
                (second2 - self.constants[4] * second3).abs().to_f64()
            })
            .collect();
        self.estimate(half, &sums.map(T::from_accumulator), &fourth)
    }

    /// The estimates for a region of half-widths `half` from its class sums and fourth
    /// differences ([`RuleSums`]' entries for it).
    pub fn estimate(&self, half: &[T], sums: &[T; 5], fourth: &[f64]) -> RuleEstimate<T> {
        let n = self.dims;
        let volume = half.iter().fold(T::one(), |v, &h| v * h).ldexp(n as i32);
        let rule = |w: &[T; 5]| {
            T::from_accumulator(
                w.iter()
                    .zip(sums)
                    .fold(T::zero().to_accumulator(), |s, (&w, &v)| {
                        s + (w * v).to_accumulator()
                    }),
            )
        };
        let (i7, i5) = (rule(&self.w7), rule(&self.w5));
        let value = i7 * volume;
        let vol = volume.to_f64().abs();
        let difference = ((i7 - i5) * volume).abs().to_f64();
        // A normalised null rule's value on rounding noise alone is a few ulp of the values'
        // size (the center's, or a class's average): below that it counts as zero, so that
        // a polynomial the rules integrate exactly passes the ratio test.
        let eps = T::epsilon().to_f64();
        let size = (0..5)
            .filter(|&k| self.sizes[k] > 0.0)
            .map(|k| sums[k].abs().to_f64() / self.sizes[k])
            .fold(0.0, f64::max);
        let noise = NOISE * eps * size;
        let e: [f64; 3] = std::array::from_fn(|k| {
            let e = rule(&self.null[k]).abs().to_f64() * self.null_norm[k];
            if e > noise {
                e
            } else {
                0.0
            }
        });
        let asymptotic = RATIO_TEST * e[0] <= e[1] && RATIO_TEST * e[1] <= e[2];
        let error = vol
            * if asymptotic {
                ASYMPTOTIC * e[0]
            } else {
                PESSIMISTIC * e[0].max(e[1]).max(e[2])
            };

        let magnitude: f64 = self
            .w7_abs
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
            difference,
            null: e.map(|e| e * vol),
            asymptotic,
            floor,
            fourth_differences: fourth.to_vec(),
            difference_noise: vec![8.0 * eps * axis_size; n],
        }
    }

    /// The rule as a device kernel takes it (`kernels/cuhre_list.cu`): 30 values in `T`
    /// (λ2, λ3, λ4, λ5, λ2²/λ3²; the degree-7 and degree-5 weights of the five classes; the
    /// three null rules) and 13 doubles (the null rules' 1/norms, |w7|, the class sizes).
    pub(crate) fn table(&self) -> (Vec<T>, Vec<f64>) {
        let mut values = self.constants.to_vec();
        values.extend_from_slice(&self.w7);
        values.extend_from_slice(&self.w5);
        for rule in &self.null {
            values.extend_from_slice(rule);
        }
        let mut doubles = self.null_norm.to_vec();
        doubles.extend_from_slice(&self.w7_abs);
        doubles.extend_from_slice(&self.sizes);
        (values, doubles)
    }

    /// The estimates of region `r` of a list's [`RuleSums`].
    pub fn estimate_of(&self, half: &[T], sums: &RuleSums<T>, r: usize) -> RuleEstimate<T> {
        let n = self.dims;
        self.estimate(half, &sums.classes[r], &sums.fourth[r * n..(r + 1) * n])
    }
}
