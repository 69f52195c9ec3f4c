//! The methods against independent references: a 100-digit literal of π and closed forms
//! evaluated in MPFR (rug), in every precision that implements `Real`.

use hpquad::cpu::CpuBackend;
use hpquad::integrand::RealFn;
use hpquad::methods::{richardson, romberg, trapezoid, Interval, Options, Outcome};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::Error;
use rug::ops::Pow;
use rug::Float;

mod mpfr_support;
use mpfr_support::{abs_error, digits, mpfr, BITS};

/// π to 100 decimals, typed in from the published digits (not computed by any code here).
const PI_100: &str = "3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679";

fn pi_ref() -> Float {
    Float::with_val(BITS, Float::parse(PI_100).expect("the literal is a number"))
}

/// (16x - 16) / (x^4 - 2x^3 + 4x - 4): its integral over [0, 1] is π.
struct PiIntegrand;
impl RealFn for PiIntegrand {
    fn eval<T: Real>(&self, x: T) -> T {
        let x2 = x * x;
        (x * 16.0 - 16.0) / (x2 * x2 - x2 * x * 2.0 + x * 4.0 - 4.0)
    }
}

struct Exp;
impl RealFn for Exp {
    fn eval<T: Real>(&self, x: T) -> T {
        x.exp()
    }
}

struct Sin;
impl RealFn for Sin {
    fn eval<T: Real>(&self, x: T) -> T {
        x.sin()
    }
}

struct Lorentz; // 1 / (1 + x^2)
impl RealFn for Lorentz {
    fn eval<T: Real>(&self, x: T) -> T {
        (x * x + 1.0).recip()
    }
}

struct Quintic;
impl RealFn for Quintic {
    fn eval<T: Real>(&self, x: T) -> T {
        x.powi(5)
    }
}

/// exp(cos x), the first integrand of parallel-trapezoid-richardson.
struct ExpCos;
impl RealFn for ExpCos {
    fn eval<T: Real>(&self, x: T) -> T {
        x.cos().exp()
    }
}

/// sqrt(exp(cos(x^(x^x)))), the second; x^(x^x) -> 0 as x -> 0.
struct Tower;
impl RealFn for Tower {
    fn eval<T: Real>(&self, x: T) -> T {
        let tower = if x == T::zero() { x } else { x.powf(x.powf(x)) };
        tower.cos().exp().sqrt()
    }
}

/// Pole at 1/2, hit by the first Romberg midpoint.
struct Pole;
impl RealFn for Pole {
    fn eval<T: Real>(&self, x: T) -> T {
        (x - 0.5).recip()
    }
}

fn cpu(threads: usize) -> CpuBackend {
    CpuBackend::new(threads).expect("a thread pool starts")
}

fn romberg_to<T: Real, F: RealFn>(f: &F, a: T, b: T, relative: f64) -> Outcome<T> {
    let options = Options {
        relative: Some(relative),
        max_levels: 20,
        ..Options::default()
    };
    romberg::romberg(f, &cpu(2), Interval::new(a, b), &options).expect("integrates")
}

/// ∫ over [0, 1] of exp(cos x) by Romberg in MPFR itself, to about 1e-60 (independent of
/// hpquad's arithmetic and code).
fn exp_cos_ref() -> Float {
    let f = |x: &Float| -> Float { Float::with_val(BITS, x.cos_ref()).exp() };
    let mut rows: Vec<Vec<Float>> = Vec::new();
    let mut t: Float = Float::with_val(
        BITS,
        f(&Float::with_val(BITS, 0)) + f(&Float::with_val(BITS, 1)),
    ) / 2;
    for level in 0..16u32 {
        if level > 0 {
            let n = 1u64 << (level - 1);
            let h = Float::with_val(BITS, 1) >> level;
            let mut s = Float::with_val(BITS, 0);
            for k in 0..n {
                s += f(&Float::with_val(BITS, &h * (2 * k + 1)));
            }
            t = t / 2 + s * h;
        }
        let mut row = vec![t.clone()];
        if let Some(above) = rows.last() {
            for j in 0..above.len() {
                let r = Float::with_val(BITS, 4).pow(j as u32 + 1);
                let num = Float::with_val(BITS, &r * &row[j]) - &above[j];
                row.push(num / (r - 1));
            }
        }
        rows.push(row);
    }
    rows.last()
        .and_then(|r| r.last())
        .cloned()
        .expect("a table")
}

/// The closed-form checks for one precision, each to `min_digits` and with an honest error.
fn closed_forms<T: Real>(min_digits: f64) {
    let relative = 10f64.powf(-min_digits - 1.0);
    let one = Float::with_val(BITS, 1);
    let cases: Vec<(&str, Outcome<T>, Float)> = vec![
        (
            "exp on [0,1]",
            romberg_to(&Exp, T::zero(), T::one(), relative),
            Float::with_val(BITS, one.exp_ref()) - 1,
        ),
        (
            "sin on [0,pi]",
            romberg_to(&Sin, T::zero(), T::pi(), relative),
            // the integral up to pi rounded to T: 1 - cos(pi_T), in MPFR
            Float::with_val(BITS, 1) - Float::with_val(BITS, mpfr(T::pi()).cos_ref()),
        ),
        (
            "1/(1+x^2) on [0,1]",
            romberg_to(&Lorentz, T::zero(), T::one(), relative),
            pi_ref() / 4,
        ),
        (
            "x^5 on [0,1]",
            romberg_to(&Quintic, T::zero(), T::one(), relative),
            Float::with_val(BITS, 1) / 6,
        ),
        (
            "exp(cos x) on [0,1]",
            romberg_to(&ExpCos, T::zero(), T::one(), relative),
            exp_cos_ref(),
        ),
    ];
    for (name, out, reference) in cases {
        let got = digits(out.value, &reference);
        assert!(
            out.converged,
            "{} {name}: not converged, error {:e}",
            T::NAME,
            out.error
        );
        assert!(
            got >= min_digits,
            "{} {name}: {got:.1} digits, wanted {min_digits}",
            T::NAME
        );
        assert!(
            abs_error(out.value, &reference) <= out.error,
            "{} {name}: the error estimate {:e} is below the true error {:e}",
            T::NAME,
            out.error,
            abs_error(out.value, &reference)
        );
    }
}

/// π by Romberg to `min_digits`, checked against the 100-digit literal.
fn pi_digits<T: Real>(min_digits: f64) -> Outcome<T> {
    let out = romberg_to(&PiIntegrand, T::zero(), T::one(), 10f64.powf(-min_digits));
    let got = digits(out.value, &pi_ref());
    assert!(
        out.converged,
        "{}: not converged, error {:e}",
        T::NAME,
        out.error
    );
    assert!(
        got >= min_digits,
        "{}: π to {got:.1} digits, wanted {min_digits}",
        T::NAME
    );
    assert!(abs_error(out.value, &pi_ref()) <= out.error);
    out
}

#[test]
fn romberg_pi_f64() {
    let out = pi_digits::<f64>(15.0);
    // Recycling: level L costs 2^L + 1 evaluations in all, not the sum of every grid.
    assert_eq!(out.evaluations, (1u64 << (out.levels - 1)) + 1);
}

#[test]
fn romberg_closed_forms_f64() {
    closed_forms::<f64>(14.0);
}

#[test]
fn romberg_pi_dd() {
    pi_digits::<Dd>(30.0);
}

#[test]
fn romberg_pi_qd() {
    let out = pi_digits::<Qd>(60.0);
    assert_eq!(out.evaluations, (1u64 << (out.levels - 1)) + 1);
}

#[test]
fn romberg_closed_forms_dd() {
    closed_forms::<Dd>(29.0);
}

#[test]
fn romberg_closed_forms_qd() {
    closed_forms::<Qd>(58.0);
}

#[test]
fn paper_integrals_dd_agree_with_f64() {
    let tower = romberg_to(&Tower, 0.0, 1.0, 1e-8);
    let options = Options {
        relative: Some(1e-12),
        max_levels: 20,
        ..Options::default()
    };
    let dd = romberg::romberg(
        &Tower,
        &cpu(2),
        Interval::new(Dd::zero(), Dd::one()),
        &options,
    )
    .expect("integrates");
    assert!((tower.value - dd.value.to_f64()).abs() <= tower.error + dd.error);
    let exp_cos = romberg_to(&ExpCos, Dd::zero(), Dd::one(), 1e-30);
    assert!(digits(exp_cos.value, &exp_cos_ref()) >= 30.0);
}

#[test]
fn romberg_table_is_the_paper_table() {
    let out = romberg_to(&PiIntegrand, 0.0, 1.0, 1e-14);
    // The paper's first rows: T[0][0] = 2, T[1][0] = 2.8285714..., T[1][1] = 3.1047619...
    assert_eq!(out.table[0][0], 2.0);
    assert!((out.table[1][0] - 2.8285714285714286).abs() < 1e-15);
    assert!((out.table[1][1] - 3.104_761_904_761_905).abs() < 1e-15);
    assert!((out.table[2][2] - 3.139_280_131_688_019).abs() < 1e-15);
    for (i, row) in out.table.iter().enumerate() {
        assert_eq!(row.len(), i + 1);
    }
}

#[test]
fn trapezoid_error_falls_as_h_squared() {
    let reference = Float::with_val(BITS, Float::with_val(BITS, 1).exp_ref()) - 1;
    let errors: Vec<f64> = [64u64, 128, 256, 512]
        .iter()
        .map(|&n| {
            let out = trapezoid::trapezoid(
                &Exp,
                &cpu(2),
                Interval::new(0.0, 1.0),
                n,
                &Options::default(),
            )
            .expect("integrates");
            assert_eq!(out.evaluations, n + 1);
            assert!(
                abs_error(out.value, &reference) <= out.error,
                "honest estimate at n = {n}"
            );
            abs_error(out.value, &reference)
        })
        .collect();
    for pair in errors.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!(
            (3.99..4.01).contains(&ratio),
            "halving h divided the error by {ratio}"
        );
    }
}

#[test]
fn trapezoid_with_odd_intervals_has_no_estimate() {
    let out = trapezoid::trapezoid(
        &Exp,
        &cpu(1),
        Interval::new(0.0, 1.0),
        7,
        &Options::default(),
    )
    .expect("integrates");
    assert!(!out.converged);
    assert_eq!(out.error, f64::INFINITY);
    assert_eq!(out.evaluations, 8);
}

#[test]
fn richardson_two_grid_is_fourth_order() {
    let reference = exp_cos_ref();
    let cpu = cpu(2);
    let mut errors = Vec::new();
    for n in [16u64, 32, 64] {
        let out = richardson::richardson(
            &ExpCos,
            &cpu,
            Interval::new(0.0, 1.0),
            n,
            2,
            &Options::default(),
        )
        .expect("integrates");
        assert_eq!(out.evaluations, 2 * n + 1, "the paper's 2N + 1 points");
        // 4/3 T(h/2) - 1/3 T(h), from the trapezoid rule directly.
        let coarse = trapezoid::trapezoid(
            &ExpCos,
            &cpu,
            Interval::new(0.0, 1.0),
            n,
            &Options::default(),
        )
        .expect("integrates")
        .value;
        let fine = trapezoid::trapezoid(
            &ExpCos,
            &cpu,
            Interval::new(0.0, 1.0),
            2 * n,
            &Options::default(),
        )
        .expect("integrates")
        .value;
        assert!((out.value - (4.0 * fine - coarse) / 3.0).abs() < 1e-15);
        assert!(abs_error(out.value, &reference) <= out.error);
        errors.push(abs_error(out.value, &reference));
    }
    for pair in errors.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!(
            (15.5..16.5).contains(&ratio),
            "halving h divided the error by {ratio}"
        );
    }
}

#[test]
fn richardson_table_matches_romberg_rows() {
    let cpu = cpu(2);
    let full = richardson::richardson(
        &PiIntegrand,
        &cpu,
        Interval::new(0.0, 1.0),
        1,
        6,
        &Options::default(),
    )
    .expect("integrates");
    let rom = romberg_to(&PiIntegrand, 0.0, 1.0, 1e-14);
    assert_eq!(full.table[..], rom.table[..6]);
    assert_eq!(full.evaluations, 33);
}

#[test]
fn paper_integrals_f64() {
    // exp(cos x): 8 digits at N = 1e5 by the trapezoid rule in the paper; Romberg does better.
    let out = romberg_to(&ExpCos, 0.0, 1.0, 1e-14);
    assert!(digits(out.value, &exp_cos_ref()) >= 14.0);
    // The tower's x ln x behaviour at 0 slows Romberg down; the estimate must stay honest.
    let tower = romberg_to(&Tower, 0.0, 1.0, 1e-8);
    assert!(tower.converged, "error {:e}", tower.error);
    let fine = romberg::romberg(
        &Tower,
        &cpu(2),
        Interval::new(0.0, 1.0),
        &Options {
            relative: Some(1e-12),
            max_levels: 24,
            ..Options::default()
        },
    )
    .expect("integrates");
    assert!((tower.value - fine.value).abs() <= tower.error + fine.error);
}

#[test]
fn subintervals_sum_to_the_integral() {
    let options = Options {
        relative: Some(1e-14),
        subintervals: 5,
        ..Options::default()
    };
    let out = romberg::romberg(&PiIntegrand, &cpu(2), Interval::new(0.0, 1.0), &options)
        .expect("integrates");
    assert!(out.converged);
    assert!(digits(out.value, &pi_ref()) >= 14.5);
    assert!(abs_error(out.value, &pi_ref()) <= out.error);
    // Every stage after the endpoints goes to the backend as one call for all regions.
    assert_eq!(out.stages[0].points, 10);
}

#[test]
fn empty_interval_is_zero() {
    let out = romberg_to(&PiIntegrand, 0.25, 0.25, 1e-10);
    assert_eq!(out.value, 0.0);
    assert_eq!(out.evaluations, 0);
    assert!(out.converged);
}

#[test]
fn reversed_interval_negates() {
    let forward = romberg_to(&Exp, 0.0, 1.0, 1e-12);
    let backward = romberg_to(&Exp, 1.0, 0.0, 1e-12);
    assert_eq!(backward.value, -forward.value);
    assert_eq!(backward.error, forward.error);
}

#[test]
fn infinite_bounds_are_refused() {
    let err = romberg::romberg(
        &Exp,
        &cpu(1),
        Interval::new(0.0, f64::INFINITY),
        &Options::default(),
    )
    .expect_err("refused");
    assert!(matches!(err, Error::InfiniteBound { which: "upper", .. }));
    assert!(err.to_string().contains("tanh-sinh"), "{err}");
    let err = trapezoid::trapezoid(
        &Exp,
        &cpu(1),
        Interval::new(f64::NEG_INFINITY, 0.0),
        4,
        &Options::default(),
    )
    .expect_err("refused");
    assert!(
        matches!(err, Error::InfiniteBound { which: "lower", .. }),
        "{err}"
    );
}

#[test]
fn nan_bound_is_refused() {
    let err = romberg::romberg(
        &Exp,
        &cpu(1),
        Interval::new(f64::NAN, 1.0),
        &Options::default(),
    )
    .expect_err("refused");
    assert!(
        matches!(err, Error::InvalidBound { which: "lower", .. }),
        "{err}"
    );
}

#[test]
fn non_finite_value_names_the_point() {
    let err = romberg::romberg(&Pole, &cpu(2), Interval::new(0.0, 1.0), &Options::default())
        .expect_err("the pole is sampled");
    match &err {
        Error::NonFinite { x, value } => {
            assert_eq!(x.parse::<f64>().ok(), Some(0.5), "{err}");
            assert!(value.contains("inf"), "{err}");
        }
        other => panic!("expected NonFinite, got {other}"),
    }
    assert!(err.to_string().contains("x = 0.5"), "{err}");
}

#[test]
fn bad_options_are_refused() {
    let run = |options: Options| {
        romberg::romberg(&Exp, &cpu(1), Interval::new(0.0, 1.0), &options).expect_err("refused")
    };
    for (options, name) in [
        (
            Options {
                relative: Some(f64::NAN),
                ..Options::default()
            },
            "tolerance",
        ),
        (
            Options {
                relative: Some(-1.0),
                ..Options::default()
            },
            "tolerance",
        ),
        (
            Options {
                absolute: -1.0,
                ..Options::default()
            },
            "abs_tolerance",
        ),
        (
            Options {
                max_levels: 41,
                ..Options::default()
            },
            "max_levels",
        ),
        (
            Options {
                subintervals: 0,
                ..Options::default()
            },
            "subintervals",
        ),
    ] {
        match run(options) {
            Error::InvalidOption { option, .. } => assert_eq!(option, name),
            other => panic!("expected InvalidOption for {name}, got {other}"),
        }
    }
    let err = trapezoid::trapezoid(
        &Exp,
        &cpu(1),
        Interval::new(0.0, 1.0),
        0,
        &Options::default(),
    )
    .expect_err("refused");
    assert!(
        matches!(
            err,
            Error::InvalidOption {
                option: "intervals",
                ..
            }
        ),
        "{err}"
    );
    let err = richardson::richardson(
        &Exp,
        &cpu(1),
        Interval::new(0.0, 1.0),
        8,
        1,
        &Options::default(),
    )
    .expect_err("refused");
    assert!(
        matches!(
            err,
            Error::InvalidOption {
                option: "grids",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn unmet_tolerance_is_reported_honestly() {
    for options in [
        Options {
            relative: Some(1e-14),
            max_levels: 5,
            ..Options::default()
        },
        Options {
            relative: Some(1e-14),
            max_evaluations: 100,
            ..Options::default()
        },
    ] {
        let out = romberg::romberg(&PiIntegrand, &cpu(2), Interval::new(0.0, 1.0), &options)
            .expect("integrates");
        assert!(!out.converged);
        assert!(out.evaluations <= 100);
        assert!(out.error > 1e-14 * std::f64::consts::PI);
        assert!(
            abs_error(out.value, &pi_ref()) <= out.error,
            "honest error {:e}",
            out.error
        );
    }
    // f64 cannot deliver 1e-20: the rounding floor keeps the estimate honest.
    let options = Options {
        relative: Some(1e-20),
        max_levels: 14,
        ..Options::default()
    };
    let out = romberg::romberg(&PiIntegrand, &cpu(2), Interval::new(0.0, 1.0), &options)
        .expect("integrates");
    assert!(!out.converged);
    assert!(abs_error(out.value, &pi_ref()) <= out.error);
}
