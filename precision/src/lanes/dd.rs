//! [`Dd`](crate::Dd) arithmetic lane by lane: `crate::dd`'s algorithms operation for
//! operation, a value as `[hi, lo]` vectors, each early return turned into a select of the same
//! special value, so that every lane holds the scalar method's bits. The square root of a
//! positive argument below 2^-900 is the one branch left to the scalar method (`sqrt`'s mask).

use super::eft::{quick_two_sum, two_prod, two_sum};
use super::simd::Lanes;

use crate::dd::{
    HUGE_DIVISOR, SQRT_SCALE_BELOW, TINY_DIVIDEND, TINY_DIVISOR, TWO_128, TWO_200, TWO_M128,
    TWO_M200,
};

/// A double-double per lane: `[hi, lo]`.
pub(crate) type DdV<L> = [<L as Lanes>::V; 2];

/// `dd::signed_zero`: `x`, or where it is zero the zero with the sign of `lead` (`0 · lead`).
#[inline(always)]
pub(crate) fn signed_zero<L: Lanes>(l: L, x: L::V, lead: L::V) -> L::V {
    let zero = l.splat(0.0);
    l.select(l.eq(x, zero), l.mul(zero, lead), x)
}

/// `Dd::finish`, and `Dd::finish_sum` where its leading operand is `special`.
#[inline(always)]
fn finish<L: Lanes>(l: L, hi: L::V, lo: L::V, special: L::V) -> DdV<L> {
    finish_with(l, hi, lo, special, hi)
}

/// `Dd::finish_with`: `over` is the answer where `special` is finite and `hi` is not.
#[inline(always)]
fn finish_with<L: Lanes>(l: L, hi: L::V, lo: L::V, special: L::V, over: L::V) -> DdV<L> {
    let zero = l.splat(0.0);
    let hi = signed_zero(l, hi, special);
    let fin = l.is_finite(hi);
    let inf = l.select(l.is_finite(special), over, special);
    [l.select(fin, hi, inf), l.select(fin, lo, zero)]
}

/// `Dd::add_dd`.
#[inline(always)]
pub(crate) fn add_dd<L: Lanes>(l: L, a: DdV<L>, b: DdV<L>) -> DdV<L> {
    let (sh, sl) = two_sum(l, a[0], b[0]);
    let (th, tl) = two_sum(l, a[1], b[1]);
    let c = l.add(sl, th);
    let (vh, vl) = quick_two_sum(l, sh, c);
    let w = l.add(tl, vl);
    let (zh, zl) = quick_two_sum(l, vh, w);
    // `Dd::finish_exceptional` answers `vh` where it is infinite (an overflow of the first
    // FastTwoSum, which leaves `zh` = inf - inf = NaN), else `zh`. Where that case arises (`sh`
    // finite, `zh` not), `vh + vh` is the same value with one addition: `vh` itself where it is
    // infinite or NaN (a NaN lower component), and where it is finite the final sum overflowed
    // and `|vh|` is within a few ulps of f64::MAX, so that `vh + vh` is `zh`, the ±inf of
    // `vh`'s sign.
    let over = l.add(vh, vh);
    finish_with(l, zh, zl, sh, over)
}

/// `Dd::add_f64`.
#[inline(always)]
pub(crate) fn add_f64<L: Lanes>(l: L, a: DdV<L>, b: L::V) -> DdV<L> {
    let (sh, sl) = two_sum(l, a[0], b);
    let v = l.add(a[1], sl);
    let (zh, zl) = quick_two_sum(l, sh, v);
    finish(l, zh, zl, sh)
}

/// `Dd::mul_dd`.
#[inline(always)]
pub(crate) fn mul_dd<L: Lanes>(l: L, a: DdV<L>, b: DdV<L>) -> DdV<L> {
    let (ch, cl1) = two_prod(l, a[0], b[0]);
    let tl0 = l.mul(a[1], b[1]);
    let tl1 = l.mul_add(a[0], b[1], tl0);
    let cl2 = l.mul_add(a[1], b[0], tl1);
    let cl3 = l.add(cl1, cl2);
    let (zh, zl) = quick_two_sum(l, ch, cl3);
    finish(l, zh, zl, ch)
}

/// `Dd::sqr`: `mul_dd` with the two cross products folded into one.
#[inline(always)]
pub(crate) fn sqr<L: Lanes>(l: L, a: DdV<L>) -> DdV<L> {
    let (ch, cl1) = two_prod(l, a[0], a[0]);
    let tl0 = l.mul(a[1], a[1]);
    let cl2 = l.mul_add(l.mul(l.splat(2.0), a[0]), a[1], tl0);
    let cl3 = l.add(cl1, cl2);
    let (zh, zl) = quick_two_sum(l, ch, cl3);
    finish(l, zh, zl, ch)
}

/// `Dd::mul_f64`.
#[inline(always)]
pub(crate) fn mul_f64<L: Lanes>(l: L, a: DdV<L>, b: L::V) -> DdV<L> {
    let (ch, cl1) = two_prod(l, a[0], b);
    let cl3 = l.mul_add(a[1], b, cl1);
    let (zh, zl) = quick_two_sum(l, ch, cl3);
    finish(l, zh, zl, ch)
}

/// `dd::divisor_scale` per lane: 2^-128 above 2^960, 2^128 below 2^-960 (not zero), else 1.
#[inline(always)]
pub(crate) fn divisor_scale<L: Lanes>(l: L, b: L::V) -> L::V {
    let size = l.abs(b);
    let huge = l.and(l.gt(size, l.splat(HUGE_DIVISOR)), l.is_finite(size));
    let tiny = l.and(l.lt(size, l.splat(TINY_DIVISOR)), l.ne(size, l.splat(0.0)));
    let s = l.select(tiny, l.splat(TWO_128), l.splat(1.0));
    l.select(huge, l.splat(TWO_M128), s)
}

/// The components of `a` times the per-lane power of two `s` (1 changes no bits).
#[inline(always)]
fn scaled<L: Lanes>(l: L, a: DdV<L>, s: L::V) -> DdV<L> {
    [l.mul(a[0], s), l.mul(a[1], s)]
}

/// `Dd::div_dd`. The scalar method's scaling of a huge or tiny divisor and of the quotient is
/// a multiplication by a per-lane factor, 1 in the lanes that need none.
#[inline(always)]
pub(crate) fn div_dd<L: Lanes>(l: L, a: DdV<L>, b: DdV<L>) -> DdV<L> {
    let s = divisor_scale(l, b[0]);
    overflow_cleared(l, scaled(l, div_dd_unscaled(l, a, scaled(l, b, s)), s))
}

/// `Dd::overflow_cleared`: a zero trailing component where the leading one is not finite.
#[inline(always)]
fn overflow_cleared<L: Lanes>(l: L, a: DdV<L>) -> DdV<L> {
    [a[0], l.select(l.is_finite(a[0]), a[1], l.splat(0.0))]
}

/// `Dd::div_dd_unscaled`.
#[inline(always)]
fn div_dd_unscaled<L: Lanes>(l: L, a: DdV<L>, b: DdV<L>) -> DdV<L> {
    let th = l.div(l.splat(1.0), b[0]);
    let ordinary = l.and(
        l.and(l.is_finite(th), l.ne(th, l.splat(0.0))),
        l.is_finite(a[0]),
    );
    let rh = l.mul_add(l.neg(b[0]), th, l.splat(1.0));
    let rl = l.mul(l.neg(b[1]), th);
    let (eh, el) = quick_two_sum(l, rh, rl);
    let delta = mul_f64(l, [eh, el], th);
    let m = add_f64(l, delta, th);
    let q = mul_dd(l, a, m);
    [
        l.select(ordinary, q[0], l.div(a[0], b[0])),
        l.select(ordinary, q[1], l.splat(0.0)),
    ]
}

/// `Dd::div_f64`, its scaling of a tiny dividend by 2^200 and of the quotient by 2^-200 as
/// per-lane factors.
#[inline(always)]
pub(crate) fn div_f64<L: Lanes>(l: L, a: DdV<L>, b: L::V) -> DdV<L> {
    let size = l.abs(a[0]);
    let tiny = l.and(l.lt(size, l.splat(TINY_DIVIDEND)), l.ne(size, l.splat(0.0)));
    let one = l.splat(1.0);
    let up = l.select(tiny, l.splat(TWO_200), one);
    let down = l.select(tiny, l.splat(TWO_M200), one);
    scaled(l, div_f64_unscaled(l, scaled(l, a, up), b), down)
}

/// `Dd::div_f64_unscaled`.
#[inline(always)]
fn div_f64_unscaled<L: Lanes>(l: L, a: DdV<L>, b: L::V) -> DdV<L> {
    let th = l.div(a[0], b);
    let special = l.or(
        l.not(l.and(l.is_finite(th), l.is_finite(b))),
        l.eq(b, l.splat(0.0)),
    );
    let (ph, pl) = two_prod(l, th, b);
    let dh = l.sub(a[0], ph);
    let dt = l.sub(dh, pl);
    let d = l.add(dt, a[1]);
    let tl = l.div(d, b);
    let (zh, zl) = quick_two_sum(l, th, tl);
    let q = finish(l, zh, zl, th);
    [
        l.select(special, th, q[0]),
        l.select(special, l.splat(0.0), q[1]),
    ]
}

/// `Dd::sqrt`, and the mask of the lanes with a positive argument below 2^-900, which need the
/// scalar method's rescaling (rare, so a scalar redo costs less than scaling every lane).
#[inline(always)]
pub(crate) fn sqrt<L: Lanes>(l: L, a: DdV<L>) -> (DdV<L>, L::M) {
    let tiny = l.and(
        l.lt(a[0], l.splat(SQRT_SCALE_BELOW)),
        l.gt(a[0], l.splat(0.0)),
    );
    (sqrt_unscaled(l, a), tiny)
}

/// `Dd::sqrt` for arguments that need no rescaling (not positive and below 2^-900); its
/// special values as selects.
#[inline(always)]
pub(crate) fn sqrt_unscaled<L: Lanes>(l: L, a: DdV<L>) -> DdV<L> {
    let special = l.or(l.le(a[0], l.splat(0.0)), l.not(l.is_finite(a[0])));
    let sh = l.sqrt(a[0]);
    let r1 = l.mul_add(l.neg(sh), sh, a[0]);
    let r2 = l.add(a[1], r1);
    let sl = l.div(r2, l.mul(l.splat(2.0), sh));
    let (zh, zl) = quick_two_sum(l, sh, sl);
    [
        l.select(special, sh, zh),
        l.select(special, l.splat(0.0), zl),
    ]
}
