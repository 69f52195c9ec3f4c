//! `Dd::powf` lane by lane for its common path: x > 0 with a normal leading component, y finite,
//! nonzero and below `POWF_DD_Y` (128) in size, that is `crate::exp_log::powf_dd` with the
//! two-limb logarithm: `log_fixed::ln_dd_pieces` (the fixed-point logarithm of `log.rs`, cut
//! into three 53-bit pieces from its leading bit), the exponent `y ln x` as five doubles, its
//! overflow and underflow tests as selects, and `exp_fixed::exp_dd_sum` (the fixed-point exp of
//! `exp.rs` over the five pieces), so that every lane holds the scalar function's bits.
//!
//! The other lanes go to the scalar method: the special cases of `exp_log::powf` (x^0, 1^y,
//! NaN, infinite y, zero, infinite or negative x), subnormal x, |y| >= 128 (the four-limb
//! logarithm and `powf_dd_near_one`), malformed x or y (a lower component beyond 2^-52 of the
//! leading one, which the scalar method renormalises first), and x so near 1 that |ln x| has
//! no bit in the two limbs' top two words (where `log.rs`'s normalisation stops).

use super::dd::DdV;
use super::eft::two_prod;
use super::exp::{self, combine, exp_dd_of, expm1_2, expm1_4, split};
use super::exp::{EXP_I_DD, EXP_I_QD, EXP_J_DD, EXP_J_QD};
use super::fixed::{ldexp, normalise, piece, pow2, to_f64_52};
use super::ints::Ints;
use super::log;
use super::qd::{self, renormalise, QdV};
use crate::exp_log::{EXP_OVERFLOW, EXP_UNDERFLOW, LN_1P_SERIES_QD, POWF_DD_Y};

/// Lower components of x beyond this fraction of the leading one go to the scalar method (as in
/// `log.rs`: `m` stays in [1, 2) below it).
const LOW_LIMIT: f64 = 1.0 / 4503599627370496.0; // 2^-52

/// The weight of the top bit of |ln x|'s limbs, for [`piece`] (`log_fixed::pieces::<2>`'s unit
/// 2^-128 over three limbs).
const TOP: f64 = 63.0;

/// `Dd::powf` in every lane of the common path, and the lanes for the scalar method.
#[inline(always)]
pub(crate) fn powf_dd<L: Ints>(l: L, x: DdV<L>, y: DdV<L>) -> (DdV<L>, L::M) {
    if L::WIDTH == 1 {
        // One lane: the scalar method itself is faster than its integer emulation here.
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let one = l.splat(1.0);
    // The common path: MIN_POSITIVE <= x.hi < inf, |x.lo| <= 2^-52 x.hi, x != 1,
    // 0 < |y.hi| < 128 (false for NaN), |y.lo| <= 2^-52 |y.hi| (`expansion::tidy_relative`
    // leaves both as they are).
    let ay = l.abs(y[0]);
    let mut common = l.and(
        l.le(l.splat(f64::MIN_POSITIVE), x[0]),
        l.lt(x[0], l.splat(f64::INFINITY)),
    );
    common = l.and(common, l.le(l.abs(x[1]), l.mul(x[0], l.splat(LOW_LIMIT))));
    common = l.and(common, l.not(l.and(l.eq(x[0], one), l.eq(x[1], zero))));
    common = l.and(common, l.and(l.lt(zero, ay), l.lt(ay, l.splat(POWF_DD_Y))));
    common = l.and(common, l.le(l.abs(y[1]), l.mul(ay, l.splat(LOW_LIMIT))));
    // The other lanes compute 1.5^1 on the side.
    let c = [
        l.select(common, x[0], l.splat(1.5)),
        l.select(common, x[1], zero),
    ];
    let (yh, yl) = (l.select(common, y[0], one), l.select(common, y[1], zero));

    // ln_dd_pieces: ln_fixed_abs::<2>, then pieces::<2>.
    let (e, j, i, d, outside) = log::reduce::<L, 2, 3>(l, &c);
    let (negative, t, _) = log::finish::<L, 2, 3>(l, (e, j, i), log::ln_1p_2(l, d), 52);
    // Normalisation finds the leading bit in the top two limbs only.
    let z = l.u_splat(0);
    let tiny = l.and(l.u_eq(t[2], z), l.u_eq(t[1], z));
    let (s, k) = normalise(l, t);
    let mut p = [zero; 3];
    for (n, pn) in p.iter_mut().enumerate() {
        let v = piece(l, &s, n, k, TOP);
        *pn = l.select(negative, l.neg(v), v);
    }

    // powf_dd: y ln x as five doubles, the three leading products exact.
    let (p0, e0) = two_prod(l, yh, p[0]);
    let over = l.gt(p0, l.splat(EXP_OVERFLOW + 1e-3));
    let under = l.lt(p0, l.splat(EXP_UNDERFLOW));
    let (p1, e1) = two_prod(l, yh, p[1]);
    let (q1, f1) = two_prod(l, yl, p[0]);
    let sum = l.add(l.add(l.add(e1, f1), l.mul(yh, p[2])), l.mul(yl, p[1]));
    // Overflowing and underflowing lanes take exp(0) on the side.
    let inside = l.not(l.or(over, under));
    let pieces = [
        l.select(inside, p0, zero),
        l.select(inside, e0, zero),
        l.select(inside, p1, zero),
        l.select(inside, q1, zero),
        l.select(inside, sum, zero),
    ];
    let (kk, jj, ii, r) = split::<L, 2, 3>(l, &pieces);
    let v = combine(l, expm1_2(l, r), (jj, ii), &EXP_J_DD, &EXP_I_DD);
    let [h, lo] = exp_dd_of(l, kk, v);
    let h = l.select(over, l.splat(f64::INFINITY), l.select(under, zero, h));
    let lo = l.select(inside, lo, zero);
    let redo = l.not(l.and(common, l.not(l.or(outside, tiny))));
    ([h, lo], redo)
}

/// `Qd::powf` in every lane of the common path, and the lanes for the scalar method: as
/// `exp_log::powf_positive` for quad-doubles, `x = 2^e m` with m in [1/sqrt2, sqrt2), `y e = n + f`
/// with n the nearest integer to the leading product (exact products by fused multiply-adds),
/// `z = y ln m + f ln2` in quad-double arithmetic over `log.rs`'s fixed-point ln m, and
/// `2^n exp(z)` by `exp.rs`'s fixed-point exp; where m is within 2^-24 of 1, ln m by the series
/// of ln(1 + d) (`log::ln_1p_series_qd`), as the scalar function. Besides the lanes
/// [`powf_dd`] hands over (bar |y| >= 128: here |y| >= 2^40), the lanes where ln m is below
/// 2^-24 just beyond the series (the Newton path), where |n| > 10^5 (the sign decides) and where
/// a quad-double addition cancels deeply go to the scalar method.
#[inline(always)]
pub(crate) fn powf_qd<L: Ints>(l: L, x: QdV<L>, y: QdV<L>) -> (QdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let one = l.splat(1.0);
    let ay = l.abs(y[0]);
    let mut common = l.and(
        l.le(l.splat(f64::MIN_POSITIVE), x[0]),
        l.lt(x[0], l.splat(f64::INFINITY)),
    );
    let (xlimit, ylimit) = (
        l.mul(x[0], l.splat(LOW_LIMIT)),
        l.mul(ay, l.splat(LOW_LIMIT)),
    );
    for k in 1..4 {
        common = l.and(common, l.le(l.abs(x[k]), xlimit));
        common = l.and(common, l.le(l.abs(y[k]), ylimit));
    }
    common = l.and(common, l.not(l.and(l.eq(x[0], one), l.eq(x[1], zero))));
    common = l.and(common, l.and(l.lt(zero, ay), l.lt(ay, l.splat(QD_Y))));
    // The other lanes compute 1.5^1 on the side.
    let xs: QdV<L> = [
        l.select(common, x[0], l.splat(1.5)),
        l.select(common, x[1], zero),
        l.select(common, x[2], zero),
        l.select(common, x[3], zero),
    ];
    let ys: QdV<L> = [
        l.select(common, y[0], one),
        l.select(common, y[1], zero),
        l.select(common, y[2], zero),
        l.select(common, y[3], zero),
    ];

    // split_exponent: e from the leading component's exponent field, one more where its
    // significand exceeds sqrt2; d = x 2^-e - 1.
    let bits = l.to_bits(xs[0]);
    let field = l.u_and(l.shr(bits, 52), l.u_splat(0x7ff));
    let f = l.bits_to_f64(l.u_or(
        l.u_and(bits, l.u_splat(0x000f_ffff_ffff_ffff)),
        l.u_splat(0x3ff0_0000_0000_0000),
    ));
    let e = l.sub(to_f64_52(l, field), l.splat(1023.0));
    let e = l.select(l.gt(f, l.splat(std::f64::consts::SQRT_2)), l.add(e, one), e);
    let ne = l.neg(e);
    let m = [
        ldexp(l, xs[0], ne),
        ldexp(l, xs[1], ne),
        ldexp(l, xs[2], ne),
        ldexp(l, xs[3], ne),
    ];
    let d = qd::add_f64(l, m, l.splat(-1.0));

    // y e = n + f exactly (where e != 0).
    let p0 = l.mul(ys[0], e);
    let n = round(l, p0);
    let far = l.not(l.le(l.abs(n), l.splat(1.0e5)));
    let n = l.select(far, zero, n);
    let q0 = l.mul_add(ys[0], e, l.neg(p0));
    let mut fr = qd::add_f64(l, [l.sub(p0, n), zero, zero, zero], q0);
    for &yk in &ys[1..] {
        let p = l.mul(yk, e);
        let q = l.mul_add(yk, e, l.neg(p));
        fr = qd::add_f64(l, qd::add_f64(l, fr, p), q);
    }
    let e0 = l.eq(e, zero);
    for c in fr.iter_mut() {
        *c = l.select(e0, zero, *c);
    }
    let n = l.select(e0, zero, n);

    // ln m by its series where |m - 1| < 2^-24, in fixed point elsewhere (the lanes where it
    // gives up, just above, flagged for the Newton path); z = y ln m + f ln2. Each only where
    // some lane takes it.
    let series = l.lt(l.abs(d[0]), l.splat(LN_1P_SERIES_QD));
    let (fixed, newton) = if l.all(series) {
        (d, l.none())
    } else {
        log::ln_fixed_qd(l, qd::add_f64(l, d, one))
    };
    let (near, cancels) = if l.bits(series) == 0 {
        (d, l.none())
    } else {
        log::ln_1p_series_qd(l, d)
    };
    let lm = qd::select(l, series, near, fixed);
    let newton = l.or(l.and(series, cancels), l.and(l.not(series), newton));
    let ln2 = crate::Qd::LN_2.0;
    let ln2 = [
        l.splat(ln2[0]),
        l.splat(ln2[1]),
        l.splat(ln2[2]),
        l.splat(ln2[3]),
    ];
    let (z, cancelled) = qd::add_qd(l, qd::mul_qd(l, ys, lm), qd::mul_qd(l, fr, ln2));
    let over = l.gt(z[0], l.splat(2.0 * EXP_OVERFLOW));
    let under = l.lt(z[0], l.splat(2.0 * EXP_UNDERFLOW));
    let inside = l.not(l.or(over, under));
    let mut zc = z;
    for c in zc.iter_mut() {
        *c = l.select(inside, *c, zero);
    }

    // 2^n exp(z): exp_qd_scaled.
    let (k, j, i, r) = split::<L, 4, 5>(l, &zc);
    let v = combine(l, expm1_4(l, r), (j, i), &EXP_J_QD, &EXP_I_QD);
    let c0 = l.add(one, exp::piece(l, &v, 204, 52, -52));
    let c1 = exp::piece(l, &v, 151, 53, -105);
    let c2 = exp::piece(l, &v, 98, 53, -158);
    let c3 = exp::piece(l, &v, 45, 53, -211);
    let c4 = exp::piece(l, &v, 0, 45, -256);
    let mut q = renormalise(l, [c0, c1, c2, c3, c4]);
    let kn = l.add(k, n);
    for qi in q.iter_mut() {
        *qi = ldexp3(l, *qi, kn);
    }
    // clean: an overflow is (+inf, 0, 0, 0); overflow and underflow of z as selects.
    let finite = l.and(l.is_finite(q[0]), inside);
    let mut out = q;
    for c in out.iter_mut().skip(1) {
        *c = l.select(finite, *c, zero);
    }
    out[0] = l.select(over, l.splat(f64::INFINITY), l.select(under, zero, q[0]));
    let redo = l.or(l.not(common), l.or(far, l.or(newton, cancelled)));
    (out, redo)
}

/// |y| from which the quad-double lanes hand powf to the scalar method (far beyond any finite
/// nonzero result unless x is within 2^-40 of 1; it keeps y ln m far from overflow).
const QD_Y: f64 = 1099511627776.0; // 2^40

/// `f64::round` (half away from zero) for |v| < 2^52 and beyond (where v is an integer).
#[inline(always)]
fn round<L: Ints>(l: L, v: L::V) -> L::V {
    let a = l.abs(v);
    let t = l.floor(a);
    let r = l.select(l.ge(l.sub(a, t), l.splat(0.5)), l.add(t, l.splat(1.0)), t);
    l.select(l.lt(v, l.splat(0.0)), l.neg(r), r)
}

/// `crate::ldexp` for any integral k: three exact scalings, each by a power of two in range.
#[inline(always)]
fn ldexp3<L: Ints>(l: L, x: L::V, k: L::V) -> L::V {
    let s1 = clamp(l, k);
    let r1 = l.sub(k, s1);
    let s2 = clamp(l, r1);
    let s3 = clamp(l, l.sub(r1, s2));
    l.mul(l.mul(l.mul(x, pow2(l, s1)), pow2(l, s2)), pow2(l, s3))
}

/// `v.clamp(-1022, 1023)`. (Not a closure: a closure is a function of its own, built without
/// the caller's target features.)
#[inline(always)]
fn clamp<L: Ints>(l: L, v: L::V) -> L::V {
    let (lo, hi) = (l.splat(-1022.0), l.splat(1023.0));
    l.select(l.lt(v, lo), lo, l.select(l.gt(v, hi), hi, v))
}
