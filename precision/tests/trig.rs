//! sin, cos, tan, sin_cos, asin, acos, atan and atan2 of `Dd` and `Qd` against MPFR: random
//! arguments over wide ranges, and the hard cases (near multiples of π/2, tiny and large
//! arguments, inverse functions near ±1 and 0, atan2 in every quadrant, special values).

mod common;

use common::{random, rng, samples, uniform, Exact, MaxError, PREC};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::Rng;
use rug::float::Constant;
use rug::Float;

/// The functions under test, for both types.
trait Trig: Exact {
    const BOUND: f64;
    /// How close to a multiple of π/2 `huge_near_multiple` puts x: 2^-e for e up to this
    /// (for dd the one lower component, rounded, leaves about 2^-54 of π/2 anyway).
    const NEAREST: i32;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn sin_cos(self) -> (Self, Self);
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn hi(self) -> f64;
    fn lead(x: f64) -> Self;
    /// The value exactly, however far apart its components lie.
    fn exact(self) -> Float;
}

macro_rules! impl_trig {
    ($t:ident, $bound:expr, $nearest:expr, $hi:expr, $parts:expr) => {
        impl Trig for $t {
            const BOUND: f64 = $bound;
            const NEAREST: i32 = $nearest;
            fn sin(self) -> $t {
                $t::sin(self)
            }
            fn cos(self) -> $t {
                $t::cos(self)
            }
            fn tan(self) -> $t {
                $t::tan(self)
            }
            fn sin_cos(self) -> ($t, $t) {
                $t::sin_cos(self)
            }
            fn asin(self) -> $t {
                $t::asin(self)
            }
            fn acos(self) -> $t {
                $t::acos(self)
            }
            fn atan(self) -> $t {
                $t::atan(self)
            }
            fn atan2(self, x: $t) -> $t {
                $t::atan2(self, x)
            }
            fn hi(self) -> f64 {
                $hi(self)
            }
            fn lead(x: f64) -> $t {
                $t::from_f64(x)
            }
            fn exact(self) -> Float {
                let mut f = Float::with_val(EXACT_PREC, 0);
                for c in $parts(self) {
                    f += c;
                }
                f
            }
        }
    };
}

impl_trig!(Dd, -100.0, 60, |x: Dd| x.hi, |x: Dd| [x.hi, x.lo]);
impl_trig!(Qd, -200.0, 150, |x: Qd| x.0[0], |x: Qd| x.0);

/// Enough bits for any dd or qd exactly (2^1024 down to 2^-1074) and for the reduction of the
/// references.
const EXACT_PREC: u32 = 2400;

type Unary<T> = fn(T) -> T;
type Reference = fn(&Float) -> Float;

/// The direct functions with their MPFR twins.
fn direct<T: Trig>() -> [(&'static str, Unary<T>, Reference); 3] {
    [
        ("sin", T::sin, |x| x.clone().sin()),
        ("cos", T::cos, |x| x.clone().cos()),
        ("tan", T::tan, |x| x.clone().tan()),
    ]
}

/// Checks `f` against `reference` on `n` inputs drawn by `draw`, and asserts the type's bound.
fn check<T: Trig>(
    label: &str,
    seed: u64,
    n: usize,
    f: Unary<T>,
    reference: Reference,
    mut draw: impl FnMut(&mut StdRng) -> T,
) {
    let mut rng = rng(seed);
    let mut max = MaxError::new(format!("{} {label}", T::NAME));
    for _ in 0..n {
        let x = draw(&mut rng);
        let got = f(x).to_mpfr();
        let want = reference(&x.to_mpfr());
        max.record(&got, &want, || format!("{x:?}"));
    }
    max.assert_below_pow2(T::BOUND);
}

fn direct_wide<T: Trig>() {
    for (i, (name, f, reference)) in direct::<T>().into_iter().enumerate() {
        let label = format!("{name} |x| in 2^-60..2^20");
        check(&label, 10 + i as u64, samples(), f, reference, |r| {
            random::<T>(r, -60..20, true)
        });
    }
}

fn direct_tiny<T: Trig>() {
    for (i, (name, f, reference)) in direct::<T>().into_iter().enumerate() {
        let label = format!("{name} |x| in 1e-300..2^-60");
        check(&label, 20 + i as u64, samples() / 4, f, reference, |r| {
            random::<T>(r, -996..-60, true)
        });
    }
}

fn direct_large<T: Trig>() {
    for (i, (name, f, reference)) in direct::<T>().into_iter().enumerate() {
        let label = format!("{name} |x| in 2^20..2^50");
        check(&label, 30 + i as u64, samples() / 4, f, reference, |r| {
            random::<T>(r, 20..50, true)
        });
    }
}

/// Beyond 2^50 (Payne–Hanek) up to the largest doubles, full-precision arguments (qd
/// 1.3e51 + 7e34 once left 2^32 multiples of π/1024 unreduced and sin came out infinite,
/// found by fuzzing, when this range took the Cody–Waite path).
fn direct_huge<T: Trig>() {
    for (i, (name, f, reference)) in direct::<T>().into_iter().enumerate() {
        let label = format!("{name} |x| in 2^50..2^1023");
        check(&label, 80 + i as u64, samples() / 4, f, reference, |r| {
            random::<T>(r, 50..1023, true)
        });
    }
}

/// `x = k·π/2 + d` with `|x|` from 2^50 to 2^1023 and `|d|` from 2^-20 down to 2^-NEAREST,
/// rounded to `T`: a leading double `x0` and lower components of `k·π/2 - x0 + d` (the
/// leading one, 2^50 and more, cannot carry such an x alone: no double comes closer than about
/// 2^-61 to a multiple of π/2). sin is tiny near even k, cos near odd k, tan near both.
fn huge_near_multiple<T: Trig>(rng: &mut StdRng) -> T {
    let x0: f64 = random(rng, 50..1023, true);
    let half_pi = Float::with_val(EXACT_PREC, Constant::Pi) / 2u32;
    let k = Float::with_val(EXACT_PREC, x0 / &half_pi).round();
    let e = rng.gen_range(20..=T::NEAREST);
    let d: f64 = rng.gen_range(1.0..2.0) * (-(e as f64)).exp2();
    let d = if rng.gen::<bool>() { d } else { -d };
    T::from_mpfr(&(k * half_pi + d))
}

/// The reference for an argument of any spread: `f` at `EXACT_PREC` bits, then rounded.
fn exact_reference<T: Trig>(x: T, f: Reference) -> Float {
    Float::with_val(PREC, f(&x.exact()))
}

fn direct_huge_near_multiples<T: Trig>() {
    for (i, (name, f, reference)) in direct::<T>().into_iter().enumerate() {
        let mut rng = rng(90 + i as u64);
        let label = format!("{name} near k*pi/2, 2^50<=|x|<2^1023");
        let mut max = MaxError::new(format!("{} {label}", T::NAME));
        for _ in 0..samples() / 4 {
            let x = huge_near_multiple::<T>(&mut rng);
            let want = exact_reference(x, reference);
            max.record(&f(x).to_mpfr(), &want, || format!("{x:?}"));
        }
        max.assert_below_pow2(T::BOUND);
    }
}

/// Doubles whose reduction is hardest: 6381956970095103·2^797, the double nearest to a
/// multiple of π/2 (the worst case in Muller, "Elementary Functions", chapter 11, range reduction;
/// 4.687e-19 from it, 2^-60.9, by MPFR), with its neighbours, the largest doubles and powers
/// of two.
fn direct_hard_doubles<T: Trig>() {
    let worst = 6381956970095103.0 * 2f64.powi(797);
    let mut xs = vec![
        worst,
        f64::from_bits(worst.to_bits() + 1),
        f64::from_bits(worst.to_bits() - 1),
        f64::MAX,
        2f64.powi(1023),
        2f64.powi(200),
        2f64.powi(50),
        2f64.powi(50) * (1.0 - f64::EPSILON),
        1e22,
        1e300,
    ];
    xs.extend(xs.clone().into_iter().map(|x| -x));
    for (name, f, reference) in direct::<T>() {
        let mut max = MaxError::new(format!("{} {name} hard doubles", T::NAME));
        for &x in &xs {
            let x = T::lead(x);
            max.record(&f(x).to_mpfr(), &exact_reference(x, reference), || {
                format!("{x:?}")
            });
        }
        max.assert_below_pow2(T::BOUND);
    }
}

/// sin_cos gives the bits of sin and cos on the Payne–Hanek path too.
fn huge_sin_cos_agrees<T: Trig>() {
    let mut rng = rng(51);
    for _ in 0..samples() / 100 {
        let x: T = random(&mut rng, 50..1023, true);
        let (s, c) = x.sin_cos();
        assert_eq!(format!("{:?}", s), format!("{:?}", x.sin()));
        assert_eq!(format!("{:?}", c), format!("{:?}", x.cos()));
    }
}

/// `x = k·π/2·(1 + δ)` rounded to `T`, with `k` log-uniform in [1, 2^50) and
/// `2^-60 <= |δ| < 2^-19`: sin is tiny near even k, cos near odd k, tan near both.
fn near_multiple<T: Trig>(rng: &mut StdRng) -> T {
    let k = (rng.gen::<f64>() * 50.0).exp2().floor();
    let e = rng.gen_range(20..=60);
    let delta: f64 = rng.gen_range(1.0..2.0) * (-(e as f64)).exp2();
    let delta = if rng.gen::<bool>() { delta } else { -delta };
    let half_pi = Float::with_val(PREC, Constant::Pi) / 2u32;
    let x = half_pi * k * (Float::with_val(PREC, 1.0) + delta);
    let x = if rng.gen::<bool>() { x } else { -x };
    T::from_mpfr(&x)
}

fn direct_near_multiples<T: Trig>() {
    for (i, (name, f, reference)) in direct::<T>().into_iter().enumerate() {
        let label = format!("{name} near k*pi/2, k<2^50");
        check(
            &label,
            40 + i as u64,
            samples(),
            f,
            reference,
            near_multiple::<T>,
        );
    }
}

fn sin_cos_agrees<T: Trig>() {
    let mut rng = rng(50);
    for _ in 0..samples() / 10 {
        let x: T = random(&mut rng, -30..40, true);
        let (s, c) = x.sin_cos();
        assert_eq!(format!("{:?}", s), format!("{:?}", x.sin()));
        assert_eq!(format!("{:?}", c), format!("{:?}", x.cos()));
    }
}

fn inverse<T: Trig>() {
    let n = samples();
    let asin: Reference = |x| x.clone().asin();
    let acos: Reference = |x| x.clone().acos();
    let atan: Reference = |x| x.clone().atan();
    check("asin x in [-1, 1]", 60, n, T::asin, asin, |r| {
        uniform::<T>(r, -1.0, 1.0)
    });
    check("acos x in [-1, 1]", 61, n, T::acos, acos, |r| {
        uniform::<T>(r, -1.0, 1.0)
    });
    // 1 - x = m·2^-e with e up to 200: asin near π/2, acos tiny (or near π).
    let near_one = |r: &mut StdRng| {
        let d: T = random(r, -200..0, false);
        let x = Float::with_val(PREC, 1.0) - d.to_mpfr();
        let x = if r.gen::<bool>() { x } else { -x };
        T::from_mpfr(&x)
    };
    check("asin near +-1", 62, n / 4, T::asin, asin, near_one);
    check("acos near +-1", 63, n / 4, T::acos, acos, near_one);
    let near_zero = |r: &mut StdRng| random::<T>(r, -996..-1, true);
    check("asin near 0", 64, n / 4, T::asin, asin, near_zero);
    check("acos near 0", 65, n / 4, T::acos, acos, near_zero);
    check("atan |x| in 2^-60..2^60", 66, n, T::atan, atan, |r| {
        random::<T>(r, -60..60, true)
    });
    check("atan |x| in 2^-996..2^-60", 67, n / 4, T::atan, atan, |r| {
        random::<T>(r, -996..-60, true)
    });
    check("atan |x| in 2^60..2^1000", 68, n / 4, T::atan, atan, |r| {
        random::<T>(r, 60..1000, true)
    });
    // The fixed-point path (atan_fixed.rs) takes 2^-24..2^24 (qd), 2^-12..2^12 (dd).
    check("atan |x| in 2^-24..2^24", 69, n, T::atan, atan, |r| {
        random::<T>(r, -24..24, true)
    });
    // Next to its table points j/2^8 + i/2^16 (and their inverses), where the guesses of j and
    // i in doubles may be one off and are corrected in integers.
    let near_table = |r: &mut StdRng| {
        let c = Float::with_val(PREC, r.gen_range(0..=256u32)) / 256u32
            + Float::with_val(PREC, r.gen_range(0..=256u32)) / 65536u32;
        let d: T = random(r, -212..-30, true);
        let x = c + d.to_mpfr();
        let x = if r.gen::<bool>() { x } else { x.recip() };
        T::from_mpfr(&x)
    };
    check(
        "atan x near j/2^8 + i/2^16",
        59,
        n / 4,
        T::atan,
        atan,
        near_table,
    );
}

fn atan2_quadrants<T: Trig>() {
    let mut rng = rng(70);
    let mut max = MaxError::new(format!("{} atan2 all quadrants", T::NAME));
    for _ in 0..samples() {
        // Exponents of y and x far apart too, to reach the axes and the diagonal alike.
        let y: T = random(&mut rng, -60..60, true);
        let x: T = random(&mut rng, -60..60, true);
        let got = y.atan2(x).to_mpfr();
        let want = y.to_mpfr().atan2(&x.to_mpfr());
        max.record(&got, &want, || format!("atan2({y:?}, {x:?})"));
    }
    max.assert_below_pow2(T::BOUND);
    // The edges of the fixed-point path: exact thresholds and diagonals, magnitudes at the ends
    // of the exponent range (one argument subnormal, or both), every sign.
    let mut max = MaxError::new(format!("{} atan2 edge cases", T::NAME));
    let t = 2f64.powi(-24);
    let d = 2f64.powi(-12);
    let edges = [
        (1.0, 1.0),
        (t, 1.0),
        (t * (1.0 - f64::EPSILON), 1.0),
        (d, 1.0),
        (d * (1.0 - f64::EPSILON), 1.0),
        (1.0, t),
        (1.0, d),
        (1.0 + f64::EPSILON, 1.0),
        (1.0, 1.0 + f64::EPSILON),
        (3e300, 1e300),
        (1e300, 7e307),
        (1e-300, 3e-300),
        (2.5e-310, 1e-308),
        (1e-308, 3e-310),
        (4e-320, 6e-320),
        (f64::MAX, f64::MAX / 3.0),
        (f64::MIN_POSITIVE, f64::MIN_POSITIVE * 1.5),
    ];
    for (a, b) in edges {
        for (sy, sx) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
            let (y, x) = (T::lead(sy * a), T::lead(sx * b));
            let got = y.atan2(x).to_mpfr();
            let want = y.to_mpfr().atan2(&x.to_mpfr());
            max.record(&got, &want, || format!("atan2({y:?}, {x:?})"));
            if sx > 0.0 {
                let q = T::from_mpfr(&(y.to_mpfr() / x.to_mpfr()));
                max.record(&q.atan().to_mpfr(), &q.to_mpfr().atan(), || {
                    format!("atan({q:?})")
                });
            }
        }
    }
    max.assert_below_pow2(T::BOUND);
    // Ratios near 1 and near the fixed-point path's lower end (2^-24 qd, 2^-12 dd), every
    // quadrant.
    let mut max = MaxError::new(format!("{} atan2 |y/x| in 2^[-26,26)", T::NAME));
    for _ in 0..samples() {
        let x: T = random(&mut rng, -30..30, true);
        let y: T = random(&mut rng, -26..26, true);
        let y = T::from_mpfr(&(y.to_mpfr() * x.to_mpfr()));
        let got = y.atan2(x).to_mpfr();
        let want = y.to_mpfr().atan2(&x.to_mpfr());
        max.record(&got, &want, || format!("atan2({y:?}, {x:?})"));
    }
    max.assert_below_pow2(T::BOUND);
}

fn same<T: Trig>(got: T, want: f64, what: &str) {
    let g = got.hi();
    assert!(
        (g.is_nan() && want.is_nan()) || g.to_bits() == want.to_bits(),
        "{} {what}: got {g:?}, want {want:?}",
        T::NAME
    );
}

/// Special values as f64's; exact results compared by their leading component (and sign).
fn special_values<T: Trig>() {
    let l = T::lead;
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    for x in [inf, -inf, nan] {
        same(l(x).sin(), nan, &format!("sin({x})"));
        same(l(x).cos(), nan, &format!("cos({x})"));
        same(l(x).tan(), nan, &format!("tan({x})"));
        same(l(x).sin_cos().0, nan, &format!("sin_cos({x})"));
    }
    same(l(-0.0).sin(), -0.0, "sin(-0)");
    same(l(0.0).sin(), 0.0, "sin(+0)");
    same(l(-0.0).tan(), -0.0, "tan(-0)");
    same(l(-0.0).cos(), 1.0, "cos(-0)");
    for x in [2.0, -2.0, 1.0 + f64::EPSILON, inf, -inf, nan] {
        same(l(x).asin(), nan, &format!("asin({x})"));
        same(l(x).acos(), nan, &format!("acos({x})"));
    }
    same(l(-0.0).asin(), -0.0, "asin(-0)");
    same(l(1.0).acos(), 0.0, "acos(1)");
    same(l(1.0).asin(), std::f64::consts::FRAC_PI_2, "asin(1)");
    same(l(-1.0).acos(), std::f64::consts::PI, "acos(-1)");
    same(l(-0.0).atan(), -0.0, "atan(-0)");
    same(l(nan).atan(), nan, "atan(nan)");
    same(l(inf).atan(), std::f64::consts::FRAC_PI_2, "atan(inf)");
    same(l(-inf).atan(), -std::f64::consts::FRAC_PI_2, "atan(-inf)");
    let cases = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 3.5, -2.25];
    for y in cases {
        for x in cases {
            same(l(y).atan2(l(x)), y.atan2(x), &format!("atan2({y}, {x})"));
        }
    }
}

macro_rules! tests_for {
    ($module:ident, $t:ty) => {
        mod $module {
            use super::*;
            #[test]
            fn direct_wide_range() {
                direct_wide::<$t>();
            }
            #[test]
            fn direct_tiny_arguments() {
                direct_tiny::<$t>();
            }
            #[test]
            fn direct_large_arguments() {
                direct_large::<$t>();
            }
            #[test]
            fn direct_huge_arguments() {
                direct_huge::<$t>();
            }
            #[test]
            fn direct_near_multiples_of_half_pi() {
                direct_near_multiples::<$t>();
            }
            #[test]
            fn direct_huge_near_multiples_of_half_pi() {
                direct_huge_near_multiples::<$t>();
            }
            #[test]
            fn direct_hard_doubles_for_reduction() {
                direct_hard_doubles::<$t>();
            }
            #[test]
            fn sin_cos_matches_sin_and_cos_beyond_2_50() {
                huge_sin_cos_agrees::<$t>();
            }
            #[test]
            fn sin_cos_matches_sin_and_cos() {
                sin_cos_agrees::<$t>();
            }
            #[test]
            fn inverse_functions() {
                inverse::<$t>();
            }
            #[test]
            fn atan2_in_all_quadrants() {
                atan2_quadrants::<$t>();
            }
            #[test]
            fn special_values_like_f64() {
                special_values::<$t>();
            }
        }
    };
}

tests_for!(dd, Dd);
tests_for!(qd, Qd);
