//! Integrals whose value is finite and representable but whose intermediate quantities are
//! not: bounds near ±1.8e308 (b − a and a + b overflow), subnormal intervals (halving an odd
//! number of subnormal units rounds), an integral near the largest number (Richardson's 4^j T
//! overflows); and integrals that honestly overflow, which must be the clear Overflow error,
//! quickly. References are closed forms in MPFR (rug) from the decimal problem.

use hpquad::methods::pbcaq::{IntervalRule, Scheme};
use hpquad::precision::Real;
use hpquad::{Error, Estimate, Integral, Method, Precision, Value};
use rug::ops::Pow;
use rug::Float;

mod mpfr_support;
use mpfr_support::BITS;

const PRECISIONS: [Precision; 3] = [Precision::F64, Precision::Dd, Precision::Qd];

/// Every one-dimensional method that takes a finite interval, the PBCAQ family with its
/// default rule (Gauss–Kronrod; [`adaptive_family`] has both).
fn methods() -> Vec<Method> {
    let family = Scheme::ALL.map(|scheme| Method::Adaptive {
        scheme,
        rule: IntervalRule::GaussKronrod,
    });
    [
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
    .into_iter()
    .chain(family)
    .collect()
}

/// The PBCAQ family with each of its rule pairs.
fn adaptive_family() -> Vec<Method> {
    Scheme::ALL
        .into_iter()
        .flat_map(|scheme| {
            [IntervalRule::GaussKronrod, IntervalRule::TrapezoidSimpson]
                .map(|rule| Method::Adaptive { scheme, rule })
        })
        .collect()
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
    check_methods(&methods(), integrand, lower, upper, reference);
}

/// `integrand` over [lower, upper] by `method` in `precision` on two threads: a label for
/// messages, the estimate, and its actual error against `reference`.
fn run(
    integrand: &str,
    lower: &str,
    upper: &str,
    method: Method,
    precision: Precision,
    reference: &Float,
) -> (String, Estimate, f64) {
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
    (what, estimate, error)
}

/// [`check`] with `methods`.
fn check_methods(methods: &[Method], integrand: &str, lower: &str, upper: &str, reference: &Float) {
    for precision in PRECISIONS {
        let eps = match precision {
            Precision::F64 => f64::EPSILON,
            Precision::Dd => 4.93e-32,
            _ => 1.22e-63,
        };
        for &method in methods {
            let (what, estimate, error) =
                run(integrand, lower, upper, method, precision, reference);
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
    // A constant over [-1e308, 1e308]: every method used to give inf or NaN; the PBCAQ
    // family NaN after 134 million evaluations, or ran into the 20 s timeout.
    let reference = Float::with_val(BITS, 2) * decimal("1e308") / 1024;
    check("0.0009765625", "-1e308", "1e308", &reference);
    check_methods(
        &adaptive_family(),
        "0.0009765625",
        "-1e308",
        "1e308",
        &reference,
    );
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

/// `integrand` (a constant) over [lower, upper] by every method in every precision, against
/// `reference`: within its error estimate, converged (close where the integral is
/// subnormal), in fewer than 100 000 evaluations.
fn check_subnormal(integrand: &str, lower: &str, upper: &str, reference: &Float) {
    for precision in PRECISIONS {
        for method in methods().into_iter().chain(adaptive_family()) {
            let (what, estimate, error) =
                run(integrand, lower, upper, method, precision, reference);
            // An integral below the smallest normal number can miss the relative tolerance: each
            // piece or level carries an error floor of a few units of 2^-1074, and the family
            // sums 64 to 8192 pieces. There it must be honest, and close.
            let magnitude = reference.to_f64().abs();
            if magnitude >= f64::MIN_POSITIVE {
                assert!(estimate.converged, "{what}: not converged");
            } else {
                // Within a millionth, or a million units of 2^-1074 for an integral of a few
                // thousand units (the family's floors: 8 units a piece).
                let close = 1e-6 * magnitude + 1e6 * f64::MIN_POSITIVE * f64::EPSILON;
                assert!(
                    estimate.error <= close,
                    "{what}: claims {:e}",
                    estimate.error
                );
            }
            assert!(
                error <= estimate.error,
                "{what}: off by {error:e}, claims {:e}",
                estimate.error
            );
            // Romberg used to refine to the evaluation cap (33 million points, seconds); a
            // step of the PBCAQ family evaluates up to 16 385 points.
            assert!(
                estimate.evaluations < 100_000,
                "{what}: {}",
                estimate.evaluations
            );
        }
    }
}

#[test]
fn subnormal_intervals() {
    // [1e-310, 2e-310] is held as subnormal doubles in every precision (a dd's or qd's lower
    // limbs cannot be finer); the reference is the integral over the bounds as held,
    // (b − a) · c, exact in MPFR. A step or half-width computed from the width rounds there:
    // Gauss–Legendre, Gauss–Kronrod and tanh-sinh scaled by b/2 − a/2 were off by 5e-14
    // relative and claimed 1e-15 (f64) or 1e-31 (dd); the trapezoid rule and Richardson,
    // with h = (b − a)/1024 of 35 bits, by 1e-11.
    let (a, b) = (1e-310f64, 2e-310f64);
    let held = Float::with_val(BITS, b) - Float::with_val(BITS, a);
    check_subnormal("1", "1e-310", "2e-310", &held);
    let scaled = Float::with_val(BITS, &held * Float::with_val(BITS, 2).pow(996u32));
    check_subnormal("2^996", "1e-310", "2e-310", &scaled);
    check_subnormal("1e300", "1e-310", "2e-310", &(held * decimal("1e300")));
    // [5e-324, 1e-320]: 2023 units of 2^-1074 wide, the integral of 1 as subnormal as its
    // bounds. h = 2023/1024 units rounded to 2, and the trapezoid rule claimed 8 units of
    // error for a value 25 units too large.
    let (a, b) = (5e-324f64, 1e-320f64);
    let held = Float::with_val(BITS, b) - Float::with_val(BITS, a);
    check_subnormal("1", "5e-324", "1e-320", &held);
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

#[test]
fn halves_that_overflow_say_so() {
    // x over [-1.7e308, 1.7e308] is 0; its halves, ±1.4e616, are beyond every precision's
    // range. The methods that integrate an interval wider than the largest number as its
    // halves (Romberg, trapezoid, Richardson, the PBCAQ family, now tanh-sinh) said "the
    // estimate is NaN (tanh-sinh: inf): the integral diverges or exceeds the largest number",
    // which is false. Now they say what happened; the others give 0 or an honest estimate.
    for precision in PRECISIONS {
        for method in methods().into_iter().chain(adaptive_family()) {
            let what = format!("x over [-1.7e308, 1.7e308], {method:?}, {precision:?}");
            let result = Integral::new("x")
                .expect("parses")
                .bounds("-1.7e308", "1.7e308")
                .method(method)
                .precision(precision)
                .threads(2)
                .compute();
            let halves = matches!(
                method,
                Method::Romberg
                    | Method::TanhSinh
                    | Method::Trapezoid { .. }
                    | Method::Richardson { .. }
                    | Method::Adaptive { .. }
            );
            match result {
                Err(Error::OverflowInHalves {
                    middle,
                    lower_half,
                    upper_half,
                    ..
                }) => {
                    assert_eq!(middle, "0", "{what}");
                    // ±inf, or NaN where a method's own arithmetic met inf - inf.
                    for half in [lower_half, upper_half] {
                        let half = half.to_lowercase();
                        assert!(
                            half.contains("inf") || half.contains("nan"),
                            "{what}: {half}"
                        );
                    }
                }
                Ok(estimate) if !halves => {
                    let off = exact(&estimate.value).abs().to_f64();
                    assert!(off <= estimate.error, "{what}: off by {off:e}");
                }
                other => panic!("{what}: {other:?}"),
            }
        }
    }
    // Halves beyond the range on one side: the integral is too, and that is the Overflow.
    for precision in PRECISIONS {
        for method in [Method::Romberg, Method::Trapezoid { intervals: 1024 }] {
            let result = Integral::new("1")
                .expect("parses")
                .bounds("-1.7e308", "1.7e308")
                .method(method)
                .precision(precision)
                .compute();
            assert!(
                matches!(result, Err(Error::Overflow { .. })),
                "{method:?} {precision:?}: {result:?}"
            );
        }
    }
}
