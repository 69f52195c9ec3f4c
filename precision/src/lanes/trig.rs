//! `Dd::sin`, `Dd::cos`, `Qd::sin` and `Qd::cos` lane by lane: `crate::trig_fixed::angle_dd`
//! and `angle_qd` step for step in integer lanes (|x| converted exactly to fixed point,
//! reduced by π/2, the Taylor series of κ sin r and κ cos r over shared powers with small
//! integer numerators, the first table level as gathers and a three-product addition
//! formula), then `Angle::sin` and `Angle::cos` (the last table level for the one of sin θ,
//! cos θ that the quadrant picks, cut into 53-bit pieces from its leading bit), so that every
//! lane holds the scalar function's bits. A caller of one result leaves the other unused, and
//! the compiler drops its work. The two correction loops of the reduction run until no lane
//! needs another step, each lane stepping only while its own condition holds.
//!
//! Below 2^-24, where `crate::trig::sin_cos` takes its Cody–Waite path and the reduction leaves
//! x whole, only that path's series remain (`t = x`, `u = t²`, `t S(u)` and `C(u)` by
//! `TrigExpansion::series`): the lanes compute them too, operation for operation in the lanes'
//! double-double and quad-double arithmetic, down to the subnormals. Tanh-sinh puts many nodes
//! there, next to an end at 0. Each path runs only where some lane of the vector takes it.
//!
//! The lanes that `crate::trig::sin_cos` sends elsewhere go to the scalar method: zeros, NaN,
//! infinities, |x| from 2^50 on (Payne–Hanek: rare arguments, the scalar path's own bits),
//! results too small for the fixed point's absolute accuracy (x near a multiple of π/2: the
//! Cody–Waite path), malformed arguments (lower components that are no rounding errors of the
//! leading one), and tiny arguments whose quad-double sums cancel (none do).

use super::dd::{self, DdV};
use super::eft::quick_two_sum;
use super::exp::add_scaled;
use super::fixed::{
    add, mul, mul_small, mul_wide, normalise, piece, select_limbs, shl16, shr, sub, to_i64, Limbs,
};
use super::ints::Ints;
use super::qd::{self, renormalise, QdV};
use super::simd::Lanes;
use crate::trig::{Split, TrigExpansion, COS_COEFFS, FIXED_LOWER, SIN_COEFFS};
use crate::trig_fixed::{
    COS_J256_OVER_2K, COS_M1_I65536, COS_NUMERATORS, FIXED_LIMIT, KAPPA, PI_2_62, PI_2_FIX,
    SIN_I65536, SIN_J256_OVER_2K, SIN_NUMERATORS,
};
use crate::{Dd, Qd};

/// `trig_fixed`'s tables where the lanes gather them.
static SIN_J: [[u64; 4]; 403] = SIN_J256_OVER_2K;
static COS_J: [[u64; 4]; 403] = COS_J256_OVER_2K;
static SIN_I: [[u64; 4]; 256] = SIN_I65536;
static COS_M1_I: [[u64; 4]; 256] = COS_M1_I65536;

/// Lower components beyond this fraction of the leading one go to the scalar method (in a
/// normalised expansion they are below 2^-53 of it).
const LOW_LIMIT: f64 = 1.0 / 4503599627370496.0; // 2^-52

/// The weight of the top bit of twice a half's limbs (2^0), for [`piece`].
const TOP: f64 = 0.0;

/// `(sin x, cos x)` of `Dd` in every lane, each with the lanes for the scalar method (the same
/// for both: the tiny lanes' series have no sums that the lanes cannot do).
#[inline(always)]
#[allow(clippy::type_complexity)]
pub(crate) fn sin_cos_dd<L: Ints>(l: L, x: DdV<L>) -> ((DdV<L>, L::M), (DdV<L>, L::M)) {
    if L::WIDTH == 1 {
        // One lane: the scalar method itself is faster than its integer emulation here.
        let all = l.not(l.none());
        return ((x, all), (x, all));
    }
    let (fixed, harmless) = cases(l, x[0], &x[1..]);
    let (sin, cos, redo) = if l.bits(fixed) == 0 {
        (x, x, l.not(l.none()))
    } else {
        fixed_dd(l, x, fixed, harmless)
    };
    let tiny = tiny(l, x[0], &x[1..]);
    if l.bits(tiny) == 0 {
        return ((sin, redo), (cos, redo));
    }
    let t = std::array::from_fn(|k| l.select(tiny, x[k], l.splat(TINY_HARMLESS[k])));
    let (s, c) = small_dd(l, t);
    let redo = l.and(l.not(tiny), redo);
    let sin = [l.select(tiny, s[0], sin[0]), l.select(tiny, s[1], sin[1])];
    let cos = [l.select(tiny, c[0], cos[0]), l.select(tiny, c[1], cos[1])];
    ((sin, redo), (cos, redo))
}

/// `sin_cos_dd` in the lanes `fixed` of the fixed point (the others compute on `harmless`),
/// and the lanes for the scalar method: the others, and those too near an axis.
#[inline(always)]
fn fixed_dd<L: Ints>(l: L, x: DdV<L>, fixed: L::M, harmless: L::V) -> (DdV<L>, DdV<L>, L::M) {
    let c = [
        l.select(fixed, x[0], harmless),
        l.select(fixed, x[1], l.splat(0.0)),
    ];
    let (q, w) = reduce::<L, 2, 3>(l, &c);
    let near = near_axis::<L, 2, 3>(l, &w, 12);
    let (j, i, r) = split::<L, 2, 3>(l, &w);
    let (ks, kc) = series_2(l, r);
    let (ks, kc) = level_i(l, i, ks, kc);
    let (swap, sin_neg, cos_neg) = quadrant(l, q, l.lt(x[0], l.splat(0.0)));
    let sin = negate_if(l, to_dd(l, half(l, j, ks, kc, swap)), sin_neg);
    let cos = negate_if(l, to_dd(l, half(l, j, ks, kc, l.not(swap))), cos_neg);
    (sin, cos, l.or(l.not(fixed), near))
}

/// `(sin x, cos x)` of `Qd` in every lane, each with the lanes for the scalar method: the same
/// lanes but for the tiny ones, where each series flags its own cancelling sums (so that a
/// caller of one result leaves the other series unused too).
#[inline(always)]
#[allow(clippy::type_complexity)]
pub(crate) fn sin_cos_qd<L: Ints>(l: L, x: QdV<L>) -> ((QdV<L>, L::M), (QdV<L>, L::M)) {
    if L::WIDTH == 1 {
        let all = l.not(l.none());
        return ((x, all), (x, all));
    }
    let (fixed, harmless) = cases(l, x[0], &x[1..]);
    let (sin, cos, redo) = if l.bits(fixed) == 0 {
        (x, x, l.not(l.none()))
    } else {
        fixed_qd(l, x, fixed, harmless)
    };
    let tiny = tiny(l, x[0], &x[1..]);
    if l.bits(tiny) == 0 {
        return ((sin, redo), (cos, redo));
    }
    let t = std::array::from_fn(|k| l.select(tiny, x[k], l.splat(TINY_HARMLESS[k])));
    let ((s, sin_cancels), (c, cos_cancels)) = small_qd(l, t);
    let others = l.and(l.not(tiny), redo);
    (
        (
            qd::select(l, tiny, s, sin),
            l.or(l.and(tiny, sin_cancels), others),
        ),
        (
            qd::select(l, tiny, c, cos),
            l.or(l.and(tiny, cos_cancels), others),
        ),
    )
}

/// `sin_cos_qd` in the lanes `fixed` of the fixed point, as `fixed_dd`.
#[inline(always)]
fn fixed_qd<L: Ints>(l: L, x: QdV<L>, fixed: L::M, harmless: L::V) -> (QdV<L>, QdV<L>, L::M) {
    let zero = l.splat(0.0);
    let c = [
        l.select(fixed, x[0], harmless),
        l.select(fixed, x[1], zero),
        l.select(fixed, x[2], zero),
        l.select(fixed, x[3], zero),
    ];
    let (q, w) = reduce::<L, 4, 5>(l, &c);
    let near = near_axis::<L, 4, 5>(l, &w, 24);
    let (j, i, r) = split::<L, 4, 5>(l, &w);
    let (ks, kc) = series_4(l, r);
    let (ks, kc) = level_i(l, i, ks, kc);
    let (swap, sin_neg, cos_neg) = quadrant(l, q, l.lt(x[0], l.splat(0.0)));
    let sin = negate_if(l, to_qd(l, half(l, j, ks, kc, swap)), sin_neg);
    let cos = negate_if(l, to_qd(l, half(l, j, ks, kc, l.not(swap))), cos_neg);
    (sin, cos, l.or(l.not(fixed), near))
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

/// The lanes of a tiny argument, nonzero with |x| < 2^-24 and well-formed lower components,
/// that `trig::sin_cos` takes to `sin_cos_finite`, whose reduction leaves them whole (t = x,
/// no table entry, the first quadrant): the series alone, which the lanes compute themselves
/// (`small_dd`, `small_qd`).
#[inline(always)]
fn tiny<L: Lanes>(l: L, hi: L::V, low: &[L::V]) -> L::M {
    let a = l.abs(hi);
    // NaN fails the first comparison.
    let mut tiny = l.and(l.lt(a, l.splat(FIXED_LOWER)), l.ne(a, l.splat(0.0)));
    let limit = l.mul(a, l.splat(LOW_LIMIT));
    for &c in low {
        tiny = l.and(tiny, l.le(l.abs(c), limit));
    }
    tiny
}

/// What the lanes that are not tiny compute the series on: `SIN_COEFFS[1]` (-1/6) times 2^-30,
/// tiny itself (no special values, no cancelling sums) and with four nonzero components, which
/// keep `renormalise` on its straight-line path.
const TINY_HARMLESS: [f64; 4] = [
    -1.5522042910257974e-10,
    -8.616464714094038e-27,
    -4.783098758228709e-43,
    -2.6551531852207536e-59,
];

/// `trig::sin_cos_finite` for a tiny `t` (see [`tiny`]): `(t S(u), C(u))` with `u = t.sqr()`,
/// `Dd::series` of the first `Dd::SIN_COS_TERMS` coefficients split as it splits them.
#[inline(always)]
fn small_dd<L: Lanes>(l: L, t: DdV<L>) -> (DdV<L>, DdV<L>) {
    let u = dd::sqr(l, t);
    let n = <Dd as TrigExpansion>::SIN_COS_TERMS;
    let split = <Dd as TrigExpansion>::SIN_COS_SPLIT;
    let s = series_dd(l, u, &SIN_COEFFS[..n], split);
    let c = series_dd(l, u, &COS_COEFFS[..n], split);
    (dd::mul_dd(l, t, s), c)
}

/// `Dd::series`: the coefficients from `split.full` on by fused multiply-adds in doubles, the
/// first ones in double-double (adding a double where the coefficient is one: 1, -1/2).
#[inline(always)]
fn series_dd<L: Lanes>(l: L, u: DdV<L>, coeffs: &[[f64; 4]], split: Split) -> DdV<L> {
    let mut y = l.splat(coeffs[coeffs.len() - 1][0]);
    for c in coeffs[split.full..coeffs.len() - 1].iter().rev() {
        y = l.mul_add(y, u[0], l.splat(c[0]));
    }
    let mut z = [y, l.splat(0.0)];
    for c in coeffs[..split.full].iter().rev() {
        let p = dd::mul_dd(l, z, u);
        z = if c[1] == 0.0 {
            dd::add_f64(l, p, l.splat(c[0]))
        } else {
            dd::add_dd(l, p, [l.splat(c[0]), l.splat(c[1])])
        };
    }
    z
}

/// `trig::sin_cos_finite` for a tiny `t`, as `small_dd` (`Qd::sqr` is `t * t`), each result
/// with the lanes whose quad-double sums cancel (`Qd::add_merged`'s; none where |t| < 2^-24, as
/// every sum adds a term below 2^-48 of a coefficient to it).
#[inline(always)]
#[allow(clippy::type_complexity)]
fn small_qd<L: Lanes>(l: L, t: QdV<L>) -> ((QdV<L>, L::M), (QdV<L>, L::M)) {
    let u = qd::mul_qd(l, t, t);
    let n = <Qd as TrigExpansion>::SIN_COS_TERMS;
    let split = <Qd as TrigExpansion>::SIN_COS_SPLIT;
    let (s, sin_cancels) = series_qd(l, u, &SIN_COEFFS[..n], split);
    let cos = series_qd(l, u, &COS_COEFFS[..n], split);
    ((qd::mul_qd(l, t, s), sin_cancels), cos)
}

/// `Qd::series`: the last coefficients by fused multiply-adds in doubles, the `split.lower`
/// before them in double-double (of `u.to_dd()`), the first `split.full` in quad-double (adding
/// a double where the coefficient is one: 1, -1/2); and the lanes whose quad-double sums cancel.
#[inline(always)]
fn series_qd<L: Lanes>(l: L, u: QdV<L>, coeffs: &[[f64; 4]], split: Split) -> (QdV<L>, L::M) {
    let zero = l.splat(0.0);
    let dd_end = split.full + split.lower;
    let mut y = l.splat(coeffs[coeffs.len() - 1][0]);
    for c in coeffs[dd_end..coeffs.len() - 1].iter().rev() {
        y = l.mul_add(y, u[0], l.splat(c[0]));
    }
    let ud = qd::to_dd(l, u);
    let mut yd = [y, zero];
    for c in coeffs[split.full..dd_end].iter().rev() {
        yd = dd::add_dd(l, dd::mul_dd(l, yd, ud), [l.splat(c[0]), l.splat(c[1])]);
    }
    let mut z = [yd[0], yd[1], zero, zero];
    let mut cancels = l.none();
    for c in coeffs[..split.full].iter().rev() {
        let p = qd::mul_qd(l, z, u);
        if c[1] == 0.0 {
            z = qd::add_f64(l, p, l.splat(c[0]));
        } else {
            let b = [l.splat(c[0]), l.splat(c[1]), l.splat(c[2]), l.splat(c[3])];
            let (sum, m) = qd::add_qd(l, p, b);
            z = sum;
            cancels = l.or(cancels, m);
        }
    }
    (z, cancels)
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

/// `trig_fixed::near_axis` of the reduced argument: the lanes where θ or π/2 - θ is below
/// about 2^-e (`None` in the scalar function).
#[inline(always)]
fn near_axis<L: Ints, const N: usize, const W: usize>(l: L, w: &Limbs<L, W>, e: u32) -> L::M {
    let theta = l.u_or(l.shl(w[N], 62), l.shr(w[N - 1], 2));
    let d = 1u64 << (62 - e);
    l.or(
        l.u_lt(theta, l.u_splat(d)),
        l.u_lt(l.u_splat(PI_2_62 - d), theta),
    )
}

/// The rest of `trig_fixed::sin_cos_y`: `(κ sin y, κ cos y)` from the series' `(κ sin r,
/// κ cos r)` and the table at `i/2^16`, by the three-product addition formula.
#[inline(always)]
fn level_i<L: Ints, const N: usize>(
    l: L,
    i: L::U,
    ks: Limbs<L, N>,
    kc: Limbs<L, N>,
) -> (Limbs<L, N>, Limbs<L, N>) {
    let (mut sa, mut ca) = (ks, ks);
    for m in 0..N {
        sa[m] = l.gather(&SIN_I, i, 4 - N + m);
        ca[m] = l.gather(&COS_M1_I, i, 4 - N + m);
    }
    // a = i/2^16: κ sin(a + r) = κ sin r + (sa - ca)(κ cos r + κ sin r) + ca κ cos r - sa κ sin r,
    // κ cos(a + r) = κ cos r - ca κ cos r - sa κ sin r.
    let p1 = mul::<L, N, 0>(l, ca, kc);
    let p2 = mul::<L, N, 0>(l, sa, ks);
    let p3 = mul::<L, N, 0>(l, sub(l, sa, ca), add(l, kc, ks).0);
    let ks = sub(l, add(l, add(l, ks, p3).0, p1).0, p2);
    let kc = sub(l, sub(l, kc, p1), p2);
    (ks, kc)
}

/// `trig_fixed::Angle::half`: sin θ/2 where `cosine` is false, cos θ/2 where it holds, from
/// the table at `j/2^8`.
#[inline(always)]
fn half<L: Ints, const N: usize>(
    l: L,
    j: L::U,
    ks: Limbs<L, N>,
    kc: Limbs<L, N>,
    cosine: L::M,
) -> Limbs<L, N> {
    let (mut sb, mut cb) = (ks, ks);
    for m in 0..N {
        sb[m] = l.gather(&SIN_J, j, 4 - N + m);
        cb[m] = l.gather(&COS_J, j, 4 - N + m);
    }
    let a = mul::<L, N, 0>(l, select_limbs(l, cosine, cb, sb), kc);
    let b = mul::<L, N, 0>(l, select_limbs(l, cosine, sb, cb), ks);
    select_limbs(l, cosine, sub(l, a, b), add(l, a, b).0)
}

/// `Angle::sin_part` and `cos_part` by the quadrant `q` (an integral double): the lanes where
/// sin x is read from cos θ (and cos x from sin θ), where sin x is negative, where cos x is.
#[inline(always)]
fn quadrant<L: Ints>(l: L, q: L::V, negative: L::M) -> (L::M, L::M, L::M) {
    let q = l.u_and(to_i64(l, q), l.u_splat(3));
    // Odd quadrants swap sin and cos; sin is negative in 2 and 3 (the other way round for
    // negative x), cos in 1 and 2.
    let swap = l.u_eq(l.u_and(q, l.u_splat(1)), l.u_splat(1));
    let sin_neg = l.u_lt(l.u_splat(1), q);
    let sin_neg = l.and(l.or(sin_neg, negative), l.not(l.and(sin_neg, negative)));
    let cos_neg = l.or(l.u_eq(q, l.u_splat(1)), l.u_eq(q, l.u_splat(2)));
    (swap, sin_neg, cos_neg)
}

/// Every component negated where `m`.
#[inline(always)]
fn negate_if<L: Ints, const C: usize>(l: L, v: [L::V; C], m: L::M) -> [L::V; C] {
    let mut r = v;
    for k in 0..C {
        r[k] = l.select(m, l.neg(v[k]), v[k]);
    }
    r
}

/// `fixed::limbs_to_dd(v, -127)`: three pieces from the leading bit of twice a half.
#[inline(always)]
fn to_dd<L: Ints>(l: L, v: Limbs<L, 2>) -> DdV<L> {
    let (s, k) = normalise(l, v);
    let c0 = piece(l, &s, 0, k, TOP);
    let c1 = piece(l, &s, 1, k, TOP);
    let c2 = piece(l, &s, 2, k, TOP);
    let (hi, lo) = quick_two_sum(l, c0, l.add(c1, c2));
    [hi, lo]
}

/// `fixed::limbs_to_qd(v, -255)`: five pieces from the leading bit of twice a half,
/// renormalised.
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

/// `trig_fixed::KAPPA` in the top `N` limbs.
#[inline(always)]
fn kappa<L: Ints, const N: usize>(l: L) -> Limbs<L, N> {
    let mut c = [l.u_splat(0); N];
    for (m, cm) in c.iter_mut().enumerate() {
        *cm = l.u_splat(KAPPA[4 - N + m]);
    }
    c
}

/// `trig_fixed::series_4`'s sum for one table of numerators: `T 2^192` from the powers of u
/// (four, three, three, two, two and one limbs), times 2^-1. (A function where the scalar code
/// has a closure: a closure is not compiled for the caller's instruction set, and its
/// intrinsics became calls, ten times slower.)
#[inline(always)]
fn sum_4<L: Ints>(
    l: L,
    c: &[u64; 7],
    (u, u2, u3): (Limbs<L, 4>, Limbs<L, 3>, Limbs<L, 3>),
    (u4, u5, u6): (Limbs<L, 2>, Limbs<L, 2>, Limbs<L, 1>),
) -> Limbs<L, 4> {
    let mut t = mul_small::<L, 4, 4>(l, u, c[1], 64);
    t = sub(l, t, mul_small::<L, 3, 4>(l, u2, c[2], 32));
    t = add(l, t, mul_small::<L, 3, 4>(l, u3, c[3], 64)).0;
    t = sub(l, t, mul_small::<L, 2, 4>(l, u4, c[4], 32));
    t = add(l, t, mul_small::<L, 2, 4>(l, u5, c[5], 64)).0;
    t = sub(l, t, mul_small::<L, 1, 4>(l, u6, c[6], 32));
    shr(l, t, 1)
}

/// `trig_fixed::series_4`: `(κ sin r, κ cos r)` for `0 <= r < 2^-16` in four limbs.
#[inline(always)]
fn series_4<L: Ints>(l: L, r: Limbs<L, 4>) -> (Limbs<L, 4>, Limbs<L, 4>) {
    let s = shl16(l, r);
    let u = mul::<L, 4, 0>(l, s, s);
    let u_3 = [u[1], u[2], u[3]];
    let u2 = mul::<L, 3, 0>(l, u_3, u_3);
    let u3 = mul::<L, 3, 0>(l, u2, u_3);
    let u2_2 = [u2[1], u2[2]];
    let u4 = mul::<L, 2, 0>(l, u2_2, u2_2);
    let u5 = mul::<L, 2, 0>(l, u4, [u[2], u[3]]);
    let u6 = mul::<L, 1, 0>(l, [u3[2]], [u3[2]]);
    let powers = ((u, u2, u3), (u4, u5, u6));
    let k = kappa::<L, 4>(l);
    let p = sum_4(l, &SIN_NUMERATORS, powers.0, powers.1);
    let c = sum_4(l, &COS_NUMERATORS, powers.0, powers.1);
    (mul::<L, 4, 0>(l, r, sub(l, k, p)), sub(l, k, c))
}

/// `trig_fixed::series_2`'s sum for one table of numerators: `T 2^64`, times 2^-1.
#[inline(always)]
fn sum_2<L: Ints>(
    l: L,
    c: &[u64; 7],
    (u, u2, u3): (Limbs<L, 2>, Limbs<L, 1>, Limbs<L, 1>),
) -> Limbs<L, 2> {
    let mut t = mul_small::<L, 2, 2>(l, u, c[1], 64);
    t = sub(l, t, mul_small::<L, 1, 2>(l, u2, c[2], 32));
    t = add(l, t, mul_small::<L, 1, 2>(l, u3, c[3], 64)).0;
    shr(l, t, 1)
}

/// `trig_fixed::series_2`: the same sums to k = 3 in two limbs.
#[inline(always)]
fn series_2<L: Ints>(l: L, r: Limbs<L, 2>) -> (Limbs<L, 2>, Limbs<L, 2>) {
    let s = shl16(l, r);
    let u = mul::<L, 2, 0>(l, s, s);
    let u2 = mul::<L, 1, 0>(l, [u[1]], [u[1]]);
    let u3 = mul::<L, 1, 0>(l, u2, [u[1]]);
    let k = kappa::<L, 2>(l);
    let p = sum_2(l, &SIN_NUMERATORS, (u, u2, u3));
    let c = sum_2(l, &COS_NUMERATORS, (u, u2, u3));
    (mul::<L, 2, 0>(l, r, sub(l, k, p)), sub(l, k, c))
}
