//! Integrals whose value is finite and representable but whose intermediate quantities are
//! not: bounds near ±1.8e308 (b − a and a + b overflow), subnormal intervals (halving an odd
//! number of subnormal units rounds), an integral near the largest number (Richardson's 4^j T
//! overflows); and integrals that honestly overflow, which must be the clear Overflow error,
//! quickly. References are closed forms in MPFR (rug) from the decimal problem.

use hpquad::precision::Real;
use hpquad::{Error, Integral, Method, Precision, Value};
use rug::ops::Pow;
use rug::Float;

mod mpfr_support;
use mpfr_support::BITS;

const PRECISIONS: [Precision; 3] = [Precision::F64, Precision::Dd, Precision::Qd];

/// Every one-dimensional method that takes a finite interval (the PBCAQ family is left out:
/// see the note at the end of this file).
fn methods() -> Vec<Method> {
    vec![
        Method::Auto,
        Method::Romberg,
        Method::Trapezoid { intervals: 1024 },
        Method::Richardson {
            intervals: 1024,
            grids: 2,
        },
        Method::TanhSinh,
        Method::GaussLegendre,
        Method::GaussKronrod,
    ]
}

fn exact(value: &Value) -> Float {
    let limbs = match value {
        Value::F64(x) => x.limbs(),
        Value::Dd(x) => x.limbs(),
        Value::Qd(x) => x.limbs(),
    };
    limbs
        .into_iter()
        .fold(Float::with_val(BITS, 0), |s, l| s + l)
}

fn decimal(text: &str) -> Float {
    Float::with_val(BITS, Float::parse(text).expect("a decimal"))
}

/// Runs every method in every precision and checks the estimate against `reference`: within
/// its own error estimate (never silently wrong), and within `digits` of the precision's
/// epsilon relative where the method claims convergence.
fn check(integrand: &str, lower: &str, upper: &str, reference: &Float) {
    for precision in PRECISIONS {
        let eps = match precision {
            Precision::F64 => f64::EPSILON,
            Precision::Dd => 4.93e-32,
            _ => 1.22e-63,
        };
        for method in methods() {
            let what = format!("{integrand} over [{lower}, {upper}], {method:?}, {precision:?}");
            let estimate = Integral::new(integrand)
                .expect("parses")
                .bounds(lower, upper)
                .method(method)
                .precision(precision)
                .threads(2)
                .compute()
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let error = Float::with_val(BITS, exact(&estimate.value) - reference)
                .abs()
                .to_f64();
            assert!(
                error <= estimate.error.max(1e4 * eps * reference.to_f64().abs()),
                "{what}: off by {error:e}, claims {:e}",
                estimate.error
            );
            if estimate.converged {
                assert!(
                    error <= 1e4 * eps * reference.to_f64().abs(),
                    "{what}: converged but off by {error:e}"
                );
            }
        }
    }
}

#[test]
fn bounds_beyond_half_the_largest_number_of_opposite_signs() {
    // ∫ 2^-10 / (1 + (x/s)²) over [-L, L] = 2^-9 s atan(L/s): b − a = 3.4e308 overflows.
    let (l, s) = (decimal("1.7e308"), decimal("1e308"));
    let reference = Float::with_val(BITS, &s * Float::with_val(BITS, &l / &s).atan()) / 512;
    check(
        "0.0009765625 / (1 + (x/1e308)^2)",
        "-1.7e308",
        "1.7e308",
        &reference,
    );
    // A constant over [-1e308, 1e308]: every method used to give inf or NaN.
    let reference = Float::with_val(BITS, 2) * decimal("1e308") / 1024;
    check("0.0009765625", "-1e308", "1e308", &reference);
}

#[test]
fn bounds_near_the_largest_number_of_one_sign() {
    // a + b overflows: midpoints as a/2 + b/2. ∫ 2^-10 x/1e308 dx over [1e308, 1.7e308].
    let (a, b) = (decimal("1e308"), decimal("1.7e308"));
    let reference = (Float::with_val(BITS, b.clone().pow(2u32) - a.clone().pow(2u32)))
        / decimal("1e308")
        / 2048;
    check("0.0009765625 * (x/1e308)", "1e308", "1.7e308", &reference);
}

#[test]
fn an_integral_near_the_largest_number() {
    // 1e300 over [0, 1e6]: 1e306, where 4^j T overflows from the fifth Romberg column.
    check("1e300", "0", "1e6", &decimal("1e306"));
}

#[test]
fn subnormal_intervals() {
    // [1e-310, 2e-310] is held as subnormal doubles in every precision (a dd's or qd's lower
    // limbs cannot be finer); the reference is the integral over the bounds as held,
    // (b − a) · 1e300, exact in MPFR. Gauss–Legendre, Gauss–Kronrod and tanh-sinh scaled by
    // a rounded half-width were off by 5e-14 relative and claimed 1e-15 (f64) or 1e-31 (dd).
    let (a, b) = (1e-310f64, 2e-310f64);
    let held = Float::with_val(BITS, b) - Float::with_val(BITS, a);
    for precision in PRECISIONS {
        for method in methods() {
            if !matches!(
                method,
                Method::Romberg | Method::GaussLegendre | Method::GaussKronrod
            ) {
                // Still rounding a subnormal step: tanh-sinh's half-width (auto picks it
                // here), the trapezoid rule's and Richardson's h = (b − a)/n. Open.
                continue;
            }
            let what = format!("1 over [1e-310, 2e-310], {method:?}, {precision:?}");
            let estimate = Integral::new("1")
                .expect("parses")
                .bounds("1e-310", "2e-310")
                .method(method)
                .precision(precision)
                .threads(2)
                .compute()
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let error = Float::with_val(BITS, exact(&estimate.value) - &held)
                .abs()
                .to_f64();
            assert!(estimate.converged, "{what}: not converged");
            assert!(error <= estimate.error, "{what}: off by {error:e}");
            // Romberg used to refine to the evaluation cap (33 million points, seconds).
            assert!(
                estimate.evaluations < 5000,
                "{what}: {}",
                estimate.evaluations
            );
        }
        for method in [Method::GaussLegendre, Method::GaussKronrod, Method::Romberg] {
            let estimate = Integral::new("2^996")
                .expect("parses")
                .bounds("1e-310", "2e-310")
                .method(method)
                .precision(precision)
                .compute()
                .expect("computes");
            let reference = Float::with_val(BITS, &held * Float::with_val(BITS, 2).pow(996u32));
            let error = Float::with_val(BITS, exact(&estimate.value) - &reference)
                .abs()
                .to_f64();
            assert!(
                error <= estimate.error,
                "2^996 over [1e-310, 2e-310], {method:?}, {precision:?}: off by {error:e}, \
                 claims {:e}",
                estimate.error
            );
        }
    }
}

#[test]
fn a_genuine_overflow_is_the_overflow_error_and_quick() {
    // 1e300 over [0, 1e9] is 1e309: beyond every precision's range.
    for precision in PRECISIONS {
        for method in methods() {
            let result = Integral::new("1e300")
                .expect("parses")
                .over(0.0..1e9)
                .method(method)
                .precision(precision)
                .compute();
            match result {
                Err(Error::Overflow { evaluations, .. }) => {
                    // Romberg used to refine an infinite table to the cap of 2^25 points.
                    assert!(
                        evaluations < 100_000,
                        "{method:?} {precision:?}: {evaluations}"
                    )
                }
                other => panic!("{method:?} {precision:?}: {other:?}"),
            }
        }
    }
}
