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

/// Lower components up to this fraction of the leading one are left as they are by
/// [`tidy_relative`]: every normalised expansion has them below it (and so does every argument
/// that the SIMD lanes' ln, sin, cos and powf compute in the lanes).
const TIDY_RELATIVE: f64 = 1.0 / 4503599627370496.0; // 2^-52

/// `x` itself where each lower component is at most 2^-52 of the leading one in size (always so
/// for a normalised expansion, whose result is then untouched); otherwise (a malformed value,
/// from `Dd::new` or `Qd::new` with components that are no rounding errors of the leading one,
/// or a NaN component) its components summed into a normalised value. The fixed-point
/// functions convert `m = x 2^-e` assuming it lies in [1, 2): a malformed argument would index
/// their tables out of bounds.
#[inline(always)]
pub(crate) fn tidy_relative<T: Expansion>(x: T) -> T {
    let limit = x.hi().abs() * TIDY_RELATIVE;
    tidy(x, limit)
}

/// `x` itself where each lower component is at most 1 in size (so for every normalised
/// expansion, and for every argument that the SIMD lanes' exp, exp_m1, sinh, cosh and tanh
/// compute in the lanes); otherwise its components summed into a normalised value. The
/// fixed-point exp guesses its reduction from the leading component and corrects the guess one
/// step of ln 2 at a time: a huge lower component would take billions of steps.
#[inline(always)]
pub(crate) fn tidy_absolute<T: Expansion>(x: T) -> T {
    tidy(x, 1.0)
}

#[inline(always)]
fn tidy<T: Expansion>(x: T, limit: f64) -> T {
    let mut inside = true;
    for i in 1..T::COMPONENTS {
        inside &= x.component(i).abs() <= limit;
    }
    if inside {
        return x;
    }
    renormalised(x)
}

/// The components of `x` summed from the leading one, in `T`'s arithmetic.
#[cold]
fn renormalised<T: Expansion>(x: T) -> T {
    let mut r = T::from_f64(x.hi());
    for i in 1..T::COMPONENTS {
        r = r + x.component(i);
    }
    r
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

#[cfg(test)]
mod tests {
    use super::{tidy_absolute, tidy_relative};
    use crate::{Dd, Qd};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use rug::Float;

    /// A double of either sign from 2^-40 to 2^40, or 0.
    fn any(rng: &mut StdRng) -> f64 {
        if rng.gen_range(0..16) == 0 {
            return 0.0;
        }
        rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-40..40))
    }

    /// The exact sum of the components, in MPFR.
    fn exact(c: &[f64]) -> Float {
        let mut s = Float::with_val(4000, 0);
        for &x in c {
            s += x;
        }
        s
    }

    /// Malformed values (`Dd::new`, `Qd::new` with lower components as large as the leading
    /// one or larger, or a zero leading one) neither panic nor loop in the functions: each
    /// gives what it gives for the renormalised value, which is normalised and has the sum
    /// of the components as its value. The first of them made `Dd::ln` index `log_fixed`'s
    /// tables out of bounds, `Dd::exp` run its reduction's correction loop billions of times.
    #[test]
    fn malformed_values_are_renormalised_first() {
        let mut rng = StdRng::seed_from_u64(16);
        let mut renormalised = 0;
        for _ in 0..20_000 {
            let c: [f64; 4] = std::array::from_fn(|_| any(&mut rng));
            let (d, q) = (Dd::new(c[0], c[1]), Qd::new(c[0], c[1], c[2], c[3]));
            let (dy, qy) = (Dd::new(c[2], c[3]), Qd::new(c[2], c[3], c[1], c[0]));
            for (t, parts) in [(tidy_relative(d), 2), (tidy_absolute(d), 2)] {
                // tidy_absolute leaves lower components up to 1 as they are.
                assert!(t == d || t.hi + t.lo == t.hi, "{d:?} -> {t:?}");
                let e = exact(&c[..parts]);
                assert!((exact(&[t.hi, t.lo]) - &e).abs() <= e.abs() * 2f64.powi(-104));
            }
            let tq = tidy_relative(q);
            // Left as it is, or normalised.
            for k in 0..3 {
                assert!(
                    tq.0 == q.0 || tq.0[k] + tq.0[k + 1] == tq.0[k],
                    "{q:?} -> {tq:?}"
                );
            }
            let e = exact(&c);
            assert!(
                (exact(&tq.0) - &e).abs() <= e.abs() * 2f64.powi(-208),
                "{q:?}"
            );
            renormalised += (tidy_relative(d) != d) as usize;

            let (rd, rdy) = (tidy_relative(d), tidy_relative(dy));
            let (ad, aq) = (tidy_absolute(d), tidy_absolute(q));
            let (rq, rqy) = (tidy_relative(q), tidy_relative(qy));
            let same = |a: Dd, b: Dd| a == b || a.hi.is_nan() && b.hi.is_nan();
            let same_q = |a: Qd, b: Qd| a.0 == b.0 || a.0[0].is_nan() && b.0[0].is_nan();
            assert!(same(d.powf(dy), rd.powf(rdy)), "powf {d:?} {dy:?}");
            assert!(same(d.ln(), rd.ln()), "ln {d:?}");
            let (da, qa) = (d.abs(), q.abs());
            assert!(same(da.ln(), tidy_relative(da).ln()), "ln {da:?}");
            assert!(
                same(d.sin(), rd.sin()) && same(d.cos(), rd.cos()),
                "sin {d:?}"
            );
            assert!(same(d.atan(), rd.atan()), "atan {d:?}");
            assert!(
                same(da.powf(dy), tidy_relative(da).powf(rdy)),
                "powf {da:?} {dy:?}"
            );
            assert!(
                same(d.exp(), ad.exp()) && same(d.exp_m1(), ad.exp_m1()),
                "exp {d:?}"
            );
            assert!(
                same(d.cosh(), ad.cosh()) && same(d.tanh(), ad.tanh()),
                "cosh {d:?}"
            );
            assert!(same_q(q.ln(), rq.ln()), "ln {q:?}");
            assert!(same_q(qa.ln(), tidy_relative(qa).ln()), "ln {qa:?}");
            assert!(
                same_q(q.sin(), rq.sin()) && same_q(q.cos(), rq.cos()),
                "sin {q:?}"
            );
            assert!(same_q(q.atan(), rq.atan()), "atan {q:?}");
            assert!(
                same_q(qa.powf(qy), tidy_relative(qa).powf(rqy)),
                "powf {qa:?}"
            );
            assert!(
                same_q(q.exp(), aq.exp()) && same_q(q.sinh(), aq.sinh()),
                "exp {q:?}"
            );
            // The rest: no panic, no endless loop.
            for v in [
                d.tan(),
                d.asin(),
                d.acos(),
                d.atan2(dy),
                d.ln_1p(),
                d.log2(),
                d.sqrt(),
            ] {
                let _ = v;
            }
            for v in [
                q.tan(),
                q.asin(),
                q.atan2(qy),
                q.ln_1p(),
                q.log10(),
                q.cbrt(),
                q.powf(qy),
            ] {
                let _ = v;
            }
            let _ = (
                d.powf(dy),
                d.powi(7),
                d.sinh(),
                q.cosh(),
                q.tanh(),
                q.exp_m1(),
            );
        }
        assert!(renormalised > 10_000, "{renormalised}");
    }

    /// The value `precision/README.md` reported: a low component as large as the leading one.
    #[test]
    fn ln_of_a_low_component_as_large_as_the_leading_one() {
        for (hi, lo) in [(1.5, 1.5), (1.5, 3.0), (0.75, -0.5), (1.0, 1.0), (1.9, 0.2)] {
            let l = Dd::new(hi, lo).ln();
            let want = (hi + lo).ln();
            assert!(
                (l.hi - want).abs() <= 1e-15 * want.abs().max(1e-300),
                "{hi} {lo}: {l:?}"
            );
        }
    }
}
