//! The num-traits traits (`Float`, `FloatConst`, `Num`, `Zero`, `One`, `NumCast`,
//! `FromPrimitive`, `ToPrimitive`, `Signed`) for `Dd` and `Qd`, so that generic numerical code
//! from the ecosystem runs on them.
//!
//! Everything forwards to the inherent methods. Constants that the crate does not store to full
//! precision (1/π, √2, log2 e, ...) are computed by one correctly ordered division or square
//! root, within a few units in the last place.

use num_traits::{Float, FloatConst, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero};

use crate::{Dd, ParseRealError, Qd};

/// 2^63, exactly: the bound of the i64 range.
const TWO_63: f64 = 9.223372036854776e18;

macro_rules! impl_num_traits {
    ($t:ident) => {
        impl Zero for $t {
            fn zero() -> $t {
                $t::ZERO
            }
            fn is_zero(&self) -> bool {
                *self == $t::ZERO
            }
        }

        impl One for $t {
            fn one() -> $t {
                $t::ONE
            }
        }

        impl Num for $t {
            type FromStrRadixErr = ParseRealError;

            /// Decimal text only: any other radix is an error.
            fn from_str_radix(text: &str, radix: u32) -> Result<$t, ParseRealError> {
                if radix != 10 {
                    return Err(ParseRealError {
                        text: text.to_string(),
                        column: 1,
                        message: format!("radix {radix} is not supported; only decimal text"),
                    });
                }
                text.parse()
            }
        }

        impl ToPrimitive for $t {
            fn to_i64(&self) -> Option<i64> {
                let t = self.trunc();
                if ($t::from_f64(-TWO_63)..$t::from_f64(TWO_63)).contains(&t) {
                    // Each component is an integer below 2^63 in magnitude; their sum fits.
                    Some(t.components().iter().map(|&c| c as i128).sum::<i128>() as i64)
                } else {
                    None
                }
            }
            fn to_u64(&self) -> Option<u64> {
                let t = self.trunc();
                if ($t::ZERO..$t::from_f64(2.0 * TWO_63)).contains(&t) {
                    Some(t.components().iter().map(|&c| c as i128).sum::<i128>() as u64)
                } else {
                    None
                }
            }
            fn to_f64(&self) -> Option<f64> {
                Some($t::to_f64(*self))
            }
        }

        impl FromPrimitive for $t {
            fn from_i64(n: i64) -> Option<$t> {
                Some(<$t as From<i64>>::from(n))
            }
            fn from_u64(n: u64) -> Option<$t> {
                Some(<$t as From<u64>>::from(n))
            }
            fn from_f64(x: f64) -> Option<$t> {
                Some($t::from_f64(x))
            }
        }

        impl NumCast for $t {
            fn from<N: ToPrimitive>(n: N) -> Option<$t> {
                let f = n.to_f64()?;
                // Integers above 2^53 would round through f64; take them exactly.
                if f.fract() == 0.0 {
                    if let Some(i) = n.to_i64() {
                        return Some(<$t as From<i64>>::from(i));
                    }
                    if let Some(u) = n.to_u64() {
                        return Some(<$t as From<u64>>::from(u));
                    }
                }
                Some($t::from_f64(f))
            }
        }

        impl Signed for $t {
            fn abs(&self) -> $t {
                $t::abs(*self)
            }
            fn abs_sub(&self, other: &$t) -> $t {
                if *self <= *other {
                    $t::ZERO
                } else {
                    *self - *other
                }
            }
            fn signum(&self) -> $t {
                $t::signum(*self)
            }
            fn is_positive(&self) -> bool {
                $t::is_sign_positive(*self) && !$t::is_nan(*self)
            }
            fn is_negative(&self) -> bool {
                $t::is_sign_negative(*self) && !$t::is_nan(*self)
            }
        }

        impl FloatConst for $t {
            fn E() -> $t {
                $t::E
            }
            fn FRAC_1_PI() -> $t {
                $t::PI.recip()
            }
            fn FRAC_1_SQRT_2() -> $t {
                $t::from_f64(0.5).sqrt()
            }
            fn FRAC_2_PI() -> $t {
                $t::FRAC_PI_2.recip()
            }
            fn FRAC_2_SQRT_PI() -> $t {
                $t::FRAC_PI_4.sqrt().recip()
            }
            fn FRAC_PI_2() -> $t {
                $t::FRAC_PI_2
            }
            fn FRAC_PI_3() -> $t {
                $t::PI / 3.0
            }
            fn FRAC_PI_4() -> $t {
                $t::FRAC_PI_4
            }
            fn FRAC_PI_6() -> $t {
                $t::PI / 6.0
            }
            fn FRAC_PI_8() -> $t {
                $t::FRAC_PI_4.ldexp(-1)
            }
            fn LN_10() -> $t {
                $t::LN_10
            }
            fn LN_2() -> $t {
                $t::LN_2
            }
            fn LOG10_E() -> $t {
                $t::LN_10.recip()
            }
            fn LOG2_E() -> $t {
                $t::LN_2.recip()
            }
            fn PI() -> $t {
                $t::PI
            }
            fn SQRT_2() -> $t {
                $t::from_f64(2.0).sqrt()
            }
            fn TAU() -> $t {
                $t::TAU
            }
            fn LOG10_2() -> $t {
                $t::LN_2 / $t::LN_10
            }
            fn LOG2_10() -> $t {
                $t::LN_10 / $t::LN_2
            }
        }

        impl Float for $t {
            fn nan() -> $t {
                $t::NAN
            }
            fn infinity() -> $t {
                $t::INFINITY
            }
            fn neg_infinity() -> $t {
                $t::NEG_INFINITY
            }
            fn neg_zero() -> $t {
                -$t::ZERO
            }
            fn min_value() -> $t {
                -$t::MAX
            }
            fn min_positive_value() -> $t {
                $t::MIN_POSITIVE
            }
            fn epsilon() -> $t {
                $t::EPSILON
            }
            fn max_value() -> $t {
                $t::MAX
            }
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                $t::is_infinite(self)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            /// Normal when the leading component is and the value keeps full precision
            /// (at least `MIN_POSITIVE` in magnitude).
            fn is_normal(self) -> bool {
                self.components()[0].is_normal() && $t::abs(self) >= $t::MIN_POSITIVE
            }
            fn classify(self) -> std::num::FpCategory {
                self.components()[0].classify()
            }
            fn floor(self) -> $t {
                $t::floor(self)
            }
            fn ceil(self) -> $t {
                $t::ceil(self)
            }
            fn round(self) -> $t {
                $t::round(self)
            }
            fn trunc(self) -> $t {
                $t::trunc(self)
            }
            fn fract(self) -> $t {
                $t::fract(self)
            }
            fn abs(self) -> $t {
                $t::abs(self)
            }
            fn signum(self) -> $t {
                $t::signum(self)
            }
            fn is_sign_positive(self) -> bool {
                $t::is_sign_positive(self)
            }
            fn is_sign_negative(self) -> bool {
                $t::is_sign_negative(self)
            }
            /// `self * a + b` as a product and a sum, each rounded in the working precision:
            /// there is no fused form, so this is not more accurate than writing it out.
            fn mul_add(self, a: $t, b: $t) -> $t {
                self * a + b
            }
            fn recip(self) -> $t {
                $t::recip(self)
            }
            fn powi(self, n: i32) -> $t {
                $t::powi(self, n)
            }
            fn powf(self, n: $t) -> $t {
                $t::powf(self, n)
            }
            fn sqrt(self) -> $t {
                $t::sqrt(self)
            }
            fn exp(self) -> $t {
                $t::exp(self)
            }
            fn exp2(self) -> $t {
                $t::exp(self * $t::LN_2)
            }
            fn ln(self) -> $t {
                $t::ln(self)
            }
            fn log(self, base: $t) -> $t {
                $t::ln(self) / $t::ln(base)
            }
            fn log2(self) -> $t {
                $t::log2(self)
            }
            fn log10(self) -> $t {
                $t::log10(self)
            }
            fn to_degrees(self) -> $t {
                self * 180.0 / $t::PI
            }
            fn to_radians(self) -> $t {
                self * $t::PI / 180.0
            }
            fn max(self, other: $t) -> $t {
                $t::max(self, other)
            }
            fn min(self, other: $t) -> $t {
                $t::min(self, other)
            }
            fn abs_sub(self, other: $t) -> $t {
                Signed::abs_sub(&self, &other)
            }
            fn cbrt(self) -> $t {
                $t::cbrt(self)
            }
            fn hypot(self, other: $t) -> $t {
                $t::hypot(self, other)
            }
            fn sin(self) -> $t {
                $t::sin(self)
            }
            fn cos(self) -> $t {
                $t::cos(self)
            }
            fn tan(self) -> $t {
                $t::tan(self)
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
            fn atan2(self, other: $t) -> $t {
                $t::atan2(self, other)
            }
            fn sin_cos(self) -> ($t, $t) {
                $t::sin_cos(self)
            }
            fn exp_m1(self) -> $t {
                $t::exp_m1(self)
            }
            fn ln_1p(self) -> $t {
                $t::ln_1p(self)
            }
            fn sinh(self) -> $t {
                $t::sinh(self)
            }
            fn cosh(self) -> $t {
                $t::cosh(self)
            }
            fn tanh(self) -> $t {
                $t::tanh(self)
            }
            fn asinh(self) -> $t {
                $t::asinh(self)
            }
            fn acosh(self) -> $t {
                $t::acosh(self)
            }
            fn atanh(self) -> $t {
                $t::atanh(self)
            }
            /// Decodes the leading component only (as `f64::integer_decode` would): the
            /// trailing components do not fit the `(u64, i16, i8)` shape.
            fn integer_decode(self) -> (u64, i16, i8) {
                Float::integer_decode(self.components()[0])
            }
        }
    };
}

impl_num_traits!(Dd);
impl_num_traits!(Qd);
