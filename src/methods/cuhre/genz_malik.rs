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
//! five class sums ([`crate::backend::RuleSums`]), which any backend computes; in the terms of
//! [`crate::backend::RuleGenerators`], λa = λ2, λb = λ3 = λ4, λv = λ5.
//!
//! The null rules (the error estimate is [`super::rule`]'s): on five classes a fully symmetric
//! null rule is another weight vector over the class sums; the rule has one of degree 5
//! (N1 ∝ I7 - I5: degree 5 leaves four conditions on five weights), and we take N2 of degree 3
//! and N3 of degree 1, each orthogonal to the rules before it and to the degree-7 rule (Σ over
//! the points of the product of the weights), their weights solved in the working precision.
//! With one null rule of degree 5 (DCUHRE's degree-7 rule has a sixth class and two) e1 is a
//! single rule's value, not the largest over the span of two; DCUHRE's parent check
//! (`regions.rs`) catches a null rule that vanishes by accident.

use precision::Real;

use super::rule::{class_sizes, dot, null_space, RuleParts};
use crate::backend::{PointSet, RuleGenerators, RULE_CLASSES};

fn ratio<T: Real>(p: i64, q: i64) -> T {
    T::from_i64(p) / T::from_i64(q)
}

/// The degree-7 rule's generators, weights and null rules in `dims` dimensions (1 to
/// [`super::MAX_DIMS`]; in one dimension a 7-point symmetric rule of degree 7, the pair class
/// being empty).
pub(super) fn parts<T: Real>(dims: usize) -> RuleParts<T> {
    let n = dims as i64;
    let lambda3 = ratio::<T>(9, 10).sqrt();
    let zero = T::zero();
    let w7 = [
        ratio(12824 - 9120 * n + 400 * n * n, 19683),
        ratio(980, 6561),
        ratio(1820 - 400 * n, 19683),
        ratio(200, 19683),
        ratio::<T>(6859, 19683).ldexp(-(dims as i32)),
        zero,
        zero,
        zero,
        zero,
    ];
    let w5 = [
        ratio(729 - 950 * n + 50 * n * n, 729),
        ratio(245, 486),
        ratio(265 - 100 * n, 1458),
        ratio(25, 729),
        zero,
        zero,
        zero,
        zero,
        zero,
    ];
    // The class sums of x1² per unit weight, with λ2² = 9/70, λ3² = λ4² = 9/10, λ5² = 9/19:
    // the moment a null rule of degree 3 must not see besides the constant (odd ones vanish by
    // symmetry). N1 = I7 - I5 is of degree 5 by construction.
    let sizes = class_sizes(PointSet::Degree7, dims);
    let (a, b, c) = (ratio::<T>(9, 70), ratio::<T>(9, 10), ratio::<T>(9, 19));
    let two = T::from_i64(2);
    let mut square = [zero; RULE_CLASSES];
    square[1] = two * a;
    square[2] = two * b;
    square[3] = T::from_i64(4 * (n - 1)) * b;
    square[4] = T::from_i64(sizes[4]) * c;
    let count: [T; RULE_CLASSES] = sizes.map(T::from_i64);
    // The classes that have points (in one dimension the pairs have none).
    let present: [bool; RULE_CLASSES] = std::array::from_fn(|k| sizes[k] > 0);
    let classes = present.iter().filter(|&&p| p).count();
    let weighted =
        |v: &[T; RULE_CLASSES]| -> [T; RULE_CLASSES] { std::array::from_fn(|k| count[k] * v[k]) };
    let n1: [T; RULE_CLASSES] = std::array::from_fn(|k| w7[k] - w5[k]);
    let mut rows2 = vec![count, square, weighted(&n1), weighted(&w7)];
    rows2.truncate(classes - 1);
    let n2 = null_space(rows2, &present)[0];
    let mut rows3 = vec![count, weighted(&n1), weighted(&n2), weighted(&w7)];
    rows3.truncate(classes - 1);
    let n3 = null_space(rows3, &present)[0];
    debug_assert!(dot(&sizes, &n2, &n3).abs().to_f64() < 1e-10);
    RuleParts {
        generators: RuleGenerators {
            set: PointSet::Degree7,
            axis: [ratio::<T>(9, 70).sqrt(), lambda3, zero, zero],
            vertex: ratio::<T>(9, 19).sqrt(),
            ratio: ratio(1, 7),
        },
        weights: w7,
        null: [vec![n1], vec![n2], vec![n3]],
    }
}
