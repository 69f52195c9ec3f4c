//! cosh, sinh and tanh of `Dd` and `Qd` lane by lane: `crate::hyperbolic`'s formulas over the
//! lanes' exp (`exp.rs`) and exp_m1 (`exp_m1.rs`) and the lanes' division and addition. Lanes with |x| beyond `hyperbolic::far` (where sinh and cosh
//! are e^|x|/2 by another path, or overflow) and the lanes that exp, exp_m1 or the qd addition
//! hand back are recomputed by the scalar method.

use super::dd::{self, DdV};
use super::exp::{exp_dd, exp_qd};
use super::exp_m1::{exp_m1_dd, exp_m1_qd};
use super::ints::Ints;
use super::qd::{self, QdV};
use crate::hyperbolic::far;
use crate::{Dd, Qd};

/// The lanes of `x` whose leading component has its sign bit set (`is_sign_negative`).
#[inline(always)]
fn sign_negative<L: Ints>(l: L, x: L::V) -> L::M {
    l.i_negative(l.to_bits(x))
}

/// `Dd::cosh` in every lane, and the lanes for the scalar method.
#[inline(always)]
pub(crate) fn cosh_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let nan = l.ne(x[0], x[0]);
    // `abs`: the negation where the sign bit is set.
    let negative = sign_negative(l, x[0]);
    let ax = [
        l.select(negative, l.neg(x[0]), x[0]),
        l.select(negative, l.neg(x[1]), x[1]),
    ];
    let near = l.le(ax[0], l.splat(far::<Dd>()));
    let arg = [l.select(near, ax[0], zero), l.select(near, ax[1], zero)];
    // Below `far` exp has no special value: it is `exp_fixed`, as the scalar function calls.
    let (e, redo) = exp_dd(l, arg);
    let r = dd::div_dd(l, [l.splat(1.0), zero], e);
    let s = dd::add_dd(l, e, r);
    let half = l.splat(0.5);
    let c = [l.mul(s[0], half), l.mul(s[1], half)];
    let far_lanes = l.and(l.not(near), l.not(nan));
    (
        [l.select(nan, x[0], c[0]), l.select(nan, x[1], c[1])],
        l.or(far_lanes, l.and(redo, near)),
    )
}

/// `Qd::cosh` in every lane, and the lanes for the scalar method.
#[inline(always)]
pub(crate) fn cosh_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let nan = l.ne(x[0], x[0]);
    let negative = sign_negative(l, x[0]);
    let mut ax = x;
    for c in ax.iter_mut() {
        *c = l.select(negative, l.neg(*c), *c);
    }
    let near = l.le(ax[0], l.splat(far::<Qd>()));
    let mut arg = ax;
    for c in arg.iter_mut() {
        *c = l.select(near, *c, zero);
    }
    let (e, redo_exp) = exp_qd(l, arg);
    let r = qd::div_qd(l, [l.splat(1.0), zero, zero, zero], e);
    let (s, redo_add) = qd::add_qd(l, e, r);
    let half = l.splat(0.5);
    let mut out = s;
    for (o, &xi) in out.iter_mut().zip(&x) {
        *o = l.select(nan, xi, l.mul(*o, half));
    }
    let far_lanes = l.and(l.not(near), l.not(nan));
    (out, l.or(far_lanes, l.and(l.or(redo_exp, redo_add), near)))
}

/// The lanes that `sinh` and `tanh` return unchanged (NaN and zeros), `|x|`, whether `x` is
/// negative, and whether `|x|` is within `far` (as the scalar functions test them).
#[inline(always)]
fn odd_parts<L: Ints>(l: L, x: DdV<L>) -> (L::M, DdV<L>, L::M, L::M) {
    let h = x[0];
    let passthrough = l.or(l.ne(h, h), l.eq(h, l.splat(0.0)));
    let sign = sign_negative(l, h);
    let ax = [
        l.select(sign, l.neg(x[0]), x[0]),
        l.select(sign, l.neg(x[1]), x[1]),
    ];
    let near = l.le(ax[0], l.splat(far::<Dd>()));
    (passthrough, ax, l.lt(h, l.splat(0.0)), near)
}

/// `r`, negated where `negative`, and `x` itself where `passthrough`.
#[inline(always)]
fn odd_result<L: Ints>(l: L, x: DdV<L>, r: DdV<L>, negative: L::M, passthrough: L::M) -> DdV<L> {
    let r = [
        l.select(negative, l.neg(r[0]), r[0]),
        l.select(negative, l.neg(r[1]), r[1]),
    ];
    [
        l.select(passthrough, x[0], r[0]),
        l.select(passthrough, x[1], r[1]),
    ]
}

/// `Dd::sinh`: (E + E/(E + 1))/2 with E = expm1|x|, in every lane, and the lanes for the scalar
/// method.
#[inline(always)]
pub(crate) fn sinh_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let (passthrough, ax, negative, near) = odd_parts(l, x);
    let arg = [l.select(near, ax[0], zero), l.select(near, ax[1], zero)];
    let (e, redo) = exp_m1_dd(l, arg);
    let q = dd::div_dd(l, e, dd::add_f64(l, e, l.splat(1.0)));
    let s = dd::add_dd(l, e, q);
    let half = l.splat(0.5);
    let r = [l.mul(s[0], half), l.mul(s[1], half)];
    let active = l.not(passthrough);
    (
        odd_result(l, x, r, negative, passthrough),
        l.and(active, l.or(l.not(near), redo)),
    )
}

/// `Dd::tanh`: E/(E + 2) with E = expm1(2|x|), ±1 beyond `far`, in every lane, and the lanes
/// for the scalar method.
#[inline(always)]
pub(crate) fn tanh_dd<L: Ints>(l: L, x: DdV<L>) -> (DdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let (passthrough, ax, negative, near) = odd_parts(l, x);
    let two = l.splat(2.0);
    // `ax.ldexp(1)`.
    let arg = [
        l.select(near, l.mul(ax[0], two), zero),
        l.select(near, l.mul(ax[1], two), zero),
    ];
    let (e, redo) = exp_m1_dd(l, arg);
    let q = dd::div_dd(l, e, dd::add_f64(l, e, two));
    let r = [
        l.select(near, q[0], l.splat(1.0)),
        l.select(near, q[1], zero),
    ];
    let active = l.not(passthrough);
    (
        odd_result(l, x, r, negative, passthrough),
        l.and(active, l.and(near, redo)),
    )
}

/// `odd_parts` for quad-doubles.
#[inline(always)]
fn odd_parts_qd<L: Ints>(l: L, x: QdV<L>) -> (L::M, QdV<L>, L::M, L::M) {
    let h = x[0];
    let passthrough = l.or(l.ne(h, h), l.eq(h, l.splat(0.0)));
    let sign = sign_negative(l, h);
    let mut ax = x;
    for c in ax.iter_mut() {
        *c = l.select(sign, l.neg(*c), *c);
    }
    let near = l.le(ax[0], l.splat(far::<Qd>()));
    (passthrough, ax, l.lt(h, l.splat(0.0)), near)
}

/// `odd_result` for quad-doubles.
#[inline(always)]
fn odd_result_qd<L: Ints>(l: L, x: QdV<L>, r: QdV<L>, negative: L::M, passthrough: L::M) -> QdV<L> {
    let mut out = r;
    for (o, &xi) in out.iter_mut().zip(&x) {
        let signed = l.select(negative, l.neg(*o), *o);
        *o = l.select(passthrough, xi, signed);
    }
    out
}

/// `Qd::sinh` in every lane, and the lanes for the scalar method.
#[inline(always)]
pub(crate) fn sinh_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let (passthrough, ax, negative, near) = odd_parts_qd(l, x);
    let mut arg = ax;
    for c in arg.iter_mut() {
        *c = l.select(near, *c, zero);
    }
    let (e, redo_e) = exp_m1_qd(l, arg);
    let q = qd::div_qd(l, e, qd::add_f64(l, e, l.splat(1.0)));
    let (s, redo_s) = qd::add_qd(l, e, q);
    let half = l.splat(0.5);
    let mut r = s;
    for c in r.iter_mut() {
        *c = l.mul(*c, half);
    }
    let active = l.not(passthrough);
    let redo = l.or(l.not(near), l.and(near, l.or(redo_e, redo_s)));
    (
        odd_result_qd(l, x, r, negative, passthrough),
        l.and(active, redo),
    )
}

/// `Qd::tanh` in every lane, and the lanes for the scalar method.
#[inline(always)]
pub(crate) fn tanh_qd<L: Ints>(l: L, x: QdV<L>) -> (QdV<L>, L::M) {
    if L::WIDTH == 1 {
        return (x, l.not(l.none()));
    }
    let zero = l.splat(0.0);
    let (passthrough, ax, negative, near) = odd_parts_qd(l, x);
    let two = l.splat(2.0);
    let mut arg = ax;
    for c in arg.iter_mut() {
        *c = l.select(near, l.mul(*c, two), zero);
    }
    let (e, redo) = exp_m1_qd(l, arg);
    let q = qd::div_qd(l, e, qd::add_f64(l, e, two));
    let one = [l.splat(1.0), zero, zero, zero];
    let mut r = q;
    for (c, &o) in r.iter_mut().zip(&one) {
        *c = l.select(near, *c, o);
    }
    let active = l.not(passthrough);
    (
        odd_result_qd(l, x, r, negative, passthrough),
        l.and(active, l.and(near, redo)),
    )
}
