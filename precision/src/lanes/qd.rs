//! [`Qd`](crate::Qd) arithmetic lane by lane: `crate::qd`'s algorithms operation for
//! operation, a value as four component vectors, each early return turned into a select of the
//! same special value, so that every lane holds the scalar method's bits.
//!
//! Two branches are data-dependent loops that do not map onto selects; their kernels return a
//! mask of the lanes that take them, and the caller recomputes those lanes with the scalar
//! method: `add_qd` under heavy cancellation (`Qd::add_merged`, which merges the eight
//! components by magnitude) and `sqrt` of an argument outside [2^-800, 2^800] (which rescales by
//! a per-lane power of two).

use super::dd::{self, signed_zero, DdV};
use super::eft::{quick_two_sum, three_sum, three_sum2, two_prod, two_sum};
use super::simd::Lanes;
use crate::qd as qd_consts;

/// As in `crate::qd`.
const ADD_CANCEL_LIMIT: f64 = 0.015625;
const SQRT_SCALE_BELOW: f64 = 1.499_696_813_895_631e-241;
const SQRT_SCALE_ABOVE: f64 = 6.668_014_432_879_854e240;

/// A quad-double per lane: four components, most significant first.
pub(crate) type QdV<L> = [<L as Lanes>::V; 4];

/// `Qd::from_f64` of a vector.
#[inline(always)]
fn from_f64<L: Lanes>(l: L, x: L::V) -> QdV<L> {
    let z = l.splat(0.0);
    [x, z, z, z]
}

/// `Qd::from_dd`.
#[inline(always)]
fn from_dd<L: Lanes>(l: L, x: DdV<L>) -> QdV<L> {
    let z = l.splat(0.0);
    [x[0], x[1], z, z]
}

/// `m ? a : b` for whole quad-doubles.
#[inline(always)]
pub(crate) fn select<L: Lanes>(l: L, m: L::M, a: QdV<L>, b: QdV<L>) -> QdV<L> {
    [
        l.select(m, a[0], b[0]),
        l.select(m, a[1], b[1]),
        l.select(m, a[2], b[2]),
        l.select(m, a[3], b[3]),
    ]
}

#[inline(always)]
fn neg<L: Lanes>(l: L, a: QdV<L>) -> QdV<L> {
    [l.neg(a[0]), l.neg(a[1]), l.neg(a[2]), l.neg(a[3])]
}

/// `Qd::to_dd`.
#[inline(always)]
pub(crate) fn to_dd<L: Lanes>(l: L, a: QdV<L>) -> DdV<L> {
    let (hi, lo) = quick_two_sum(l, a[0], l.add(a[1], l.add(a[2], a[3])));
    [signed_zero(l, hi, a[0]), lo]
}

/// `qd::renormalise` of `N` (4 or 5) components. Where every lane takes the scalar method's
/// common case (finite, and the first three FastTwoSums of the top-down pass leave nonzero
/// errors), its straight-line code; otherwise the general top-down pass, whose zero skipping
/// keeps a per-lane count `k` of the components written (as a double, 0 to 3); each write
/// goes to the component whose index equals `k`.
#[inline(always)]
pub(crate) fn renormalise<L: Lanes, const N: usize>(l: L, c: [L::V; N]) -> QdV<L> {
    let zero = l.splat(0.0);
    let lead_finite = l.is_finite(c[0]);
    let c0 = c[0];
    let mut c = c;
    let mut s = c[N - 1];
    for i in (0..N - 1).rev() {
        let (hi, lo) = quick_two_sum(l, c[i], s);
        c[i + 1] = lo;
        s = hi;
    }
    let sum_finite = l.is_finite(s);
    let first = s;
    c[0] = s;

    // The common case, in every lane (a nonzero error implies a nonzero sum, so the leading
    // component needs no signed zero).
    let (h1, l1) = quick_two_sum(l, c[0], c[1]);
    let (h2, l2) = quick_two_sum(l, l1, c[2]);
    let (h3, l3) = quick_two_sum(l, l2, c[3]);
    let plain = l.and(
        l.and(l.ne(l1, zero), l.ne(l2, zero)),
        l.and(l.ne(l3, zero), l.and(lead_finite, sum_finite)),
    );
    if l.all(plain) {
        let mut s = l3;
        for &ci in &c[4..] {
            s = l.add(s, ci);
        }
        return [h1, h2, h3, s];
    }

    let index = [l.splat(0.0), l.splat(1.0), l.splat(2.0), l.splat(3.0)];
    let mut out = [zero; 4];
    let mut k = zero;
    let mut s = c[0];
    for &ci in &c[1..] {
        let full = l.eq(k, index[3]);
        let (hi, lo) = quick_two_sum(l, s, ci);
        let nonzero = l.ne(lo, zero);
        let write = l.and(nonzero, l.not(full));
        for j in 0..3 {
            out[j] = l.select(l.and(write, l.eq(k, index[j])), hi, out[j]);
        }
        s = l.select(full, l.add(s, ci), l.select(nonzero, lo, hi));
        k = l.select(write, l.add(k, index[1]), k);
    }
    for j in 0..4 {
        out[j] = l.select(l.eq(k, index[j]), s, out[j]);
    }
    out[0] = signed_zero(l, out[0], c0);
    let out = select(l, sum_finite, out, from_f64(l, first));
    select(l, lead_finite, out, from_f64(l, c0))
}

/// `Qd::add_qd`: the sloppy sum in every lane, and the mask of the lanes whose leading
/// components cancel (and whose sum is finite), which need `Qd::add_merged` instead. Where the
/// leading sum is not finite both branches return it alone, which the sloppy sum does.
#[inline(always)]
pub(crate) fn add_qd<L: Lanes>(l: L, a: QdV<L>, b: QdV<L>) -> (QdV<L>, L::M) {
    let lead = l.add(a[0], b[0]);
    let sloppy_enough = l.ge(
        l.abs(lead),
        l.mul(l.splat(ADD_CANCEL_LIMIT), l.add(l.abs(a[0]), l.abs(b[0]))),
    );
    let merge = l.and(l.not(sloppy_enough), l.is_finite(lead));
    (add_sloppy(l, a, b), merge)
}

/// `Qd::add_sloppy`.
#[inline(always)]
pub(crate) fn add_sloppy<L: Lanes>(l: L, a: QdV<L>, b: QdV<L>) -> QdV<L> {
    let (s0, t0) = two_sum(l, a[0], b[0]);
    let (s1, t1) = two_sum(l, a[1], b[1]);
    let (s2, t2) = two_sum(l, a[2], b[2]);
    let (s3, t3) = two_sum(l, a[3], b[3]);
    let (s1, t0) = two_sum(l, s1, t0);
    let (s2, t0, t1) = three_sum(l, s2, t0, t1);
    let (s3, t0) = three_sum2(l, s3, t0, t2);
    let t0 = l.add(l.add(t0, t1), t3);
    let r = renormalise(l, [s0, s1, s2, s3, t0]);
    select(l, l.is_finite(s0), r, from_f64(l, s0))
}

/// `Qd::add_f64`.
#[inline(always)]
pub(crate) fn add_f64<L: Lanes>(l: L, a: QdV<L>, b: L::V) -> QdV<L> {
    let (c0, e) = two_sum(l, a[0], b);
    let (c1, e) = two_sum(l, a[1], e);
    let (c2, e) = two_sum(l, a[2], e);
    let (c3, e) = two_sum(l, a[3], e);
    let r = renormalise(l, [c0, c1, c2, c3, e]);
    select(l, l.is_finite(c0), r, from_f64(l, c0))
}

/// `Qd::mul_qd`.
#[inline(always)]
pub(crate) fn mul_qd<L: Lanes>(l: L, a: QdV<L>, b: QdV<L>) -> QdV<L> {
    let [a0, a1, a2, a3] = a;
    let [b0, b1, b2, b3] = b;
    let (p0, q0) = two_prod(l, a0, b0);
    let (p1, q1) = two_prod(l, a0, b1);
    let (p2, q2) = two_prod(l, a1, b0);
    let (p3, q3) = two_prod(l, a0, b2);
    let (p4, q4) = two_prod(l, a1, b1);
    let (p5, q5) = two_prod(l, a2, b0);

    let (p1, p2, q0) = three_sum(l, p1, p2, q0);
    let (p2, q1, q2) = three_sum(l, p2, q1, q2);
    let (p3, p4, p5) = three_sum(l, p3, p4, p5);
    let (s0, t0) = two_sum(l, p2, p3);
    let (s1, t1) = two_sum(l, q1, p4);
    let s2 = l.add(q2, p5);
    let (s1, t0) = two_sum(l, s1, t0);
    let s2 = l.add(s2, l.add(t0, t1));

    // a0 b3 + a1 b2 + a2 b1 + a3 b0 + q0 + q3 + q4 + q5, left to right.
    let mut e = l.mul(a0, b3);
    e = l.add(e, l.mul(a1, b2));
    e = l.add(e, l.mul(a2, b1));
    e = l.add(e, l.mul(a3, b0));
    e = l.add(e, q0);
    e = l.add(e, q3);
    e = l.add(e, q4);
    e = l.add(e, q5);
    let s1 = l.add(s1, e);
    let r = renormalise(l, [p0, p1, s0, s1, s2]);
    select(l, l.is_finite(p0), r, from_f64(l, p0))
}

/// `Qd::mul_f64`.
#[inline(always)]
pub(crate) fn mul_f64<L: Lanes>(l: L, a: QdV<L>, b: L::V) -> QdV<L> {
    let [a0, a1, a2, a3] = a;
    let (p0, q0) = two_prod(l, a0, b);
    let (p1, q1) = two_prod(l, a1, b);
    let (p2, q2) = two_prod(l, a2, b);
    let p3 = l.mul(a3, b);
    let (s1, s2) = two_sum(l, q0, p1);
    let (s2, q1, p2) = three_sum(l, s2, q1, p2);
    let (q1, q2) = three_sum2(l, q1, q2, p3);
    let s3 = q1;
    let s4 = l.add(q2, p2);
    let r = renormalise(l, [p0, s1, s2, s3, s4]);
    select(l, l.is_finite(p0), r, from_f64(l, p0))
}

/// `qd::dd_mul`: JMP17 Alg. 12 without special values.
#[inline(always)]
fn dd_mul<L: Lanes>(l: L, a: DdV<L>, b: DdV<L>) -> DdV<L> {
    let (ch, cl1) = two_prod(l, a[0], b[0]);
    let tl0 = l.mul(a[1], b[1]);
    let tl1 = l.mul_add(a[0], b[1], tl0);
    let cl2 = l.mul_add(a[1], b[0], tl1);
    let (zh, zl) = quick_two_sum(l, ch, l.add(cl1, cl2));
    [zh, zl]
}

/// `qd::dd_recip`.
#[inline(always)]
fn dd_recip<L: Lanes>(l: L, b: DdV<L>) -> DdV<L> {
    let th = l.div(l.splat(1.0), b[0]);
    let rh = l.mul_add(l.neg(b[0]), th, l.splat(1.0));
    let rl = l.mul(l.neg(b[1]), th);
    let (eh, el) = quick_two_sum(l, rh, rl);
    let (ch, cl1) = two_prod(l, eh, th);
    let (dh, dl) = quick_two_sum(l, ch, l.mul_add(el, th, cl1));
    let (sh, sl) = two_sum(l, th, dh);
    let (zh, zl) = quick_two_sum(l, sh, l.add(dl, sl));
    [zh, zl]
}

/// `qd::div_residual`, the same operations in the same order.
#[inline(always)]
fn div_residual<L: Lanes>(l: L, a: QdV<L>, b: QdV<L>, q: DdV<L>) -> DdV<L> {
    let [qh, ql] = q;
    let (p00, e00) = two_prod(l, b[0], qh);
    let (p01, e01) = two_prod(l, b[0], ql);
    let (p10, e10) = two_prod(l, b[1], qh);
    let (p11, e11) = two_prod(l, b[1], ql);
    let (p20, e20) = two_prod(l, b[2], qh);
    let d0 = l.sub(a[0], p00);
    let (h, t1) = two_sum(l, d0, a[1]);
    let (h, t2) = two_sum(l, h, l.neg(e00));
    let (h, t3) = two_sum(l, h, l.neg(p01));
    let (h, t4) = two_sum(l, h, l.neg(p10));
    let (g, v1) = two_sum(l, h, a[2]);
    let (g, v2) = two_sum(l, g, t1);
    let (g, v3) = two_sum(l, g, t2);
    let (g, v4) = two_sum(l, g, t3);
    let (g, v5) = two_sum(l, g, t4);
    let (g, v6) = two_sum(l, g, l.neg(e01));
    let (g, v7) = two_sum(l, g, l.neg(e10));
    let (g, v8) = two_sum(l, g, l.neg(p11));
    let (g, v9) = two_sum(l, g, l.neg(p20));
    let low = l.add(
        l.add(
            l.add(l.add(v1, v2), l.add(v3, v4)),
            l.add(l.add(v5, v6), l.add(v7, v8)),
        ),
        l.sub(
            l.sub(l.add(v9, a[3]), l.add(e11, e20)),
            l.add(l.mul(b[2], ql), l.mul(b[3], qh)),
        ),
    );
    let (rh, rl) = two_sum(l, g, low);
    [rh, rl]
}

/// `qd::sqrt_residual`, the same operations in the same order.
#[inline(always)]
fn sqrt_residual<L: Lanes>(l: L, a: QdV<L>, s: DdV<L>) -> DdV<L> {
    let [sh, sl] = s;
    let (p0, e0) = two_prod(l, sh, sh);
    let (p1, e1) = two_prod(l, l.mul(l.splat(2.0), sh), sl);
    let (p2, e2) = two_prod(l, sl, sl);
    let d0 = l.sub(a[0], p0);
    let (h, t1) = two_sum(l, d0, a[1]);
    let (h, t2) = two_sum(l, h, l.neg(e0));
    let (h, t3) = two_sum(l, h, l.neg(p1));
    let (g, v1) = two_sum(l, h, a[2]);
    let (g, v2) = two_sum(l, g, t1);
    let (g, v3) = two_sum(l, g, t2);
    let (g, v4) = two_sum(l, g, t3);
    let (g, v5) = two_sum(l, g, l.neg(e1));
    let (g, v6) = two_sum(l, g, l.neg(p2));
    let low = l.add(
        l.add(l.add(v1, v2), l.add(v3, v4)),
        l.add(l.add(v5, v6), l.sub(a[3], e2)),
    );
    let (rh, rl) = two_sum(l, g, low);
    [rh, rl]
}

/// `Qd::div_qd`: its scaling of a huge or tiny divisor, of a tiny dividend and of the quotient
/// as per-lane factors, 1 in the lanes that need none.
#[inline(always)]
pub(crate) fn div_qd<L: Lanes>(l: L, a: QdV<L>, b: QdV<L>) -> QdV<L> {
    let sb = dd::divisor_scale(l, b[0]);
    let (sa, inverse_sa) = dividend_scale(l, a[0]);
    let q = div_qd_unscaled(l, scaled(l, a, sa), scaled(l, b, sb));
    // sb / sa, exactly (powers of two).
    let q = scaled(l, q, l.mul(sb, inverse_sa));
    // A leading component scaled up past the largest double.
    overflow_cleared(l, q)
}

/// `q` with its trailing components zeroed in the lanes whose leading one is not finite: the
/// scalar methods' `Qd::from_f64` of a leading component that overflowed.
#[inline(always)]
pub(crate) fn overflow_cleared<L: Lanes>(l: L, q: QdV<L>) -> QdV<L> {
    let finite = l.is_finite(q[0]);
    let zero = l.splat(0.0);
    [
        q[0],
        l.select(finite, q[1], zero),
        l.select(finite, q[2], zero),
        l.select(finite, q[3], zero),
    ]
}

/// `Qd::div_qd_unscaled`.
#[inline(always)]
fn div_qd_unscaled<L: Lanes>(l: L, a: QdV<L>, b: QdV<L>) -> QdV<L> {
    let zero = l.splat(0.0);
    let m = dd_recip(l, to_dd(l, b));
    let q0 = dd_mul(l, to_dd(l, a), m);
    let special = l.or(
        l.or(
            l.not(l.and(l.is_finite(q0[0]), l.is_finite(b[0]))),
            l.eq(b[0], zero),
        ),
        l.eq(q0[0], zero),
    );
    let r = div_residual(l, a, b, q0);
    let q1 = dd_mul(l, r, m);
    let q = renormalise(l, [q0[0], q0[1], q1[0], q1[1]]);
    select(l, special, from_f64(l, l.div(a[0], b[0])), q)
}

/// `qd::dividend_scale` per lane, 2^300 below 2^-800 (not zero), else 1, and its inverse.
#[inline(always)]
fn dividend_scale<L: Lanes>(l: L, a: L::V) -> (L::V, L::V) {
    let size = l.abs(a);
    let tiny = l.and(
        l.lt(size, l.splat(qd_consts::TINY_DIVIDEND)),
        l.ne(size, l.splat(0.0)),
    );
    let one = l.splat(1.0);
    (
        l.select(tiny, l.splat(qd_consts::TWO_300), one),
        l.select(tiny, l.splat(qd_consts::TWO_M300), one),
    )
}

/// The components of `a` times the per-lane power of two `s` (1 changes no bits).
#[inline(always)]
fn scaled<L: Lanes>(l: L, a: QdV<L>, s: L::V) -> QdV<L> {
    [
        l.mul(a[0], s),
        l.mul(a[1], s),
        l.mul(a[2], s),
        l.mul(a[3], s),
    ]
}

/// `Qd::div_f64`, its scaling of a tiny dividend as in `div_qd`.
#[inline(always)]
pub(crate) fn div_f64<L: Lanes>(l: L, a: QdV<L>, b: L::V) -> QdV<L> {
    let (sa, inverse_sa) = dividend_scale(l, a[0]);
    let q = div_f64_unscaled(l, scaled(l, a, sa), b);
    scaled(l, q, inverse_sa)
}

/// `Qd::div_f64_unscaled`.
#[inline(always)]
fn div_f64_unscaled<L: Lanes>(l: L, a: QdV<L>, b: L::V) -> QdV<L> {
    let zero = l.splat(0.0);
    let q0 = dd::div_f64(l, to_dd(l, a), b);
    let special = l.or(
        l.or(
            l.not(l.and(l.is_finite(q0[0]), l.is_finite(b))),
            l.eq(b, zero),
        ),
        l.eq(q0[0], zero),
    );
    let q0 = from_dd(l, q0);
    let r = add_sloppy(l, a, neg(l, mul_f64(l, q0, b)));
    let q1 = dd::div_f64(l, to_dd(l, r), b);
    let q = add_sloppy(l, q0, from_dd(l, q1));
    select(l, special, from_f64(l, l.div(a[0], b)), q)
}

/// `Qd::sqrt`, and the mask of the lanes outside [2^-800, 2^800], which need the scalar
/// method's rescaling.
#[inline(always)]
pub(crate) fn sqrt<L: Lanes>(l: L, a: QdV<L>) -> (QdV<L>, L::M) {
    let a0 = a[0];
    let special = l.or(l.le(a0, l.splat(0.0)), l.not(l.is_finite(a0)));
    let inside = l.and(
        l.le(l.splat(SQRT_SCALE_BELOW), a0),
        l.le(a0, l.splat(SQRT_SCALE_ABOVE)),
    );
    let rescale = l.and(l.not(special), l.not(inside));
    // In range, so that the double-double root needs no rescaling either.
    let s = dd::sqrt_unscaled(l, to_dd(l, a));
    let r = sqrt_residual(l, a, s);
    let two = l.splat(2.0);
    let c = dd_mul(l, r, dd_recip(l, [l.mul(two, s[0]), l.mul(two, s[1])]));
    let root = renormalise(l, [s[0], s[1], c[0], c[1]]);
    (select(l, special, from_f64(l, l.sqrt(a0)), root), rescale)
}
