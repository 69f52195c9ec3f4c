//! The syntax of a decimal number, checked character by character so that an error can name
//! the column where the text stops being a number and what would have fitted there.
//!
//! The grammar is that of `f64`'s `FromStr`, so that the three precisions accept the same
//! text: `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`, or `[+-]?` followed by
//! `inf`, `infinity` or `nan` in any case. No whitespace, no `_` separators, no hexadecimal.

use super::ParseRealError;

/// Exponents are read saturating at this magnitude: far beyond any that could matter (the
/// decimal exponents of finite doubles lie within ±330, and the text's length within
/// `isize::MAX`), and small enough that adding the text's length can never overflow an `i64`.
const EXPONENT_CAP: i64 = 1 << 60;

/// What a piece of text says, once its syntax is known to be right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Number<'a> {
    Nan,
    Infinite,
    /// `0.digits... = int.frac × 10^exponent`, the digits as written (leading and trailing
    /// zeros included).
    Finite {
        int: &'a [u8],
        frac: &'a [u8],
        exponent: i64,
    },
}

/// A number with its sign, which `-nan` and `-0` carry too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Scanned<'a> {
    pub negative: bool,
    pub number: Number<'a>,
}

impl Scanned<'_> {
    /// The value as `±digits × 10^exponent` with the significant digits (ASCII) in order,
    /// integer part first; `None` for NaN and the infinities.
    pub(super) fn digits_and_exponent(&self) -> Option<(impl Iterator<Item = u8> + '_, i64)> {
        match &self.number {
            Number::Finite {
                int,
                frac,
                exponent,
            } => {
                let frac_len = i64::try_from(frac.len()).unwrap_or(i64::MAX);
                Some((
                    int.iter().chain(frac.iter()).copied(),
                    exponent.saturating_sub(frac_len),
                ))
            }
            _ => None,
        }
    }
}

/// Checks the syntax of `text` and splits it into sign, digits and exponent.
pub(super) fn scan(text: &str) -> Result<Scanned<'_>, ParseRealError> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut negative = false;
    let signed = matches!(bytes.first(), Some(b'+' | b'-'));
    if signed {
        negative = bytes[0] == b'-';
        pos = 1;
    }
    let number_start = if signed {
        "after the sign"
    } else {
        "at the start of a number"
    };
    match bytes.get(pos) {
        None if !signed => Err(error(text, pos, "expected a number")),
        Some(b'0'..=b'9' | b'.') => {
            scan_digits(text, pos).map(|number| Scanned { negative, number })
        }
        Some(c) if c.is_ascii_alphabetic() => {
            scan_word(text, pos).map(|number| Scanned { negative, number })
        }
        _ => Err(error(
            text,
            pos,
            &format!("expected a digit, '.', 'inf' or 'nan' {number_start}"),
        )),
    }
}

/// Digits, an optional fraction and an optional exponent, from `pos` to the end of the text.
fn scan_digits(text: &str, mut pos: usize) -> Result<Number<'_>, ParseRealError> {
    let bytes = text.as_bytes();
    let digits_from = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let int_end = digits_from(pos);
    let int = &bytes[pos..int_end];
    pos = int_end;
    let mut frac: &[u8] = &[];
    let has_point = bytes.get(pos) == Some(&b'.');
    if has_point {
        let frac_end = digits_from(pos + 1);
        frac = &bytes[pos + 1..frac_end];
        pos = frac_end;
        if int.is_empty() && frac.is_empty() {
            return Err(error(text, pos, "expected a digit after the decimal point"));
        }
    }
    let mut exponent = 0i64;
    if let Some(&marker @ (b'e' | b'E')) = bytes.get(pos) {
        pos += 1;
        let mut exponent_negative = false;
        let sign = bytes.get(pos).copied().filter(|c| matches!(c, b'+' | b'-'));
        if let Some(sign) = sign {
            exponent_negative = sign == b'-';
            pos += 1;
        }
        let exp_end = digits_from(pos);
        if exp_end == pos {
            let after = match sign {
                Some(sign) => format!("the exponent sign '{}'", sign as char),
                None => format!("the exponent marker '{}'", marker as char),
            };
            return Err(error(text, pos, &format!("expected a digit after {after}")));
        }
        for &d in &bytes[pos..exp_end] {
            exponent = exponent
                .saturating_mul(10)
                .saturating_add(i64::from(d - b'0'))
                .min(EXPONENT_CAP);
        }
        if exponent_negative {
            exponent = -exponent;
        }
        pos = exp_end;
        if pos < bytes.len() {
            return Err(error(
                text,
                pos,
                "expected a digit or the end of the number",
            ));
        }
    } else if pos < bytes.len() {
        let expected = if has_point {
            "expected a digit, an exponent 'e' or the end of the number"
        } else {
            "expected a digit, '.', an exponent 'e' or the end of the number"
        };
        return Err(error(text, pos, expected));
    }
    Ok(Number::Finite {
        int,
        frac,
        exponent,
    })
}

/// `inf`, `infinity` or `nan` in any case, from `pos` to the end of the text.
fn scan_word(text: &str, pos: usize) -> Result<Number<'_>, ParseRealError> {
    let word = &text.as_bytes()[pos..];
    for (name, number) in [
        ("inf", Number::Infinite),
        ("infinity", Number::Infinite),
        ("nan", Number::Nan),
    ] {
        if word.eq_ignore_ascii_case(name.as_bytes()) {
            return Ok(number);
        }
    }
    // Point at the first character that no spelling can continue with.
    let common = |name: &str| {
        word.iter()
            .zip(name.as_bytes())
            .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
            .count()
    };
    let (inf, nan) = (common("infinity"), common("nan"));
    let (matched, message) = if nan == 3 {
        (3, "expected the end of the number after 'nan'")
    } else if inf == 8 {
        (8, "expected the end of the number after 'infinity'")
    } else if inf == 3 && !word.get(3).is_some_and(|c| c.eq_ignore_ascii_case(&b'i')) {
        (3, "expected the end of the number after 'inf'")
    } else if inf > 3 {
        (inf, "expected the rest of 'infinity'")
    } else {
        (
            inf.max(nan),
            "expected a digit, '.', 'inf', 'infinity' or 'nan'",
        )
    };
    Err(error(text, pos + matched, message))
}

/// The error for byte offset `pos`, which always lies on a character boundary (every byte
/// before it was ASCII); the column counts characters, not bytes.
fn error(text: &str, pos: usize, expected: &str) -> ParseRealError {
    let before = text.get(..pos).unwrap_or(text);
    let found = text.get(pos..).and_then(|rest| rest.chars().next());
    let message = match found {
        Some(c) => format!("{expected}, found {c:?}"),
        None if text.is_empty() => format!("{expected}, found an empty text"),
        None => format!("{expected}, found the end of the text"),
    };
    ParseRealError {
        text: text.to_string(),
        column: before.chars().count() + 1,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(text: &str) -> usize {
        scan(text).map(|_| 0).unwrap_or_else(|e| e.column)
    }

    #[test]
    fn columns_point_at_the_first_bad_character() {
        assert_eq!(column(""), 1);
        assert_eq!(column("-"), 2);
        assert_eq!(column("1e"), 3);
        assert_eq!(column("1e+"), 4);
        assert_eq!(column("1.2.3"), 4);
        assert_eq!(column("é1"), 1);
        assert_eq!(column("-.e1"), 3);
        assert_eq!(column("infx"), 4);
        assert_eq!(column("nax"), 3);
        assert_eq!(column("1.5é"), 4);
    }

    #[test]
    fn exponent_and_fraction_combine() {
        let s = scan("12.345e-2").unwrap();
        let (digits, exponent) = s.digits_and_exponent().unwrap();
        assert_eq!(digits.collect::<Vec<u8>>(), b"12345");
        assert_eq!(exponent, -5);
    }

    #[test]
    fn huge_exponents_saturate() {
        let s = scan("1e99999999999999999999999999").unwrap();
        assert_eq!(s.digits_and_exponent().unwrap().1, EXPONENT_CAP);
    }
}
