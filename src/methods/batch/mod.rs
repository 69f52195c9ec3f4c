//! Many integrals at once: one integral per task, each by a method written as a plain loop
//! with a fixed small stack (no recursion, no allocation per step), so that the same code
//! maps to one GPU thread per integral.
//!
//! - [`faq`]: the heuristic forward quadrature of Thuerck et al. (Algorithm 3, the ∂²
//!   heuristic), in 1-D and over rectangles by Fubini; its error is the paper's a-priori
//!   bound (Theorem 1), as the heuristic gives none a posteriori.
//! - [`simpson`]: adaptive Simpson as MATLAB's `quad`, the paper's comparator.
//! - [`kronrod`]: QUADPACK's QAG with a fixed array of pieces, the method to ask when a batch
//!   must meet a tolerance: its per-integral error estimate is the one
//!   [`crate::methods::gauss_kronrod`] uses.
//! - [`fubini`]: any of them over a rectangle, an inner integral in y per point of the outer
//!   one in x.
//!
//! Each method is generic over `T: Real` and takes the integrand as a closure of the
//! coordinates; the caller ([`crate::Batch`]) binds the parameters of the integral into it.
//! A value that is not finite ends that integral with the point ([`NonFiniteAt`]); the batch
//! goes on.
//!
//! Why a closure over one point and not [`crate::backend::Backend::evaluate`] over a round of
//! all integrals' points: FAQ's next point depends on the last value and Simpson's and QAG's
//! on the last estimate, so a round holds one point (FAQ, Simpson: one or two) per integral.
//! Evaluating one point through the tape directly (`point`) costs a fraction of what
//! `Integrand::eval_batch`'s per-call set-up does: `exp(-p*x^2)` in f64 takes 456 ns a point
//! through `eval_batch` one point at a time (24 ns a point over a million), while a whole FAQ
//! integral of 9 points takes 1.4 µs through `point` (release build, this 2-core machine).
//! Rounds of all integrals' points in lockstep would reach `eval_batch`'s per-point speed
//! and serve the GPU's point-list kernel, at the price of writing each method as a
//! resumable state machine; tasks of whole integrals need no synchronisation between rounds.

pub mod faq;
pub mod fubini;
pub mod kronrod;
pub(crate) mod point;
pub mod simpson;

use std::fmt;
use std::str::FromStr;

use precision::Real;

/// The methods of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BatchMethod {
    /// Heuristic forward quadrature (Thuerck et al., Algorithm 3): no tolerance, a
    /// fixed-shape walk; its error is Theorem 1's bound.
    Faq,
    /// Adaptive Simpson, MATLAB's `quad` scheme.
    AdaptiveSimpson,
    /// Adaptive Gauss–Kronrod (QAG) with QUADPACK's error estimate per integral.
    #[default]
    GaussKronrod,
}

impl BatchMethod {
    /// Every batch method, in the order the command line lists them.
    pub const ALL: [BatchMethod; 3] = [
        BatchMethod::Faq,
        BatchMethod::AdaptiveSimpson,
        BatchMethod::GaussKronrod,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            BatchMethod::Faq => "faq",
            BatchMethod::AdaptiveSimpson => "simpson",
            BatchMethod::GaussKronrod => "gauss-kronrod",
        }
    }
}

impl fmt::Display for BatchMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BatchMethod {
    type Err = String;

    fn from_str(s: &str) -> Result<BatchMethod, String> {
        BatchMethod::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown batch method '{s}'; use faq, simpson or gauss-kronrod"))
    }
}

/// The tolerance in force: an integral of size |I| meets it with an error of at most
/// max(absolute, relative · |I|).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative to the integral.
    pub relative: f64,
    /// Absolute.
    pub absolute: f64,
}

impl Tolerance {
    /// The largest error allowed for an integral of size `magnitude`.
    pub fn target(&self, magnitude: f64) -> f64 {
        self.absolute.max(self.relative * magnitude.abs())
    }

    /// Whether `error` meets the tolerance for an integral of size `magnitude`.
    pub fn is_met(&self, error: f64, magnitude: f64) -> bool {
        error <= self.target(magnitude)
    }
}

/// One integral's result in `T`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Integrated<T> {
    /// The estimate.
    pub value: T,
    /// The estimated absolute error (FAQ: Theorem 1's bound).
    pub error: f64,
    /// Integrand evaluations.
    pub evaluations: u64,
    /// Whether the method's own stopping test passed (FAQ has none: true; the caller judges
    /// its bound against the tolerance).
    pub converged: bool,
}

/// Where an integrand was not finite: x (and y in 2-D), and the value there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NonFiniteAt<T> {
    /// The first coordinate.
    pub x: T,
    /// The second coordinate of a 2-D integrand.
    pub y: Option<T>,
    /// NaN or ±inf.
    pub value: T,
}

impl<T: Real> NonFiniteAt<T> {
    /// A point of a 1-D integrand.
    pub fn at(x: T, value: T) -> NonFiniteAt<T> {
        NonFiniteAt { x, y: None, value }
    }
}

/// The error rounding alone leaves in a value of size `magnitude` (see
/// [`crate::methods::rounding_floor`]'s reasoning: two units of ε).
fn rounding<T: Real>(magnitude: T) -> f64 {
    super::rounding_floor(magnitude)
}
