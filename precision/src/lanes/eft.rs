//! The error-free transformations of [`crate::eft`], lane by lane: the same operations in the
//! same order, so every lane holds the scalar function's bits.

use super::simd::Lanes;

/// [`crate::eft::two_sum`].
#[inline(always)]
pub(crate) fn two_sum<L: Lanes>(l: L, a: L::V, b: L::V) -> (L::V, L::V) {
    let s = l.add(a, b);
    let bb = l.sub(s, a);
    let e = l.add(l.sub(a, l.sub(s, bb)), l.sub(b, bb));
    (s, e)
}

/// [`crate::eft::quick_two_sum`].
#[inline(always)]
pub(crate) fn quick_two_sum<L: Lanes>(l: L, a: L::V, b: L::V) -> (L::V, L::V) {
    let s = l.add(a, b);
    let e = l.sub(b, l.sub(s, a));
    (s, e)
}

/// [`crate::eft::two_prod`].
#[inline(always)]
pub(crate) fn two_prod<L: Lanes>(l: L, a: L::V, b: L::V) -> (L::V, L::V) {
    let p = l.mul(a, b);
    let e = l.mul_add(a, b, l.neg(p));
    (p, e)
}

/// [`crate::eft::three_sum`].
#[inline(always)]
pub(crate) fn three_sum<L: Lanes>(l: L, a: L::V, b: L::V, c: L::V) -> (L::V, L::V, L::V) {
    let (t1, t2) = two_sum(l, a, b);
    let (s, t3) = two_sum(l, c, t1);
    let (e1, e2) = two_sum(l, t2, t3);
    (s, e1, e2)
}

/// [`crate::eft::three_sum2`].
#[inline(always)]
pub(crate) fn three_sum2<L: Lanes>(l: L, a: L::V, b: L::V, c: L::V) -> (L::V, L::V) {
    let (t1, t2) = two_sum(l, a, b);
    let (s, t3) = two_sum(l, c, t1);
    (s, l.add(t2, t3))
}
