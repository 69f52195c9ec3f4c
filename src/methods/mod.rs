//! The integration methods, each generic over the precision `T: Real` and the device
//! `B: Backend`, each in its own file that reads like its paper.
//!
//! This is the layer for callers who know the precision at compile time; [`crate::Integral`]
//! is the builder on top that chooses it at run time.
//!
//! ```
//! use hpquad::cpu::CpuBackend;
//! use hpquad::integrand::RealFn;
//! use hpquad::methods::{romberg, Interval, Options};
//! use hpquad::precision::Real;
//!
//! struct Exp;
//! impl RealFn for Exp {
//!     fn eval<T: Real>(&self, x: T) -> T { x.exp() }
//! }
//! let cpu = CpuBackend::new(1)?;
//! let out = romberg::romberg(&Exp, &cpu, Interval::new(0.0, 1.0), &Options::default())?;
//! assert!(out.converged);
//! assert!((out.value - (std::f64::consts::E - 1.0)).abs() < 1e-12);
//! # Ok::<(), hpquad::Error>(())
//! ```

mod adaptive;
pub mod auto;
pub mod batch;
pub mod cuhre;
pub mod gauss_kronrod;
pub mod gauss_legendre;
pub mod gauss_product;
pub mod pbcaq;
pub mod richardson;
pub mod romberg;
pub mod tanh_sinh;
pub mod trapezoid;
mod truncation;

use std::sync::Arc;
use std::time::{Duration, Instant};

use precision::Real;

use crate::error::{Error, Result};

/// The interval of integration `[a, b]`, in the working precision. `a > b` is allowed (the
/// integral changes sign) and so is `a == b` (the integral is 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval<T> {
    /// The lower limit of integration.
    pub a: T,
    /// The upper limit of integration.
    pub b: T,
}

impl<T: Real> Interval<T> {
    /// The interval from `a` to `b`.
    pub fn new(a: T, b: T) -> Interval<T> {
        Interval { a, b }
    }
}

/// When a method stops: tolerances and caps on work.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Relative tolerance on the integral; `None` asks for 1000 units in the last place of the
    /// working precision (about 2e-13, 5e-29 and 2e-60 for f64, dd and qd).
    pub relative: Option<f64>,
    /// Absolute tolerance; the estimate converges when its error is within either tolerance.
    pub absolute: f64,
    /// The finest level refined to: at most 2^max_levels intervals per subinterval.
    pub max_levels: u32,
    /// A cap on integrand evaluations; a method stops before a level that would exceed it.
    pub max_evaluations: u64,
    /// The number of equal subintervals that [a, b] is split into (domain decomposition).
    pub subintervals: u64,
    /// The rule of CUHRE ([`cuhre::RuleChoice`], default chosen per integrand); the other
    /// methods have none.
    pub cubature_rule: cuhre::RuleChoice,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            relative: None,
            absolute: 0.0,
            max_levels: 25,
            max_evaluations: 1 << 27,
            subintervals: 1,
            cubature_rule: cuhre::RuleChoice::Auto,
        }
    }
}

impl Options {
    /// The relative tolerance in force for precision `T`.
    pub fn relative_for<T: Real>(&self) -> f64 {
        self.relative
            .unwrap_or_else(|| 1000.0 * T::epsilon().to_f64())
    }

    /// Whether an error estimate meets the tolerance for an integral of size `magnitude`.
    /// Never less than [`UNDERFLOW_FLOOR`], which no estimate can beat.
    pub fn is_met<T: Real>(&self, error: f64, magnitude: f64) -> bool {
        error
            <= self
                .absolute
                .max(self.relative_for::<T>() * magnitude.abs())
                .max(UNDERFLOW_FLOOR)
    }

    /// Refuses options no method can work with, naming the option and its valid range.
    pub fn validate(&self) -> Result<()> {
        if let Some(r) = self.relative {
            if !(r.is_finite() && r >= 0.0) {
                return Err(Error::InvalidOption {
                    option: "tolerance",
                    reason: format!("the relative tolerance is {r}; it must be finite and >= 0"),
                });
            }
        }
        if !(self.absolute.is_finite() && self.absolute >= 0.0) {
            return Err(Error::InvalidOption {
                option: "abs_tolerance",
                reason: format!(
                    "the absolute tolerance is {}; it must be finite and >= 0",
                    self.absolute
                ),
            });
        }
        if self.max_levels > 40 {
            return Err(Error::InvalidOption {
                option: "max_levels",
                reason: format!(
                    "{} levels would be 2^{} intervals; at most 40 levels are supported",
                    self.max_levels, self.max_levels
                ),
            });
        }
        if self.subintervals == 0 || self.subintervals > 1 << 20 {
            return Err(Error::InvalidOption {
                option: "subintervals",
                reason: format!(
                    "{} subintervals were asked for; give between 1 and 2^20",
                    self.subintervals
                ),
            });
        }
        Ok(())
    }
}

/// One stage of a computation: which device did it, on how many points, in what time.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// The refinement level (0: the endpoints).
    pub level: u32,
    /// Integrand evaluations in this stage.
    pub points: u64,
    /// The backend that ran it, e.g. `cpu (2 threads)`.
    pub device: Arc<str>,
    /// Wall-clock time of the stage.
    pub elapsed: Duration,
}

/// What a method returns, in the working precision.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<T> {
    /// The estimate of the integral.
    pub value: T,
    /// The estimated absolute error (never below the rounding level of the precision).
    pub error: f64,
    /// Integrand evaluations, all stages together.
    pub evaluations: u64,
    /// The number of trapezoid levels computed (rows of the table).
    pub levels: u32,
    /// Whether `error` meets the tolerance; when false, `value` is the best estimate reached.
    pub converged: bool,
    /// The extrapolation table: row `i` holds T(h/2^i) and its extrapolations (see each method).
    pub table: Vec<Vec<T>>,
    /// The per-stage record.
    pub stages: Vec<Stage>,
}

impl<T: Real> Outcome<T> {
    /// The integral over an empty interval: exactly zero, nothing evaluated.
    fn empty() -> Outcome<T> {
        Outcome {
            value: T::zero(),
            error: 0.0,
            evaluations: 0,
            levels: 0,
            converged: true,
            table: Vec::new(),
            stages: Vec::new(),
        }
    }

    /// The same outcome for the reversed interval.
    fn negated(mut self) -> Outcome<T> {
        self.value = -self.value;
        for row in &mut self.table {
            for v in row {
                *v = -*v;
            }
        }
        self
    }
}

/// Refuses NaN bounds and runs `run` on the interval ordered lower to upper: an empty interval
/// integrates to 0, a reversed one to the negated integral. Infinite bounds pass through, for
/// the methods that map them.
pub(crate) fn ordered<T: Real>(
    interval: Interval<T>,
    run: impl FnOnce(T, T) -> Result<Outcome<T>>,
) -> Result<Outcome<T>> {
    for (which, bound) in [("lower", interval.a), ("upper", interval.b)] {
        if bound.is_nan() {
            return Err(Error::InvalidBound {
                which,
                text: bound.to_string(),
                reason: "NaN is not a bound".to_string(),
            });
        }
    }
    let Interval { a, b } = interval;
    if a == b {
        Ok(Outcome::empty())
    } else if a < b {
        run(a, b)
    } else {
        run(b, a).map(Outcome::negated)
    }
}

/// [`ordered`] for the uniform-grid methods, which also refuse infinite bounds.
pub(crate) fn oriented<T: Real>(
    interval: Interval<T>,
    method: &'static str,
    run: impl FnOnce(T, T) -> Result<Outcome<T>>,
) -> Result<Outcome<T>> {
    for (which, bound) in [("lower", interval.a), ("upper", interval.b)] {
        if !bound.is_nan() && !bound.is_finite() {
            return Err(Error::InfiniteBound {
                which,
                value: bound.to_string(),
                method,
            });
        }
    }
    ordered(interval, run)
}

/// The error that rounding alone leaves in a value of size `magnitude`: two units of the
/// precision's epsilon. The sums are compensated (f64) or pairwise (dd, qd), so their rounding
/// stays near this level; the floor keeps an estimate from claiming more than the precision
/// holds when two table entries agree to the last bit.
/// Near the bottom of the range the floor is [`UNDERFLOW_FLOOR`] instead.
pub(crate) fn rounding_floor<T: Real>(magnitude: T) -> f64 {
    (2.0 * T::epsilon().to_f64() * magnitude.to_f64().abs()).max(UNDERFLOW_FLOOR)
}

/// The absolute resolution of all three precisions, a few units of the smallest subnormal
/// double 2^-1074 (the lower components of a dd or qd are doubles, so none of them holds a
/// difference finer than that): an estimate of an integral of size 1e-310 cannot come nearer
/// to it, so no error estimate claims less and no tolerance asks for less. Far below every
/// relative floor of a normal number, so it changes nothing above about 1e-290.
pub const UNDERFLOW_FLOOR: f64 = 8.0 * f64::MIN_POSITIVE * f64::EPSILON;

/// Whether `x` holds every bit of its precision: its last bit lies at or above the smallest
/// subnormal double 2^-1074, the finest bit that any component of an f64, dd or qd can hold.
/// True of the normal doubles in f64, of |x| ≥ about 2^-970 in dd and 2^-865 in qd; below,
/// computing `x` rounded it to fewer bits than its precision's epsilon says.
pub(crate) fn holds_every_bit<T: Real>(x: T) -> bool {
    x.abs().to_f64() * T::epsilon().to_f64() >= f64::MIN_POSITIVE * f64::EPSILON
}

/// Times `stage` and records it.
pub(crate) fn timed<R>(
    stages: &mut Vec<Stage>,
    level: u32,
    points: u64,
    device: Arc<str>,
    stage: impl FnOnce() -> Result<R>,
) -> Result<R> {
    let start = Instant::now();
    let result = stage()?;
    stages.push(Stage {
        level,
        points,
        device,
        elapsed: start.elapsed(),
    });
    Ok(result)
}
