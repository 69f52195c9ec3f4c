//! CUHRE (`hpquad::methods::cuhre`) against MPFR: the Genz–Malik rule on monomials, Genz's
//! test families over [0, 1]^n for n = 2..8 with closed forms evaluated in MPFR (rug), products
//! of one-dimensional integrals in dd and qd, and the benchmark cases.
//!
//! Every result must be honest (the actual error within the estimate) and, when converged,
//! within its tolerance. Run with `--nocapture` for digits, evaluations and times.

use std::time::Instant;

use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::integrand::Integrand;
use hpquad::methods::cuhre::{cuhre, rule_points, GenzMalik, Hyperbox, Schedule};
use hpquad::methods::{Options, Outcome};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::{Error, Integral, Method, Precision};
use rug::ops::Pow;
use rug::Float;

mod mpfr_support;
use mpfr_support::{abs_error, digits, mpfr, BITS};

fn mp(x: f64) -> Float {
    Float::with_val(BITS, x)
}

/// A decimal in MPFR, exactly the number the integrand's literal stands for.
fn dec(text: &str) -> Float {
    Float::with_val(BITS, Float::parse(text).expect("a decimal"))
}

// ---------------------------------------------------------------------------------------------
// The rule on monomials
// ---------------------------------------------------------------------------------------------

/// x1^k1 ... xn^kn, evaluated with powi in the working precision.
struct Monomial(Vec<i32>);

impl Integrand for Monomial {
    fn dims(&self) -> usize {
        self.0.len()
    }

    fn eval_batch<T: Real>(&self, points: &[&[T]], out: &mut [T]) {
        for (i, y) in out.iter_mut().enumerate() {
            *y = self
                .0
                .iter()
                .enumerate()
                .fold(T::one(), |p, (d, &k)| p * points[d][i].powi(k));
        }
    }
}

/// Every exponent vector of `n` entries with total degree `degree`.
fn exponents(n: usize, degree: i32) -> Vec<Vec<i32>> {
    if n == 1 {
        return vec![vec![degree]];
    }
    (0..=degree)
        .flat_map(|k| {
            exponents(n - 1, degree - k)
                .into_iter()
                .map(move |mut rest| {
                    rest.insert(0, k);
                    rest
                })
        })
        .collect()
}

/// ∫ over the box of the monomial: Π (b^(k+1) - a^(k+1)) / (k+1), in MPFR.
fn monomial_integral(exps: &[i32], lower: &[Float], upper: &[Float]) -> Float {
    let mut product = mp(1.0);
    for ((&k, a), b) in exps.iter().zip(lower).zip(upper) {
        let hi = Float::with_val(BITS, b.pow(k + 1));
        let lo = Float::with_val(BITS, a.pow(k + 1));
        product *= Float::with_val(BITS, hi - lo) / (k + 1);
    }
    product
}

/// The rule on one region for every monomial of degree 0..=8: degree ≤ 7 exact to a few
/// hundred ulp of Σ|w f| (the floor), degree 8 not (x1^8 at least), and the degree-5 rule's
/// difference zero to rounding up to degree 5.
fn rule_on_monomials<T: Real>(n: usize, lower: &[T], upper: &[T]) {
    let rule = GenzMalik::<T>::new(n);
    assert_eq!(rule.points(), rule_points(n));
    let center: Vec<T> = lower
        .iter()
        .zip(upper)
        .map(|(&a, &b)| (a + b).ldexp(-1))
        .collect();
    let half: Vec<T> = lower
        .iter()
        .zip(upper)
        .map(|(&a, &b)| (b - a).ldexp(-1))
        .collect();
    let mut points = Vec::new();
    rule.abscissae(&center, &half, &mut points);
    assert_eq!(points.len(), rule.points() * n);
    let cpu = CpuBackend::new(1).expect("a pool");
    let (lo, hi): (Vec<Float>, Vec<Float>) = (
        lower.iter().map(|&x| mpfr(x)).collect(),
        upper.iter().map(|&x| mpfr(x)).collect(),
    );
    for degree in 0..=8 {
        // All monomials up to n = 5; beyond, those in at most 3 variables (the rule is
        // symmetric in the axes, and the full set for n = 8, degree 7 is 3432).
        for exps in exponents(n, degree) {
            if n > 5 && exps.iter().filter(|&&k| k > 0).count() > 3 {
                continue;
            }
            use hpquad::backend::Backend;
            let values = cpu
                .evaluate(&Monomial(exps.clone()), &points)
                .expect("values");
            let estimate = rule.apply(&half, &values);
            let exact = monomial_integral(&exps, &lo, &hi);
            let err = abs_error(estimate.value, &exact);
            if degree <= 7 {
                assert!(
                    err <= 64.0 * estimate.floor,
                    "{} n={n} {exps:?}: error {err:e}, floor {:e}",
                    T::NAME,
                    estimate.floor
                );
            }
            if degree <= 5 {
                assert!(
                    estimate.difference <= 64.0 * estimate.floor,
                    "{} n={n} {exps:?}: |I7 - I5| = {:e} for degree {degree}",
                    T::NAME,
                    estimate.difference
                );
            }
            if degree == 8 && exps[0] == 8 {
                assert!(
                    err > 1e-6 * exact.to_f64().abs(),
                    "x1^8 should not be exact"
                );
            }
            if degree == 6 && exps[0] == 6 {
                assert!(estimate.difference > 1e-6, "I5 should miss x1^6");
            }
        }
    }
}

#[test]
fn genz_malik_is_exact_to_degree_7_on_the_unit_cube() {
    for n in 1..=8 {
        rule_on_monomials::<f64>(n, &vec![0.0; n], &vec![1.0; n]);
        rule_on_monomials::<Dd>(n, &vec![Dd::from(0); n], &vec![Dd::from(1); n]);
        rule_on_monomials::<Qd>(n, &vec![Qd::from(0); n], &vec![Qd::from(1); n]);
    }
}

/// A box with other bounds per axis: [-1/3, 1/2] × [1/10, 2] × [-2, -1/7] × ..., in T.
fn odd_box<T: Real>(n: usize) -> (Vec<T>, Vec<T>) {
    let lows = [
        (-1, 3),
        (1, 10),
        (-2, 1),
        (0, 1),
        (3, 4),
        (-5, 2),
        (1, 7),
        (-1, 9),
    ];
    let highs = [
        (1, 2),
        (2, 1),
        (-1, 7),
        (5, 3),
        (1, 1),
        (-1, 2),
        (9, 7),
        (1, 9),
    ];
    let r = |(p, q): (i64, i64)| T::from_i64(p) / T::from_i64(q);
    (
        (0..n).map(|k| r(lows[k])).collect(),
        (0..n).map(|k| r(highs[k])).collect(),
    )
}

#[test]
fn genz_malik_is_exact_to_degree_7_on_other_boxes() {
    for n in 2..=8 {
        let (a, b) = odd_box::<f64>(n);
        rule_on_monomials(n, &a, &b);
        let (a, b) = odd_box::<Dd>(n);
        rule_on_monomials(n, &a, &b);
        let (a, b) = odd_box::<Qd>(n);
        rule_on_monomials(n, &a, &b);
    }
}
