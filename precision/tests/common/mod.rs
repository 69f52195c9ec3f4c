//! Shared machinery for the accuracy tests: conversion between `Dd`/`Qd` and MPFR (rug),
//! random inputs with every significand bit random, and the running maximum of the relative
//! error against MPFR.
#![allow(dead_code)]

use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rug::Float;

/// Working precision of the MPFR references: far beyond qd's 212 bits, so the reference's own
/// rounding never shows in a measured error.
pub const PREC: u32 = 480;

/// Samples per operation and function; `HPQUAD_SAMPLES` overrides the default of 100 000.
pub fn samples() -> usize {
    std::env::var("HPQUAD_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

/// A fixed-seed generator, so that a failure can be reproduced.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// A number type that converts to and from MPFR.
pub trait Exact: Copy + std::fmt::Debug {
    const NAME: &'static str;
    /// The value as an MPFR number (exact up to 2^-480 relative).
    fn to_mpfr(self) -> Float;
    /// The MPFR number rounded component by component (each the nearest double to the rest).
    fn from_mpfr(x: &Float) -> Self;
}

fn components_of(x: &Float, n: usize) -> [f64; 4] {
    let mut out = [0.0; 4];
    let mut rest = x.clone();
    for slot in out.iter_mut().take(n) {
        let c = rest.to_f64();
        *slot = c;
        if !c.is_finite() {
            break;
        }
        rest -= c;
    }
    out
}

impl Exact for f64 {
    const NAME: &'static str = "f64";
    fn to_mpfr(self) -> Float {
        Float::with_val(PREC, self)
    }
    fn from_mpfr(x: &Float) -> f64 {
        x.to_f64()
    }
}

impl Exact for Dd {
    const NAME: &'static str = "dd";
    fn to_mpfr(self) -> Float {
        Float::with_val(PREC, self.hi) + self.lo
    }
    fn from_mpfr(x: &Float) -> Dd {
        let c = components_of(x, 2);
        Dd::new(c[0], c[1])
    }
}

impl Exact for Qd {
    const NAME: &'static str = "qd";
    fn to_mpfr(self) -> Float {
        let mut f = Float::with_val(PREC, self.0[0]);
        for &c in &self.0[1..] {
            f += c;
        }
        f
    }
    fn from_mpfr(x: &Float) -> Qd {
        Qd(components_of(x, 4))
    }
}

/// A random number `±m · 2^e` with `m` uniform in [1, 2) to full (480-bit) precision, rounded to
/// `T`, and `e` uniform in `exponents`; negative only when `signed`.
pub fn random<T: Exact>(rng: &mut StdRng, exponents: std::ops::Range<i32>, signed: bool) -> T {
    let mut m = Float::with_val(PREC, 1.0);
    let mut scale = Float::with_val(PREC, 1.0);
    for _ in 0..8 {
        scale >>= 60;
        let bits: u64 = rng.gen::<u64>() >> 4;
        m += Float::with_val(PREC, bits) * &scale;
    }
    let e = rng.gen_range(exponents);
    m <<= e;
    if signed && rng.gen::<bool>() {
        m = -m;
    }
    T::from_mpfr(&m)
}

/// A random number uniform in `[lo, hi)` with a full-precision significand.
pub fn uniform<T: Exact>(rng: &mut StdRng, lo: f64, hi: f64) -> T {
    let mut m = Float::with_val(PREC, 0.0);
    let mut scale = Float::with_val(PREC, 1.0);
    for _ in 0..8 {
        scale >>= 60;
        let bits: u64 = rng.gen::<u64>() >> 4;
        m += Float::with_val(PREC, bits) * &scale;
    }
    let x = m * (hi - lo) + lo;
    T::from_mpfr(&x)
}

/// The relative error `|got - want| / |want|`, or the absolute error where `want` is zero.
pub fn relative_error(got: &Float, want: &Float) -> f64 {
    let diff = Float::with_val(PREC, got - want).abs();
    if want.is_zero() {
        diff.to_f64()
    } else {
        (diff / want.clone().abs()).to_f64()
    }
}

/// The largest relative error seen so far and the input that produced it.
#[derive(Debug)]
pub struct MaxError {
    pub name: String,
    pub worst: f64,
    pub at: String,
    pub count: usize,
}

impl MaxError {
    pub fn new(name: impl Into<String>) -> MaxError {
        MaxError {
            name: name.into(),
            worst: 0.0,
            at: String::new(),
            count: 0,
        }
    }

    /// Records one comparison; a NaN where MPFR has a number counts as an infinite error.
    pub fn record(&mut self, got: &Float, want: &Float, input: impl FnOnce() -> String) {
        self.count += 1;
        let err = if got.is_nan() != want.is_nan() {
            f64::INFINITY
        } else if got.is_nan() || (got.is_infinite() && want.is_infinite() && got == want) {
            0.0
        } else {
            relative_error(got, want)
        };
        if err > self.worst || err.is_nan() {
            self.worst = err;
            self.at = input();
        }
    }

    /// The worst error as a power of two, e.g. -104.3.
    pub fn log2(&self) -> f64 {
        self.worst.log2()
    }

    /// Prints the figure (for the tables in precision/README.md) and fails when it exceeds
    /// `2^bound_log2`.
    pub fn assert_below_pow2(&self, bound_log2: f64) {
        println!(
            "ACCURACY {:<28} max rel err 2^{:>7.1} over {:>7} inputs (bound 2^{})",
            self.name,
            self.log2(),
            self.count,
            bound_log2
        );
        assert!(
            self.worst <= bound_log2.exp2(),
            "{}: relative error 2^{:.2} exceeds 2^{} at {}",
            self.name,
            self.log2(),
            bound_log2,
            self.at
        );
    }
}
