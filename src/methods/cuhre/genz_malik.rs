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
//! at most 7. The error estimate is |I7 - I5|, the difference of the two rules (Genz–Malik's,
//! the "simpler" estimate of the issue; the adaptive driver adds DCUHRE's check against the
//! parent after each split, see `mod.rs`). The axis to split is the one with the largest
//! fourth divided difference
//!
//! ```text
//! D_i = | f(λ2 e_i) + f(-λ2 e_i) - 2 f(0) - (λ2²/λ3²) (f(λ3 e_i) + f(-λ3 e_i) - 2 f(0)) |
//! ```
//!
//! which vanishes on quadratics along the axis (λ2²/λ3² = 1/7).

use precision::Real;

/// The most variables the rule is built for: 2^20 + 2·20² + 2·20 + 1 = 1049417 points a
/// region. The issue asks for at least 16 (66081 points a region).
pub const MAX_DIMS: usize = 20;

/// The number of points of the rule in `dims` dimensions: 2^n + 2n² + 2n + 1.
pub fn rule_points(dims: usize) -> usize {
    (1usize << dims) + 2 * dims * dims + 2 * dims + 1
}

/// The rule in `n` dimensions with its constants in `T`.
#[derive(Debug, Clone)]
pub struct GenzMalik<T> {
    dims: usize,
    lambda2: T,
    lambda3: T,
    lambda5: T,
    /// Degree-7 weights of the five point sets (the last already divided by 2^n).
    w7: [T; 5],
    /// Degree-5 weights of the first four point sets.
    w5: [T; 4],
}

/// What the rule gives for one region.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEstimate<T> {
    /// The degree-7 estimate of the integral over the region.
    pub value: T,
    /// |I7 - I5|.
    pub difference: f64,
    /// The error that rounding alone leaves in `value`: 4 ε Σ |w f| vol + 2 ε |value|.
    pub floor: f64,
    /// The fourth divided difference along each axis.
    pub fourth_differences: Vec<f64>,
    /// The rounding level of each fourth difference, below which two are not told apart.
    pub difference_noise: Vec<f64>,
}

fn ratio<T: Real>(p: i64, q: i64) -> T {
    T::from_i64(p) / T::from_i64(q)
}

impl<T: Real> GenzMalik<T> {
    /// The rule in `dims` dimensions (1 to [`MAX_DIMS`]; in one dimension it is a 7-point
    /// symmetric rule of degree 7, the pair sets being empty).
    pub fn new(dims: usize) -> GenzMalik<T> {
        let n = dims as i64;
        GenzMalik {
            dims,
            lambda2: ratio::<T>(9, 70).sqrt(),
            lambda3: ratio::<T>(9, 10).sqrt(),
            lambda5: ratio::<T>(9, 19).sqrt(),
            w7: [
                ratio(12824 - 9120 * n + 400 * n * n, 19683),
                ratio(980, 6561),
                ratio(1820 - 400 * n, 19683),
                ratio(200, 19683),
                ratio::<T>(6859, 19683).ldexp(-(dims as i32)),
            ],
            w5: [
                ratio(729 - 950 * n + 50 * n * n, 729),
                ratio(245, 486),
                ratio(265 - 100 * n, 1458),
                ratio(25, 729),
            ],
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

    /// Appends the rule's points for the region `center ± half` to `out`, point-major, in the
    /// order [`GenzMalik::apply`] reads them: the centre; for each axis +λ2, -λ2, +λ3, -λ3;
    /// for each pair of axes i < j the four sign combinations of λ4 (++, +-, -+, --); the 2^n
    /// corners at λ5, bit k of the corner's index set meaning -λ5 on axis k.
    pub fn abscissae(&self, center: &[T], half: &[T], out: &mut Vec<T>) {
        let n = self.dims;
        out.reserve(self.points() * n);
        out.extend_from_slice(center);
        for i in 0..n {
            for offset in [self.lambda2, -self.lambda2, self.lambda3, -self.lambda3] {
                let start = out.len();
                out.extend_from_slice(center);
                out[start + i] = center[i] + offset * half[i];
            }
        }
        for i in 0..n {
            for j in i + 1..n {
                for (si, sj) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
                    let start = out.len();
                    out.extend_from_slice(center);
                    out[start + i] = center[i] + self.lambda3 * half[i] * si;
                    out[start + j] = center[j] + self.lambda3 * half[j] * sj;
                }
            }
        }
        let up: Vec<T> = (0..n).map(|k| center[k] + self.lambda5 * half[k]).collect();
        let down: Vec<T> = (0..n).map(|k| center[k] - self.lambda5 * half[k]).collect();
        for corner in 0..1usize << n {
            for k in 0..n {
                out.push(if corner >> k & 1 == 0 { up[k] } else { down[k] });
            }
        }
    }

    /// The estimates from the values at the points of [`GenzMalik::abscissae`] for a region
    /// of half-widths `half`. Each point set is summed in `T::Accumulator` in the fixed order
    /// of the points.
    pub fn apply(&self, half: &[T], values: &[T]) -> RuleEstimate<T> {
        let n = self.dims;
        let volume = half.iter().fold(T::one(), |v, &h| v * h).ldexp(n as i32);
        let center = values[0];
        let sum = |vs: &[T]| {
            T::from_accumulator(
                vs.iter()
                    .fold(T::zero().to_accumulator(), |s, &v| s + v.to_accumulator()),
            )
        };
        let axes = &values[1..1 + 4 * n];
        let pairs = &values[1 + 4 * n..1 + 4 * n + 2 * n * (n - 1)];
        let corners = &values[1 + 4 * n + 2 * n * (n - 1)..];

        // The axis sets, with each axis's fourth difference from the same values.
        let mut s2 = T::zero().to_accumulator();
        let mut s3 = T::zero().to_accumulator();
        let mut fourth_differences = Vec::with_capacity(n);
        let mut difference_noise = Vec::with_capacity(n);
        let (mut abs2, mut abs3) = (0.0, 0.0);
        let seventh = ratio::<T>(1, 7);
        let eps = T::epsilon().to_f64();
        for axis in axes.chunks(4) {
            let (p2, m2, p3, m3) = (axis[0], axis[1], axis[2], axis[3]);
            s2 = s2 + (p2 + m2).to_accumulator();
            s3 = s3 + (p3 + m3).to_accumulator();
            abs2 += p2.to_f64().abs() + m2.to_f64().abs();
            abs3 += p3.to_f64().abs() + m3.to_f64().abs();
            let twice_center = center + center;
            let d = (p2 + m2 - twice_center) - seventh * (p3 + m3 - twice_center);
            fourth_differences.push(d.abs().to_f64());
            let magnitude = p2.abs() + m2.abs() + twice_center.abs() * 2.0 + p3.abs() + m3.abs();
            difference_noise.push(8.0 * eps * magnitude.to_f64());
        }
        let sets = [
            center,
            T::from_accumulator(s2),
            T::from_accumulator(s3),
            sum(pairs),
            sum(corners),
        ];
        let i7 = self
            .w7
            .iter()
            .zip(&sets)
            .fold(T::zero().to_accumulator(), |s, (&w, &v)| {
                s + (w * v).to_accumulator()
            });
        let i5 = self
            .w5
            .iter()
            .zip(&sets)
            .fold(T::zero().to_accumulator(), |s, (&w, &v)| {
                s + (w * v).to_accumulator()
            });
        let (i7, i5) = (T::from_accumulator(i7), T::from_accumulator(i5));
        let value = i7 * volume;
        let difference = ((i7 - i5) * volume).abs().to_f64();

        // Σ |w| |f| over all points, for the rounding floor.
        let abs_sum = |vs: &[T]| vs.iter().map(|v| v.to_f64().abs()).sum::<f64>();
        let magnitudes = [
            center.to_f64().abs(),
            abs2,
            abs3,
            abs_sum(pairs),
            abs_sum(corners),
        ];
        let resabs: f64 = self
            .w7
            .iter()
            .zip(magnitudes)
            .map(|(w, m)| w.to_f64().abs() * m)
            .sum::<f64>()
            * volume.to_f64().abs();
        let floor = 4.0 * eps * resabs + 2.0 * eps * value.to_f64().abs();
        RuleEstimate {
            value,
            difference,
            floor,
            fourth_differences,
            difference_noise,
        }
    }
}
