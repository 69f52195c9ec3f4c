//! `Dd::sin`, `Dd::cos`, `Qd::sin` and `Qd::cos` lane by lane: `crate::trig_fixed::sin_cos_dd`
//! and `sin_cos_qd` step for step in integer lanes (|x| converted exactly to fixed point,
//! reduced by π/2, the two tables as gathers, the Taylor series of sin r and 1 - cos r by
//! Horner's rule, the addition formulas, the results cut into 53-bit pieces from their leading
//! bits and placed by the quadrant), so that every lane holds the scalar function's bits. The two
//! correction loops of the reduction run until no lane needs another step, each lane stepping
//! only while its own condition holds.
//!
//! The lanes that `crate::trig::sin_cos` sends elsewhere go to the scalar method: zeros, NaN,
//! infinities, |x| outside [2^-24, 2^50) (its Cody–Waite path), results too small for the fixed
//! point's absolute accuracy (x near a multiple of π/2: the same path), and malformed arguments
//! (lower components that are no rounding errors of the leading one).

use super::dd::DdV;
use super::eft::quick_two_sum;
use super::exp::add_scaled;
use super::fixed::{add, mul, mul_wide, normalise, piece, select_limbs, shl16, sub, to_i64, Limbs};
use super::ints::Ints;
use super::qd::{renormalise, QdV};
use crate::trig::FIXED_LOWER;
use crate::trig_fixed::{
    COS_M1_I65536, COS_M1_J256, COS_SERIES, FIXED_LIMIT, PI_2_FIX, SIN_I65536, SIN_J256, SIN_SERIES,
};

/// `trig_fixed`'s tables where the lanes gather them.
static SIN_J: [[u64; 4]; 403] = SIN_J256;
static COS_M1_J: [[u64; 4]; 403] = COS_M1_J256;
static SIN_I: [[u64; 4]; 256] = SIN_I65536;
static COS_M1_I: [[u64; 4]; 256] = COS_M1_I65536;

/// Lower components beyond this fraction of the leading one go to the scalar method (in a
/// normalised expansion they are below 2^-53 of it).
const LOW_LIMIT: f64 = 1.0 / 4503599627370496.0; // 2^-52

/// The weight of the top bit of a fraction's limbs (2^-1), for [`piece`].
const TOP: f64 = -1.0;

/// `(sin x, cos x)` of `Dd` in every lane, and the lanes for the scalar method.
#[inline(always)]
pub(crate) fn sin_cos_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, DdV<L>, L::M) {
    if L::WIDTH == 1 {
        // One lane: the scalar method itself is faster than its integer emulation here.
        return (x, x, l.not(l.none()));
    }
    let (fixed, harmless) = cases(l, x[0], &x[1..]);
    let c = [
        l.select(fixed, x[0], harmless),
        l.select(fixed, x[1], l.splat(0.0)),
    ];
    let (q, w) = reduce::<L, 2, 3>(l, &c);
    let (j, i, r) = split::<L, 2, 3>(l, &w);
    let (s, cm) = series_2(l, r);
    let (s, cm) = combine(l, (j, i), s, cm);
    let (s, co, small) = finish(l, s, cm, 52);
    let s = to_dd(l, s);
    let co = to_dd(l, co);
    let (sin, cos) = assemble(l, q, s, co, l.lt(x[0], l.splat(0.0)));
    (sin, cos, l.or(l.not(fixed), small))
}

/// `(sin x, cos x)` of `Qd` in every lane, and the lanes for the scalar method.
#[inline(always)]
pub(crate) fn sin_cos_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, QdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, x, l.not(l.none()));
    }
    let (fixed, harmless) = cases(l, x[0], &x[1..]);
    let zero = l.splat(0.0);
    let c = [
        l.select(fixed, x[0], harmless),
        l.select(fixed, x[1], zero),
        l.select(fixed, x[2], zero),
        l.select(fixed, x[3], zero),
    ];
    let (q, w) = reduce::<L, 4, 5>(l, &c);
    let (j, i, r) = split::<L, 4, 5>(l, &w);
    let (s, cm) = series_4(l, r);
    let (s, cm) = combine(l, (j, i), s, cm);
    let (s, co, small) = finish(l, s, cm, 40);
    let s = to_qd(l, s);
    let co = to_qd(l, co);
    let (sin, cos) = assemble(l, q, s, co, l.lt(x[0], l.splat(0.0)));
    (sin, cos, l.or(l.not(fixed), small))
}

/// The lanes for the fixed point (`trig::sin_cos`'s range test and well-formed lower
/// components), and an argument in range for the others to compute on the side.
#[inline(always)]
fn cases<L: Ints>(l: L, hi: L::V, low: &[L::V]) -> (L::M, L::V) {
    let a = l.abs(hi);
    // NaN fails both comparisons.
    let mut fixed = l.and(l.ge(a, l.splat(FIXED_LOWER)), l.lt(a, l.splat(FIXED_LIMIT)));
    let limit = l.mul(a, l.splat(LOW_LIMIT));
    for &c in low {
        fixed = l.and(fixed, l.le(l.abs(c), limit));
    }
    (fixed, l.splat(0.75))
}

/// `trig_fixed::reduce::<N>` (`W = N + 1`): `|x| = q π/2 + θ` with `0 <= θ < π/2`, `q` an
/// integral double and θ with its integer limb, for the components `c` of a finite x with
/// `|x| < 2^50`.
#[inline(always)]
fn reduce<L: Ints, const N: usize, const W: usize>(l: L, c: &[L::V]) -> (L::V, Limbs<L, W>) {
    let z = l.u_splat(0);
    let negative = l.lt(c[0], l.splat(0.0));
    let mut w = [z; W];
    for &ci in c {
        w = add_scaled::<L, N, W>(l, w, l.select(negative, l.neg(ci), ci));
    }
    let mut q = l.floor(l.mul(l.abs(c[0]), l.splat(std::f64::consts::FRAC_2_PI)));
    // w -= q π/2: the N + 1 fraction limbs of π/2 from the one below the unit (its product
    // only carries into the unit), then the integer part q.
    let qa = to_i64(l, q);
    let mut p = [z; W];
    let mut carry = z;
    for t in 0..=N {
        let (lo, hi) = mul_wide(l, l.u_splat(PI_2_FIX[4 - N + t]), qa);
        let s = l.u_add(lo, carry);
        carry = l.add_if(hi, l.u_lt(s, carry));
        if t > 0 {
            p[t - 1] = s;
        }
    }
    p[N] = l.u_add(qa, carry);
    w = sub(l, w, p);
    // π/2 as its integer 1 and N fraction limbs.
    let mut pi_2 = [z; W];
    for (m, pm) in pi_2.iter_mut().take(N).enumerate() {
        *pm = l.u_splat(PI_2_FIX[5 - N + m]);
    }
    pi_2[N] = l.u_splat(1);
    // The guess of q is off by at most one either way near a multiple of π/2.
    loop {
        let m = l.i_negative(w[N]);
        if l.bits(m) == 0 {
            break;
        }
        w = select_limbs(l, m, add(l, w, pi_2).0, w);
        q = l.select(m, l.sub(q, l.splat(1.0)), q);
    }
    loop {
        // `at_least_pi_2`, from the low limb up.
        let mut ge = l.not(l.u_lt(w[0], pi_2[0]));
        for m in 1..W {
            ge = l.or(l.u_lt(pi_2[m], w[m]), l.and(l.u_eq(w[m], pi_2[m]), ge));
        }
        if l.bits(ge) == 0 {
            break;
        }
        w = select_limbs(l, ge, sub(l, w, pi_2), w);
        q = l.select(ge, l.add(q, l.splat(1.0)), q);
    }
    (q, w)
}

/// The first lines of `trig_fixed::sin_cos_theta`: the table indices `j` (θ's integer bit and
/// top 8 fraction bits) and `i` (the next 8), and the rest `r < 2^-16` for the series.
#[inline(always)]
fn split<L: Ints, const N: usize, const W: usize>(
    l: L,
    w: &Limbs<L, W>,
) -> (L::U, L::U, Limbs<L, N>) {
    let lead = w[N - 1];
    let j = l.u_or(l.shl(w[N], 8), l.shr(lead, 56));
    let i = l.u_and(l.shr(lead, 48), l.u_splat(0xff));
    let mut r = [l.u_splat(0); N];
    r.copy_from_slice(&w[..N]);
    r[N - 1] = l.u_and(lead, l.u_splat(0x0000_ffff_ffff_ffff));
    (j, i, r)
}

/// The rest of `sin_cos_theta`: `(sin θ, 1 - cos θ)` from the series' `(sin r, 1 - cos r)` and
/// the tables at `i/2^16` and `j/2^8`, by the addition formulas (sums exact modulo 1).
#[inline(always)]
fn combine<L: Ints, const N: usize>(
    l: L,
    (j, i): (L::U, L::U),
    s: Limbs<L, N>,
    c: Limbs<L, N>,
) -> (Limbs<L, N>, Limbs<L, N>) {
    let (mut sa, mut ca, mut sb, mut cb) = (s, s, s, s);
    for m in 0..N {
        sa[m] = l.gather(&SIN_I, i, 4 - N + m);
        ca[m] = l.gather(&COS_M1_I, i, 4 - N + m);
        sb[m] = l.gather(&SIN_J, j, 4 - N + m);
        cb[m] = l.gather(&COS_M1_J, j, 4 - N + m);
    }
    // a = i/2^16: sin(a + r) = sa (1 - c) + (1 - ca) s, 1 - cos(a + r) = ca + c - ca c + sa s.
    let s2 = add(
        l,
        sub(l, sa, mul::<L, N, 0>(l, sa, c)),
        sub(l, s, mul::<L, N, 0>(l, ca, s)),
    )
    .0;
    let c2 = add(
        l,
        sub(l, add(l, ca, c).0, mul::<L, N, 0>(l, ca, c)),
        mul::<L, N, 0>(l, sa, s),
    )
    .0;
    // b = j/2^8, the same formulas.
    let s1 = add(
        l,
        sub(l, sb, mul::<L, N, 0>(l, sb, c2)),
        sub(l, s2, mul::<L, N, 0>(l, cb, s2)),
    )
    .0;
    let c1 = add(
        l,
        sub(l, add(l, cb, c2).0, mul::<L, N, 0>(l, cb, c2)),
        mul::<L, N, 0>(l, sb, s2),
    )
    .0;
    (s1, c1)
}

/// The end of `trig_fixed::sin_cos_fixed`: sin θ, cos θ = 1 - cm (modulo 1), and the lanes where
/// either is below `2^-(64 - shift)` (`None` in the scalar function).
#[inline(always)]
fn finish<L: Ints, const N: usize>(
    l: L,
    s: Limbs<L, N>,
    cm: Limbs<L, N>,
    shift: u32,
) -> (Limbs<L, N>, Limbs<L, N>, L::M) {
    let z = l.u_splat(0);
    let co = sub(l, [z; N], cm);
    let small = l.or(
        l.u_eq(l.shr(s[N - 1], shift), z),
        l.u_eq(l.shr(co[N - 1], shift), z),
    );
    (s, co, small)
}

/// `fixed::fraction_to_dd`: three pieces from the leading bit.
#[inline(always)]
fn to_dd<L: Ints>(l: L, v: Limbs<L, 2>) -> DdV<L> {
    let (s, k) = normalise(l, v);
    let c0 = piece(l, &s, 0, k, TOP);
    let c1 = piece(l, &s, 1, k, TOP);
    let c2 = piece(l, &s, 2, k, TOP);
    let (hi, lo) = quick_two_sum(l, c0, l.add(c1, c2));
    [hi, lo]
}

/// `fixed::fraction_to_qd`: five pieces from the leading bit, renormalised.
#[inline(always)]
fn to_qd<L: Ints>(l: L, v: Limbs<L, 4>) -> QdV<L> {
    let (s, k) = normalise(l, v);
    renormalise(
        l,
        [
            piece(l, &s, 0, k, TOP),
            piece(l, &s, 1, k, TOP),
            piece(l, &s, 2, k, TOP),
            piece(l, &s, 3, k, TOP),
            piece(l, &s, 4, k, TOP),
        ],
    )
}

/// `trig_fixed::assemble`: `(sin x, cos x)` from the quadrant `q`, sin θ, cos θ and the sign of
/// x, every component negated with its value.
#[inline(always)]
fn assemble<L: Ints, const C: usize>(
    l: L,
    q: L::V,
    s: [L::V; C],
    c: [L::V; C],
    negative: L::M,
) -> ([L::V; C], [L::V; C]) {
    let q = l.u_and(to_i64(l, q), l.u_splat(3));
    // Quadrants 1 and 3 swap sin and cos; sin is negated in 2 and 3 (and for negative x), cos
    // in 1 and 2.
    let swap = l.u_eq(l.u_and(q, l.u_splat(1)), l.u_splat(1));
    let sin_neg = l.u_lt(l.u_splat(1), q);
    let sin_neg = l.and(l.or(sin_neg, negative), l.not(l.and(sin_neg, negative)));
    let cos_neg = l.or(l.u_eq(q, l.u_splat(1)), l.u_eq(q, l.u_splat(2)));
    let mut sin = s;
    let mut cos = c;
    for m in 0..C {
        let a = l.select(swap, c[m], s[m]);
        let b = l.select(swap, s[m], c[m]);
        sin[m] = l.select(sin_neg, l.neg(a), a);
        cos[m] = l.select(cos_neg, l.neg(b), b);
    }
    (sin, cos)
}

/// The series' k-th coefficient in the top `N` limbs.
#[inline(always)]
fn coeff<L: Ints, const N: usize>(l: L, table: &[[u64; 4]; 7], k: usize) -> Limbs<L, N> {
    let mut c = [l.u_splat(0); N];
    for (m, cm) in c.iter_mut().enumerate() {
        *cm = l.u_splat(table[k][4 - N + m]);
    }
    c
}

/// `series_4`'s Horner sums over `u` for one coefficient table.
#[inline(always)]
fn horner_4<L: Ints>(l: L, u: Limbs<L, 4>, t: &[[u64; 4]; 7]) -> Limbs<L, 4> {
    let mut p = coeff(l, t, 6);
    p = sub(l, coeff(l, t, 5), mul::<L, 4, 3>(l, u, p));
    p = sub(l, coeff(l, t, 4), mul::<L, 4, 2>(l, u, p));
    p = sub(l, coeff(l, t, 3), mul::<L, 4, 2>(l, u, p));
    p = sub(l, coeff(l, t, 2), mul::<L, 4, 1>(l, u, p));
    p = sub(l, coeff(l, t, 1), mul::<L, 4, 1>(l, u, p));
    mul::<L, 4, 0>(l, u, p)
}

/// `trig_fixed::series_4`: `(sin r, 1 - cos r)` for `0 <= r < 2^-16` in four limbs.
#[inline(always)]
fn series_4<L: Ints>(l: L, r: Limbs<L, 4>) -> (Limbs<L, 4>, Limbs<L, 4>) {
    let s = shl16(l, r);
    let u = mul::<L, 4, 0>(l, s, s);
    let p = horner_4(l, u, &SIN_SERIES);
    let c = horner_4(l, u, &COS_SERIES);
    (sub(l, r, mul::<L, 4, 0>(l, r, p)), c)
}

/// `series_2`'s Horner sums.
#[inline(always)]
fn horner_2<L: Ints>(l: L, u: Limbs<L, 2>, t: &[[u64; 4]; 7]) -> Limbs<L, 2> {
    let mut p = coeff(l, t, 3);
    p = sub(l, coeff(l, t, 2), mul::<L, 2, 1>(l, u, p));
    p = sub(l, coeff(l, t, 1), mul::<L, 2, 1>(l, u, p));
    mul::<L, 2, 0>(l, u, p)
}

/// `trig_fixed::series_2`: the same series to k = 3 in two limbs.
#[inline(always)]
fn series_2<L: Ints>(l: L, r: Limbs<L, 2>) -> (Limbs<L, 2>, Limbs<L, 2>) {
    let s = shl16(l, r);
    let u = mul::<L, 2, 0>(l, s, s);
    let p = horner_2(l, u, &SIN_SERIES);
    let c = horner_2(l, u, &COS_SERIES);
    (sub(l, r, mul::<L, 2, 0>(l, r, p)), c)
}
