//! Tiny and subnormal arguments whose results a double-double or quad-double can still carry
//! to full precision (issue 17): `sqrt` of every positive argument down to the smallest
//! subnormal, in the scalar code and in the SIMD lanes (`precision::lanes`, on every
//! instruction set the CPU has); division by a `Dd`, `Qd` or `f64` of tiny or subnormal
//! operands whose quotient the type carries (scalar and lanes); and `atan2` of points whose
//! coordinates are tiny or subnormal, or whose ratio is far from 1; against MPFR (rug, 480
//! bits).
//!
//! Normal arguments run through the same checks, to show that nothing changed there.

mod common;

use common::{random, rng, samples, Exact, MaxError};
use precision::lanes::{Columns, Isa, Operand};
use precision::{Dd, Qd};
use rug::Float;
use std::ops::Range;

/// The accuracy each type must reach, as a power of two.
trait Bits {
    const BITS: i32;
}

impl Bits for Dd {
    const BITS: i32 = 100;
}

impl Bits for Qd {
    const BITS: i32 = 200;
}

/// `sqrt` over positive arguments with binary exponents in `exponents`, scalar and lanes:
/// the lanes must give the scalar bits, and both be within 2^-BITS of MPFR's root. Every root
/// lies above 2^-538, where both types keep their full precision.
fn sqrt_over<T: Exact + Bits + Columns + PartialEq>(
    exponents: Range<i32>,
    seed: u64,
    root: fn(T) -> T,
) -> f64 {
    let mut rng = rng(seed);
    let n = samples() / 10;
    let args: Vec<T> = (0..n)
        .map(|_| random(&mut rng, exponents.clone(), false))
        .collect();
    let mut err = MaxError::new(format!("{} sqrt 2^{exponents:?}", T::NAME));
    let scalar: Vec<T> = args.iter().map(|&a| root(a)).collect();
    for (a, r) in args.iter().zip(&scalar) {
        let want = a.to_mpfr().sqrt();
        err.record(&r.to_mpfr(), &want, || format!("{a:?}"));
    }
    for isa in Isa::available() {
        let mut lanes = vec![scalar[0]; n];
        T::sqrt_cols(isa, &mut lanes, &args);
        for i in 0..n {
            assert!(
                lanes[i] == scalar[i],
                "{} sqrt({:?}) on {isa:?}: lanes {:?}, scalar {:?}",
                T::NAME,
                args[i],
                lanes[i],
                scalar[i]
            );
        }
    }
    err.assert_below_pow2(-T::BITS as f64);
    err.log2()
}

#[test]
fn dd_sqrt_of_tiny_and_subnormal_arguments() {
    sqrt_over::<Dd>(-1074..-1022, 1, Dd::sqrt);
    sqrt_over::<Dd>(-1022..-900, 2, Dd::sqrt);
}

#[test]
fn dd_sqrt_of_normal_arguments() {
    sqrt_over::<Dd>(-900..1024, 3, Dd::sqrt);
}

#[test]
fn qd_sqrt_of_tiny_and_normal_arguments() {
    sqrt_over::<Qd>(-1074..-1022, 4, Qd::sqrt);
    sqrt_over::<Qd>(-1022..-800, 5, Qd::sqrt);
    sqrt_over::<Qd>(-800..1024, 6, Qd::sqrt);
}

/// The error of `got` against `want` relative to `|want|`, but to no less than
/// `2^(BITS - 1072)`: a result below that cannot carry 2^-BITS relative in components whose
/// last bit is 2^-1074, and is measured against a few units of that bit instead.
fn error_above_subnormals<T: Bits>(got: &Float, want: &Float) -> f64 {
    let floor = Float::with_val(common::PREC, 1) << (T::BITS - 1072);
    let scale = Float::with_val(common::PREC, want.abs_ref()).max(&floor);
    let diff = Float::with_val(common::PREC, got - want).abs();
    (diff / scale).to_f64()
}

/// `atan2(y, x)` for `y`, `x` of either sign with binary exponents in `ey` and `ex`.
fn atan2_over<T: Exact + Bits + precision::Real>(ey: Range<i32>, ex: Range<i32>, seed: u64) -> f64 {
    let mut rng = rng(seed);
    let (mut worst, mut at) = (0.0f64, String::new());
    let n = samples() / 10;
    for _ in 0..n {
        let y: T = random(&mut rng, ey.clone(), true);
        let x: T = random(&mut rng, ex.clone(), true);
        let want = y.to_mpfr().atan2(&x.to_mpfr());
        let err = error_above_subnormals::<T>(&y.atan2(x).to_mpfr(), &want);
        if err > worst || err.is_nan() {
            (worst, at) = (err, format!("atan2({y:?}, {x:?})"));
        }
    }
    let name = format!("{} atan2 y 2^{ey:?}, x 2^{ex:?}", <T as Exact>::NAME);
    println!(
        "ACCURACY {name:<28} max rel err 2^{:>7.1} over {n:>7} inputs (bound 2^{})",
        worst.log2(),
        -T::BITS
    );
    assert!(
        worst <= (-T::BITS as f64).exp2(),
        "{name}: error 2^{:.1} at {at}",
        worst.log2()
    );
    worst.log2()
}

/// Coordinates both subnormal, one subnormal, both tiny with ratios from 2^-300 to 2^300,
/// both huge, and normal ones with ratios from 2^-185 to 2^185 (the series' range), for both
/// types.
fn atan2_tiny_coordinates<T: Exact + Bits + precision::Real>(seed: u64) {
    let ranges = [
        (-1074..-1022, -1074..-1022),
        (-1074..-1022, -1022..-900),
        (-1022..-900, -1074..-1022),
        (-1074..-1022, -10..10),
        (-10..10, -1074..-1022),
        (-1000..-900, -900..-800),
        (-1074..-900, -1000..-700),
        (-1074..-700, -1074..-700),
        (-700..-400, -1074..-1000),
        (800..1024, 900..1024),
        (0..10, 900..1024),
        (900..1024, 0..10),
        (-200..-100, -10..10),
        (-10..10, -200..-100),
    ];
    for (k, (ey, ex)) in ranges.into_iter().enumerate() {
        atan2_over::<T>(ey, ex, seed + k as u64);
    }
}

#[test]
fn dd_atan2_of_tiny_and_subnormal_coordinates() {
    atan2_tiny_coordinates::<Dd>(100);
}

#[test]
fn qd_atan2_of_tiny_and_subnormal_coordinates() {
    atan2_tiny_coordinates::<Qd>(200);
}

/// `x / y` and `x / d` (`d` a double) for `x`, `y`, `d` of either sign with binary exponents in
/// `ex` and `ey`, scalar and lanes: the lanes must give the scalar bits, and the quotients be
/// within 2^-BITS of MPFR's relative to the quotient, or to `2^(BITS - 1072)` below it
/// (`error_above_subnormals`).
fn division_over<T>(ex: Range<i32>, ey: Range<i32>, seed: u64)
where
    T: Exact
        + Bits
        + Columns
        + PartialEq
        + std::ops::Div<Output = T>
        + std::ops::Div<f64, Output = T>,
{
    let mut rng = rng(seed);
    let n = samples() / 10;
    // A double divisor per stretch of the column, as div_f64_cols takes one.
    const STRETCH: usize = 61;
    let x: Vec<T> = (0..n).map(|_| random(&mut rng, ex.clone(), true)).collect();
    let y: Vec<T> = (0..n).map(|_| random(&mut rng, ey.clone(), true)).collect();
    let d: Vec<f64> = (0..n.div_ceil(STRETCH))
        .map(|_| random(&mut rng, ey.clone(), true))
        .collect();
    let by_t: Vec<T> = x.iter().zip(&y).map(|(&a, &b)| a / b).collect();
    let by_f64: Vec<T> = (0..n).map(|i| x[i] / d[i / STRETCH]).collect();
    let (mut worst, mut at) = (0.0f64, String::new());
    let mut record = |got: T, want: Float, what: &dyn Fn() -> String| {
        let got = got.to_mpfr();
        if want.clone().abs() > f64::MAX / 16.0 {
            // Overflow (or nearly): an infinity or a huge number of the right sign.
            assert!(
                got.is_sign_negative() == want.is_sign_negative(),
                "{}",
                what()
            );
            assert!(
                got.is_infinite() || got.clone().abs() > f64::MAX / 32.0,
                "{}",
                what()
            );
            return;
        }
        let err = error_above_subnormals::<T>(&got, &want);
        if err > worst || err.is_nan() {
            (worst, at) = (err, what());
        }
    };
    for i in 0..n {
        let want = x[i].to_mpfr() / y[i].to_mpfr();
        record(by_t[i], want, &|| format!("{:?} / {:?}", x[i], y[i]));
        let want = x[i].to_mpfr() / d[i / STRETCH];
        record(by_f64[i], want, &|| {
            format!("{:?} / {:?}", x[i], d[i / STRETCH])
        });
    }
    for isa in Isa::available() {
        let mut lanes = vec![by_t[0]; n];
        T::div_cols(isa, &mut lanes, Operand::Column(&x), Operand::Column(&y));
        for i in 0..n {
            assert!(
                lanes[i] == by_t[i],
                "{} {:?} / {:?} on {isa:?}: lanes {:?}, scalar {:?}",
                <T as Exact>::NAME,
                x[i],
                y[i],
                lanes[i],
                by_t[i]
            );
        }
        for (k, chunk) in x.chunks(STRETCH).enumerate() {
            let mut lanes = vec![by_t[0]; chunk.len()];
            T::div_f64_cols(isa, &mut lanes, chunk, d[k]);
            for (j, q) in lanes.iter().enumerate() {
                let i = k * STRETCH + j;
                assert!(
                    *q == by_f64[i],
                    "{} {:?} / {:?} on {isa:?}: lanes {q:?}, scalar {:?}",
                    <T as Exact>::NAME,
                    x[i],
                    d[k],
                    by_f64[i]
                );
            }
        }
    }
    let name = format!("{} / x 2^{ex:?}, y 2^{ey:?}", <T as Exact>::NAME);
    println!(
        "ACCURACY {name:<28} max rel err 2^{:>7.1} over {:>7} inputs (bound 2^{})",
        worst.log2(),
        2 * n,
        -T::BITS
    );
    assert!(
        worst <= (-T::BITS as f64).exp2(),
        "{name}: error 2^{:.1} at {at}",
        worst.log2()
    );
}

/// Dividends and divisors both subnormal, one subnormal, both below `MIN_POSITIVE`, a tiny
/// dividend over a normal divisor, quotients that underflow; then normal and huge operands, to
/// show that nothing changed there.
fn division_of_tiny_operands<T>(seed: u64)
where
    T: Exact
        + Bits
        + Columns
        + PartialEq
        + std::ops::Div<Output = T>
        + std::ops::Div<f64, Output = T>,
{
    let ranges = [
        (-1074..-1022, -1074..-1022),
        (-1022..-900, -1074..-1022),
        (-500..-100, -1074..-1022),
        (-1074..-1000, -1000..-900),
        (-1000..-863, -500..-400),
        (-900..-800, -100..0),
        (-1074..-900, -10..10),
        (-1074..-950, -1074..-950),
        (-800..800, -100..100),
        (900..1024, 960..1024),
        (-1074..1024, -1074..1024),
    ];
    for (k, (ex, ey)) in ranges.into_iter().enumerate() {
        division_over::<T>(ex, ey, seed + k as u64);
    }
}

#[test]
fn dd_division_of_tiny_and_subnormal_operands() {
    division_of_tiny_operands::<Dd>(300);
}

#[test]
fn qd_division_of_tiny_and_subnormal_operands() {
    division_of_tiny_operands::<Qd>(400);
}
