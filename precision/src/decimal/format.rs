//! Printing a sum of doubles in decimal the way `f64` prints: shortest round-tripping digits
//! for `{}` and `{:e}`, correctly rounded digits for `{:.N}` and `{:.Ne}`, and the
//! formatter's sign, width, fill, alignment and zero padding.

use std::fmt;

use super::exact::{components_of_decimal, exact_decimal, Decimal};

/// Which of the formatting traits is printing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// `{}`: fixed notation, never an exponent (as `f64`, so 1e300 prints 301 digits).
    Plain,
    /// `{:e}`: scientific notation with a lower-case `e`.
    LowerExp,
    /// `{:E}`: scientific notation with an upper-case `E`.
    UpperExp,
}

/// Prints the value `Σ components` of a `Dd` (two components) or `Qd` (four).
pub(super) fn format_expansion(
    components: &[f64],
    f: &mut fmt::Formatter<'_>,
    style: Style,
) -> fmt::Result {
    if components.iter().any(|c| c.is_nan()) {
        // NaN never shows a sign, even under `{:+}`, as in `f64`.
        return pad(f, "", "NaN");
    }
    if let Some(inf) = components.iter().find(|c| c.is_infinite()) {
        return pad(f, sign(f, *inf < 0.0), "inf");
    }
    let exact = exact_decimal(components);
    let negative = match &exact {
        Some((negative, _)) => *negative,
        None => components.first().is_some_and(|c| c.is_sign_negative()),
    };
    let exact = exact.map(|(_, d)| d);
    let marker = if style == Style::UpperExp { 'E' } else { 'e' };
    let body = match (style, f.precision(), &exact) {
        (Style::Plain, Some(decimals), Some(d)) => fixed(&round_fixed(d, decimals), decimals),
        (Style::Plain, Some(decimals), None) => fixed(b"0", decimals),
        (Style::Plain, None, Some(d)) => {
            let (digits, e) = shortest(d, components, negative);
            plain(&digits, e)
        }
        (Style::Plain, None, None) => "0".to_string(),
        (_, Some(decimals), Some(d)) => {
            let (digits, e) = round_significant(d, decimals.saturating_add(1));
            scientific(&digits, e, marker)
        }
        (_, Some(decimals), None) => scientific(&vec![b'0'; decimals.saturating_add(1)], 0, marker),
        (_, None, Some(d)) => {
            let (digits, e) = shortest(d, components, negative);
            scientific(&digits, e, marker)
        }
        (_, None, None) => scientific(b"0", 0, marker),
    };
    pad(f, sign(f, negative), &body)
}

fn sign(f: &fmt::Formatter<'_>, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if f.sign_plus() {
        "+"
    } else {
        ""
    }
}

/// Writes `sign` and `body` padded to the formatter's width: zeros after the sign under `0`
/// (which `f64` applies to `NaN` and `inf` too), otherwise the fill character placed by the
/// alignment, right by default as for every number.
fn pad(f: &mut fmt::Formatter<'_>, sign: &str, body: &str) -> fmt::Result {
    let len = sign.len() + body.chars().count();
    let Some(padding) = f
        .width()
        .and_then(|w| w.checked_sub(len))
        .filter(|p| *p > 0)
    else {
        f.write_str(sign)?;
        return f.write_str(body);
    };
    if f.sign_aware_zero_pad() {
        f.write_str(sign)?;
        for _ in 0..padding {
            f.write_str("0")?;
        }
        return f.write_str(body);
    }
    let (before, after) = match f.align() {
        Some(fmt::Alignment::Left) => (0, padding),
        Some(fmt::Alignment::Center) => (padding / 2, padding - padding / 2),
        Some(fmt::Alignment::Right) | None => (padding, 0),
    };
    let fill = f.fill();
    for _ in 0..before {
        fmt::Write::write_char(f, fill)?;
    }
    f.write_str(sign)?;
    f.write_str(body)?;
    for _ in 0..after {
        fmt::Write::write_char(f, fill)?;
    }
    Ok(())
}

/// The shortest digits that read back as the value of `components` (in absolute value), with
/// their scientific exponent.
///
/// A double-double such as 1 + 2^-500 needs about 150 digits, so the count cannot be fixed
/// in advance: it is bisected between 1 and the length of the exact expansion (which always
/// reads back). Digits read back when they parse to the same components, for an expansion in
/// the canonical form that parsing produces; for one in another form, when they parse to the
/// same exact value: a lower component exactly half an ulp of the one above (qd's 1e-307 +
/// 2^-1073) is a tie with two normalised forms, and parsing gives the other one,
/// so no digits read back bit for bit and such a value would print in full (700 digits).
fn shortest(exact: &Decimal, components: &[f64], negative: bool) -> (Vec<u8>, i64) {
    let len = exact.digits.len();
    let mut parsed = [0.0; 4];
    let parsed = &mut parsed[..components.len().min(4)];
    components_of_decimal(negative, exact, parsed);
    let canonical = parsed.iter().zip(components).all(|(a, b)| a == b);
    let reads_back = |p: usize| {
        let (digits, e) = round_significant(exact, p);
        let candidate = Decimal {
            exponent: e - (p as i64 - 1),
            digits,
        };
        let mut back = [0.0; 4];
        let back = &mut back[..components.len().min(4)];
        components_of_decimal(negative, &candidate, back);
        if canonical {
            back.iter().zip(components).all(|(a, b)| a == b)
        } else {
            exact_decimal(back).is_some_and(|(_, value)| value == *exact)
        }
    };
    // Enough digits for a canonical expansion whose components are contiguous in binary;
    // only wider ones (with gaps between the components) need more.
    let guess = [17, 33, 49, 65][components.len().clamp(1, 4) - 1].min(len);
    let (mut fails, mut works) = if reads_back(guess) {
        (0, guess)
    } else if reads_back(len) {
        (guess, len)
    } else {
        return (exact.digits.clone(), exact.scientific_exponent());
    };
    while works - fails > 1 {
        let mid = fails + (works - fails) / 2;
        if reads_back(mid) {
            works = mid;
        } else {
            fails = mid;
        }
    }
    let (mut digits, e) = round_significant(exact, works);
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, e)
}

/// `d` rounded to `p >= 1` significant digits (ties to even), padded with zeros to exactly
/// `p`, and the scientific exponent of the result (one more than `d`'s when 9.99… rounds up).
fn round_significant(d: &Decimal, p: usize) -> (Vec<u8>, i64) {
    let e = d.scientific_exponent();
    let p = p.max(1);
    if d.digits.len() <= p {
        let mut digits = d.digits.clone();
        digits.resize(p, b'0');
        return (digits, e);
    }
    let mut digits = d.digits[..p].to_vec();
    if rounds_up(&d.digits, p) && increment(&mut digits) {
        digits.insert(0, b'1');
        digits.truncate(p);
        return (digits, e + 1);
    }
    (digits, e)
}

/// `round(|d| · 10^decimals)` (ties to even) as decimal digits without leading zeros.
fn round_fixed(d: &Decimal, decimals: usize) -> Vec<u8> {
    let len = d.digits.len() as i64;
    // The digits whose place value is at least 10^-decimals.
    let decimals = i64::try_from(decimals).unwrap_or(i64::MAX);
    let kept = d.exponent.saturating_add(len).saturating_add(decimals);
    if kept >= len {
        let mut digits = d.digits.clone();
        digits.resize(kept as usize, b'0');
        return digits;
    }
    if kept < 0 {
        return b"0".to_vec();
    }
    let kept = kept as usize;
    let mut digits = d.digits[..kept].to_vec();
    if rounds_up(&d.digits, kept) && increment(&mut digits) {
        digits.insert(0, b'1');
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    digits
}

/// Whether keeping the first `kept < digits.len()` digits rounds up, ties to even. The
/// digits have no trailing zeros, so any digit after a 5 makes it more than a tie.
fn rounds_up(digits: &[u8], kept: usize) -> bool {
    let last_kept = if kept == 0 { b'0' } else { digits[kept - 1] };
    match digits[kept] {
        b'6'..=b'9' => true,
        b'5' => digits.len() > kept + 1 || (last_kept - b'0') % 2 == 1,
        _ => false,
    }
}

/// Adds one unit in the last place; true when it carries out of the first digit (all nines).
fn increment(digits: &mut [u8]) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    true
}

/// An integer `digits` scaled by 10^-decimals, in fixed notation with exactly `decimals`
/// digits after the point.
fn fixed(integer: &[u8], decimals: usize) -> String {
    let mut out = String::with_capacity(integer.len() + decimals + 2);
    if integer.len() <= decimals {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', decimals - integer.len()));
        out.extend(integer.iter().map(|&b| b as char));
        return out;
    }
    let point = integer.len() - decimals;
    out.extend(integer[..point].iter().map(|&b| b as char));
    if decimals > 0 {
        out.push('.');
        out.extend(integer[point..].iter().map(|&b| b as char));
    }
    out
}

/// Significant digits with scientific exponent `e` in fixed notation, as short as the
/// digits allow (no trailing zeros after the point, no point for an integer).
fn plain(digits: &[u8], e: i64) -> String {
    let text = |d: &[u8]| d.iter().map(|&b| b as char).collect::<String>();
    if e < 0 {
        let zeros = "0".repeat((-e - 1) as usize);
        return format!("0.{zeros}{}", text(digits));
    }
    let int_len = (e as usize).saturating_add(1);
    if digits.len() <= int_len {
        format!("{}{}", text(digits), "0".repeat(int_len - digits.len()))
    } else {
        format!("{}.{}", text(&digits[..int_len]), text(&digits[int_len..]))
    }
}

/// `d.ddd…e±x`, all the digits given (at least one).
fn scientific(digits: &[u8], e: i64, marker: char) -> String {
    let mut out = String::with_capacity(digits.len() + 8);
    out.push(digits.first().map_or('0', |&b| b as char));
    if digits.len() > 1 {
        out.push('.');
        out.extend(digits[1..].iter().map(|&b| b as char));
    }
    out.push(marker);
    out.push_str(&e.to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decimal(digits: &str, exponent: i64) -> Decimal {
        Decimal {
            digits: digits.as_bytes().to_vec(),
            exponent,
        }
    }

    #[test]
    fn ties_go_to_even() {
        assert_eq!(round_significant(&decimal("25", 0), 1), (b"2".to_vec(), 1));
        assert_eq!(round_significant(&decimal("35", 0), 1), (b"4".to_vec(), 1));
        assert_eq!(round_significant(&decimal("251", 0), 1), (b"3".to_vec(), 2));
        assert_eq!(round_fixed(&decimal("5", -1), 0), b"0");
        assert_eq!(round_fixed(&decimal("15", -1), 0), b"2");
        assert_eq!(round_fixed(&decimal("51", -2), 0), b"1");
    }

    #[test]
    fn nines_carry_into_a_new_digit() {
        assert_eq!(
            round_significant(&decimal("9996", 0), 3),
            (b"100".to_vec(), 4)
        );
        assert_eq!(round_fixed(&decimal("996", -3), 2), b"100");
        assert_eq!(fixed(b"100", 2), "1.00");
        assert_eq!(fixed(b"7", 3), "0.007");
    }

    #[test]
    fn layouts() {
        assert_eq!(plain(b"15", 0), "1.5");
        assert_eq!(plain(b"1", 2), "100");
        assert_eq!(plain(b"1", -7), "0.0000001");
        assert_eq!(scientific(b"12345", 3, 'e'), "1.2345e3");
        assert_eq!(scientific(b"1", -7, 'E'), "1E-7");
    }
}
