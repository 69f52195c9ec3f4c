//! The operator traits, written once for `Dd` and `Qd` in terms of their inherent methods.

/// Implements `+ - * /` and their assign forms between `$t` and `$t`, `$t` and `f64`, and `f64`
/// and `$t`, plus `Sum` and `Product`, in terms of the type's `add_*`, `mul_*` and `div_*`.
macro_rules! impl_arithmetic {
    ($t:ty, $add:ident, $add_f64:ident, $mul:ident, $mul_f64:ident, $div:ident, $div_f64:ident) => {
        impl std::ops::Add for $t {
            type Output = $t;
            #[inline]
            fn add(self, b: $t) -> $t {
                self.$add(b)
            }
        }
        impl std::ops::Sub for $t {
            type Output = $t;
            #[inline]
            fn sub(self, b: $t) -> $t {
                self.$add(-b)
            }
        }
        impl std::ops::Mul for $t {
            type Output = $t;
            #[inline]
            fn mul(self, b: $t) -> $t {
                self.$mul(b)
            }
        }
        impl std::ops::Div for $t {
            type Output = $t;
            #[inline]
            fn div(self, b: $t) -> $t {
                self.$div(b)
            }
        }
        impl std::ops::Add<f64> for $t {
            type Output = $t;
            #[inline]
            fn add(self, b: f64) -> $t {
                self.$add_f64(b)
            }
        }
        impl std::ops::Sub<f64> for $t {
            type Output = $t;
            #[inline]
            fn sub(self, b: f64) -> $t {
                self.$add_f64(-b)
            }
        }
        impl std::ops::Mul<f64> for $t {
            type Output = $t;
            #[inline]
            fn mul(self, b: f64) -> $t {
                self.$mul_f64(b)
            }
        }
        impl std::ops::Div<f64> for $t {
            type Output = $t;
            #[inline]
            fn div(self, b: f64) -> $t {
                self.$div_f64(b)
            }
        }
        impl std::ops::Add<$t> for f64 {
            type Output = $t;
            #[inline]
            fn add(self, b: $t) -> $t {
                b.$add_f64(self)
            }
        }
        impl std::ops::Sub<$t> for f64 {
            type Output = $t;
            #[inline]
            fn sub(self, b: $t) -> $t {
                (-b).$add_f64(self)
            }
        }
        impl std::ops::Mul<$t> for f64 {
            type Output = $t;
            #[inline]
            fn mul(self, b: $t) -> $t {
                b.$mul_f64(self)
            }
        }
        impl std::ops::Div<$t> for f64 {
            type Output = $t;
            #[inline]
            fn div(self, b: $t) -> $t {
                <$t>::from_f64(self).$div(b)
            }
        }
        impl std::ops::Rem for $t {
            type Output = $t;
            /// The remainder `self - trunc(self / b) * b`, exact, with `f64`'s `%` (C's `fmod`)
            /// for its sign and special values: the sign of `self`, also for a zero remainder;
            /// a finite `self` over an infinite `b` is `self` itself; NaN for an infinite
            /// `self`, a zero `b` or a NaN. The remainder is computed exactly for every finite
            /// pair, however large `|self / b|` (`remainder.rs`, in integers), and is the
            /// exact value wherever the type can hold it; otherwise (it can need as many bits
            /// as the span from `b`'s leading bit to the lowest bit of either operand) it is
            /// rounded component by component, to within half an ulp of its last component.
            fn rem(self, b: $t) -> $t {
                let (x, y) = (self.components(), b.components());
                let finite = |c: &[f64]| c.iter().all(|v| v.is_finite());
                if x.iter().chain(&y).any(|c| c.is_nan()) || !finite(&x) {
                    return <$t>::NAN;
                }
                if !finite(&y) {
                    return self;
                }
                let mut r = x;
                match crate::remainder::remainder(&x, &y, &mut r) {
                    Some(()) => <$t>::from_components(&r),
                    None => <$t>::NAN,
                }
            }
        }
        crate::ops::impl_assign!($t, $t);
        crate::ops::impl_assign!($t, f64);
        /// From −0, IEEE's additive identity, as `f64`'s `Sum`: a sum of −0s (or of nothing)
        /// is −0, and every other sum has the bits it has from +0.
        impl std::iter::Sum for $t {
            fn sum<I: Iterator<Item = $t>>(iter: I) -> $t {
                iter.fold(<$t>::from_f64(-0.0), |a, b| a + b)
            }
        }
        impl<'a> std::iter::Sum<&'a $t> for $t {
            fn sum<I: Iterator<Item = &'a $t>>(iter: I) -> $t {
                iter.fold(<$t>::from_f64(-0.0), |a, b| a + *b)
            }
        }
        impl std::iter::Product for $t {
            fn product<I: Iterator<Item = $t>>(iter: I) -> $t {
                iter.fold(<$t>::ONE, |a, b| a * b)
            }
        }
    };
}

macro_rules! impl_assign {
    ($t:ty, $rhs:ty) => {
        impl std::ops::AddAssign<$rhs> for $t {
            #[inline]
            fn add_assign(&mut self, b: $rhs) {
                *self = *self + b;
            }
        }
        impl std::ops::SubAssign<$rhs> for $t {
            #[inline]
            fn sub_assign(&mut self, b: $rhs) {
                *self = *self - b;
            }
        }
        impl std::ops::MulAssign<$rhs> for $t {
            #[inline]
            fn mul_assign(&mut self, b: $rhs) {
                *self = *self * b;
            }
        }
        impl std::ops::DivAssign<$rhs> for $t {
            #[inline]
            fn div_assign(&mut self, b: $rhs) {
                *self = *self / b;
            }
        }
        impl std::ops::RemAssign<$rhs> for $t {
            #[inline]
            fn rem_assign(&mut self, b: $rhs) {
                *self = *self % <$t>::from(b);
            }
        }
    };
}

/// The methods whose algorithm is the same for `Dd` and `Qd`: powers, sign, rounding built on
/// `floor`/`ceil`, and the predicates, which all look at the leading component.
macro_rules! impl_derived_methods {
    ($t:ident) => {
        impl $t {
            /// The leading component: the value rounded to a double.
            #[inline(always)]
            fn lead(self) -> f64 {
                self.components()[0]
            }

            /// `self^n` by binary powering; `x^0 = 1` for every `x`, as for `f64::powi`.
            pub fn powi(self, n: i32) -> $t {
                let mut base = self;
                let mut k = n.unsigned_abs();
                let mut acc = $t::ONE;
                while k > 0 {
                    if k & 1 == 1 {
                        acc *= base;
                    }
                    k >>= 1;
                    if k > 0 {
                        base = base.sqr();
                    }
                }
                if n < 0 {
                    acc.recip()
                } else {
                    acc
                }
            }

            /// The absolute value.
            #[inline]
            pub fn abs(self) -> $t {
                if self.lead().is_sign_negative() {
                    -self
                } else {
                    self
                }
            }

            /// The integer part, rounding towards zero.
            pub fn trunc(self) -> $t {
                if self.lead() >= 0.0 {
                    self.floor()
                } else {
                    self.ceil()
                }
            }

            /// The nearest integer, halfway cases away from zero (as `f64::round`).
            pub fn round(self) -> $t {
                let t = self.trunc();
                // Exact: `self` and its integer part share their leading bits.
                let frac = (self - t).lead();
                if frac >= 0.5 {
                    t + 1.0
                } else if frac <= -0.5 {
                    t - 1.0
                } else {
                    t
                }
            }

            /// The fractional part `self - trunc(self)`.
            pub fn fract(self) -> $t {
                self - self.trunc()
            }

            /// The smaller of two numbers, ignoring a NaN as `f64::min` does.
            pub fn min(self, other: $t) -> $t {
                if other.is_nan() || self <= other {
                    self
                } else {
                    other
                }
            }

            /// The larger of two numbers, ignoring a NaN as `f64::max` does.
            pub fn max(self, other: $t) -> $t {
                if other.is_nan() || self >= other {
                    self
                } else {
                    other
                }
            }

            #[inline]
            pub fn is_nan(self) -> bool {
                self.lead().is_nan()
            }

            #[inline]
            pub fn is_finite(self) -> bool {
                self.lead().is_finite()
            }

            #[inline]
            pub fn is_infinite(self) -> bool {
                self.lead().is_infinite()
            }

            #[inline]
            pub fn is_sign_negative(self) -> bool {
                self.lead().is_sign_negative()
            }

            #[inline]
            pub fn is_sign_positive(self) -> bool {
                self.lead().is_sign_positive()
            }

            /// `1` for positive numbers and +0, `-1` for negative numbers and -0, NaN for NaN.
            pub fn signum(self) -> $t {
                $t::from_f64(self.lead().signum())
            }
        }
    };
}

pub(crate) use impl_arithmetic;
pub(crate) use impl_assign;
pub(crate) use impl_derived_methods;
