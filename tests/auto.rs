//! The automatic method's choice on the kinds of integral it tells apart, and the answer it
//! then gives, against closed forms evaluated in MPFR (rug), in f64, dd and qd.

use hpquad::{Estimate, Integral, Method, Precision, Value};
use rug::float::Constant;
use rug::ops::Pow;
use rug::Float;

mod mpfr_support;
use mpfr_support::{mpfr, BITS};

fn float(x: f64) -> Float {
    Float::with_val(BITS, x)
}

/// The estimate's exact value in MPFR.
fn exact(value: &Value) -> Float {
    match *value {
        Value::F64(x) => mpfr(x),
        Value::Dd(x) => mpfr(x),
        Value::Qd(x) => mpfr(x),
    }
}

/// Significant digits each precision must reach (the default tolerance is 1000 ulp).
fn wanted(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => 12.5,
        Precision::Dd => 28.5,
        Precision::Qd => 59.5,
    }
}

/// Integrates `source` over [from, to] with the default method and checks the method chosen,
/// convergence, the digits against `reference` and that the error estimate covers the error.
fn check(source: &str, from: &str, to: &str, reference: &Float, method: Method) {
    for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
        let estimate = answer(source, from, to, reference, precision);
        assert_eq!(
            estimate.method, method,
            "{source} on [{from}, {to}] in {precision:?}: {:?}",
            estimate.reason
        );
    }
}

/// Integrates `source` over [from, to] in `precision` with the default method and checks
/// convergence, the digits against `reference` and that the error estimate covers the error.
fn answer(source: &str, from: &str, to: &str, reference: &Float, precision: Precision) -> Estimate {
    let estimate: Estimate = Integral::new(source)
        .expect("the expression parses")
        .bounds(from, to)
        .precision(precision)
        .compute()
        .expect("the integral runs");
    let what = format!("{source} on [{from}, {to}] in {precision:?}");
    assert!(estimate.reason.is_some(), "{what}: auto gives its reason");
    assert!(estimate.converged, "{what}: not converged: {estimate:?}");
    let error = Float::with_val(BITS, exact(&estimate.value) - reference)
        .abs()
        .to_f64();
    let digits = -(error / reference.to_f64().abs()).log10();
    assert!(
        digits >= wanted(precision),
        "{what}: {digits:.1} digits, error {error:.1e}"
    );
    assert!(
        error <= estimate.error,
        "{what}: error {error:.1e} above its estimate {:.1e}",
        estimate.error
    );
    estimate
}

#[test]
fn analytic_integrands_get_gauss_legendre() {
    // ∫₀⁷ e^(2x) sin 3x dx = [e^(2x) (2 sin 3x − 3 cos 3x) / 13]₀⁷.
    let seven = float(7.0);
    let at_seven = Float::with_val(BITS, &seven * 2u32).exp()
        * (Float::with_val(BITS, &seven * 3u32).sin() * 2u32
            - Float::with_val(BITS, &seven * 3u32).cos() * 3u32);
    let reference = (at_seven + 3u32) / 13u32;
    check(
        "exp(2*x)*sin(3*x)",
        "0",
        "7",
        &reference,
        Method::GaussLegendre,
    );

    // ∫₀¹ 4/(1+x²) dx = π.
    let pi = Float::with_val(BITS, Constant::Pi);
    check("4/(1+x^2)", "0", "1", &pi, Method::GaussLegendre);
}

#[test]
fn kinks_inside_get_gauss_kronrod() {
    // ∫₀¹ |x − 1/4| dx = (1/4)²/2 + (3/4)²/2 = 5/16 (1/4 exact in every precision).
    check(
        "abs(x-0.25)",
        "0",
        "1",
        &float(0.3125),
        Method::GaussKronrod,
    );
    // ∫₀² max(x, 1) dx = 1 + 3/2.
    check("max(x, 1)", "0", "2", &float(2.5), Method::GaussKronrod);
}

#[test]
fn endpoint_singularities_get_tanh_sinh() {
    // ∫₀¹ √x dx = 2/3; ∫₀¹ x ln x dx = −1/4.
    check("sqrt(x)", "0", "1", &(float(2.0) / 3u32), Method::TanhSinh);
    check("x*ln(x)", "0", "1", &float(-0.25), Method::TanhSinh);
    // ∫₀¹ (1 − x)^(3/2) dx = 2/5: singular at the upper end.
    check(
        "(1-x)^1.5",
        "0",
        "1",
        &(float(2.0) / 5u32),
        Method::TanhSinh,
    );
}

#[test]
fn infinite_ranges_get_tanh_sinh() {
    // ∫ e^(−x²) over ℝ = √π; ∫₀^∞ dx / (1 + x²) = π/2, a tail too slow to cut.
    let pi = Float::with_val(BITS, Constant::Pi);
    let root_pi = Float::with_val(BITS, &pi).pow(0.5f64);
    check("exp(-x^2)", "-inf", "inf", &root_pi, Method::TanhSinh);
    check("1/(1+x^2)", "0", "inf", &(pi / 2u32), Method::TanhSinh);
}

#[test]
fn fast_decaying_half_infinite_ranges_are_cut_in_dd_and_qd() {
    // ∫₀^∞ sin(x)/x e^(−x) dx = atan(1) = π/4; ∫₀^∞ x⁵ e^(−x) dx = 5! = 120;
    // ∫_(−∞)^0 e^x dx = 1 (the cut mirrored); ∫₀^∞ x^(−1/2) e^(−x) dx = Γ(1/2) = √π, singular
    // at 0, so its finite part goes to tanh-sinh.
    let pi = Float::with_val(BITS, Constant::Pi);
    let root_pi = Float::with_val(BITS, &pi).pow(0.5f64);
    let cases = [
        ("sin(x)/x*exp(-x)", "0", "inf", pi / 4u32),
        ("x^5*exp(-x)", "0", "inf", float(120.0)),
        ("exp(x)", "-inf", "0", float(1.0)),
        ("x^(-0.5)*exp(-x)", "0", "inf", root_pi),
    ];
    for (source, from, to, reference) in &cases {
        let whole = answer(source, from, to, reference, Precision::F64);
        assert_eq!(whole.method, Method::TanhSinh, "{source} in f64");
        let reason = whole.reason.unwrap_or_default();
        assert!(
            reason.contains("exp-sinh variant)"),
            "{source} in f64: {reason}"
        );
        for precision in [Precision::Dd, Precision::Qd] {
            let cut = answer(source, from, to, reference, precision);
            let reason = cut.reason.unwrap_or_default();
            assert!(
                reason.contains("the tail by tanh-sinh's exp-sinh variant"),
                "{source} in {precision:?}: {reason}"
            );
        }
    }
    // The oscillating tail is what the cut is for: in qd, a fraction of exp-sinh's evaluations.
    let cut = answer(
        "sin(x)/x*exp(-x)",
        "0",
        "inf",
        &(Float::with_val(BITS, Constant::Pi) / 4u32),
        Precision::Qd,
    );
    let whole: Estimate = Integral::new("sin(x)/x*exp(-x)")
        .expect("the expression parses")
        .bounds("0", "inf")
        .precision(Precision::Qd)
        .method(Method::TanhSinh)
        .compute()
        .expect("the integral runs");
    assert!(
        3 * cut.evaluations < whole.evaluations,
        "cut {} against exp-sinh's {} evaluations",
        cut.evaluations,
        whole.evaluations
    );
}

/// Polynomials get the two Gauss–Legendre rules that integrate them exactly, no probe: 2n + 1
/// evaluations with n = ⌈(degree + 1)/2⌉, honest where an expanded polynomial cancels at its
/// nodes, reversed and held-constant forms included.
#[test]
fn polynomials_get_exact_gauss_legendre_rules() {
    // ∫₀¹ x⁸ + x⁴ + x³ + x + 1 dx = 1/9 + 1/5 + 1/4 + 1/2 + 1 = 371/180: degree 8, 5 and 6 points.
    let reference = Float::with_val(BITS, 371u32) / 180u32;
    check(
        "x^8 + x^4 + x^3 + x + 1",
        "0",
        "1",
        &reference,
        Method::GaussLegendre,
    );
    for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
        let estimate = answer("x^8 + x^4 + x^3 + x + 1", "0", "1", &reference, precision);
        assert_eq!(estimate.evaluations, 11, "{precision:?}");
        assert!(estimate
            .reason
            .unwrap()
            .contains("polynomial of degree at most 8"));
        // Reversed: the negated value, as exact.
        answer(
            "x^8 + x^4 + x^3 + x + 1",
            "1",
            "0",
            &(-reference.clone()),
            precision,
        );
        // e and π are constants: e·x² − π has degree 2 (2 and 3 points). ∫₀² = 8e/3 − 2π.
        let e = Float::with_val(BITS, 1u32).exp();
        let pi = Float::with_val(BITS, Constant::Pi);
        let held = e * 8u32 / 3u32 - pi * 2u32;
        assert_eq!(
            answer("exp(1)*x^2 - pi", "0", "2", &held, precision).evaluations,
            5
        );
    }
    // (x − 1)⁶ expanded, on [0.5, 1.5]: near x = 1 the terms (up to 20) cancel to 1e-6 and
    // below, so each value carries rounding far above ε |f|; ∫ = 2 (1/2)⁷ / 7 = 1/448. The
    // estimate must cover the actual error (whether or not it meets the tolerance).
    let expanded = "x^6 - 6*x^5 + 15*x^4 - 20*x^3 + 15*x^2 - 6*x + 1";
    let reference = Float::with_val(BITS, 1u32) / 448u32;
    for precision in [Precision::F64, Precision::Dd, Precision::Qd] {
        let estimate = Integral::new(expanded)
            .expect("parses")
            .bounds("0.5", "1.5")
            .precision(precision)
            .compute()
            .expect("runs");
        let error = Float::with_val(BITS, exact(&estimate.value) - &reference)
            .abs()
            .to_f64();
        assert_eq!(estimate.evaluations, 9, "{precision:?}");
        assert!(
            error <= estimate.error,
            "{precision:?}: error {error:.1e} above its estimate {:.1e}",
            estimate.error
        );
    }
}
