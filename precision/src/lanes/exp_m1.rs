//! `Dd::exp_m1` and `Qd::exp_m1` lane by lane: `crate::exp_log::exp_m1`, its branches as
//! selects. All three of its finite paths share one run of the fixed-point exp (`exp.rs`) on
//! the argument: `exp(x) - 1` where |x| exceeds about ln2/2, `exp_fixed::exp_m1_dd`'s and
//! `exp_m1_qd`'s fraction (`exp(x) = 2^k (1 + v)` with k = 0 or -1) down to 2^-12 (dd) or
//! 2^-24 (qd), and below that the short Taylor series in double-double and quad-double
//! arithmetic. Each path is computed only when some lane of the vector takes it.

use super::dd::{self, DdV};
use super::eft::quick_two_sum;
use super::exp::{
    combine, exp_dd_of, exp_qd_of, expm1_2, expm1_4, split, EXP_I_DD, EXP_I_QD, EXP_J_DD, EXP_J_QD,
};
use super::fixed::{sub, to_f64_53, Limbs};
use super::ints::Ints;
use super::qd::{self, renormalise, QdV};
use crate::exp_log::{EXP_OVERFLOW, INV_FACT};

/// As in `exp.rs`: lanes whose low component is beyond this go to the scalar method.
const LOW_LIMIT: f64 = 1.0;
/// Below this |x| the series (`exp_log::expm1_small_params`): 2^-12 for dd, 2^-24 for qd.
const SMALL_DD: f64 = 1.0 / 4096.0;
const SMALL_QD: f64 = 1.0 / 16777216.0;

/// `Dd::exp_m1` in every lane, and the lanes whose argument is malformed.
#[inline(always)]
pub(crate) fn exp_m1_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let [hi, lo] = x;
    let zero = l.splat(0.0);
    let nan = l.ne(hi, hi);
    let over = l.gt(hi, l.splat(EXP_OVERFLOW + 1e-3));
    let low = l.lt(hi, l.splat(-200.0));
    let special = l.or(nan, l.or(over, low));
    let malformed = l.not(l.le(l.abs(lo), l.splat(LOW_LIMIT)));
    let fixed = l.not(l.or(special, malformed));
    // `(h log2 e).round() != 0`, rounding half away from zero.
    let big = l.ge(
        l.abs(l.mul(hi, l.splat(std::f64::consts::LOG2_E))),
        l.splat(0.5),
    );
    let small = l.lt(l.abs(hi), l.splat(SMALL_DD));
    let c = [l.select(fixed, hi, zero), l.select(fixed, lo, zero)];

    // Each path only where some lane takes it (the vectors of a column mostly take one).
    let (takes_exp, takes_series) = (l.and(fixed, big), l.and(fixed, small));
    let takes_fraction = l.and(fixed, l.not(l.or(big, small)));
    let mut from_exp = [zero; 2];
    let mut from_fraction = [zero; 2];
    if l.bits(l.or(takes_exp, takes_fraction)) != 0 {
        let (k, j, i, r) = split::<L, 2, 3>(l, &c);
        let v = combine(l, expm1_2(l, r), (j, i), &EXP_J_DD, &EXP_I_DD);
        if l.bits(takes_exp) != 0 {
            // exp(x) - 1, then `clean`.
            let e = dd::add_f64(l, exp_dd_of(l, k, v), l.splat(-1.0));
            from_exp = [e[0], l.select(l.is_finite(e[0]), e[1], zero)];
        }
        if l.bits(takes_fraction) != 0 {
            from_fraction = fraction_path(l, k, v);
        }
    }
    let from_series = if l.bits(takes_series) != 0 {
        series(l, c)
    } else {
        [zero; 2]
    };

    let mut r = [
        l.select(small, from_series[0], from_fraction[0]),
        l.select(small, from_series[1], from_fraction[1]),
    ];
    r = [
        l.select(big, from_exp[0], r[0]),
        l.select(big, from_exp[1], r[1]),
    ];
    // The special values: -1 is `-Dd::ONE`, (-1, -0).
    r = [
        l.select(low, l.splat(-1.0), r[0]),
        l.select(low, l.splat(-0.0), r[1]),
    ];
    r = [
        l.select(over, l.splat(f64::INFINITY), r[0]),
        l.select(over, zero, r[1]),
    ];
    r = [
        l.select(nan, l.splat(f64::NAN), r[0]),
        l.select(nan, zero, r[1]),
    ];
    (r, l.and(malformed, l.not(special)))
}

/// `exp_fixed::expm1_fraction` and `exp_m1_dd` from `exp_fraction`'s `(k, v)`: v, or
/// -(1 - v)/2 where k = -1.
#[inline(always)]
fn fraction_path<L: Ints>(l: L, k: L::V, v: Limbs<L, 2>) -> DdV<L> {
    let negative = l.ne(k, l.splat(0.0));
    let m = sub(l, [l.u_splat(0); 2], v);
    let m = [
        l.u_select(negative, m[0], v[0]),
        l.u_select(negative, m[1], v[1]),
    ];
    let f = fraction_to_dd(l, m);
    let half = l.splat(0.5);
    [
        l.select(negative, l.neg(l.mul(f[0], half)), f[0]),
        l.select(negative, l.neg(l.mul(f[1], half)), f[1]),
    ]
}

/// `exp_log::expm1_series` for dd: the terms 5 to 8 in doubles by fused multiply-adds, 2 to 4
/// in double-double, then `(p x + 1) x`.
#[inline(always)]
fn series<L: Ints>(l: L, x: DdV<L>) -> DdV<L> {
    let zero = l.splat(0.0);
    let mut q = zero;
    for n in (5..=8).rev() {
        q = l.mul_add(q, x[0], l.splat(INV_FACT[n][0]));
    }
    let mut p = [q, zero];
    for n in (2..5).rev() {
        let c = [l.splat(INV_FACT[n][0]), l.splat(INV_FACT[n][1])];
        p = dd::add_dd(l, dd::mul_dd(l, p, x), c);
    }
    dd::mul_dd(l, dd::add_f64(l, dd::mul_dd(l, p, x), l.splat(1.0)), x)
}

/// `fixed::fraction_to_dd`: three 53-bit chunks from the leading bit of a fraction of at least
/// 2^-12 (other lanes: any value, unused).
#[inline(always)]
fn fraction_to_dd<L: Ints>(l: L, v: Limbs<L, 2>) -> DdV<L> {
    // The leading bit's position p = 127 - v[1].leading_zeros(): v[1] >= 2^52, so v[1] >> 11
    // is exact as a double, whose exponent is p - 75.
    let top = to_f64_53(l, l.shr(v[1], 11));
    let p = l.u_sub(l.shr(l.to_bits(top), 52), l.u_splat(1023 - 75));
    let c0 = chunk::<L, 2>(l, &v, l.u_sub(p, l.u_splat(52)));
    let c1 = chunk::<L, 2>(l, &v, l.u_sub(p, l.u_splat(105)));
    let c2 = chunk::<L, 2>(l, &v, l.u_sub(p, l.u_splat(158)));
    let (hi, lo) = quick_two_sum(l, c0, l.add(c1, c2));
    [hi, lo]
}

/// `fixed::chunk::<N>(v, pos, 53)` for a per-lane `pos` (as a two's-complement `i64`, at most
/// 64N - 53): the 53 bits of `v` from bit `pos` up as an exact double times 2^(pos - 64N), the
/// bits below bit 0 counting as zero.
#[inline(always)]
fn chunk<L: Ints, const N: usize>(l: L, v: &Limbs<L, N>, pos: L::U) -> L::V {
    let zero = l.u_splat(0);
    let below = l.i_negative(pos);
    let len = l.u_select(below, l.u_add(l.u_splat(53), pos), l.u_splat(53));
    let pos = l.u_select(below, zero, pos);
    let none = l.or(l.i_negative(len), l.u_eq(len, zero));
    // `fixed::bits(v, pos, len)`: limb pos / 64 from bit pos % 64, the next limb above it.
    let o = l.u_and(pos, l.u_splat(63));
    let limb = l.shr(pos, 6);
    let up = l.u_sub(l.u_splat(64), o);
    let mut from = v[N - 1];
    let mut above = zero;
    for m in 0..N - 1 {
        let here = l.u_eq(limb, l.u_splat(m as u64));
        from = l.u_select(here, v[m], from);
        above = l.u_select(here, l.shl_var(v[m + 1], up), above);
    }
    let b = l.u_or(l.shr_var(from, o), above);
    let mask = l.u_sub(l.shl_var(l.u_splat(1), len), l.u_splat(1));
    let b = l.u_and(b, mask);
    // 2^(pos - 64N) from its biased exponent.
    let scale = l.bits_to_f64(l.shl(l.u_add(pos, l.u_splat(1023 - 64 * N as u64)), 52));
    let x = l.mul(to_f64_53(l, b), scale);
    l.select(none, l.splat(0.0), x)
}

/// `Qd::exp_m1` in every lane, and the lanes for the scalar method (malformed arguments, and
/// series lanes whose quad-double addition cancels).
#[inline(always)]
pub(crate) fn exp_m1_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let hi = x[0];
    let zero = l.splat(0.0);
    let nan = l.ne(hi, hi);
    let over = l.gt(hi, l.splat(EXP_OVERFLOW + 1e-3));
    let low = l.lt(hi, l.splat(-200.0));
    let special = l.or(nan, l.or(over, low));
    let mut malformed = l.none();
    for &c in &x[1..] {
        malformed = l.or(malformed, l.not(l.le(l.abs(c), l.splat(LOW_LIMIT))));
    }
    let fixed = l.not(l.or(special, malformed));
    let big = l.ge(
        l.abs(l.mul(hi, l.splat(std::f64::consts::LOG2_E))),
        l.splat(0.5),
    );
    let small = l.lt(l.abs(hi), l.splat(SMALL_QD));
    let mut c = x;
    for ci in c.iter_mut() {
        *ci = l.select(fixed, *ci, zero);
    }

    let (takes_exp, takes_series) = (l.and(fixed, big), l.and(fixed, small));
    let takes_fraction = l.and(fixed, l.not(l.or(big, small)));
    let mut from_exp = [zero; 4];
    let mut from_fraction = [zero; 4];
    if l.bits(l.or(takes_exp, takes_fraction)) != 0 {
        let (k, j, i, r) = split::<L, 4, 5>(l, &c);
        let v = combine(l, expm1_4(l, r), (j, i), &EXP_J_QD, &EXP_I_QD);
        if l.bits(takes_exp) != 0 {
            // exp(x) - 1, then `clean`.
            let e = qd::add_f64(l, exp_qd_of(l, k, v), l.splat(-1.0));
            from_exp = qd::overflow_cleared(l, e);
        }
        if l.bits(takes_fraction) != 0 {
            let negative = l.ne(k, zero);
            let m = sub(l, [l.u_splat(0); 4], v);
            let mut mv = v;
            for (a, &b) in mv.iter_mut().zip(&m) {
                *a = l.u_select(negative, b, *a);
            }
            let f = fraction_to_qd(l, mv);
            let half = l.splat(0.5);
            for (o, &fi) in from_fraction.iter_mut().zip(&f) {
                *o = l.select(negative, l.neg(l.mul(fi, half)), fi);
            }
        }
    }
    let (from_series, series_redo) = if l.bits(takes_series) != 0 {
        series_qd(l, c)
    } else {
        ([zero; 4], l.none())
    };

    let mut r = [zero; 4];
    for m in 0..4 {
        r[m] = l.select(small, from_series[m], from_fraction[m]);
        r[m] = l.select(big, from_exp[m], r[m]);
        // -1 is `-Qd::ONE`, (-1, -0, -0, -0).
        let minus_one = if m == 0 { -1.0 } else { -0.0 };
        r[m] = l.select(low, l.splat(minus_one), r[m]);
        let inf = if m == 0 { f64::INFINITY } else { 0.0 };
        r[m] = l.select(over, l.splat(inf), r[m]);
        let nan_value = if m == 0 { f64::NAN } else { 0.0 };
        r[m] = l.select(nan, l.splat(nan_value), r[m]);
    }
    let redo = l.or(
        l.and(malformed, l.not(special)),
        l.and(takes_series, series_redo),
    );
    (r, redo)
}

/// `exp_log::expm1_series` for qd: the terms 8 and 9 in doubles, 6 and 7 in double-double (of
/// the first two components, as `exp_log::to_dd` takes them), 2 to 5 in quad-double, then
/// `(p x + 1) x`; and the lanes whose quad-double additions cancel.
#[inline(always)]
fn series_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, L::M) {
    let zero = l.splat(0.0);
    let mut q = zero;
    for n in (8..=9).rev() {
        q = l.mul_add(q, x[0], l.splat(INV_FACT[n][0]));
    }
    let rd = [x[0], x[1]];
    let mut pd = [q, zero];
    for n in (6..8).rev() {
        let c = [l.splat(INV_FACT[n][0]), l.splat(INV_FACT[n][1])];
        pd = dd::add_dd(l, dd::mul_dd(l, pd, rd), c);
    }
    let mut p = [pd[0], pd[1], zero, zero];
    let mut redo = l.none();
    for n in (2..6).rev() {
        let c = [
            l.splat(INV_FACT[n][0]),
            l.splat(INV_FACT[n][1]),
            l.splat(INV_FACT[n][2]),
            l.splat(INV_FACT[n][3]),
        ];
        let (s, cancels) = qd::add_qd(l, qd::mul_qd(l, p, x), c);
        p = s;
        redo = l.or(redo, cancels);
    }
    let p = qd::mul_qd(l, qd::add_f64(l, qd::mul_qd(l, p, x), l.splat(1.0)), x);
    (p, redo)
}

/// `fixed::fraction_to_qd`: five 53-bit chunks from the leading bit of a fraction of at least
/// 2^-24, renormalised (other lanes: any value, unused).
#[inline(always)]
fn fraction_to_qd<L: Ints>(l: L, v: Limbs<L, 4>) -> QdV<L> {
    // p = 255 - v[3].leading_zeros(): v[3] >= 2^40, so v[3] >> 11 is exact as a double, whose
    // exponent is p - 203.
    let top = to_f64_53(l, l.shr(v[3], 11));
    let p = l.u_sub(l.shr(l.to_bits(top), 52), l.u_splat(1023 - 203));
    let mut c = [l.splat(0.0); 5];
    for (k, ck) in c.iter_mut().enumerate() {
        *ck = chunk::<L, 4>(l, &v, l.u_sub(p, l.u_splat(52 + 53 * k as u64)));
    }
    renormalise(l, c)
}
