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
            /// The remainder `self - trunc(self / b) * b`, as `f64`'s `%`.
            fn rem(self, b: $t) -> $t {
                self - (self / b).trunc() * b
            }
        }
        crate::ops::impl_assign!($t, $t);
        crate::ops::impl_assign!($t, f64);
        impl std::iter::Sum for $t {
            fn sum<I: Iterator<Item = $t>>(iter: I) -> $t {
                iter.fold(<$t>::ZERO, |a, b| a + b)
            }
        }
        impl<'a> std::iter::Sum<&'a $t> for $t {
            fn sum<I: Iterator<Item = &'a $t>>(iter: I) -> $t {
                iter.fold(<$t>::ZERO, |a, b| a + *b)
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

pub(crate) use impl_arithmetic;
pub(crate) use impl_assign;
