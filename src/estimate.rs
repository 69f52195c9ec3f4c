//! The result of a computation: the value in its working precision, an honest error estimate,
//! and the record of how it was reached.

use std::fmt;
use std::time::Duration;

use precision::{Dd, Qd, Real};

use crate::backend::PointSet;
use crate::methods::{Outcome, Stage};
use crate::options::{Method, Precision};

/// A number in the precision it was computed in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    F64(f64),
    Dd(Dd),
    Qd(Qd),
}

impl Value {
    /// The nearest double.
    pub fn to_f64(&self) -> f64 {
        match *self {
            Value::F64(x) => x,
            Value::Dd(x) => x.to_f64(),
            Value::Qd(x) => x.to_f64(),
        }
    }

    /// The precision the value carries.
    pub fn precision(&self) -> Precision {
        match self {
            Value::F64(_) => Precision::F64,
            Value::Dd(_) => Precision::Dd,
            Value::Qd(_) => Precision::Qd,
        }
    }

    /// Scientific notation with `digits` significant digits (at least 1), e.g.
    /// `3.14159e0` for 6 digits of π.
    pub fn to_string_digits(&self, digits: usize) -> String {
        let decimals = digits.max(1) - 1;
        match self {
            Value::F64(x) => format!("{x:.decimals$e}"),
            Value::Dd(x) => format!("{x:.decimals$e}"),
            Value::Qd(x) => format!("{x:.decimals$e}"),
        }
    }
}

/// Every digit the precision carries.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::F64(x) => fmt::Display::fmt(x, f),
            Value::Dd(x) => fmt::Display::fmt(x, f),
            Value::Qd(x) => fmt::Display::fmt(x, f),
        }
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::F64(x)
    }
}

impl From<Dd> for Value {
    fn from(x: Dd) -> Value {
        Value::Dd(x)
    }
}

impl From<Qd> for Value {
    fn from(x: Qd) -> Value {
        Value::Qd(x)
    }
}

/// An integral's estimate and how it was reached.
///
/// `converged` is the one flag to check: when false, `value` is the best estimate reached
/// within the caps and `error` says how far it may be off.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The estimate of the integral.
    pub value: Value,
    /// The estimated absolute error.
    pub error: f64,
    /// Integrand evaluations.
    pub evaluations: u64,
    /// Levels computed: trapezoid levels (rows of `table`) for Romberg, step-halving levels for
    /// tanh-sinh, subdivision steps for the adaptive Gauss rules.
    pub levels: u32,
    /// Whether `error` meets the tolerance.
    pub converged: bool,
    /// Wall-clock time of the whole computation.
    pub elapsed: Duration,
    /// Romberg's and Richardson's extrapolation table, row i starting with the trapezoid value
    /// T(h / 2^i); see each method for what the others record.
    pub table: Vec<Vec<Value>>,
    /// Which device did each stage, on how many points, in what time.
    pub stages: Vec<Stage>,
    /// The method that produced it (under [`Method::Auto`], the one it chose).
    pub method: Method,
    /// Why [`Method::Auto`] chose `method`: the probe's finding and any fallback; for CUHRE,
    /// also which rule ran and why (the integrand's finding, or that it was asked for).
    /// `None` when a method asked for by name had nothing to choose.
    pub reason: Option<String>,
    /// The cubature rule CUHRE ran (degree 7 or 9); `None` for the one-dimensional methods.
    pub cubature_rule: Option<PointSet>,
}

impl Estimate {
    /// Wraps a method's outcome in its run-time-typed form.
    pub(crate) fn from_outcome<T: Real>(outcome: Outcome<T>, method: Method) -> Estimate
    where
        Value: From<T>,
    {
        Estimate {
            value: outcome.value.into(),
            error: outcome.error,
            evaluations: outcome.evaluations,
            levels: outcome.levels,
            converged: outcome.converged,
            elapsed: Duration::ZERO,
            table: outcome
                .table
                .into_iter()
                .map(|row| row.into_iter().map(Value::from).collect())
                .collect(),
            stages: outcome.stages,
            method,
            reason: None,
            cubature_rule: None,
        }
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ± {:.1e} ({} evaluations, {})",
            self.value,
            self.error,
            self.evaluations,
            if self.converged {
                "converged"
            } else {
                "NOT converged"
            }
        )
    }
}
