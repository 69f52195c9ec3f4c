//! hpquad: high-precision numerical integration in f64, double-double and quad-double on CPUs
//! and NVIDIA GPUs.

pub mod expr;
pub mod gpu;
pub mod integrand;

pub use precision;
