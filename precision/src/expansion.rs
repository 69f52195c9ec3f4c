//! The crate-private trait that lets each elementary function be written once for both
//! [`Dd`] and [`Qd`]: the arithmetic they share, plus the few numbers in which an algorithm's
//! dd and qd versions differ (how many series terms, how far to reduce).

use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use crate::{Dd, Qd};

/// A floating-point expansion: `Dd` or `Qd`.
pub(crate) trait Expansion:
    Copy
    + PartialOrd
    + PartialOrd<f64>
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
{
    /// The number of doubles: 2 or 4.
    const COMPONENTS: usize;
    /// log2 of the relative precision, as a positive number: 104 or 209.
    const PRECISION_BITS: i32;
    const ZERO: Self;
    const ONE: Self;
    const NAN: Self;
    const INFINITY: Self;
    const PI: Self;
    const FRAC_PI_2: Self;
    const FRAC_PI_4: Self;
    const LN_2: Self;

    fn from_f64(x: f64) -> Self;
    /// Rebuilds a value from its first `COMPONENTS` normalised components (tables of
    /// constants are stored as four components and cut to the type).
    fn from_components(c: &[f64]) -> Self;
    /// The leading component.
    fn hi(self) -> f64;
    /// The components, most significant first.
    fn component(self, i: usize) -> f64;
    fn sqr(self) -> Self;
    fn sqrt(self) -> Self;
    fn recip(self) -> Self;
    fn ldexp(self, k: i32) -> Self;
    fn abs(self) -> Self;
    fn floor(self) -> Self;
}

macro_rules! impl_expansion {
    ($t:ident, $components:literal, $bits:literal) => {
        impl Expansion for $t {
            const COMPONENTS: usize = $components;
            const PRECISION_BITS: i32 = $bits;
            const ZERO: $t = $t::ZERO;
            const ONE: $t = $t::ONE;
            const NAN: $t = $t::NAN;
            const INFINITY: $t = $t::INFINITY;
            const PI: $t = $t::PI;
            const FRAC_PI_2: $t = $t::FRAC_PI_2;
            const FRAC_PI_4: $t = $t::FRAC_PI_4;
            const LN_2: $t = $t::LN_2;

            #[inline(always)]
            fn from_f64(x: f64) -> $t {
                $t::from_f64(x)
            }
            #[inline(always)]
            fn from_components(c: &[f64]) -> $t {
                $t::from_components(c)
            }
            #[inline(always)]
            fn hi(self) -> f64 {
                self.components()[0]
            }
            #[inline(always)]
            fn component(self, i: usize) -> f64 {
                self.components()[i]
            }
            #[inline(always)]
            fn sqr(self) -> $t {
                $t::sqr(self)
            }
            #[inline(always)]
            fn sqrt(self) -> $t {
                $t::sqrt(self)
            }
            #[inline(always)]
            fn recip(self) -> $t {
                $t::recip(self)
            }
            #[inline(always)]
            fn ldexp(self, k: i32) -> $t {
                $t::ldexp(self, k)
            }
            #[inline(always)]
            fn abs(self) -> $t {
                $t::abs(self)
            }
            #[inline(always)]
            fn floor(self) -> $t {
                $t::floor(self)
            }
        }
    };
}

impl_expansion!(Dd, 2, 104);
impl_expansion!(Qd, 4, 209);
