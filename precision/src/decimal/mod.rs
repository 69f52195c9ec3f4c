//! Decimal text to and from `f64`, [`Dd`] and [`Qd`].
//!
//! Parsing (`str::parse`, [`FromStr`]) accepts what `f64` accepts: `3.14159`, `-0.1`,
//! `+2.5e-300`, `1E10`, `.5`, `5.`, `1e+5`, and `inf`, `infinity` and `nan` in any case, with
//! an optional sign. Surrounding whitespace is an error, as for `f64` (callers that allow it
//! trim first). The result is the canonical expansion of the exact decimal value: each
//! component is the double nearest to what the ones before it leave, so the error is at most
//! half a unit in the last component (relative 2^-106 for `Dd`, 2^-212 for `Qd`, within the
//! normal range). Values beyond the largest finite one overflow to an infinity, values too
//! small for the smallest subnormal underflow to a zero of the same sign, and trailing
//! components below the subnormal range are zero (so precision thins out below
//! `MIN_POSITIVE`, as it does for `f64` below `f64::MIN_POSITIVE`). Digit strings of any length
//! are read exactly.
//!
//! Printing ([`Display`], [`LowerExp`], [`UpperExp`]) follows `f64`: `{}` prints the shortest
//! digits that parse back to the same components bit for bit, in fixed notation (never an
//! exponent, so `1e300` prints all 301 digits); `{:.N}` prints N digits after the point and
//! `{:e}`/`{:.Ne}` scientific notation, every digit correctly rounded (ties to even) from the
//! exact binary value. Sign (`+`), width, fill, alignment and zero padding are honoured; NaN
//! prints `NaN`, the infinities `inf` and `-inf`, and negative zero `-0`.
//!
//! ```
//! use precision::Qd;
//! let tenth: Qd = "0.1".parse().unwrap();
//! assert_eq!(tenth.to_string(), "0.1");
//! assert_eq!(format!("{:.40e}", tenth), "1.0000000000000000000000000000000000000000e-1");
//! ```

mod exact;
mod format;
mod scan;

use std::fmt::{self, Display, LowerExp, UpperExp};
use std::str::FromStr;

use crate::{Dd, Qd};
use exact::{components_of_decimal, Decimal};
pub(crate) use exact::{components_of_dyadic, exact_dyadic};
use format::{format_expansion, Style};
use scan::{scan, Number};

/// Why a piece of text is not a number: what is wrong and at which column (1-based, in
/// characters).
///
/// ```
/// use precision::Dd;
/// let err = "1.5e".parse::<Dd>().unwrap_err();
/// assert_eq!(err.column, 5);
/// assert!(err.message.starts_with("expected a digit after the exponent marker 'e'"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at column {column} of {text:?}")]
pub struct ParseRealError {
    /// The text that was parsed.
    pub text: String,
    /// The 1-based column of the first character that does not fit.
    pub column: usize,
    /// What was expected there (and what was found instead).
    pub message: String,
}

/// Parses decimal or scientific notation into the nearest double, with the syntax and the
/// error columns of [`Dd`]'s and [`Qd`]'s parsers.
pub(crate) fn parse_f64(text: &str) -> Result<f64, ParseRealError> {
    let scanned = scan(text)?;
    // The syntax is the one std accepts, and std's parse is correctly rounded; the exact
    // conversion is only a fallback that keeps this free of panics should the two disagree.
    Ok(text.parse::<f64>().unwrap_or_else(|_| {
        let mut out = [0.0];
        fill_components(&scanned, &mut out);
        out[0]
    }))
}

/// Parses `text` into the components of an expansion of `out.len()` doubles.
fn parse_components(text: &str, out: &mut [f64]) -> Result<(), ParseRealError> {
    let scanned = scan(text)?;
    fill_components(&scanned, out);
    Ok(())
}

fn fill_components(scanned: &scan::Scanned<'_>, out: &mut [f64]) {
    out.fill(0.0);
    let sign = if scanned.negative { -1.0 } else { 1.0 };
    match &scanned.number {
        Number::Nan => out[0] = sign * f64::NAN,
        Number::Infinite => out[0] = sign * f64::INFINITY,
        Number::Finite { .. } => match scanned
            .digits_and_exponent()
            .and_then(|(digits, exponent)| Decimal::new(digits, exponent))
        {
            Some(value) => components_of_decimal(scanned.negative, &value, out),
            None => out[0] = sign * 0.0,
        },
    }
}

/// Reads decimal or scientific notation to within half a unit in the last component of the
/// exact value. The syntax is `f64`'s (`3.14159`, `-0.1`, `.5`, `1E10`, `inf`, `nan`, no
/// surrounding whitespace); values beyond the finite range overflow to an infinity, values
/// below the smallest subnormal underflow to a zero of the same sign.
///
/// ```
/// use precision::Dd;
/// let x: Dd = "0.1".parse().unwrap();
/// assert_eq!(x.hi, 0.1);
/// assert_eq!(x.lo, -5.551115123125783e-18);
/// assert!(" 0.1".parse::<Dd>().is_err());
/// ```
impl FromStr for Dd {
    type Err = ParseRealError;

    fn from_str(text: &str) -> Result<Dd, ParseRealError> {
        let mut c = [0.0; 2];
        parse_components(text, &mut c)?;
        Ok(Dd::new(c[0], c[1]))
    }
}

/// Reads decimal or scientific notation to within half a unit in the last component of the
/// exact value. The syntax is `f64`'s (`3.14159`, `-0.1`, `.5`, `1E10`, `inf`, `nan`, no
/// surrounding whitespace); values beyond the finite range overflow to an infinity, values
/// below the smallest subnormal underflow to a zero of the same sign.
///
/// ```
/// use precision::Qd;
/// let x: Qd = "-2.5e-200".parse().unwrap();
/// assert!(x.0[0] < 0.0 && x.0[3] != 0.0);
/// assert_eq!("1e-400".parse::<Qd>().unwrap(), Qd::ZERO);
/// ```
impl FromStr for Qd {
    type Err = ParseRealError;

    fn from_str(text: &str) -> Result<Qd, ParseRealError> {
        let mut c = [0.0; 4];
        parse_components(text, &mut c)?;
        Ok(Qd(c))
    }
}

/// `Display`, `LowerExp` and `UpperExp` for an expansion type, each printing its components.
macro_rules! impl_format {
    ($t:ty) => {
        /// Fixed notation as `f64` prints it: the shortest digits that parse back to the same
        /// value bit for bit, or `{:.N}` for N correctly rounded digits after the point.
        impl Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                format_expansion(&self.components(), f, Style::Plain)
            }
        }

        /// Scientific notation (`1.5e-7`) as `f64` prints it: the shortest round-tripping
        /// digits, or `{:.Ne}` for N correctly rounded digits after the point.
        impl LowerExp for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                format_expansion(&self.components(), f, Style::LowerExp)
            }
        }

        /// Scientific notation with an upper-case `E` (`1.5E-7`), otherwise as [`LowerExp`].
        impl UpperExp for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                format_expansion(&self.components(), f, Style::UpperExp)
            }
        }
    };
}

impl_format!(Dd);
impl_format!(Qd);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_parse_reports_columns() {
        assert_eq!(parse_f64("-1.5e3"), Ok(-1500.0));
        assert_eq!(parse_f64("1e+").map_err(|e| e.column), Err(4));
        assert!(parse_f64("NaN").is_ok_and(f64::is_nan));
    }

    #[test]
    fn signs_of_zero_survive() {
        let z: Dd = "-0.0".parse().unwrap();
        assert!(z.hi.is_sign_negative() && z.lo.is_sign_positive());
        assert_eq!(z.to_string(), "-0");
        let tiny: Qd = "-1e-999".parse().unwrap();
        assert!(tiny.0[0] == 0.0 && tiny.0[0].is_sign_negative());
    }
}
