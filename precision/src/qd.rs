//! Quad-double numbers: an unevaluated sum of four doubles, about 212 bits (62 decimal
//! digits) of significand.
//!
//! Algorithms from Hida, Li and Bailey, "Library for double-double and quad-double
//! arithmetic" (2008) and "Algorithms for quad-double precision floating point arithmetic"
//! (ARITH 2001), HLB below. `kernels/qd.cuh` mirrors this file function for function.

use crate::dd::{divisor_scale, signed_zero};
use crate::eft::{quick_two_sum, three_sum, three_sum2, two_prod, two_sum};
use crate::Dd;

/// 2^-6: `add_qd` takes the sloppy sum when `|a0 + b0|` is at least this part of
/// `|a0| + |b0|`.
const ADD_CANCEL_LIMIT: f64 = 0.015625;

/// 2^-800: below it (and not zero), `div_qd` and `div_f64` scale the dividend up by 2^300
/// first, and the quotient by 2^-300.
pub(crate) const TINY_DIVIDEND: f64 = 1.499_696_813_895_631e-241;
pub(crate) const TWO_300: f64 = 2.037035976334486e90;
pub(crate) const TWO_M300: f64 = 4.909093465297727e-91;

/// 2^-800 and 2^800: outside, `sqrt` scales its argument first.
const SQRT_SCALE_BELOW: f64 = 1.499_696_813_895_631e-241;
const SQRT_SCALE_ABOVE: f64 = 6.668_014_432_879_854e240;

/// A quad-double number `x[0] + x[1] + x[2] + x[3]`, normalised so that each component is at
/// most half an ulp of the one before it.
///
/// `#[repr(C)]` so that a slice of `Qd` is a slice of `4n` doubles that can be copied to a GPU.
///
/// ```
/// use precision::Qd;
/// let third = Qd::ONE / Qd::from(3.0);
/// assert!((third * 3.0 - 1.0).abs() < Qd::EPSILON);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Qd(pub [f64; 4]);

impl Qd {
    pub const ZERO: Qd = Qd([0.0; 4]);
    pub const ONE: Qd = Qd([1.0, 0.0, 0.0, 0.0]);
    pub const NAN: Qd = Qd([f64::NAN, 0.0, 0.0, 0.0]);
    pub const INFINITY: Qd = Qd([f64::INFINITY, 0.0, 0.0, 0.0]);
    pub const NEG_INFINITY: Qd = Qd([f64::NEG_INFINITY, 0.0, 0.0, 0.0]);
    /// 2^-209, the precision of a normalised quad-double (HLB's `qd_real::_eps`).
    pub const EPSILON: Qd = Qd([1.2154326714572542e-63, 0.0, 0.0, 0.0]);
    /// The smallest positive quad-double that keeps full precision: below 2^-863 the last
    /// component underflows.
    pub const MIN_POSITIVE: Qd = Qd([1.6259745436952323e-260, 0.0, 0.0, 0.0]);
    /// The largest finite quad-double, canonical (each component the nearest double to what
    /// the ones before it leave, so that renormalising it changes nothing): `f64::MAX` followed
    /// by the largest components that still round into the one before, `2^970 - 2^917`,
    /// `2^916 - 2^863`, `2^862 - 2^809`; its value is 2^1024 - 2^970 - 2^916 - 2^862 - 2^809.
    ///
    /// Past it the rule is `f64`'s at its own `MAX`, with half an ulp of the last component in
    /// place of half an ulp: for a double `d >= 0`, `MAX + d` is `MAX` below 2^808 and +inf
    /// from 2^808 on (a larger value would need a component that ties with the one before
    /// it).
    pub const MAX: Qd = Qd([
        f64::MAX,
        9.979201547673598e291,
        5.5395696628011126e275,
        3.075078893078405e259,
    ]);

    /// Builds a quad-double from components that are already normalised.
    #[inline(always)]
    pub const fn new(x0: f64, x1: f64, x2: f64, x3: f64) -> Qd {
        Qd([x0, x1, x2, x3])
    }

    /// Converts a double exactly.
    #[inline(always)]
    pub const fn from_f64(x: f64) -> Qd {
        Qd([x, 0.0, 0.0, 0.0])
    }

    /// The four components, most significant first.
    #[inline(always)]
    pub const fn components(self) -> [f64; 4] {
        self.0
    }

    /// Rebuilds a value from four normalised components; panics on any other length.
    #[inline(always)]
    pub fn from_components(c: &[f64]) -> Qd {
        Qd([c[0], c[1], c[2], c[3]])
    }

    /// Converts a double-double exactly.
    #[inline(always)]
    pub const fn from_dd(x: Dd) -> Qd {
        Qd([x.hi, x.lo, 0.0, 0.0])
    }

    /// The value rounded to a double (a zero keeps its sign).
    #[inline(always)]
    pub fn to_f64(self) -> f64 {
        signed_zero(self.0[0] + self.0[1], self.0[0])
    }

    /// The value rounded to a double-double (a zero keeps its sign).
    #[inline]
    pub fn to_dd(self) -> Dd {
        let (hi, lo) = quick_two_sum(self.0[0], self.0[1] + (self.0[2] + self.0[3]));
        Dd::new(signed_zero(hi, self.0[0]), lo)
    }

    /// `self + b` with the accuracy of IEEE-style rounding even under cancellation.
    ///
    /// When the leading components cancel at most 6 bits (`|a0 + b0| >= 2^-6 (|a0| + |b0|)`)
    /// the component-wise sum of `Qd::add_sloppy` is taken: its error is below 2^-214 of
    /// `|a| + |b|` (measured; a few units of 2^-212 by HLB's analysis), which the condition
    /// keeps within about 2^-208 of |a + b|.
    /// Otherwise the eight components are merged by magnitude and accumulated exactly (HLB
    /// `ieee_add`).
    #[inline]
    pub fn add_qd(self, b: Qd) -> Qd {
        let (a0, b0) = (self.0[0], b.0[0]);
        if (a0 + b0).abs() >= ADD_CANCEL_LIMIT * (a0.abs() + b0.abs()) {
            self.add_sloppy(b)
        } else {
            self.add_merged(b)
        }
    }

    /// `self + b` component by component (HLB `sloppy_add`): pairwise TwoSums, their errors
    /// folded into the next component, then renormalisation. The error is below a few units of
    /// 2^-212 (|a| + |b|), an *absolute* bound that holds under any cancellation: so it is
    /// accurate to the type's precision relative to |a + b| when the sum does not cancel, and
    /// it is the right tool for residuals `a - b q` whose absolute error is what matters.
    #[inline]
    pub(crate) fn add_sloppy(self, b: Qd) -> Qd {
        let [a0, a1, a2, a3] = self.0;
        let [b0, b1, b2, b3] = b.0;
        let (s0, t0) = two_sum(a0, b0);
        if !s0.is_finite() {
            return Qd::from_f64(s0);
        }
        let (s1, t1) = two_sum(a1, b1);
        let (s2, t2) = two_sum(a2, b2);
        let (s3, t3) = two_sum(a3, b3);
        let (s1, t0) = two_sum(s1, t0);
        let (s2, t0, t1) = three_sum(s2, t0, t1);
        let (s3, t0) = three_sum2(s3, t0, t2);
        let t0 = t0 + t1 + t3;
        renormalise([s0, s1, s2, s3, t0])
    }

    /// `self + b` by merging the eight components by magnitude and accumulating them exactly
    /// (HLB `ieee_add`): IEEE-style accuracy however much the sum cancels.
    fn add_merged(self, b: Qd) -> Qd {
        let lead = self.0[0] + b.0[0];
        if !lead.is_finite() {
            return Qd::from_f64(lead);
        }
        let mut merge = MergeByMagnitude {
            a: self.0,
            b: b.0,
            i: 0,
            j: 0,
        };
        let first = merge.take();
        let second = merge.take();
        let (mut u, mut v) = quick_two_sum(first, second);
        let mut x = [0.0; 4];
        let mut k = 0;
        while k < 4 {
            if merge.is_empty() {
                x[k] = u;
                if k < 3 {
                    x[k + 1] = v;
                }
                break;
            }
            let t = merge.take();
            let s = quick_three_accum(&mut u, &mut v, t);
            if s != 0.0 {
                x[k] = s;
                k += 1;
            }
        }
        // Terms too small to reach the first four components only touch the last one.
        x[3] += merge.rest();
        renormalise(x)
    }

    /// `self + b` for a double: an exact chain of TwoSums, then renormalisation (HLB).
    pub fn add_f64(self, b: f64) -> Qd {
        let (c0, e) = two_sum(self.0[0], b);
        if !c0.is_finite() {
            return Qd::from_f64(c0);
        }
        let (c1, e) = two_sum(self.0[1], e);
        let (c2, e) = two_sum(self.0[2], e);
        let (c3, e) = two_sum(self.0[3], e);
        renormalise([c0, c1, c2, c3, e])
    }

    /// `self + b` for a double-double.
    #[inline]
    pub fn add_dd(self, b: Dd) -> Qd {
        self.add_qd(Qd::from_dd(b))
    }

    /// `self * b`: the partial products down to O(ε²) exactly, the O(ε³) ones in plain doubles
    /// (HLB `sloppy_mul`). The dropped rounding errors are O(ε³ u) = O(2^-212) relative, and
    /// the MPFR tests measure below 2^-207.
    #[inline]
    pub fn mul_qd(self, b: Qd) -> Qd {
        let [a0, a1, a2, a3] = self.0;
        let [b0, b1, b2, b3] = b.0;
        let (p0, q0) = two_prod(a0, b0);
        if !p0.is_finite() {
            return Qd::from_f64(p0);
        }
        // O(ε) terms.
        let (p1, q1) = two_prod(a0, b1);
        let (p2, q2) = two_prod(a1, b0);
        // O(ε²) terms.
        let (p3, q3) = two_prod(a0, b2);
        let (p4, q4) = two_prod(a1, b1);
        let (p5, q5) = two_prod(a2, b0);

        let (p1, p2, q0) = three_sum(p1, p2, q0);
        // Six-three sum of (p2, q1, q2) and (p3, p4, p5) into (s0, s1, s2).
        let (p2, q1, q2) = three_sum(p2, q1, q2);
        let (p3, p4, p5) = three_sum(p3, p4, p5);
        let (s0, t0) = two_sum(p2, p3);
        let (s1, t1) = two_sum(q1, p4);
        let s2 = q2 + p5;
        let (s1, t0) = two_sum(s1, t0);
        let s2 = s2 + (t0 + t1);

        // O(ε³) terms, rounded.
        let s1 = s1 + (a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + q0 + q3 + q4 + q5);
        renormalise([p0, p1, s0, s1, s2])
    }

    /// `self * b` for a double (HLB).
    pub fn mul_f64(self, b: f64) -> Qd {
        let [a0, a1, a2, a3] = self.0;
        let (p0, q0) = two_prod(a0, b);
        if !p0.is_finite() {
            return Qd::from_f64(p0);
        }
        let (p1, q1) = two_prod(a1, b);
        let (p2, q2) = two_prod(a2, b);
        let p3 = a3 * b;
        let (s1, s2) = two_sum(q0, p1);
        let (s2, q1, p2) = three_sum(s2, q1, p2);
        let (q1, q2) = three_sum2(q1, q2, p3);
        let s3 = q1;
        let s4 = q2 + p2;
        renormalise([p0, s1, s2, s3, s4])
    }

    /// `self * self`.
    #[inline]
    pub fn sqr(self) -> Qd {
        self.mul_qd(self)
    }

    /// `self / b`: two double-double quotient digits from one double-double reciprocal
    /// (Karp–Markstein 1997 in double-double form).
    ///
    /// `m = 1/b` to about 2^-104 (the reciprocal of JMP17 Alg. 18, DWDivDW3), the first digit
    /// `q0 = a m` (2^-102.7 relative), the residual `r = a - b q0` to an absolute 2^-210 |a|
    /// (`div_residual`: the terms of `b q0` by exact products, the cancelling ones summed
    /// exactly), the second digit `q1 = r m`, whose relative error 2^-102 is of a term
    /// 2^-102.7 |q|, and `q0 + q1` renormalised. One reciprocal and two double-double
    /// products instead of two double-double divisions, a quad-double product and two
    /// quad-double sums.
    ///
    /// A divisor above 2^960 or below 2^-960 is first scaled by 2^-128 or 2^128 (exactly), and
    /// the quotient after, as `Dd::div_dd` does; a dividend below 2^-800 by 2^300, and the
    /// quotient by 2^-300: otherwise the trailing terms of the residual, about 2^-212 of the
    /// dividend, would be subnormal.
    pub fn div_qd(self, b: Qd) -> Qd {
        let sb = divisor_scale(b.0[0]);
        let sa = dividend_scale(self.0[0]);
        if sa != 1.0 || sb != 1.0 {
            // sb / sa is a power of two between 2^-428 and 2^128, exactly; a quotient scaled up
            // past the largest double keeps its leading component alone.
            let q = self
                .scaled(sa)
                .div_qd_unscaled(b.scaled(sb))
                .scaled(sb / sa);
            return if q.0[0].is_finite() {
                q
            } else {
                Qd::from_f64(q.0[0])
            };
        }
        self.div_qd_unscaled(b)
    }

    /// `div_qd` for operands that need no scaling.
    #[inline(always)]
    fn div_qd_unscaled(self, b: Qd) -> Qd {
        let m = dd_recip(b.to_dd());
        let a = self.to_dd();
        let q0 = dd_mul((a.hi, a.lo), m);
        if !(q0.0.is_finite() && b.0[0].is_finite()) || b.0[0] == 0.0 || q0.0 == 0.0 {
            return Qd::from_f64(self.0[0] / b.0[0]);
        }
        let r = div_residual(self.0, b.0, q0);
        let q1 = dd_mul(r, m);
        renormalise([q0.0, q0.1, q1.0, q1.1])
    }

    /// `self / b` for a double, as `div_qd` with the exact products `b q0`; a dividend below
    /// 2^-800 is scaled as there.
    pub fn div_f64(self, b: f64) -> Qd {
        let sa = dividend_scale(self.0[0]);
        if sa != 1.0 {
            return self.scaled(sa).div_f64_unscaled(b).scaled(TWO_M300);
        }
        self.div_f64_unscaled(b)
    }

    /// `div_f64` for a dividend that needs no scaling.
    #[inline(always)]
    fn div_f64_unscaled(self, b: f64) -> Qd {
        let q0 = self.to_dd() / b;
        if !(q0.hi.is_finite() && b.is_finite()) || b == 0.0 || q0.hi == 0.0 {
            return Qd::from_f64(self.0[0] / b);
        }
        let q0 = Qd::from_dd(q0);
        let r = self.add_sloppy(-(q0.mul_f64(b)));
        let q1 = r.to_dd() / b;
        q0.add_sloppy(Qd::from_dd(q1))
    }

    /// Every component times the power of two `s`: exact unless they over- or underflow.
    #[inline(always)]
    fn scaled(self, s: f64) -> Qd {
        Qd(self.0.map(|c| c * s))
    }

    /// `1 / self`.
    #[inline]
    pub fn recip(self) -> Qd {
        Qd::ONE.div_qd(self)
    }

    /// The square root, NaN for negative input.
    ///
    /// The double-double root `s` (2^-104.4), then one Newton step `s + (a - s²) / (2s)`
    /// (Karp–Markstein 1997): the residual `a - s²` from the exact square of `s`'s components
    /// (`sqrt_residual`, an absolute error near 2^-212 |a|), the quotient by a double-double
    /// reciprocal of `2s`; the step squares the relative error and adds 2^-102 of a 2^-104.4
    /// correction.
    ///
    /// An argument outside [2^-800, 2^800] is first scaled exactly by an even power of two into
    /// [1, 4), and the root back by half of it: for a tiny `a` the trailing components of `s²`
    /// and of the residual would be subnormal.
    pub fn sqrt(self) -> Qd {
        let a0 = self.0[0];
        if a0 <= 0.0 || !a0.is_finite() {
            return Qd::from_f64(a0.sqrt());
        }
        if !(SQRT_SCALE_BELOW..=SQRT_SCALE_ABOVE).contains(&a0) {
            // The binary exponent of a0 (-1023 for a subnormal, which the scaling still
            // brings near 1), halved towards minus infinity.
            let half_exp = ((((a0.to_bits() >> 52) & 0x7ff) as i32) - 1023) >> 1;
            return self.ldexp(-2 * half_exp).sqrt().ldexp(half_exp);
        }
        let s = self.to_dd().sqrt();
        let r = sqrt_residual(self.0, (s.hi, s.lo));
        let c = dd_mul(r, dd_recip(Dd::new(2.0 * s.hi, 2.0 * s.lo)));
        renormalise([s.hi, s.lo, c.0, c.1])
    }

    /// `self * 2^k`, exact unless the result over- or underflows.
    #[inline]
    pub fn ldexp(self, k: i32) -> Qd {
        Qd(self.0.map(|c| crate::ldexp(c, k)))
    }

    /// The largest integer not above `self`.
    pub fn floor(self) -> Qd {
        self.round_components(f64::floor)
    }

    /// The smallest integer not below `self`.
    pub fn ceil(self) -> Qd {
        self.round_components(f64::ceil)
    }

    /// Rounds the leading components that are integers already, then the first one that is
    /// not; the components after it are below one and vanish.
    fn round_components(self, round: fn(f64) -> f64) -> Qd {
        let mut x = [0.0; 4];
        for (rounded, &c) in x.iter_mut().zip(&self.0) {
            *rounded = round(c);
            if *rounded != c {
                break;
            }
        }
        renormalise(x)
    }
}

/// `a b` for double-doubles as pairs, JMP17 Alg. 12 (DWTimesDW3) without `Dd`'s special-value
/// handling (the callers' operands are finite and their special cases decided before).
#[inline(always)]
fn dd_mul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let (ch, cl1) = two_prod(a.0, b.0);
    let tl0 = a.1 * b.1;
    let tl1 = a.0.mul_add(b.1, tl0);
    let cl2 = a.1.mul_add(b.0, tl1);
    quick_two_sum(ch, cl1 + cl2)
}

/// The power of two by which `div_qd` and `div_f64` scale a dividend with the leading
/// component `a`: 2^300 below 2^-800 (not zero), 1 otherwise, also for infinities and NaN.
#[inline(always)]
pub(crate) fn dividend_scale(a: f64) -> f64 {
    if a.abs() < TINY_DIVIDEND && a != 0.0 {
        TWO_300
    } else {
        1.0
    }
}

/// `1 / b` as a double-double pair, about 2^-104 relative: the Newton step of JMP17 Alg. 18
/// (DWDivDW3) on the double reciprocal, `th + th (1 - b th)` with the residual exact by fma.
#[inline(always)]
fn dd_recip(b: Dd) -> (f64, f64) {
    let th = 1.0 / b.hi;
    let rh = (-b.hi).mul_add(th, 1.0);
    let rl = -b.lo * th;
    let (eh, el) = quick_two_sum(rh, rl);
    // (eh, el) th, JMP17 Alg. 10, then + th, Alg. 4.
    let (ch, cl1) = two_prod(eh, th);
    let (dh, dl) = quick_two_sum(ch, el.mul_add(th, cl1));
    let (sh, sl) = two_sum(th, dh);
    quick_two_sum(sh, dl + sl)
}

/// `a - b q` for quad-doubles `a`, `b` and a double-double `q` close to `a / b` (relative
/// 2^-100 or better), to an absolute error of a few 2^-212 |a|, as a pair `(hi, lo)`.
///
/// The terms of `a - b q` by magnitude, u = 2^-53: `a0 - b0 qh` is exact (Sterbenz: the
/// rounded product lies within a factor 2 of `a0`); the O(u) terms (`a1`, the errors and the
/// products of the first cross terms) cancel down to the residual, O(u²), so they are summed
/// exactly by TwoSums, and so are the O(u²) terms, whose sum is the residual; the O(u³) terms
/// and the TwoSums' errors are summed in plain doubles (an error of a few u⁴ |a|).
#[inline(always)]
fn div_residual(a: [f64; 4], b: [f64; 4], q: (f64, f64)) -> (f64, f64) {
    let (qh, ql) = q;
    let (p00, e00) = two_prod(b[0], qh);
    let (p01, e01) = two_prod(b[0], ql);
    let (p10, e10) = two_prod(b[1], qh);
    let (p11, e11) = two_prod(b[1], ql);
    let (p20, e20) = two_prod(b[2], qh);
    let d0 = a[0] - p00;
    // O(u).
    let (h, t1) = two_sum(d0, a[1]);
    let (h, t2) = two_sum(h, -e00);
    let (h, t3) = two_sum(h, -p01);
    let (h, t4) = two_sum(h, -p10);
    // O(u²).
    let (g, v1) = two_sum(h, a[2]);
    let (g, v2) = two_sum(g, t1);
    let (g, v3) = two_sum(g, t2);
    let (g, v4) = two_sum(g, t3);
    let (g, v5) = two_sum(g, t4);
    let (g, v6) = two_sum(g, -e01);
    let (g, v7) = two_sum(g, -e10);
    let (g, v8) = two_sum(g, -p11);
    let (g, v9) = two_sum(g, -p20);
    // O(u³), rounded.
    let low = (((v1 + v2) + (v3 + v4)) + ((v5 + v6) + (v7 + v8)))
        + (((v9 + a[3]) - (e11 + e20)) - (b[2] * ql + b[3] * qh));
    two_sum(g, low)
}

/// `a - s²` for a quad-double `a` and a double-double `s` close to its square root (relative
/// 2^-100 or better), to an absolute error near 2^-212 |a|, as a pair `(hi, lo)`; the terms
/// as in `div_residual`: `s² = sh² + 2 sh sl + sl²`, each by an exact product.
#[inline(always)]
fn sqrt_residual(a: [f64; 4], s: (f64, f64)) -> (f64, f64) {
    let (sh, sl) = s;
    let (p0, e0) = two_prod(sh, sh);
    let (p1, e1) = two_prod(2.0 * sh, sl);
    let (p2, e2) = two_prod(sl, sl);
    let d0 = a[0] - p0;
    // O(u).
    let (h, t1) = two_sum(d0, a[1]);
    let (h, t2) = two_sum(h, -e0);
    let (h, t3) = two_sum(h, -p1);
    // O(u²).
    let (g, v1) = two_sum(h, a[2]);
    let (g, v2) = two_sum(g, t1);
    let (g, v3) = two_sum(g, t2);
    let (g, v4) = two_sum(g, t3);
    let (g, v5) = two_sum(g, -e1);
    let (g, v6) = two_sum(g, -p2);
    // O(u³), rounded.
    let low = ((v1 + v2) + (v3 + v4)) + ((v5 + v6) + (a[3] - e2));
    two_sum(g, low)
}

/// Renormalises `N >= 4` overlapping components into a quad-double (HLB `renorm`): a
/// bottom-up pass of FastTwoSums, then a top-down pass that skips zeros so that no component
/// is wasted. A zero result takes the sign of the leading input (`signed_zero`: the
/// callers pass the rounded sum or product of the leading components first).
#[inline]
pub(crate) fn renormalise<const N: usize>(c: [f64; N]) -> Qd {
    let lead = c[0];
    let c = match bottom_up(c) {
        Ok(c) => c,
        Err(special) => return special,
    };
    // The common case first, as straight-line code: the first three FastTwoSums of the
    // top-down pass leave nonzero errors, so each writes its sum and no zero is skipped (and
    // the sum is not zero). The general pass computes the same here, but as a loop whose
    // writes at a running index went through the stack (four 8-byte stores read back as one
    // 32-byte load, which stalls store-to-load forwarding), and whose result waited for the
    // whole pass.
    let (h1, l1) = quick_two_sum(c[0], c[1]);
    if l1 != 0.0 {
        let (h2, l2) = quick_two_sum(l1, c[2]);
        if l2 != 0.0 {
            let (h3, l3) = quick_two_sum(l2, c[3]);
            if l3 != 0.0 {
                let mut s = l3;
                for &ci in &c[4..] {
                    s += ci;
                }
                return Qd([h1, h2, h3, s]);
            }
        }
    }
    top_down_skipping_zeros(c, lead)
}

/// `renormalise`'s bottom-up pass, or its result where the leading input or the leading sum
/// is not finite.
#[inline(always)]
fn bottom_up<const N: usize>(c: [f64; N]) -> Result<[f64; N], Qd> {
    if !c[0].is_finite() {
        return Err(Qd::from_f64(c[0]));
    }
    let mut c = c;
    let mut s = c[N - 1];
    for i in (0..N - 1).rev() {
        let (hi, lo) = quick_two_sum(c[i], s);
        c[i + 1] = lo;
        s = hi;
    }
    if !s.is_finite() {
        // The leading sum rounded past the largest double: a genuine overflow, returned as
        // ±inf rather than left for the next pass to turn into inf - inf = NaN.
        return Err(Qd::from_f64(s));
    }
    c[0] = s;
    Ok(c)
}

/// `renormalise`'s top-down pass in general: a FastTwoSum that leaves no error writes no
/// component (its sum goes on down); `lead` is the leading input, for the sign of a zero. Out
/// of line, so that the common case stays short where `renormalise` is inlined.
#[inline(never)]
fn top_down_skipping_zeros<const N: usize>(c: [f64; N], lead: f64) -> Qd {
    let mut out = [0.0; 4];
    let mut k = 0;
    let mut s = c[0];
    for &ci in &c[1..] {
        if k == 3 {
            s += ci;
            continue;
        }
        let (hi, lo) = quick_two_sum(s, ci);
        if lo != 0.0 {
            set(&mut out, k, hi);
            k += 1;
            s = lo;
        } else {
            s = hi;
        }
    }
    set(&mut out, k, s);
    if out[0] == 0.0 {
        // Every component is zero. (A call, not a select: it keeps the common case's
        // dependency chain free of the fix-up.)
        return signed_zero_qd(lead);
    }
    Qd(out)
}

/// `out[k] = v` (k <= 3) with constant indices, which keep `out` in registers: a store at a
/// running index put it on the stack, and four 8-byte stores read back as one 32-byte load
/// stall store-to-load forwarding.
#[inline(always)]
fn set(out: &mut [f64; 4], k: usize, v: f64) {
    match k {
        0 => out[0] = v,
        1 => out[1] = v,
        2 => out[2] = v,
        _ => out[3] = v,
    }
}

/// The zero result of `renormalise`, with the sign of the leading input (`signed_zero`).
#[cold]
fn signed_zero_qd(lead: f64) -> Qd {
    Qd::from_f64(signed_zero(0.0, lead))
}

/// Yields the components of two quad-doubles, largest magnitude first.
struct MergeByMagnitude {
    a: [f64; 4],
    b: [f64; 4],
    i: usize,
    j: usize,
}

impl MergeByMagnitude {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.i >= 4 && self.j >= 4
    }

    #[inline(always)]
    fn take(&mut self) -> f64 {
        let from_a = self.j >= 4 || (self.i < 4 && self.a[self.i].abs() > self.b[self.j].abs());
        if from_a {
            self.i += 1;
            self.a[self.i - 1]
        } else {
            self.j += 1;
            self.b[self.j - 1]
        }
    }

    /// The plain sum of what has not been taken.
    #[inline(always)]
    fn rest(&self) -> f64 {
        let mut r = 0.0;
        for &x in &self.a[self.i.min(4)..] {
            r += x;
        }
        for &x in &self.b[self.j.min(4)..] {
            r += x;
        }
        r
    }
}

/// Adds `c` to the running two-term accumulator `(a, b)`; returns a finished component when the
/// accumulator overflows into three non-zero terms, else 0 (HLB `quick_three_accum`).
#[inline(always)]
fn quick_three_accum(a: &mut f64, b: &mut f64, c: f64) -> f64 {
    let (s, eb) = two_sum(*b, c);
    let (s, ea) = two_sum(*a, s);
    match (ea != 0.0, eb != 0.0) {
        (true, true) => {
            *a = ea;
            *b = eb;
            s
        }
        (_, false) => {
            *b = ea;
            *a = s;
            0.0
        }
        (false, true) => {
            *a = s;
            *b = eb;
            0.0
        }
    }
}

crate::ops::impl_derived_methods!(Qd);
crate::ops::impl_arithmetic!(Qd, add_qd, add_f64, mul_qd, mul_f64, div_qd, div_f64);

impl std::ops::Neg for Qd {
    type Output = Qd;
    #[inline(always)]
    fn neg(self) -> Qd {
        Qd(self.0.map(|c| -c))
    }
}

impl PartialOrd for Qd {
    fn partial_cmp(&self, other: &Qd) -> Option<std::cmp::Ordering> {
        for i in 0..4 {
            match self.0[i].partial_cmp(&other.0[i]) {
                Some(std::cmp::Ordering::Equal) => continue,
                ord => return ord,
            }
        }
        Some(std::cmp::Ordering::Equal)
    }
}

impl PartialEq<f64> for Qd {
    fn eq(&self, other: &f64) -> bool {
        *self == Qd::from_f64(*other)
    }
}

impl PartialOrd<f64> for Qd {
    fn partial_cmp(&self, other: &f64) -> Option<std::cmp::Ordering> {
        self.partial_cmp(&Qd::from_f64(*other))
    }
}

impl From<f64> for Qd {
    fn from(x: f64) -> Qd {
        Qd::from_f64(x)
    }
}

impl From<f32> for Qd {
    fn from(x: f32) -> Qd {
        Qd::from_f64(x as f64)
    }
}

impl From<i32> for Qd {
    fn from(x: i32) -> Qd {
        Qd::from_f64(x as f64)
    }
}

impl From<i64> for Qd {
    fn from(x: i64) -> Qd {
        Qd::from_dd(Dd::from(x))
    }
}

impl From<u64> for Qd {
    fn from(x: u64) -> Qd {
        Qd::from_dd(Dd::from(x))
    }
}

impl From<Dd> for Qd {
    fn from(x: Dd) -> Qd {
        Qd::from_dd(x)
    }
}

impl From<Qd> for f64 {
    fn from(x: Qd) -> f64 {
        x.to_f64()
    }
}

impl From<Qd> for Dd {
    fn from(x: Qd) -> Dd {
        x.to_dd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancellation_keeps_the_low_components() {
        let a = Qd::new(1.0, 1e-20, 1e-40, 1e-60);
        let d = a - 1.0;
        assert_eq!(d.0[0], 1e-20);
        assert_eq!(d.0[1], 1e-40);
        let b = Qd::new(1.0, 1e-20, 0.0, 0.0);
        let d = a - b;
        assert_eq!(d.0[0], 1e-40);
        assert_eq!(d.0[1], 1e-60);
    }

    #[test]
    fn special_values_behave_like_f64() {
        assert_eq!((Qd::INFINITY + 1.0), Qd::INFINITY);
        assert!((Qd::INFINITY - Qd::INFINITY).is_nan());
        assert!((Qd::INFINITY * 0.0).is_nan());
        assert_eq!(Qd::ONE / Qd::ZERO, Qd::INFINITY);
        assert!((Qd::ZERO / Qd::ZERO).is_nan());
        assert_eq!(Qd::ONE / Qd::INFINITY, Qd::ZERO);
        assert_eq!(Qd::MAX * 2.0, Qd::INFINITY);
        assert_eq!(Qd::MAX + Qd::MAX, Qd::INFINITY);
        assert!(Qd::from(-2.0).sqrt().is_nan());
        assert!((Qd::NAN * 2.0).is_nan());
    }

    /// `renormalise`'s straight-line common case gives the bits of the general top-down pass
    /// (HLB's loop, which it short-cuts), over components of every kind: overlapping and
    /// not, zeros of both signs anywhere, exact cancellations, signed zeros, infinities, NaN.
    #[test]
    fn the_common_case_has_the_general_passs_bits() {
        use rand::rngs::StdRng;
        use rand::{Rng, SeedableRng};
        fn general<const N: usize>(c: [f64; N]) -> Qd {
            match bottom_up(c) {
                Ok(r) => top_down_skipping_zeros(r, c[0]),
                Err(special) => special,
            }
        }
        fn component(rng: &mut StdRng, before: f64) -> f64 {
            match rng.gen_range(0..10) {
                0 => 0.0,
                1 => -0.0,
                // Cancels the component before exactly, or overlaps it.
                2 => -before,
                3 => before * rng.gen_range(-2.0..2.0),
                4 if rng.gen_bool(0.05) => [f64::INFINITY, f64::NAN, f64::MAX][rng.gen_range(0..3)],
                // A rounding error of the one before, or a half ulp of it exactly (ties).
                5 => before * f64::EPSILON * 0.5,
                _ => before * f64::EPSILON * rng.gen_range(-1.0..1.0),
            }
        }
        let mut rng = StdRng::seed_from_u64(16);
        let (mut common, mut other) = (0, 0);
        let same = |a: Qd, b: Qd| {
            a.0.iter()
                .zip(&b.0)
                .all(|(x, y)| x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan())
        };
        for _ in 0..400_000 {
            let mut c = [0.0; 5];
            c[0] = crate::ldexp(rng.gen_range(-2.0..2.0), rng.gen_range(-1000..1000));
            for k in 1..5 {
                let before = if c[k - 1] == 0.0 { c[0] } else { c[k - 1] };
                c[k] = component(&mut rng, before);
            }
            let four = [c[0], c[1], c[2], c[3]];
            assert!(same(renormalise(c), general(c)), "{c:?}");
            assert!(same(renormalise(four), general(four)), "{four:?}");
            if let Ok(r) = bottom_up(c) {
                let (_, l1) = quick_two_sum(r[0], r[1]);
                let (_, l2) = quick_two_sum(l1, r[2]);
                let (_, l3) = quick_two_sum(l2, r[3]);
                if l1 != 0.0 && l2 != 0.0 && l3 != 0.0 {
                    common += 1;
                } else {
                    other += 1;
                }
            }
        }
        assert!(
            common > 50_000 && other > 50_000,
            "{common} common, {other} other"
        );
    }

    /// `MAX` is a fixed point of the renormalisation, with or without a zero fifth component.
    #[test]
    fn max_is_renormalised_already() {
        let max = Qd::MAX.0;
        assert_eq!(renormalise(max).0.map(f64::to_bits), max.map(f64::to_bits));
        let five = [max[0], max[1], max[2], max[3], 0.0];
        assert_eq!(renormalise(five).0.map(f64::to_bits), max.map(f64::to_bits));
        let neg = (-Qd::MAX).0;
        assert_eq!(renormalise(neg).0.map(f64::to_bits), neg.map(f64::to_bits));
    }

    #[test]
    fn sqrt_two_squared_is_two() {
        let two = Qd::from(2.0);
        let s = two.sqrt();
        assert!((s.sqr() - two).abs() < Qd::EPSILON * 8.0);
        // Known leading digits of sqrt(2).
        assert_eq!(s.0[0], std::f64::consts::SQRT_2);
    }

    #[test]
    fn rounding_functions() {
        let x = Qd::new(2f64.powi(80), 2f64.powi(20), 0.5, 0.0);
        assert_eq!(x.floor(), Qd::new(2f64.powi(80), 2f64.powi(20), 0.0, 0.0));
        assert_eq!(
            x.round(),
            Qd::new(2f64.powi(80), 2f64.powi(20) + 1.0, 0.0, 0.0)
        );
        assert_eq!(Qd::from(-2.5).round(), Qd::from(-3.0));
    }
}
