//! hpquad's one error type: every failure says what went wrong, where, and what would be right.

use crate::expr::ExprError;

/// Everything that can go wrong between a problem statement and its [`Estimate`](crate::Estimate).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The integrand expression does not parse; the message points at the column.
    #[error("in the integrand: {0}")]
    Expression(#[from] ExprError),

    /// The integrand returned NaN or an infinity; `x` and `value` are decimals in the working
    /// precision.
    #[error(
        "the integrand is {value} at x = {x}; the methods need a finite value at every sample \
         point (tanh-sinh, the automatic method's choice for endpoint singularities, never \
         samples the endpoints themselves)"
    )]
    NonFinite {
        /// The point, printed in the working precision.
        x: String,
        /// The value there (NaN or ±inf).
        value: String,
    },

    /// The estimate overflowed the precision's range although every integrand value was
    /// finite: the integral diverges (x² over [8, ∞)) or its value is beyond about 1.8e308.
    #[error(
        "the estimate of the integral is {value} after {evaluations} evaluations of finite \
         integrand values: the integral diverges or exceeds the largest number of the \
         precision (about 1.8e308)"
    )]
    Overflow {
        /// The estimate reached (±inf or NaN), as printed.
        value: String,
        /// The evaluations spent.
        evaluations: u64,
    },

    /// An interval wider than the largest number (b − a overflows) is integrated as its two
    /// halves, and the integral over one of them overflowed the precision's range, although
    /// every integrand value was finite. Their sum, the integral, may still be finite (an odd
    /// integrand's over [−1.7e308, 1.7e308] is 0) but cannot be formed from them.
    #[error(
        "the integrals over the halves of the interval below and above {middle} are \
         {lower_half} and {upper_half} after {evaluations} evaluations of finite \
         integrand values: the interval is wider than the largest number of the precision \
         (about 1.8e308), so it is integrated in these halves, and a half beyond that range \
         leaves the integral unknown, finite or not (an odd integrand's is 0); scale the \
         integrand down or narrow the interval"
    )]
    OverflowInHalves {
        /// The point between the halves, a/2 + b/2, as printed.
        middle: String,
        /// The estimate over [lower, middle] (±inf or NaN where it overflowed), as printed.
        lower_half: String,
        /// The estimate over [middle, upper], as printed.
        upper_half: String,
        /// The evaluations spent on both halves.
        evaluations: u64,
    },

    /// A bound is ±infinity, which the uniform-grid methods cannot sample.
    #[error(
        "the {which} bound is {value}, but {method} needs a finite interval; \
         tanh-sinh, Gauss-Kronrod, Gauss-Legendre and auto integrate over infinite ones"
    )]
    InfiniteBound {
        /// "lower" or "upper".
        which: &'static str,
        /// The bound as given.
        value: String,
        /// The method that refused it.
        method: &'static str,
    },

    /// A bound given as text did not parse, or is NaN.
    #[error("the {which} bound {text:?} is not a number: {reason}")]
    InvalidBound {
        /// "lower" or "upper".
        which: &'static str,
        /// The text as given.
        text: String,
        /// Why it was refused.
        reason: String,
    },

    /// An option is out of range or missing.
    #[error("invalid option {option}: {reason}")]
    InvalidOption {
        /// The builder method or parameter, e.g. `tolerance`.
        option: &'static str,
        /// What was given and what would be right.
        reason: String,
    },

    /// The CPU backend's thread pool could not be started.
    #[error("could not start a CPU thread pool of {threads} threads: {reason}")]
    ThreadPool {
        /// The number of threads asked for.
        threads: usize,
        /// The operating system's reason.
        reason: String,
    },

    /// The GPU could not be used or failed: no driver or device, a kernel NVRTC refused, an
    /// integrand only the CPU can run.
    #[error("GPU: {0}")]
    Gpu(String),
}

impl From<crate::gpu::GpuError> for Error {
    fn from(e: crate::gpu::GpuError) -> Error {
        Error::Gpu(e.to_string())
    }
}

/// `Result` with hpquad's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
