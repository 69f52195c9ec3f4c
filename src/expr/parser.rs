//! Recursive-descent parser that emits tape instructions as it reads, so that no syntax tree
//! (and no recursion over one) exists: a chain of a million `+` costs a loop, not a stack.
//!
//! Grammar, loosest binding first:
//!
//! ```text
//! sum     = product { ("+" | "-") product }
//! product = unary { ("*" | "/") unary }
//! unary   = ("-" | "+") unary | power
//! power   = primary [ "^" unary ]          (right-associative: 2^3^2 = 2^9)
//! primary = number | name | name "(" [ sum { "," sum } ] ")" | "(" sum ")"
//! ```
//!
//! So `-2^2 = -(2^2) = -4` (the mathematical convention), and an exponent may carry its own
//! sign: `2^-3`.

use super::error::ExprError;
use super::lexer::{Token, TokenKind};
use super::names::{self, Function};
use super::tape::{Constant, Func, Func2, Op, Slot, Tape, TapeBuilder};

/// How deeply parentheses, signs and exponents may nest; far beyond any real integrand, and
/// low enough that the recursion stays well within a thread's stack.
const MAX_DEPTH: usize = 100;

/// A parsed operand: its slot, plus what the parser must know of its form.
#[derive(Clone, Copy)]
struct Value {
    slot: Slot,
    /// The value, when the operand is an integer literal (possibly signed or parenthesised)
    /// that fits an `i32`: as an exponent it becomes [`Op::PowI`].
    integer: Option<i32>,
    /// Whether the operand is the bare constant `e`: `e^y` becomes `exp(y)`.
    is_e: bool,
}

impl Value {
    fn plain(slot: Slot) -> Value {
        Value {
            slot,
            integer: None,
            is_e: false,
        }
    }
}

/// Parses the tokens of `source` into a tape over `dims` coordinates followed by the named
/// `parameters` (parameter k is `Op::Var(dims + k)`); the names were checked by the caller.
pub(crate) fn parse(
    source: &str,
    tokens: &[Token],
    dims: usize,
    parameters: &[String],
) -> Result<Tape, ExprError> {
    let mut parser = Parser {
        source,
        tokens,
        pos: 0,
        depth: 0,
        dims,
        parameters,
        tape: TapeBuilder::default(),
    };
    if parser.peek().kind == TokenKind::End {
        return Err(parser.error_at(1, "empty expression", Some("write a function such as x^2")));
    }
    let value = parser.sum()?;
    let next = parser.peek();
    if next.kind != TokenKind::End {
        return Err(parser.unexpected_after_operand(next));
    }
    Ok(parser.tape.finish(value.slot, dims + parameters.len()))
}

struct Parser<'a> {
    source: &'a str,
    tokens: &'a [Token],
    pos: usize,
    depth: usize,
    dims: usize,
    /// Named parameters, read after the coordinates.
    parameters: &'a [String],
    tape: TapeBuilder,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &'a Token {
        // The token list always ends with `End`, which is never consumed.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn advance(&mut self) -> &'a Token {
        let t = self.peek();
        if t.kind != TokenKind::End {
            self.pos += 1;
        }
        t
    }

    fn error_at(&self, column: usize, what: &str, hint: Option<&str>) -> ExprError {
        ExprError::new(self.source, column, what, hint.map(str::to_string))
    }

    fn sum(&mut self) -> Result<Value, ExprError> {
        let mut acc = self.product()?;
        loop {
            let op: fn(Slot, Slot) -> Op = match self.peek().kind {
                TokenKind::Plus => Op::Add,
                TokenKind::Minus => Op::Sub,
                _ => return Ok(acc),
            };
            self.advance();
            let rhs = self.product()?;
            acc = Value::plain(self.tape.push(op(acc.slot, rhs.slot)));
        }
    }

    fn product(&mut self) -> Result<Value, ExprError> {
        let mut acc = self.unary()?;
        loop {
            let op: fn(Slot, Slot) -> Op = match self.peek().kind {
                TokenKind::Star => Op::Mul,
                TokenKind::Slash => Op::Div,
                _ => return Ok(acc),
            };
            self.advance();
            let rhs = self.unary()?;
            acc = Value::plain(self.tape.push(op(acc.slot, rhs.slot)));
        }
    }

    /// Every recursion of the grammar passes through here, so the depth is counted here.
    fn unary(&mut self) -> Result<Value, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let column = self.peek().column;
            return Err(self.error_at(
                column,
                &format!("expression nested more than {MAX_DEPTH} levels deep"),
                None,
            ));
        }
        let result = match self.peek().kind {
            TokenKind::Minus => {
                self.advance();
                let v = self.unary()?;
                Ok(Value {
                    slot: self.tape.push(Op::Neg(v.slot)),
                    integer: v.integer.and_then(i32::checked_neg),
                    is_e: false,
                })
            }
            TokenKind::Plus => {
                self.advance();
                self.unary()
            }
            _ => self.power(),
        };
        self.depth -= 1;
        result
    }

    fn power(&mut self) -> Result<Value, ExprError> {
        let base = self.primary()?;
        if self.peek().kind != TokenKind::Caret {
            return Ok(base);
        }
        self.advance();
        let exponent = self.unary()?;
        Ok(Value::plain(self.pow(base, exponent)))
    }

    /// `base^exponent`: exact repeated multiplication for an integer literal exponent, `exp`
    /// for the base `e`, `powf` otherwise.
    fn pow(&mut self, base: Value, exponent: Value) -> Slot {
        if let Some(n) = exponent.integer {
            return self.tape.push(Op::PowI(base.slot, n));
        }
        if base.is_e {
            return self.tape.push(Op::Unary(Func::Exp, exponent.slot));
        }
        self.tape
            .push(Op::Binary(Func2::Pow, base.slot, exponent.slot))
    }

    fn primary(&mut self) -> Result<Value, ExprError> {
        let token = self.advance();
        match &token.kind {
            TokenKind::Number(n) => Ok(Value {
                slot: self.tape.constant(Constant::Decimal(n.text.clone())),
                integer: n.integer,
                is_e: false,
            }),
            TokenKind::Ident(name) if self.peek().kind == TokenKind::LParen => {
                self.call(name, token.column)
            }
            TokenKind::Ident(name) => self.name(name, token.column),
            TokenKind::LParen => {
                if self.peek().kind == TokenKind::RParen {
                    return Err(self.error_at(
                        token.column,
                        "empty parentheses",
                        Some("write an expression between '(' and ')'"),
                    ));
                }
                let inner = self.sum()?;
                self.close(token.column, "'('")?;
                Ok(inner)
            }
            _ => Err(self.missing_operand(token)),
        }
    }

    /// Consumes the `)` matching the `(` at `open_column`.
    fn close(&mut self, open_column: usize, opened_by: &str) -> Result<(), ExprError> {
        let next = self.peek();
        match next.kind {
            TokenKind::RParen => {
                self.advance();
                Ok(())
            }
            TokenKind::End => Err(self.error_at(
                open_column,
                &format!("unclosed {opened_by}"),
                Some("add ')' to close it"),
            )),
            _ => Err(self.unexpected_after_operand(next)),
        }
    }

    /// The index of the parameter called `name`.
    fn parameter(&self, name: &str) -> Option<usize> {
        self.parameters.iter().position(|p| p == name)
    }

    /// A name used as a value: a constant, a variable or a parameter.
    fn name(&mut self, name: &str, column: usize) -> Result<Value, ExprError> {
        if let Some(k) = self.parameter(name) {
            return Ok(Value::plain(self.tape.push(Op::Var(self.dims + k))));
        }
        if let Some(c) = names::constant(name) {
            let is_e = c == Constant::E;
            return Ok(Value {
                slot: self.tape.constant(c),
                integer: None,
                is_e,
            });
        }
        match names::variable(name, self.dims) {
            Ok(Some(d)) => return Ok(Value::plain(self.tape.push(Op::Var(d)))),
            Ok(None) => {}
            Err(e) => return Err(self.error_at(column, &e.what, Some(&e.hint))),
        }
        if names::function(name).is_some() {
            return Err(self.error_at(
                column,
                &format!("function '{name}' needs its arguments in parentheses"),
                Some(&format!("write {name}(...)")),
            ));
        }
        Err(self.error_at(
            column,
            &format!("unknown name '{name}'"),
            Some(&names::unknown_name_hint(name, self.dims, self.parameters)),
        ))
    }

    /// A function call; the next token is its `(`.
    fn call(&mut self, name: &str, column: usize) -> Result<Value, ExprError> {
        let Some(function) = names::function(name) else {
            let is_value = names::constant(name).is_some()
                || self.parameter(name).is_some()
                || matches!(names::variable(name, self.dims), Ok(Some(_)));
            return Err(if is_value {
                self.error_at(
                    column,
                    &format!("'{name}' is not a function"),
                    Some(&format!("write {name}*(...) to multiply")),
                )
            } else {
                self.error_at(
                    column,
                    &format!("unknown function '{name}'"),
                    Some(&names::unknown_function_hint(name)),
                )
            });
        };
        let open = self.advance().column;
        let mut args = Vec::new();
        if self.peek().kind == TokenKind::RParen {
            self.advance();
        } else {
            loop {
                args.push(self.sum()?);
                if self.peek().kind == TokenKind::Comma {
                    self.advance();
                    continue;
                }
                self.close(open, &format!("'(' of '{name}'"))?;
                break;
            }
        }
        if args.len() != function.arity() {
            let plural = if function.arity() == 1 { "" } else { "s" };
            return Err(self.error_at(
                column,
                &format!(
                    "function '{name}' takes {} argument{plural} but was given {}",
                    function.arity(),
                    args.len()
                ),
                Some(&function.usage(name)),
            ));
        }
        let slot = match function {
            Function::Unary(f) => self.tape.push(Op::Unary(f, args[0].slot)),
            Function::Binary(Func2::Pow) => self.pow(args[0], args[1]),
            Function::Binary(f) => self.tape.push(Op::Binary(f, args[0].slot, args[1].slot)),
        };
        Ok(Value::plain(slot))
    }

    /// The error for a token where an operand (number, name, `(`) should be.
    fn missing_operand(&self, token: &Token) -> ExprError {
        let (what, hint) = match token.kind {
            TokenKind::RParen => ("unmatched ')'".to_string(), None),
            TokenKind::End => (
                "expected an operand, found the end of the expression".to_string(),
                None,
            ),
            TokenKind::Comma => (
                "unexpected ','".to_string(),
                Some("commas separate the arguments of a function such as atan2(y, x)"),
            ),
            _ => (
                format!("expected an operand, found {}", token.kind.describe()),
                Some("an operand is a number, a variable, a constant, a function call or '('"),
            ),
        };
        self.error_at(token.column, &what, hint)
    }

    /// The error for a token that follows a complete operand but is no operator.
    fn unexpected_after_operand(&self, token: &Token) -> ExprError {
        match token.kind {
            TokenKind::Number(_) | TokenKind::Ident(_) | TokenKind::LParen => self.error_at(
                token.column,
                &format!("expected an operator before {}", token.kind.describe()),
                Some("missing '*'?"),
            ),
            TokenKind::RParen => self.error_at(token.column, "unmatched ')'", None),
            TokenKind::Comma => self.error_at(
                token.column,
                "unexpected ','",
                Some("commas separate the arguments of a function such as atan2(y, x)"),
            ),
            _ => self.error_at(
                token.column,
                &format!("unexpected {}", token.kind.describe()),
                None,
            ),
        }
    }
}
