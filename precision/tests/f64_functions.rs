//! `Real for f64`'s inverse hyperbolic functions (precision/src/f64_functions.rs, not std's)
//! against MPFR: within 2 ulp over the whole range, including near ±1 and for huge arguments,
//! where std's lose accuracy or overflow.

mod common;

use common::{rng, samples, PREC};
use precision::Real;
use rand::Rng;
use rug::Float;

/// Units in the last place between two finite doubles.
fn ulps(x: f64, y: f64) -> u64 {
    let ordered = |v: f64| {
        let b = v.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    };
    ordered(x).abs_diff(ordered(y))
}

fn check(name: &str, f: fn(f64) -> f64, exact: fn(Float) -> Float, xs: &[f64]) {
    let mut worst = (0u64, 0.0f64);
    for &x in xs {
        let want = exact(Float::with_val(PREC, x)).to_f64();
        if !want.is_normal() {
            continue;
        }
        let got = f(x);
        let err = if got.is_finite() {
            ulps(got, want)
        } else {
            u64::MAX
        };
        if err > worst.0 {
            worst = (err, x);
        }
    }
    println!(
        "ACCURACY-F64 {name}: max {} ulp over {} inputs (at x = {:e})",
        worst.0,
        xs.len(),
        worst.1
    );
    assert!(worst.0 <= 2, "{name}: {} ulp at x = {:e}", worst.0, worst.1);
}

/// Magnitudes spread over 2^lo..2^hi, both signs when `signed`.
fn spread(seed: u64, lo: i32, hi: i32, signed: bool) -> Vec<f64> {
    let mut r = rng(seed);
    (0..samples())
        .map(|_| {
            let x = (1.0 + r.gen::<f64>()) * 2f64.powi(r.gen_range(lo..hi));
            if signed && r.gen::<bool>() {
                -x
            } else {
                x
            }
        })
        .collect()
}

/// `1 + d` (or `-1 + d`) for `d` spread over 2^-52..2^-1.
fn near(seed: u64, centre: f64, towards: f64) -> Vec<f64> {
    let mut r = rng(seed);
    (0..samples())
        .map(|_| centre + towards * (1.0 + r.gen::<f64>()) * 2f64.powi(r.gen_range(-52..-1)))
        .collect()
}

#[test]
fn asinh_is_accurate_everywhere() {
    check(
        "asinh",
        Real::asinh,
        |x| x.asinh(),
        &spread(1, -1000, 1023, true),
    );
    check(
        "asinh near 0",
        Real::asinh,
        |x| x.asinh(),
        &spread(2, -30, 2, true),
    );
}

#[test]
fn acosh_is_accurate_near_one_and_for_huge_arguments() {
    check(
        "acosh",
        Real::acosh,
        |x| x.acosh(),
        &spread(3, 0, 1023, false),
    );
    check(
        "acosh near 1",
        Real::acosh,
        |x| x.acosh(),
        &near(4, 1.0, 1.0),
    );
    assert!(<f64 as Real>::acosh(0.5).is_nan());
    assert_eq!(<f64 as Real>::acosh(f64::INFINITY), f64::INFINITY);
}

#[test]
fn atanh_is_accurate_near_both_ends() {
    check(
        "atanh",
        Real::atanh,
        |x| x.atanh(),
        &spread(5, -1000, 0, true),
    );
    check(
        "atanh near 1",
        Real::atanh,
        |x| x.atanh(),
        &near(6, 1.0, -1.0),
    );
    check(
        "atanh near -1",
        Real::atanh,
        |x| x.atanh(),
        &near(7, -1.0, 1.0),
    );
    assert_eq!(<f64 as Real>::atanh(1.0), f64::INFINITY);
    assert_eq!(<f64 as Real>::atanh(-1.0), f64::NEG_INFINITY);
    assert!(<f64 as Real>::atanh(1.5).is_nan());
    assert!(<f64 as Real>::atanh(f64::NAN).is_nan());
}
