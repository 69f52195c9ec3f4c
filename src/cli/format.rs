//! Numbers as people read them: a given count of significant digits, in plain notation when the
//! exponent is moderate and in scientific notation otherwise.

use precision::Real;

/// `x` to `digits` significant digits, correctly rounded from its exact value.
///
/// ```text
/// 3.14159265358979323846264338327950288419716939937510582097494459   (pi, 63 digits)
/// 1.2345e-12
/// ```
pub fn significant<T: Real>(x: T, digits: usize) -> String {
    let digits = digits.max(1);
    let sci = format!("{:.*e}", digits - 1, x);
    let Some((mantissa, exponent)) = sci.split_once('e') else {
        return sci; // inf, NaN
    };
    let Ok(exponent) = exponent.parse::<i32>() else {
        return sci;
    };
    if !(-5..21).contains(&exponent) {
        return sci;
    }
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let all: String = mantissa.chars().filter(|c| *c != '.').collect();
    let point = exponent + 1; // digits before the decimal point
    let plain = if point <= 0 {
        format!("0.{}{}", "0".repeat((-point) as usize), all)
    } else if point as usize >= all.len() {
        format!("{}{}", all, "0".repeat(point as usize - all.len()))
    } else {
        format!("{}.{}", &all[..point as usize], &all[point as usize..])
    };
    format!("{sign}{plain}")
}

/// How many leading significant digits of `x` agree with `reference`: `-log10` of the
/// relative difference, 0 when they differ in the first digit, `cap` when they are equal.
pub fn digits_correct<T: Real>(x: T, reference: T, cap: u32) -> u32 {
    let diff = (x - reference).abs();
    if diff == T::zero() {
        return cap;
    }
    let rel = (diff / reference.abs()).to_f64();
    if !rel.is_finite() || rel >= 1.0 {
        return 0;
    }
    ((-rel.log10()).floor() as u32).min(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_scientific() {
        assert_eq!(significant(std::f64::consts::PI, 5), "3.1416");
        assert_eq!(significant(1234.5678f64, 6), "1234.57");
        assert_eq!(significant(-0.000123456f64, 3), "-0.000123");
        assert_eq!(significant(1.5e-12f64, 2), "1.5e-12");
        assert_eq!(significant(1.0e22f64, 2), "1.0e22");
        assert_eq!(significant(100.0f64, 2), "100");
    }

    #[test]
    fn digits_against_reference() {
        assert_eq!(digits_correct(2.00001f64, 2.0, 16), 5);
        assert_eq!(digits_correct(2.0f64, 2.0, 16), 16);
        assert_eq!(digits_correct(5.0f64, 2.0, 16), 0);
    }
}
