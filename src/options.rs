//! The run-time choices of a computation: which method, in which precision, on which device.

use std::fmt;
use std::str::FromStr;

use crate::methods::cuhre::Schedule;
use crate::methods::pbcaq::{IntervalRule, Scheme};

/// The integration method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Method {
    /// The composite trapezoid rule on `intervals` equal intervals; with an even count the
    /// error is estimated from the rule on every other point.
    Trapezoid {
        /// The number of intervals (1 to 2^40).
        intervals: u64,
    },
    /// Richardson extrapolation over `grids` trapezoid grids, the coarsest with `intervals`
    /// intervals, each halving the last; `grids: 2` is 4/3 T(h/2) - 1/3 T(h).
    Richardson {
        /// Intervals of the coarsest grid.
        intervals: u64,
        /// The number of grids (at least 2).
        grids: u32,
    },
    /// Romberg integration: trapezoid levels with recycled evaluations, extrapolated until the
    /// tolerance is met.
    Romberg,
    /// Tanh-sinh (double exponential) quadrature, with its exp-sinh and sinh-sinh variants for
    /// half-infinite and infinite intervals: endpoint singularities and infinite ranges.
    TanhSinh,
    /// Adaptive Gauss–Legendre: the degree chosen per interval, intervals bisected where the
    /// degree alone does not converge; the fastest for analytic integrands.
    GaussLegendre,
    /// Adaptive Gauss–Kronrod (QUADPACK QAG style: global error, worst interval first).
    GaussKronrod,
    /// The adaptive family of Kern and Alaghband (CAQ, side and block cutting, PBCAQ and its
    /// expansion policies; see [`crate::methods::pbcaq`]): local tolerances, regions of many
    /// intervals evaluated in one batch.
    Adaptive {
        /// Which member of the family.
        scheme: Scheme,
        /// The pair of rules on each interval.
        rule: IntervalRule,
    },
    /// Adaptive cubature over an n-dimensional box (CUHRE with DCUHRE's degree-9 rule or Genz
    /// and Malik's degree-7 one, chosen per integrand: [`crate::methods::cuhre::choose_rule`];
    /// see [`crate::methods::cuhre`]): one region split at a time on the calling thread
    /// (`Sequential`, the paper's Algorithm 1), or a batch of the worst a round, evaluated by
    /// the backend (`Parallel`).
    Cuhre {
        /// How the regions are split.
        schedule: Schedule,
    },
    /// Adaptive tensor-product Gauss–Legendre cubature over a box ([`crate::methods::gauss_product`]):
    /// products of Gauss–Legendre rules (m points an axis to start, more on the axes that need
    /// them), the error read axis by axis from the values' Legendre coefficients, the worst
    /// regions raised or halved in rounds. For smooth integrands of a few variables to the full
    /// accuracy of dd and qd.
    GaussProduct,
    /// Chosen per call from the interval and a short probe of the integrand; the estimate
    /// records which method ran and why. With more than one variable: the product method
    /// for a smooth expression in a few variables ([`crate::methods::gauss_product::suits`]),
    /// CUHRE in rounds otherwise.
    #[default]
    Auto,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Method::Trapezoid { intervals } => write!(f, "trapezoid ({intervals} intervals)"),
            Method::Richardson { intervals, grids } => {
                write!(f, "richardson ({grids} grids from {intervals} intervals)")
            }
            Method::Romberg => f.write_str("romberg"),
            Method::TanhSinh => f.write_str("tanh-sinh"),
            Method::GaussLegendre => f.write_str("gauss-legendre"),
            Method::GaussKronrod => f.write_str("gauss-kronrod"),
            Method::Adaptive { scheme, rule } => match rule {
                IntervalRule::GaussKronrod => write!(f, "{scheme}"),
                IntervalRule::TrapezoidSimpson => write!(f, "{scheme} ({})", rule.name()),
            },
            Method::Cuhre { schedule } => write!(f, "{schedule}"),
            Method::GaussProduct => f.write_str("gauss-product"),
            Method::Auto => f.write_str("auto"),
        }
    }
}

/// The working precision, chosen at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// IEEE double, about 16 digits (sums accumulate in double-double).
    #[default]
    F64,
    /// Double-double, about 31 digits.
    Dd,
    /// Quad-double, about 62 digits.
    Qd,
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::F64 => "f64",
            Precision::Dd => "dd",
            Precision::Qd => "qd",
        })
    }
}

impl FromStr for Precision {
    type Err = String;

    /// `f64`, `dd` or `qd` (case-insensitive), as on the command line.
    fn from_str(text: &str) -> Result<Precision, String> {
        match text.to_ascii_lowercase().as_str() {
            "f64" | "double" => Ok(Precision::F64),
            "dd" | "double-double" => Ok(Precision::Dd),
            "qd" | "quad-double" => Ok(Precision::Qd),
            _ => Err(format!(
                "unknown precision '{text}'; expected f64, dd or qd"
            )),
        }
    }
}

/// Where the integrand is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Device {
    /// The CPU, on a rayon thread pool.
    #[default]
    Cpu,
    /// The first CUDA GPU for grids large enough to gain from it, the CPU for the rest; no
    /// GPU (no driver, no device) is an error, and so is an integrand given as Rust code.
    Gpu,
    /// The GPU when one is present, the integrand is an expression and a grid is large enough
    /// ([`crate::gpu::gpu_min_points`]), the CPU otherwise; a missing GPU is not an error. The
    /// GPU is started by the first grid that large, so a call whose grids all stay small never
    /// pays for a CUDA context. The default of the `pi` and `integrate` commands.
    Auto,
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
            Device::Auto => "auto",
        })
    }
}

impl FromStr for Device {
    type Err = String;

    /// `cpu`, `gpu` or `auto` (case-insensitive), as on the command line.
    fn from_str(text: &str) -> Result<Device, String> {
        match text.to_ascii_lowercase().as_str() {
            "cpu" => Ok(Device::Cpu),
            "gpu" | "cuda" => Ok(Device::Gpu),
            "auto" => Ok(Device::Auto),
            _ => Err(format!(
                "unknown device '{text}'; expected cpu, gpu or auto"
            )),
        }
    }
}
