//! hpquad: high-precision numerical integration in f64, double-double and quad-double on CPUs
//! and NVIDIA GPUs.
//!
//! The builder [`Integral`] chooses method, precision and device at run time; the generic layer
//! in [`methods`] serves callers who know the precision at compile time; [`backend::Backend`]
//! is the interface a device implements.

pub mod backend;
mod batch;
pub mod bench;
mod columns;
pub mod cpu;
mod error;
mod estimate;
pub mod expr;
pub mod gpu;
mod integral;
pub mod integrand;
pub mod methods;
mod options;
pub mod rules;

pub use batch::{Batch, BatchEstimate, ParamRange, ParamValue, SweepColumns, ValueColumn};
pub use error::{Error, Result};
pub use estimate::{Estimate, Value};
pub use integral::Integral;
pub use methods::batch::BatchMethod;
pub use methods::Stage;
pub use options::{Device, Method, Precision};
pub use precision;

/// The README's examples, compiled and run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
