//! The one error type of the expression language: what went wrong, and where.

use std::fmt;

/// A syntax or name error in an integrand expression, with the 1-based column it points at.
///
/// `Display` shows the message, then the source, then a caret under the column:
///
/// ```
/// use hpquad::expr::Expr;
///
/// let err = Expr::parse("sine(x)", 1).unwrap_err();
/// assert_eq!(err.column(), 1);
/// assert_eq!(
///     err.to_string(),
///     "unknown function 'sine' at column 1; did you mean 'sin'?\n  sine(x)\n  ^"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError {
    message: String,
    source: String,
    column: usize,
}

impl ExprError {
    /// Builds `"{what} at column {column}"`, followed by `"; {hint}"` when there is a hint.
    pub(crate) fn new(source: &str, column: usize, what: &str, hint: Option<String>) -> ExprError {
        let mut message = format!("{what} at column {column}");
        if let Some(hint) = hint {
            message.push_str("; ");
            message.push_str(&hint);
        }
        ExprError {
            message,
            source: source.to_string(),
            column,
        }
    }

    /// The 1-based column (in characters) of the offending text; one past the end for an
    /// error found at the end of the input.
    pub fn column(&self) -> usize {
        self.column
    }

    /// The first line of the report: what is wrong, the column, and a hint where one helps.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The expression that was being parsed.
    pub fn source_text(&self) -> &str {
        &self.source
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Newlines and other control characters would break the caret's alignment, so the
        // source is shown on one line; a tab is kept in the caret line so that it lines up.
        let shown: String = self
            .source
            .chars()
            .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
            .collect();
        let pad: String = shown
            .chars()
            .take(self.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        // The column may be one past the end of the text.
        let missing = self
            .column
            .saturating_sub(1)
            .saturating_sub(pad.chars().count());
        write!(
            f,
            "{}\n  {}\n  {}{}^",
            self.message,
            shown,
            pad,
            " ".repeat(missing)
        )
    }
}

impl std::error::Error for ExprError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_at_end_of_input() {
        let e = ExprError::new("1+", 3, "expected an operand", None);
        assert_eq!(
            e.to_string(),
            "expected an operand at column 3\n  1+\n    ^"
        );
    }

    #[test]
    fn tabs_and_newlines_keep_the_caret_aligned() {
        let e = ExprError::new("\tx\n+ #", 5, "unexpected character '#'", None);
        assert_eq!(
            e.to_string(),
            "unexpected character '#' at column 5\n  \tx + #\n  \t   ^"
        );
    }
}
