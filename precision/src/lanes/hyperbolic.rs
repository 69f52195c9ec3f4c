//! `Dd::cosh` and `Qd::cosh` lane by lane: `crate::hyperbolic::cosh`, (e + 1/e)/2 with
//! e = exp|x| from the lanes' exp (`exp.rs`) and the lanes' division and addition. Lanes with
//! |x| beyond `hyperbolic::far` (where cosh is e^|x|/2 by another path, or overflows) and the
//! lanes that exp or the qd addition hand back are recomputed by the scalar method.

use super::dd::{self, DdV};
use super::exp::{exp_dd, exp_qd};
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
