//! Error-free transformations: the exact building blocks of double-double and quad-double
//! arithmetic (Hida–Li–Bailey, "Library for double-double and quad-double arithmetic", 2008, §2).
//!
//! Each function returns `(s, e)` with `s + e` exactly equal to the mathematical result and `s`
//! its rounded value. They are straight-line IEEE operations (products use an explicit fma), so
//! `kernels/eft.cuh` computes the same bits on the GPU.

/// `a + b = s + e` exactly, for any `a`, `b` (Knuth's TwoSum, 6 flops).
#[inline(always)]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `a + b = s + e` exactly, provided `|a| >= |b|` or `a == 0` (Dekker's FastTwoSum, 3 flops).
#[inline(always)]
pub fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let e = b - (s - a);
    (s, e)
}

/// `a - b = s + e` exactly (TwoSum applied to `a` and `-b`).
#[inline(always)]
pub fn two_diff(a: f64, b: f64) -> (f64, f64) {
    let s = a - b;
    let bb = s - a;
    let e = (a - (s - bb)) - (b + bb);
    (s, e)
}

/// `a * b = p + e` exactly, barring underflow (TwoProd with one fma).
#[inline(always)]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let e = a.mul_add(b, -p);
    (p, e)
}

/// `a * a = p + e` exactly, barring underflow.
#[inline(always)]
pub fn two_sqr(a: f64) -> (f64, f64) {
    two_prod(a, a)
}

/// Sums three doubles into `(s, e1, e2)` with `s + e1 + e2 = a + b + c` exactly
/// (two TwoSums and a TwoSum of the errors; Hida–Li–Bailey `three_sum`).
#[inline(always)]
pub fn three_sum(a: f64, b: f64, c: f64) -> (f64, f64, f64) {
    let (t1, t2) = two_sum(a, b);
    let (s, t3) = two_sum(c, t1);
    let (e1, e2) = two_sum(t2, t3);
    (s, e1, e2)
}

/// Sums three doubles into `(s, e)`, the rounding error of `e` dropped
/// (Hida–Li–Bailey `three_sum2`).
#[inline(always)]
pub fn three_sum2(a: f64, b: f64, c: f64) -> (f64, f64) {
    let (t1, t2) = two_sum(a, b);
    let (s, t3) = two_sum(c, t1);
    (s, t2 + t3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sum_recovers_the_lost_bits() {
        let (s, e) = two_sum(1.0, 1e-20);
        assert_eq!((s, e), (1.0, 1e-20));
        let (s, e) = two_diff(1.0, 1e-20);
        assert_eq!((s, e), (1.0, -1e-20));
    }

    #[test]
    fn two_prod_is_exact() {
        // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: the last term is below half an ulp of 1.
        let a = 1.0 + 2f64.powi(-30);
        let (p, e) = two_prod(a, a);
        assert_eq!(p, 1.0 + 2f64.powi(-29));
        assert_eq!(e, 2f64.powi(-60));
    }
}
