//! Generic code written against num-traits runs on Dd and Qd with their full precision.

mod common;

use common::{Exact, MaxError, PREC};
use num_traits::{Float, FloatConst, FromPrimitive, NumCast, ToPrimitive};
use precision::{Dd, Qd};
use rug::Float as Mpfr;

/// A num-traits-generic computation: the Gaussian density at x.
fn gaussian<T: Float + FloatConst>(x: T) -> T {
    let two = T::one() + T::one();
    (-(x * x) / two).exp() / (two * T::PI()).sqrt()
}

fn check_generic<T: Float + FloatConst + Exact + FromPrimitive>(bound_log2: f64) {
    let mut err = MaxError::new(format!("{} num-traits gaussian", T::NAME));
    for i in 0..200 {
        let x = i as f64 / 37.0 - 2.5;
        let got = gaussian(T::from_f64(x).unwrap_or_else(T::nan));
        let xm = Mpfr::with_val(PREC, x);
        let pi = Mpfr::with_val(PREC, rug::float::Constant::Pi);
        let want = (-(xm.clone() * &xm) / 2u32).exp() / (pi * 2u32).sqrt();
        err.record(&got.to_mpfr(), &want, || format!("x = {x}"));
    }
    err.assert_below_pow2(bound_log2);
}

#[test]
fn generic_float_code_keeps_full_precision() {
    check_generic::<Dd>(-100.0);
    check_generic::<Qd>(-200.0);
}

#[test]
fn float_constants_match_mpfr() {
    let sqrt2 = Mpfr::with_val(PREC, 2u32).sqrt();
    let mut err = MaxError::new("qd FloatConst SQRT_2");
    err.record(&Qd::SQRT_2().to_mpfr(), &sqrt2, String::new);
    err.assert_below_pow2(-206.0);
    let log2e = Mpfr::with_val(PREC, Mpfr::with_val(PREC, 2u32).ln()).recip();
    let mut err = MaxError::new("dd FloatConst LOG2_E");
    err.record(&Dd::LOG2_E().to_mpfr(), &log2e, String::new);
    err.assert_below_pow2(-102.0);
}

#[test]
fn integer_conversions_are_exact() {
    let big = i64::MAX - 12345;
    let d: Dd = NumCast::from(big).unwrap_or(Dd::NAN);
    assert_eq!(d.to_i64(), Some(big));
    let q: Qd = NumCast::from(u64::MAX).unwrap_or(Qd::NAN);
    assert_eq!(q.to_u64(), Some(u64::MAX));
    assert_eq!(Dd::from_f64(-3.75).to_i64(), Some(-3));
    assert_eq!(Dd::from_f64(1e300).to_i64(), None);
    assert_eq!(Qd::from_f64(-1.0).to_u64(), None);
}
