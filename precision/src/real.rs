//! The [`Real`] trait: what hpquad's integration methods need of a number type, implemented for
//! `f64`, [`Dd`] and [`Qd`] so that one generic method serves the three precisions.

use std::fmt::{Debug, Display, LowerExp};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::{Dd, ParseRealError, Qd};

/// A floating-point type that hpquad can integrate in: arithmetic, the elementary functions,
/// constants to full precision, and exact decimal input.
///
/// The method names and meanings are those of `f64`'s inherent methods, so generic code reads
/// like ordinary Rust:
///
/// ```
/// use precision::{Qd, Real};
///
/// fn gaussian<T: Real>(x: T) -> T {
///     (-(x * x)).exp() / T::pi().sqrt()
/// }
/// let g = gaussian(Qd::from_f64(0.5));
/// assert!((g.to_f64() - 0.43939128946772243).abs() < 1e-16);
/// ```
pub trait Real:
    Copy
    + Send
    + Sync
    + 'static
    + Default
    + Debug
    + Display
    + LowerExp
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
{
    /// The short name used on the command line and in reports: `"f64"`, `"dd"` or `"qd"`.
    const NAME: &'static str;
    /// Decimal digits the type carries: 15, 31 and 62 (the guaranteed ones, as `f64::DIGITS`).
    const DIGITS: u32;
    /// The number of doubles in the representation (1, 2 or 4), as laid out in memory.
    const LIMBS: usize;

    /// The type that sums of `Self` accumulate in: double-double for `f64` (a compensated sum),
    /// the type itself for `Dd` and `Qd`.
    type Accumulator: Copy + Send + Sync + Default + Debug + Add<Output = Self::Accumulator>;

    /// Converts exactly into the accumulator type.
    fn to_accumulator(self) -> Self::Accumulator;
    /// Rounds an accumulated sum back to `Self`.
    fn from_accumulator(acc: Self::Accumulator) -> Self;

    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    /// Converts an integer exactly when it fits the precision (every `i64` fits `Dd` and `Qd`).
    fn from_i64(n: i64) -> Self;
    /// Parses decimal or scientific notation to the working precision (within one ulp), so
    /// that `0.1` is 0.1 to 31 digits in `Dd`, not the nearest double.
    fn parse_decimal(text: &str) -> Result<Self, ParseRealError>;
    /// The components, most significant first, as laid out in memory.
    fn limbs(self) -> [f64; 4];
    /// Rebuilds a value from the first `LIMBS` components.
    fn from_limbs(limbs: &[f64]) -> Self;

    fn zero() -> Self {
        Self::from_f64(0.0)
    }
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    /// The gap between 1 and the next representable number: 2^-52, 2^-104, 2^-209.
    fn epsilon() -> Self;
    fn pi() -> Self;
    fn tau() -> Self;
    fn frac_pi_2() -> Self;
    fn frac_pi_4() -> Self;
    fn e() -> Self;
    fn ln_2() -> Self;
    fn ln_10() -> Self;

    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn cbrt(self) -> Self;
    fn recip(self) -> Self;
    fn powi(self, n: i32) -> Self;
    fn powf(self, y: Self) -> Self;
    /// `self * 2^k`, exact unless it over- or underflows.
    fn ldexp(self, k: i32) -> Self;
    fn exp(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn sin_cos(self) -> (Self, Self);
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn asinh(self) -> Self;
    fn acosh(self) -> Self;
    fn atanh(self) -> Self;
    fn hypot(self, y: Self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn trunc(self) -> Self;
    fn min(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
    fn is_nan(self) -> bool;
    fn is_finite(self) -> bool;
}

/// The `Real` methods that each type provides under the same inherent name.
macro_rules! forward_inherent {
    ($t:ty) => {
        fn abs(self) -> Self {
            <$t>::abs(self)
        }
        fn sqrt(self) -> Self {
            <$t>::sqrt(self)
        }
        fn cbrt(self) -> Self {
            <$t>::cbrt(self)
        }
        fn recip(self) -> Self {
            <$t>::recip(self)
        }
        fn powi(self, n: i32) -> Self {
            <$t>::powi(self, n)
        }
        fn powf(self, y: Self) -> Self {
            <$t>::powf(self, y)
        }
        fn exp(self) -> Self {
            <$t>::exp(self)
        }
        fn exp_m1(self) -> Self {
            <$t>::exp_m1(self)
        }
        fn ln(self) -> Self {
            <$t>::ln(self)
        }
        fn ln_1p(self) -> Self {
            <$t>::ln_1p(self)
        }
        fn log2(self) -> Self {
            <$t>::log2(self)
        }
        fn log10(self) -> Self {
            <$t>::log10(self)
        }
        fn sin(self) -> Self {
            <$t>::sin(self)
        }
        fn cos(self) -> Self {
            <$t>::cos(self)
        }
        fn tan(self) -> Self {
            <$t>::tan(self)
        }
        fn sin_cos(self) -> (Self, Self) {
            <$t>::sin_cos(self)
        }
        fn asin(self) -> Self {
            <$t>::asin(self)
        }
        fn acos(self) -> Self {
            <$t>::acos(self)
        }
        fn atan(self) -> Self {
            <$t>::atan(self)
        }
        fn atan2(self, x: Self) -> Self {
            <$t>::atan2(self, x)
        }
        fn sinh(self) -> Self {
            <$t>::sinh(self)
        }
        fn cosh(self) -> Self {
            <$t>::cosh(self)
        }
        fn tanh(self) -> Self {
            <$t>::tanh(self)
        }
        fn hypot(self, y: Self) -> Self {
            <$t>::hypot(self, y)
        }
        fn floor(self) -> Self {
            <$t>::floor(self)
        }
        fn ceil(self) -> Self {
            <$t>::ceil(self)
        }
        fn round(self) -> Self {
            <$t>::round(self)
        }
        fn trunc(self) -> Self {
            <$t>::trunc(self)
        }
        fn min(self, other: Self) -> Self {
            <$t>::min(self, other)
        }
        fn max(self, other: Self) -> Self {
            <$t>::max(self, other)
        }
        fn is_nan(self) -> bool {
            <$t>::is_nan(self)
        }
        fn is_finite(self) -> bool {
            <$t>::is_finite(self)
        }
    };
}

impl Real for f64 {
    const NAME: &'static str = "f64";
    const DIGITS: u32 = f64::DIGITS;
    const LIMBS: usize = 1;
    type Accumulator = Dd;

    fn to_accumulator(self) -> Dd {
        Dd::from_f64(self)
    }
    fn from_accumulator(acc: Dd) -> f64 {
        acc.to_f64()
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn from_i64(n: i64) -> f64 {
        n as f64
    }
    fn parse_decimal(text: &str) -> Result<f64, ParseRealError> {
        crate::decimal::parse_f64(text)
    }
    fn limbs(self) -> [f64; 4] {
        [self, 0.0, 0.0, 0.0]
    }
    fn from_limbs(limbs: &[f64]) -> f64 {
        limbs[0]
    }
    fn epsilon() -> f64 {
        f64::EPSILON
    }
    fn pi() -> f64 {
        std::f64::consts::PI
    }
    fn tau() -> f64 {
        std::f64::consts::TAU
    }
    fn frac_pi_2() -> f64 {
        std::f64::consts::FRAC_PI_2
    }
    fn frac_pi_4() -> f64 {
        std::f64::consts::FRAC_PI_4
    }
    fn e() -> f64 {
        std::f64::consts::E
    }
    fn ln_2() -> f64 {
        std::f64::consts::LN_2
    }
    fn ln_10() -> f64 {
        std::f64::consts::LN_10
    }
    fn ldexp(self, k: i32) -> f64 {
        crate::ldexp(self, k)
    }
    /// Not std's, which overflows for huge arguments: see `f64_functions`.
    fn asinh(self) -> f64 {
        crate::f64_functions::asinh(self)
    }
    /// Not std's, which loses accuracy near 1 and overflows: see `f64_functions`.
    fn acosh(self) -> f64 {
        crate::f64_functions::acosh(self)
    }
    /// Not std's, which loses every digit near −1: see `f64_functions`.
    fn atanh(self) -> f64 {
        crate::f64_functions::atanh(self)
    }
    forward_inherent!(f64);
}

/// `Real` for `Dd` and `Qd`, whose inherent methods and associated constants share the names.
macro_rules! impl_real_for_expansion {
    ($t:ident, $name:literal, $digits:literal, $limbs:literal) => {
        impl Real for $t {
            const NAME: &'static str = $name;
            const DIGITS: u32 = $digits;
            const LIMBS: usize = $limbs;
            type Accumulator = $t;

            fn to_accumulator(self) -> $t {
                self
            }
            fn from_accumulator(acc: $t) -> $t {
                acc
            }
            fn from_f64(x: f64) -> $t {
                $t::from_f64(x)
            }
            fn to_f64(self) -> f64 {
                $t::to_f64(self)
            }
            fn from_i64(n: i64) -> $t {
                $t::from(n)
            }
            fn parse_decimal(text: &str) -> Result<$t, ParseRealError> {
                text.parse()
            }
            fn limbs(self) -> [f64; 4] {
                let mut out = [0.0; 4];
                out[..$limbs].copy_from_slice(&self.components());
                out
            }
            fn from_limbs(limbs: &[f64]) -> $t {
                $t::from_components(&limbs[..$limbs])
            }
            fn epsilon() -> $t {
                $t::EPSILON
            }
            fn pi() -> $t {
                $t::PI
            }
            fn tau() -> $t {
                $t::TAU
            }
            fn frac_pi_2() -> $t {
                $t::FRAC_PI_2
            }
            fn frac_pi_4() -> $t {
                $t::FRAC_PI_4
            }
            fn e() -> $t {
                $t::E
            }
            fn ln_2() -> $t {
                $t::LN_2
            }
            fn ln_10() -> $t {
                $t::LN_10
            }
            fn ldexp(self, k: i32) -> $t {
                $t::ldexp(self, k)
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
            forward_inherent!($t);
        }
    };
}

impl_real_for_expansion!(Dd, "dd", 31, 2);
impl_real_for_expansion!(Qd, "qd", 62, 4);
