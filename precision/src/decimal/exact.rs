//! Exact conversions between decimal digits and sums of doubles, in big-integer arithmetic.
//!
//! Decimal to binary: the digits and the power of ten form an exact rational, and each
//! component is the double nearest to what the components before it leave (the remainder is
//! kept exact), so a parsed `Dd` or `Qd` is the canonical expansion of the decimal value.
//!
//! Binary to decimal: a sum of doubles is a dyadic rational `N · 2^k`, whose decimal expansion
//! `N · 5^-k · 10^k` is finite, so every digit printed is rounded from the exact value.

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

/// Significant digits read from the text; the rest only say whether they are all zero.
///
/// Enough for every rounding decision: a component's rounding boundary is a dyadic rational
/// `m · 2^j` with `m < 2^54` and `j >= -1075`, whose decimal expansion ends within about 770
/// significant digits. A value that agrees with a boundary to 800 digits and has a nonzero
/// digit after them lies strictly on the same side as its truncation plus one unit in the
/// 801st digit, so those stand in for the dropped digits (the "sticky digit" of strtod).
const MAX_DIGITS: usize = 800;

/// The scientific exponent above which a decimal overflows every double: 10^309 > 2^1024.
const OVERFLOW_EXPONENT: i64 = 308;
/// The scientific exponent below which a decimal rounds to zero: 10^-324 is less than half
/// the smallest subnormal double (2^-1075 ≈ 2.5e-324).
const UNDERFLOW_EXPONENT: i64 = -324;

/// Significant digits (ASCII, no leading or trailing zeros, at most `MAX_DIGITS + 1` of them)
/// and the power of ten that scales them: the value is `digits × 10^exponent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Decimal {
    pub digits: Vec<u8>,
    pub exponent: i64,
}

impl Decimal {
    /// Reads `digits × 10^exponent` for digits as written; `None` when the value is zero.
    pub(super) fn new(digits: impl Iterator<Item = u8>, exponent: i64) -> Option<Decimal> {
        let mut kept = Vec::new();
        let mut dropped = 0i64;
        let mut sticky = false;
        for d in digits.skip_while(|&d| d == b'0') {
            if kept.len() < MAX_DIGITS {
                kept.push(d);
            } else {
                dropped = dropped.saturating_add(1);
                sticky |= d != b'0';
            }
        }
        let mut exponent = exponent.saturating_add(dropped);
        if sticky {
            kept.push(b'1');
            exponent = exponent.saturating_sub(1);
        }
        while kept.last() == Some(&b'0') {
            kept.pop();
            exponent = exponent.saturating_add(1);
        }
        (!kept.is_empty()).then_some(Decimal {
            digits: kept,
            exponent,
        })
    }

    /// The exponent of the leading digit: `10^e <= value < 10^(e+1)`.
    pub(super) fn scientific_exponent(&self) -> i64 {
        let len = i64::try_from(self.digits.len()).unwrap_or(i64::MAX);
        self.exponent.saturating_add(len - 1)
    }
}

/// Fills `out` with the expansion of `±value`: each component the double nearest to what the
/// ones before it leave (ties to even), overflowing to an infinity in the first component and
/// underflowing to zero. A zero component is `+0.0` when nothing is left to round and has
/// the sign of the remainder when the remainder is too small for the subnormals, which is how
/// MPFR (and IEEE arithmetic) round them.
pub(super) fn components_of_decimal(negative: bool, value: &Decimal, out: &mut [f64]) {
    out.fill(0.0);
    let lead = value.scientific_exponent();
    if lead > OVERFLOW_EXPONENT {
        if let Some(first) = out.first_mut() {
            *first = f64::INFINITY;
        }
    } else if lead >= UNDERFLOW_EXPONENT {
        let mut rest = Remainder::of_decimal(negative, value);
        for slot in out.iter_mut() {
            let (c, done) = rest.take_nearest();
            *slot = c;
            if done {
                break;
            }
        }
    }
    if negative && out.first().is_some_and(|c| *c == 0.0) {
        // A value that rounds to zero (or is zero) keeps its sign, as in `f64`.
        out[0] = -0.0;
    }
    if negative && out.first() == Some(&f64::INFINITY) {
        out[0] = f64::NEG_INFINITY;
    }
}

/// What the components so far leave of the value: `±num / (den · 2^scale)`, exactly.
struct Remainder {
    negative: bool,
    num: BigUint,
    den: BigUint,
    scale: i64,
}

impl Remainder {
    fn of_decimal(negative: bool, value: &Decimal) -> Remainder {
        let digits = BigUint::parse_bytes(&value.digits, 10).unwrap_or_default();
        // The callers bound the exponent (|exponent| <= 324 + MAX_DIGITS + 1).
        let power = BigUint::from(10u32).pow(value.exponent.unsigned_abs() as u32);
        let (num, den) = if value.exponent >= 0 {
            (digits * power, BigUint::from(1u32))
        } else {
            (digits, power)
        };
        Remainder {
            negative,
            num,
            den,
            scale: 0,
        }
    }

    /// Removes the nearest double from the remainder and returns it, and whether nothing
    /// further can follow (an infinity, or a remainder of zero). A remainder too small for the
    /// subnormals gives a zero of its sign (the nearest double to a tiny negative number is
    /// -0.0, as MPFR rounds it); an exhausted one gives +0.0, the sign of `x - x`.
    fn take_nearest(&mut self) -> (f64, bool) {
        let sign = if self.negative { -1.0 } else { 1.0 };
        let Some((m, u)) = nearest(&self.num, &self.den, self.scale) else {
            return (sign * f64::INFINITY, true);
        };
        if self.num.is_zero() {
            return (0.0, true);
        }
        if m == 0 {
            return (sign * 0.0, false);
        }
        // Exact: m <= 2^53 and m · 2^u is a double (or overflows to infinity).
        let c = crate::ldexp(m as f64, u as i32);
        if !c.is_finite() {
            return (sign * c, true);
        }
        // num/(den·2^scale) - m·2^u, over the common denominator den·2^max(scale, -u).
        let shift = self.scale + u;
        let taken = if shift >= 0 {
            (&self.den << shift as u64) * m
        } else {
            self.num <<= (-shift) as u64;
            self.scale = -u;
            &self.den * m
        };
        if self.num >= taken {
            self.num -= taken;
        } else {
            self.num = taken - &self.num;
            self.negative = !self.negative;
        }
        (sign * c, self.num.is_zero())
    }
}

/// The double nearest to `num / (den · 2^scale)` (ties to even) as `m · 2^u` with `m <= 2^53`,
/// subnormals included; `None` when it overflows.
fn nearest(num: &BigUint, den: &BigUint, scale: i64) -> Option<(u64, i64)> {
    if num.is_zero() {
        return Some((0, 0));
    }
    // 2^(b-1) < value < 2^(b+1); one comparison fixes q = floor(log2(value)).
    let b = num.bits() as i64 - den.bits() as i64 - scale;
    let q = if scaled_cmp(num, den, b + scale).is_ge() {
        b
    } else {
        b - 1
    };
    if q > 1023 {
        return None;
    }
    if q < -1076 {
        // Below a quarter of the smallest subnormal: rounds to zero.
        return Some((0, 0));
    }
    let u = (q - 52).max(-1074);
    let shift = scale + u;
    let (quotient, remainder, divisor) = if shift >= 0 {
        let divisor = den << shift as u64;
        (num / &divisor, num % &divisor, divisor)
    } else {
        let shifted = num << (-shift) as u64;
        (&shifted / den, &shifted % den, den.clone())
    };
    // quotient < value / 2^u < 2^(q + 1 - u) <= 2^53, so it fits.
    let mut m = quotient.to_u64().unwrap_or(0);
    let half = (remainder << 1u32).cmp(&divisor);
    if half.is_gt() || (half.is_eq() && m % 2 == 1) {
        m += 1;
    }
    Some((m, u))
}

/// Compares `num` with `den · 2^shift`.
fn scaled_cmp(num: &BigUint, den: &BigUint, shift: i64) -> std::cmp::Ordering {
    if shift >= 0 {
        num.cmp(&(den << shift as u64))
    } else {
        (num << (-shift) as u64).cmp(den)
    }
}

/// The exact value of `Σ components` as a dyadic rational: `(negative, magnitude, k)` with
/// `|value| = magnitude · 2^k`; `None` for zero. The components must be finite.
pub(crate) fn exact_dyadic(components: &[f64]) -> Option<(bool, BigUint, i64)> {
    // Each component as ±m · 2^e with m odd, and the smallest e as the common scale.
    let parts: Vec<(bool, u64, i64)> = components
        .iter()
        .filter(|c| **c != 0.0)
        .map(|&c| {
            let bits = c.to_bits();
            let field = ((bits >> 52) & 0x7ff) as i64;
            let fraction = bits & ((1 << 52) - 1);
            let (m, e) = if field == 0 {
                (fraction, -1074)
            } else {
                (fraction | (1 << 52), field - 1075)
            };
            let zeros = m.trailing_zeros();
            (c < 0.0, m >> zeros, e + i64::from(zeros))
        })
        .collect();
    let k = parts.iter().map(|p| p.2).min()?;
    // Sum positive and negative parts apart so that only unsigned integers are needed.
    let (mut plus, mut minus) = (BigUint::zero(), BigUint::zero());
    for &(negative, m, e) in &parts {
        let term = BigUint::from(m) << (e - k) as u64;
        if negative {
            minus += term;
        } else {
            plus += term;
        }
    }
    match plus.cmp(&minus) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Greater => Some((false, plus - minus, k)),
        std::cmp::Ordering::Less => Some((true, minus - plus, k)),
    }
}

/// Fills `out` with the expansion of `±magnitude · 2^k` for `k >= -1074` (every component a
/// double, none below the subnormals), each component the double nearest to what the ones
/// before it leave (ties to even), as `components_of_decimal` does for decimals.
pub(crate) fn components_of_dyadic(negative: bool, magnitude: BigUint, k: i64, out: &mut [f64]) {
    out.fill(0.0);
    let mut rest = Remainder {
        negative,
        num: magnitude,
        den: BigUint::from(1u32),
        scale: -k,
    };
    for slot in out.iter_mut() {
        let (c, done) = rest.take_nearest();
        *slot = c;
        if done {
            break;
        }
    }
}

/// The exact value of `Σ components` as decimal digits: `(negative, digits, exponent)` with
/// `|value| = digits × 10^exponent`, no leading or trailing zeros; `None` for zero. The
/// components must be finite.
pub(super) fn exact_decimal(components: &[f64]) -> Option<(bool, Decimal)> {
    let (negative, magnitude, k) = exact_dyadic(components)?;
    let (integer, exponent) = if k >= 0 {
        (magnitude << k as u64, 0)
    } else {
        (magnitude * BigUint::from(5u32).pow((-k) as u32), k)
    };
    let mut digits = integer.to_str_radix(10).into_bytes();
    let mut exponent = exponent;
    while digits.last() == Some(&b'0') {
        digits.pop();
        exponent += 1;
    }
    Some((negative, Decimal { digits, exponent }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(digits: &str, exponent: i64, n: usize) -> Vec<f64> {
        let mut out = vec![0.0; n];
        if let Some(d) = Decimal::new(digits.bytes(), exponent) {
            components_of_decimal(false, &d, &mut out);
        }
        out
    }

    #[test]
    fn exact_doubles_parse_to_themselves() {
        assert_eq!(parse("5", -1, 2), [0.5, 0.0]);
        assert_eq!(parse("17976931348623157", 292, 1), [f64::MAX]);
        // 2^-1074 and half of it (a tie, to even: zero).
        let tiny = exact_decimal(&[f64::from_bits(1)]).unwrap().1;
        assert_eq!(
            parse(std::str::from_utf8(&tiny.digits).unwrap(), tiny.exponent, 1),
            [f64::from_bits(1)]
        );
        // Half of 2^-1074 is a tie between 0 and 2^-1074 and goes to the even one, zero; a
        // hair above it goes to 2^-1074.
        let half = BigUint::from(5u32).pow(1075).to_str_radix(10);
        assert_eq!(parse(&half, -1075, 1), [0.0]);
        assert_eq!(parse(&format!("{half}1"), -1076, 1), [f64::from_bits(1)]);
    }

    #[test]
    fn remainders_give_the_lower_components() {
        let c = parse("1", -1, 2);
        assert_eq!(c[0], 0.1);
        assert_eq!(c[1], -5.551115123125783e-18);
    }

    #[test]
    fn exact_digits_of_a_sum() {
        let (negative, d) = exact_decimal(&[1.0, 2f64.powi(-60)]).unwrap();
        assert!(!negative);
        assert_eq!(d.exponent, -60);
        assert_eq!(d.digits.len(), 61);
        assert!(exact_decimal(&[1.0, -1.0]).is_none());
    }
}
