//! atan, atan2, asin and acos for [`Dd`] and [`Qd`], written once over the crate's `Expansion` trait.
//!
//! The angle of a point whose smaller coordinate is at least 2^-24 (qd) or 2^-12 (dd) times the
//! larger is computed in fixed point (`atan_fixed.rs`: two table rotations, one short division,
//! a short series; the complement and the quadrant exact in integers). Below that ratio the
//! angle is tiny (or within it of π/2, π) and the odd series `atan t = t - t^3/3 + ...` of the
//! quotient keeps relative accuracy; `|x| > 1` goes through `atan x = π/2 - atan(1/x)`. asin
//! and acos are atan2 of `x` and `sqrt((1 - x)(1 + x))`, which stays accurate near ±1 because
//! `1 - x` and `1 + x` are exact there.

use crate::atan_fixed::{atan2_dd, atan2_qd};
use crate::expansion::Expansion;
use crate::trig::TrigExpansion;
use crate::{Dd, Qd};

/// `atan t` for `|t| <= 1/256` (and beyond, less accurately): `t·Σ (-1)^m t^2m/(2m+1)`.
#[inline]
fn atan_series<T: TrigExpansion>(t: T) -> T {
    t * T::series(t.sqr(), &ATAN_COEFFS[..T::ATAN_TERMS], T::ATAN_SPLIT)
}

/// The angle of the point `(x, y)` (of `(-x, y)` when `x_negative`) for finite positive `x`, `y`
/// in fixed point (`atan_fixed.rs`), or `None` where the smaller is below 2^-24 (qd) or 2^-12
/// (dd) times the larger.
#[inline(always)]
fn angle_fixed<T: Expansion>(y: T, x: T, x_negative: bool) -> Option<T> {
    if T::COMPONENTS == 2 {
        let z = atan2_dd(
            &[y.hi(), y.component(1)],
            &[x.hi(), x.component(1)],
            x_negative,
        )?;
        Some(T::from_components(&[z.hi, z.lo]))
    } else {
        let c = |v: T| [v.hi(), v.component(1), v.component(2), v.component(3)];
        let z = atan2_qd(&c(y), &c(x), x_negative)?;
        Some(T::from_components(&z.0))
    }
}

/// `atan a` for `a >= 0` (not NaN), including +∞.
fn atan_nonnegative<T: TrigExpansion>(a: T) -> T {
    if a.hi().is_finite() && a.hi() > 0.0 {
        if let Some(z) = angle_fixed(a, T::ONE, false) {
            return z;
        }
    }
    // Below 2^-24 (qd) or 2^-12 (dd), or above the inverse, or +∞.
    if a.hi() <= 1.0 {
        atan_series(a)
    } else {
        T::FRAC_PI_2 - atan_series(a.recip())
    }
}

/// atan with the special values of `f64`: ±0 → ±0, ±∞ → ±π/2, NaN → NaN.
pub(crate) fn atan<T: TrigExpansion>(x: T) -> T {
    let x = crate::expansion::tidy_relative(x);
    if x.hi().is_nan() || x == T::ZERO {
        return x;
    }
    let z = atan_nonnegative(x.abs());
    if x < 0.0 {
        -z
    } else {
        z
    }
}

/// atan2 with the special values of `f64::atan2` (C99 Annex F).
pub(crate) fn atan2<T: TrigExpansion>(y: T, x: T) -> T {
    let y = crate::expansion::tidy_relative(y);
    let x = crate::expansion::tidy_relative(x);
    if y.hi().is_nan() || x.hi().is_nan() {
        return T::NAN;
    }
    let y_negative = y.hi().is_sign_negative();
    let x_negative = x.hi().is_sign_negative();
    let with_sign = |z: T| if y_negative { -z } else { z };
    if y == T::ZERO {
        // ±0 for x > 0 or x = +0, ±π for x < 0 or x = -0: keeps the sign of y.
        return if x_negative { with_sign(T::PI) } else { y };
    }
    let (ay, ax) = (y.abs(), x.abs());
    let y_inf = !ay.hi().is_finite();
    let x_inf = !ax.hi().is_finite();
    let z = if y_inf && x_inf {
        T::FRAC_PI_4
    } else if x == T::ZERO || y_inf {
        T::FRAC_PI_2
    } else if x_inf {
        T::ZERO
    } else if let Some(z) = angle_fixed(ay, ax, x_negative) {
        // The quadrant is in z already.
        return with_sign(z);
    } else if ay <= ax {
        atan_nonnegative(ay / ax)
    } else {
        T::FRAC_PI_2 - atan_nonnegative(ax / ay)
    };
    with_sign(if x_negative { T::PI - z } else { z })
}

/// `sqrt(1 - x²)`, as `sqrt((1 - x)(1 + x))` so that it stays accurate near ±1; NaN for
/// `|x| > 1`.
#[inline]
fn cofunction<T: TrigExpansion>(x: T) -> T {
    ((T::ONE - x) * (x + 1.0)).sqrt()
}

pub(crate) fn asin<T: TrigExpansion>(x: T) -> T {
    let x = crate::expansion::tidy_relative(x);
    if x.hi().is_nan() || x.abs() > 1.0 {
        return T::NAN;
    }
    if x == T::ZERO {
        return x;
    }
    atan2(x, cofunction(x))
}

pub(crate) fn acos<T: TrigExpansion>(x: T) -> T {
    let x = crate::expansion::tidy_relative(x);
    if x.hi().is_nan() || x.abs() > 1.0 {
        return T::NAN;
    }
    atan2(cofunction(x), x)
}

macro_rules! impl_inverse_trig {
    ($t:ident, $bound:literal) => {
        /// Inverse trigonometric functions, accurate to full precision over their whole domain
        /// (relative error below
        #[doc = $bound]
        /// measured against MPFR), with the special values of `f64`'s.
        impl $t {
            /// The arcsine in [-π/2, π/2]; `asin(±0) = ±0`, NaN for `|x| > 1` and NaN.
            #[inline]
            pub fn asin(self) -> $t {
                asin(self)
            }

            /// The arccosine in [0, π]; NaN for `|x| > 1` and NaN.
            #[inline]
            pub fn acos(self) -> $t {
                acos(self)
            }

            /// The arctangent in [-π/2, π/2]; `atan(±0) = ±0`, `atan(±∞) = ±π/2`.
            #[inline]
            pub fn atan(self) -> $t {
                atan(self)
            }

            /// The angle of the point `(x, self)` in [-π, π], with the signed zeros and
            /// infinities of `f64::atan2`: e.g. `atan2(±0, -0) = ±π`, `atan2(±∞, -∞) = ±3π/4`.
            #[inline]
            pub fn atan2(self, x: $t) -> $t {
                atan2(self, x)
            }
        }
    };
}

impl_inverse_trig!(Dd, "2^-100");
impl_inverse_trig!(Qd, "2^-200");

// Generated with mpmath 1.3 at 1000 bits, each entry the greedy components
// `c_i = float(v - c_0 - ... - c_{i-1})`: `parts((-1)**m/(2m+1), 4)`.

/// `(-1)^m/(2m+1)`: `atan t = t·Σ ATAN_COEFFS[m]·t^2m`.
#[rustfmt::skip]
static ATAN_COEFFS: [[f64; 4]; 14] = [
    [1.0, 0.0, 0.0, 0.0],
    [-0.3333333333333333, -1.850371707708594e-17, -1.0271626370065257e-33, -5.701898048196684e-50],
    [0.2, -1.1102230246251566e-17, 6.162975822039155e-34, -3.4211388289180106e-50],
    [-0.14285714285714285, -7.93016446160826e-18, -4.4021255871708246e-34, -2.443670592084293e-50],
    [0.1111111111111111, 6.1679056923619804e-18, 3.423875456688419e-34, 1.900632682732228e-50],
    [-0.09090909090909091, 2.523234146875356e-18, -7.003381615953585e-35, 1.9438288800670514e-51],
    [0.07692307692307693, -4.270088556250602e-18, 2.370375316168906e-34, -1.3158226265069272e-50],
    [-0.06666666666666667, -9.251858538542971e-19, -1.2839532962581572e-35, -1.7818431400614637e-52],
    [0.058823529411764705, 8.163404592832033e-19, 1.1328999672866093e-35, 1.5722145353483504e-52],
    [-0.05263157894736842, -2.921639538487254e-18, -1.6218357426418827e-34, -9.00299691820529e-51],
    [0.047619047619047616, 2.64338815386942e-18, 1.4673751957236082e-34, 8.145568640280977e-51],
    [-0.043478260869565216, -1.206764157201257e-18, -3.349443381543019e-35, -9.296572904668506e-52],
    [0.04, -8.326672684688674e-19, -3.0814879110195774e-35, 6.414635304221269e-52],
    [-0.037037037037037035, -2.05596856412066e-18, -1.1412918188961397e-34, -6.335442275774093e-51],
];
