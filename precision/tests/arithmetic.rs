//! Accuracy of the core arithmetic of `Dd` and `Qd` against MPFR at 480 bits.
//!
//! Bounds, with u = 2^-53 (relative error of the result):
//! - Dd `+ -` within 4u² = 2^-104, `*` within 5u², `/` and `sqrt` within 10u²; the same for a
//!   Dd with an f64 operand;
//! - Qd `+ - * / sqrt`, also with an f64 operand, within 2^-204.
//!
//! Range of full accuracy: a Dd keeps its ~106 bits down to about 2^-969 and a Qd its ~212 bits
//! down to about 2^-863; below that the trailing components fall into the subnormal range and
//! the relative error grows towards the f64 figure as the value approaches 2^-1022. The random
//! tests keep every result above those thresholds; `underflow_threshold_is_where_documented`
//! shows where the degradation starts.
//!
//! Each test prints `ACCURACY` lines (for precision/README.md); `HPQUAD_SAMPLES` sets the number
//! of random inputs per operation (default 100 000).

mod common;

use common::{random, rng, samples, uniform, Exact, MaxError, PREC};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::Rng;
use rug::ops::Pow;
use rug::Float;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// What the generic checks need of `Dd` and `Qd`.
trait Num:
    Exact
    + PartialOrd
    + PartialEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
{
    /// log2 of the bounds: sums, products, quotients and square roots.
    const ADD: f64;
    const MUL: f64;
    const DIV: f64;
    /// The smallest binary exponent at which the type keeps its full precision.
    const MIN_EXP: i32;
    fn comps(self) -> Vec<f64>;
    fn from_comps(c: &[f64]) -> Self;
    fn sqrt(self) -> Self;
    fn powi(self, n: i32) -> Self;
    fn abs(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn trunc(self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    fn from_i64(x: i64) -> Self;
    fn from_u64(x: u64) -> Self;
    /// `x + self`, `x - self` and `x / self` with a double on the left.
    fn radd(self, x: f64) -> Self;
    fn rsub(self, x: f64) -> Self;
    fn rdiv(self, x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Num for Dd {
    const ADD: f64 = -104.0;
    // 5u² = 2^-103.68 and 10u² = 2^-102.68.
    const MUL: f64 = -103.678;
    const DIV: f64 = -102.678;
    const MIN_EXP: i32 = -969;
    fn comps(self) -> Vec<f64> {
        self.components().to_vec()
    }
    fn from_comps(c: &[f64]) -> Dd {
        Dd::from_components(c)
    }
    fn sqrt(self) -> Dd {
        Dd::sqrt(self)
    }
    fn powi(self, n: i32) -> Dd {
        Dd::powi(self, n)
    }
    fn abs(self) -> Dd {
        Dd::abs(self)
    }
    fn floor(self) -> Dd {
        Dd::floor(self)
    }
    fn ceil(self) -> Dd {
        Dd::ceil(self)
    }
    fn round(self) -> Dd {
        Dd::round(self)
    }
    fn trunc(self) -> Dd {
        Dd::trunc(self)
    }
    fn min(self, o: Dd) -> Dd {
        Dd::min(self, o)
    }
    fn max(self, o: Dd) -> Dd {
        Dd::max(self, o)
    }
    fn from_i64(x: i64) -> Dd {
        Dd::from(x)
    }
    fn from_u64(x: u64) -> Dd {
        Dd::from(x)
    }
    fn radd(self, x: f64) -> Dd {
        x + self
    }
    fn rsub(self, x: f64) -> Dd {
        x - self
    }
    fn rdiv(self, x: f64) -> Dd {
        x / self
    }
    fn to_f64(self) -> f64 {
        Dd::to_f64(self)
    }
}

impl Num for Qd {
    const ADD: f64 = -204.0;
    const MUL: f64 = -204.0;
    const DIV: f64 = -204.0;
    const MIN_EXP: i32 = -863;
    fn comps(self) -> Vec<f64> {
        self.components().to_vec()
    }
    fn from_comps(c: &[f64]) -> Qd {
        Qd::from_components(c)
    }
    fn sqrt(self) -> Qd {
        Qd::sqrt(self)
    }
    fn powi(self, n: i32) -> Qd {
        Qd::powi(self, n)
    }
    fn abs(self) -> Qd {
        Qd::abs(self)
    }
    fn floor(self) -> Qd {
        Qd::floor(self)
    }
    fn ceil(self) -> Qd {
        Qd::ceil(self)
    }
    fn round(self) -> Qd {
        Qd::round(self)
    }
    fn trunc(self) -> Qd {
        Qd::trunc(self)
    }
    fn min(self, o: Qd) -> Qd {
        Qd::min(self, o)
    }
    fn max(self, o: Qd) -> Qd {
        Qd::max(self, o)
    }
    fn from_i64(x: i64) -> Qd {
        Qd::from(x)
    }
    fn from_u64(x: u64) -> Qd {
        Qd::from(x)
    }
    fn radd(self, x: f64) -> Qd {
        x + self
    }
    fn rsub(self, x: f64) -> Qd {
        x - self
    }
    fn rdiv(self, x: f64) -> Qd {
        x / self
    }
    fn to_f64(self) -> f64 {
        Qd::to_f64(self)
    }
}

/// The binary exponent of a value's leading component (`x = m · 2^e`, `1 <= |m| < 2`).
fn exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// Runs `op` on `samples()` inputs from `gen` and compares with `exact` at 480 bits.
fn check<A: Exact, B: Exact, R: Exact>(
    name: &str,
    seed: u64,
    bound_log2: f64,
    mut gen: impl FnMut(&mut StdRng) -> (A, B),
    op: impl Fn(A, B) -> R,
    exact: impl Fn(Float, Float) -> Float,
) {
    let mut rng = rng(seed);
    let mut err = MaxError::new(name);
    for _ in 0..samples() {
        let (a, b) = gen(&mut rng);
        let got = op(a, b);
        let want = exact(a.to_mpfr(), b.to_mpfr());
        err.record(&got.to_mpfr(), &want, || format!("{a:?}, {b:?} -> {got:?}"));
    }
    err.assert_below_pow2(bound_log2);
}

fn add(a: Float, b: Float) -> Float {
    a + b
}
fn sub(a: Float, b: Float) -> Float {
    a - b
}
fn mul(a: Float, b: Float) -> Float {
    a * b
}
fn div(a: Float, b: Float) -> Float {
    a / b
}

/// Two summands: half the time of close magnitudes (their tails overlap), half the time far
/// apart; exponents within ±`range`.
fn summands<T: Exact, U: Exact>(rng: &mut StdRng, range: i32) -> (T, U) {
    let a: T = random(rng, -range..range, true);
    let ea = exponent(T::to_mpfr(a).to_f64());
    let b: U = if rng.gen::<bool>() {
        random(rng, ea - 60..ea + 60, true)
    } else {
        random(rng, -range..range, true)
    };
    (a, b)
}

/// Runs the random tests of every operation of `T`, with `T` and with `f64` operands.
fn random_arithmetic<T: Num>(seed: u64) {
    let n = T::NAME;
    // Sums: values from 2^-(-MIN_EXP - 60) to 2^900, mixed magnitudes.
    let sr = -T::MIN_EXP - 120;
    check(
        &format!("{n} + {n}"),
        seed,
        T::ADD,
        |r| summands::<T, T>(r, sr),
        |a, b| a + b,
        add,
    );
    check(
        &format!("{n} - {n}"),
        seed + 1,
        T::ADD,
        |r| summands::<T, T>(r, sr),
        |a, b| a - b,
        sub,
    );
    check(
        &format!("{n} + f64"),
        seed + 2,
        T::ADD,
        |r| summands::<T, f64>(r, sr),
        |a, b| a + b,
        add,
    );
    check(
        &format!("{n} - f64"),
        seed + 3,
        T::ADD,
        |r| summands::<T, f64>(r, sr),
        |a, b| a - b,
        sub,
    );
    check(
        &format!("f64 - {n}"),
        seed + 4,
        T::ADD,
        |r| summands::<f64, T>(r, sr),
        |a, b: T| b.rsub(a),
        sub,
    );
    // Products: each factor within 2^±(-MIN_EXP/2), so the product keeps full precision.
    let pr = -T::MIN_EXP / 2 - 2;
    let factors =
        move |r: &mut StdRng| (random::<T>(r, -pr..pr, true), random::<T>(r, -pr..pr, true));
    let factors_f = move |r: &mut StdRng| {
        (
            random::<T>(r, -pr..pr, true),
            random::<f64>(r, -pr..pr, true),
        )
    };
    check(
        &format!("{n} * {n}"),
        seed + 5,
        T::MUL,
        factors,
        |a, b| a * b,
        mul,
    );
    check(
        &format!("{n} * f64"),
        seed + 6,
        T::MUL,
        factors_f,
        |a, b| a * b,
        mul,
    );
    check(
        &format!("{n} / {n}"),
        seed + 7,
        T::DIV,
        factors,
        |a, b| a / b,
        div,
    );
    check(
        &format!("{n} / f64"),
        seed + 8,
        T::DIV,
        factors_f,
        |a, b| a / b,
        div,
    );
    check(
        &format!("f64 / {n}"),
        seed + 9,
        T::DIV,
        move |r| {
            (
                random::<f64>(r, -pr..pr, true),
                random::<T>(r, -pr..pr, true),
            )
        },
        |a, b: T| b.rdiv(a),
        div,
    );
    check(
        &format!("sqrt {n}"),
        seed + 10,
        T::DIV,
        |r| (random::<T>(r, T::MIN_EXP..1024, false), 0.0),
        |a, _| a.sqrt(),
        |a, _| a.sqrt(),
    );
}

#[test]
fn dd_random_arithmetic() {
    random_arithmetic::<Dd>(100);
}

#[test]
fn qd_random_arithmetic() {
    random_arithmetic::<Qd>(200);
}

/// `a` and `b` with the same leading `k` components and random tails, so that `a - b` cancels
/// the leading `k` components.
fn near_equal<T: Num>(rng: &mut StdRng, k: usize) -> (T, T) {
    let a: T = random(rng, -300..300, true);
    let c = a.comps();
    // The tail of b: random, below a quarter ulp of the last shared component, so that b's
    // leading components round to a's.
    let last = c[k - 1];
    let tail: T = random(rng, exponent(last) - 60..exponent(last) - 54, true);
    let mut lead = Float::with_val(PREC, 0.0);
    for &x in &c[..k] {
        lead += x;
    }
    let b = T::from_mpfr(&(lead + tail.to_mpfr()));
    (a, b)
}

fn cancellation<T: Num>(seed: u64) {
    let n = T::NAME;
    let comps = T::default_comps();
    for k in 1..comps {
        check(
            &format!("{n} - {n} cancel {k}"),
            seed + k as u64,
            T::ADD,
            |r| near_equal::<T>(r, k),
            |a, b| a - b,
            sub,
        );
        check(
            &format!("{n} + -{n} cancel {k}"),
            seed + 10 + k as u64,
            T::ADD,
            |r| {
                let (a, b) = near_equal::<T>(r, k);
                (a, -b)
            },
            |a, b| a + b,
            add,
        );
    }
    // A double against the leading component, one ulp or so off.
    check(
        &format!("{n} - f64 cancel"),
        seed + 20,
        T::ADD,
        |r| {
            let a: T = random(r, -300..300, true);
            let h = a.comps()[0];
            let b = h + h * f64::EPSILON * r.gen_range(-4.0f64..4.0).round();
            (a, b)
        },
        |a, b| a - b,
        sub,
    );
}

/// The component count, through a value (the trait has no constant for it).
trait Comps {
    fn default_comps() -> usize;
}
impl<T: Num> Comps for T {
    fn default_comps() -> usize {
        T::from_mpfr(&Float::with_val(PREC, 1)).comps().len()
    }
}

#[test]
fn dd_cancellation() {
    cancellation::<Dd>(300);
}

#[test]
fn qd_cancellation() {
    cancellation::<Qd>(400);
}

/// Results just below the overflow threshold are finite and accurate.
fn near_overflow<T: Num>(seed: u64) {
    let n = T::NAME;
    let big = |r: &mut StdRng, lo: i32, hi: i32| random::<T>(r, lo..hi, true);
    let same_sign = |r: &mut StdRng, lo: i32, hi: i32, like: T| {
        let x: T = random(r, lo..hi, false);
        if like.to_mpfr().is_sign_negative() {
            -x
        } else {
            x
        }
    };
    let add_gen = |r: &mut StdRng| {
        let a = big(r, 1022, 1023);
        (a, same_sign(r, 1000, 1022, a))
    };
    check(
        &format!("{n} + {n} near overflow"),
        seed,
        T::ADD,
        add_gen,
        |a, b| a + b,
        add,
    );
    check(
        &format!("{n} - {n} near overflow"),
        seed + 1,
        T::ADD,
        |r| {
            let a = big(r, 1023, 1024);
            (a, same_sign(r, 1022, 1024, a))
        },
        |a, b| a - b,
        sub,
    );
    check(
        &format!("{n} + f64 near overflow"),
        seed + 2,
        T::ADD,
        |r| (big(r, 1022, 1023), random::<f64>(r, 900..1022, false)),
        |a, b| a.abs() + b,
        |a, b| a.abs() + b,
    );
    check(
        &format!("{n} * {n} near overflow"),
        seed + 3,
        T::MUL,
        |r| (big(r, 511, 512), big(r, 510, 511)),
        |a, b| a * b,
        mul,
    );
    check(
        &format!("{n} * f64 near overflow"),
        seed + 4,
        T::MUL,
        |r| (big(r, 1000, 1022), random::<f64>(r, 0..1, true)),
        |a, b| a * b,
        mul,
    );
    check(
        &format!("{n} / {n} near overflow"),
        seed + 5,
        T::DIV,
        |r| (big(r, 1022, 1023), big(r, 0, 1)),
        |a, b| a / b,
        div,
    );
    check(
        &format!("{n} / {n} huge divisor"),
        seed + 6,
        T::DIV,
        |r| (big(r, 900, 1024), big(r, 1000, 1024)),
        |a, b| a / b,
        div,
    );
    check(
        &format!("{n} / f64 near overflow"),
        seed + 7,
        T::DIV,
        |r| (big(r, 1022, 1023), random::<f64>(r, 0..1, true)),
        |a, b| a / b,
        div,
    );
    check(
        &format!("{n} / f64 huge divisor"),
        seed + 8,
        T::DIV,
        |r| (big(r, 900, 1024), random::<f64>(r, 1000..1024, true)),
        |a, b| a / b,
        div,
    );
    check(
        &format!("sqrt {n} near overflow"),
        seed + 9,
        T::DIV,
        |r| (random::<T>(r, 1000..1024, false), 0.0),
        |a, _| a.sqrt(),
        |a, _| a.sqrt(),
    );
}

/// Results beyond the range are ±inf with the sign of the exact result, never NaN.
fn true_overflow<T: Num>(seed: u64) {
    let mut r = rng(seed);
    for _ in 0..samples() / 10 {
        let a: T = random(&mut r, 1023..1024, true);
        let b: T = random(&mut r, 1023..1024, true);
        let f: f64 = random(&mut r, 2..100, true);
        let small: T = random(&mut r, -100..-2, true);
        let cases = [
            (a * b, a.to_mpfr() * b.to_mpfr()),
            (a * f, a.to_mpfr() * f),
            (a / small, a.to_mpfr() / small.to_mpfr()),
            (a / (1.0 / f), a.to_mpfr() * f),
            (a + a, a.to_mpfr() * 2),
            (a - (-a), a.to_mpfr() * 2),
            (a + a.comps()[0], a.to_mpfr() * 2),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            let c = got.comps();
            assert!(
                c[0].is_infinite() && (c[0] < 0.0) == want.is_sign_negative(),
                "{}: case {i} with {a:?}, {b:?}, {f}, {small:?} gave {got:?}",
                T::NAME
            );
            assert!(c[1..].iter().all(|&x| x == 0.0), "{}: {got:?}", T::NAME);
        }
    }
    let max = T::from_mpfr(&Float::with_val(PREC, 1)) * f64::MAX;
    assert!(max.comps()[0].is_finite());
}

#[test]
fn dd_near_overflow() {
    near_overflow::<Dd>(500);
    true_overflow::<Dd>(510);
}

#[test]
fn qd_near_overflow() {
    near_overflow::<Qd>(600);
    true_overflow::<Qd>(610);
}

/// Results just above the documented thresholds keep the full precision.
fn near_underflow<T: Num>(seed: u64) {
    let n = T::NAME;
    let m = T::MIN_EXP;
    let tiny = move |r: &mut StdRng| random::<T>(r, m..m + 40, true);
    check(
        &format!("{n} + {n} near underflow"),
        seed,
        T::ADD,
        move |r| (tiny(r), tiny(r)),
        |a, b| a + b,
        add,
    );
    check(
        &format!("{n} * {n} near underflow"),
        seed + 1,
        T::MUL,
        move |r| {
            (
                random::<T>(r, m / 2 + 1..m / 2 + 20, true),
                random::<T>(r, m / 2 + 1..m / 2 + 20, true),
            )
        },
        |a, b| a * b,
        mul,
    );
    check(
        &format!("{n} * f64 near underflow"),
        seed + 2,
        T::MUL,
        move |r| {
            (
                random::<T>(r, m + 40..m + 60, true),
                random::<f64>(r, -40..-1, true),
            )
        },
        |a, b| a * b,
        mul,
    );
    check(
        &format!("{n} / {n} near underflow"),
        seed + 3,
        T::DIV,
        move |r| (tiny(r), random::<T>(r, -40..0, true)),
        |a, b| a / b,
        div,
    );
    check(
        &format!("{n} / f64 near underflow"),
        seed + 4,
        T::DIV,
        move |r| (tiny(r), random::<f64>(r, -40..0, true)),
        |a, b| a / b,
        div,
    );
    check(
        &format!("sqrt {n} near underflow"),
        seed + 5,
        T::DIV,
        move |r| (random::<T>(r, m..m + 4, false), 0.0),
        |a, _| a.sqrt(),
        |a, _| a.sqrt(),
    );
}

#[test]
fn dd_near_underflow() {
    near_underflow::<Dd>(700);
}

#[test]
fn qd_near_underflow() {
    near_underflow::<Qd>(800);
}

/// Prints, without asserting, how the precision of a product decays below the thresholds.
fn underflow_profile<T: Num>(seed: u64) {
    let mut r = rng(seed);
    for e in (T::MIN_EXP - 60..=T::MIN_EXP + 20).step_by(20) {
        let mut err = MaxError::new(format!("{} * {} at 2^{e}", T::NAME, T::NAME));
        for _ in 0..1000 {
            let a: T = random(&mut r, e..e + 1, true);
            let b: T = random(&mut r, 0..1, true);
            err.record(
                &(a * b).to_mpfr(),
                &(a.to_mpfr() * b.to_mpfr()),
                String::new,
            );
        }
        println!("UNDERFLOW {:<28} max rel err 2^{:.1}", err.name, err.log2());
        if e >= T::MIN_EXP {
            err.assert_below_pow2(T::MUL);
        }
    }
}

#[test]
fn underflow_threshold_is_where_documented() {
    underflow_profile::<Dd>(900);
    underflow_profile::<Qd>(910);
}

/// The IEEE result of each operation on special operands, checked against f64's own.
fn special_values<T: Num>() {
    let specials = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -3.0e-300,
        1.0e300,
        f64::MAX,
        -f64::MAX,
    ];
    // `from_mpfr` loses the sign of zero; build the operands from their components.
    let lift = |x: f64| {
        let mut c = vec![0.0; T::default_comps()];
        c[0] = x;
        T::from_comps(&c)
    };
    let same = |got: T, want: f64, what: &str| {
        let c = got.comps();
        if want.is_nan() {
            assert!(c[0].is_nan(), "{}: {what} = {got:?}, want NaN", T::NAME);
        } else if want.is_infinite() {
            assert_eq!(c[0], want, "{}: {what} = {got:?}", T::NAME);
            assert!(
                c[1..].iter().all(|&x| x == 0.0),
                "{}: {what} = {got:?}",
                T::NAME
            );
        } else if want == 0.0 {
            // Zero with IEEE's sign in the leading component (f64 computed the same
            // operation on the same doubles).
            assert!(
                c.iter().all(|&x| x == 0.0) && c[0].is_sign_negative() == want.is_sign_negative(),
                "{}: {what} = {got:?}, want {want:?}",
                T::NAME
            );
        } else {
            assert!(
                c[0].is_finite(),
                "{}: {what} = {got:?}, want {want}",
                T::NAME
            );
        }
    };
    for &x in &specials {
        for &y in &specials {
            let (a, b) = (lift(x), lift(y));
            // Where f64 overflows a double-word may still be finite (MAX + MAX's tail is not
            // f64's MAX + MAX); compare only where the operands make the outcome clear.
            let exact_sum = x + y;
            same(a + b, exact_sum, &format!("{x} + {y}"));
            same(a + y, exact_sum, &format!("{x} + f64 {y}"));
            same(a.radd(y), exact_sum, &format!("f64 {y} + {x}"));
            same(a - b, x - y, &format!("{x} - {y}"));
            same(a - y, x - y, &format!("{x} - f64 {y}"));
            same(a.rsub(y), y - x, &format!("f64 {y} - {x}"));
            same(a * b, x * y, &format!("{x} * {y}"));
            same(a * y, x * y, &format!("{x} * f64 {y}"));
            same(a / b, x / y, &format!("{x} / {y}"));
            same(a / y, x / y, &format!("{x} / f64 {y}"));
            same(a.rdiv(y), y / x, &format!("f64 {y} / {x}"));
        }
        same(lift(x).sqrt(), x.sqrt(), &format!("sqrt {x}"));
    }
    // Signs of infinities and zeros from division, and the square roots of signed zeros.
    let inf = lift(f64::INFINITY);
    assert_eq!((lift(1.0) / lift(-0.0)).comps()[0], f64::NEG_INFINITY);
    assert_eq!((lift(-1.0) / lift(0.0)).comps()[0], f64::NEG_INFINITY);
    assert_eq!((lift(-1.0) / 0.0).comps()[0], f64::NEG_INFINITY);
    assert_eq!((-inf * 2.0).comps()[0], f64::NEG_INFINITY);
    assert_eq!((inf * lift(-2.0)).comps()[0], f64::NEG_INFINITY);
    let root = lift(-0.0).sqrt().comps()[0];
    assert!(
        root == 0.0 && root.is_sign_negative(),
        "{}: sqrt(-0) = {root}",
        T::NAME
    );
    let root = lift(0.0).sqrt().comps()[0];
    assert!(
        root == 0.0 && root.is_sign_positive(),
        "{}: sqrt(+0) = {root}",
        T::NAME
    );
    assert!(lift(-1e-300).sqrt().comps()[0].is_nan());
    // Each NaN operand propagates through every operation, including the cheap paths.
    let nan = lift(f64::NAN);
    let one = lift(1.0);
    for got in [
        nan + one,
        one + nan,
        nan * one,
        one * nan,
        nan / one,
        one / nan,
        nan.sqrt(),
        one + f64::NAN,
        one * f64::NAN,
        one / f64::NAN,
        nan.abs(),
        nan.floor(),
        nan.ceil(),
        nan.round(),
        nan.trunc(),
        nan.powi(3),
        nan.powi(-3),
    ] {
        assert!(got.comps()[0].is_nan(), "{}: {got:?}", T::NAME);
    }
    // min and max ignore a NaN, as f64's do.
    assert_eq!(nan.min(one), one);
    assert_eq!(one.max(nan), one);
    // Rounding functions keep infinities.
    for f in [T::floor, T::ceil, T::round, T::trunc, T::abs] {
        assert_eq!(f(inf).comps()[0], f64::INFINITY);
    }
}

/// Exact zeros carry IEEE's sign in the leading component (IEEE 754 §6.3, round to nearest):
/// a sum or difference of operands that cancel exactly is +0, −0 + −0 and −0 − +0 are −0, a
/// product or quotient with a zero operand has the sign of the product of the signs, and the
/// conversions to f64 (and qd's to dd) keep a zero's sign; for operands with every component
/// in use (random, all 106 or 212 bits) as well as for zeros and single doubles.
// `x - x` is the point of the test.
#[allow(clippy::eq_op)]
fn zero_signs<T: Num>(seed: u64) {
    let mut rng = rng(seed);
    let lift = |x: f64| {
        let mut c = vec![0.0; T::default_comps()];
        c[0] = x;
        T::from_comps(&c)
    };
    let sign = |x: T| x.comps()[0];
    let check = |got: T, negative: bool, what: &str| {
        let c = got.comps();
        assert!(
            c.iter().all(|&x| x == 0.0) && c[0].is_sign_negative() == negative,
            "{}: {what} = {got:?}, want {}0",
            T::NAME,
            if negative { "-" } else { "+" }
        );
    };
    let (pz, nz) = (lift(0.0), lift(-0.0));
    for (a, b, fa, fb) in [
        (pz, pz, 0.0f64, 0.0f64),
        (pz, nz, 0.0, -0.0),
        (nz, pz, -0.0, 0.0),
        (nz, nz, -0.0, -0.0),
    ] {
        let both = format!("{fa:?}, {fb:?}");
        check(a + b, (fa + fb).is_sign_negative(), &format!("+ {both}"));
        check(a - b, (fa - fb).is_sign_negative(), &format!("- {both}"));
        check(a * b, (fa * fb).is_sign_negative(), &format!("* {both}"));
        check(
            a + fb,
            (fa + fb).is_sign_negative(),
            &format!("+ f64 {both}"),
        );
        check(
            a - fb,
            (fa - fb).is_sign_negative(),
            &format!("- f64 {both}"),
        );
        check(
            a * fb,
            (fa * fb).is_sign_negative(),
            &format!("* f64 {both}"),
        );
        check(
            b.radd(fa),
            (fa + fb).is_sign_negative(),
            &format!("f64 + {both}"),
        );
        check(
            b.rsub(fa),
            (fa - fb).is_sign_negative(),
            &format!("f64 - {both}"),
        );
    }
    for z in [pz, nz] {
        let negative = sign(z).is_sign_negative();
        check(z.sqrt(), negative, "sqrt of a zero");
        check(T::from_comps(&z.comps()), negative, "from_comps");
        assert_eq!(
            z.to_f64().is_sign_negative(),
            negative,
            "{}: to_f64",
            T::NAME
        );
    }
    for _ in 0..samples().min(10_000) {
        let x: T = random(&mut rng, -900..900, true);
        let y: T = random(&mut rng, -60..60, true);
        let yn = sign(y) < 0.0;
        let what = format!("x = {x:?}, y = {y:?}");
        // Exact cancellation: +0 in every form.
        check(x - x, false, &format!("x - x, {what}"));
        check(-x + x, false, &format!("-x + x, {what}"));
        check(x + (-x), false, &format!("x + -x, {what}"));
        let x0 = sign(x);
        check(lift(x0) - x0, false, &format!("x0 - f64 x0, {what}"));
        check(lift(x0).rsub(x0), false, &format!("f64 x0 - x0, {what}"));
        // Zero factors and dividends: the sign of the product of the signs.
        for (z, zn) in [(pz, false), (nz, true)] {
            check(z * y, zn != yn, &format!("{zn} 0 * y, {what}"));
            check(y * z, zn != yn, &format!("y * {zn} 0, {what}"));
            check(z * sign(y), zn != yn, &format!("{zn} 0 * f64 y, {what}"));
            check(
                y * if zn { -0.0 } else { 0.0 },
                zn != yn,
                &format!("y * f64 {zn} 0, {what}"),
            );
            check(z / y, zn != yn, &format!("{zn} 0 / y, {what}"));
            check(z / sign(y), zn != yn, &format!("{zn} 0 / f64 y, {what}"));
            check(
                y.rdiv(if zn { -0.0 } else { 0.0 }),
                zn != yn,
                &format!("f64 {zn} 0 / y, {what}"),
            );
        }
        // Rounding towards zero of a value in (-1, 0) is -0, as for f64.
        let small = lift(-0.25) * (y.abs() / (y.abs() + 1.0));
        check(small.ceil(), true, &format!("ceil {small:?}"));
        check(small.trunc(), true, &format!("trunc {small:?}"));
        check(small.round(), true, &format!("round {small:?}"));
        check((-small).floor(), false, &format!("floor {:?}", -small));
    }
}

#[test]
fn dd_zero_signs() {
    zero_signs::<Dd>(41);
}

#[test]
fn qd_zero_signs() {
    zero_signs::<Qd>(42);
    let dd = Qd::from(-0.0).to_dd();
    assert!(
        dd.hi == 0.0 && dd.hi.is_sign_negative(),
        "to_dd(-0) = {dd:?}"
    );
}

#[test]
fn dd_special_values() {
    special_values::<Dd>();
}

#[test]
fn qd_special_values() {
    special_values::<Qd>();
}

/// A random value whose integer part spans several components, or a small one, or an exact
/// half-integer (the ties of `round`).
fn rounding_input<T: Num>(rng: &mut StdRng) -> T {
    match rng.gen_range(0..4) {
        0 => random(rng, -4..8, true),
        1 => random(rng, 8..230, true),
        2 => {
            let i: T = random::<T>(rng, 0..200, true);
            let i = Float::with_val(PREC, i.to_mpfr().trunc_ref());
            T::from_mpfr(&(i + 0.5))
        }
        _ => {
            // An integer plus a tiny fraction: the fraction sits in a trailing component.
            let i: T = random::<T>(rng, 20..60, true);
            let i = Float::with_val(PREC, i.to_mpfr().trunc_ref());
            let f: f64 = random(rng, -40..-1, true);
            T::from_mpfr(&(i + f))
        }
    }
}

fn rounding_and_comparisons<T: Num>(seed: u64) {
    let n = T::NAME;
    let mut r = rng(seed);
    for _ in 0..samples() {
        let a: T = rounding_input(&mut r);
        let x = a.to_mpfr();
        let cases = [
            ("floor", a.floor(), x.clone().floor()),
            ("ceil", a.ceil(), x.clone().ceil()),
            ("round", a.round(), x.clone().round()),
            ("trunc", a.trunc(), x.clone().trunc()),
            ("abs", a.abs(), x.clone().abs()),
        ];
        for (what, got, want) in cases {
            assert_eq!(got.to_mpfr(), want, "{n} {what}({a:?}) = {got:?}");
            // The result is normalised: its components are what MPFR's rounding gives.
            assert_eq!(
                got.comps(),
                T::from_mpfr(&want).comps(),
                "{n} {what}({a:?}) not normalised"
            );
        }
        // Comparisons, with b equal to a in its leading components half the time.
        let b: T = if r.gen::<bool>() {
            {
                let k = r.gen_range(1..T::default_comps());
                near_equal::<T>(&mut r, k).1
            }
        } else if r.gen::<bool>() {
            a
        } else {
            rounding_input(&mut r)
        };
        let y = b.to_mpfr();
        assert_eq!(a < b, x < y, "{n}: {a:?} < {b:?}");
        assert_eq!(a <= b, x <= y, "{n}: {a:?} <= {b:?}");
        assert_eq!(a > b, x > y, "{n}: {a:?} > {b:?}");
        assert_eq!(a == b, x == y, "{n}: {a:?} == {b:?}");
        assert_eq!(
            a.min(b).to_mpfr(),
            x.clone().min(&y),
            "{n}: min({a:?}, {b:?})"
        );
        assert_eq!(
            a.max(b).to_mpfr(),
            x.clone().max(&y),
            "{n}: max({a:?}, {b:?})"
        );
    }
}

#[test]
fn dd_rounding_and_comparisons() {
    rounding_and_comparisons::<Dd>(1000);
}

#[test]
fn qd_rounding_and_comparisons() {
    rounding_and_comparisons::<Qd>(1100);
}

/// powi for |n| <= 64 on bases around 1 (results within 2^±512): binary powering multiplies
/// up to 2·log2(n) rounding errors, and a negative n adds a division.
fn powi<T: Num>(seed: u64, bound: f64) {
    let n = T::NAME;
    let mut err = MaxError::new(format!("{n} powi |n|<=64"));
    let mut r = rng(seed);
    for _ in 0..samples() {
        let a: T = random(&mut r, -8..8, true);
        let k = r.gen_range(-64..=64);
        let got = a.powi(k);
        let want = a.to_mpfr().pow(k);
        err.record(&got.to_mpfr(), &want, || format!("{a:?}^{k} -> {got:?}"));
    }
    err.assert_below_pow2(bound);
    assert_eq!(T::from_u64(0).powi(0).comps()[0], 1.0);
}

#[test]
fn dd_powi() {
    // Up to 12 roundings of at most 5u² each, plus a division: measured 2^-99.3 over 10^5
    // inputs; asserted at 2^-98.
    powi::<Dd>(1200, -98.0);
}

#[test]
fn qd_powi() {
    // Measured 2^-209.8 over 10^5 inputs.
    powi::<Qd>(1300, -200.0);
}

fn integer_conversions<T: Num>(seed: u64) {
    let mut r = rng(seed);
    let edge_i = [
        i64::MIN,
        i64::MIN + 1,
        -1,
        0,
        1,
        i64::MAX,
        i64::MAX - 1,
        1 << 53,
        (1 << 53) + 1,
    ];
    let edge_u = [
        0,
        1,
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        (1 << 63) + 1,
        (1 << 53) + 1,
    ];
    let ints = edge_i
        .into_iter()
        .chain((0..samples()).map(|_| r.gen::<i64>() >> r.gen_range(0..63)));
    for i in ints {
        let got = T::from_i64(i);
        assert_eq!(
            got.to_mpfr(),
            Float::with_val(PREC, i),
            "{}::from({i})",
            T::NAME
        );
        assert_eq!(got.comps(), T::from_mpfr(&Float::with_val(PREC, i)).comps());
    }
    let mut r = rng(seed + 1);
    let uints = edge_u
        .into_iter()
        .chain((0..samples()).map(|_| r.gen::<u64>() >> r.gen_range(0..64)));
    for u in uints {
        let got = T::from_u64(u);
        assert_eq!(
            got.to_mpfr(),
            Float::with_val(PREC, u),
            "{}::from({u})",
            T::NAME
        );
        assert_eq!(got.comps(), T::from_mpfr(&Float::with_val(PREC, u)).comps());
    }
}

#[test]
fn dd_integer_conversions() {
    integer_conversions::<Dd>(1400);
}

#[test]
fn qd_integer_conversions() {
    integer_conversions::<Qd>(1500);
}

/// Ordinary inputs in [-10, 10), for a sanity figure next to the wide-range ones.
#[test]
fn ordinary_inputs() {
    check(
        "dd * dd in [-10,10)",
        1600,
        Dd::MUL,
        |r| (uniform::<Dd>(r, -10.0, 10.0), uniform::<Dd>(r, -10.0, 10.0)),
        |a, b| a * b,
        mul,
    );
    check(
        "qd * qd in [-10,10)",
        1601,
        Qd::MUL,
        |r| (uniform::<Qd>(r, -10.0, 10.0), uniform::<Qd>(r, -10.0, 10.0)),
        |a, b| a * b,
        mul,
    );
}

/// `Qd + Qd` takes the component-wise (sloppy) sum when `|a0 + b0| >= 2^-6 (|a0| + |b0|)` and the
/// merging sum below: pairs whose leading components cancel to just above and just below that
/// ratio (b0 = -c a0 (1 ± δ) with c = 63/65, and random full-precision tails), and pairs on the
/// sloppy side (c = 0.5, 0.9, 0.95), all within the bound.
#[test]
fn qd_add_fast_path_threshold() {
    for (i, &(c, spread)) in [
        (63.0 / 65.0, 1e-12),
        (63.0 / 65.0, 1e-4),
        (0.95, 1e-2),
        (0.9, 1e-2),
        (0.5, 1e-2),
    ]
    .iter()
    .enumerate()
    {
        check(
            &format!("qd + qd at b0 ~ -{c} a0"),
            900 + i as u64,
            Qd::ADD,
            move |r| {
                let a: Qd = random(r, -300..300, true);
                let f = c * (1.0 + r.gen_range(-spread..spread));
                let tail: Qd = random(r, -60..-53, true);
                let b = Qd::from_mpfr(&(a.to_mpfr() * (-f) * (tail.to_mpfr() + 1.0)));
                (a, b)
            },
            |a, b| a + b,
            add,
        );
    }
}
