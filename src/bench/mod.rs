//! `hpquad bench`: precision against cost.
//!
//! The sweep runs every registered method ([`METHODS`]) in every precision on every device
//! ([`devices`]) at increasing amounts of work ([`Work`]) over a suite of integrals with
//! trusted reference values ([`suite`]), and measures for each point the correct digits, the
//! method's own error estimate, the evaluations and the time. [`report`] writes CSV, JSON and a
//! text summary, [`plot`] the picture of digits against time.
//!
//! A point that fails (an error from the method) or does not converge is kept and marked; a
//! point that is not run (over the evaluation cap, or after a slower point of the same curve)
//! is kept as skipped, with the reason.

pub mod cubature;
pub mod plot;
pub mod report;
pub mod speedup;
pub mod suite;
pub mod throughput;

use std::fmt;
use std::time::Duration;

use precision::{Dd, Qd, Real};

use crate::error::Result;
use crate::methods::pbcaq::{IntervalRule, Scheme};
use crate::options::{Device, Method, Precision};
use crate::{Estimate, Integral, Value};

use suite::Reference;

/// The precisions swept, in order.
pub const PRECISIONS: [Precision; 3] = [Precision::F64, Precision::Dd, Precision::Qd];

/// The devices swept on this machine: the CPU always, and the GPU when one is usable.
pub fn devices() -> Vec<Device> {
    let mut devices = vec![Device::Cpu];
    if crate::gpu::is_available() {
        devices.push(Device::Gpu);
    }
    devices
}

/// Significant digits of the reference as a quad-double: the cap on measured digits besides the
/// reference's own trusted digits (2^-212 is about 1.5e-64).
const QD_REFERENCE_DIGITS: f64 = 63.0;

/// The digits a precision should reach on the quick suite with every adaptive method at its
/// tightest tolerance; `hpquad bench --quick` fails when one is missed.
pub fn required_digits(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => 14.0,
        Precision::Dd => 29.0,
        Precision::Qd => 58.0,
    }
}

/// The tightest relative tolerance each precision can meet: about 100 units of its last place.
fn reach(precision: Precision) -> i32 {
    match precision {
        Precision::F64 => 14,
        Precision::Dd => 30,
        Precision::Qd => 60,
    }
}

/// 10^-e, correctly rounded (`powi` may round differently where it is constant-folded).
fn ten_to_minus(e: i32) -> f64 {
    format!("1e-{e}").parse().unwrap_or(0.0)
}

/// How big a sweep is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// The CI smoke test: the quick suite, two amounts of work per method.
    Quick,
    /// The whole suite and the whole work axis.
    Full,
}

/// An amount of work: what a method is asked to do at one point of its curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// An adaptive method's relative tolerance.
    Tolerance(f64),
    /// A fixed grid's number of intervals (the coarsest, for Richardson).
    Intervals(u64),
}

impl fmt::Display for Work {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Work::Tolerance(t) => write!(f, "tol {t:.0e}"),
            Work::Intervals(n) if n.is_power_of_two() => {
                write!(f, "2^{} intervals", n.trailing_zeros())
            }
            Work::Intervals(n) => write!(f, "{n} intervals"),
        }
    }
}

/// A method as the sweep knows it: its name, its work axis and how to configure it. A new
/// method joins the benchmark by adding one of these to [`METHODS`].
#[derive(Debug)]
pub struct BenchMethod {
    /// The name used in files, filters and the plot legend.
    pub name: &'static str,
    /// Whether the method stops by itself at a tolerance: a point that does not converge
    /// ended at a cap, and tighter tolerances would only repeat it.
    pub adaptive: bool,
    /// Whether it needs a finite interval (the trapezoid family): its curves on an infinite
    /// one are skipped.
    pub finite_only: bool,
    /// The amounts of work of its curve, least first.
    pub work: fn(Precision, Scale) -> Vec<Work>,
    /// The method and the tolerance to set for an amount of work.
    pub configure: fn(Work) -> (Method, Option<f64>),
    /// The evaluations a fixed amount of work costs, when known in advance.
    pub evaluations: fn(Work) -> Option<u64>,
}

/// Richardson's number of grids in the sweep: the coarsest grid and three halvings (error
/// O(h^8)).
const RICHARDSON_GRIDS: u32 = 4;

/// The methods swept, in the order of the files and the plot.
pub const METHODS: &[BenchMethod] = &[
    BenchMethod {
        name: "trapezoid",
        adaptive: false,
        finite_only: true,
        work: |_, scale| match scale {
            Scale::Quick => vec![Work::Intervals(1 << 4), Work::Intervals(1 << 10)],
            Scale::Full => (2..=20)
                .step_by(2)
                .map(|k| Work::Intervals(1 << k))
                .collect(),
        },
        configure: |work| match work {
            Work::Intervals(intervals) => (Method::Trapezoid { intervals }, None),
            Work::Tolerance(t) => (Method::Romberg, Some(t)),
        },
        evaluations: |work| match work {
            Work::Intervals(n) => Some(n + 1),
            Work::Tolerance(_) => None,
        },
    },
    BenchMethod {
        name: "richardson",
        adaptive: false,
        finite_only: true,
        work: |_, scale| match scale {
            Scale::Quick => vec![Work::Intervals(1 << 2), Work::Intervals(1 << 6)],
            Scale::Full => (1..=17)
                .step_by(2)
                .map(|k| Work::Intervals(1 << k))
                .collect(),
        },
        configure: |work| match work {
            Work::Intervals(intervals) => (
                Method::Richardson {
                    intervals,
                    grids: RICHARDSON_GRIDS,
                },
                None,
            ),
            Work::Tolerance(t) => (Method::Romberg, Some(t)),
        },
        evaluations: |work| match work {
            Work::Intervals(n) => Some((n << (RICHARDSON_GRIDS - 1)) + 1),
            Work::Tolerance(_) => None,
        },
    },
    BenchMethod {
        finite_only: true,
        ..adaptive("romberg", |work| (Method::Romberg, tolerance_of(work)))
    },
    adaptive("tanh-sinh", |work| (Method::TanhSinh, tolerance_of(work))),
    adaptive("gauss-legendre", |work| {
        (Method::GaussLegendre, tolerance_of(work))
    }),
    adaptive("gauss-kronrod", |work| {
        (Method::GaussKronrod, tolerance_of(work))
    }),
    adaptive("auto", |work| (Method::Auto, tolerance_of(work))),
    // The adaptive family of Kern and Alaghband with its default Gauss–Kronrod pair: CAQ (the
    // baseline, one interval at a time), BCAQ (block cutting on the calling thread) and PBCAQ
    // (a region of intervals in one backend call). The other schemes are in the speedup table
    // ([`speedup`]), where each runs once per integral rather than along a whole curve.
    adaptive("caq", |work| (family(Scheme::Caq), tolerance_of(work))),
    adaptive("bcaq", |work| (family(Scheme::Bcaq), tolerance_of(work))),
    adaptive("pbcaq", |work| (family(Scheme::Pbcaq), tolerance_of(work))),
];

/// A scheme of the adaptive family with the Gauss–Kronrod pair of the precision.
pub fn family(scheme: Scheme) -> Method {
    Method::Adaptive {
        scheme,
        rule: IntervalRule::GaussKronrod,
    }
}

/// An adaptive method's entry: its curve runs over [`tolerances`].
const fn adaptive(name: &'static str, configure: fn(Work) -> (Method, Option<f64>)) -> BenchMethod {
    BenchMethod {
        name,
        adaptive: true,
        finite_only: false,
        work: tolerances,
        configure,
        evaluations: |_| None,
    }
}

/// The tolerance axis of an adaptive method: 1e-4, 1e-8, ... down to what the precision can
/// reach (the quick sweep: 1e-8 and the reach).
fn tolerances(precision: Precision, scale: Scale) -> Vec<Work> {
    let reach = reach(precision);
    let mut exponents: Vec<i32> = match scale {
        Scale::Quick => vec![8],
        Scale::Full => (1..).map(|k| 4 * k).take_while(|&e| e < reach).collect(),
    };
    exponents.push(reach);
    exponents
        .into_iter()
        .map(|e| Work::Tolerance(ten_to_minus(e)))
        .collect()
}

/// The tolerance an amount of work asks for (none for a fixed grid: the method's default).
fn tolerance_of(work: Work) -> Option<f64> {
    match work {
        Work::Tolerance(t) => Some(t),
        Work::Intervals(_) => None,
    }
}

/// What became of one point.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// The method met its tolerance (for a fixed grid: the default tolerance of the precision,
    /// which coarse grids miss by design).
    Converged,
    /// The method stopped without meeting its tolerance; its estimate is still measured.
    NotConverged,
    /// The method returned an error (bad point, pole, bad option): the message.
    Failed(String),
    /// Not run: why.
    Skipped(String),
}

impl Status {
    /// `converged`, `not converged`, `failed` or `skipped`.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Converged => "converged",
            Status::NotConverged => "not converged",
            Status::Failed(_) => "failed",
            Status::Skipped(_) => "skipped",
        }
    }

    /// The error message or the reason for skipping.
    pub fn note(&self) -> &str {
        match self {
            Status::Failed(note) | Status::Skipped(note) => note,
            _ => "",
        }
    }
}

/// What was measured at a point that ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The estimate, every digit of its precision.
    pub value: String,
    /// Correct significant digits: −log10(|estimate − reference| / |reference|), capped at the
    /// reference's trusted digits.
    pub digits: f64,
    /// The method's own estimate of its absolute error.
    pub error_estimate: f64,
    /// |estimate − reference|.
    pub actual_error: f64,
    /// Integrand evaluations.
    pub evaluations: u64,
    /// Trapezoid levels (rows of the extrapolation table).
    pub levels: u32,
    /// Median wall-clock time of the timed runs, in seconds.
    pub seconds: f64,
    /// Timed runs behind the median (after one untimed warm-up; a point whose warm-up took
    /// four times the long-point threshold is timed by that one run).
    pub repeats: usize,
    /// The devices that did the work, as the estimate's stages name them.
    pub ran_on: String,
}

/// One point of the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The integral's name in the suite.
    pub integral: String,
    /// The method's name in [`METHODS`].
    pub method: &'static str,
    /// The working precision.
    pub precision: Precision,
    /// The device asked for.
    pub device: Device,
    /// The amount of work.
    pub work: Work,
    /// What became of it.
    pub status: Status,
    /// What was measured, when it ran (failed and skipped points have none).
    pub measurement: Option<Measurement>,
}

/// The options of a sweep.
#[derive(Debug, Clone)]
pub struct Config {
    /// Quick (CI) or full.
    pub scale: Scale,
    /// Words that select what runs: method, precision, device or integral names. Words of one
    /// kind are alternatives, kinds combine (`romberg qd` is Romberg in qd on every device).
    pub filter: Vec<String>,
    /// The cap on evaluations of one point.
    pub max_evaluations: u64,
    /// The most timed runs of one point after its warm-up.
    pub repeats: usize,
    /// The time the timed runs of one point may take together (at least one runs).
    pub repeat_budget: Duration,
    /// A point whose time exceeds this ends its curve: the next amount of work would take
    /// longer still. (A warm-up of four times this is the point's only run.)
    pub long_point: Duration,
    /// CPU worker threads (0: one per core).
    pub threads: usize,
}

impl Config {
    /// The defaults of `hpquad bench` and `hpquad bench --quick`.
    pub fn new(scale: Scale) -> Config {
        match scale {
            Scale::Quick => Config {
                scale,
                filter: Vec::new(),
                max_evaluations: 1 << 18,
                repeats: 3,
                repeat_budget: Duration::from_millis(300),
                long_point: Duration::from_secs(1),
                threads: 0,
            },
            Scale::Full => Config {
                scale,
                filter: Vec::new(),
                max_evaluations: 1 << 22,
                repeats: 5,
                repeat_budget: Duration::from_secs(1),
                long_point: Duration::from_secs(3),
                threads: 0,
            },
        }
    }

    /// Whether the filter lets a point of this kind run.
    fn selects(&self, integral: &str, method: &str, precision: Precision, device: Device) -> bool {
        let words: Vec<String> = self.filter.iter().map(|w| w.to_ascii_lowercase()).collect();
        let axis = |known: &[String], value: &str| {
            let asked: Vec<&String> = words.iter().filter(|w| known.contains(w)).collect();
            asked.is_empty() || asked.iter().any(|w| *w == value)
        };
        let methods: Vec<String> = METHODS.iter().map(|m| m.name.to_string()).collect();
        let precisions: Vec<String> = PRECISIONS.iter().map(|p| p.to_string()).collect();
        let device_names = ["cpu".to_string(), "gpu".to_string(), "auto".to_string()];
        axis(&methods, method)
            && axis(&precisions, &precision.to_string())
            && axis(&device_names, &device.to_string())
            && (words
                .iter()
                .all(|w| methods.contains(w) || precisions.contains(w) || device_names.contains(w))
                || words.iter().any(|w| w == integral))
    }

    /// Filter words that name nothing: a typo would otherwise select nothing silently.
    pub fn unknown_filter_words(&self, references: &[Reference]) -> Vec<String> {
        self.filter
            .iter()
            .filter(|w| {
                let w = w.to_ascii_lowercase();
                !(METHODS.iter().any(|m| m.name == w)
                    || PRECISIONS.iter().any(|p| p.to_string() == w)
                    || ["cpu", "gpu", "auto"].contains(&w.as_str())
                    || references.iter().any(|r| r.name == w))
            })
            .cloned()
            .collect()
    }
}

/// One curve to run: an integral, a method, a precision and a device, over the method's work.
#[derive(Debug, Clone)]
pub struct Curve<'a> {
    /// The integral.
    pub reference: &'a Reference,
    /// The method.
    pub method: &'static BenchMethod,
    /// The precision.
    pub precision: Precision,
    /// The device.
    pub device: Device,
    /// Its amounts of work, least first.
    pub work: Vec<Work>,
}

/// The curves a sweep runs, in order: integral, method, precision, device.
pub fn plan<'a>(references: &'a [Reference], config: &Config) -> Vec<Curve<'a>> {
    let devices = devices();
    let mut curves = Vec::new();
    for reference in references {
        if config.scale == Scale::Quick && !suite::QUICK.contains(&reference.name.as_str()) {
            continue;
        }
        for method in METHODS {
            for precision in PRECISIONS {
                for &device in &devices {
                    if config.selects(&reference.name, method.name, precision, device) {
                        curves.push(Curve {
                            reference,
                            method,
                            precision,
                            device,
                            work: (method.work)(precision, config.scale),
                        });
                    }
                }
            }
        }
    }
    curves
}

/// Runs one curve, calling `done` after each point (for a progress bar).
pub fn run_curve(curve: &Curve<'_>, config: &Config, mut done: impl FnMut(&Point)) -> Vec<Point> {
    let mut points = Vec::with_capacity(curve.work.len());
    // Why the rest of the curve is not run, once that is known.
    let mut stop: Option<String> = (curve.method.finite_only && curve.reference.is_infinite())
        .then(|| format!("{} needs a finite interval", curve.method.name));
    for &work in &curve.work {
        let status_or_skip = if let Some(reason) = &stop {
            Err(reason.clone())
        } else {
            match (curve.method.evaluations)(work) {
                Some(n) if n > config.max_evaluations => Err(format!(
                    "needs {n} evaluations, over the cap of {} (--max-evals)",
                    config.max_evaluations
                )),
                _ => Ok(()),
            }
        };
        let point = match status_or_skip {
            Err(reason) => Point {
                integral: curve.reference.name.clone(),
                method: curve.method.name,
                precision: curve.precision,
                device: curve.device,
                work,
                status: Status::Skipped(reason),
                measurement: None,
            },
            Ok(()) => {
                let point = run_point(curve, work, config);
                if let Some(m) = &point.measurement {
                    if m.seconds > config.long_point.as_secs_f64() {
                        stop = Some(format!(
                            "{work} took {:.1} s, over the {:.0} s a point may take; more work \
                             would take longer",
                            m.seconds,
                            config.long_point.as_secs_f64()
                        ));
                    } else if curve.method.adaptive && point.status == Status::NotConverged {
                        stop = Some(format!(
                            "{work} already stopped at a cap without converging; a tighter \
                             tolerance would repeat the same computation"
                        ));
                    }
                }
                point
            }
        };
        done(&point);
        points.push(point);
    }
    points
}

/// Runs one point: a warm-up, then timed runs; failures become [`Status::Failed`].
fn run_point(curve: &Curve<'_>, work: Work, config: &Config) -> Point {
    let (status, measurement) = observe(measure(curve, work, config), curve.reference);
    Point {
        integral: curve.reference.name.clone(),
        method: curve.method.name,
        precision: curve.precision,
        device: curve.device,
        work,
        status,
        measurement,
    }
}

/// What a timed computation ([`timed`]) tells against its reference: converged or not with
/// the measurement, or failed (an error from the method, or a reference that does not parse).
pub fn observe(
    timed: Result<(Estimate, f64, usize)>,
    reference: &Reference,
) -> (Status, Option<Measurement>) {
    let (estimate, seconds, repeats) = match timed {
        Ok(timed) => timed,
        Err(e) => return (Status::Failed(e.to_string()), None),
    };
    match correct_digits(&estimate.value, reference) {
        Ok((digits, actual_error)) => {
            let status = if estimate.converged {
                Status::Converged
            } else {
                Status::NotConverged
            };
            let mut devices: Vec<&str> = estimate.stages.iter().map(|s| &*s.device).collect();
            devices.dedup();
            let measurement = Measurement {
                value: estimate.value.to_string(),
                digits,
                error_estimate: estimate.error,
                actual_error,
                evaluations: estimate.evaluations,
                levels: estimate.levels,
                seconds,
                repeats,
                ran_on: devices.join(" then "),
            };
            (status, Some(measurement))
        }
        Err(e) => (Status::Failed(e.to_string()), None),
    }
}

/// A warm-up this many times the long-point threshold is its own measurement.
const VERY_LONG: u32 = 4;

/// The estimate at one point, the median time of its timed runs and their number.
fn measure(curve: &Curve<'_>, work: Work, config: &Config) -> Result<(Estimate, f64, usize)> {
    let (method, tolerance) = (curve.method.configure)(work);
    let r = curve.reference;
    let mut integral = Integral::new(&r.expression)?
        .bounds(&r.from, &r.to)
        .method(method)
        .precision(curve.precision)
        .device(curve.device)
        .threads(config.threads)
        .max_evaluations(config.max_evaluations);
    if let Some(t) = tolerance {
        integral = integral.tolerance(t);
    }
    timed(config, || {
        let estimate = integral.compute()?;
        let elapsed = estimate.elapsed;
        Ok((estimate, elapsed))
    })
}

/// Runs `run` once untimed, then as often as [`Config::repeats`] and [`Config::repeat_budget`]
/// allow: its first result, the median of the timed runs' durations and their number.
pub fn timed<R>(
    config: &Config,
    mut run: impl FnMut() -> Result<(R, Duration)>,
) -> Result<(R, f64, usize)> {
    // The warm-up pays for first-touch costs (thread start-up, kernel compilation: seconds
    // for a qd kernel with elementary functions), so it is never the measurement, unless it
    // is so long that such costs cannot matter and a second run would only double the wait.
    let (result, first) = run()?;
    if first >= config.long_point * VERY_LONG {
        return Ok((result, first.as_secs_f64(), 1));
    }
    let fit = config.repeat_budget.as_secs_f64() / first.as_secs_f64().max(1e-9);
    let runs = (fit as usize).clamp(1, config.repeats.max(1));
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        times.push(run()?.1.as_secs_f64());
    }
    Ok((result, median(&mut times), runs))
}

/// The median (the mean of the middle two for an even count).
fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => times[n / 2],
        _ => (times[n / 2 - 1] + times[n / 2]) / 2.0,
    }
}

/// Correct digits of `value` against the reference, and the absolute error; computed in
/// quad-double, where every precision's value is exact.
pub fn correct_digits(value: &Value, reference: &Reference) -> Result<(f64, f64)> {
    let exact = Qd::parse_decimal(&reference.value).map_err(|e| crate::Error::InvalidOption {
        option: "references",
        reason: format!("the value of '{}' does not parse: {e}", reference.name),
    })?;
    let x = to_qd(value);
    let cap = QD_REFERENCE_DIGITS.min(reference.trusted_digits as f64);
    let error = (x - exact).abs();
    if !x.is_finite() {
        return Ok((0.0, f64::INFINITY));
    }
    if error == Qd::zero() {
        return Ok((cap, 0.0));
    }
    let relative = (error / exact.abs()).to_f64();
    let digits = if relative.is_finite() {
        (-relative.log10()).clamp(0.0, cap)
    } else {
        0.0
    };
    Ok((digits, error.to_f64()))
}

/// A value of any precision in quad-double, where each is exact.
pub fn to_qd(value: &Value) -> Qd {
    match *value {
        Value::F64(x) => Qd::from_f64(x),
        Value::Dd(Dd { hi, lo }) => Qd::from_limbs(&[hi, lo, 0.0, 0.0]),
        Value::Qd(x) => x,
    }
}

/// The quick-mode checks: on every integral of the quick suite that ran, every adaptive method
/// at its tightest tolerance must reach [`required_digits`] in each precision and on each
/// device.
/// Returns the failures, one line each (empty when all pass), and the number of checks made.
pub fn check(points: &[Point]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for p in points {
        let Work::Tolerance(t) = p.work else { continue };
        let tightest = ten_to_minus(reach(p.precision));
        let adaptive = METHODS.iter().any(|m| m.name == p.method && m.adaptive);
        if !adaptive || t != tightest || !suite::QUICK.contains(&p.integral.as_str()) {
            continue;
        }
        checked += 1;
        let want = required_digits(p.precision);
        match &p.measurement {
            Some(m) if m.digits >= want => {}
            Some(m) => failures.push(format!(
                "{} {} on {}: {:.1} correct digits, {want} required",
                p.integral, p.precision, p.device, m.digits
            )),
            None => failures.push(format!(
                "{} {} on {}: {} ({}), {want} digits required",
                p.integral,
                p.precision,
                p.device,
                p.status.label(),
                p.status.note()
            )),
        }
    }
    (failures, checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn work_axes_grow() {
        for method in METHODS {
            for p in PRECISIONS {
                for scale in [Scale::Quick, Scale::Full] {
                    let work = (method.work)(p, scale);
                    assert!(work.len() >= 2, "{} has a curve", method.name);
                    let key = |w: &Work| match *w {
                        Work::Tolerance(t) => -t.log10(),
                        Work::Intervals(n) => n as f64,
                    };
                    assert!(work.windows(2).all(|w| key(&w[0]) < key(&w[1])));
                }
            }
        }
    }

    #[test]
    fn filter_words_combine_by_axis() {
        let mut config = Config::new(Scale::Full);
        config.filter = vec!["romberg".into(), "qd".into(), "dd".into()];
        assert!(config.selects("pi", "romberg", Precision::Qd, Device::Cpu));
        assert!(config.selects("pi", "romberg", Precision::Dd, Device::Cpu));
        assert!(!config.selects("pi", "romberg", Precision::F64, Device::Cpu));
        assert!(!config.selects("pi", "trapezoid", Precision::Qd, Device::Cpu));
        config.filter = vec!["pi".into()];
        assert!(config.selects("pi", "trapezoid", Precision::F64, Device::Cpu));
        assert!(!config.selects("peak", "trapezoid", Precision::F64, Device::Cpu));
    }
}
