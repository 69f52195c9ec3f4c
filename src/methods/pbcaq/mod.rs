//! Adaptive quadrature after Kern and Alaghband, "Parallel Processing of Irregular Workloads
//! on the GPGPU: Adaptive Quadrature" (PDPTA 2013; `../shared/papers/pbcaq-kern-alaghband.txt`):
//! the family of their Table 1, each with a choice of rule pair per interval.
//!
//! | scheme   | what it is                                                                 |
//! |----------|----------------------------------------------------------------------------|
//! | CAQ      | queue-based divide and conquer, one interval at a time (the baseline)      |
//! | SCAQ     | side-cutting, one interval a step (the paper's Fig. 2)                     |
//! | BCAQ     | block-cutting (Fig. 3) with the region evaluated on the calling thread     |
//! | PSCAQ    | side-cutting with a region of α·β intervals a step, in one backend call    |
//! | PBCAQ    | block-cutting (Fig. 3), a region in one backend call; always expands       |
//! | PBCAQr   | PBCAQ, the expansion step on a seeded coin flip                            |
//! | PBCAQs   | PBCAQ, the expansion step when the errors fall across the region          |
//! | PBCAQg   | PBCAQ, the expansion step when ln(tolerance / error) leaves room for it    |
//!
//! CAQ (`caq`): a FIFO queue of evaluated intervals; the front one is accepted when its
//! error is within its share of the tolerance, τ · width / (b - a), else its halves are
//! evaluated and queued.
//!
//! Block cutting (`cutting`, Fig. 3): a region `[max(upper - length, a), upper]`, starting
//! with the whole interval, is cut into α·β equal intervals, each approximated with its error;
//! when the errors' sum is within the region's share of the tolerance the region is
//! accumulated, `upper` moves down to its lower end and `length` doubles (the expansion step),
//! else `length` halves. The share is τ · (region length) / (b - a): the figure's halving and
//! doubling of τ with `length`, also right for the last region, cut short at `a`.
//!
//! Side cutting: the text available stops before the paper's §4.3 (SCAQ, PSCAQ), so this is a
//! reading of Table 1 and Fig. 2, where SCAQ walks the CAQ tree from one side and skips the
//! mediate computations above the interval size that last worked. Side cutting judges each
//! interval on its own share instead of the region on its sum: the intervals within their
//! shares are cut off the side, from `upper` down to the first that is not; `length` doubles
//! when all were and halves otherwise. SCAQ does it one interval a step, PSCAQ α·β intervals a
//! step (the ones past the first failure are work thrown away, the price of the parallel step).
//!
//! BCAQ and PBCAQ make the same steps on the same intervals, so they give the same bits; only
//! the evaluation differs (the calling thread against the backend's threads).
//!
//! A region step (`region.rs`) is one [`Backend::region_step`]: the abscissae, the values, each
//! interval's piece and the accepted intervals' sums, reduced in groups of 256 in a fixed tree
//! (a GPU block's), the groups in order. The CPU backend spreads the chunks and groups over its
//! pool; the GPU runs the step of either pair in one launch (`kernels/region.cu`) and copies
//! back one partial a group. Every device gives the same bits for the same regions in dd and
//! qd.
//!
//! α·β ([`region_intervals`]): the paper fixes 2048 blocks of 256 threads for its GPU. Here a
//! region is cut into the largest power of two of intervals whose points fit the rule's
//! budget: [`REGION_POINTS`] (4096) for Gauss–Kronrod, 128 intervals of G10–K21 (f64) or 64 of
//! G20–K41 (dd, qd), where one region often holds the whole integral and a larger one would
//! only cost evaluations; [`TRAPEZOID_SIMPSON_REGION_POINTS`] (2^14) for trapezoid–Simpson,
//! 8192 intervals, whose workloads are large (the paper's regime): there a step of 4097 points
//! costs the pool a fork and join that 16 threads cannot amortise, and a step of 16 385 does.
//! It does not depend on the thread count, so the result has the same bits for any number of
//! threads; a [`Config`] may set it.
//!
//! Regions for a device ([`device_region_intervals`]): when the backend would run a region
//! step of [`GPU_REGION_POINTS`] on another device than a step of one interval (the hybrid
//! backend's GPU: regions from `gpu_min_region_points`), the regions of the parallel schemes
//! are cut to fit [`GPU_REGION_POINTS`] instead: each step there costs a launch, a copy and a
//! synchronisation (tens of microseconds) whatever its size, so the GPU wants the paper's
//! fewer, larger steps. The choice depends on the backend, the precision and the rule, never on
//! the thread count or on timings, so a run on the GPU gives the same bits every time; they are
//! not the CPU's (other regions, other steps, and libdevice's f64 functions), and BCAQ, which
//! evaluates on the calling thread, keeps the CPU's regions.
//!
//! Contracts (all schemes): a piece is accepted, its error counted, when it is within its
//! share, when its error is within twice its rounding floor (halving would not help, see
//! `pair.rs`), or when its intervals are narrower than the minimum width ([`Config`]; by
//! default 256 ulp of max(|a|, |b|) or (b - a) / 2^160, whichever is wider), so an endpoint
//! singularity never loops forever. A relative tolerance is made absolute from the first
//! estimate of the whole interval; when the final value shows it was too loose, the run is
//! repeated with the tolerance from that value (at most [`MAX_PASSES`] runs, all counted).
//! An interval wider than the largest number (b - a overflows) is integrated as its two halves,
//! each with half the absolute tolerance and of the evaluation cap
//! (`trapezoid::in_halves`). Under the evaluation cap, a block-cutting run keeps one region's points in reserve and
//! spends them on what is left of the interval when the cap comes, so its estimate covers the
//! whole interval with an honest error (`converged: false`); CAQ counts the queued intervals'
//! own estimates.
//!
//! The record: one [`Stage`] per run of consecutive steps at one interval width (its `level`:
//! log2 of (b - a) / width; its `points`: the evaluations, a whole number of regions of
//! `points(α·β)` each); the outcome's `levels` counts the steps (regions, or CAQ intervals).
//!
//! ```
//! use hpquad::cpu::CpuBackend;
//! use hpquad::expr::Expr;
//! use hpquad::methods::pbcaq::{pbcaq, Config, Scheme};
//! use hpquad::methods::{Interval, Options};
//! use hpquad::precision::{Dd, Real};
//!
//! let f = Expr::parse("exp(2*x)*sin(3*x)", 1)?;
//! let cpu = CpuBackend::new(2)?;
//! let interval = Interval::new(Dd::from(0), Dd::from(5));
//! let out = pbcaq(&f, &cpu, interval, &Config::new(Scheme::Pbcaq), &Options::default())?;
//! assert!(out.converged);
//! // (e^10 (2 sin 15 - 3 cos 15) + 3) / 13
//! let ten = Dd::from(10);
//! let exact = (ten.exp() * (Dd::from(15).sin() * 2.0 - Dd::from(15).cos() * 3.0) + 3.0) / 13.0;
//! assert!((out.value - exact).abs().to_f64() <= out.error);
//! # Ok::<(), hpquad::Error>(())
//! ```

mod caq;
mod cutting;
mod pair;
pub mod region;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use precision::Real;

pub use pair::{default_gauss_points, IntervalRule, Pair};

use super::adaptive::{nothing_done, MAX_DEPTH};
use super::trapezoid::{in_halves, too_wide};
use super::{oriented, Interval, Options, Outcome, Stage};
use crate::backend::{check_finite, require_1d, Backend};
use crate::error::{Error, Result};
use crate::integrand::Integrand;
use pair::Piece;
use region::{Cut, Region, RegionSums};

/// The seed of PBCAQr's coin when none is given: the digits of π after the point.
pub const DEFAULT_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// The points a region of the Gauss–Kronrod pair is cut to fit, when
/// [`Config::region_intervals`] is not given.
pub const REGION_POINTS: usize = 4096;

/// The points a region of the trapezoid–Simpson pair is cut to fit (8192 intervals), when
/// [`Config::region_intervals`] is not given.
///
/// Measured on the H100 machine's 16-core host (`pbcaq_cpu_scaling` in tests/pbcaq.rs:
/// e^(-3x) cos(5πx) over [0, 20] at 1e-9 in f64), regions of 2^11 / 2^13 / 2^15 intervals:
/// BCAQ 605 / 567 / 576 ms (4346 / 1094 / 282 steps, 17.81 / 17.93 / 18.48 M evaluations),
/// PBCAQ on 16 threads 160 / 87 / 90 ms. Below 2^13 each step's fork and join over the pool
/// dominates; above it, the coarser steps cost evaluations and gain nothing.
pub const TRAPEZOID_SIMPSON_REGION_POINTS: usize = 1 << 14;

/// The points a region is cut to fit when its lists go to a GPU ([`device_region_intervals`]):
/// 2^18 (2^17 trapezoid–Simpson intervals; the paper's 2048 × 256 is 2^19).
///
/// Measured on an H100 (`gpu_pbcaq_region_profile` in tests/pbcaq.rs): PBCAQ with the
/// trapezoid–Simpson pair on e^(-3x) cos(5πx) over [0, 30], point lists on the GPU, regions of
/// 2^11 / 2^15 / 2^17 / 2^19 / 2^21 intervals: f64 at 1e-10 13.3 / 1.83 / 1.31 / 1.59 / 3.39 s
/// (68.0 / 68.9 / 71.6 / 87.0 / 126 M evaluations); dd at 1e-9 5.73 / - / 3.10 / 4.40 / 8.06 s.
/// Below 2^17 each step's fixed cost (0.7 ms a call on that machine) dominates; above it, the
/// finer regions cost more evaluations than they save in steps.
pub const GPU_REGION_POINTS: usize = 1 << 18;

/// The most runs of one call: the first, and reruns with a tighter tolerance when the first
/// estimate of the integral's size was too large.
pub const MAX_PASSES: u32 = 3;

/// Which member of the paper's Table 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Scheme {
    /// Sequential, queue-based divide and conquer: the baseline.
    Caq,
    /// Sequential side-cutting, one interval a step.
    Scaq,
    /// Sequential block-cutting: PBCAQ's steps, each region evaluated on the calling thread.
    Bcaq,
    /// Parallel side-cutting: α·β intervals a step in one backend call.
    Pscaq,
    /// Parallel block-cutting (Fig. 3): a region in one backend call, always expanding.
    #[default]
    Pbcaq,
    /// PBCAQ with the expansion step taken on a coin flip from a generator seeded by `seed`
    /// (SplitMix64), so a run is reproducible.
    PbcaqR {
        /// The generator's seed ([`DEFAULT_SEED`] unless given).
        seed: u64,
    },
    /// PBCAQ with the expansion step taken when the errors fall across the region, towards
    /// the next one.
    PbcaqS,
    /// PBCAQ with the expansion step taken when ln(tolerance / error) of the region exceeds
    /// what doubling the width would cost the rule (ln 2 · (order - 1)).
    PbcaqG,
}

impl Scheme {
    /// Every scheme, PBCAQr with the default seed.
    pub const ALL: [Scheme; 8] = [
        Scheme::Caq,
        Scheme::Scaq,
        Scheme::Bcaq,
        Scheme::Pscaq,
        Scheme::Pbcaq,
        Scheme::PbcaqR { seed: DEFAULT_SEED },
        Scheme::PbcaqS,
        Scheme::PbcaqG,
    ];

    /// The name used on the command line: `caq`, ..., `pbcaq-r`, `pbcaq-s`, `pbcaq-g`.
    pub fn name(&self) -> &'static str {
        match self {
            Scheme::Caq => "caq",
            Scheme::Scaq => "scaq",
            Scheme::Bcaq => "bcaq",
            Scheme::Pscaq => "pscaq",
            Scheme::Pbcaq => "pbcaq",
            Scheme::PbcaqR { .. } => "pbcaq-r",
            Scheme::PbcaqS => "pbcaq-s",
            Scheme::PbcaqG => "pbcaq-g",
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a call runs: the scheme, the rule pair, and the sizes that have defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Which member of the family.
    pub scheme: Scheme,
    /// The pair of rules on each interval.
    pub rule: IntervalRule,
    /// The Gauss points of the Kronrod pair; `None`: [`default_gauss_points`].
    pub gauss_points: Option<usize>,
    /// α·β, the intervals a region is cut into (block and parallel side cutting); `None`:
    /// [`region_intervals`].
    pub region_intervals: Option<usize>,
    /// Intervals narrower than this are accepted as they are, their error counted; `None`:
    /// 256 ulp of max(|a|, |b|) or (b - a) / 2^160, whichever is wider.
    pub min_width: Option<f64>,
}

impl Config {
    /// `scheme` with the default rule (Gauss–Kronrod) and sizes.
    pub fn new(scheme: Scheme) -> Config {
        Config {
            scheme,
            rule: IntervalRule::default(),
            gauss_points: None,
            region_intervals: None,
            min_width: None,
        }
    }

    /// The same with the rule pair `rule`.
    pub fn with_rule(mut self, rule: IntervalRule) -> Config {
        self.rule = rule;
        self
    }

    fn validate(&self) -> Result<()> {
        if let Some(n) = self.region_intervals {
            if n == 0 || n > 1 << 24 {
                return Err(Error::InvalidOption {
                    option: "region_intervals",
                    reason: format!("{n} intervals a region were asked for; give 1 to 2^24"),
                });
            }
        }
        if let Some(w) = self.min_width {
            if !(w.is_finite() && w >= 0.0) {
                return Err(Error::InvalidOption {
                    option: "min_width",
                    reason: format!("the minimum width is {w}; it must be finite and >= 0"),
                });
            }
        }
        Ok(())
    }
}

/// α·β for `rule` in precision `T`: the largest power of two of intervals whose points fit
/// [`REGION_POINTS`] (Gauss–Kronrod) or [`TRAPEZOID_SIMPSON_REGION_POINTS`].
pub fn region_intervals<T: Real>(rule: IntervalRule, gauss_points: Option<usize>) -> usize {
    let points = match rule {
        IntervalRule::GaussKronrod => REGION_POINTS,
        IntervalRule::TrapezoidSimpson => TRAPEZOID_SIMPSON_REGION_POINTS,
    };
    intervals_fitting::<T>(points, rule, gauss_points)
}

/// α·β for the parallel schemes on `backend`: cut to fit [`GPU_REGION_POINTS`] when the
/// backend would run a region step that large on another device than a step of one interval
/// ([`Backend::device_for_region`]: the hybrid backend's GPU), else [`region_intervals`].
/// Asking may start the hybrid backend's GPU, as a step of that size would.
pub fn device_region_intervals<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    rule: IntervalRule,
    gauss_points: Option<usize>,
) -> usize {
    let large = intervals_fitting::<T>(GPU_REGION_POINTS, rule, gauss_points);
    let Ok(pair) = Pair::<T>::new(rule, gauss_points) else {
        return region_intervals::<T>(rule, gauss_points);
    };
    let (zero, one) = (T::zero(), T::from_i64(1));
    let region = |n| Region::new(&pair, zero, one, n, Cut::Block);
    if backend.device_for_region::<T, F>(f, &region(large))
        != backend.device_for_region::<T, F>(f, &region(1))
    {
        large
    } else {
        region_intervals::<T>(rule, gauss_points)
    }
}

/// The largest power of two of intervals of `rule` whose points fit `points`.
fn intervals_fitting<T: Real>(
    points: usize,
    rule: IntervalRule,
    gauss_points: Option<usize>,
) -> usize {
    let per_interval = match rule {
        IntervalRule::GaussKronrod => {
            2 * gauss_points.unwrap_or_else(default_gauss_points::<T>) + 1
        }
        IntervalRule::TrapezoidSimpson => 2,
    };
    let fit = (points / per_interval).max(1);
    1 << fit.ilog2()
}

/// Integrates `f` over the finite `interval` with the scheme and rule of `config` to the
/// tolerance of `options` (relative, absolute, evaluation cap; `max_levels` and
/// `subintervals` do not apply).
pub fn pbcaq<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    config: &Config,
    options: &Options,
) -> Result<Outcome<T>> {
    options.validate()?;
    config.validate()?;
    require_1d(f)?;
    let pair = Pair::<T>::new(config.rule, config.gauss_points)?;
    match config.scheme {
        Scheme::Caq | Scheme::Scaq | Scheme::Bcaq => {
            run_scheme(f, backend, interval, config, options, &pair)
        }
        // The whole run on a thread of the backend's pool, so that each parallel step starts
        // from a worker (see Backend::within): the steps are the same wherever the run is.
        _ => backend.within(|| run_scheme(f, backend, interval, config, options, &pair)),
    }
}

/// [`pbcaq`] after its checks, with its pair.
fn run_scheme<T: Real, F: Integrand, B: Backend>(
    f: &F,
    backend: &B,
    interval: Interval<T>,
    config: &Config,
    options: &Options,
    pair: &Pair<T>,
) -> Result<Outcome<T>> {
    oriented(interval, config.scheme.name(), |a, b| {
        if too_wide(a, b) {
            // b − a overflows, and with it the regions' lengths, widths and shares of the
            // tolerance (NaN points after 134 M evaluations over [-1e308, 1e308]): each half
            // is an interval as any other.
            // The outcome's `levels` counts the steps of both halves, not the larger.
            let steps = std::cell::Cell::new(0);
            let outcome = in_halves(a, b, options, |lo, hi, half| {
                let outcome = run_scheme(f, backend, Interval::new(lo, hi), config, half, pair)?;
                steps.set(steps.get() + outcome.levels);
                Ok(outcome)
            })?;
            return Ok(Outcome {
                levels: steps.get(),
                ..outcome
            });
        }
        let scale = a.abs().max(b.abs()).to_f64();
        let min_width = config.min_width.unwrap_or_else(|| {
            (256.0 * T::epsilon().to_f64() * scale)
                .max((b - a).to_f64() * 0.5f64.powi(MAX_DEPTH as i32))
        });
        let mut run = Run {
            f,
            backend,
            pair,
            a,
            b,
            span: (b - a).to_f64(),
            min_width,
            max_evaluations: options.max_evaluations,
            absolute: options.absolute,
            relative: options.relative_for::<T>(),
            tolerance: None,
            evaluations: 0,
            steps: 0,
            stages: Vec::new(),
            serial: Arc::from("cpu (1 thread, calling)"),
            points: Vec::new(),
        };
        let intervals = config
            .region_intervals
            .unwrap_or_else(|| match config.scheme {
                // Evaluated on the calling thread: the CPU's regions, whatever the backend.
                Scheme::Caq | Scheme::Scaq | Scheme::Bcaq => {
                    region_intervals::<T>(config.rule, config.gauss_points)
                }
                _ => {
                    device_region_intervals::<T, F, B>(f, backend, config.rule, config.gauss_points)
                }
            });
        let mut outcome = None;
        for _ in 0..MAX_PASSES {
            let pass = match config.scheme {
                Scheme::Caq => caq::caq(&mut run)?,
                scheme => cutting::cutting(&mut run, scheme, intervals)?,
            };
            let Some(pass) = pass else { break };
            let needed = options
                .absolute
                .max(options.relative_for::<T>() * pass.value.to_f64().abs());
            let used = run.tolerance.unwrap_or(needed);
            let done = pass.error <= needed || pass.capped || used <= needed;
            // A rerun cut short by the cap may end worse than the run before it.
            if outcome
                .as_ref()
                .is_none_or(|best: &Pass<T>| pass.error <= best.error)
            {
                outcome = Some(pass);
            }
            if done {
                break;
            }
            // The first estimate of the size was too large: again, with the size now known
            // and a margin for its last digits.
            run.tolerance = Some(0.5 * needed);
        }
        let stages = std::mem::take(&mut run.stages);
        Ok(match outcome {
            Some(pass) => Outcome {
                value: pass.value,
                error: pass.error,
                evaluations: run.evaluations,
                levels: run.steps,
                converged: options.is_met::<T>(pass.error, pass.value.to_f64()),
                table: Vec::new(),
                stages,
            },
            None => nothing_done(),
        })
    })
}

/// One run's result.
struct Pass<T> {
    value: T,
    error: f64,
    /// Whether the evaluation cap cut it short.
    capped: bool,
}

/// What every scheme shares: the integrand, the pair, the tolerance and its shares, the
/// evaluation count and cap, the record.
struct Run<'a, T, F, B> {
    f: &'a F,
    backend: &'a B,
    pair: &'a Pair<T>,
    a: T,
    b: T,
    /// b - a as a double, for the shares of the tolerance.
    span: f64,
    min_width: f64,
    max_evaluations: u64,
    /// The options' absolute tolerance and the relative one in force.
    absolute: f64,
    relative: f64,
    /// The absolute tolerance of the whole integral; `None` until the first estimate of the
    /// whole interval gives the size that a relative tolerance applies to.
    tolerance: Option<f64>,
    evaluations: u64,
    steps: u32,
    stages: Vec<Stage>,
    /// The device of the sequential schemes' stages.
    serial: Arc<str>,
    /// CAQ's points, kept between steps ([`Run::pieces`]).
    points: Vec<T>,
}

impl<T: Real, F: Integrand, B: Backend> Run<'_, T, F, B> {
    /// Whether `points` more evaluations fit the cap.
    fn affords(&self, points: usize) -> bool {
        self.evaluations.saturating_add(points as u64) <= self.max_evaluations
    }

    /// The share of the tolerance of an interval of width `width`.
    fn share(&self, width: T) -> f64 {
        self.tolerance.unwrap_or(0.0) * (width.to_f64() / self.span)
    }

    /// Whether intervals of width `width` are too narrow to halve.
    fn too_narrow(&self, width: T) -> bool {
        width.to_f64() < self.min_width || width.ldexp(-1) == T::zero()
    }

    /// The level of intervals of width `width`: log2((b - a) / width), rounded.
    fn level(&self, width: T) -> u32 {
        (self.span / width.to_f64()).log2().round().max(0.0) as u32
    }

    /// Sets the tolerance from the first estimate of the whole interval, when a relative
    /// tolerance still waits for one.
    fn size_known(&mut self, estimate: impl FnOnce() -> T) {
        if self.tolerance.is_none() {
            let size = estimate().to_f64().abs();
            self.tolerance = Some(self.absolute.max(self.relative * size));
        }
    }

    /// The pieces of the run of intervals between `ends` (CAQ's one or two), evaluated on
    /// the calling thread.
    fn pieces(&mut self, ends: &[T]) -> Result<Vec<Piece<T>>> {
        let count = ends.len() - 1;
        let mut points = std::mem::take(&mut self.points);
        points.clear();
        self.pair.abscissae(ends, &mut points);
        let level = self.level(ends[1] - ends[0]);
        let start = Instant::now();
        let values = serial_values(self.f, &points);
        check_finite(&points, &values)?;
        let mut pieces = Vec::with_capacity(count);
        self.pair.estimates(ends, &values, &mut pieces);
        self.evaluations += points.len() as u64;
        self.steps += 1;
        self.record(
            level,
            points.len() as u64,
            self.serial.clone(),
            start.elapsed(),
        );
        self.points = points;
        Ok(pieces)
    }

    /// One region step ([`Backend::region_step`], or on the calling thread when not
    /// `parallel`), counted and recorded.
    fn step(&mut self, region: &Region<'_, T>, parallel: bool) -> Result<RegionSums<T>> {
        let level = self.level(region.end(1) - region.lower);
        let start = Instant::now();
        let (sums, device) = if parallel {
            let device = self.backend.device_for_region::<T, F>(self.f, region);
            (self.backend.region_step(self.f, region)?, device)
        } else {
            (region.step_serial(self.f)?, self.serial.clone())
        };
        let points = region.points() as u64;
        self.evaluations += points;
        self.steps += 1;
        self.record(level, points, device, start.elapsed());
        Ok(sums)
    }

    /// Adds a step to the record, into the last stage when it ran at the same level on the
    /// same device.
    fn record(&mut self, level: u32, points: u64, device: Arc<str>, elapsed: Duration) {
        if let Some(last) = self.stages.last_mut() {
            if last.level == level && last.device == device {
                last.points += points;
                last.elapsed += elapsed;
                return;
            }
        }
        self.stages.push(Stage {
            level,
            points,
            device,
            elapsed,
        });
    }
}

/// The points a batch on the calling thread holds at most (the CPU backend's chunk).
const SERIAL_CHUNK: usize = 512;

/// f at `points` on the calling thread, in chunks as the CPU backend evaluates them (each
/// value is the integrand's at its point alone, so the chunking does not change the bits).
fn serial_values<T: Real, F: Integrand>(f: &F, points: &[T]) -> Vec<T> {
    let mut values = vec![T::zero(); points.len()];
    for (xs, ys) in points
        .chunks(SERIAL_CHUNK)
        .zip(values.chunks_mut(SERIAL_CHUNK))
    {
        f.eval_batch(&[xs], ys);
    }
    values
}

/// The accepted pieces' sum: values in `T::Accumulator` in the order accepted (a fixed order:
/// the steps depend only on the numbers), errors in f64.
struct Total<T: Real> {
    value: T::Accumulator,
    error: f64,
}

impl<T: Real> Total<T> {
    fn new() -> Total<T> {
        Total {
            value: T::zero().to_accumulator(),
            error: 0.0,
        }
    }

    /// Adds a region step's accepted sums.
    fn add_region(&mut self, sums: &RegionSums<T>) {
        self.value = self.value + sums.value;
        self.error += sums.error;
    }

    /// Adds a run of pieces: their own sum first, then into the total.
    fn add(&mut self, pieces: &[Piece<T>]) {
        let mut value = T::zero().to_accumulator();
        for piece in pieces {
            value = value + piece.value.to_accumulator();
            self.error += piece.error;
        }
        self.value = self.value + value;
    }

    fn pass(&self, capped: bool) -> Pass<T> {
        Pass {
            value: T::from_accumulator(self.value),
            error: self.error,
            capped,
        }
    }
}
