//! Exponential and logarithm for [`Dd`] and [`Qd`], each written once over [`Expansion`]:
//! `exp`, `exp_m1`, `ln`, `ln_1p`, `log2`, `log10` and `powf`.
//!
//! exp: in fixed-point integer arithmetic with two tables (`exp_fixed.rs`, after Johansson 2015).
//!
//! exp_m1 (and through it ln near 1, powf, sinh, cosh): Cody–Waite reduction `x = k ln2 + r`
//! (Cody–Waite 1980, "Software manual for the elementary functions", ch. 6), an exact scaling `r / 2^m`, a Taylor series of `expm1`, then
//! `m` steps `s <- s (s + 2)`, which double the argument of `expm1` without losing its relative
//! accuracy (the form used by Hida–Li–Bailey's `dd_real::exp`, rewritten for `expm1`).
//!
//! ln: in fixed-point integer arithmetic with two reciprocal tables (`log_fixed.rs`, after
//! Johansson 2015), except near 1 and for subnormal leading components, where the series or
//! Newton's method below keeps relative accuracy.
//!
//! ln near 1 (and log2, ln_1p, powf): `x = 2^e m`, `ln x = e ln2 + ln(m)`, and
//! `ln(m) = ln_1p(m - 1)` with `m - 1` exact (`ln_1p_reduced`): within 2^-24 (qd) or 2^-12
//! (dd) of 1, where the fixed point gives up, by the Taylor series of ln(1 + d); farther out by
//! one Newton step on `expm1` per doubling of precision from a 53-bit start computed here (no
//! libm), plus the second-order term of the residual (Newton's method on `exp`, as in HLB
//! `log`, but on `expm1` so that the relative accuracy holds near 1).
//!
//! Every operation is IEEE double arithmetic with explicit fma (or, in the fixed-point files,
//! exact integer arithmetic), mirrored by `kernels/`.

use crate::expansion::Expansion;
use crate::{Dd, Qd};

/// 1/n! for n = 0..=29, as four components each the nearest double to the rest.
/// Generated with mpmath 1.3 at 600 bits: `comps(1/factorial(n))`, where `comps` takes
/// `float(r)` and subtracts it, four times.
pub(crate) const INV_FACT: [[f64; 4]; 30] = [
    [1.0, 0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0, 0.0],
    [0.5, 0.0, 0.0, 0.0],
    [
        0.16666666666666666,
        9.25185853854297e-18,
        5.135813185032629e-34,
        2.850949024098342e-50,
    ],
    [
        0.041666666666666664,
        2.3129646346357427e-18,
        1.2839532962581572e-34,
        7.127372560245855e-51,
    ],
    [
        0.008333333333333333,
        1.1564823173178714e-19,
        1.6049416203226965e-36,
        2.2273039250768297e-53,
    ],
    [
        0.001388888888888889,
        -5.300543954373577e-20,
        -1.7386867553495878e-36,
        -1.6333562117230084e-52,
    ],
    [
        0.0001984126984126984,
        1.7209558293420705e-22,
        1.4926912391394127e-40,
        1.2947032674600247e-58,
    ],
    [
        2.48015873015873e-05,
        2.1511947866775882e-23,
        1.865864048924266e-41,
        1.6183790843250309e-59,
    ],
    [
        2.7557319223985893e-06,
        -1.858393274046472e-22,
        8.491754604881993e-39,
        -5.726616407894296e-55,
    ],
    [
        2.755731922398589e-07,
        2.3767714622250297e-23,
        -3.263188903340883e-40,
        1.6143511186040442e-56,
    ],
    [
        2.505210838544172e-08,
        -1.448814070935912e-24,
        2.0426735146714455e-41,
        -8.496326720071632e-58,
    ],
    [
        2.08767569878681e-09,
        -1.20734505911326e-25,
        1.702227928892871e-42,
        1.416095321503967e-58,
    ],
    [
        1.6059043836821613e-10,
        1.2585294588752098e-26,
        -5.31334602762985e-43,
        3.5402147259760553e-59,
    ],
    [
        1.1470745597729725e-11,
        2.0655512752830745e-28,
        6.889079232466646e-45,
        5.729200026551091e-61,
    ],
    [
        7.647163731819816e-13,
        7.03872877733453e-30,
        -7.827539277162583e-48,
        1.9213864944379024e-64,
    ],
    [
        4.779477332387385e-14,
        4.399205485834081e-31,
        -4.892212048226615e-49,
        1.200866559023689e-65,
    ],
    [
        2.8114572543455206e-15,
        1.6508842730861433e-31,
        -2.877771793074479e-50,
        4.2711068925629355e-67,
    ],
    [
        1.5619206968586225e-16,
        1.1910679660273754e-32,
        -4.577506059629983e-49,
        2.874941423408996e-67,
    ],
    [
        8.22063524662433e-18,
        2.2141894119604265e-34,
        -1.508914023774199e-50,
        1.4007295151478155e-67,
    ],
    [
        4.110317623312165e-19,
        1.4412973378659527e-36,
        -5.285627548789812e-53,
        -4.147647256357657e-70,
    ],
    [
        1.9572941063391263e-20,
        -1.3643503830087908e-36,
        1.3392348251125064e-53,
        -6.821089424149331e-70,
    ],
    [
        8.896791392450574e-22,
        -7.911402614872376e-38,
        -3.1877976790570933e-54,
        1.2705781017520566e-70,
    ],
    [
        3.868170170630684e-23,
        -8.843177655482344e-40,
        3.8718157106173247e-56,
        -1.9565257531522557e-72,
    ],
    [
        1.6117375710961184e-24,
        -3.6846573564509766e-41,
        1.613256546090552e-57,
        -8.1521906381344e-74,
    ],
    [
        6.446950284384474e-26,
        -1.9330404233703465e-42,
        -1.5213023807039144e-58,
        6.643772737212958e-75,
    ],
    [
        2.4795962632247976e-27,
        -1.2953730964765229e-43,
        6.403390159849962e-60,
        -8.460245627706746e-77,
    ],
    [
        9.183689863795546e-29,
        1.4303150396787322e-45,
        -8.551226774650505e-62,
        8.381467100234538e-78,
    ],
    [
        3.279889237069838e-30,
        1.5117542744029879e-46,
        8.058517719519716e-63,
        -9.096480530710929e-81,
    ],
    [
        1.1309962886447716e-31,
        1.0498015412959506e-47,
        -4.346150929397795e-64,
        -4.966779800140056e-81,
    ],
];

/// 1/n for n = 0..=9 (entry 0, unused, is 0), four components each the nearest double to the
/// rest: the coefficients of the series of ln(1 + d). Generated exactly with Python's
/// `fractions`: `comps(Fraction(1, n))`, `comps` as for `INV_FACT`.
pub(crate) const INV_N: [[f64; 4]; 10] = [
    [0.0, 0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0, 0.0],
    [0.5, 0.0, 0.0, 0.0],
    [
        0.3333333333333333,
        1.850371707708594e-17,
        1.0271626370065257e-33,
        5.701898048196684e-50,
    ],
    [0.25, 0.0, 0.0, 0.0],
    [
        0.2,
        -1.1102230246251566e-17,
        6.162975822039155e-34,
        -3.4211388289180106e-50,
    ],
    [
        0.16666666666666666,
        9.25185853854297e-18,
        5.135813185032629e-34,
        2.850949024098342e-50,
    ],
    [
        0.14285714285714285,
        7.93016446160826e-18,
        4.4021255871708246e-34,
        2.443670592084293e-50,
    ],
    [0.125, 0.0, 0.0, 0.0],
    [
        0.1111111111111111,
        6.1679056923619804e-18,
        3.423875456688419e-34,
        1.900632682732228e-50,
    ],
];

/// log2(e) = 1/ln 2 (mpmath 1.3, 600 bits, components as for `INV_FACT`).
const LOG2_E: [f64; 4] = [
    std::f64::consts::LOG2_E,
    2.0355273740931033e-17,
    -1.0614659956117258e-33,
    -1.3836716780181402e-50,
];
/// log10(e) = 1/ln 10 (mpmath 1.3, 600 bits).
const LOG10_E: [f64; 4] = [
    std::f64::consts::LOG10_E,
    1.098319650216765e-17,
    3.717181233110959e-34,
    7.734484346504299e-51,
];

/// ln 2 as a sum of pieces of at most 42 significant bits each, so that `k * piece` is exact for
/// every |k| < 2^11 (Cody–Waite). Eight pieces carry ln 2 to 2^-350; the remainder is 4.7e-108
/// times 2^-0 — far below what qd needs. mpmath 1.3 at 600 bits: each piece is the rest of ln 2
/// rounded to 42 bits.
const LN2_PIECES: [f64; 8] = [
    0.6931471805598903,
    5.4979230187085024e-14,
    -1.3124698417785365e-27,
    1.0908259040173559e-41,
    -4.005767062159173e-55,
    -1.6855461551390204e-68,
    -9.934134069207155e-82,
    7.131799359913831e-95,
];

/// A table entry cut to the type's number of components.
#[inline(always)]
pub(crate) fn konst<T: Expansion>(c: &[f64; 4]) -> T {
    T::from_components(&c[..T::COMPONENTS])
}

/// The leading two components as a double-double (exact for `Dd`, rounded for `Qd`).
#[inline(always)]
pub(crate) fn to_dd<T: Expansion>(x: T) -> Dd {
    Dd::new(x.hi(), x.component(1))
}

/// A double-double widened (exactly) to `T`.
#[inline(always)]
pub(crate) fn from_dd<T: Expansion>(x: Dd) -> T {
    T::from_components(&[x.hi, x.lo, 0.0, 0.0][..T::COMPONENTS])
}

/// The parameters of `exp` per type: the scaling `2^-m`, the last Taylor term `1/n_max!`, and the
/// first term `1/n_f64!` small enough to be summed in plain doubles.
///
/// With `|r| <= ln2/2 * 2^-m`, term n is below `2^-(bits+6)` times `r` from `n_max + 1` on, and
/// below `2^-57` times `r` (so its double rounding is lost under the target) from `n_f64` on.
#[inline(always)]
fn exp_params<T: Expansion>() -> (i32, usize, usize) {
    if T::COMPONENTS == 2 {
        // |r| <= 2^-7.5: r^11/12! = 2^-111 r, r^6/7! = 2^-57.3 r.
        (6, 12, 7)
    } else {
        // |r| <= 2^-11.5: r^15/16! = 2^-216.8 r, r^12/13! = 2^-170.5 r.
        (10, 16, 13)
    }
}

/// ln(f64::MAX): above it exp overflows.
pub(crate) const EXP_OVERFLOW: f64 = 709.782712893384;
/// Below it exp rounds to zero (half the smallest subnormal).
pub(crate) const EXP_UNDERFLOW: f64 = -745.1332191019412;

/// exp(x) = 2^k (1 + s) for finite x with `|x| <= 746`; `s` is expm1 of the reduced argument,
/// relatively accurate to the type's precision, `|s| < 0.42`.
pub(crate) fn exp_parts<T: Expansion>(x: T) -> (i32, T) {
    let k = (x.hi() * LOG2_E[0]).round();
    let mut r = x;
    if k != 0.0 {
        // k ln2 to 2^-(bits + 20) absolute: each k * piece is exact; the sum shrinks to |r|.
        let pieces = if T::COMPONENTS == 2 { 4 } else { 7 };
        for &p in &LN2_PIECES[..pieces] {
            r = r - k * p;
        }
    }
    let (m, n_max, n_f64) = exp_params::<T>();
    // A tiny r needs no scaling, and scaling it could push it into the subnormals.
    let m = if r.hi().abs() < 1.0e-9 { 0 } else { m };
    let n_dd = if T::COMPONENTS == 2 { n_f64 } else { 9 };
    let mut s = expm1_series(r.ldexp(-m), n_max, n_dd, n_f64);
    for _ in 0..m {
        // expm1(2a) = expm1(a) (expm1(a) + 2).
        s = s * (s + 2.0);
    }
    (k as i32, s)
}

/// The Taylor series of expm1(r) to the term `r^n_max / n_max!`: `(p r + 1) r` with `p` the
/// sum of the terms from `1/2!` on (`horner_from_2`; for `exp_parts`' `|r| <= 2^-11.5` in qd,
/// term 9 is below 2^-110 r, so dd's 2^-104 leaves it below 2^-214 r).
#[inline(always)]
fn expm1_series<T: Expansion>(r: T, n_max: usize, n_dd: usize, n_f64: usize) -> T {
    let p = horner_from_2(r, &INV_FACT, n_max, n_dd, n_f64);
    (p * r + 1.0) * r
}

/// `c[2] + c[3] r + ... + c[n_max] r^(n_max - 2)` by Horner's rule, each term in the least
/// precision it needs: from `c[n_f64]` on in doubles (of the leading component of `r`), from
/// `c[n_dd]` in double-double (of its leading two), the leading terms in `T`.
#[inline(always)]
fn horner_from_2<T: Expansion>(r: T, c: &[[f64; 4]], n_max: usize, n_dd: usize, n_f64: usize) -> T {
    let rh = r.hi();
    let mut q = 0.0f64;
    for cn in c[n_f64..=n_max].iter().rev() {
        q = q.mul_add(rh, cn[0]);
    }
    let mut p = if n_dd < n_f64 {
        let rd = to_dd(r);
        let mut pd = Dd::from_f64(q);
        for cn in c[n_dd..n_f64].iter().rev() {
            pd = pd * rd + Dd::new(cn[0], cn[1]);
        }
        from_dd::<T>(pd)
    } else {
        T::from_f64(q)
    };
    for cn in c[2..n_dd].iter().rev() {
        p = p * r + konst::<T>(cn);
    }
    p
}

/// `x` with any infinite or NaN leading component cleaned into a proper infinity or NaN.
#[inline(always)]
pub(crate) fn clean<T: Expansion>(x: T) -> T {
    let h = x.hi();
    if h.is_finite() {
        x
    } else if h.is_nan() {
        T::NAN
    } else if h > 0.0 {
        T::INFINITY
    } else {
        -T::INFINITY
    }
}

/// `2^k (1 + s)`, correct through overflow (+inf) and underflow (gradual, then 0).
#[inline(always)]
pub(crate) fn scale_one_plus<T: Expansion>(k: i32, s: T) -> T {
    clean((s + 1.0).ldexp(k))
}

/// e^x.
pub(crate) fn exp<T: Expansion>(x: T) -> T {
    let x = crate::expansion::tidy_absolute(x);
    let h = x.hi();
    if h.is_nan() {
        return T::NAN;
    }
    if h > EXP_OVERFLOW + 1e-3 {
        return T::INFINITY;
    }
    if h < EXP_UNDERFLOW {
        return T::ZERO;
    }
    exp_fixed(x)
}

/// exp(x) for finite x with `|x| <= 746` in fixed-point arithmetic (`exp_fixed.rs`).
#[inline(always)]
pub(crate) fn exp_fixed<T: Expansion>(x: T) -> T {
    if T::COMPONENTS == 2 {
        let d = crate::exp_fixed::exp_dd(to_dd(x));
        clean(T::from_components(&[d.hi, d.lo]))
    } else {
        let c = [x.hi(), x.component(1), x.component(2), x.component(3)];
        let q = crate::exp_fixed::exp_qd(Qd(c));
        clean(T::from_components(&q.0))
    }
}

/// e^x - 1, relatively accurate near 0.
pub(crate) fn exp_m1<T: Expansion>(x: T) -> T {
    let x = crate::expansion::tidy_absolute(x);
    let h = x.hi();
    if h.is_nan() {
        return T::NAN;
    }
    if h > EXP_OVERFLOW + 1e-3 {
        return T::INFINITY;
    }
    if h < -200.0 {
        // e^x < 2^-288 is below half an ulp of 1 in both types.
        return -T::ONE;
    }
    if (h * LOG2_E[0]).round() != 0.0 {
        // |x| > ln2/2 (about), so the subtraction loses at most a bit or two.
        return clean(exp_fixed(x) - 1.0);
    }
    let (small, n_max, n_dd, n_f64) = expm1_small_params::<T>();
    if h.abs() >= small {
        exp_m1_fixed(x)
    } else {
        expm1_series(x, n_max, n_dd, n_f64)
    }
}

/// Where `exp_m1` leaves the fixed-point path for the plain series, and the series' parameters
/// there (as in `exp_params`): below 2^-24 (qd) the term `x^n/n!` is below 2^-24(n-1)/n! times
/// x, so the series to n = 9 leaves 2^-237 x; the terms from 6 on are below 2^-129 x and take
/// double-double (2^-105 of each), those from 8 on below 2^-183 x and take doubles. Below 2^-12
/// (dd), to n = 8 (2^-114 x), the terms from 5 on below 2^-54 x in doubles.
#[inline(always)]
fn expm1_small_params<T: Expansion>() -> (f64, usize, usize, usize) {
    if T::COMPONENTS == 2 {
        (crate::ldexp(1.0, -12), 8, 5, 5)
    } else {
        (crate::ldexp(1.0, -24), 9, 6, 8)
    }
}

/// expm1(x) in fixed point (`exp_fixed.rs`) for finite x with `|x|` from 2^-24 (qd) or 2^-12
/// (dd) to about ln2/2: relatively accurate to 2^-226 (qd) and 2^-110 (dd) before rounding.
#[inline(always)]
fn exp_m1_fixed<T: Expansion>(x: T) -> T {
    if T::COMPONENTS == 2 {
        let d = crate::exp_fixed::exp_m1_dd(to_dd(x));
        T::from_components(&[d.hi, d.lo])
    } else {
        let c = [x.hi(), x.component(1), x.component(2), x.component(3)];
        let q = crate::exp_fixed::exp_m1_qd(Qd(c));
        T::from_components(&q.0)
    }
}

/// ln(1 + d) to about 2^-51 relative, for |d| <= 0.5, in plain doubles: the atanh series of
/// `f = d / (2 + d)` (ln(1+d) = 2 atanh f), a start for Newton's method that is the same bits on
/// every IEEE machine, unlike libm's `ln_1p`.
#[inline]
fn ln_1p_start(d: f64) -> f64 {
    const C: [f64; 12] = [
        1.0,
        1.0 / 3.0,
        1.0 / 5.0,
        1.0 / 7.0,
        1.0 / 9.0,
        1.0 / 11.0,
        1.0 / 13.0,
        1.0 / 15.0,
        1.0 / 17.0,
        1.0 / 19.0,
        1.0 / 21.0,
        1.0 / 23.0,
    ];
    let f = d / (2.0 + d);
    let f2 = f * f;
    let mut p = 0.0f64;
    for &c in C.iter().rev() {
        p = p.mul_add(f2, c);
    }
    2.0 * f * p
}

/// ln(1 + d) for `-0.3 <= d <= 0.42` (that is `1 + d` in [0.7, 1.42]), relatively accurate: by
/// its series below `ln_1p_series_params`' bound (2^-24 in qd, 2^-12 in dd, where the
/// fixed-point logarithm gives up), by Newton's method above.
fn ln_1p_reduced<T: Expansion>(d: T) -> T {
    let (small, n_max, n_dd, n_f64) = ln_1p_series_params::<T>();
    if d.hi().abs() < small {
        ln_1p_series(d, n_max, n_dd, n_f64)
    } else {
        ln_1p_newton(d)
    }
}

/// Below which |d| `ln_1p_reduced` takes the series, and the series' parameters there (as in
/// `exp_params`). `ln(1 + d) = d - d^2 P(u)` with `u = -d` and
/// `P(u) = 1/2 + u/3 + u^2/4 + ...`; `d^2 P` is below 2^-25 (qd) or 2^-13 (dd) of the result,
/// so P is needed to 2^-190 (qd) or 2^-97 (dd) only. Its term `u^(n-2)/n` is below
/// 2^(-24(n-2)+1)/n of P for |d| < 2^-24 (qd): to n = 9 (the first term left out, n = 10, is
/// below 2^-194), from n = 6 on in double-double (2^-105 of a term below 2^-97.6 of P) and from
/// n = 8 in doubles (2^-53 of one below 2^-146). For |d| < 2^-12 (dd): to n = 9 (n = 10 below
/// 2^-98), from n = 6 in doubles (2^-53 of 2^-49.6).
#[inline(always)]
fn ln_1p_series_params<T: Expansion>() -> (f64, usize, usize, usize) {
    if T::COMPONENTS == 2 {
        (LN_1P_SERIES_DD, 9, 6, 6)
    } else {
        (LN_1P_SERIES_QD, 9, 6, 8)
    }
}

/// Below this |d| dd's `ln_1p_reduced` takes its series: 2^-12, where `log_fixed::ln_dd` gives
/// up.
pub(crate) const LN_1P_SERIES_DD: f64 = 2.44140625e-4; // 2^-12
/// Below this |d| qd's `ln_1p_reduced` takes its series: 2^-24, where `log_fixed::ln_qd` gives
/// up.
pub(crate) const LN_1P_SERIES_QD: f64 = 5.960464477539063e-8; // 2^-24

/// ln(1 + d) by its Taylor series, `d - d^2 P(-d)` (`ln_1p_series_params`): the product
/// `d^2 P` is below 2^-25 of the result, so that the error of the whole is that of the last
/// subtraction, about a unit of the type's last place.
#[inline(always)]
fn ln_1p_series<T: Expansion>(d: T, n_max: usize, n_dd: usize, n_f64: usize) -> T {
    let p = horner_from_2(-d, &INV_N, n_max, n_dd, n_f64);
    d - p * d * d
}

/// ln(1 + d) for `-0.3 <= d <= 0.42` by Newton's method.
///
/// Each step computes the residual `t = (1 + d) e^-y - 1 = (d - expm1(y)) / (1 + expm1(y))` and
/// sets `y += t - t²/2`, the series of ln(1 + t): the error after the step is O(t³), so one step
/// takes 53 bits to more than 106 and a second to more than 212.
fn ln_1p_newton<T: Expansion>(d: T) -> T {
    let y0 = ln_1p_start(d.hi());
    let dd = to_dd(d);
    let e = exp_m1(Dd::from_f64(y0));
    let t = (dd - e) / (e + 1.0);
    let y1 = (t - 0.5 * t.hi * t.hi) + y0;
    if T::COMPONENTS == 2 {
        return from_dd(y1);
    }
    let y1 = from_dd::<T>(y1);
    let e = exp_m1(y1);
    let t = to_dd(d - e) / (to_dd(e) + 1.0);
    let t = t - 0.5 * t.hi * t.hi;
    y1 + t.hi + t.lo
}

/// `x = 2^e m` with `m` in [1/sqrt2, sqrt2) (roughly: decided on the leading component), for
/// finite positive x; returns `(e, m - 1)` with `m - 1` exact.
fn split_exponent<T: Expansion>(x: T) -> (i32, T) {
    let mut x = x;
    let mut bias = 0;
    if x.hi() < f64::MIN_POSITIVE {
        // Subnormal leading component: bring it up so its exponent field is meaningful.
        x = x.ldexp(600);
        bias = -600;
    }
    let bits = x.hi().to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i32 - 1023;
    // The significand of the leading component, in [1, 2).
    let f = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if f > std::f64::consts::SQRT_2 {
        e += 1;
    }
    let m = x.ldexp(-e);
    (e + bias, m - 1.0)
}

/// ln x: NaN for x < 0 (and NaN), -inf for ±0, +inf for +inf.
pub(crate) fn ln<T: Expansion>(x: T) -> T {
    let x = crate::expansion::tidy_relative(x);
    let h = x.hi();
    if h.is_nan() || h < 0.0 {
        return T::NAN;
    }
    if h == 0.0 {
        return -T::INFINITY;
    }
    if h == f64::INFINITY {
        return T::INFINITY;
    }
    // Near 1 (where the fixed point gives up) the series of `ln_1p_reduced`, without the
    // fixed point's attempt.
    if h >= f64::MIN_POSITIVE && (h - 1.0).abs() >= ln_1p_series_params::<T>().0 {
        if let Some(l) = ln_fixed(x) {
            return l;
        }
    }
    ln_split(x)
}

/// ln x in fixed point (`log_fixed.rs`) for a positive finite x with a normal leading
/// component, or `None` where |ln x| is too small for its absolute accuracy.
#[inline(always)]
fn ln_fixed<T: Expansion>(x: T) -> Option<T> {
    if T::COMPONENTS == 2 {
        let d = crate::log_fixed::ln_dd(to_dd(x))?;
        Some(T::from_components(&[d.hi, d.lo]))
    } else {
        let c = [x.hi(), x.component(1), x.component(2), x.component(3)];
        let q = crate::log_fixed::ln_qd(Qd(c))?;
        Some(T::from_components(&q.0))
    }
}

/// ln x for a positive finite x as `e ln2 + ln_1p_reduced(m - 1)`: relatively accurate also
/// near 1.
fn ln_split<T: Expansion>(x: T) -> T {
    let (e, d) = split_exponent(x);
    let l = ln_1p_reduced(d);
    if e == 0 {
        l
    } else {
        // |e ln2| >= 0.69 > 2|l|: no cancellation to speak of.
        T::LN_2 * e as f64 + l
    }
}

/// ln(1 + x), relatively accurate near 0: NaN below -1, -inf at -1.
pub(crate) fn ln_1p<T: Expansion>(x: T) -> T {
    let x = crate::expansion::tidy_relative(x);
    let h = x.hi();
    if h.is_nan() || h < -1.0 {
        return T::NAN;
    }
    if h == 0.0 {
        // ln(1 ± 0) = ±0, IEEE's sign: the series' Newton step would add +0 to the -0.
        return T::from_f64(h);
    }
    if (-0.29..=0.41).contains(&h) {
        ln_1p_reduced(x)
    } else {
        // Away from 0, 1 + x rounds by a relative u² only and ln(1 + x) >= 0.34 in size.
        ln(x + 1.0)
    }
}

/// log2 x, exact for powers of two.
pub(crate) fn log2<T: Expansion>(x: T) -> T {
    let x = crate::expansion::tidy_relative(x);
    let h = x.hi();
    if h.is_nan() || h <= 0.0 || h == f64::INFINITY {
        return ln(x);
    }
    let (e, d) = split_exponent(x);
    let l = ln_1p_reduced(d) * konst::<T>(&LOG2_E);
    if e == 0 {
        l
    } else {
        l + e as f64
    }
}

/// log10 x.
pub(crate) fn log10<T: Expansion>(x: T) -> T {
    let l = ln(x);
    if l.hi().is_finite() {
        l * konst::<T>(&LOG10_E)
    } else {
        l
    }
}

/// Whether `y` is an odd integer (false for NaN and infinities).
fn is_odd_integer<T: Expansion>(y: T) -> bool {
    let half = y.ldexp(-1);
    y.hi().is_finite() && y.floor() == y && half.floor() != half
}

/// x^y for finite x > 0 and finite y. Qd: `x = 2^e m`, `y e = n + f` exactly with n an
/// integer and |f| <= 1/2, then `x^y = 2^n exp(f ln2 + y ln m)`: the large part of the
/// exponent, which no rounded logarithm could carry to the last bit, goes into the exact power
/// of two; the error is that of ln m times |y ln m| (up to 17 for |y| <= 50). Dd: `powf_dd`.
fn powf_positive<T: Expansion>(x: T, y: T) -> T {
    if T::COMPONENTS == 2 {
        return from_dd(powf_dd(to_dd(x), to_dd(y)));
    }
    let (e, d) = split_exponent(x);
    let ef = e as f64;
    // y e as exact products of doubles (|e| < 2^11, so each is split into two doubles), n the
    // nearest integer to the leading product, f the rest summed in T.
    let mut n = 0.0;
    let mut f = T::ZERO;
    if e != 0 {
        let p0 = y.hi() * ef;
        n = p0.round();
        if !n.is_finite() || n.abs() > 1.0e5 {
            // Far out of range: the sign of the exponent decides.
            return if n > 0.0 { T::INFINITY } else { T::ZERO };
        }
        let q0 = y.hi().mul_add(ef, -p0);
        f = T::from_f64(p0 - n) + q0;
        for i in 1..T::COMPONENTS {
            let p = y.component(i) * ef;
            let q = y.component(i).mul_add(ef, -p);
            f = f + p + q;
        }
    }
    // ln m by its series where m is near 1 (where the fixed point gives up), in fixed point
    // elsewhere (or, just above the series' bound, where |ln m| is still below the fixed
    // point's, by Newton's method).
    let l = if d.hi().abs() < ln_1p_series_params::<T>().0 {
        ln_1p_reduced(d)
    } else {
        ln_fixed(d + 1.0).unwrap_or_else(|| ln_1p_reduced(d))
    };
    let z = y * l + f * T::LN_2;
    let zh = z.hi();
    if zh > 2.0 * EXP_OVERFLOW {
        return T::INFINITY;
    }
    if zh < 2.0 * EXP_UNDERFLOW {
        return T::ZERO;
    }
    // 2^n exp(z) by the fixed-point exp (T is Qd here).
    let c = [z.hi(), z.component(1), z.component(2), z.component(3)];
    let r = crate::exp_fixed::exp_qd_scaled(Qd(c), n as i32);
    clean(T::from_components(&r.0))
}

/// Below this |y| dd `powf` takes the two-limb logarithm, below `POWF_DD_Y_WIDE` the four-limb
/// one.
pub(crate) const POWF_DD_Y: f64 = 128.0;

/// From this |y| on, dd `powf` has a finite nonzero result only for x = 1 + d with
/// |d| < 2^-118, and takes ln x = d - d^2/2.
const POWF_DD_Y_WIDE: f64 = 3.402_823_669_209_385e38; // 2^128

/// x^y = exp(y ln x) for a double-double x > 0 and a finite y, all in the fixed-point
/// machinery of `ln` and `exp`.
///
/// ln x comes unrounded from the fixed-point logarithm as three doubles: from two limbs for
/// |y| < 128 (`ln_dd_pieces`, absolute error below 2^-122 + |e| 2^-128 for x = 2^e m), from
/// four for 128 <= |y| < 2^128 (`ln_dd_pieces_wide`, below 2^-245). `y ln x` is formed as five
/// doubles, the three leading products exact (`two_prod`), the rest below 2^-104 |y ln x| with
/// a rounding error of 2^-157 |y ln x|, and the fixed-point exp converts their sum exactly.
/// The error of the exponent is below 2^-114 while the result is finite and nonzero
/// (|y ln x| < 746, hence |y e| < 1100 for |y| >= 1 and |e| <= 1074 for a subnormal x, whose
/// |y| is then below 1.06), and is relative in the result. From |y| = 2^128 on `powf_dd_near_one`.
fn powf_dd(x: Dd, y: Dd) -> Dd {
    let ay = y.hi.abs();
    // y is finite here (the device writes the same tests as !(|y| < bound)).
    if ay >= POWF_DD_Y_WIDE {
        return powf_dd_near_one(x, y);
    }
    let l = if ay < POWF_DD_Y {
        crate::log_fixed::ln_dd_pieces(x)
    } else {
        crate::log_fixed::ln_dd_pieces_wide(x)
    };
    let (p0, e0) = crate::eft::two_prod(y.hi, l[0]);
    if p0 > EXP_OVERFLOW + 1e-3 {
        return Dd::INFINITY;
    }
    if p0 < EXP_UNDERFLOW {
        return Dd::ZERO;
    }
    let (p1, e1) = crate::eft::two_prod(y.hi, l[1]);
    let (q1, f1) = crate::eft::two_prod(y.lo, l[0]);
    let s = e1 + f1 + y.hi * l[2] + y.lo * l[1];
    clean(crate::exp_fixed::exp_dd_sum(&[p0, e0, p1, q1, s]))
}

/// x^y for |y| >= 2^128 (finite). Unless x = 1 + d (x.hi = 1, d = x.lo), |ln x| > 2^-55 and
/// |y ln x| > 2^73: the result overflows or underflows by the sign of y ln x. Otherwise
/// `y ln x = y d - y d^2/2` as four doubles (two exact products, `y d^2/2` below 2^-109.5 once
/// |y d| < 746, so |d| < 2^-118; the next term, `y d^3/3`, is below 2^-226).
fn powf_dd_near_one(x: Dd, y: Dd) -> Dd {
    if x.hi != 1.0 {
        return if (x.hi > 1.0) == (y.hi > 0.0) {
            Dd::INFINITY
        } else {
            Dd::ZERO
        };
    }
    let d = x.lo;
    let (p0, e0) = crate::eft::two_prod(y.hi, d);
    if p0 > EXP_OVERFLOW + 1e-3 {
        return Dd::INFINITY;
    }
    if p0 < EXP_UNDERFLOW {
        return Dd::ZERO;
    }
    let (q, f) = crate::eft::two_prod(y.lo, d);
    let r = -0.5 * (p0 * d);
    clean(crate::exp_fixed::exp_dd_sum(&[p0, e0, q, f + r]))
}

/// x^y with f64::powf's special cases.
pub(crate) fn powf<T: Expansion>(x: T, y: T) -> T {
    let x = crate::expansion::tidy_relative(x);
    let y = crate::expansion::tidy_relative(y);
    let (xh, yh) = (x.hi(), y.hi());
    if yh == 0.0 || xh == 1.0 && x.component(1) == 0.0 {
        return T::ONE;
    }
    if xh.is_nan() || yh.is_nan() {
        return T::NAN;
    }
    if yh.is_infinite() {
        let ax = x.abs();
        return if ax == T::ONE {
            T::ONE
        } else if (ax > T::ONE) == (yh > 0.0) {
            T::INFINITY
        } else {
            T::ZERO
        };
    }
    let negative = xh < 0.0 || (xh == 0.0 && xh.is_sign_negative());
    let odd = is_odd_integer(y);
    if xh < 0.0 && xh.is_finite() && y.floor() != y {
        // A negative base to a non-integer power. (-inf to such a power is +inf or +0.)
        return T::NAN;
    }
    let ax = x.abs();
    let r = if xh == 0.0 {
        if yh > 0.0 {
            T::ZERO
        } else {
            T::INFINITY
        }
    } else if xh.is_infinite() {
        if yh > 0.0 {
            T::INFINITY
        } else {
            T::ZERO
        }
    } else {
        powf_positive(ax, y)
    };
    if negative && odd {
        -r
    } else {
        r
    }
}

macro_rules! impl_exp_log {
    ($t:ident, $accuracy:literal) => {
        impl $t {
            #[doc = concat!("e^self, to a relative error below ", $accuracy, " for results \
                at least `", stringify!($t), "::MIN_POSITIVE`; below that the trailing \
                components underflow gradually and the result is 0 under e^-745.13. \
                +inf above ln(f64::MAX) = 709.78, NaN for NaN.")]
            pub fn exp(self) -> $t {
                exp(self)
            }
            #[doc = concat!("e^self - 1, to a relative error below ", $accuracy, " also for \
                tiny `self` of either sign; -1 below -200, +inf above 709.78.")]
            pub fn exp_m1(self) -> $t {
                exp_m1(self)
            }
            #[doc = concat!("The natural logarithm, to a relative error below ", $accuracy,
                        " for every positive finite input (also near 1); -inf for ±0, NaN for \
                negative input, +inf for +inf.")]
            pub fn ln(self) -> $t {
                ln(self)
            }
            #[doc = concat!("ln(1 + self), to a relative error below ", $accuracy, " (also \
                for tiny `self`); -inf at -1, NaN below -1.")]
            pub fn ln_1p(self) -> $t {
                ln_1p(self)
            }
            #[doc = concat!("The base-2 logarithm, to a relative error below ", $accuracy,
                        "; exact for powers of two. Special values as `ln`.")]
            pub fn log2(self) -> $t {
                log2(self)
            }
            #[doc = concat!("The base-10 logarithm, to a relative error below ", $accuracy,
                        ". Special values as `ln`.")]
            pub fn log10(self) -> $t {
                log10(self)
            }
            #[doc = concat!("self^y as exp(y ln self) with the integer part of the exponent \
                kept exact: relative error below ", $accuracy, " for positive `self`,
                |y| <= 50 and results in range (the error grows slowly, with |y ln self|,
                beyond). The special cases of `f64::powf`: x^0 = 1 and 1^y = 1 even for NaN,
                negative finite `self` only with integer `y` (NaN otherwise), (-inf)^y = ±inf \
                or ±0 by the sign of `y` and whether it is an odd integer, overflow to +inf.")]
            pub fn powf(self, y: $t) -> $t {
                powf(self, y)
            }
        }
    };
}

impl_exp_log!(Dd, "2^-100");
impl_exp_log!(Qd, "2^-200");
