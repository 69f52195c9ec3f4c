//! Hyperbolic functions and their inverses for [`Dd`] and [`Qd`], written once over
//! [`Expansion`] on top of `exp_m1` and `ln_1p`, so that each keeps its relative accuracy near
//! 0 (the formulas of W. Kahan's notes and of fdlibm's `s_expm1.c`-based `sinh`/`tanh`).

use crate::exp_log::{exp_fixed, exp_m1, exp_parts, ln, ln_1p, scale_one_plus};
use crate::expansion::Expansion;
use crate::{Dd, Qd};

/// Beyond this |x|, e^-|x| is below 2^-(bits+8) of e^|x| and drops out of sinh and cosh.
#[inline(always)]
pub(crate) fn far<T: Expansion>() -> f64 {
    (T::PRECISION_BITS + 8) as f64 * 0.5 * std::f64::consts::LN_2
}

/// Beyond this |x|, x² + 1 rounds to x² (and 1/(4x²) to nothing) in asinh and acosh.
#[inline(always)]
fn huge<T: Expansion>() -> f64 {
    crate::ldexp(1.0, T::PRECISION_BITS / 2 + 4)
}

/// e^|x| / 2 for large |x|, also where e^|x| itself overflows but the half does not.
fn half_exp<T: Expansion>(ax: T) -> T {
    if ax.hi() > 711.0 {
        return T::INFINITY;
    }
    let (k, s) = exp_parts(ax);
    scale_one_plus(k - 1, s)
}

/// sinh x = (E + E/(E + 1)) / 2 with E = expm1(|x|): no cancellation for small x.
pub(crate) fn sinh<T: Expansion>(x: T) -> T {
    let x = crate::expansion::tidy_absolute(x);
    let h = x.hi();
    if h.is_nan() || h == 0.0 {
        return x;
    }
    let ax = x.abs();
    let r = if ax.hi() > far::<T>() {
        half_exp(ax)
    } else {
        let e = exp_m1(ax);
        (e + e / (e + 1.0)).ldexp(-1)
    };
    if h < 0.0 {
        -r
    } else {
        r
    }
}

/// cosh x = (e^|x| + e^-|x|) / 2: a sum of positive terms.
pub(crate) fn cosh<T: Expansion>(x: T) -> T {
    let x = crate::expansion::tidy_absolute(x);
    let h = x.hi();
    if h.is_nan() {
        return x;
    }
    let ax = x.abs();
    if ax.hi() > far::<T>() {
        return half_exp(ax);
    }
    let e = exp_fixed(ax);
    (e + e.recip()).ldexp(-1)
}

/// tanh x = E / (E + 2) with E = expm1(2|x|); ±1 where 2 e^-2|x| drops below the precision.
pub(crate) fn tanh<T: Expansion>(x: T) -> T {
    let x = crate::expansion::tidy_absolute(x);
    let h = x.hi();
    if h.is_nan() || h == 0.0 {
        return x;
    }
    let ax = x.abs();
    let r = if ax.hi() > far::<T>() {
        T::ONE
    } else {
        let e = exp_m1(ax.ldexp(1));
        e / (e + 2.0)
    };
    if h < 0.0 {
        -r
    } else {
        r
    }
}

/// asinh x = ln_1p(|x| + x² / (1 + sqrt(1 + x²))), odd; ln|x| + ln2 for huge |x|.
pub(crate) fn asinh<T: Expansion>(x: T) -> T {
    let h = x.hi();
    if !h.is_finite() || h == 0.0 {
        return x;
    }
    let ax = x.abs();
    let r = if ax.hi() > huge::<T>() {
        ln(ax) + T::LN_2
    } else {
        let x2 = ax.sqr();
        ln_1p(ax + x2 / ((x2 + 1.0).sqrt() + 1.0))
    };
    if h < 0.0 {
        -r
    } else {
        r
    }
}

/// acosh x = ln_1p(t + sqrt(t (2 + t))) with t = x - 1 exact; NaN below 1.
pub(crate) fn acosh<T: Expansion>(x: T) -> T {
    let h = x.hi();
    if h.is_nan() || x < T::ONE {
        return T::NAN;
    }
    if h == f64::INFINITY {
        return x;
    }
    if h > huge::<T>() {
        return ln(x) + T::LN_2;
    }
    let t = x - 1.0;
    ln_1p(t + (t * (t + 2.0)).sqrt())
}

/// atanh x = ln_1p(2|x| / (1 - |x|)) / 2, odd; ±inf at ±1, NaN beyond.
pub(crate) fn atanh<T: Expansion>(x: T) -> T {
    let h = x.hi();
    if h.is_nan() {
        return x;
    }
    if h == 0.0 {
        return x;
    }
    let ax = x.abs();
    if ax > T::ONE {
        return T::NAN;
    }
    let r = if ax == T::ONE {
        T::INFINITY
    } else {
        ln_1p(ax.ldexp(1) / (-ax + 1.0)).ldexp(-1)
    };
    if h < 0.0 {
        -r
    } else {
        r
    }
}

macro_rules! impl_hyperbolic {
    ($t:ident, $accuracy:literal) => {
        impl $t {
            #[doc = concat!("The hyperbolic sine, to a relative error below ", $accuracy,
                        " (also near 0); ±inf beyond |x| = 710.47, NaN for NaN.")]
            pub fn sinh(self) -> $t {
                sinh(self)
            }
            #[doc = concat!("The hyperbolic cosine, to a relative error below ", $accuracy,
                        "; +inf beyond |x| = 710.47, NaN for NaN.")]
            pub fn cosh(self) -> $t {
                cosh(self)
            }
            #[doc = concat!("The hyperbolic tangent, to a relative error below ", $accuracy,
                        " (also near 0); ±1 for large |x|, NaN for NaN.")]
            pub fn tanh(self) -> $t {
                tanh(self)
            }
            #[doc = concat!("The inverse hyperbolic sine, to a relative error below ",
                        $accuracy, " for every finite input (also near 0); ±inf for ±inf.")]
            pub fn asinh(self) -> $t {
                asinh(self)
            }
            #[doc = concat!("The inverse hyperbolic cosine, to a relative error below ",
                        $accuracy, " for x >= 1 (also near 1); NaN below 1, +inf for +inf.")]
            pub fn acosh(self) -> $t {
                acosh(self)
            }
            #[doc = concat!("The inverse hyperbolic tangent, to a relative error below ",
                        $accuracy, " on (-1, 1) (also near 0); ±inf at ±1, NaN beyond.")]
            pub fn atanh(self) -> $t {
                atanh(self)
            }
        }
    };
}

impl_hyperbolic!(Dd, "2^-100");
impl_hyperbolic!(Qd, "2^-200");
