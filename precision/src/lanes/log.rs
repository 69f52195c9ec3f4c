//! `Dd::ln` and `Qd::ln` lane by lane: `crate::exp_log::ln`'s special cases as selects, then
//! `crate::log_fixed::ln_dd` and `ln_qd` step for step in integer lanes (the argument scaled to
//! `m` in [1, 2) and converted exactly to fixed point, the two reciprocal tables and the two
//! logarithm tables as gathers, the Taylor series of ln(1 + d) by Horner's rule, `e ln2` added
//! in two's complement, the result cut into 53-bit pieces from its leading bit), so that every
//! lane holds the scalar function's bits.
//!
//! Within 2^-12 (dd) or 2^-24 (qd) of 1, where the scalar function takes the series of
//! ln(1 + d) instead (`exp_log::ln_1p_series`), the lanes take it too, operation for operation
//! in the lanes' double-double and quad-double arithmetic (`ln_1p_series_dd`, `_qd`).
//!
//! The lanes that the scalar function sends elsewhere go to the scalar method: |ln x| too small
//! for the fixed point's absolute accuracy just beyond those bounds (`exp_log`'s Newton path),
//! subnormal leading components (the same path), and malformed arguments (lower components that
//! are no rounding errors of the leading one, or that would put `m` outside [1, 2)).

use super::dd::{self, DdV};
use super::eft::quick_two_sum;
use super::exp::add_scaled;
use super::fixed::{add, ldexp, mul, mul_wide, normalise, piece, select_limbs, shl_bits, sub};
use super::fixed::{to_f64_52, to_i64, Limbs};
use super::ints::Ints;
use super::qd::{self, renormalise, QdV};
use super::simd::Lanes;
use crate::exp_fixed::LN2_FIX;
use crate::exp_log::{INV_N, LN_1P_SERIES_DD, LN_1P_SERIES_QD};
use crate::log_fixed::{LOG_COEFFS, LOG_L1, LOG_L2, LOG_R1, LOG_R2};

/// A table of single limbs as one of one-limb entries, for [`Ints::gather`].
const fn one_limb<const M: usize>(t: &[u64; M]) -> [[u64; 1]; M] {
    let mut r = [[0u64; 1]; M];
    let mut i = 0;
    while i < M {
        r[i] = [t[i]];
        i += 1;
    }
    r
}

/// `log_fixed`'s tables where the lanes gather them: the reciprocals R1[j] and R2[i], and
/// -ln R1[j], -ln R2[i] in four limbs (dd gathers the top two).
static R1: [[u64; 1]; 256] = one_limb(&LOG_R1);
static R2: [[u64; 1]; 258] = one_limb(&LOG_R2);
static L1: [[u64; 4]; 256] = LOG_L1;
static L2: [[u64; 4]; 258] = LOG_L2;

/// The weight of the top bit of |ln x|'s limbs (the integer limb's), for [`piece`].
const TOP: f64 = 63.0;

/// Lower components beyond this fraction of the leading one go to the scalar method: in a
/// normalised expansion they are below 2^-52 of it (so `m` stays in [1, 2)); the rest are
/// malformed, infinite or NaN.
const LOW_LIMIT: f64 = 1.0 / 4503599627370496.0; // 2^-52

/// `Dd::ln` in every lane, and the lanes for the scalar method: near 1 the series
/// ([`near_one`]), elsewhere the fixed point ([`ln_fixed_dd`]).
#[inline(always)]
pub(crate) fn ln_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, L::M) {
    if L::WIDTH == 1 {
        // One lane: the scalar method itself is faster than its integer emulation here.
        return (x, l.not(l.none()));
    }
    let near = near_one(l, &x, LN_1P_SERIES_DD);
    let (fixed, redo) = if l.all(near) {
        (x, l.none())
    } else {
        ln_fixed_dd(l, x)
    };
    if l.bits(near) == 0 {
        return (fixed, redo);
    }
    let d = dd::add_f64(l, x, l.splat(-1.0));
    let newton = l.not(l.lt(l.abs(d[0]), l.splat(LN_1P_SERIES_DD)));
    let s = ln_1p_series_dd(l, d);
    let out = [
        l.select(near, s[0], fixed[0]),
        l.select(near, s[1], fixed[1]),
    ];
    (out, l.or(l.and(near, newton), l.and(l.not(near), redo)))
}

/// `Dd::ln` in the lanes that `exp_log::ln` takes to the fixed point, and the lanes for the
/// scalar method: the others, and those where it gives up.
#[inline(always)]
pub(crate) fn ln_fixed_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, L::M) {
    let cases = cases(l, x[0], &x[1..]);
    let harmless = l.splat(1.5);
    let c = [
        l.select(cases.fixed, x[0], harmless),
        l.select(cases.fixed, x[1], l.splat(0.0)),
    ];
    let (e, j, i, d, outside) = reduce::<L, 2, 3>(l, &c);
    let (negative, t, small) = finish::<L, 2, 3>(l, (e, j, i), ln_1p_2(l, d), 52);
    let (s, k) = normalise(l, t);
    let c0 = piece(l, &s, 0, k, TOP);
    let c1 = piece(l, &s, 1, k, TOP);
    let c2 = piece(l, &s, 2, k, TOP);
    let (hi, lo) = quick_two_sum(l, c0, l.add(c1, c2));
    let r = [
        l.select(negative, l.neg(hi), hi),
        l.select(negative, l.neg(lo), lo),
    ];
    let out = [
        special(l, &cases, cases.lead, r[0]),
        special(l, &cases, cases.rest, r[1]),
    ];
    (out, redo(l, &cases, l.or(outside, small)))
}

/// `Qd::ln` in every lane, and the lanes for the scalar method: near 1 the series
/// ([`near_one`]), elsewhere the fixed point ([`ln_fixed_qd`]).
#[inline(always)]
pub(crate) fn ln_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let near = near_one(l, &x, LN_1P_SERIES_QD);
    let (fixed, redo) = if l.all(near) {
        (x, l.none())
    } else {
        ln_fixed_qd(l, x)
    };
    if l.bits(near) == 0 {
        return (fixed, redo);
    }
    let d = qd::add_f64(l, x, l.splat(-1.0));
    let newton = l.not(l.lt(l.abs(d[0]), l.splat(LN_1P_SERIES_QD)));
    let (s, cancels) = ln_1p_series_qd(l, d);
    let out = qd::select(l, near, s, fixed);
    let near_redo = l.or(newton, cancels);
    (out, l.or(l.and(near, near_redo), l.and(l.not(near), redo)))
}

/// The lanes that `exp_log::ln` takes to `ln_split` for being near 1, `|x.hi - 1| < bound`
/// (there `x = 2^0 m` exactly, and `ln_1p_reduced(x - 1)` takes its series unless rounding
/// puts |x - 1| at the bound: those lanes go to the scalar method), among the well-formed
/// arguments (lower components within 2^-52 of the leading one: the scalar method tidies the
/// others first).
#[inline(always)]
fn near_one<L: Lanes>(l: L, x: &[L::V], bound: f64) -> L::M {
    let mut near = l.lt(l.abs(l.sub(x[0], l.splat(1.0))), l.splat(bound));
    let limit = l.mul(x[0], l.splat(LOW_LIMIT));
    for &c in &x[1..] {
        near = l.and(near, l.le(l.abs(c), limit));
    }
    near
}

/// `Qd::ln` in the lanes that `exp_log::ln` takes to the fixed point, and the lanes for the
/// scalar method: the others, and those where it gives up.
#[inline(always)]
pub(crate) fn ln_fixed_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, L::M) {
    let cases = cases(l, x[0], &x[1..]);
    let zero = l.splat(0.0);
    let c = [
        l.select(cases.fixed, x[0], l.splat(1.5)),
        l.select(cases.fixed, x[1], zero),
        l.select(cases.fixed, x[2], zero),
        l.select(cases.fixed, x[3], zero),
    ];
    let (e, j, i, d, outside) = reduce::<L, 4, 5>(l, &c);
    let (negative, t, small) = finish::<L, 4, 5>(l, (e, j, i), ln_1p_4(l, d), 40);
    let (s, k) = normalise(l, t);
    let q = renormalise(
        l,
        [
            piece(l, &s, 0, k, TOP),
            piece(l, &s, 1, k, TOP),
            piece(l, &s, 2, k, TOP),
            piece(l, &s, 3, k, TOP),
            piece(l, &s, 4, k, TOP),
        ],
    );
    let mut out = q;
    for (o, &qi) in out.iter_mut().zip(&q) {
        *o = special(l, &cases, cases.rest, l.select(negative, l.neg(qi), qi));
    }
    out[0] = special(l, &cases, cases.lead, l.select(negative, l.neg(q[0]), q[0]));
    (out, redo(l, &cases, l.or(outside, small)))
}

/// The special cases of `exp_log::ln` for the leading components `hi` and lower components
/// `low`, with the special value's leading component `lead` and lower ones `rest` (NaN for NaN
/// and negative x, -inf and -0 for zero, +inf and 0 for +inf); `fixed` the lanes for
/// `log_fixed`, `scalar` the others that the scalar method computes.
struct Cases<L: Ints> {
    special: L::M,
    lead: L::V,
    rest: L::V,
    fixed: L::M,
    scalar: L::M,
}

#[inline(always)]
fn cases<L: Ints>(l: L, hi: L::V, low: &[L::V]) -> Cases<L> {
    let zero = l.splat(0.0);
    // `h.is_nan() || h < 0.0`, `h == 0.0`, `h == inf`.
    let nan = l.or(l.ne(hi, hi), l.lt(hi, zero));
    let is_zero = l.eq(hi, zero);
    let inf = l.eq(hi, l.splat(f64::INFINITY));
    let special = l.or(nan, l.or(is_zero, inf));
    // `-T::INFINITY` negates the zeros too.
    let lead = l.select(
        nan,
        l.splat(f64::NAN),
        l.select(is_zero, l.splat(f64::NEG_INFINITY), l.splat(f64::INFINITY)),
    );
    let rest = l.select(is_zero, l.splat(-0.0), zero);
    // Subnormal leading components take the Newton path.
    let subnormal = l.lt(hi, l.splat(f64::MIN_POSITIVE));
    let limit = l.mul(hi, l.splat(LOW_LIMIT));
    let mut malformed = l.none();
    for &c in low {
        malformed = l.or(malformed, l.not(l.le(l.abs(c), limit)));
    }
    let scalar = l.and(l.not(special), l.or(subnormal, malformed));
    Cases {
        special,
        lead,
        rest,
        fixed: l.not(l.or(special, scalar)),
        scalar,
    }
}

/// The special value where the lane is special, `v` elsewhere.
#[inline(always)]
fn special<L: Ints>(l: L, k: &Cases<L>, s: L::V, v: L::V) -> L::V {
    l.select(k.special, s, v)
}

/// The lanes for the scalar method: those `cases` found, and among the fixed-point lanes those
/// that `ln_fixed` flagged.
#[inline(always)]
fn redo<L: Ints>(l: L, k: &Cases<L>, flagged: L::M) -> L::M {
    l.or(k.scalar, l.and(k.fixed, flagged))
}

/// What [`reduce`] gives: `e`, `j`, `i`, `d` and the malformed lanes.
pub(crate) type Reduced<L, const N: usize> = (
    <L as Lanes>::V,
    <L as Ints>::U,
    <L as Ints>::U,
    Limbs<L, N>,
    <L as Lanes>::M,
);

/// The first half of `log_fixed::ln_fixed_abs::<N>` for the components `c` of a finite
/// positive value with a normal leading component (`W = N + 1`): the exponent `e` of
/// `x = 2^e m` (an integral double), the table indices `j` and `i`, the rest `d` for the series,
/// and the lanes whose `m` fell outside [1, 2) (malformed: the scalar method takes them). (Two
/// halves around the series rather than one function taking it, as in `exp.rs`.)
#[inline(always)]
pub(crate) fn reduce<L: Ints, const N: usize, const W: usize>(l: L, c: &[L::V]) -> Reduced<L, N> {
    let z = l.u_splat(0);
    let field = l.u_and(l.shr(l.to_bits(c[0]), 52), l.u_splat(0x7ff));
    // e = field - 1023 as a double (exact), and m = x 2^-e converted.
    let e = l.sub(to_f64_52(l, field), l.splat(1023.0));
    let ne = l.neg(e);
    let mut w = [z; W];
    for &ci in c {
        w = add_scaled::<L, N, W>(l, w, ldexp(l, ci, ne));
    }
    // x0 a power of two and the rest negative: m just below 1, so take 2m.
    let below = l.u_eq(w[N], z);
    let w = select_limbs(l, below, shl_bits(l, w, l.u_splat(1)), w);
    let e = l.select(below, l.sub(e, l.splat(1.0)), e);
    let outside = l.not(l.u_eq(w[N], l.u_splat(1)));

    let j = l.shr(w[N - 1], 56);
    let y1 = mul_reciprocal::<L, W, 16>(l, &w, l.gather(&R1, j, 0));
    let i = l.shr(y1[N - 1], 48);
    let y2 = mul_reciprocal::<L, W, 32>(l, &y1, l.gather(&R2, i, 0));
    let mut d = [z; N];
    d.copy_from_slice(&y2[..N]);
    (e, j, i, d, outside)
}

/// The second half of `ln_fixed::<N>`: from the series' `ln(1 + d)`, whether ln x is negative,
/// |ln x| in fixed point (the integer limb at N), and the lanes where |ln x| < 2^-(64 - shift)
/// (`None` in the scalar function: the Newton path).
#[inline(always)]
pub(crate) fn finish<L: Ints, const N: usize, const W: usize>(
    l: L,
    (e, j, i): (L::V, L::U, L::U),
    series: Limbs<L, N>,
    shift: u32,
) -> (L::M, Limbs<L, W>, L::M) {
    let z = l.u_splat(0);
    let mut a = series;
    let mut b = series;
    for m in 0..N {
        a[m] = l.gather(&L1, j, 4 - N + m);
        b[m] = l.gather(&L2, i, 4 - N + m);
    }
    // ln m = -ln R1 - ln R2 + ln(1 + d).
    let lm = add(l, add(l, a, b).0, series).0;
    // t = ln m ± |e| ln2 over the N + 1 limbs, modulo 2^(64(N + 1)), as `add_at` and `sub_at`
    // leave it.
    let mut t = [z; W];
    t[..N].copy_from_slice(&lm);
    let ea = to_i64(l, l.abs(e));
    let mut p = [z; W];
    let mut carry = z;
    for m in 0..N {
        let (lo, hi) = mul_wide(l, l.u_splat(LN2_FIX[4 - N + m]), ea);
        p[m] = l.u_add(lo, carry);
        carry = l.add_if(hi, l.u_lt(p[m], carry));
    }
    p[N] = carry;
    let positive = l.gt(e, l.splat(0.0));
    let t = select_limbs(l, positive, add(l, t, p).0, sub(l, t, p));
    let negative = l.i_negative(t[N]);
    let t = select_limbs(l, negative, sub(l, [z; W], t), t);
    let small = l.and(l.u_eq(t[N], z), l.u_eq(l.shr(t[N - 1], shift), z));
    (negative, t, small)
}

/// `mul_reciprocal::<N>` (`SHIFT` 16 or 32): `y R / 2^SHIFT` over the `W = N + 1` limbs of `y`,
/// the bits below the unit dropped.
#[inline(always)]
fn mul_reciprocal<L: Ints, const W: usize, const SHIFT: u32>(
    l: L,
    y: &Limbs<L, W>,
    r: L::U,
) -> Limbs<L, W> {
    let z = l.u_splat(0);
    let mut p = [z; W];
    let mut carry = z;
    for k in 0..W {
        let (lo, hi) = mul_wide(l, y[k], r);
        p[k] = l.u_add(lo, carry);
        carry = l.add_if(hi, l.u_lt(p[k], carry));
    }
    let mut out = p;
    for k in 0..W {
        let above = if k + 1 < W { p[k + 1] } else { carry };
        out[k] = l.u_or(l.shr(p[k], SHIFT), l.shl(above, 64 - SHIFT));
    }
    out
}

/// The series' n-th coefficient 2^-15n/n in the top `N` limbs.
#[inline(always)]
fn coeff<L: Ints, const N: usize>(l: L, n: usize) -> Limbs<L, N> {
    let mut c = [l.u_splat(0); N];
    for (m, cm) in c.iter_mut().enumerate() {
        *cm = l.u_splat(LOG_COEFFS[n][4 - N + m]);
    }
    c
}

/// `log_fixed::ln_1p_4`: ln(1 + d) for `0 <= d < 2^-16 + 2^-31` by Horner's rule in `2^15 d`.
#[inline(always)]
fn ln_1p_4<L: Ints>(l: L, d: Limbs<L, 4>) -> Limbs<L, 4> {
    let s = shl_bits(l, d, l.u_splat(15));
    let mut q = coeff(l, 15);
    q = sub(l, coeff(l, 14), mul::<L, 4, 3>(l, s, q));
    q = sub(l, coeff(l, 13), mul::<L, 4, 3>(l, s, q));
    q = sub(l, coeff(l, 12), mul::<L, 4, 3>(l, s, q));
    q = sub(l, coeff(l, 11), mul::<L, 4, 2>(l, s, q));
    q = sub(l, coeff(l, 10), mul::<L, 4, 2>(l, s, q));
    q = sub(l, coeff(l, 9), mul::<L, 4, 2>(l, s, q));
    q = sub(l, coeff(l, 8), mul::<L, 4, 2>(l, s, q));
    q = sub(l, coeff(l, 7), mul::<L, 4, 1>(l, s, q));
    q = sub(l, coeff(l, 6), mul::<L, 4, 1>(l, s, q));
    q = sub(l, coeff(l, 5), mul::<L, 4, 1>(l, s, q));
    q = sub(l, coeff(l, 4), mul::<L, 4, 1>(l, s, q));
    q = sub(l, coeff(l, 3), mul::<L, 4, 0>(l, s, q));
    q = sub(l, coeff(l, 2), mul::<L, 4, 0>(l, s, q));
    q = sub(l, coeff(l, 1), mul::<L, 4, 0>(l, s, q));
    mul::<L, 4, 0>(l, s, q)
}

/// `log_fixed::ln_1p_2`: the series to n = 8 in two limbs.
#[inline(always)]
pub(crate) fn ln_1p_2<L: Ints>(l: L, d: Limbs<L, 2>) -> Limbs<L, 2> {
    let s = shl_bits(l, d, l.u_splat(15));
    let mut q = coeff(l, 8);
    q = sub(l, coeff(l, 7), mul::<L, 2, 1>(l, s, q));
    q = sub(l, coeff(l, 6), mul::<L, 2, 1>(l, s, q));
    q = sub(l, coeff(l, 5), mul::<L, 2, 1>(l, s, q));
    q = sub(l, coeff(l, 4), mul::<L, 2, 1>(l, s, q));
    q = sub(l, coeff(l, 3), mul::<L, 2, 0>(l, s, q));
    q = sub(l, coeff(l, 2), mul::<L, 2, 0>(l, s, q));
    q = sub(l, coeff(l, 1), mul::<L, 2, 0>(l, s, q));
    mul::<L, 2, 0>(l, s, q)
}

/// `exp_log::ln_1p_series` for dd (|d| < 2^-12): with `u = -d`, the terms 6 to 9 of `P(u)` in
/// doubles by fused multiply-adds, 2 to 5 in double-double, then `d - P d d`.
#[inline(always)]
pub(crate) fn ln_1p_series_dd<L: Lanes>(l: L, d: DdV<L>) -> DdV<L> {
    let u = [l.neg(d[0]), l.neg(d[1])];
    let mut q = l.splat(0.0);
    for n in (6..=9).rev() {
        q = l.mul_add(q, u[0], l.splat(INV_N[n][0]));
    }
    let mut p = [q, l.splat(0.0)];
    for n in (2..6).rev() {
        let c = [l.splat(INV_N[n][0]), l.splat(INV_N[n][1])];
        p = dd::add_dd(l, dd::mul_dd(l, p, u), c);
    }
    let w = dd::mul_dd(l, dd::mul_dd(l, p, d), d);
    dd::add_dd(l, d, [l.neg(w[0]), l.neg(w[1])])
}

/// `exp_log::ln_1p_series` for qd (|d| < 2^-24): with `u = -d`, the terms 8 and 9 of `P(u)` in
/// doubles, 6 and 7 in double-double (of u's first two components, as `exp_log::to_dd` takes
/// them), 2 to 5 in quad-double, then `d - P d d`; and the lanes whose quad-double additions
/// cancel (which `Qd::add_merged` would take: none for |d| < 2^-24, where every sum adds a term
/// below 2^-24 of the other).
#[inline(always)]
pub(crate) fn ln_1p_series_qd<L: Lanes>(l: L, d: QdV<L>) -> (QdV<L>, L::M) {
    let zero = l.splat(0.0);
    let u = [l.neg(d[0]), l.neg(d[1]), l.neg(d[2]), l.neg(d[3])];
    let mut q = zero;
    for n in (8..=9).rev() {
        q = l.mul_add(q, u[0], l.splat(INV_N[n][0]));
    }
    let ud = [u[0], u[1]];
    let mut pd = [q, zero];
    for n in (6..8).rev() {
        let c = [l.splat(INV_N[n][0]), l.splat(INV_N[n][1])];
        pd = dd::add_dd(l, dd::mul_dd(l, pd, ud), c);
    }
    let mut p = [pd[0], pd[1], zero, zero];
    let mut cancels = l.none();
    for n in (2..6).rev() {
        let c = [
            l.splat(INV_N[n][0]),
            l.splat(INV_N[n][1]),
            l.splat(INV_N[n][2]),
            l.splat(INV_N[n][3]),
        ];
        let (s, c) = qd::add_qd(l, qd::mul_qd(l, p, u), c);
        p = s;
        cancels = l.or(cancels, c);
    }
    let w = qd::mul_qd(l, qd::mul_qd(l, p, d), d);
    let (r, c) = qd::add_qd(l, d, [l.neg(w[0]), l.neg(w[1]), l.neg(w[2]), l.neg(w[3])]);
    (r, l.or(cancels, c))
}
