//! `Dd::exp` lane by lane: `crate::exp_log::exp`'s special cases as selects, then
//! `crate::exp_fixed::exp_dd` step for step in integer lanes (the argument converted exactly to
//! fixed point, reduced by ln 2, the two table lookups as gathers, the Taylor series of
//! expm1(r) by Horner's rule, the pieces of `1 + v` converted and scaled by 2^k), so that every
//! lane holds the scalar function's bits. The two correction loops of the reduction run until
//! no lane needs another step, each lane stepping only while its own condition holds.

use super::dd::DdV;
use super::eft::quick_two_sum;
use super::fixed::{
    add, add_below_one, ldexp, mul, mul_wide, shl16, sub, to_f64_52, to_f64_53, to_i64, Limbs,
};
use super::ints::Ints;
use crate::exp_fixed::{EXP_COEFFS, EXP_J256_M1, EXP_K65536_M1, LN2_FIX, LOG2_E};
use crate::exp_log::{EXP_OVERFLOW, EXP_UNDERFLOW};

/// The top two limbs of a four-limb table (`fixed::top::<2>`), padded with zeros to 256
/// entries so that any 8-bit index gathers inside it.
const fn top2_padded<const M: usize>(t: &[[u64; 4]; M]) -> [[u64; 2]; 256] {
    let mut r = [[0u64; 2]; 256];
    let mut i = 0;
    while i < M {
        r[i] = [t[i][2], t[i][3]];
        i += 1;
    }
    r
}

/// expm1(j/2^8), j = 0..=177 (then zeros: the reduced argument keeps j below 178).
static EXP_J_DD: [[u64; 2]; 256] = top2_padded(&EXP_J256_M1);
/// expm1(i/2^16), i = 0..=255.
static EXP_I_DD: [[u64; 2]; 256] = top2_padded(&EXP_K65536_M1);

/// ln 2 in two fraction limbs, as `exp_fixed::ln2::<2>`.
const LN2_DD: [u64; 2] = [LN2_FIX[2], LN2_FIX[3]];

/// The fraction limbs and the integer limb of `fixed::Wide` for two fraction limbs.
type Wide<L> = Limbs<L, 3>;

/// Lanes whose low component is beyond this are handed to the scalar method: a normalised
/// double-double whose exp is not a special value has `|lo| <= 2^-44`, so only malformed
/// values (and infinite or NaN low components) go there.
const LO_LIMIT: f64 = 1.0;

/// `Dd::exp` in every lane, and the lanes whose argument is malformed (the caller recomputes
/// them with the scalar method).
#[inline(always)]
pub(crate) fn exp_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, L::M) {
    if L::WIDTH == 1 {
        // One lane: the scalar method itself is faster than its integer emulation here.
        return (x, l.not(l.none()));
    }
    let [hi, lo] = x;
    let zero = l.splat(0.0);
    let nan = l.ne(hi, hi);
    let over = l.gt(hi, l.splat(EXP_OVERFLOW + 1e-3));
    let under = l.lt(hi, l.splat(EXP_UNDERFLOW));
    let special = l.or(nan, l.or(over, under));
    let malformed = l.not(l.le(l.abs(lo), l.splat(LO_LIMIT)));
    let fixed = l.not(l.or(special, malformed));
    // The other lanes compute exp(0) on the side, in range.
    let (hi_in, lo_in) = (l.select(fixed, hi, zero), l.select(fixed, lo, zero));

    let (k, v) = exp_fraction(l, hi_in, lo_in);
    // `exp_dd_sum`: 1 + v cut into pieces of 52, 53 and 23 bits, each exact as a double.
    let bits52 = l.u_splat((1 << 52) - 1);
    let b1 = l.u_and(l.shr(v[1], 12), bits52);
    let b2 = l.u_and(
        l.u_or(l.shr(v[0], 23), l.shl(v[1], 41)),
        l.u_splat((1 << 53) - 1),
    );
    let b3 = l.u_and(v[0], l.u_splat((1 << 23) - 1));
    let c0 = l.add(
        l.splat(1.0),
        l.mul(to_f64_52(l, b1), l.splat(crate::ldexp(1.0, -52))),
    );
    let c1 = l.add(
        l.mul(to_f64_53(l, b2), l.splat(crate::ldexp(1.0, -105))),
        l.mul(to_f64_52(l, b3), l.splat(crate::ldexp(1.0, -128))),
    );
    let (h, t) = quick_two_sum(l, c0, c1);
    let (h, t) = (ldexp(l, h, k), ldexp(l, t, k));
    // `clean`: an overflow is (+inf, 0).
    let t = l.select(l.is_finite(h), t, zero);

    let h = l.select(
        nan,
        l.splat(f64::NAN),
        l.select(over, l.splat(f64::INFINITY), l.select(under, zero, h)),
    );
    let t = l.select(special, zero, t);
    ([h, t], l.and(malformed, l.not(special)))
}

/// `exp_fixed::exp_fraction::<2>` for the value `hi + lo`: `(k, v)` with
/// exp(hi + lo) = 2^k (1 + v), `k` as an integral double.
#[inline(always)]
fn exp_fraction<L: Ints>(l: L, hi: L::V, lo: L::V) -> (L::V, Limbs<L, 2>) {
    let (k, mut r) = reduce(l, hi, lo);
    let lead = r[1];
    let j = l.shr(lead, 56);
    let i = l.u_and(l.shr(lead, 48), l.u_splat(0xff));
    r[1] = l.u_and(lead, l.u_splat(0x0000_ffff_ffff_ffff));
    let p = expm1_2(l, r);
    let a = [l.gather(&EXP_J_DD, j, 0), l.gather(&EXP_J_DD, j, 1)];
    let b = [l.gather(&EXP_I_DD, i, 0), l.gather(&EXP_I_DD, i, 1)];
    let ab = add_below_one(l, add_below_one(l, a, b), mul::<L, 2, 0>(l, a, b));
    let (v, c1) = add(l, ab, p);
    let (v, c2) = add(l, v, mul::<L, 2, 0>(l, ab, p));
    let max = l.u_splat(u64::MAX);
    let carried = l.or(c1, c2);
    (
        k,
        [
            l.u_select(carried, max, v[0]),
            l.u_select(carried, max, v[1]),
        ],
    )
}

/// `exp_fixed::expm1_2`: the series of expm1(r) for `0 <= r < 2^-16` by Horner's rule.
#[inline(always)]
fn expm1_2<L: Ints>(l: L, r: Limbs<L, 2>) -> Limbs<L, 2> {
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

/// The series' n-th coefficient 2^-16n/n! in two limbs. (Not a closure, here or elsewhere in
/// the lanes: a closure is a function of its own, built without the caller's target features,
/// so the intrinsics in it would not be inlined.)
#[inline(always)]
fn coeff<L: Ints>(l: L, n: usize) -> Limbs<L, 2> {
    [l.u_splat(EXP_COEFFS[n][2]), l.u_splat(EXP_COEFFS[n][3])]
}

/// `exp_fixed::reduce::<2>` for the components `hi, lo` of a finite value below 2^40:
/// `(k, R)` with `hi + lo = k ln2 + R`, `0 <= R < ln2` in two fraction limbs.
#[inline(always)]
fn reduce<L: Ints>(l: L, hi: L::V, lo: L::V) -> (L::V, Limbs<L, 2>) {
    let z = l.u_splat(0);
    let w = add_scaled(l, [z; 3], hi);
    let mut w = add_scaled(l, w, lo);
    let mut k = l.floor(l.mul(hi, l.splat(LOG2_E)));
    // w -= k ln2, as the scalar function's carry chain computes it: |k| ln2 exactly.
    let ka = to_i64(l, l.abs(k));
    let (p0, c0) = mul_wide(l, l.u_splat(LN2_DD[0]), ka);
    let (p1lo, p1hi) = mul_wide(l, l.u_splat(LN2_DD[1]), ka);
    let p1 = l.u_add(p1lo, c0);
    let p2 = l.add_if(p1hi, l.u_lt(p1, c0));
    let p = [p0, p1, p2];
    let positive = l.gt(k, l.splat(0.0));
    w = select3(l, positive, sub(l, w, p), add(l, w, p).0);
    // The guess of k is off by at most one either way near a multiple of ln2.
    let ln2 = [l.u_splat(LN2_DD[0]), l.u_splat(LN2_DD[1]), z];
    loop {
        let m = l.i_negative(w[2]);
        if l.bits(m) == 0 {
            break;
        }
        w = select3(l, m, add(l, w, ln2).0, w);
        k = l.select(m, l.sub(k, l.splat(1.0)), k);
    }
    loop {
        // `fraction_at_least_ln2`, from the low limb up.
        let ge0 = l.not(l.u_lt(w[0], ln2[0]));
        let ge = l.or(l.u_lt(ln2[1], w[1]), l.and(l.u_eq(w[1], ln2[1]), ge0));
        let m = l.or(l.not(l.u_eq(w[2], z)), ge);
        if l.bits(m) == 0 {
            break;
        }
        w = select3(l, m, sub(l, w, ln2), w);
        k = l.select(m, l.add(k, l.splat(1.0)), k);
    }
    (k, [w[0], w[1]])
}

/// `m ? a : b` for three limbs.
#[inline(always)]
fn select3<L: Ints>(l: L, m: L::M, a: Wide<L>, b: Wide<L>) -> Wide<L> {
    [
        l.u_select(m, a[0], b[0]),
        l.u_select(m, a[1], b[1]),
        l.u_select(m, a[2], b[2]),
    ]
}

/// `fixed::add_scaled::<2>(w, c, 0)`: adds the finite double `c` to `w`, truncated to the unit
/// 2^-128, wrapping in the integer limb; bits beyond the integer limb are dropped, as the
/// scalar function's carry loop stops there.
#[inline(always)]
fn add_scaled<L: Ints>(l: L, w: Wide<L>, c: L::V) -> Wide<L> {
    let bits = l.to_bits(c);
    let zero = l.u_splat(0);
    let e = l.u_and(l.shr(bits, 52), l.u_splat(0x7ff));
    let frac = l.u_and(bits, l.u_splat((1 << 52) - 1));
    let subnormal = l.u_eq(e, zero);
    let m = l.u_select(subnormal, frac, l.u_or(frac, l.u_splat(1 << 52)));
    let e = l.u_select(subnormal, l.u_splat(1), e);
    // c = ±m 2^(e - 1075) sits at bit s = e - 1075 + 128 = e - 947 of w: nothing of it is
    // left for s <= -53 (e < 895); for s < 0 its low bits fall below the unit.
    let skip = l.or(l.u_eq(m, zero), l.u_lt(e, l.u_splat(895)));
    let below = l.u_lt(e, l.u_splat(947));
    let m = l.u_select(below, l.shr_var(m, l.u_sub(l.u_splat(947), e)), m);
    let m = l.u_select(skip, zero, m);
    let s = l.u_select(below, zero, l.u_sub(e, l.u_splat(947)));
    // m 2^s as the 128-bit `v << (s % 64)` at limb s / 64 (limbs past the integer one: none).
    let (sh, at) = (l.u_and(s, l.u_splat(63)), l.shr(s, 6));
    let v_lo = l.shl_var(m, sh);
    let v_hi = l.shr_var(m, l.u_sub(l.u_splat(64), sh));
    let (at0, at1, at2) = (
        l.u_eq(at, zero),
        l.u_eq(at, l.u_splat(1)),
        l.u_eq(at, l.u_splat(2)),
    );
    let addend = [
        l.u_select(at0, v_lo, zero),
        l.u_select(at0, v_hi, l.u_select(at1, v_lo, zero)),
        l.u_select(at1, v_hi, l.u_select(at2, v_lo, zero)),
    ];
    let negative = l.i_negative(bits);
    select3(l, negative, sub(l, w, addend), add(l, w, addend).0)
}
