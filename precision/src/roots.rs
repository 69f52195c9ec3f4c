//! Cube root and hypotenuse for [`Dd`] and [`Qd`], written once over [`Expansion`].

use crate::exp_log::{clean, from_dd, to_dd};
use crate::expansion::Expansion;
use crate::{Dd, Qd};

/// The unbiased exponent of a normal positive double.
#[inline(always)]
fn exponent(h: f64) -> i32 {
    ((h.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// cbrt(m) for m in [1, 8], to within an ulp or two: a chord through (1, 1) and (8, 2) (10%
/// off at worst), then three steps of Halley's cubically convergent iteration
/// `g <- g (g³ + 2m) / (2g³ + m)`. Computed here rather than by libm so that every IEEE
/// machine starts from the same bits.
#[inline]
fn cbrt_start(m: f64) -> f64 {
    let mut g = (m - 1.0).mul_add(1.0 / 7.0, 1.0);
    for _ in 0..3 {
        let g3 = g * g * g;
        g = g * (g3 + 2.0 * m) / (2.0 * g3 + m);
    }
    g
}

/// The cube root; odd, exact for the cubes of small integers, ±0, ±inf and NaN returned as
/// they are.
///
/// `|x| = 2^3q m` with m in [1, 8); from a double start y, each step sets
/// `y <- y (1 + ρ/3 - ρ²/9)` with `ρ = m/y³ - 1` computed from the exact-enough residual
/// `m - y³`: the binomial series of (1 + ρ)^(1/3), so each step triples the correct bits less
/// a few (one step for dd, two for qd).
pub(crate) fn cbrt<T: Expansion>(x: T) -> T {
    let h = x.hi();
    if !h.is_finite() || h == 0.0 {
        return x;
    }
    let mut ax = x.abs();
    let mut bias = 0;
    if ax.hi() < 1e-290 {
        // The trailing components may be subnormal: work on a scaled copy (2^600 = (2^200)^3).
        ax = ax.ldexp(600);
        bias = -200;
    } else if ax.hi() > 1e290 {
        ax = ax.ldexp(-600);
        bias = 200;
    }
    let q = exponent(ax.hi()).div_euclid(3);
    let m = ax.ldexp(-3 * q);
    let y0 = cbrt_start(m.hi());

    let y = Dd::from_f64(y0);
    let y3 = y.sqr() * y0;
    let rho = (to_dd(m) - y3) / y3;
    let c = rho.hi * rho.hi * (-1.0 / 9.0);
    let y1 = y + y * (rho / 3.0 + c);
    let r = if T::COMPONENTS == 2 {
        from_dd::<T>(y1)
    } else {
        let y = from_dd::<T>(y1);
        let y3 = y.sqr() * y;
        let rho = to_dd(m - y3) / to_dd(y3);
        let c = y1 * (rho / 3.0 + rho.hi * rho.hi * (-1.0 / 9.0));
        y + c.hi + c.lo
    };
    let r = r.ldexp(q + bias);
    if h < 0.0 {
        -r
    } else {
        r
    }
}

/// sqrt(x² + y²) without undue overflow or underflow: both are scaled by the power of two of
/// the larger, so that the squares stay in range; +inf if either is infinite (even with a NaN),
/// as `f64::hypot`.
pub(crate) fn hypot<T: Expansion>(x: T, y: T) -> T {
    let (ax, ay) = (x.abs(), y.abs());
    if ax.hi().is_infinite() || ay.hi().is_infinite() {
        return T::INFINITY;
    }
    if ax.hi().is_nan() || ay.hi().is_nan() {
        return T::NAN;
    }
    let (mut a, mut b) = if ax >= ay { (ax, ay) } else { (ay, ax) };
    if a.hi() == 0.0 {
        return T::ZERO;
    }
    let mut bias = 0;
    if a.hi() < 1e-290 {
        a = a.ldexp(600);
        b = b.ldexp(600);
        bias = -600;
    }
    let e = exponent(a.hi());
    let (a, b) = (a.ldexp(-e), b.ldexp(-e));
    clean((a.sqr() + b.sqr()).sqrt().ldexp(e + bias))
}

macro_rules! impl_roots {
    ($t:ident, $accuracy:literal) => {
        impl $t {
            #[doc = concat!("The real cube root, to a relative error below ", $accuracy,
                        " over the whole exponent range; odd, ±0, ±inf and NaN map to themselves.")]
            pub fn cbrt(self) -> $t {
                cbrt(self)
            }
            #[doc = concat!("sqrt(self² + y²), to a relative error below ", $accuracy,
                        ", without overflow or underflow in between: +inf only when the result \
                exceeds the range, or when either input is infinite (even with a NaN).")]
            pub fn hypot(self, y: $t) -> $t {
                hypot(self, y)
            }
        }
    };
}

impl_roots!(Dd, "2^-100");
impl_roots!(Qd, "2^-200");
