//! Decimal text to and from `f64`, [`Dd`](crate::Dd) and [`Qd`](crate::Qd).

/// Why a piece of text is not a number: what is wrong and at which column (1-based, in
/// characters).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at column {column} of {text:?}")]
pub struct ParseRealError {
    /// The text that was parsed.
    pub text: String,
    /// The 1-based column of the first character that does not fit.
    pub column: usize,
    /// What was expected there.
    pub message: String,
}

/// Parses decimal or scientific notation into the nearest double.
pub(crate) fn parse_f64(text: &str) -> Result<f64, ParseRealError> {
    text.trim().parse::<f64>().map_err(|_| ParseRealError {
        text: text.to_string(),
        column: 1,
        message: "expected a decimal number".to_string(),
    })
}
