//! `Dd::exp_m1` lane by lane: `crate::exp_log::exp_m1` for two components, its branches as
//! selects. All three of its finite paths share one run of the fixed-point exp (`exp.rs`) on
//! the argument: `exp(x) - 1` where |x| exceeds about ln2/2, `exp_fixed::exp_m1_dd`'s fraction
//! (`exp(x) = 2^k (1 + v)` with k = 0 or -1) down to 2^-12, and below that the short Taylor
//! series in double-double arithmetic.

use super::dd::{self, DdV};
use super::eft::quick_two_sum;
use super::exp::{combine, exp_dd_of, expm1_2, split, EXP_I_DD, EXP_J_DD};
use super::fixed::{sub, to_f64_53, Limbs};
use super::ints::Ints;
use crate::exp_log::{EXP_OVERFLOW, INV_FACT};

/// As in `exp.rs`: lanes whose low component is beyond this go to the scalar method.
const LOW_LIMIT: f64 = 1.0;
/// Below this |x| the series (`exp_log::expm1_small_params` for dd).
const SMALL: f64 = 1.0 / 4096.0;

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
    let small = l.lt(l.abs(hi), l.splat(SMALL));
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
    let c0 = chunk(l, &v, l.u_sub(p, l.u_splat(52)));
    let c1 = chunk(l, &v, l.u_sub(p, l.u_splat(105)));
    let c2 = chunk(l, &v, l.u_sub(p, l.u_splat(158)));
    let (hi, lo) = quick_two_sum(l, c0, l.add(c1, c2));
    [hi, lo]
}

/// `fixed::chunk::<2>(v, pos, 53)` for a per-lane `pos` (as a two's-complement `i64`, at most
/// 127 - 52): the 53 bits of `v` from bit `pos` up as an exact double times 2^(pos - 128), the
/// bits below bit 0 counting as zero.
#[inline(always)]
fn chunk<L: Ints>(l: L, v: &Limbs<L, 2>, pos: L::U) -> L::V {
    let zero = l.u_splat(0);
    let below = l.i_negative(pos);
    let len = l.u_select(below, l.u_add(l.u_splat(53), pos), l.u_splat(53));
    let pos = l.u_select(below, zero, pos);
    let none = l.or(l.i_negative(len), l.u_eq(len, zero));
    // `fixed::bits(v, pos, len)`: limb pos / 64 from bit pos % 64, the next limb above it.
    let o = l.u_and(pos, l.u_splat(63));
    let in_low = l.u_lt(pos, l.u_splat(64));
    let from = l.u_select(in_low, v[0], v[1]);
    let above = l.u_select(in_low, l.shl_var(v[1], l.u_sub(l.u_splat(64), o)), zero);
    let b = l.u_or(l.shr_var(from, o), above);
    let mask = l.u_sub(l.shl_var(l.u_splat(1), len), l.u_splat(1));
    let b = l.u_and(b, mask);
    // 2^(pos - 128) from its biased exponent.
    let scale = l.bits_to_f64(l.shl(l.u_add(pos, l.u_splat(1023 - 128)), 52));
    let x = l.mul(to_f64_53(l, b), scale);
    l.select(none, l.splat(0.0), x)
}
