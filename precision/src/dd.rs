//! Double-double numbers: an unevaluated sum `hi + lo` of two doubles with `|lo| <= ulp(hi)/2`,
//! about 106 bits (31 decimal digits) of significand.
//!
//! Arithmetic follows Joldes, Muller and Popescu, "Tight and rigorous error bounds for basic
//! building blocks of double-word arithmetic", ACM TOMS 2017 (JMP17 below); the bounds quoted
//! are theirs, with u = 2^-53. `kernels/dd.cuh` mirrors this file function for function.

use crate::eft::{quick_two_sum, two_prod, two_sum};

/// 2^960: above it, `div_dd` scales the divisor down first.
pub(crate) const HUGE_DIVISOR: f64 = 9.7453140114e288;
/// 2^-128, the exact scale factor for huge divisors.
pub(crate) const TWO_M128: f64 = 2.938735877055719e-39;
/// 2^-960: below it (and not zero), `div_dd` scales the divisor up first.
pub(crate) const TINY_DIVISOR: f64 = 1.0261342003245941e-289;
/// 2^128, the exact scale factor for tiny divisors.
pub(crate) const TWO_128: f64 = 3.402823669209385e38;
/// 2^-900: below it (and not zero), `div_f64` scales the dividend up by 2^200 first.
pub(crate) const TINY_DIVIDEND: f64 = 1.1830521861667747e-271;
/// 2^200 and 2^-200, the exact scale factors for tiny dividends.
pub(crate) const TWO_200: f64 = 1.6069380442589903e60;
pub(crate) const TWO_M200: f64 = 6.223015277861142e-61;

/// The power of two by which `div_dd` and `Qd::div_qd` scale a divisor with the leading
/// component `b` (and the quotient after): 2^-128 above 2^960, 2^128 below 2^-960 (not zero),
/// 1 otherwise, also for zeros, infinities and NaN.
#[inline(always)]
pub(crate) fn divisor_scale(b: f64) -> f64 {
    let size = b.abs();
    if size > HUGE_DIVISOR && size.is_finite() {
        TWO_M128
    } else if size < TINY_DIVISOR && size != 0.0 {
        TWO_128
    } else {
        1.0
    }
}
/// 2^-900: below it, `sqrt` scales its argument up by `SQRT_SCALE_UP` first.
pub(crate) const SQRT_SCALE_BELOW: f64 = 1.1830521861667747e-271;
/// 2^600 and 2^-300, its square root: `sqrt(a) = sqrt(a 2^600) 2^-300`, both scalings exact.
pub(crate) const SQRT_SCALE_UP: f64 = 4.149515568880993e180;
pub(crate) const SQRT_SCALE_DOWN: f64 = 4.909093465297727e-91;

/// A double-double number `hi + lo`, normalised so that `hi = fl(hi + lo)`.
///
/// `#[repr(C)]` so that a slice of `Dd` is a slice of `2n` doubles that can be copied to a GPU.
///
/// ```
/// use precision::Dd;
/// let third = Dd::ONE / Dd::from(3.0);
/// assert!((third * 3.0 - 1.0).abs() < Dd::EPSILON);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dd {
    /// The leading component: the value rounded to a double.
    pub hi: f64,
    /// The trailing component: the rounding error of `hi`.
    pub lo: f64,
}

impl Dd {
    pub const ZERO: Dd = Dd::new(0.0, 0.0);
    pub const ONE: Dd = Dd::new(1.0, 0.0);
    pub const NAN: Dd = Dd::new(f64::NAN, 0.0);
    pub const INFINITY: Dd = Dd::new(f64::INFINITY, 0.0);
    pub const NEG_INFINITY: Dd = Dd::new(f64::NEG_INFINITY, 0.0);
    /// 2^-104: the gap between 1 and the next larger double-double, taken as the precision
    /// of a normalised sum of two doubles (Hida–Li–Bailey's `dd_real::_eps`).
    pub const EPSILON: Dd = Dd::new(4.930380657631324e-32, 0.0);
    /// The smallest positive double-double that keeps full precision: below 2^-969 the
    /// trailing component underflows.
    pub const MIN_POSITIVE: Dd = Dd::new(2.004168360008973e-292, 0.0);
    /// The largest finite double-double, canonical (`hi = fl(hi + lo)`): `f64::MAX` and
    /// `2^970 - 2^917`, the largest trailing component that still rounds into it; its value is
    /// 2^1024 - 2^970 - 2^917. For a double `d >= 0`, `MAX + d` is `MAX` below 2^916 (half an
    /// ulp of `lo`) and +inf from 2^916 on, as `f64::MAX + d` is +inf from half an ulp on.
    pub const MAX: Dd = Dd::new(f64::MAX, 9.979201547673598e291);

    /// Builds `hi + lo` from components that are already normalised (`hi == hi + lo`).
    #[inline(always)]
    pub const fn new(hi: f64, lo: f64) -> Dd {
        Dd { hi, lo }
    }

    /// The exact sum `a + b` of two doubles.
    #[inline]
    pub fn from_sum(a: f64, b: f64) -> Dd {
        let (hi, lo) = two_sum(a, b);
        Dd::finish(hi, lo, a + b)
    }

    /// The exact product `a * b` of two doubles (barring underflow).
    #[inline]
    pub fn from_prod(a: f64, b: f64) -> Dd {
        let (hi, lo) = two_prod(a, b);
        Dd::finish(hi, lo, hi)
    }

    /// The value rounded to the nearest double (a zero keeps its sign).
    #[inline(always)]
    pub fn to_f64(self) -> f64 {
        signed_zero(self.hi + self.lo, self.hi)
    }

    /// `(hi, lo)` when `hi` is finite, otherwise one double alone, so that infinities and
    /// NaN never leave a NaN trailing component behind; a zero `hi` carries IEEE's sign.
    ///
    /// `special` is the leading intermediate (the rounded sum, product or quotient of the
    /// leading components). When the exact result is zero, `special` is that zero with IEEE's
    /// sign, which the trailing terms, +0, would otherwise turn into +0 (`signed_zero`). When
    /// it is finite but `hi` is not, a normalisation rounded past the largest double: a genuine
    /// overflow, whose answer is ±inf (`hi` itself, or see `finish_sum`), not the finite
    /// intermediate.
    #[inline(always)]
    fn finish(hi: f64, lo: f64, special: f64) -> Dd {
        Dd::finish_with(hi, lo, hi == 0.0, special, special)
    }

    /// `finish` of the final FastTwoSum `x + y`. Whether the sum is zero is tested on its
    /// operands (`x == -y` with `x` finite, the same condition as `fl(x + y) == 0`: a sum of
    /// doubles rounds to zero only when it is zero, and inf - inf is NaN), so that the test
    /// runs beside the addition rather than after it, off the result's dependency chain.
    ///
    /// An infinite `x` with a finite `special` is an overflow of an earlier normalisation
    /// (`add_dd`'s first FastTwoSum, whose error term is then -x, so that `x + y` is NaN): the
    /// answer is `x`, as it is `hi` for an overflow in the final sum.
    #[inline(always)]
    fn finish_sum(x: f64, y: f64, special: f64) -> Dd {
        let (hi, lo) = quick_two_sum(x, y);
        Dd::finish_with(hi, lo, x == -y && x.is_finite(), special, x)
    }

    /// `finish`, given whether `hi` is zero and the leading operand `x` of the final sum. The
    /// common case, `hi` finite, is tested first and the others are left to a cold function: a
    /// predicted branch.
    #[inline(always)]
    fn finish_with(hi: f64, lo: f64, zero: bool, special: f64, x: f64) -> Dd {
        let hi = if zero { 0.0 * special } else { hi };
        if hi.is_finite() {
            Dd::new(hi, lo)
        } else {
            Dd::finish_exceptional(hi, special, x)
        }
    }

    /// `finish` for a `hi` that is not finite: `special` when it is not finite either (an
    /// operand was), else `x` when it overflowed, else `hi` (±inf).
    #[cold]
    fn finish_exceptional(hi: f64, special: f64, x: f64) -> Dd {
        if !special.is_finite() {
            Dd::new(special, 0.0)
        } else if x.is_infinite() {
            Dd::new(x, 0.0)
        } else {
            Dd::new(hi, 0.0)
        }
    }

    /// `self + b`, JMP17 Alg. 6 (AccurateDWPlusDW), relative error below 3u².
    #[inline]
    pub fn add_dd(self, b: Dd) -> Dd {
        let (sh, sl) = two_sum(self.hi, b.hi);
        let (th, tl) = two_sum(self.lo, b.lo);
        let c = sl + th;
        let (vh, vl) = quick_two_sum(sh, c);
        let w = tl + vl;
        Dd::finish_sum(vh, w, sh)
    }

    /// `self + b`, JMP17 Alg. 4 (DWPlusFP), relative error below 2u².
    #[inline]
    pub fn add_f64(self, b: f64) -> Dd {
        let (sh, sl) = two_sum(self.hi, b);
        let v = self.lo + sl;
        Dd::finish_sum(sh, v, sh)
    }

    /// `self * b`, JMP17 Alg. 12 (DWTimesDW3, with fma), relative error below 4u².
    #[inline]
    pub fn mul_dd(self, b: Dd) -> Dd {
        let (ch, cl1) = two_prod(self.hi, b.hi);
        let tl0 = self.lo * b.lo;
        let tl1 = self.hi.mul_add(b.lo, tl0);
        let cl2 = self.lo.mul_add(b.hi, tl1);
        let cl3 = cl1 + cl2;
        Dd::finish_sum(ch, cl3, ch)
    }

    /// `self * b`, JMP17 Alg. 10 (DWTimesFP3, with fma), relative error below 2u².
    #[inline]
    pub fn mul_f64(self, b: f64) -> Dd {
        let (ch, cl1) = two_prod(self.hi, b);
        let cl3 = self.lo.mul_add(b, cl1);
        Dd::finish_sum(ch, cl3, ch)
    }

    /// `self * self`, as `mul_dd` with the two cross products folded into one.
    #[inline]
    pub fn sqr(self) -> Dd {
        let (ch, cl1) = two_prod(self.hi, self.hi);
        let tl0 = self.lo * self.lo;
        let cl2 = (2.0 * self.hi).mul_add(self.lo, tl0);
        let cl3 = cl1 + cl2;
        Dd::finish_sum(ch, cl3, ch)
    }

    /// `self / b`, JMP17 Alg. 18 (DWDivDW3: a Newton reciprocal, then a product), relative
    /// error below 9.8u².
    ///
    /// A divisor above 2^960 is first scaled by 2^-128 (exactly), and the quotient back:
    /// otherwise the reciprocal's trailing part, about 2^-53 of a reciprocal below 2^-960, and
    /// for a divisor above 2^1022 the reciprocal itself, would be subnormal and lose bits. A
    /// divisor below 2^-960 is scaled by 2^128 the same way: below 2^-1024 its reciprocal
    /// would overflow, leaving only the quotient of the leading components.
    #[inline]
    pub fn div_dd(self, b: Dd) -> Dd {
        let s = divisor_scale(b.hi);
        if s != 1.0 {
            return self
                .div_dd_unscaled(b.scaled(s))
                .scaled(s)
                .overflow_cleared();
        }
        self.div_dd_unscaled(b)
    }

    /// `self`, or where `hi` is not finite (a quotient scaled up past the largest double) `hi`
    /// alone, so that no infinite or NaN trailing component follows it.
    #[inline(always)]
    fn overflow_cleared(self) -> Dd {
        if self.hi.is_finite() {
            self
        } else {
            Dd::new(self.hi, 0.0)
        }
    }

    /// `div_dd` for a divisor that needs no scaling.
    #[inline(always)]
    fn div_dd_unscaled(self, b: Dd) -> Dd {
        let th = 1.0 / b.hi;
        if !(th.is_finite() && th != 0.0 && self.hi.is_finite()) {
            // b is zero, infinite or NaN; or self is not finite.
            return Dd::from_f64(self.hi / b.hi);
        }
        let rh = (-b.hi).mul_add(th, 1.0);
        let rl = -b.lo * th;
        let (eh, el) = quick_two_sum(rh, rl);
        let delta = Dd::new(eh, el).mul_f64(th);
        let m = delta.add_f64(th);
        self.mul_dd(m)
    }

    /// `self / b`, JMP17 Alg. 15 (DWDivFP3), relative error below 3u².
    ///
    /// A dividend below 2^-900 is first scaled by 2^200 (exactly), and the quotient by 2^-200:
    /// otherwise the error term of `th b`, about 2^-53 of the dividend, would be subnormal.
    #[inline]
    pub fn div_f64(self, b: f64) -> Dd {
        if self.hi.abs() < TINY_DIVIDEND && self.hi != 0.0 {
            return self.scaled(TWO_200).div_f64_unscaled(b).scaled(TWO_M200);
        }
        self.div_f64_unscaled(b)
    }

    /// `div_f64` for a dividend that needs no scaling.
    #[inline(always)]
    fn div_f64_unscaled(self, b: f64) -> Dd {
        let th = self.hi / b;
        if !(th.is_finite() && b.is_finite()) || b == 0.0 {
            return Dd::from_f64(th);
        }
        let (ph, pl) = two_prod(th, b);
        let dh = self.hi - ph;
        let dt = dh - pl;
        let d = dt + self.lo;
        let tl = d / b;
        Dd::finish_sum(th, tl, th)
    }

    /// Both components times the power of two `s`: exact unless they over- or underflow.
    #[inline(always)]
    fn scaled(self, s: f64) -> Dd {
        Dd::new(self.hi * s, self.lo * s)
    }

    /// `1 / self`.
    #[inline]
    pub fn recip(self) -> Dd {
        Dd::ONE.div_dd(self)
    }

    /// The square root, correctly signed for ±0, NaN for negative input.
    ///
    /// One Newton correction of the double square root with the residual computed exactly by
    /// fma (Lefèvre–Louvet–Muller–Picot 2022, "Accurate calculation of Euclidean norms using
    /// double-word arithmetic", Alg. SQRTDWtoDW), relative error below 25/8 u².
    ///
    /// An argument below 2^-900 is first scaled by 2^600 and its root by 2^-300 (both exact):
    /// below about 2^-970 the residual `hi - sh²` needs bits under the subnormal range, and a
    /// direct evaluation loses bits of the root, all but the leading double's 53 for a
    /// subnormal argument.
    pub fn sqrt(self) -> Dd {
        if self.hi <= 0.0 || !self.hi.is_finite() {
            // ±0 and +inf are their own roots; negative numbers and NaN give NaN.
            return Dd::new(self.hi.sqrt(), 0.0);
        }
        if self.hi < SQRT_SCALE_BELOW {
            return self
                .scaled(SQRT_SCALE_UP)
                .sqrt_unscaled()
                .scaled(SQRT_SCALE_DOWN);
        }
        self.sqrt_unscaled()
    }

    /// `sqrt` of a positive finite argument not below 2^-900.
    #[inline(always)]
    fn sqrt_unscaled(self) -> Dd {
        let sh = self.hi.sqrt();
        let r1 = (-sh).mul_add(sh, self.hi);
        let r2 = self.lo + r1;
        let sl = r2 / (2.0 * sh);
        let (zh, zl) = quick_two_sum(sh, sl);
        Dd::new(zh, zl)
    }

    /// `self * 2^k`, exact unless the result over- or underflows.
    #[inline]
    pub fn ldexp(self, k: i32) -> Dd {
        Dd::new(crate::ldexp(self.hi, k), crate::ldexp(self.lo, k))
    }

    /// The largest integer not above `self`.
    pub fn floor(self) -> Dd {
        self.round_components(f64::floor)
    }

    /// The smallest integer not below `self`.
    pub fn ceil(self) -> Dd {
        self.round_components(f64::ceil)
    }

    /// Rounds `hi`; when it is an integer already the value's integer part reaches into `lo`,
    /// which is rounded the same way (as `Qd::round_components` does for four components).
    /// A value with a zero `lo` is an integer already and is returned as it is: summing `hi`
    /// with the rounded zero would turn −0 into +0 (and ±inf's trailing zero into NaN).
    fn round_components(self, round: fn(f64) -> f64) -> Dd {
        let hi = round(self.hi);
        if hi != self.hi {
            return Dd::new(hi, 0.0);
        }
        if self.lo == 0.0 {
            return self;
        }
        let (zh, zl) = quick_two_sum(hi, round(self.lo));
        Dd::new(zh, zl)
    }

    /// Converts a double exactly.
    #[inline(always)]
    pub const fn from_f64(x: f64) -> Dd {
        Dd::new(x, 0.0)
    }

    /// The components `[hi, lo]`.
    #[inline(always)]
    pub const fn components(self) -> [f64; 2] {
        [self.hi, self.lo]
    }

    /// Rebuilds a value from normalised components `[hi, lo]`; panics on any other length.
    #[inline(always)]
    pub fn from_components(c: &[f64]) -> Dd {
        Dd::new(c[0], c[1])
    }
}

/// `x`, or when `x` is zero the zero with the sign of `lead`.
///
/// A Dd or Qd operation ends by adding rounding errors to its leading intermediate `lead` (one
/// IEEE operation on the leading components); when the exact result is zero those errors are
/// +0, and −0 + +0 = +0 would lose the sign that IEEE gives the zero and that `lead` already
/// has (−0 + −0 = −0, −0 · y = −0 for y > 0, x − x = +0): for normalised operands `lead` is
/// then itself that zero (a zero sum of normalised double-words has opposite leading
/// components, a zero product a zero leading factor). The zero is built as `0 · lead`, which
/// the lanes and the device compute the same way.
#[inline(always)]
pub(crate) fn signed_zero(x: f64, lead: f64) -> f64 {
    if x == 0.0 {
        0.0 * lead
    } else {
        x
    }
}

crate::ops::impl_derived_methods!(Dd);
crate::ops::impl_arithmetic!(Dd, add_dd, add_f64, mul_dd, mul_f64, div_dd, div_f64);

impl std::ops::Neg for Dd {
    type Output = Dd;
    #[inline(always)]
    fn neg(self) -> Dd {
        Dd::new(-self.hi, -self.lo)
    }
}

impl PartialOrd for Dd {
    fn partial_cmp(&self, other: &Dd) -> Option<std::cmp::Ordering> {
        match self.hi.partial_cmp(&other.hi) {
            Some(std::cmp::Ordering::Equal) => self.lo.partial_cmp(&other.lo),
            ord => ord,
        }
    }
}

impl PartialEq<f64> for Dd {
    fn eq(&self, other: &f64) -> bool {
        *self == Dd::from_f64(*other)
    }
}

impl PartialOrd<f64> for Dd {
    fn partial_cmp(&self, other: &f64) -> Option<std::cmp::Ordering> {
        self.partial_cmp(&Dd::from_f64(*other))
    }
}

impl From<f64> for Dd {
    fn from(x: f64) -> Dd {
        Dd::from_f64(x)
    }
}

impl From<f32> for Dd {
    fn from(x: f32) -> Dd {
        Dd::from_f64(x as f64)
    }
}

impl From<i64> for Dd {
    /// Exact: the top 53 bits and the remainder are each a double.
    fn from(x: i64) -> Dd {
        if x.unsigned_abs() <= 1 << f64::MANTISSA_DIGITS {
            // A double already, the remainder +0: skip the 128-bit arithmetic (uniform grids
            // convert an index a point).
            return Dd::new(x as f64, 0.0);
        }
        let hi = x as f64;
        // `hi` rounds x to 53 bits; the remainder fits in 53 bits and converts exactly.
        let rest = (x as i128 - hi as i128) as f64;
        let (zh, zl) = quick_two_sum(hi, rest);
        Dd::new(zh, zl)
    }
}

impl From<u64> for Dd {
    fn from(x: u64) -> Dd {
        let hi = x as f64;
        let rest = (x as i128 - hi as i128) as f64;
        let (zh, zl) = quick_two_sum(hi, rest);
        Dd::new(zh, zl)
    }
}

impl From<i32> for Dd {
    fn from(x: i32) -> Dd {
        Dd::from_f64(x as f64)
    }
}

impl From<Dd> for f64 {
    fn from(x: Dd) -> f64 {
        x.to_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_constants_are_the_powers_of_two_they_name() {
        assert_eq!(HUGE_DIVISOR, 2f64.powi(960));
        assert_eq!(TWO_M128, 2f64.powi(-128));
        assert_eq!(TINY_DIVISOR, 2f64.powi(-960));
        assert_eq!(TWO_128, 2f64.powi(128));
        assert_eq!(TINY_DIVIDEND, crate::ldexp(1.0, -900));
        assert_eq!(TWO_200, 2f64.powi(200));
        assert_eq!(TWO_M200, 2f64.powi(-200));
        assert_eq!(SQRT_SCALE_BELOW, crate::ldexp(1.0, -900));
        assert_eq!(SQRT_SCALE_UP, 2f64.powi(600));
        assert_eq!(SQRT_SCALE_DOWN, 2f64.powi(-300));
    }

    #[test]
    fn special_values_behave_like_f64() {
        let inf = Dd::INFINITY;
        assert_eq!((inf + 1.0).hi, f64::INFINITY);
        assert_eq!((inf + 1.0).lo, 0.0);
        assert!((inf - inf).is_nan());
        assert!((inf * 0.0).is_nan());
        assert_eq!((Dd::ONE / Dd::ZERO).hi, f64::INFINITY);
        assert_eq!((-Dd::ONE / Dd::ZERO).hi, f64::NEG_INFINITY);
        assert!((Dd::ZERO / Dd::ZERO).is_nan());
        assert_eq!(Dd::ONE / inf, Dd::ZERO);
        assert_eq!((Dd::MAX * 2.0).hi, f64::INFINITY);
        assert_eq!((Dd::MAX + Dd::MAX).hi, f64::INFINITY);
        assert!((Dd::NAN + 1.0).is_nan());
        assert!(Dd::from(-1.0).sqrt().is_nan());
        assert_eq!(Dd::INFINITY.sqrt().hi, f64::INFINITY);
    }

    #[test]
    fn integer_conversions_are_exact() {
        let big = i64::MAX;
        let d = Dd::from(big);
        assert_eq!(d.hi as i128 + d.lo as i128, big as i128);
        let d = Dd::from(u64::MAX - 1);
        assert_eq!(d.hi as i128 + d.lo as i128, (u64::MAX - 1) as i128);
    }

    #[test]
    fn rounding_functions() {
        let x = Dd::new(2f64.powi(60), 0.75);
        assert_eq!(x.floor(), Dd::new(2f64.powi(60), 0.0));
        assert_eq!(x.ceil(), Dd::new(2f64.powi(60), 1.0));
        assert_eq!(x.round(), Dd::new(2f64.powi(60), 1.0));
        assert_eq!(Dd::from(-2.5).round(), Dd::from(-3.0));
        assert_eq!(Dd::from(-2.5).trunc(), Dd::from(-2.0));
        assert_eq!(Dd::from(2.4).round(), Dd::from(2.0));
    }

    #[test]
    fn powi_and_sqrt_agree() {
        let two = Dd::from(2.0);
        let s = two.sqrt();
        assert!((s.powi(2) - two).abs() < Dd::EPSILON * 4.0);
        assert_eq!(two.powi(-2), Dd::from(0.25));
        assert_eq!(Dd::NAN.powi(0), Dd::ONE);
    }
}
