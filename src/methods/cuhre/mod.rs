//! Adaptive cubature over an n-dimensional box: CUHRE (Berntsen, Espelid and Genz, "An adaptive
//! algorithm for the approximate calculation of multiple integrals", ACM TOMS 17 (1991)
//! 437–451; DCUHRE) as Arumugam et al. describe it ("An efficient deterministic parallel
//! algorithm for adaptive multidimensional numerical integration on GPUs", ICPP 2013;
//! `../shared/papers/cuhre-gpu-arumugam-et-al.txt`).
//!
//! - C-RULES ([`rule`]): a fully symmetric rule with its null rules gives a region's estimate
//!   I, its error ε (DCUHRE's null rules and ratio test, times the rule's safety factor where
//!   the test passed: [`SAFETY_DEGREE7`]; [`SAFETY_DEGREE9`], [`SAFETY_DEGREE9_CHECKED`] for a
//!   half that the parent check sees) and the axis κ of the largest
//!   fourth divided difference, all from the class sums
//!   any backend computes ([`Backend::genz_malik_sums`]); constants exact in the working
//!   precision. Two rules ([`choose_rule`], once per integrand): DCUHRE's degree 9
//!   ([`degree9`], 2^n + 4n(n-1)(n-2)/3 + 6n(n-1) + 8n + 1 points) for an expression with no
//!   operation that can put a kink or a jump inside, Genz and Malik's degree 7 ([`genz_malik`],
//!   2^n + 2n² + 2n + 1 points) otherwise, or the one [`Options::cubature_rule`] asks for.
//! - Sequential CUHRE ([`Schedule::Sequential`], `sequential.rs`): the paper's Algorithm 1, a
//!   priority queue of regions by ε, the worst split in two along κ, until
//!   ε_g ≤ max(τ_abs, τ_rel |I_g|); on the calling thread, the baseline.
//! - Rounds ([`Schedule::Parallel`], `parallel.rs`): a batch of the worst regions split per
//!   round, all the children's class sums in one [`Backend::genz_malik_sums`] call (all CPU
//!   cores, or the GPU's rule kernel), as many as [`Backend::rule_round`] says. On a backend
//!   whose [`Backend::cuhre_on_device`] answers (a GPU asked for), the region list stays on
//!   the device instead: breadth-first rounds with PAGANI's filter ([`device`]).
//! - The regions, the split and DCUHRE's check of the children against their parent:
//!   `regions.rs`.
//!
//! Contracts: the steps depend only on the numbers (the integrand's values at the points, which
//! the backend gives exactly whatever its threads), and every sum is in a fixed order in
//! `T::Accumulator`, so a result has the same bits for any thread count. A region is final,
//! never split again, when its error is within twice its rounding floor or no axis is wide
//! enough to halve (a few hundred ulp); its error still counts. The evaluation cap
//! ([`Options::max_evaluations`], default 2^27 ≈ 1.3·10^8, about the paper's 10^8) stops the
//! run before a split that would pass it, with `converged: false` and ε_g as the error. The
//! running sums I_g and ε_g are compensated, and summed afresh over the live regions before
//! convergence is claimed and for the result.
//!
//! In one dimension the rule is a 7-point symmetric rule of degree 7 (the degree-9 rule needs
//! two dimensions) and the method works as any adaptive rule on an interval; the
//! n-dimensional methods are meant for n ≥ 2.
//!
//! The record: `levels` counts the steps (sequential: splits; parallel: rounds); each
//! [`crate::methods::Stage`] is a run of consecutive steps whose deepest children are `level`
//! halvings from the box, with their evaluations; the regions evaluated are
//! `evaluations / set.points(n)` for the rule's [`PointSet`] `set`.
//!
//! ```
//! use hpquad::cpu::CpuBackend;
//! use hpquad::expr::Expr;
//! use hpquad::methods::cuhre::{cuhre, Hyperbox, Schedule};
//! use hpquad::methods::Options;
//!
//! let f = Expr::parse("exp(x + y + z)", 3)?;
//! let cpu = CpuBackend::new(2)?;
//! let unit = Hyperbox::new(vec![0.0; 3], vec![1.0; 3])?;
//! let options = Options { relative: Some(1e-9), ..Options::default() };
//! let out = cuhre(&f, &cpu, &unit, Schedule::Parallel, &options)?;
//! assert!(out.converged);
//! let exact = (std::f64::consts::E - 1.0).powi(3);
//! assert!((out.value - exact).abs() <= out.error);
//! # Ok::<(), hpquad::Error>(())
//! ```

mod choice;
pub mod degree9;
pub mod device;
pub mod genz_malik;
pub mod host_list;
mod parallel;
mod regions;
pub mod rule;
mod sequential;

use std::fmt;

use precision::Real;

pub use crate::backend::PointSet;
pub use choice::{choose_rule, RuleChoice, RuleDecision};
pub use rule::{CubatureRule, RuleEstimate, MAX_DIMS};

use super::adaptive::nothing_done;
use super::{Options, Outcome};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::integrand::Integrand;
use regions::Regions;
pub use regions::{SAFETY_DEGREE7, SAFETY_DEGREE9, SAFETY_DEGREE9_CHECKED};

/// How the regions are split: one at a time, or a batch a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Schedule {
    /// The paper's Algorithm 1 on the calling thread: the baseline.
    #[default]
    Sequential,
    /// A batch of the worst regions a round, their children evaluated in one backend call.
    Parallel,
}

impl Schedule {
    /// The method's name on the command line: `cuhre`, `cuhre-parallel`.
    pub fn name(&self) -> &'static str {
        match self {
            Schedule::Sequential => "cuhre",
            Schedule::Parallel => "cuhre-parallel",
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A box [a1, b1] × ... × [an, bn] with a1 < b1, ..., an < bn, all finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Hyperbox<T> {
    lower: Vec<T>,
    upper: Vec<T>,
}

impl<T: Real> Hyperbox<T> {
    /// The box from the corner `lower` to the corner `upper`; an error names the axis (from 1)
    /// whose bounds are missing, not finite, equal or reversed.
    pub fn new(lower: Vec<T>, upper: Vec<T>) -> Result<Hyperbox<T>> {
        let invalid = |reason: String| Error::InvalidOption {
            option: "box",
            reason,
        };
        if lower.len() != upper.len() {
            return Err(invalid(format!(
                "{} lower bounds and {} upper bounds were given; give one of each per axis",
                lower.len(),
                upper.len()
            )));
        }
        if lower.is_empty() || lower.len() > MAX_DIMS {
            return Err(invalid(format!(
                "a box of {} axes was given; give 1 to {MAX_DIMS}",
                lower.len()
            )));
        }
        for (k, (&a, &b)) in lower.iter().zip(&upper).enumerate() {
            let axis = k + 1;
            if !(a.is_finite() && b.is_finite()) {
                return Err(invalid(format!(
                    "axis {axis} runs from {a} to {b}; the cubature rules need finite bounds"
                )));
            }
            if a == b {
                return Err(invalid(format!(
                    "axis {axis} is empty (from {a} to {b}); the integral over it would be 0"
                )));
            }
            if a > b {
                return Err(invalid(format!(
                    "axis {axis} is reversed (from {a} to {b}); give the lower bound first"
                )));
            }
        }
        Ok(Hyperbox { lower, upper })
    }

    /// The number of axes.
    pub fn dims(&self) -> usize {
        self.lower.len()
    }

    /// The lower corner.
    pub fn lower(&self) -> &[T] {
        &self.lower
    }

    /// The upper corner.
    pub fn upper(&self) -> &[T] {
        &self.upper
    }
}

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finish {
    /// ε_g met the tolerance.
    Met,
    /// The next split would pass the evaluation cap.
    Capped,
    /// Every live region is final.
    Exhausted,
}

/// max(τ_abs, τ_rel |I|).
fn tolerance<T: Real>(options: &Options, value: T) -> f64 {
    options
        .absolute
        .max(options.relative_for::<T>() * value.to_f64().abs())
}

/// Whether I_g or ε_g is no longer a number (the integral exceeds the precision's range, or a
/// region's volume does): splitting cannot bring it back, so the run stops there.
fn overflowed<T: Real, F: Integrand, B: Backend>(regions: &Regions<'_, T, F, B>) -> bool {
    let (value, error) = regions.running();
    !value.to_f64().is_finite() || error.is_nan()
}

/// Whether ε_g meets the tolerance: on the running totals first, then confirmed on the totals
/// summed afresh (which the running ones are reset to).
fn met<T: Real, F: Integrand, B: Backend>(
    regions: &mut Regions<'_, T, F, B>,
    options: &Options,
) -> bool {
    let (value, error) = regions.running();
    if error > tolerance(options, value) {
        return false;
    }
    let (value, error) = regions.resum();
    error <= tolerance(options, value)
}

/// Integrates `f` over `region` with the rule [`choose_rule`] picks under
/// [`Options::cubature_rule`] and the `schedule`'s way of splitting, to the tolerance of
/// `options` (relative, absolute, evaluation cap; `max_levels` and `subintervals` do not
/// apply). `f` must have as many variables as the box has axes.
pub fn cuhre<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    region: &Hyperbox<T>,
    schedule: Schedule,
    options: &Options,
) -> Result<Outcome<T>> {
    check(f, region, options)?;
    let set = choose_rule(f, region.dims(), options.cubature_rule)?.set;
    if schedule == Schedule::Parallel {
        if let Some(outcome) = backend.cuhre_on_device(f, region, options, set) {
            return outcome;
        }
    }
    host(f, backend, region, schedule, options, set)
}

/// The options valid, and as many variables as the box has axes.
fn check<T: Real, F: Integrand>(f: &F, region: &Hyperbox<T>, options: &Options) -> Result<()> {
    options.validate()?;
    let dims = region.dims();
    if f.dims() != dims {
        return Err(Error::InvalidOption {
            option: "box",
            reason: format!(
                "the box has {dims} axes but the integrand has {} variables",
                f.dims()
            ),
        });
    }
    Ok(())
}

/// The run on the host's region list (the sequential or the parallel schedule).
fn host<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    region: &Hyperbox<T>,
    schedule: Schedule,
    options: &Options,
    set: PointSet,
) -> Result<Outcome<T>> {
    let dims = region.dims();
    let mut regions = Regions::new(f, backend, CubatureRule::with_set(set, dims));
    if (regions.rule.points() as u64) > options.max_evaluations {
        return Ok(nothing_done());
    }
    let finish = match schedule {
        Schedule::Sequential => {
            sequential::run(&mut regions, region.lower(), region.upper(), options)?
        }
        Schedule::Parallel => parallel::run(&mut regions, region.lower(), region.upper(), options)?,
    };
    let (value, error) = regions.resum();
    if !value.to_f64().is_finite() {
        return Err(Error::Overflow {
            value: value.to_string(),
            evaluations: regions.evaluations,
        });
    }
    Ok(Outcome {
        value,
        error,
        evaluations: regions.evaluations,
        levels: regions.rounds,
        converged: finish == Finish::Met || options.is_met::<T>(error, value.to_f64()),
        table: Vec::new(),
        stages: std::mem::take(&mut regions.stages),
    })
}
