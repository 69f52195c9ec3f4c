//! DCUHRE's degree-9 cubature rule (Berntsen, Espelid and Genz, "An adaptive algorithm for the
//! approximate calculation of multiple integrals", ACM TOMS 17 (1991) 437–451, its routine
//! D09HRE; the rule is from Genz and Malik, "An imbedded family of fully symmetric numerical
//! integration rules", SIAM J. Numer. Anal. 20 (1983) 580–588), the rule PAGANI uses from three
//! dimensions on. On [-1, 1]^n, in the class order of [`crate::backend::rule_point`]:
//!
//! ```text
//! class  points                                   count             generators (squared)
//! 0      0                                        1
//! 1      ±λa e_i                                  2n                λa² = ℓ2
//! 2      ±λb e_i                                  2n                λb² = ℓ1
//! 3      ±λc e_i                                  2n                λc² = ℓ3
//! 4      ±λd e_i   (null rules only)              2n                λd² = 1/16
//! 5      ±λb e_i ± λb e_j       (i < j)           2n(n - 1)
//! 6      ±λb e_i ± λa e_j       (i ≠ j)           4n(n - 1)
//! 7      ±λb e_i ± λb e_j ± λb e_k  (i < j < k)   4n(n - 1)(n - 2)/3
//! 8      (±λv, ..., ±λv)                          2^n               λv² = ℓ0 = 4707/10000
//!
//! ℓ1 = 4 / (15 - 5/ℓ0)                          r1 = (1 - ℓ1/ℓ0) / 27
//! ℓ2 = (5 - 7ℓ1 - 35r1) / (7 - 35ℓ1/3 - 35r1/ℓ0)  r2 = r1 (1 - ℓ2/ℓ0) / 3
//! ℓ3 = (7 - 9(ℓ1 + ℓ2) + 63ℓ1ℓ2/5 - 63r2) / (9 - 63(ℓ1 + ℓ2)/5 + 21ℓ1ℓ2 - 63r2/ℓ0)
//! ```
//!
//! The generators are DCUHRE's: ℓ0 is chosen, and ℓ1, ℓ2, ℓ3 are the values for which the
//! moment equations of degree 9 on these classes (every even monomial x1^2a1 ... x4^2a4 of
//! degree at most 8: twelve equations, fewer below four dimensions) have a solution. Every ℓ
//! is a rational computed in the working precision and the weights are solved from those
//! equations in it (Gauss–Jordan with partial pivoting), so the rule is exact to rounding on
//! every monomial of degree at most 9 in f64, dd and qd.
//!
//! The null spaces (see [`super::rule`] for the estimate): e1 searches the plane of the null
//! rules of degree 7 (seven moment conditions on nine classes leave two dimensions; DCUHRE's
//! two degree-7 null rules span it, so the search is DCUHRE's); e2 the null rules of degree 5
//! orthogonal to that plane and to the rule (two dimensions, one in two dimensions); e3 the null
//! rule of degree 3 orthogonal to all those of degree 5 and to the rule (one), orthogonal in
//! the dot product of the weights over the points. DCUHRE's own e2 and e3 search the span of a
//! degree-7 and a degree-5 rule and of a degree-5 and a degree-3 rule; these see the same
//! degrees, each space complementary to the one before.
//!
//! The points: 2^n + 4n(n-1)(n-2)/3 + 6n(n-1) + 8n + 1: 1105 in eight dimensions against the
//! degree-7 rule's 401; from about fifteen dimensions on the vertices are most of both.

use precision::Real;

use super::rule::{class_sizes, null_space, RuleParts};
use crate::backend::{PointSet, RuleGenerators, RULE_CLASSES};

fn ratio<T: Real>(p: i64, q: i64) -> T {
    T::from_i64(p) / T::from_i64(q)
}

/// The squared generators ℓ0 (vertices), ℓ1 (λb), ℓ2 (λa), ℓ3 (λc), ℓp (λd) in `T`.
fn squared_generators<T: Real>() -> [T; 5] {
    let one = T::one();
    let int = |k: i64| T::from_i64(k);
    let l0: T = ratio(4707, 10000);
    let l1 = int(4) / (int(15) - int(5) / l0);
    let r1 = (one - l1 / l0) / int(27);
    let l2 = (int(5) - int(7) * l1 - int(35) * r1)
        / (int(7) - int(35) * l1 / int(3) - int(35) * r1 / l0);
    let r2 = r1 * (one - l2 / l0) / int(3);
    let l3 = (int(7) - int(9) * (l1 + l2) + int(63) * l1 * l2 / int(5) - int(63) * r2)
        / (int(9) - int(63) * (l1 + l2) / int(5) + int(21) * l1 * l2 - int(63) * r2 / l0);
    [l0, l1, l2, l3, ratio(1, 16)]
}

/// The even monomials x1^(2 a1) ... x_m^(2 a_m) of degree at most 2·`half_degree`, as the
/// exponent halves (a1 ≥ a2 ≥ ... ≥ 1), at most `dims` variables: one for each moment
/// equation of a fully symmetric rule (the odd ones vanish by symmetry).
fn partitions(half_degree: u32, dims: usize) -> Vec<Vec<u32>> {
    fn grow(left: u32, largest: u32, part: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        out.push(part.clone());
        for a in 1..=left.min(largest) {
            part.push(a);
            grow(left - a, a, part, out);
            part.pop();
        }
    }
    let mut out = Vec::new();
    grow(half_degree, half_degree, &mut Vec::new(), &mut out);
    out.retain(|p| p.len() <= dims);
    out
}

/// Each class's sum over its points of the monomial `part` (exponent halves), and the
/// monomial's mean over [-1, 1]^n: Π 1/(2a + 1).
fn moment_row<T: Real>(part: &[u32], dims: usize, l: &[T; 5]) -> ([T; RULE_CLASSES], T) {
    let [lv, lb, la, lc, ld] = *l;
    let n = dims as i64;
    let int = |k: i64| T::from_i64(k);
    let pow = |x: T, k: u32| x.powi(k as i32);
    let sizes = class_sizes(PointSet::Degree9, dims);
    let total: u32 = part.iter().sum();
    let mut row = [T::zero(); RULE_CLASSES];
    match part {
        [] => {
            row = sizes.map(T::from_i64);
        }
        [a] => {
            for (k, lk) in [(1, la), (2, lb), (3, lc), (4, ld)] {
                row[k] = int(2) * pow(lk, *a);
            }
            row[5] = int(4 * (n - 1)) * pow(lb, *a);
            row[6] = int(4 * (n - 1)) * (pow(lb, *a) + pow(la, *a));
            row[7] = int(4 * (n - 1) * (n - 2)) * pow(lb, *a);
        }
        [a, b] => {
            row[5] = int(4) * pow(lb, a + b);
            row[6] = int(4) * (pow(lb, *a) * pow(la, *b) + pow(la, *a) * pow(lb, *b));
            row[7] = int(8 * (n - 2)) * pow(lb, a + b);
        }
        [_, _, _] => {
            row[7] = int(8) * pow(lb, total);
        }
        _ => {}
    }
    row[8] = int(sizes[8]) * pow(lv, total);
    let exact = part
        .iter()
        .fold(T::one(), |p, &a| p / int(2 * a as i64 + 1));
    (row, exact)
}

/// The solution of a consistent system of full column rank (rows of coefficients followed by
/// the right-hand side, more rows than unknowns allowed), by Gauss–Jordan elimination with
/// partial pivoting in `T`.
fn solve_consistent<T: Real>(mut rows: Vec<Vec<T>>) -> Vec<T> {
    let unknowns = rows.first().map_or(0, |r| r.len() - 1);
    for col in 0..unknowns {
        let best = (col..rows.len())
            .max_by(|&a, &b| {
                rows[a][col]
                    .abs()
                    .to_f64()
                    .total_cmp(&rows[b][col].abs().to_f64())
            })
            .unwrap_or(col);
        rows.swap(col, best);
        let p = rows[col][col];
        for x in rows[col].iter_mut() {
            *x /= p;
        }
        let pivot = rows[col].clone();
        for (i, row) in rows.iter_mut().enumerate() {
            if i != col {
                let factor = row[col];
                for (x, &y) in row.iter_mut().zip(&pivot) {
                    *x -= factor * y;
                }
            }
        }
    }
    (0..unknowns).map(|k| rows[k][unknowns]).collect()
}

/// The degree-9 rule's generators, weights and null rules in `dims` dimensions (2 to
/// [`super::MAX_DIMS`]).
pub(super) fn parts<T: Real>(dims: usize) -> RuleParts<T> {
    assert!(
        dims >= 2,
        "the degree-9 rule is built for two dimensions and more"
    );
    let l = squared_generators::<T>();
    let sizes = class_sizes(PointSet::Degree9, dims);
    let present: [bool; RULE_CLASSES] = std::array::from_fn(|k| sizes[k] > 0);
    let moments = |half_degree: u32| -> Vec<([T; RULE_CLASSES], T)> {
        partitions(half_degree, dims)
            .iter()
            .map(|p| moment_row(p, dims, &l))
            .collect()
    };
    // The rule: weight 0 on the class λd (it serves the null rules).
    let unknowns: Vec<usize> = (0..RULE_CLASSES)
        .filter(|&k| present[k] && k != 4)
        .collect();
    let system = moments(4)
        .into_iter()
        .map(|(row, exact)| {
            let mut r: Vec<T> = unknowns.iter().map(|&k| row[k]).collect();
            r.push(exact);
            r
        })
        .collect();
    let mut weights = [T::zero(); RULE_CLASSES];
    for (&k, w) in unknowns.iter().zip(solve_consistent(system)) {
        weights[k] = w;
    }
    let count = sizes.map(T::from_i64);
    let weighted =
        |v: &[T; RULE_CLASSES]| -> [T; RULE_CLASSES] { std::array::from_fn(|k| count[k] * v[k]) };
    let rows = |half_degree: u32| -> Vec<[T; RULE_CLASSES]> {
        moments(half_degree).into_iter().map(|(r, _)| r).collect()
    };
    let degree7 = null_space(rows(3), &present);
    let mut rows5 = rows(2);
    rows5.extend(degree7.iter().map(weighted));
    rows5.push(weighted(&weights));
    let degree5 = null_space(rows5, &present);
    let mut rows3 = rows(1);
    rows3.extend(null_space(rows(2), &present).iter().map(weighted));
    rows3.push(weighted(&weights));
    let degree3 = null_space(rows3, &present);
    RuleParts {
        generators: RuleGenerators {
            set: PointSet::Degree9,
            axis: [l[2].sqrt(), l[1].sqrt(), l[3].sqrt(), l[4].sqrt()],
            vertex: l[0].sqrt(),
            ratio: l[2] / l[1],
        },
        weights,
        null: [degree7, degree5, degree3],
    }
}
