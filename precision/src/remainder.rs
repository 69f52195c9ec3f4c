//! The remainder of `Dd` and `Qd` (`%`, C's `fmod`), exact for every finite pair.
//!
//! A sum of doubles is a dyadic rational `±M · 2^k` with `k >= -1074`, so `x` and `y` are
//! integers over a common power of two and `x - trunc(x / y) y` is the integer remainder of
//! their magnitudes (a long division, as `fmod` does for doubles, here on integers of up to
//! about 2100 bits) with the sign of `x`, computed exactly whatever `x / y` is. The remainder
//! is a multiple of that power of two below `|y|`: it is rounded to the type only where it
//! needs more components than the type has, each component the double nearest to what the
//! ones before it leave, which is the canonical expansion of the exact value.

use crate::decimal::{components_of_dyadic, exact_dyadic};
use num_bigint::BigUint;

/// Fills `out` with the expansion of `x - trunc(x / y) y` for the sums of components `x` and
/// `y`, all finite: the exact remainder's canonical expansion, or a zero with the sign of
/// `x`'s leading component where the remainder is zero; `None` (and `out` zero) where `y` is
/// zero.
pub(crate) fn remainder(x: &[f64], y: &[f64], out: &mut [f64]) -> Option<()> {
    out.fill(0.0);
    let (_, my, ky) = exact_dyadic(y)?;
    let zero = if x[0].is_sign_negative() { -0.0 } else { 0.0 };
    let Some((negative, mx, kx)) = exact_dyadic(x) else {
        out[0] = zero;
        return Some(());
    };
    let k = kx.min(ky);
    let r = (mx << (kx - k) as u64) % (my << (ky - k) as u64);
    if r == BigUint::ZERO {
        out[0] = zero;
    } else {
        components_of_dyadic(negative, r, k, out);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rem(x: &[f64], y: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        assert_eq!(remainder(x, y, &mut out), Some(()));
        out
    }

    #[test]
    fn small_cases_by_hand() {
        assert_eq!(rem(&[7.0, 0.0], &[2.0, 0.0]), [1.0, 0.0]);
        assert_eq!(rem(&[-7.0, 0.0], &[2.0, 0.0]), [-1.0, 0.0]);
        assert_eq!(rem(&[7.0, 0.0], &[-2.0, 0.0]), [1.0, 0.0]);
        // 2^60 + 1 = 3 (mod 4) needs the trailing component.
        assert_eq!(rem(&[2f64.powi(60), 1.0], &[4.0, 0.0]), [1.0, 0.0]);
        assert_eq!(rem(&[2f64.powi(60), -1.0], &[4.0, 0.0]), [3.0, 0.0]);
        // -(2^60 - 1) = -3 (mod 4): a negative x with a positive trailing component.
        assert_eq!(rem(&[-2f64.powi(60), 1.0], &[4.0, 0.0]), [-3.0, 0.0]);
        // Zero remainders keep the sign of x.
        let r = rem(&[-8.0, 0.0], &[2.0, 0.0]);
        assert!(r[0] == 0.0 && r[0].is_sign_negative());
        let r = rem(&[-0.0, 0.0], &[2.0, 0.0]);
        assert!(r[0] == 0.0 && r[0].is_sign_negative());
        // 2^1000 mod 3 = 1 (2^even), far beyond any quotient a rounded division could give.
        assert_eq!(rem(&[2f64.powi(1000), 0.0], &[3.0, 0.0]), [1.0, 0.0]);
        assert_eq!(remainder(&[1.0, 0.0], &[0.0, -0.0], &mut [0.0; 2]), None);
        // The smallest subnormal divides every double.
        assert_eq!(rem(&[1.5, 5e-324], &[5e-324, 0.0]), [0.0, 0.0]);
    }

    #[test]
    fn a_remainder_wider_than_the_type_is_rounded_component_by_component() {
        // 2^200 = (2^200 - 2^100)(1 + 2^-100) + 1: the remainder is 1, where the rounded
        // quotient (2^200 - 2^100 + 1 - 2^-100 to 106 bits) would lose every digit of it.
        assert_eq!(
            rem(&[2f64.powi(200), 0.0], &[1.0, 2f64.powi(-100)]),
            [1.0, 0.0]
        );
        // 3 · 2^200 mod (1 + 2^-300): 3 · 2^200 - 3 · 2^200 (1 + 2^-300) = -3 · 2^-100 < 0, so the
        // quotient is one less and the remainder 1 + 2^-300 - 3 · 2^-100, which needs three
        // doubles: as a Dd it rounds to its first two.
        let r = rem(&[3.0 * 2f64.powi(200), 0.0], &[1.0, 2f64.powi(-300)]);
        assert_eq!(r, [1.0, -3.0 * 2f64.powi(-100)]);
    }
}
