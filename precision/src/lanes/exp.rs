//! `Dd::exp` and `Qd::exp` lane by lane: `crate::exp_log::exp`'s special cases as selects, then
//! `crate::exp_fixed::exp_dd` and `exp_qd` step for step in integer lanes (the argument
//! converted exactly to fixed point, reduced by ln 2, the two table lookups as gathers, the
//! Taylor series of expm1(r) by Horner's rule, the pieces of `1 + v` converted, renormalised and
//! scaled by 2^k), so that every lane holds the scalar function's bits. The two correction loops
//! of the reduction run until no lane needs another step, each lane stepping only while its own
//! condition holds.

use super::dd::DdV;
use super::eft::quick_two_sum;
use super::fixed::{
    add, add_below_one, ldexp, mul, mul_wide, select_limbs, shl16, sub, to_f64_52, to_f64_53,
    to_i64, Limbs,
};
use super::ints::Ints;
use super::qd::{overflow_cleared, renormalise, QdV};
use crate::exp_fixed::{EXP_COEFFS, EXP_J256_M1, EXP_K65536_M1, LN2_FIX, LOG2_E};
use crate::exp_log::{EXP_OVERFLOW, EXP_UNDERFLOW};

/// A four-limb table padded with zeros to 256 entries, so that any 8-bit index gathers inside
/// it; with `top2` only its top two limbs (`fixed::top::<2>`), in the first two places.
const fn padded<const M: usize>(t: &[[u64; 4]; M], top2: bool) -> [[u64; 4]; 256] {
    let mut r = [[0u64; 4]; 256];
    let mut i = 0;
    while i < M {
        r[i] = if top2 { [t[i][2], t[i][3], 0, 0] } else { t[i] };
        i += 1;
    }
    r
}

/// The tables of `exp_fixed` as the lanes gather them: expm1(j/2^8) for j = 0..=177 (then
/// zeros: the reduced argument keeps j below 178) and expm1(i/2^16) for i = 0..=255, in two
/// limbs (dd) and four (qd).
pub(crate) static EXP_J_DD: [[u64; 4]; 256] = padded(&EXP_J256_M1, true);
pub(crate) static EXP_I_DD: [[u64; 4]; 256] = padded(&EXP_K65536_M1, true);
pub(crate) static EXP_J_QD: [[u64; 4]; 256] = padded(&EXP_J256_M1, false);
pub(crate) static EXP_I_QD: [[u64; 4]; 256] = padded(&EXP_K65536_M1, false);

/// Lanes whose lower components are beyond this are handed to the scalar method: a normalised
/// expansion whose exp is not a special value has them below 2^-44, so only malformed values
/// (and infinite or NaN lower components) go there.
const LOW_LIMIT: f64 = 1.0;

/// The special cases of `exp_log::exp` for the leading components `hi` and lower components
/// `low`: NaN, overflow, underflow, and the lanes for the scalar method; `fixed` is the rest.
pub(crate) struct Cases<L: Ints> {
    nan: L::M,
    over: L::M,
    under: L::M,
    special: L::M,
    fixed: L::M,
    redo: L::M,
}

#[inline(always)]
pub(crate) fn cases<L: Ints>(l: L, hi: L::V, low: &[L::V]) -> Cases<L> {
    let nan = l.ne(hi, hi);
    let over = l.gt(hi, l.splat(EXP_OVERFLOW + 1e-3));
    let under = l.lt(hi, l.splat(EXP_UNDERFLOW));
    let special = l.or(nan, l.or(over, under));
    let mut malformed = l.none();
    for &c in low {
        malformed = l.or(malformed, l.not(l.le(l.abs(c), l.splat(LOW_LIMIT))));
    }
    Cases {
        nan,
        over,
        under,
        special,
        fixed: l.not(l.or(special, malformed)),
        redo: l.and(malformed, l.not(special)),
    }
}

/// The leading component of the result: the special value, or `h`.
#[inline(always)]
fn lead<L: Ints>(l: L, k: &Cases<L>, h: L::V) -> L::V {
    let zero = l.splat(0.0);
    let h = l.select(k.under, zero, h);
    let h = l.select(k.over, l.splat(f64::INFINITY), h);
    l.select(k.nan, l.splat(f64::NAN), h)
}

/// `Dd::exp` in every lane, and the lanes whose argument is malformed (the caller recomputes
/// them with the scalar method).
#[inline(always)]
pub(crate) fn exp_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, L::M) {
    if L::WIDTH == 1 {
        // One lane: the scalar method itself is faster than its integer emulation here.
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let cases = cases(l, x[0], &x[1..]);
    // The other lanes compute exp(0) on the side, in range.
    let c = [
        l.select(cases.fixed, x[0], zero),
        l.select(cases.fixed, x[1], zero),
    ];

    let (k, j, i, r) = split::<L, 2, 3>(l, &c);
    let v = combine(l, expm1_2(l, r), (j, i), &EXP_J_DD, &EXP_I_DD);
    let [h, t] = exp_dd_of(l, k, v);
    (
        [lead(l, &cases, h), l.select(cases.special, zero, t)],
        cases.redo,
    )
}

/// `exp_dd_sum` after `exp_fraction`, and `exp_fixed`'s `clean`: 2^k (1 + v), 1 + v cut into
/// pieces of 52, 53 and 23 bits, each exact as a double; an overflow is (+inf, 0).
#[inline(always)]
pub(crate) fn exp_dd_of<L: Ints>(l: L, k: L::V, v: Limbs<L, 2>) -> DdV<L> {
    let c0 = l.add(l.splat(1.0), piece(l, &v, 76, 52, -52));
    let c1 = l.add(piece(l, &v, 23, 53, -105), piece(l, &v, 0, 23, -128));
    let (h, t) = quick_two_sum(l, c0, c1);
    let (h, t) = (ldexp(l, h, k), ldexp(l, t, k));
    [h, l.select(l.is_finite(h), t, l.splat(0.0))]
}

/// `Qd::exp` in every lane, and the lanes whose argument is malformed.
#[inline(always)]
pub(crate) fn exp_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let cases = cases(l, x[0], &x[1..]);
    let mut c = x;
    for ci in c.iter_mut() {
        *ci = l.select(cases.fixed, *ci, zero);
    }

    let (k, j, i, r) = split::<L, 4, 5>(l, &c);
    let v = combine(l, expm1_4(l, r), (j, i), &EXP_J_QD, &EXP_I_QD);
    let q = exp_qd_of(l, k, v);
    let keep = l.not(cases.special);
    (
        [
            lead(l, &cases, q[0]),
            l.select(keep, q[1], zero),
            l.select(keep, q[2], zero),
            l.select(keep, q[3], zero),
        ],
        cases.redo,
    )
}

/// `exp_qd_scaled` after `exp_fraction`, and `exp_fixed`'s `clean`: 1 + v cut into five
/// pieces from the top, renormalised, scaled by 2^k; an overflow is (+inf, 0, 0, 0).
#[inline(always)]
pub(crate) fn exp_qd_of<L: Ints>(l: L, k: L::V, v: Limbs<L, 4>) -> QdV<L> {
    let c0 = l.add(l.splat(1.0), piece(l, &v, 204, 52, -52));
    let c1 = piece(l, &v, 151, 53, -105);
    let c2 = piece(l, &v, 98, 53, -158);
    let c3 = piece(l, &v, 45, 53, -211);
    let c4 = piece(l, &v, 0, 45, -256);
    let mut q = renormalise(l, [c0, c1, c2, c3, c4]);
    for qi in q.iter_mut() {
        *qi = ldexp(l, *qi, k);
    }
    overflow_cleared(l, q)
}

/// `crate::ldexp(bits(v, pos, len) as f64, scale)` as `exp_dd_sum` and `exp_qd_scaled` take
/// their pieces (`len <= 53`; the scaling is one exact multiplication).
#[inline(always)]
pub(crate) fn piece<L: Ints, const N: usize>(
    l: L,
    v: &Limbs<L, N>,
    pos: usize,
    len: usize,
    scale: i32,
) -> L::V {
    // `fixed::bits`.
    let (i, o) = (pos / 64, pos % 64);
    let mut b = l.shr(v[i], o as u32);
    if o > 0 && i + 1 < N {
        b = l.u_or(b, l.shl(v[i + 1], 64 - o as u32));
    }
    let b = l.u_and(b, l.u_splat((1u64 << len) - 1));
    let x = if len <= 52 {
        to_f64_52(l, b)
    } else {
        to_f64_53(l, b)
    };
    l.mul(x, l.splat(crate::ldexp(1.0, scale)))
}

/// The first half of `exp_fixed::exp_fraction::<N>` for the value `sum c` (`W = N + 1` limbs
/// for the reduction): `k` (an integral double), the table indices `j` and `i`, and the rest
/// `r < 2^-16` for the series. (Two halves around the series rather than one function taking
/// it: a function passed as a value is called through a shim built without the caller's
/// target features, and the intrinsics in it would not be inlined.)
#[inline(always)]
pub(crate) fn split<L: Ints, const N: usize, const W: usize>(
    l: L,
    c: &[L::V],
) -> (L::V, L::U, L::U, Limbs<L, N>) {
    let (k, mut r) = reduce::<L, N, W>(l, c);
    let lead = r[N - 1];
    let j = l.shr(lead, 56);
    let i = l.u_and(l.shr(lead, 48), l.u_splat(0xff));
    r[N - 1] = l.u_and(lead, l.u_splat(0x0000_ffff_ffff_ffff));
    (k, j, i, r)
}

/// The second half of `exp_fixed::exp_fraction::<N>`: `v` with exp(R) = 1 + v from the
/// series' `p` = expm1(r) and the table entries `j` and `i`.
#[inline(always)]
pub(crate) fn combine<L: Ints, const N: usize>(
    l: L,
    p: Limbs<L, N>,
    (j, i): (L::U, L::U),
    table_j: &[[u64; 4]; 256],
    table_i: &[[u64; 4]; 256],
) -> Limbs<L, N> {
    let mut a = p;
    let mut b = p;
    for m in 0..N {
        a[m] = l.gather(table_j, j, m);
        b[m] = l.gather(table_i, i, m);
    }
    let ab = add_below_one(l, add_below_one(l, a, b), mul::<L, N, 0>(l, a, b));
    let (v, c1) = add(l, ab, p);
    let (mut v, c2) = add(l, v, mul::<L, N, 0>(l, ab, p));
    let max = l.u_splat(u64::MAX);
    let carried = l.or(c1, c2);
    for vm in v.iter_mut() {
        *vm = l.u_select(carried, max, *vm);
    }
    v
}

/// The series' n-th coefficient 2^-16n/n! in the top `N` limbs. (Not a closure, here or
/// elsewhere in the lanes: a closure is a function of its own, built without the caller's
/// target features, so the intrinsics in it would not be inlined.)
#[inline(always)]
fn coeff<L: Ints, const N: usize>(l: L, n: usize) -> Limbs<L, N> {
    let mut c = [l.u_splat(0); N];
    for (m, cm) in c.iter_mut().enumerate() {
        *cm = l.u_splat(EXP_COEFFS[n][4 - N + m]);
    }
    c
}

/// `exp_fixed::expm1_2`: the series of expm1(r) for `0 <= r < 2^-16` by Horner's rule.
#[inline(always)]
pub(crate) fn expm1_2<L: Ints>(l: L, r: Limbs<L, 2>) -> Limbs<L, 2> {
    let s = shl16(l, r);
    let mut q = coeff(l, 7);
    q = add_below_one(l, coeff(l, 6), mul::<L, 2, 1>(l, s, q));
    q = add_below_one(l, coeff(l, 5), mul::<L, 2, 1>(l, s, q));
    q = add_below_one(l, coeff(l, 4), mul::<L, 2, 1>(l, s, q));
    q = add_below_one(l, coeff(l, 3), mul::<L, 2, 1>(l, s, q));
    q = add_below_one(l, coeff(l, 2), mul::<L, 2, 0>(l, s, q));
    q = add_below_one(l, coeff(l, 1), mul::<L, 2, 0>(l, s, q));
    mul::<L, 2, 0>(l, s, q)
}

/// `exp_fixed::expm1_4`: the same series to n = 12 in four limbs.
#[inline(always)]
pub(crate) fn expm1_4<L: Ints>(l: L, r: Limbs<L, 4>) -> Limbs<L, 4> {
    let s = shl16(l, r);
    let mut q = coeff(l, 12);
    q = add_below_one(l, coeff(l, 11), mul::<L, 4, 3>(l, s, q));
    q = add_below_one(l, coeff(l, 10), mul::<L, 4, 3>(l, s, q));
    q = add_below_one(l, coeff(l, 9), mul::<L, 4, 2>(l, s, q));
    q = add_below_one(l, coeff(l, 8), mul::<L, 4, 2>(l, s, q));
    q = add_below_one(l, coeff(l, 7), mul::<L, 4, 2>(l, s, q));
    q = add_below_one(l, coeff(l, 6), mul::<L, 4, 1>(l, s, q));
    q = add_below_one(l, coeff(l, 5), mul::<L, 4, 1>(l, s, q));
    q = add_below_one(l, coeff(l, 4), mul::<L, 4, 1>(l, s, q));
    q = add_below_one(l, coeff(l, 3), mul::<L, 4, 1>(l, s, q));
    q = add_below_one(l, coeff(l, 2), mul::<L, 4, 0>(l, s, q));
    q = add_below_one(l, coeff(l, 1), mul::<L, 4, 0>(l, s, q));
    mul::<L, 4, 0>(l, s, q)
}

/// `exp_fixed::reduce::<N>` for the components `c` of a finite value below 2^40 (`W = N + 1`
/// limbs: the fraction and the integer limb): `(k, R)` with `sum c = k ln2 + R`,
/// `0 <= R < ln2` in `N` fraction limbs.
#[inline(always)]
fn reduce<L: Ints, const N: usize, const W: usize>(l: L, c: &[L::V]) -> (L::V, Limbs<L, N>) {
    let z = l.u_splat(0);
    let mut w = [z; W];
    for &ci in c {
        w = add_scaled::<L, N, W>(l, w, ci);
    }
    let mut k = l.floor(l.mul(c[0], l.splat(LOG2_E)));
    // w -= k ln2, as the scalar function's carry chain computes it: |k| ln2 exactly.
    let ka = to_i64(l, l.abs(k));
    let mut ln2 = [z; W];
    let mut p = [z; W];
    let mut carry = z;
    for m in 0..N {
        ln2[m] = l.u_splat(LN2_FIX[4 - N + m]);
        let (lo, hi) = mul_wide(l, ln2[m], ka);
        p[m] = l.u_add(lo, carry);
        carry = l.add_if(hi, l.u_lt(p[m], carry));
    }
    p[N] = carry;
    let positive = l.gt(k, l.splat(0.0));
    w = select_limbs(l, positive, sub(l, w, p), add(l, w, p).0);
    // The guess of k is off by at most one either way near a multiple of ln2.
    loop {
        let m = l.i_negative(w[N]);
        if l.bits(m) == 0 {
            break;
        }
        w = select_limbs(l, m, add(l, w, ln2).0, w);
        k = l.select(m, l.sub(k, l.splat(1.0)), k);
    }
    loop {
        // `fraction_at_least_ln2`, from the low limb up.
        let mut ge = l.not(l.u_lt(w[0], ln2[0]));
        for m in 1..N {
            ge = l.or(l.u_lt(ln2[m], w[m]), l.and(l.u_eq(w[m], ln2[m]), ge));
        }
        let m = l.or(l.not(l.u_eq(w[N], z)), ge);
        if l.bits(m) == 0 {
            break;
        }
        w = select_limbs(l, m, sub(l, w, ln2), w);
        k = l.select(m, l.add(k, l.splat(1.0)), k);
    }
    let mut r = [z; N];
    r.copy_from_slice(&w[..N]);
    (k, r)
}

/// `fixed::add_scaled::<N>(w, c, 0)` with `W = N + 1` limbs: adds the finite double `c` to `w`,
/// truncated to the unit 2^-64N, wrapping in the integer limb; bits beyond the integer limb are
/// dropped, as the scalar function's carry loop stops there.
#[inline(always)]
pub(crate) fn add_scaled<L: Ints, const N: usize, const W: usize>(
    l: L,
    w: Limbs<L, W>,
    c: L::V,
) -> Limbs<L, W> {
    let bits = l.to_bits(c);
    let zero = l.u_splat(0);
    let e = l.u_and(l.shr(bits, 52), l.u_splat(0x7ff));
    let frac = l.u_and(bits, l.u_splat((1 << 52) - 1));
    let subnormal = l.u_eq(e, zero);
    let m = l.u_select(subnormal, frac, l.u_or(frac, l.u_splat(1 << 52)));
    let e = l.u_select(subnormal, l.u_splat(1), e);
    // c = ±m 2^(e - 1075) sits at bit s = e - bias of w, bias = 1075 - 64N: nothing of it is
    // left for s <= -53; for s < 0 its low bits fall below the unit.
    let bias = 1075 - 64 * N as u64;
    let skip = l.or(l.u_eq(m, zero), l.u_lt(e, l.u_splat(bias - 52)));
    let below = l.u_lt(e, l.u_splat(bias));
    let m = l.u_select(below, l.shr_var(m, l.u_sub(l.u_splat(bias), e)), m);
    let m = l.u_select(skip, zero, m);
    let s = l.u_select(below, zero, l.u_sub(e, l.u_splat(bias)));
    // m 2^s as the 128-bit `v << (s % 64)` at limb s / 64 (limbs past the integer one: none).
    let (sh, at) = (l.u_and(s, l.u_splat(63)), l.shr(s, 6));
    let v_lo = l.shl_var(m, sh);
    let v_hi = l.shr_var(m, l.u_sub(l.u_splat(64), sh));
    let mut addend = [zero; W];
    let mut below_here = l.none();
    for (t, a) in addend.iter_mut().enumerate() {
        let here = l.u_eq(at, l.u_splat(t as u64));
        *a = l.u_select(here, v_lo, l.u_select(below_here, v_hi, zero));
        below_here = here;
    }
    let negative = l.i_negative(bits);
    select_limbs(l, negative, sub(l, w, addend), add(l, w, addend).0)
}
