//! exp, exp_m1, ln, ln_1p, log2, log10, powf, cbrt and hypot of Dd and Qd against MPFR at 480
//! bits: relative error on random inputs spread over each function's range, and the hard cases
//! (near 0, near 1, near overflow and underflow), each its own assertion.

mod common;

use common::{random, rng, samples, uniform, Exact, MaxError, PREC};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::Rng;
use rug::ops::Pow;
use rug::Float;

/// Records `f(x)` against `reference(x)` for `samples()` inputs from `gen`, skipping those whose
/// reference lies outside `[lo, hi]` in absolute value (results out of the documented range).
fn check1<T: Exact>(
    name: &str,
    seed: u64,
    bound: f64,
    range: (f64, f64),
    mut gen: impl FnMut(&mut StdRng) -> T,
    f: impl Fn(T) -> T,
    reference: impl Fn(Float) -> Float,
) {
    let mut rng = rng(seed);
    let mut err = MaxError::new(format!("{} {}", T::NAME, name));
    while err.count < samples() {
        let x = gen(&mut rng);
        let want = reference(x.to_mpfr());
        let w = want.to_f64().abs();
        let in_range = (range.0..=range.1).contains(&w) || (w == 0.0 && range.0 == 0.0);
        if !in_range {
            continue;
        }
        err.record(&f(x).to_mpfr(), &want, || format!("{x:?}"));
    }
    err.assert_below_pow2(bound);
}

/// As `check1` for functions of two arguments.
#[allow(clippy::too_many_arguments)]
fn check2<T: Exact>(
    name: &str,
    seed: u64,
    bound: f64,
    range: (f64, f64),
    mut gen: impl FnMut(&mut StdRng) -> (T, T),
    f: impl Fn(T, T) -> T,
    reference: impl Fn(Float, Float) -> Float,
) {
    let mut rng = rng(seed);
    let mut err = MaxError::new(format!("{} {}", T::NAME, name));
    while err.count < samples() {
        let (x, y) = gen(&mut rng);
        let want = reference(x.to_mpfr(), y.to_mpfr());
        let w = want.to_f64().abs();
        if !(w >= range.0 && w <= range.1) {
            continue;
        }
        err.record(&f(x, y).to_mpfr(), &want, || format!("{x:?}, {y:?}"));
    }
    err.assert_below_pow2(bound);
}

fn mpfr(x: f64) -> Float {
    Float::with_val(PREC, x)
}

macro_rules! exp_log_tests {
    ($t:ident, $m:ident, $bound:expr) => {
        mod $m {
            use super::*;
            type T = $t;
            const B: f64 = $bound;
            /// The smallest result that keeps full precision, and the largest.
            const MIN: f64 = T::MIN_POSITIVE.components()[0];
            const FULL: (f64, f64) = (MIN, f64::MAX);

            #[test]
            fn exp_wide() {
                let lo = MIN.ln() + 0.01;
                check1(
                    "exp [ln MIN, 709.78]",
                    1,
                    B,
                    FULL,
                    |r| uniform::<T>(r, lo, 709.78),
                    T::exp,
                    |x| x.exp(),
                );
                check1(
                    "exp |x| in 2^[-30,10)",
                    2,
                    B,
                    FULL,
                    |r| random::<T>(r, -30..10, true),
                    T::exp,
                    |x| x.exp(),
                );
            }

            #[test]
            fn exp_near_zero() {
                check1(
                    "exp |x| in 2^[-1000,-30)",
                    3,
                    B,
                    FULL,
                    |r| random::<T>(r, -1000..-30, true),
                    T::exp,
                    |x| x.exp(),
                );
            }

            #[test]
            fn exp_near_overflow() {
                check1(
                    "exp x in [700, 709.78]",
                    4,
                    B,
                    FULL,
                    |r| uniform::<T>(r, 700.0, 709.78),
                    T::exp,
                    |x| x.exp(),
                );
            }

            #[test]
            fn exp_near_underflow() {
                let lo = MIN.ln();
                check1(
                    "exp results near MIN_POSITIVE",
                    5,
                    B,
                    FULL,
                    |r| uniform::<T>(r, lo, lo + 30.0),
                    T::exp,
                    |x| x.exp(),
                );
            }

            #[test]
            fn exp_m1_wide() {
                check1(
                    "exp_m1 x in [-50, 709.78]",
                    6,
                    B,
                    FULL,
                    |r| uniform::<T>(r, -50.0, 709.78),
                    T::exp_m1,
                    |x| x.exp_m1(),
                );
                check1(
                    "exp_m1 |x| in 2^[-8,4)",
                    7,
                    B,
                    FULL,
                    |r| random::<T>(r, -8..4, true),
                    T::exp_m1,
                    |x| x.exp_m1(),
                );
            }

            #[test]
            fn exp_m1_fixed_point_range() {
                // The fixed-point path (from 2^-24 in qd, 2^-12 in dd, to ln2/2) and the series
                // below it, on both sides of 0.
                check1(
                    "exp_m1 |x| in 2^[-30,-1)",
                    21,
                    B,
                    FULL,
                    |r| random::<T>(r, -30..-1, true),
                    T::exp_m1,
                    |x| x.exp_m1(),
                );
            }

            #[test]
            fn exp_m1_near_zero() {
                check1(
                    "exp_m1 |x| in 2^[-1000,-8)",
                    8,
                    B,
                    FULL,
                    |r| random::<T>(r, -1000..-8, true),
                    T::exp_m1,
                    |x| x.exp_m1(),
                );
            }

            #[test]
            fn ln_wide() {
                check1(
                    "ln x in 2^[-960,1020)",
                    9,
                    B,
                    (0.0, f64::MAX),
                    |r| random::<T>(r, -960..1020, false),
                    T::ln,
                    |x| x.ln(),
                );
                check1(
                    "ln x in [0.5, 2]",
                    10,
                    B,
                    (0.0, f64::MAX),
                    |r| uniform::<T>(r, 0.5, 2.0),
                    T::ln,
                    |x| x.ln(),
                );
            }

            #[test]
            fn ln_huge_and_tiny() {
                check1(
                    "ln x near 1e+-300",
                    11,
                    B,
                    (0.0, f64::MAX),
                    |r| {
                        let e = if r.gen::<bool>() {
                            990..1000
                        } else {
                            -1000..-990
                        };
                        random::<T>(r, e, false)
                    },
                    T::ln,
                    |x| x.ln(),
                );
            }

            #[test]
            fn ln_near_one() {
                // 1 ± 2^-k exactly, k = 1..=PRECISION-ish, plus random points 1 + tiny.
                let mut err = MaxError::new(format!("{} ln 1 +- 2^-k", T::NAME));
                let kmax = if T::NAME == "dd" { 100 } else { 200 };
                for k in 1..=kmax {
                    for s in [1.0, -1.0] {
                        let x = T::ONE + s * 2f64.powi(-k);
                        let want = x.to_mpfr().ln();
                        err.record(&x.ln().to_mpfr(), &want, || format!("{x:?}"));
                    }
                }
                err.assert_below_pow2(B);
                check1(
                    "ln 1 + x, |x| in 2^[-kmax,-1)",
                    12,
                    B,
                    (0.0, f64::MAX),
                    |r| T::ONE + random::<T>(r, -kmax..-1, true),
                    T::ln,
                    |x| x.ln(),
                );
            }

            #[test]
            fn ln_1p_all() {
                check1(
                    "ln_1p |x| in 2^[-1000,-1)",
                    13,
                    B,
                    (0.0, f64::MAX),
                    |r| random::<T>(r, -1000..-1, true),
                    T::ln_1p,
                    |x| x.ln_1p(),
                );
                check1(
                    "ln_1p x in [-1, 2^20)",
                    14,
                    B,
                    (0.0, f64::MAX),
                    |r| {
                        if r.gen::<bool>() {
                            uniform::<T>(r, -1.0, 1.0)
                        } else {
                            random::<T>(r, -1..20, false)
                        }
                    },
                    T::ln_1p,
                    |x| x.ln_1p(),
                );
            }

            #[test]
            fn log2_and_log10() {
                check1(
                    "log2 x in 2^[-960,1020)",
                    15,
                    B,
                    (0.0, f64::MAX),
                    |r| random::<T>(r, -960..1020, false),
                    T::log2,
                    |x| x.log2(),
                );
                check1(
                    "log2 x in [0.5, 2]",
                    16,
                    B,
                    (0.0, f64::MAX),
                    |r| uniform::<T>(r, 0.5, 2.0),
                    T::log2,
                    |x| x.log2(),
                );
                check1(
                    "log10 x in 2^[-960,1020)",
                    17,
                    B,
                    (0.0, f64::MAX),
                    |r| random::<T>(r, -960..1020, false),
                    T::log10,
                    |x| x.log10(),
                );
                check1(
                    "log10 x in [0.5, 2]",
                    18,
                    B,
                    (0.0, f64::MAX),
                    |r| uniform::<T>(r, 0.5, 2.0),
                    T::log10,
                    |x| x.log10(),
                );
                for k in -1000..1000 {
                    assert_eq!(T::ONE.ldexp(k).log2(), T::from(k as f64), "log2 2^{k}");
                }
            }

            #[test]
            fn powf_wide() {
                check2(
                    "powf x in (0,1e10], |y|<=50",
                    19,
                    B,
                    FULL,
                    |r| {
                        let x = if r.gen::<bool>() {
                            uniform::<T>(r, 0.0, 1e10)
                        } else {
                            random::<T>(r, -120..33, false)
                        };
                        let x = if x.to_mpfr() > 1e10 { T::from(1e10) } else { x };
                        (x, uniform::<T>(r, -50.0, 50.0))
                    },
                    T::powf,
                    |x, y| x.pow(&y),
                );
                check2(
                    "powf x in [0.5,2], |y|<=50",
                    20,
                    B,
                    FULL,
                    |r| (uniform::<T>(r, 0.5, 2.0), uniform::<T>(r, -50.0, 50.0)),
                    T::powf,
                    |x, y| x.pow(&y),
                );
            }

            #[test]
            fn powf_large_exponent() {
                // |y ln x| up to 700 (results from 2^-1010 to 2^1010): x over 2^[-1000,1000)
                // with y = t / ln x, |t| <= 700, x near 1 with |y| up to 2^50 and 2^310 (in dd
                // the two-limb logarithm for |y| < 128, the four-limb one below 2^128, ln x as
                // d - d^2/2 beyond), and subnormal x.
                check2(
                    "powf |y ln x|<=700, x in 2^[-1000,1000)",
                    22,
                    B,
                    FULL,
                    |r| {
                        let x = random::<T>(r, -1000..1000, false);
                        let t = uniform::<T>(r, -700.0, 700.0);
                        (x, t / x.ln())
                    },
                    T::powf,
                    |x, y| x.pow(&y),
                );
                check2(
                    "powf |y ln x|<=700, x = 1 +- 2^[-40,-1)",
                    23,
                    B,
                    FULL,
                    |r| {
                        let x = T::ONE + random::<T>(r, -40..-1, true);
                        let t = uniform::<T>(r, -700.0, 700.0);
                        (x, t / x.ln())
                    },
                    T::powf,
                    |x, y| x.pow(&y),
                );
                check2(
                    "powf |y ln x|<=700, x = 1 +- 2^[-300,-54)",
                    24,
                    B,
                    FULL,
                    |r| {
                        let x = T::ONE + random::<T>(r, -300..-54, true);
                        let t = uniform::<T>(r, -700.0, 700.0);
                        (x, t / x.ln())
                    },
                    T::powf,
                    |x, y| x.pow(&y),
                );
                check2(
                    "powf |y ln x|<=700, x subnormal",
                    25,
                    B,
                    FULL,
                    |r| {
                        let x = random::<T>(r, -1074..-1022, false);
                        let t = uniform::<T>(r, -700.0, 700.0);
                        (x, t / x.ln())
                    },
                    T::powf,
                    |x, y| x.pow(&y),
                );
            }

            #[test]
            fn ln_and_powf_within_2_60_to_2_8_of_one() {
                // x = 1 + d with |d| in 2^[-60,-8): the series of ln(1 + d) below 2^-24 (qd) and
                // 2^-12 (dd), the fixed point above, both sides of each bound; powf with y in
                // [0.5, 2] (x^x near x = 1) and with |y ln x| up to 700.
                let near = |r: &mut StdRng| random::<T>(r, -60..-8, true);
                check1(
                    "ln 1 + d, |d| in 2^[-60,-8)",
                    40,
                    B,
                    FULL,
                    |r| T::ONE + near(r),
                    T::ln,
                    |x| x.ln(),
                );
                check1(
                    "ln_1p d, |d| in 2^[-60,-8)",
                    41,
                    B,
                    FULL,
                    near,
                    T::ln_1p,
                    |x| x.ln_1p(),
                );
                check1(
                    "log2 1 + d, |d| in 2^[-60,-8)",
                    42,
                    B,
                    FULL,
                    |r| T::ONE + near(r),
                    T::log2,
                    |x| x.log2(),
                );
                check2(
                    "powf x = 1 + d, y in [0.5,2]",
                    43,
                    B,
                    FULL,
                    |r| (T::ONE + near(r), uniform::<T>(r, 0.5, 2.0)),
                    T::powf,
                    |x, y| x.pow(&y),
                );
                check2(
                    "powf x = 1 + d, |y ln x|<=700",
                    44,
                    B,
                    FULL,
                    |r| {
                        let x = T::ONE + near(r);
                        let t = uniform::<T>(r, -700.0, 700.0);
                        (x, t / x.ln())
                    },
                    T::powf,
                    |x, y| x.pow(&y),
                );
            }

            #[test]
            fn cbrt_all_exponents() {
                check1(
                    "cbrt x in 2^[-1070,1024)",
                    21,
                    B,
                    (0.0, f64::MAX),
                    |r| random::<T>(r, -1070..1024, true),
                    T::cbrt,
                    |x| x.cbrt(),
                );
                let mut err = MaxError::new(format!("{} cbrt k^3, k = 1..=1000", T::NAME));
                for k in 1..=1000 {
                    let c = T::from(k as f64);
                    err.record(&(c * c * c).cbrt().to_mpfr(), &c.to_mpfr(), || {
                        format!("{k}")
                    });
                }
                err.assert_below_pow2(B);
            }

            #[test]
            fn hypot_ranges() {
                check2(
                    "hypot exponents in [-1000,1000)",
                    22,
                    B,
                    FULL,
                    |r| {
                        (
                            random::<T>(r, -1000..1000, true),
                            random::<T>(r, -1000..1000, true),
                        )
                    },
                    T::hypot,
                    |x, y| x.hypot(&y),
                );
                check2(
                    "hypot exponents within 60",
                    23,
                    B,
                    FULL,
                    |r| {
                        let e: i32 = r.gen_range(-900..900);
                        (
                            random::<T>(r, e..e + 60, true),
                            random::<T>(r, e..e + 60, true),
                        )
                    },
                    T::hypot,
                    |x, y| x.hypot(&y),
                );
                check2(
                    "hypot near overflow",
                    24,
                    B,
                    FULL,
                    |r| {
                        (
                            random::<T>(r, 1015..1023, true),
                            random::<T>(r, 1000..1023, true),
                        )
                    },
                    T::hypot,
                    |x, y| x.hypot(&y),
                );
            }

            #[test]
            fn special_values() {
                let (nan, inf, zero, one) = (T::NAN, T::INFINITY, T::ZERO, T::ONE);
                for f in [
                    T::exp,
                    T::exp_m1,
                    T::ln,
                    T::ln_1p,
                    T::log2,
                    T::log10,
                    T::cbrt,
                ] {
                    assert!(f(nan).is_nan());
                }
                assert_eq!(inf.exp(), inf);
                assert_eq!((-inf).exp(), zero);
                assert_eq!(T::from(710.0).exp(), inf);
                assert_eq!(T::from(1e300).exp(), inf);
                assert_eq!(T::from(-746.0).exp(), zero);
                assert_eq!(zero.exp(), one);
                assert_eq!(inf.exp_m1(), inf);
                assert_eq!((-inf).exp_m1(), -one);
                assert_eq!(T::from(1e300).exp_m1(), inf);
                assert_eq!(zero.ln(), -inf);
                assert_eq!((-zero).ln(), -inf);
                assert!(T::from(-1.0).ln().is_nan());
                assert!((-inf).ln().is_nan());
                assert_eq!(inf.ln(), inf);
                assert_eq!(one.ln(), zero);
                assert_eq!(T::from(-1.0).ln_1p(), -inf);
                assert!(T::from(-2.0).ln_1p().is_nan());
                assert_eq!(inf.ln_1p(), inf);
                assert_eq!(zero.log2(), -inf);
                assert_eq!(zero.log10(), -inf);
                assert!(T::from(-1.0).log10().is_nan());
                assert_eq!(inf.cbrt(), inf);
                assert_eq!((-inf).cbrt(), -inf);
                assert!((T::from(-8.0).cbrt() + 2.0).abs() < T::EPSILON * 4.0);
                assert_eq!(zero.cbrt(), zero);
                // powf follows f64::powf.
                assert_eq!(nan.powf(zero), one);
                assert_eq!(one.powf(nan), one);
                assert!(nan.powf(one).is_nan());
                assert!(T::from(2.0).powf(nan).is_nan());
                assert!(T::from(-2.0).powf(T::from(0.5)).is_nan());
                assert!((T::from(-2.0).powf(T::from(3.0)) + 8.0).abs() < T::EPSILON * 32.0);
                assert!((T::from(-2.0).powf(T::from(2.0)) - 4.0).abs() < T::EPSILON * 16.0);
                assert_eq!(zero.powf(T::from(2.0)), zero);
                assert_eq!(zero.powf(T::from(-2.0)), inf);
                assert_eq!(T::from(-0.0).powf(T::from(-3.0)), -inf);
                assert_eq!(inf.powf(T::from(-1.0)), zero);
                assert_eq!(inf.powf(T::from(0.5)), inf);
                assert_eq!(T::from(0.5).powf(inf), zero);
                assert_eq!(T::from(0.5).powf(-inf), inf);
                assert_eq!(T::from(2.0).powf(inf), inf);
                assert_eq!(T::from(-1.0).powf(inf), one);
                assert_eq!(T::from(10.0).powf(T::from(400.0)), inf);
                assert_eq!(T::from(10.0).powf(T::from(-400.0)), zero);
                assert_eq!(T::from(1e300).powf(T::from(1e300)), inf);
                assert!((T::from(2.0).powf(T::from(10.0)) - 1024.0).abs() < T::EPSILON * 4096.0);
                // hypot follows f64::hypot.
                assert_eq!(inf.hypot(nan), inf);
                assert_eq!(nan.hypot(-inf), inf);
                assert!(nan.hypot(one).is_nan());
                assert_eq!(zero.hypot(zero), zero);
                assert!((T::from(3.0).hypot(T::from(-4.0)) - 5.0).abs() < T::EPSILON * 8.0);
                assert_eq!(T::from(f64::MAX).hypot(T::from(f64::MAX)), inf);
                let big = T::from(1e308);
                assert!(big.hypot(big).is_finite());
                assert_eq!(T::from(-5e-324).hypot(zero), T::from(5e-324));
                let _ = mpfr(0.0);
            }
        }
    };
}

exp_log_tests!(Dd, dd, -100.0);
exp_log_tests!(Qd, qd, -200.0);
