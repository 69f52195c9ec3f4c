//! The builder: expressions and Rust functions, bounds as numbers or text, precisions chosen at
//! run time, and its errors.

use hpquad::expr::Expr;
use hpquad::precision::Real;
use hpquad::{Error, Integral, Method, Precision, Value};
use rug::Float;

const PI_100: &str = "3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679";
const PI_EXPR: &str = "(16*x-16)/(x^4-2*x^3+4*x-4)";

/// Correct significant digits of a value against a decimal reference, in MPFR.
fn digits(value: &Value, reference: &str) -> f64 {
    let limbs = match *value {
        Value::F64(x) => x.limbs(),
        Value::Dd(x) => x.limbs(),
        Value::Qd(x) => x.limbs(),
    };
    let mut sum = Float::with_val(1000, 0);
    for limb in limbs {
        sum += limb;
    }
    let reference = Float::with_val(1000, Float::parse(reference).expect("a number"));
    let err = (sum - &reference).abs() / reference.abs();
    if err.is_zero() {
        f64::INFINITY
    } else {
        -err.log10().to_f64()
    }
}

#[test]
fn pi_from_the_expression_in_every_precision() {
    for (precision, tolerance, min_digits) in [
        (Precision::F64, 1e-15, 15.0),
        (Precision::Dd, 1e-30, 30.0),
        (Precision::Qd, 1e-60, 60.0),
    ] {
        let est = Integral::new(PI_EXPR)
            .expect("parses")
            .over(0.0..1.0)
            .method(Method::Romberg)
            .precision(precision)
            .tolerance(tolerance)
            .threads(2)
            .compute()
            .expect("integrates");
        let got = digits(&est.value, PI_100);
        assert!(est.converged, "{precision}: {est}");
        assert_eq!(est.value.precision(), precision);
        assert!(got >= min_digits, "{precision}: {got:.1} digits: {est}");
        assert_eq!(est.levels as usize, est.table.len());
        assert_eq!(est.stages.len(), est.levels as usize);
        assert_eq!(
            est.stages.iter().map(|s| s.points).sum::<u64>(),
            est.evaluations
        );
        assert!(est.stages.iter().all(|s| &*s.device == "cpu (2 threads)"));
        println!(
            "{precision}: {got:.1} digits, {} evaluations, {:?}",
            est.evaluations, est.elapsed
        );
    }
}

#[test]
fn bounds_as_text_are_exact_in_the_working_precision() {
    // ∫ cos over [0, pi/2] is 1; pi/2 read in qd, not as a double.
    let est = Integral::new("cos(x)")
        .expect("parses")
        .bounds("0", "pi/2")
        .precision(Precision::Qd)
        .tolerance(1e-55)
        .compute()
        .expect("integrates");
    assert!(est.converged, "{est}");
    assert!(digits(&est.value, "1") >= 55.0, "{est}");
    // ∫ 1 over [0, 0.1] is 0.1 to every digit of dd.
    let est = Integral::new("1")
        .expect("parses")
        .bounds("0", "0.1")
        .precision(Precision::Dd)
        .compute()
        .expect("integrates");
    assert!(digits(&est.value, "0.1") >= 31.0, "{est}");
}

#[test]
fn value_prints_its_digits() {
    let est = Integral::new(PI_EXPR)
        .expect("parses")
        .over(0.0..1.0)
        .precision(Precision::Qd)
        .tolerance(1e-60)
        .compute()
        .expect("integrates");
    assert_eq!(est.value.to_string_digits(20), "3.1415926535897932385e0");
    assert!((est.value.to_f64() - std::f64::consts::PI).abs() < 1e-15);
    assert!(est.to_string().contains("converged"));
}

#[test]
fn rust_functions_in_every_precision() {
    struct Gauss;
    impl hpquad::integrand::RealFn for Gauss {
        fn eval<T: Real>(&self, x: T) -> T {
            (-(x * x)).exp()
        }
    }
    let f64_est = Integral::from_fn(Gauss)
        .over(0.0..1.0)
        .compute()
        .expect("integrates");
    let dd_est = Integral::from_fn(Gauss)
        .over(0.0..1.0)
        .precision(Precision::Dd)
        .compute()
        .expect("integrates");
    // sqrt(pi)/2 erf(1)
    let erf1 = "0.7468241328124270253994674361318530053544996868126063290276544989586053275617728";
    assert!(digits(&f64_est.value, erf1) >= 14.0, "{f64_est}");
    assert!(digits(&dd_est.value, erf1) >= 28.0, "{dd_est}");
}

#[test]
fn reversed_and_empty_intervals() {
    let forward = Integral::new("exp(x)")
        .expect("parses")
        .over(0.0..2.0)
        .compute()
        .expect("ok");
    let backward = Integral::new("exp(x)")
        .expect("parses")
        .over(2.0..0.0)
        .compute()
        .expect("ok");
    assert_eq!(backward.value.to_f64(), -forward.value.to_f64());
    let empty = Integral::new("exp(x)")
        .expect("parses")
        .over(1.0..1.0)
        .compute()
        .expect("ok");
    assert_eq!(empty.value.to_f64(), 0.0);
    assert_eq!(empty.evaluations, 0);
}

#[test]
fn errors_say_what_and_where() {
    let err = Integral::new("sine(x)").expect_err("does not parse");
    assert!(matches!(err, Error::Expression(_)));
    assert!(err.to_string().contains("did you mean 'sin'"), "{err}");

    let err = Integral::new("x")
        .expect("parses")
        .compute()
        .expect_err("no bounds");
    assert!(
        matches!(
            err,
            Error::InvalidOption {
                option: "bounds",
                ..
            }
        ),
        "{err}"
    );

    let err = Integral::new("x")
        .expect("parses")
        .bounds("0", "pi/")
        .compute()
        .expect_err("bad bound");
    assert!(
        matches!(err, Error::InvalidBound { which: "upper", .. }),
        "{err}"
    );

    let err = Integral::new("x")
        .expect("parses")
        .over(0.0..f64::INFINITY)
        .method(Method::Romberg)
        .compute()
        .expect_err("infinite");
    assert!(
        err.to_string()
            .contains("tanh-sinh, Gauss-Kronrod, Gauss-Legendre and auto integrate"),
        "{err}"
    );
    // The automatic method takes the infinite range, and says that ∫₀^∞ x dx did not converge.
    let divergent = Integral::new("x")
        .expect("parses")
        .over(0.0..f64::INFINITY)
        .compute()
        .expect("runs");
    assert!(!divergent.converged, "{divergent}");

    // An estimate that overflows is an error, never an infinite "value" (found by the
    // fuzzer): a divergent integral whose sum passes 1.8e308, and a finite one beyond it.
    for (source, from, to, method) in [
        ("x^2", "8", "inf", Method::TanhSinh),
        ("x", "408^104", "1", Method::Auto),
    ] {
        for precision in [Precision::F64, Precision::Qd] {
            let err = Integral::new(source)
                .expect("parses")
                .bounds(from, to)
                .method(method)
                .precision(precision)
                .compute()
                .expect_err("overflows");
            assert!(matches!(err, Error::Overflow { .. }), "{source}: {err}");
            assert!(err.to_string().contains("diverges"), "{err}");
        }
    }

    let err = Integral::new("1/x")
        .expect("parses")
        .over(0.0..1.0)
        .precision(Precision::Qd)
        .method(Method::Romberg)
        .compute()
        .expect_err("pole at 0");
    assert!(matches!(err, Error::NonFinite { .. }), "{err}");
    assert!(err.to_string().contains("x = 0"), "{err}");

    let err = Integral::new("x")
        .expect("parses")
        .over(0.0..1.0)
        .method(Method::Trapezoid { intervals: 8 })
        .subintervals(4)
        .compute()
        .expect_err("subintervals are Romberg's");
    assert!(
        matches!(
            err,
            Error::InvalidOption {
                option: "subintervals",
                ..
            }
        ),
        "{err}"
    );

    let err = Integral::new("x")
        .expect("parses")
        .over(0.0..1.0)
        .threads(5000)
        .compute();
    assert!(matches!(
        err,
        Err(Error::InvalidOption {
            option: "threads",
            ..
        })
    ));

    let err = Integral::new("x")
        .expect("parses")
        .over(0.0..1.0)
        .tolerance(f64::NAN)
        .compute();
    assert!(matches!(
        err,
        Err(Error::InvalidOption {
            option: "tolerance",
            ..
        })
    ));

    // A function of two variables over an interval: it needs a box.
    let two_d = Expr::parse("x*y", 2).expect("parses");
    let err = Integral::from_integrand(two_d).over(0.0..1.0).compute();
    assert!(
        matches!(
            &err,
            Err(Error::InvalidOption {
                option: "box",
                reason,
            }) if reason.contains("2 variables") && reason.contains("over_box")
        ),
        "{err:?}"
    );
}

#[test]
fn unmet_tolerance_is_not_an_error() {
    let est = Integral::new(PI_EXPR)
        .expect("parses")
        .over(0.0..1.0)
        .precision(Precision::Dd)
        .method(Method::Romberg)
        .tolerance(1e-30)
        .max_levels(6)
        .compute()
        .expect("integrates");
    assert!(!est.converged);
    assert!(est.error > 1e-30);
    assert!(est.to_string().contains("NOT converged"));
}
