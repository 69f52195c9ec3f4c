//! Splits an expression into tokens, each with the 1-based column where it starts.

use super::error::ExprError;

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// A decimal literal, kept as canonical text (`.5` becomes `0.5`) so that every precision
    /// parses the same exact decimal.
    Number(Number),
    /// A name: a variable, constant or function.
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    /// `^` or `**`.
    Caret,
    LParen,
    RParen,
    Comma,
    End,
}

/// A decimal literal: its canonical text and, when it is an integer that fits an `i32`, its
/// value (an integer exponent becomes exact repeated multiplication).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Number {
    pub text: String,
    pub integer: Option<i32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub column: usize,
}

impl TokenKind {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Number(n) => format!("number '{}'", n.text),
            TokenKind::Ident(name) => format!("'{name}'"),
            TokenKind::Plus => "'+'".into(),
            TokenKind::Minus => "'-'".into(),
            TokenKind::Star => "'*'".into(),
            TokenKind::Slash => "'/'".into(),
            TokenKind::Caret => "'^'".into(),
            TokenKind::LParen => "'('".into(),
            TokenKind::RParen => "')'".into(),
            TokenKind::Comma => "','".into(),
            TokenKind::End => "the end of the expression".into(),
        }
    }
}

/// Tokenises `source`; the last token is always [`TokenKind::End`].
pub(crate) fn tokenize(source: &str) -> Result<Vec<Token>, ExprError> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let (kind, len) = match c {
            '+' => (TokenKind::Plus, 1),
            '-' => (TokenKind::Minus, 1),
            '*' if chars.get(i + 1) == Some(&'*') => (TokenKind::Caret, 2),
            '*' => (TokenKind::Star, 1),
            '/' => (TokenKind::Slash, 1),
            '^' => (TokenKind::Caret, 1),
            '(' => (TokenKind::LParen, 1),
            ')' => (TokenKind::RParen, 1),
            ',' => (TokenKind::Comma, 1),
            c if c.is_ascii_digit() || c == '.' => lex_number(source, &chars, i)?,
            c if c.is_ascii_alphabetic() || c == '_' => {
                let len = chars[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                    .count();
                (TokenKind::Ident(chars[i..i + len].iter().collect()), len)
            }
            other => {
                let hint = match other {
                    'π' => Some("write pi".to_string()),
                    '×' | '·' => Some("write '*' for multiplication".to_string()),
                    '÷' => Some("write '/' for division".to_string()),
                    '−' => Some("write '-' for minus".to_string()),
                    '[' | '{' => Some("use '(' for grouping".to_string()),
                    ']' | '}' => Some("use ')' for grouping".to_string()),
                    _ => None,
                };
                return Err(ExprError::new(
                    source,
                    column,
                    &format!("unexpected character '{}'", other.escape_debug()),
                    hint,
                ));
            }
        };
        tokens.push(Token { kind, column });
        i += len;
    }
    tokens.push(Token {
        kind: TokenKind::End,
        column: chars.len() + 1,
    });
    Ok(tokens)
}

/// Reads `digits [. digits] [(e|E) [+|-] digits]` starting at `start`. An `e` not followed by
/// an exponent is left for the next token (and the parser then reports a missing operator).
fn lex_number(source: &str, chars: &[char], start: usize) -> Result<(TokenKind, usize), ExprError> {
    let digits_from = |i: usize| chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = start;
    let int_len = digits_from(i);
    let int_part: String = chars[i..i + int_len].iter().collect();
    i += int_len;
    let mut frac_part = String::new();
    if chars.get(i) == Some(&'.') {
        let frac_len = digits_from(i + 1);
        frac_part = chars[i + 1..i + 1 + frac_len].iter().collect();
        i += 1 + frac_len;
    }
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(ExprError::new(
            source,
            start + 1,
            "a lone '.' is not a number",
            Some("write digits before or after it, as in 0.5".into()),
        ));
    }
    let mut exponent = String::new();
    if matches!(chars.get(i), Some('e' | 'E')) {
        let sign_len = usize::from(matches!(chars.get(i + 1), Some('+' | '-')));
        let exp_len = digits_from(i + 1 + sign_len);
        if exp_len > 0 {
            if sign_len == 1 && chars[i + 1] == '-' {
                exponent.push('-');
            }
            exponent.extend(&chars[i + 1 + sign_len..i + 1 + sign_len + exp_len]);
            i += 1 + sign_len + exp_len;
        }
    }
    let integer = integer_value(&int_part, &frac_part, &exponent);
    let mut text = if int_part.is_empty() {
        "0".to_string()
    } else {
        int_part
    };
    if !frac_part.is_empty() {
        text.push('.');
        text.push_str(&frac_part);
    }
    if !exponent.is_empty() {
        text.push('e');
        text.push_str(&exponent);
    }
    Ok((TokenKind::Number(Number { text, integer }), i - start))
}

/// The literal's value when it is an integer that fits an `i32`, found from its digits alone
/// (no rounding can make `2.5e0` look like an integer).
fn integer_value(int_part: &str, frac_part: &str, exponent: &str) -> Option<i32> {
    let digits: String = format!("{int_part}{frac_part}");
    let significant = digits.trim_start_matches('0');
    if significant.is_empty() {
        return Some(0);
    }
    let trimmed = significant.trim_end_matches('0');
    // The value is trimmed * 10^scale; exponents too long to parse are far out of i32's range.
    let exp: i64 = if exponent.is_empty() {
        0
    } else {
        exponent.parse().ok()?
    };
    let scale = exp
        .checked_sub(frac_part.len() as i64)?
        .checked_add((significant.len() - trimmed.len()) as i64)?;
    if scale < 0 || trimmed.len() as i64 + scale > 10 {
        return None;
    }
    let mut value: i64 = trimmed.parse().ok()?;
    for _ in 0..scale {
        value = value.checked_mul(10)?;
    }
    i32::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> Number {
        match tokenize(text).unwrap().remove(0).kind {
            TokenKind::Number(n) => n,
            other => panic!("not a number: {other:?}"),
        }
    }

    #[test]
    fn numbers_are_canonical_and_integers_recognised() {
        assert_eq!(number(".5").text, "0.5");
        assert_eq!(number("5.").text, "5");
        assert_eq!(number("1.25E+3").text, "1.25e3");
        assert_eq!(number("1.25e3").integer, Some(1250));
        assert_eq!(number("2.50e1").integer, Some(25));
        assert_eq!(number("2.5").integer, None);
        assert_eq!(number("0.0").integer, Some(0));
        assert_eq!(number("300e-2").integer, Some(3));
        assert_eq!(number("3e10").integer, None);
        assert_eq!(number("2147483647").integer, Some(i32::MAX));
        assert_eq!(number("1e99999999999999999999").integer, None);
    }

    #[test]
    fn e_without_digits_is_the_next_token() {
        let kinds: Vec<TokenKind> = tokenize("2e")
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect();
        assert_eq!(kinds[1], TokenKind::Ident("e".into()));
    }

    #[test]
    fn columns_count_characters() {
        let t = tokenize("é").unwrap_err();
        assert_eq!(t.column(), 1);
        let toks = tokenize("  x ** 2").unwrap();
        assert_eq!(toks[1].kind, TokenKind::Caret);
        assert_eq!(toks[1].column, 5);
        assert_eq!(toks[3].column, 9);
    }
}
