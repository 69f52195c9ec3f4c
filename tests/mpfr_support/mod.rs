//! Shared by the accuracy tests of the methods: a number of any precision in MPFR, and its
//! correct digits and error against an MPFR reference.
#![allow(dead_code)]

use hpquad::precision::Real;
use rug::Float;

/// Bits for the MPFR references: well past qd's 212, and enough to hold any qd's limbs
/// exactly.
pub const BITS: u32 = 1000;

/// The exact value of a number in any precision: the sum of its limbs, in MPFR.
pub fn mpfr<T: Real>(x: T) -> Float {
    let mut sum = Float::with_val(BITS, 0);
    for limb in x.limbs() {
        sum += limb;
    }
    sum
}

/// Correct significant digits of `x` against `reference`: -log10 |x - ref| / |ref|.
pub fn digits<T: Real>(x: T, reference: &Float) -> f64 {
    let err = Float::with_val(BITS, &mpfr(x) - reference).abs() / reference.clone().abs();
    if err.is_zero() {
        f64::INFINITY
    } else {
        -err.log10().to_f64()
    }
}

/// |x - ref| as a double.
pub fn abs_error<T: Real>(x: T, reference: &Float) -> f64 {
    Float::with_val(BITS, &mpfr(x) - reference).abs().to_f64()
}
