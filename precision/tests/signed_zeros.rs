//! Signed zeros in `Dd` and `Qd` as IEEE 754 (round to nearest) and C99 Annex F give them:
//! every function and operation at zero arguments, at tiny ones (whose results keep the
//! argument's sign), at the infinities whose results are zeros, and where a result underflows
//! to zero; in the scalar code and in the SIMD lanes (`precision::lanes`, on every instruction
//! set the CPU has).
//!
//! `f64` computing the same function of the same doubles is the reference for the class of
//! each result (a zero of which sign, an infinity of which sign, NaN); MPFR (rug, 480 bits) the
//! reference for the value of every other result. The arithmetic operators on operands with
//! every component in use are `tests/arithmetic.rs`'s `zero_signs`.

mod common;

use common::{Exact, PREC};
use precision::lanes::{Columns, Isa, Operand};
use precision::{Dd, Qd, Real};
use rug::ops::Pow;
use rug::Float;

trait Num: Real + Exact + Columns + std::ops::Rem<Output = Self> + std::iter::Sum {
    /// The relative accuracy a finite non-zero result must reach, as a power of two.
    const BITS: i32;
}

impl Num for Dd {
    const BITS: i32 = 100;
}

impl Num for Qd {
    const BITS: i32 = 200;
}

fn lift<T: Num>(x: f64) -> T {
    T::from_f64(x)
}

/// `x` as an MPFR number, the sign of a zero kept.
fn mp(x: f64) -> Float {
    Float::with_val(PREC, x)
}

/// Whether an argument lies below `MIN_POSITIVE` of both types (2^-969 for dd, 2^-863 for
/// qd), where trailing components and intermediate results underflow and the types keep no
/// full precision: there a result need only be right to 2^-64.
fn below_full_precision(x: f64) -> bool {
    x != 0.0 && x.abs() < 2f64.powi(-860)
}

/// `got` against the IEEE result `want` and the exact value `exact`: a zero, infinity or NaN
/// where `want` is one, with `want`'s sign in the leading component and zeros below it; any
/// other result of `want`'s sign and within 2^-BITS of `exact` relative (2^-64 where `loose`,
/// for arguments `below_full_precision`), or 2^-1074 absolute for subnormal results.
fn agrees<T: Num>(got: T, want: f64, exact: &Float, what: &str, loose: bool) {
    let c = got.limbs();
    let c = &c[..T::LIMBS];
    let name = <T as Real>::NAME;
    if want.is_nan() {
        assert!(c[0].is_nan(), "{name} {what} = {c:?}, want NaN");
        return;
    }
    if want == 0.0 || want.is_infinite() {
        assert!(
            c[0].to_bits() == want.to_bits() && c[1..].iter().all(|&x| x == 0.0),
            "{name} {what} = {c:?}, want {want:?}"
        );
        if exact.is_zero() {
            // The two references agree on the sign of an exact zero.
            assert_eq!(
                exact.is_sign_negative(),
                want.is_sign_negative(),
                "{what}: MPFR {exact} against f64 {want:?}"
            );
        }
        return;
    }
    assert!(
        c[0].is_finite() && c[0] != 0.0 && c[0].is_sign_negative() == want.is_sign_negative(),
        "{name} {what} = {c:?}, want {want:e}"
    );
    let error = Float::with_val(PREC, got.to_mpfr() - exact).abs();
    let bits = if loose { 64 } else { T::BITS as u32 };
    let bound = (Float::with_val(PREC, exact.abs_ref()) >> bits).max(&mp(5e-324));
    assert!(
        error <= bound,
        "{name} {what} = {c:?}, want {exact:.40e} (error {error:.3e})"
    );
}

type Unary<T> = (&'static str, fn(T) -> T, fn(f64) -> f64, fn(Float) -> Float);

/// Every function of one argument, with f64's and MPFR's.
fn unary_functions<T: Num>() -> Vec<Unary<T>> {
    vec![
        ("sqrt", T::sqrt, f64::sqrt, Float::sqrt),
        ("cbrt", T::cbrt, f64::cbrt, Float::cbrt),
        ("exp", T::exp, f64::exp, Float::exp),
        ("exp_m1", T::exp_m1, f64::exp_m1, Float::exp_m1),
        ("ln", T::ln, f64::ln, Float::ln),
        ("ln_1p", T::ln_1p, f64::ln_1p, Float::ln_1p),
        ("log2", T::log2, f64::log2, Float::log2),
        ("log10", T::log10, f64::log10, Float::log10),
        ("sin", T::sin, f64::sin, Float::sin),
        ("cos", T::cos, f64::cos, Float::cos),
        ("tan", T::tan, f64::tan, Float::tan),
        ("sin_cos.0", |x| x.sin_cos().0, f64::sin, Float::sin),
        ("sin_cos.1", |x| x.sin_cos().1, f64::cos, Float::cos),
        ("asin", T::asin, f64::asin, Float::asin),
        ("acos", T::acos, f64::acos, Float::acos),
        ("atan", T::atan, f64::atan, Float::atan),
        ("sinh", T::sinh, f64::sinh, Float::sinh),
        ("cosh", T::cosh, f64::cosh, Float::cosh),
        ("tanh", T::tanh, f64::tanh, Float::tanh),
        ("asinh", T::asinh, f64::asinh, Float::asinh),
        ("acosh", T::acosh, f64::acosh, Float::acosh),
        ("atanh", T::atanh, f64::atanh, Float::atanh),
        ("abs", T::abs, f64::abs, Float::abs),
        ("neg", |x| -x, |x| -x, |x| -x),
        ("recip", T::recip, f64::recip, Float::recip),
        ("floor", T::floor, f64::floor, Float::floor),
        ("ceil", T::ceil, f64::ceil, Float::ceil),
        ("round", T::round, f64::round, Float::round),
        ("trunc", T::trunc, f64::trunc, Float::trunc),
    ]
}

/// Zeros, the tiniest and tiny values of both signs, the infinities, NaN, and the arguments at
/// which some function is an exact zero (ln 1, acos 1, the rounding of ±1/4) or underflows to
/// one (exp -800).
const ARGUMENTS: [f64; 17] = [
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    1e-300,
    -1e-300,
    8.673617379884035e-19, // 2^-60
    -8.673617379884035e-19,
    0.25,
    -0.25,
    1.0,
    -1.0,
    -800.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1.5,
];

/// Every function of one argument, at every argument of `ARGUMENTS`.
fn functions_at_zeros<T: Num>() {
    for (name, f, reference, exact) in unary_functions::<T>() {
        for x in ARGUMENTS {
            let what = format!("{name}({x:?})");
            let loose = below_full_precision(x);
            agrees(f(lift::<T>(x)), reference(x), &exact(mp(x)), &what, loose);
        }
    }
}

/// Signs and special values of powf, atan2, hypot and `%` over all pairs of these.
const PAIR_ARGUMENTS: [f64; 21] = [
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.0,
    -1.0,
    2.0,
    -2.0,
    3.0,
    -3.0,
    5e-324,
    -5e-324,
    1e-300,
    -1e-300,
    1e300,
    -1e300,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    0.75,
    -7.0,
];

fn pairs_at_zeros<T: Num>() {
    for y in PAIR_ARGUMENTS {
        for x in PAIR_ARGUMENTS {
            let (a, b) = (lift::<T>(x), lift::<T>(y));
            let loose = below_full_precision(x) || below_full_precision(y);
            let both = format!("({x:?}, {y:?})");
            let exact = mp(x).pow(mp(y));
            agrees(a.powf(b), x.powf(y), &exact, &format!("powf{both}"), loose);
            let exact = mp(x).atan2(&mp(y));
            agrees(
                a.atan2(b),
                x.atan2(y),
                &exact,
                &format!("atan2{both}"),
                loose,
            );
            let exact = mp(x).hypot(&mp(y));
            agrees(
                a.hypot(b),
                x.hypot(y),
                &exact,
                &format!("hypot{both}"),
                loose,
            );
            // f64's % (C's fmod) is exact, so it is also the exact value, for every quotient.
            let r = x % y;
            agrees(a % b, r, &mp(r), &format!("{x:?} % {y:?}"), loose);
        }
    }
}

/// Integer powers, scaling and reciprocals whose results are zeros or infinities of a sign.
fn powers_at_zeros<T: Num>() {
    for x in [
        0.0,
        -0.0,
        1e-200,
        -1e-200,
        1e200,
        -1e200,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        for n in [-3, -2, -1, 1, 2, 3] {
            let want = x.powi(n);
            let exact = mp(x).pow(n);
            let what = format!("powi({x:?}, {n})");
            agrees(lift::<T>(x).powi(n), want, &exact, &what, false);
        }
        for k in [-2000, -5, 0, 5] {
            let want = precision::ldexp(x, k);
            agrees(
                lift::<T>(x).ldexp(k),
                want,
                &(mp(x) << k),
                &format!("ldexp({x:?}, {k})"),
                false,
            );
        }
    }
}

/// Conversions and the decimal reader and writer keep a zero's sign; the sum of an iterator
/// starts from −0 as f64's does.
fn conversions_keep_zeros<T: Num>() {
    let name = <T as Real>::NAME;
    let negative_zero = |x: T| x.limbs()[0] == 0.0 && x.limbs()[0].is_sign_negative();
    let positive_zero = |x: T| x.limbs()[0] == 0.0 && x.limbs()[0].is_sign_positive();
    assert!(negative_zero(lift(-0.0)), "{name} from_f64(-0)");
    assert!(
        lift::<T>(-0.0).to_f64().is_sign_negative(),
        "{name} to_f64(-0)"
    );
    assert!(
        negative_zero(T::from_limbs(&[-0.0; 4])),
        "{name} from_limbs"
    );
    assert!(positive_zero(T::from_i64(0)), "{name} from_i64(0)");
    for (text, negative) in [
        ("-0", true),
        ("-0.000e25", true),
        ("-1e-400", true),
        ("-1e-99999", true),
        ("0", false),
        ("+0.0", false),
        ("1e-400", false),
    ] {
        let x = T::parse_decimal(text).unwrap_or_else(|e| panic!("{name} {text}: {e}"));
        assert!(
            if negative {
                negative_zero(x)
            } else {
                positive_zero(x)
            },
            "{name} parse {text} = {:?}",
            x.limbs()
        );
    }
    assert_eq!(lift::<T>(-0.0).to_string(), "-0", "{name} Display");
    assert_eq!(lift::<T>(0.0).to_string(), "0", "{name} Display");
    assert!(negative_zero(T::from_accumulator(
        lift::<T>(-0.0).to_accumulator()
    )));
    // Sums, as f64's: from −0, IEEE's additive identity.
    let sum = |v: &[f64]| -> T { v.iter().map(|&x| lift::<T>(x)).sum() };
    let fsum = |v: &[f64]| -> f64 { v.iter().sum() };
    for v in [
        &[][..],
        &[-0.0],
        &[-0.0, -0.0],
        &[-0.0, 0.0],
        &[0.0],
        &[1.5, -1.5],
        &[-1.5, 1.5, -0.0],
    ] {
        let want = fsum(v);
        agrees(sum(v), want, &mp(want), &format!("sum {v:?}"), false);
    }
}

/// A column of `cases` repeated so that each lands in a SIMD vector's body and in the scalar
/// tail of the column operations (a length that is no multiple of 8).
fn column<X: Copy>(cases: &[X]) -> Vec<X> {
    let mut v: Vec<X> = cases.iter().chain(cases).chain(cases).copied().collect();
    v.extend(cases.iter().take(5));
    v
}

/// Values of `T` with every component in use, for sums that cancel exactly.
fn full_values<T: Num>() -> Vec<T> {
    let third = T::one() / lift::<T>(3.0);
    vec![
        third,
        -third,
        T::pi() * 1e100,
        -(T::e() * 1e-290),
        lift::<T>(1.0) + T::epsilon(),
    ]
}

/// The lanes' operations on the cases of IEEE zeros: each element's class and sign as f64's
/// on the leading components (operands for which that is the exact result's class), and its
/// bits as the scalar method's.
fn lanes_give_ieee_zeros<T: Num>() {
    let zeros = [0.0, -0.0];
    let mut pairs: Vec<(T, T)> = Vec::new();
    for x in zeros {
        for y in zeros {
            pairs.push((lift(x), lift(y)));
        }
        for y in [
            1.0 / 3.0,
            -1.0 / 3.0,
            1e300,
            -5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            pairs.push((lift(x), lift(y)));
            pairs.push((lift(y), lift(x)));
        }
    }
    for v in full_values::<T>() {
        pairs.push((v, v));
        pairs.push((v, -v));
        pairs.push((-v, v));
    }
    // Products and quotients that underflow to zeros of either sign.
    pairs.push((lift(-1e-200), lift(1e-200)));
    pairs.push((lift(1e-200), lift(-1e-200)));
    pairs.push((lift(-1e-300), lift(1e300)));
    let pairs = column(&pairs);
    let (a, b): (Vec<T>, Vec<T>) = pairs.iter().copied().unzip();
    let head = |x: T| x.limbs()[0];
    type Op<T> = (
        &'static str,
        fn(Isa, &mut [T], Operand<T>, Operand<T>),
        fn(T, T) -> T,
    );
    // The operation on the leading doubles, as IEEE gives it.
    type Reference = fn(f64, f64) -> f64;
    let ops: [(Op<T>, Reference); 4] = [
        (("add", T::add_cols, |x, y| x + y), |x, y| x + y),
        (("sub", T::sub_cols, |x, y| x - y), |x, y| x - y),
        (("mul", T::mul_cols, |x, y| x * y), |x, y| x * y),
        (("div", T::div_cols, |x, y| x / y), |x, y| x / y),
    ];
    for isa in Isa::available() {
        let mut d = vec![T::default(); a.len()];
        for ((op, cols, scalar), reference) in ops {
            cols(isa, &mut d, Operand::Column(&a), Operand::Column(&b));
            for i in 0..a.len() {
                let want = reference(head(a[i]), head(b[i]));
                let what = format!("{isa:?} {op} {:?} {:?}", a[i].limbs(), b[i].limbs());
                lane_agrees(d[i], want, scalar(a[i], b[i]), &what);
            }
        }
        // With a double: zeros and infinities, whose products and quotients are zeros.
        type Mixed<T> = (&'static str, fn(Isa, &mut [T], &[T], f64), fn(T, f64) -> T);
        let mixed: [(Mixed<T>, Reference); 3] = [
            (("add_f64", T::add_f64_cols, |x, y| x + y), |x, y| x + y),
            (("mul_f64", T::mul_f64_cols, |x, y| x * y), |x, y| x * y),
            (("div_f64", T::div_f64_cols, |x, y| x / y), |x, y| x / y),
        ];
        for ((op, cols, scalar), reference) in mixed {
            for y in [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY] {
                cols(isa, &mut d, &a, y);
                for i in 0..a.len() {
                    let want = reference(head(a[i]), y);
                    let what = format!("{isa:?} {op} {:?} {y:?}", a[i].limbs());
                    lane_agrees(d[i], want, scalar(a[i], y), &what);
                }
            }
        }
        // Functions: zeros, the arguments whose results are zeros, and tiny ones.
        let args = column(&[
            0.0,
            -0.0,
            1.0,
            -800.0,
            f64::NEG_INFINITY,
            1e-300,
            -1e-300,
            -5e-324,
        ]);
        let x: Vec<T> = args.iter().map(|&v| lift(v)).collect();
        type Function<T> = (
            &'static str,
            fn(Isa, &mut [T], &[T]),
            fn(T) -> T,
            fn(f64) -> f64,
        );
        let functions: [Function<T>; 9] = [
            ("sqrt", T::sqrt_cols, T::sqrt, f64::sqrt),
            ("exp", T::exp_cols, T::exp, f64::exp),
            ("exp_m1", T::exp_m1_cols, T::exp_m1, f64::exp_m1),
            ("sinh", T::sinh_cols, T::sinh, f64::sinh),
            ("cosh", T::cosh_cols, T::cosh, f64::cosh),
            ("tanh", T::tanh_cols, T::tanh, f64::tanh),
            ("ln", T::ln_cols, T::ln, f64::ln),
            ("sin", T::sin_cols, T::sin, f64::sin),
            ("cos", T::cos_cols, T::cos, f64::cos),
        ];
        let mut d = vec![T::default(); x.len()];
        for (f, cols, scalar, reference) in functions {
            cols(isa, &mut d, &x);
            for i in 0..x.len() {
                let what = format!("{isa:?} {f}({:?})", args[i]);
                lane_agrees(d[i], reference(args[i]), scalar(x[i]), &what);
            }
        }
        // powf: zeros and infinities to odd, even and fractional powers, and an underflow.
        let mut pairs = Vec::new();
        for x in [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e-300, 0.5] {
            for y in [3.0, -3.0, 2.0, -2.0, 0.5, -0.5, 1000.0] {
                pairs.push((x, y));
            }
        }
        let pairs = column(&pairs);
        let (px, py): (Vec<T>, Vec<T>) = pairs
            .iter()
            .map(|&(x, y)| (lift::<T>(x), lift::<T>(y)))
            .unzip();
        let mut d = vec![T::default(); px.len()];
        T::powf_cols(isa, &mut d, Operand::Column(&px), Operand::Column(&py));
        for (i, &(x, y)) in pairs.iter().enumerate() {
            let what = format!("{isa:?} powf({x:?}, {y:?})");
            lane_agrees(d[i], x.powf(y), px[i].powf(py[i]), &what);
        }
    }
}

/// A lane's result: `want`'s class and sign where `want` is a zero or an infinity, and the
/// scalar method's bits in every case (any NaN for NaN).
fn lane_agrees<T: Num>(got: T, want: f64, scalar: T, what: &str) {
    let name = <T as Real>::NAME;
    let (g, s) = (got.limbs(), scalar.limbs());
    let same = g
        .iter()
        .zip(&s)
        .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
    assert!(same, "{name} {what}: lanes {g:?}, scalar {s:?}");
    if want == 0.0 || want.is_infinite() {
        assert!(
            g[0].to_bits() == want.to_bits() && g[1..].iter().all(|&x| x == 0.0),
            "{name} {what} = {g:?}, want {want:?}"
        );
    }
}

macro_rules! tests_for {
    ($module:ident, $t:ty) => {
        mod $module {
            use super::*;
            #[test]
            fn functions_give_ieee_signed_zeros() {
                functions_at_zeros::<$t>();
            }
            #[test]
            fn powf_atan2_hypot_rem_give_ieee_signed_zeros() {
                pairs_at_zeros::<$t>();
            }
            #[test]
            fn powers_and_scaling_give_ieee_signed_zeros() {
                powers_at_zeros::<$t>();
            }
            #[test]
            fn conversions_keep_the_sign_of_zero() {
                conversions_keep_zeros::<$t>();
            }
            #[test]
            fn lanes_give_ieee_signed_zeros() {
                lanes_give_ieee_zeros::<$t>();
            }
        }
    };
}

tests_for!(dd, Dd);
tests_for!(qd, Qd);
