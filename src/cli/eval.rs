//! `hpquad eval EXPR`: a constant expression evaluated in the chosen precision.

use hpquad::expr::Expr;
use hpquad::precision::{Dd, Qd, Real};
use hpquad::Precision;

use super::format::significant;
use super::CliError;

/// Options of `hpquad eval`.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// A constant expression, e.g. "exp(1)", "pi", "sqrt(2)/2", "atan(1)*4".
    pub expression: String,
    /// Working precision: f64 (~16 digits), dd (~31) or qd (~62).
    #[arg(long, short, default_value = "qd")]
    pub precision: Precision,
    /// Significant digits to print [default: all the precision carries: 15, 31 or 62].
    #[arg(long, short)]
    pub digits: Option<usize>,
}

pub fn run(args: &EvalArgs) -> Result<(), CliError> {
    let expr = Expr::parse(&args.expression, 0).map_err(CliError::input)?;
    let text = match args.precision {
        Precision::F64 => evaluate::<f64>(&expr, args.digits)?,
        Precision::Dd => evaluate::<Dd>(&expr, args.digits)?,
        Precision::Qd => evaluate::<Qd>(&expr, args.digits)?,
    };
    say!("{text}");
    Ok(())
}

fn evaluate<T: Real>(expr: &Expr, digits: Option<usize>) -> Result<String, CliError> {
    let value: T = expr.eval_constant();
    if value.is_nan() {
        return Err(CliError::computation(format!(
            "'{}' is not a real number in {} (the result is NaN)",
            expr.source(),
            T::NAME
        )));
    }
    let digits = digits.unwrap_or(T::DIGITS as usize);
    if digits > T::DIGITS as usize + 3 {
        eprintln!(
            "note: {} carries about {} significant digits; the digits after those show the \
             exact binary value, not more of the true one",
            T::NAME,
            T::DIGITS
        );
    }
    Ok(significant(value, digits))
}
