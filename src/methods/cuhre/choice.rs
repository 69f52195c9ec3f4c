//! Which cubature rule a CUHRE run uses, decided once per integrand as the 1-D automatic method
//! decides between its rules ([`crate::methods::auto`]): DCUHRE's degree-9 rule
//! ([`super::degree9`]) for an expression with no operation that can put a kink or a jump
//! inside ([`Tape::has_kinks`]), Genz and Malik's degree-7 rule ([`super::genz_malik`])
//! otherwise, or the one asked for ([`RuleChoice`]).
//!
//! Why by kinks: where the integrand is smooth the degree-9 rule's error falls two powers of
//! the region's width faster, and it pays for its 2.8 times as many points a region (1105
//! against 401 in eight dimensions) many times over: measured on the host (f64, two threads,
//! the rounds schedule) at equal tolerances, the corner peak in seven dimensions took 90 K
//! evaluations against 2.15 M, the Gaussian 397 K against 3.11 M, the oscillatory integrand
//! in six 1.4 K against 28 K. Across a kink or a jump no rule's degree helps, and the larger
//! rule only costs more: Genz's discontinuous family twice the evaluations, the C0 family
//! (exp(-Σ a |x - u|)) 4 to 10 times. Rust code ([`crate::integrand::RealFn`]) cannot be looked
//! into, so it takes the rule that is cheaper where it matters least.
//!
//! Singularities that an expression makes without such an operation (sqrt(x1 x2), x1^(-1/3),
//! log(x1² + x2²) at a corner, |x1 - 0.3| written as sqrt((x1 - 0.3)²)) get the degree-9
//! rule; its error estimate stays honest on them (the true error 0.02 to 0.24 of it at
//! tolerances 1e-4 and 1e-6, tests/cuhre.rs: `singular_integrands_are_honest_with_either_rule`,
//! with the degree-9 rule's safety factors 5 and 2), at 0.4 to 2.4 times the degree-7 rule's
//! evaluations.

use std::fmt;
use std::str::FromStr;

use crate::backend::PointSet;
use crate::error::{Error, Result};
#[cfg(doc)]
use crate::expr::Tape;
use crate::integrand::Integrand;

/// Which rule CUHRE uses: [`crate::methods::Options::cubature_rule`], `--cubature-rule` on the
/// command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RuleChoice {
    /// Degree 9 for an expression of two or more variables with no operation that can put a
    /// kink or a jump inside (abs, floor, min, max, ...: [`Tape::has_kinks`]); degree 7
    /// otherwise (such an expression, Rust code, one variable).
    #[default]
    Auto,
    /// Genz and Malik's degree-7 rule, 2^n + 2n² + 2n + 1 points a region.
    Degree7,
    /// DCUHRE's degree-9 rule, 2^n + 4n(n-1)(n-2)/3 + 6n(n-1) + 8n + 1 points a region (two
    /// or more variables).
    Degree9,
}

impl fmt::Display for RuleChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleChoice::Auto => "auto",
            RuleChoice::Degree7 => "7",
            RuleChoice::Degree9 => "9",
        })
    }
}

impl FromStr for RuleChoice {
    type Err = String;

    /// `7`, `9` or `auto` (case-insensitive), as on the command line.
    fn from_str(text: &str) -> std::result::Result<RuleChoice, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(RuleChoice::Auto),
            "7" => Ok(RuleChoice::Degree7),
            "9" => Ok(RuleChoice::Degree9),
            _ => Err(format!(
                "unknown cubature rule '{text}'; expected 7 (Genz-Malik, degree 7), 9 (DCUHRE, \
                 degree 9) or auto (9 unless the expression can have a kink or a jump)"
            )),
        }
    }
}

/// The rule a run uses and why, in words for [`crate::Estimate::reason`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleDecision {
    /// The rule's point set.
    pub set: PointSet,
    /// Why: the integrand's finding, or that it was asked for.
    pub reason: String,
}

/// The rule for `f` over a box of `dims` axes under `choice`; the degree-9 rule asked for in
/// one dimension is an error that says so.
///
/// ```
/// use hpquad::backend::PointSet;
/// use hpquad::expr::Expr;
/// use hpquad::methods::cuhre::{choose_rule, RuleChoice};
///
/// let smooth = Expr::parse("exp(-x1^2 - x2^2)", 2)?;
/// assert_eq!(choose_rule(&smooth, 2, RuleChoice::Auto)?.set, PointSet::Degree9);
/// let kinked = Expr::parse("exp(-abs(x1 - 0.3) - x2)", 2)?;
/// assert_eq!(choose_rule(&kinked, 2, RuleChoice::Auto)?.set, PointSet::Degree7);
/// assert_eq!(choose_rule(&kinked, 2, RuleChoice::Degree9)?.set, PointSet::Degree9);
/// # Ok::<(), hpquad::Error>(())
/// ```
pub fn choose_rule<F: Integrand>(f: &F, dims: usize, choice: RuleChoice) -> Result<RuleDecision> {
    let decision = |set: PointSet, why: &str| RuleDecision {
        set,
        reason: format!("the degree-{} rule: {why}", set.degree()),
    };
    Ok(match choice {
        RuleChoice::Degree7 => decision(PointSet::Degree7, "asked for"),
        RuleChoice::Degree9 if dims < 2 => {
            return Err(Error::InvalidOption {
                option: "cubature_rule",
                reason: "the degree-9 rule needs two or more variables; this integral has one \
                         (give 7 or auto)"
                    .to_string(),
            })
        }
        RuleChoice::Degree9 => decision(PointSet::Degree9, "asked for"),
        RuleChoice::Auto if dims < 2 => decision(
            PointSet::Degree7,
            "one variable (the degree-9 rule needs two or more)",
        ),
        RuleChoice::Auto => match f.tape() {
            None => decision(
                PointSet::Degree7,
                "the integrand is Rust code, whose operations cannot be checked for a kink or \
                 a jump",
            ),
            Some(tape) if tape.has_kinks() => decision(
                PointSet::Degree7,
                "the expression has an operation that can put a kink or a jump inside (abs, \
                 floor, min, max, ...), where a higher degree gains nothing",
            ),
            Some(_) => decision(
                PointSet::Degree9,
                "the expression has no operation that can put a kink or a jump inside",
            ),
        },
    })
}
