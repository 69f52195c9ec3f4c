//! The integrand language: a formula such as `exp(2*x)*sin(3*x)` parsed into a flat [`Tape`]
//! that evaluates in f64, dd or qd over batches of points.
//!
//! # The language
//!
//! - Numbers: `2`, `0.1`, `.5`, `1.5e-3`. A literal is its **exact decimal value in the
//!   working precision**: `0.1` in qd is 0.1 to 62 digits, not the nearest double.
//! - Operators, loosest first: `+ -`, then `* /`, then unary `-` and `+`, then `^` (also
//!   written `**`), which is right-associative and binds tighter than unary minus:
//!   `2^3^2 = 2^9 = 512` and `-2^2 = -(2^2) = -4`; an exponent may carry a sign, `x^-2`.
//!   An integer exponent (`x^3`, `x^-2`, `pow(x, 4)`) is exact repeated multiplication, a
//!   negative one the reciprocal of the positive power; `e^y` is `exp(y)`; any other power is
//!   `powf`.
//! - Variables: `x1 .. xn` for an n-dimensional domain; for up to three dimensions also `x`,
//!   `y`, `z` (= `x1`, `x2`, `x3`).
//! - Parameters: names declared with [`Expr::parse_with_parameters`] (`p`, `sigma`), read
//!   after the coordinates: a batch of integrals gives each its own values.
//! - Constants: `pi`, `e`.
//! - Functions of one argument, with their aliases: `sqrt`, `cbrt`, `exp`, `expm1` (`exp_m1`),
//!   `ln` (`log`, natural), `log1p` (`ln1p`, `ln_1p`), `log2`, `log10`, `sin`, `cos`, `tan`,
//!   `asin` (`arcsin`), `acos` (`arccos`), `atan` (`arctan`), `sinh`, `cosh`, `tanh`, `asinh`
//!   (`arsinh`, `arcsinh`), `acosh` (`arcosh`, `arccosh`), `atanh` (`artanh`, `arctanh`),
//!   `floor`, `ceil`, `round`, `trunc`, `abs` (`fabs`). Of two: `atan2(y, x)` (`arctan2`),
//!   `hypot`, `min`, `max`, `pow` (`powf`). Each means what `f64`'s method of that name means.
//!
//! Errors say what is wrong and where, with a caret under the column ([`ExprError`]).
//!
//! ```
//! use hpquad::expr::Expr;
//! use hpquad::integrand::Integrand;
//!
//! let f = Expr::parse("exp(2*x)*sin(3*x)", 1)?;
//! let xs = [0.0, 0.5, 1.0];
//! let mut out = [0.0f64; 3];
//! f.eval_batch(&[&xs], &mut out);
//! assert_eq!(out[2], 2f64.exp() * 3f64.sin());
//! # Ok::<(), hpquad::expr::ExprError>(())
//! ```

pub mod cuda;
mod error;
mod eval;
mod lexer;
mod names;
mod parser;
mod tape;

pub use error::ExprError;
pub(crate) use eval::{lanes_enabled, zeros};
pub use tape::{pow_int, Constant, Func, Func2, Op, Slot, Tape};

use precision::Real;

/// A parsed and compiled expression of `dims` variables, ready to evaluate in any [`Real`].
#[derive(Clone, Debug)]
pub struct Expr {
    source: String,
    /// The coordinates of the domain.
    dims: usize,
    /// Named parameters, variables `dims..dims + parameters.len()` of the tape.
    parameters: Vec<String>,
    tape: Tape,
    plan: eval::Plan,
}

impl Expr {
    /// Parses `source` as a function of `dims` variables (0 for a constant expression).
    ///
    /// ```
    /// use hpquad::expr::Expr;
    ///
    /// let err = Expr::parse("x + y", 1).unwrap_err();
    /// assert_eq!(err.column(), 5);
    /// assert!(err.message().starts_with("variable 'y' needs a 2-dimensional domain"));
    /// ```
    pub fn parse(source: &str, dims: usize) -> Result<Expr, ExprError> {
        Expr::parse_with_parameters(source, dims, &[])
    }

    /// Parses `source` as a function of `dims` coordinates and the named `parameters`, which
    /// become variables `dims, dims + 1, ...` of the tape: the expression is evaluated at
    /// points `(x1, ..., x_dims, p1, p2, ...)`, one column per variable, and the integrand's
    /// `dims()` counts both. A parameter name must be a plain name that the
    /// language does not already use (not `x`, `y`, `z`, `x1`, ..., `pi`, `e` or a function).
    ///
    /// ```
    /// use hpquad::expr::Expr;
    /// use hpquad::integrand::Integrand;
    ///
    /// let f = Expr::parse_with_parameters("exp(-p*x^2)", 1, &["p"])?;
    /// assert_eq!((f.coordinates(), f.dims()), (1, 2));
    /// let mut out = [0.0f64];
    /// f.eval_batch(&[&[1.0], &[2.0]], &mut out);
    /// assert_eq!(out[0], (-2f64).exp());
    /// assert!(Expr::parse_with_parameters("x", 1, &["pi"]).is_err());
    /// # Ok::<(), hpquad::expr::ExprError>(())
    /// ```
    pub fn parse_with_parameters(
        source: &str,
        dims: usize,
        parameters: &[&str],
    ) -> Result<Expr, ExprError> {
        let parameters: Vec<String> = parameters.iter().map(|p| p.to_string()).collect();
        for (k, name) in parameters.iter().enumerate() {
            let problem = names::parameter_name_problem(name).or_else(|| {
                parameters[..k]
                    .contains(name)
                    .then(|| format!("parameter '{name}' is declared twice"))
            });
            if let Some(problem) = problem {
                return Err(ExprError::new(
                    source,
                    1,
                    &problem,
                    Some("choose another parameter name, such as p, a or sigma".to_string()),
                ));
            }
        }
        let tokens = lexer::tokenize(source)?;
        let tape = parser::parse(source, &tokens, dims, &parameters)?;
        let plan = eval::Plan::new(&tape);
        Ok(Expr {
            source: source.to_string(),
            dims,
            parameters,
            tape,
            plan,
        })
    }

    /// The coordinates of the domain (without the parameters).
    pub fn coordinates(&self) -> usize {
        self.dims
    }

    /// The named parameters, in the order of their columns (after the coordinates).
    pub fn parameters(&self) -> &[String] {
        &self.parameters
    }

    /// The text the expression was parsed from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The flat program, for the CUDA code generator and for inspection.
    pub fn tape(&self) -> &Tape {
        &self.tape
    }

    /// Evaluates an expression that uses no variables in `T`, with its literals exact in `T`
    /// (bounds such as `pi/2`). NaN and infinities are returned as values for the caller to
    /// judge; an expression that does use a variable gives NaN.
    ///
    /// ```
    /// use hpquad::expr::Expr;
    ///
    /// let half_pi = Expr::parse("pi/2", 0)?;
    /// assert_eq!(half_pi.eval_constant::<f64>(), std::f64::consts::FRAC_PI_2);
    /// # Ok::<(), hpquad::expr::ExprError>(())
    /// ```
    pub fn eval_constant<T: Real>(&self) -> T {
        let result = self.tape.result();
        if !self.tape.is_constant(result) {
            return T::from_f64(f64::NAN);
        }
        self.plan
            .constants::<T>(&self.tape)
            .get(result.index())
            .copied()
            .unwrap_or_else(|| T::from_f64(f64::NAN))
    }

    /// The variables of the tape: the coordinates, then the parameters (the integrand's
    /// `dims()`, `crate::integrand`).
    pub(crate) fn variables(&self) -> usize {
        self.dims + self.parameters.len()
    }

    /// Writes the expression's value at each point (one column of `points` per variable) to
    /// `out`, op by op over the batch (the integrand's `eval_batch`, `crate::integrand`).
    pub(crate) fn eval_points<T: Real>(&self, points: &[&[T]], out: &mut [T]) {
        self.plan.eval_batch(&self.tape, points, out);
    }
}
