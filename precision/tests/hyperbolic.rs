//! sinh, cosh, tanh, asinh, acosh and atanh of Dd and Qd against MPFR at 480 bits: relative
//! error on random inputs over each function's range, with the points near 0 (near 1 for
//! acosh) and the large arguments each their own assertion.

mod common;

use common::{random, rng, samples, uniform, Exact, MaxError};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rug::Float;

fn check<T: Exact>(
    name: &str,
    seed: u64,
    bound: f64,
    mut gen: impl FnMut(&mut StdRng) -> T,
    f: impl Fn(T) -> T,
    reference: impl Fn(Float) -> Float,
) {
    let mut rng = rng(seed);
    let mut err = MaxError::new(format!("{} {}", T::NAME, name));
    for _ in 0..samples() {
        let x = gen(&mut rng);
        let want = reference(x.to_mpfr());
        err.record(&f(x).to_mpfr(), &want, || format!("{x:?}"));
    }
    err.assert_below_pow2(bound);
}

macro_rules! hyperbolic_tests {
    ($t:ident, $m:ident, $bound:expr) => {
        mod $m {
            use super::*;
            type T = $t;
            const B: f64 = $bound;

            #[test]
            fn sinh_cosh_tanh() {
                check(
                    "sinh |x| in [0, 710]",
                    1,
                    B,
                    |r| uniform::<T>(r, -710.0, 710.0),
                    T::sinh,
                    |x| x.sinh(),
                );
                check(
                    "sinh |x| in 2^[-8,4)",
                    2,
                    B,
                    |r| random::<T>(r, -8..4, true),
                    T::sinh,
                    |x| x.sinh(),
                );
                check(
                    "cosh |x| in [0, 710]",
                    3,
                    B,
                    |r| uniform::<T>(r, -710.0, 710.0),
                    T::cosh,
                    |x| x.cosh(),
                );
                check(
                    "cosh |x| in 2^[-1000,4)",
                    4,
                    B,
                    |r| random::<T>(r, -1000..4, true),
                    T::cosh,
                    |x| x.cosh(),
                );
                check(
                    "tanh |x| in [0, 200]",
                    5,
                    B,
                    |r| uniform::<T>(r, -200.0, 200.0),
                    T::tanh,
                    |x| x.tanh(),
                );
                check(
                    "tanh |x| in 2^[-8,6)",
                    6,
                    B,
                    |r| random::<T>(r, -8..6, true),
                    T::tanh,
                    |x| x.tanh(),
                );
            }

            #[test]
            fn sinh_tanh_near_zero() {
                check(
                    "sinh |x| in 2^[-1000,-8)",
                    7,
                    B,
                    |r| random::<T>(r, -1000..-8, true),
                    T::sinh,
                    |x| x.sinh(),
                );
                check(
                    "tanh |x| in 2^[-1000,-8)",
                    8,
                    B,
                    |r| random::<T>(r, -1000..-8, true),
                    T::tanh,
                    |x| x.tanh(),
                );
            }

            #[test]
            fn asinh_all() {
                check(
                    "asinh |x| in 2^[-8,1000)",
                    9,
                    B,
                    |r| random::<T>(r, -8..1000, true),
                    T::asinh,
                    |x| x.asinh(),
                );
                check(
                    "asinh |x| in 2^[-1000,-8)",
                    10,
                    B,
                    |r| random::<T>(r, -1000..-8, true),
                    T::asinh,
                    |x| x.asinh(),
                );
            }

            #[test]
            fn acosh_all() {
                check(
                    "acosh x in 2^[0,1000)",
                    11,
                    B,
                    |r| random::<T>(r, 0..1000, false),
                    T::acosh,
                    |x| x.acosh(),
                );
                let kmax = if T::NAME == "dd" { 100 } else { 200 };
                check(
                    "acosh 1 + 2^[-kmax,-1)",
                    12,
                    B,
                    |r| T::ONE + random::<T>(r, -kmax..-1, false),
                    T::acosh,
                    |x| x.acosh(),
                );
            }

            #[test]
            fn atanh_all() {
                check(
                    "atanh x in (-1, 1)",
                    13,
                    B,
                    |r| uniform::<T>(r, -1.0, 1.0),
                    T::atanh,
                    |x| x.atanh(),
                );
                check(
                    "atanh |x| in 2^[-1000,-1)",
                    14,
                    B,
                    |r| random::<T>(r, -1000..-1, true),
                    T::atanh,
                    |x| x.atanh(),
                );
                let kmax = if T::NAME == "dd" { 100 } else { 200 };
                check(
                    "atanh 1 - 2^[-kmax,-1)",
                    15,
                    B,
                    |r| T::ONE - random::<T>(r, -kmax..-1, false),
                    T::atanh,
                    |x| x.atanh(),
                );
            }

            #[test]
            fn special_values() {
                let (nan, inf, zero, one) = (T::NAN, T::INFINITY, T::ZERO, T::ONE);
                for f in [T::sinh, T::cosh, T::tanh, T::asinh, T::acosh, T::atanh] {
                    assert!(f(nan).is_nan());
                }
                assert_eq!(inf.sinh(), inf);
                assert_eq!((-inf).sinh(), -inf);
                assert_eq!(T::from(711.0).sinh(), inf);
                assert_eq!(T::from(-711.0).sinh(), -inf);
                assert!(T::from(710.0).sinh().is_finite());
                assert_eq!(inf.cosh(), inf);
                assert_eq!((-inf).cosh(), inf);
                assert_eq!(T::from(-711.0).cosh(), inf);
                assert_eq!(zero.cosh(), one);
                assert_eq!(inf.tanh(), one);
                assert_eq!((-inf).tanh(), -one);
                assert_eq!(zero.tanh(), zero);
                assert_eq!(inf.asinh(), inf);
                assert_eq!((-inf).asinh(), -inf);
                assert!(T::from(1e300).asinh().is_finite());
                assert_eq!(one.acosh(), zero);
                assert!(T::from(0.5).acosh().is_nan());
                assert_eq!(inf.acosh(), inf);
                assert_eq!(one.atanh(), inf);
                assert_eq!((-one).atanh(), -inf);
                assert!(T::from(1.5).atanh().is_nan());
                assert!(inf.atanh().is_nan());
            }
        }
    };
}

hyperbolic_tests!(Dd, dd, -100.0);
hyperbolic_tests!(Qd, qd, -200.0);
