//! Many integrals of one parametrised integrand at once: [`Batch`], one integral per tuple of
//! parameter values, each on its own rayon task by a [`BatchMethod`].
//!
//! The integrand and the bounds are expressions in the named parameters
//! ([`Expr::parse_with_parameters`]); the parameters are variables after the coordinates, so
//! the integrand of a tuple is evaluated at points (x, p1, p2, ...). Parameter values given as
//! decimal text are exact in the working precision, as literals are; evenly spaced values
//! ([`ParamValue::linspace`]) are computed in the working precision from the decimal text of
//! their ends.

use precision::{Dd, Qd, Real};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::estimate::Value;
use crate::expr::Expr;
use crate::gpu::{self, BatchParams, BatchSettings, Gpu, GpuReal, ParamSource, RowFailure};
use crate::methods::batch::faq::{self, Steps};
use crate::methods::batch::kronrod::{self, Scratch};
use crate::methods::batch::point::PointEval;
use crate::methods::batch::{fubini, simpson, BatchMethod, Integrated, NonFiniteAt, Tolerance};
use crate::methods::gauss_kronrod::gauss_points;
use crate::options::{Device, Precision};
use crate::rules::{self, KronrodRule};

/// The value of one parameter in one tuple.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// Decimal text or a constant expression ("0.1", "pi/4"), exact in the working precision
    /// as a literal is.
    Text(String),
    /// A double, taken as it is.
    F64(f64),
    /// Point `index` of `count` evenly spaced from `start` to `stop` (both decimal text or
    /// constant expressions): start + index · (stop − start) / (count − 1) in the working
    /// precision (`start` when count is 1).
    Linspace {
        /// The first value.
        start: String,
        /// The last value.
        stop: String,
        /// Which point, from 0.
        index: u64,
        /// How many points.
        count: u64,
    },
}

impl ParamValue {
    /// Point `index` of `count` evenly spaced from `start` to `stop`.
    pub fn linspace(start: &str, stop: &str, index: u64, count: u64) -> ParamValue {
        ParamValue::Linspace {
            start: start.to_string(),
            stop: stop.to_string(),
            index,
            count,
        }
    }

    /// The value in `T`, or why it is not a number.
    pub fn value<T: Real>(&self) -> std::result::Result<T, String> {
        match self {
            ParamValue::Text(text) => constant::<T>(text),
            ParamValue::F64(x) => Ok(T::from_f64(*x)),
            ParamValue::Linspace {
                start,
                stop,
                index,
                count,
            } => {
                if *count == 0 || index >= count {
                    return Err(format!("point {index} of {count} evenly spaced values"));
                }
                let start = constant::<T>(start)?;
                if *count == 1 {
                    return Ok(start);
                }
                let stop = constant::<T>(stop)?;
                let k = T::from_i64(*index as i64);
                Ok(start + k * (stop - start) / T::from_i64(*count as i64 - 1))
            }
        }
    }
}

impl From<f64> for ParamValue {
    fn from(x: f64) -> ParamValue {
        ParamValue::F64(x)
    }
}

impl From<&str> for ParamValue {
    fn from(text: &str) -> ParamValue {
        ParamValue::Text(text.to_string())
    }
}

impl From<String> for ParamValue {
    fn from(text: String) -> ParamValue {
        ParamValue::Text(text)
    }
}

/// Decimal text exactly in `T`, or a constant expression evaluated in `T`.
fn constant<T: Real>(text: &str) -> std::result::Result<T, String> {
    if let Ok(x) = T::parse_decimal(text.trim()) {
        return Ok(x);
    }
    let x = Expr::parse(text, 0)
        .map_err(|e| e.to_string())?
        .eval_constant::<T>();
    if x.is_nan() {
        return Err(format!("'{text}' is not a number"));
    }
    Ok(x)
}

/// One integral of a batch: its estimate, or why it failed (in its own row).
#[derive(Debug, Clone, PartialEq)]
pub struct BatchEstimate {
    /// The estimate, in the working precision.
    pub value: Value,
    /// The estimated absolute error; for FAQ the paper's a-priori bound (Theorem 1) evaluated
    /// on the samples.
    pub error: f64,
    /// Integrand evaluations.
    pub evaluations: u64,
    /// Whether `error` meets the tolerance (and the method stopped on its own test, not on a
    /// cap).
    pub converged: bool,
}

/// A bound's text and its expression in the parameters.
#[derive(Debug, Clone)]
struct BoundText {
    text: String,
    expr: std::result::Result<Expr, String>,
}

/// Many integrals of one integrand with named parameters, one per tuple of values.
///
/// ```
/// use hpquad::{Batch, BatchMethod, ParamValue, Precision};
///
/// // ∫_0^1 exp(-p x) dx = (1 - e^-p) / p for p = 1, 2, 3.
/// let rows: Vec<Vec<ParamValue>> = ["1", "2", "3"].iter().map(|p| vec![(*p).into()]).collect();
/// let estimates = Batch::new("exp(-p*x)", &["p"])?
///     .bounds("0", "1")
///     .method(BatchMethod::GaussKronrod)
///     .precision(Precision::F64)
///     .tolerance(1e-12)
///     .compute(&rows)?;
/// for (p, estimate) in [1.0f64, 2.0, 3.0].iter().zip(&estimates) {
///     let estimate = estimate.as_ref().expect("finite everywhere");
///     assert!(estimate.converged);
///     assert!((estimate.value.to_f64() - (1.0 - (-p).exp()) / p).abs() < 1e-12);
/// }
/// # Ok::<(), hpquad::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Batch {
    integrand: Expr,
    x: Option<(BoundText, BoundText)>,
    y: Option<(BoundText, BoundText)>,
    method: BatchMethod,
    precision: Precision,
    relative: Option<f64>,
    absolute: f64,
    max_evaluations: u64,
    steps: Steps,
    threads: usize,
    device: Device,
    gpu_chunk: usize,
}

/// The smallest batch that [`Device::Auto`] sends to the GPU: below it, starting the device
/// and compiling the kernel cost more than the CPU's work.
pub const GPU_MIN_BATCH: usize = 10_000;

/// The default cap on evaluations per integral: MATLAB `quad`'s `maxfcnt`.
pub const DEFAULT_MAX_EVALUATIONS: u64 = 10_000;

impl Batch {
    /// Integrals in x of `source`, an expression in x and the named `parameters`.
    pub fn new(source: &str, parameters: &[&str]) -> Result<Batch> {
        Batch::with_dims(source, 1, parameters)
    }

    /// Integrals over rectangles of `source`, an expression in x, y and the named
    /// `parameters`, by Fubini (an inner integral in y at each point of the outer one in x, as
    /// Thuerck et al. §4 do for FAQ; every batch method); give the y range with
    /// [`Batch::y_bounds`].
    pub fn new_2d(source: &str, parameters: &[&str]) -> Result<Batch> {
        Batch::with_dims(source, 2, parameters)
    }

    fn with_dims(source: &str, dims: usize, parameters: &[&str]) -> Result<Batch> {
        Ok(Batch {
            integrand: Expr::parse_with_parameters(source, dims, parameters)?,
            x: None,
            y: None,
            method: BatchMethod::default(),
            precision: Precision::default(),
            relative: None,
            absolute: 0.0,
            max_evaluations: DEFAULT_MAX_EVALUATIONS,
            steps: Steps::default(),
            threads: 0,
            device: Device::Cpu,
            gpu_chunk: 0,
        })
    }

    fn bound(&self, text: &str) -> BoundText {
        let names: Vec<&str> = self
            .integrand
            .parameters()
            .iter()
            .map(String::as_str)
            .collect();
        BoundText {
            text: text.to_string(),
            expr: Expr::parse_with_parameters(text, 0, &names).map_err(|e| e.to_string()),
        }
    }

    /// The x range: finite expressions in the parameters, e.g. `("0", "1/p")`, read in the
    /// working precision.
    pub fn bounds(mut self, lower: &str, upper: &str) -> Batch {
        self.x = Some((self.bound(lower), self.bound(upper)));
        self
    }

    /// The y range of a 2-D batch.
    pub fn y_bounds(mut self, lower: &str, upper: &str) -> Batch {
        self.y = Some((self.bound(lower), self.bound(upper)));
        self
    }

    /// The method (default Gauss–Kronrod).
    pub fn method(mut self, method: BatchMethod) -> Batch {
        self.method = method;
        self
    }

    /// The working precision (default f64).
    pub fn precision(mut self, precision: Precision) -> Batch {
        self.precision = precision;
        self
    }

    /// The relative tolerance per integral (default: 1000 units in the last place).
    pub fn tolerance(mut self, relative: f64) -> Batch {
        self.relative = Some(relative);
        self
    }

    /// The absolute tolerance per integral (default 0).
    pub fn abs_tolerance(mut self, absolute: f64) -> Batch {
        self.absolute = absolute;
        self
    }

    /// The cap on evaluations per integral (default `DEFAULT_MAX_EVALUATIONS`).
    pub fn max_evaluations(mut self, evaluations: u64) -> Batch {
        self.max_evaluations = evaluations;
        self
    }

    /// FAQ's smallest and largest steps as fractions of the interval (default 0.01 and 0.35, see
    /// [`Steps`](crate::methods::batch::faq::Steps)).
    pub fn steps(mut self, min: f64, max: f64) -> Batch {
        self.steps = Steps { min, max };
        self
    }

    /// Worker threads; 0 (the default) means one per core. Results do not depend on it.
    pub fn threads(mut self, threads: usize) -> Batch {
        self.threads = threads;
        self
    }

    /// Where the integrals run (default [`Device::Cpu`]): [`Device::Gpu`] runs every integral
    /// (in x, or over a rectangle by Fubini) on the first CUDA device, one per thread, with
    /// the CPU's algorithms (dd and qd results are the CPU's bits; f64 ones may differ in the
    /// last bits where the integrand or a bound calls a transcendental function); no device is
    /// then an error. [`Device::Auto`] takes the GPU for batches of at least `GPU_MIN_BATCH`
    /// integrals when one is present and the integrand compiles for it, the CPU otherwise.
    pub fn device(mut self, device: Device) -> Batch {
        self.device = device;
        self
    }

    /// Integrals per GPU launch; 0 (the default) sizes launches from the device's memory
    /// ([`Gpu::batch_chunk`]). Results do not depend on it.
    pub fn gpu_chunk(mut self, integrals: usize) -> Batch {
        self.gpu_chunk = integrals;
        self
    }

    /// The parameters' names, in the order of a tuple.
    pub fn parameters(&self) -> &[String] {
        self.integrand.parameters()
    }

    /// One estimate per tuple of `rows`, in order (each tuple holds a value per parameter, in
    /// the order they were declared). An integral that fails (a non-finite value, a bound
    /// that is not a finite number, a tuple of the wrong length) is an error in its own row;
    /// the error of the whole call is about the batch as stated (options, missing bounds).
    pub fn compute(&self, rows: &[Vec<ParamValue>]) -> Result<Vec<Result<BatchEstimate>>> {
        self.validate()?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .map_err(|e| Error::ThreadPool {
                threads: self.threads,
                reason: e.to_string(),
            })?;
        pool.install(|| match self.precision {
            Precision::F64 => self.run::<f64>(rows),
            Precision::Dd => self.run::<Dd>(rows),
            Precision::Qd => self.run::<Qd>(rows),
        })
    }

    fn validate(&self) -> Result<()> {
        let option =
            |option: &'static str, reason: String| Err(Error::InvalidOption { option, reason });
        if let Some(r) = self.relative {
            if !(r.is_finite() && r >= 0.0) {
                return option(
                    "tolerance",
                    format!("the relative tolerance is {r}; it must be finite and >= 0"),
                );
            }
        }
        if !(self.absolute.is_finite() && self.absolute >= 0.0) {
            return option(
                "abs_tolerance",
                format!(
                    "the absolute tolerance is {}; it must be finite and >= 0",
                    self.absolute
                ),
            );
        }
        if !self.steps.is_valid() {
            return option(
                "steps",
                format!(
                    "FAQ's steps are {} and {} of the interval; give 1e-6 <= min <= max <= 1",
                    self.steps.min, self.steps.max
                ),
            );
        }
        if self.threads > 1024 {
            return option(
                "threads",
                format!(
                    "{} threads were asked for; give 0 (one per core) to 1024",
                    self.threads
                ),
            );
        }
        let dims = self.integrand.coordinates();
        for (which, range) in [("bounds", &self.x), ("y_bounds", &self.y)]
            .into_iter()
            .take(dims)
        {
            match range {
                None => {
                    return option(
                        which,
                        format!(
                            "no {} range was given; call .{which}(lower, upper)",
                            if which == "bounds" { "x" } else { "y" }
                        ),
                    )
                }
                Some((lower, upper)) => {
                    for (side, b) in [("lower", lower), ("upper", upper)] {
                        if let Err(reason) = &b.expr {
                            return Err(Error::InvalidBound {
                                which: side,
                                text: b.text.clone(),
                                reason: reason.clone(),
                            });
                        }
                    }
                }
            }
        }
        if dims == 1 && self.y.is_some() {
            return option(
                "y_bounds",
                "the integrand is in x alone; create the batch with Batch::new_2d for x and y"
                    .to_string(),
            );
        }
        Ok(())
    }

    /// Every row in precision `T`, in parallel, in order, on the device the options choose.
    fn run<T: Real + GpuReal>(&self, rows: &[Vec<ParamValue>]) -> Result<Vec<Result<BatchEstimate>>>
    where
        Value: From<T>,
    {
        let rule = match self.method {
            BatchMethod::GaussKronrod => Some(rules::kronrod::<T>(gauss_points::<T>())?),
            _ => None,
        };
        let tolerance = Tolerance {
            relative: self.relative.unwrap_or(1000.0 * Real::to_f64(T::epsilon())),
            absolute: self.absolute,
        };
        let sweeps = (0..self.parameters().len())
            .map(|k| sweep_of::<T>(rows, k))
            .collect();
        let job = Job {
            batch: self,
            rule: rule.as_deref(),
            tolerance,
            sweeps,
        };
        match self.device {
            Device::Cpu => {}
            Device::Gpu => return self.run_gpu(&job, rows),
            Device::Auto => {
                if rows.len() >= GPU_MIN_BATCH && gpu::is_available() {
                    // A device that cannot start or an integrand it cannot compile leaves the
                    // batch to the CPU, as Auto promises.
                    if let Ok(estimates) = self.run_gpu(&job, rows) {
                        return Ok(estimates);
                    }
                }
            }
        }
        Ok(rows
            .par_iter()
            .enumerate()
            .map_init(
                || Task::<T>::new(&job),
                |task, (r, row)| task.integrate(&job, r, row),
            )
            .collect())
    }

    /// Every row on the GPU, one device thread per integral. The host does what the device
    /// cannot: it reads each parameter as a sweep the device makes from the row's index
    /// ([`sweep_of`]) or as values it uploads, checks each row's length and values (a row
    /// that fails here keeps the CPU's error, and the device's answer for it is dropped),
    /// and turns the device's columns into rows in parallel; the bounds are evaluated on the
    /// device, a bound that is not finite is the row's error as on the CPU.
    fn run_gpu<T: Real + GpuReal>(
        &self,
        job: &Job<'_, T>,
        rows: &[Vec<ParamValue>],
    ) -> Result<Vec<Result<BatchEstimate>>>
    where
        Value: From<T>,
    {
        let names = self.parameters();
        let p = names.len();
        let coords = self.integrand.coordinates();
        let n = rows.len();
        let gpu_error = |e: crate::expr::cuda::CodegenError| Error::Gpu(e.to_string());
        // The integrand and the bounds as device code; a bound that did not parse stopped the
        // batch in validate.
        let integrand =
            crate::expr::cuda::integrand::<T>(self.integrand.tape()).map_err(gpu_error)?;
        let bounds = self
            .bound_exprs()
            .map(|e| crate::expr::cuda::integrand::<T>(e.tape()).map_err(gpu_error))
            .collect::<Result<Vec<_>>>()?;
        let nodes = job.rule.map_or(0, |r| r.nodes().len());
        let source = Gpu::batch_source::<T>(&integrand, &bounds, self.method, coords, nodes)?;
        let device = Gpu::new(0)?;

        // Each parameter: a sweep made on the device, or an uploaded column.
        let mut sources = Vec::with_capacity(p);
        let mut uploaded = Vec::new();
        for (k, sweep) in job.sweeps.iter().enumerate() {
            match sweep {
                Some(sweep) => sources.push(*sweep),
                None => {
                    sources.push(ParamSource::Column(uploaded.len()));
                    uploaded.push(k);
                }
            }
        }
        // The uploaded values, row-major, and which rows the host can make at all.
        let u = uploaded.len();
        let mut values = vec![T::zero(); n * u];
        let made: Vec<bool> = if u == 0 {
            rows.par_iter().map(|row| row.len() == p).collect()
        } else {
            values
                .par_chunks_mut(u)
                .zip(rows.par_iter())
                .map(|(slots, row)| {
                    row.len() == p
                        && slots
                            .iter_mut()
                            .zip(&uploaded)
                            .all(|(slot, &k)| row[k].value::<T>().map(|v| *slot = v).is_ok())
                })
                .collect()
        };
        let settings = BatchSettings {
            method: self.method,
            tolerance: job.tolerance,
            max_evaluations: self.max_evaluations,
            steps: self.steps,
            rule: job.rule,
            chunk: self.gpu_chunk,
        };
        let params = BatchParams {
            rows: n,
            sources: &sources,
            values: &values,
        };
        let columns = device.batch(&source, coords, integrand.dims, &params, &settings)?;
        if columns.len() != n {
            return Err(Error::Gpu(format!(
                "the device returned {} integrals for the {n} it was given",
                columns.len()
            )));
        }
        let texts: Vec<&BoundText> = self.bound_texts().collect();
        Ok((0..n)
            .into_par_iter()
            .map(|i| {
                let row = &rows[i];
                // The parameters as the CPU reads them, for a failed row's message alone.
                let params = || {
                    let mut params = vec![T::zero(); p];
                    row_values(names, &job.sweeps, i, row, &mut params).map(|()| params)
                };
                if !made[i] {
                    return Err(params().err().unwrap_or_else(|| {
                        Error::Gpu(format!("row {i} was set aside but its values read"))
                    }));
                }
                match columns.row(i) {
                    Ok(r) => conclude(job, params, Ok(r)),
                    Err(RowFailure::NonFinite(at)) => conclude(job, params, Err(at)),
                    Err(RowFailure::Bound { which, value }) => {
                        let params = params()?;
                        Err(bound_error(which, texts[which], value, names, &params))
                    }
                }
            })
            .collect())
    }

    /// The bounds' texts in x then y order, lower before upper.
    fn bound_texts(&self) -> impl Iterator<Item = &BoundText> {
        [&self.x, &self.y]
            .into_iter()
            .take(self.integrand.coordinates())
            .flatten()
            .flat_map(|(lower, upper)| [lower, upper])
    }

    /// The bounds' expressions in [`Batch::bound_texts`]'s order (those that parsed: all of
    /// them once validate has passed).
    fn bound_exprs(&self) -> impl Iterator<Item = &Expr> {
        self.bound_texts().filter_map(|b| b.expr.as_ref().ok())
    }
}

/// Parameter `k` as a sweep the device can make from the row's index: every row's value is
/// point (r / stride) mod count of the same [`ParamValue::Linspace`] (one parameter's range,
/// or a range in a grid of them, as `--param` makes them), whose ends are numbers in `T`.
/// None sends the values instead. The device then computes what
/// [`ParamValue::value`] computes, in the same operations.
fn sweep_of<T: Real>(rows: &[Vec<ParamValue>], k: usize) -> Option<ParamSource<T>> {
    let Some(ParamValue::Linspace {
        start,
        stop,
        index: 0,
        count,
    }) = rows.first()?.get(k)
    else {
        return None;
    };
    let count = *count;
    if count == 0 || count > 1 << 53 {
        return None;
    }
    let first = constant::<T>(start).ok()?;
    // With one point the stop is never read.
    let last = if count == 1 {
        first
    } else {
        constant::<T>(stop).ok()?
    };
    let point = |row: &Vec<ParamValue>| match row.get(k) {
        Some(ParamValue::Linspace {
            start: s,
            stop: e,
            index,
            count: c,
        }) if *c == count && s == start && e == stop => Some(*index),
        _ => None,
    };
    // Rows per point: where the index first moves (to 1), or all of them.
    let stride = match rows.iter().position(|row| point(row) != Some(0)) {
        None => return Some(sweep(first, last, count, rows.len().max(1) as u64)),
        Some(r) if point(&rows[r]) == Some(1) => r as u64,
        Some(_) => return None,
    };
    let regular = rows
        .par_iter()
        .enumerate()
        .all(|(r, row)| point(row) == Some((r as u64 / stride) % count));
    regular.then(|| sweep(first, last, count, stride))
}

fn sweep<T>(start: T, stop: T, count: u64, stride: u64) -> ParamSource<T> {
    ParamSource::Sweep {
        start,
        stop,
        count,
        stride,
    }
}

/// The values of tuple `r` in `T`, into `out`, or why it has none (the wrong length, a value
/// that is not a number). A parameter with a sweep ([`sweep_of`]) takes the sweep's value at
/// `r`, the bits [`ParamValue::value`] gives, without reading its text again.
fn row_values<T: Real>(
    names: &[String],
    sweeps: &[Option<ParamSource<T>>],
    r: usize,
    row: &[ParamValue],
    out: &mut [T],
) -> Result<()> {
    if row.len() != names.len() {
        return Err(Error::InvalidOption {
            option: "parameters",
            reason: format!(
                "a tuple of {} values was given for the {} parameters {}",
                row.len(),
                names.len(),
                names.join(", ")
            ),
        });
    }
    for (k, ((value, name), slot)) in row.iter().zip(names).zip(out).enumerate() {
        if let Some(v) = sweeps
            .get(k)
            .copied()
            .flatten()
            .and_then(|s| s.sweep_value(r as u64))
        {
            *slot = v;
            continue;
        }
        *slot = value.value::<T>().map_err(|reason| Error::InvalidOption {
            option: "parameters",
            reason: format!("the value of {name}: {reason}"),
        })?;
    }
    Ok(())
}

/// The error of bound `which` (x lower, x upper, y lower, y upper), `value` for the
/// parameters `params`.
fn bound_error<T: Real>(
    which: usize,
    text: &BoundText,
    value: T,
    names: &[String],
    params: &[T],
) -> Error {
    Error::InvalidBound {
        which: if which.is_multiple_of(2) {
            "lower"
        } else {
            "upper"
        },
        text: text.text.clone(),
        reason: format!(
            "it is {value} for {}; the batch methods need finite bounds",
            describe(names, params)
        ),
    }
}

/// A method's outcome as the row's estimate or error; `params` gives the row's parameter
/// values, asked for only to name them in an error.
fn conclude<T: Real>(
    job: &Job<'_, T>,
    params: impl FnOnce() -> Result<Vec<T>>,
    outcome: std::result::Result<Integrated<T>, NonFiniteAt<T>>,
) -> Result<BatchEstimate>
where
    Value: From<T>,
{
    let names = job.batch.parameters();
    let describe = |params: Result<Vec<T>>| -> Result<String> { Ok(describe(names, &params?)) };
    match outcome {
        Ok(r) if !r.value.is_finite() => Err(Error::Overflow {
            value: format!("{} (at {})", r.value, describe(params())?),
            evaluations: r.evaluations,
        }),
        Ok(r) => Ok(BatchEstimate {
            value: r.value.into(),
            error: r.error,
            evaluations: r.evaluations,
            converged: r.converged && job.tolerance.is_met(r.error, r.value.to_f64()),
        }),
        Err(at) => Err(Error::NonFinite {
            x: match at.y {
                None => format!("{}, {}", at.x, describe(params())?),
                Some(y) => format!("{}, y = {y}, {}", at.x, describe(params())?),
            },
            value: at.value.to_string(),
        }),
    }
}

/// What every task shares.
struct Job<'a, T> {
    batch: &'a Batch,
    rule: Option<&'a KronrodRule<T>>,
    tolerance: Tolerance,
    /// Each parameter's sweep over the rows, where it is one ([`sweep_of`]).
    sweeps: Vec<Option<ParamSource<T>>>,
}

/// One worker's state: the integrand and the bounds ready to evaluate, the variables
/// (coordinates, then parameters) and the Kronrod scratch space (a second one for the outer
/// integral of a 2-D batch, whose pieces stay open while the inner ones run).
struct Task<'a, T> {
    f: PointEval<'a, T>,
    bounds: Vec<PointEval<'a, T>>,
    vars: Vec<T>,
    scratch: Scratch<T>,
    outer_scratch: Scratch<T>,
}

impl<'a, T: Real> Task<'a, T>
where
    Value: From<T>,
{
    fn new(job: &Job<'a, T>) -> Task<'a, T> {
        let batch = job.batch;
        let bounds = batch
            .bound_exprs()
            .map(|e| PointEval::new(e.tape()))
            .collect();
        let dims = batch.integrand.coordinates();
        Task {
            f: PointEval::new(batch.integrand.tape()),
            bounds,
            vars: vec![T::zero(); dims + batch.parameters().len()],
            scratch: Scratch::new(job.rule.map_or(0, KronrodRule::points)),
            outer_scratch: Scratch::new(job.rule.map_or(0, KronrodRule::points)),
        }
    }

    /// The row's bounds (x, then y), its parameter values left in the variables after the
    /// coordinates, or why it cannot be integrated.
    fn prepare(&mut self, job: &Job<'a, T>, r: usize, row: &[ParamValue]) -> Result<[T; 4]> {
        let batch = job.batch;
        let dims = batch.integrand.coordinates();
        let names = batch.parameters();
        row_values(names, &job.sweeps, r, row, &mut self.vars[dims..])?;
        let params = &self.vars[dims..];
        // The bounds of this tuple, in x then y order, each finite.
        let mut ends = [T::zero(); 4];
        for (k, (eval, text)) in self.bounds.iter_mut().zip(batch.bound_texts()).enumerate() {
            let v = eval.at(params);
            if !v.is_finite() {
                return Err(bound_error(k, text, v, names, params));
            }
            ends[k] = v;
        }
        Ok(ends)
    }

    fn integrate(
        &mut self,
        job: &Job<'a, T>,
        r: usize,
        row: &[ParamValue],
    ) -> Result<BatchEstimate> {
        let ends = self.prepare(job, r, row)?;
        let batch = job.batch;
        let dims = batch.integrand.coordinates();
        let method = batch.method;
        let steps = batch.steps;
        let cap = batch.max_evaluations;
        let (vars, f) = (&mut self.vars, &mut self.f);
        let outcome = if dims == 1 {
            let mut g = |x: T| {
                vars[0] = x;
                f.at(vars)
            };
            oriented(ends[0], ends[1], |a, b| match method {
                BatchMethod::Faq => faq::faq(&mut g, a, b, steps),
                BatchMethod::AdaptiveSimpson => {
                    simpson::adaptive_simpson(&mut g, a, b, job.tolerance, cap)
                }
                BatchMethod::GaussKronrod => match job.rule {
                    Some(rule) => kronrod::gauss_kronrod(
                        &mut g,
                        a,
                        b,
                        rule,
                        job.tolerance,
                        cap,
                        &mut self.scratch,
                    ),
                    None => unreachable!("the rule is fetched for Gauss–Kronrod batches"),
                },
            })
        } else {
            let mut g = |x: T, y: T| {
                vars[0] = x;
                vars[1] = y;
                f.at(vars)
            };
            let (ay, by) = (ends[2], ends[3]);
            let (scratch, outer_scratch) = (&mut self.scratch, &mut self.outer_scratch);
            oriented(ends[0], ends[1], |ax, bx| {
                oriented(ay, by, |ay, by| {
                    let (x, y) = ((ax, bx), (ay, by));
                    let tolerance = job.tolerance;
                    let (inner, outer) = fubini::tolerances(tolerance, (bx - ax).to_f64());
                    match method {
                        BatchMethod::Faq => faq::faq_2d(&mut g, x, y, steps),
                        BatchMethod::AdaptiveSimpson => fubini::fubini(
                            &mut g,
                            x,
                            y,
                            &mut |row, a, b, left| {
                                simpson::adaptive_simpson(row, a, b, inner, left)
                            },
                            &mut |column, a, b, left| {
                                simpson::adaptive_simpson(column, a, b, outer, left)
                            },
                            Some(tolerance),
                            cap,
                        ),
                        BatchMethod::GaussKronrod => match job.rule {
                            Some(rule) => fubini::fubini(
                                &mut g,
                                x,
                                y,
                                &mut |row, a, b, left| {
                                    kronrod::gauss_kronrod(row, a, b, rule, inner, left, scratch)
                                },
                                &mut |column, a, b, left| {
                                    kronrod::gauss_kronrod(
                                        column,
                                        a,
                                        b,
                                        rule,
                                        outer,
                                        left,
                                        outer_scratch,
                                    )
                                },
                                Some(tolerance),
                                cap,
                            ),
                            None => unreachable!("the rule is fetched for Gauss–Kronrod batches"),
                        },
                    }
                })
            })
        };
        let params = &self.vars[dims..];
        conclude(job, || Ok(params.to_vec()), outcome)
    }
}

/// The integral from a to b by `run` on the ordered interval: 0 when empty, negated when
/// reversed.
fn oriented<T: Real>(
    a: T,
    b: T,
    run: impl FnOnce(T, T) -> std::result::Result<Integrated<T>, NonFiniteAt<T>>,
) -> std::result::Result<Integrated<T>, NonFiniteAt<T>> {
    if a == b {
        Ok(Integrated {
            value: T::zero(),
            error: 0.0,
            evaluations: 0,
            converged: true,
        })
    } else if a < b {
        run(a, b)
    } else {
        run(b, a).map(|r| Integrated {
            value: -r.value,
            ..r
        })
    }
}

/// "p = 2, q = 0.5" for error messages.
fn describe<T: Real>(names: &[String], values: &[T]) -> String {
    names
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(ranges: &[(&str, &str, u64)]) -> Vec<Vec<ParamValue>> {
        // The last range changes fastest, as `--param` builds its grid.
        let mut rows: Vec<Vec<ParamValue>> = vec![vec![]];
        for &(start, stop, count) in ranges {
            rows = rows
                .into_iter()
                .flat_map(|row| {
                    (0..count).map(move |i| {
                        let mut row = row.clone();
                        row.push(ParamValue::linspace(start, stop, i, count));
                        row
                    })
                })
                .collect();
        }
        rows
    }

    #[test]
    fn sweeps_are_found_with_their_strides() {
        let rows = grid(&[("0", "1", 3), ("0.5", "pi", 4), ("2", "2", 1)]);
        assert_eq!(rows.len(), 12);
        let strides: Vec<Option<ParamSource<Dd>>> = (0..3).map(|k| sweep_of(&rows, k)).collect();
        let pi = Dd::PI;
        assert_eq!(
            strides,
            vec![
                Some(sweep(Dd::from(0.0), Dd::from(1.0), 3, 4)),
                Some(sweep(Dd::from(0.5), pi, 4, 1)),
                Some(sweep(Dd::from(2.0), Dd::from(2.0), 1, 12)),
            ]
        );
        // The device's formula on each row's index gives the host's value, bit for bit.
        for (r, row) in rows.iter().enumerate() {
            for (k, source) in strides.iter().enumerate() {
                let made = source.and_then(|s| s.sweep_value(r as u64));
                assert_eq!(made, row[k].value::<Dd>().ok(), "row {r}, parameter {k}");
            }
        }
    }

    #[test]
    fn irregular_columns_are_uploaded() {
        let mut rows = grid(&[("0", "1", 5)]);
        // Out of order, another range, a plain value, a missing value, a stop that is not a
        // number, no rows: each is sent as values (whose errors are the CPU's).
        let mut swapped = rows.clone();
        swapped.swap(1, 2);
        let mut other = rows.clone();
        other[3] = vec![ParamValue::linspace("0", "2", 3, 5)];
        let mut plain = rows.clone();
        plain[4] = vec![ParamValue::F64(1.0)];
        let mut short = rows.clone();
        short[2] = vec![];
        let bad_stop = grid(&[("0", "one", 5)]);
        for (what, rows) in [
            ("swapped", &swapped),
            ("other range", &other),
            ("plain", &plain),
            ("short", &short),
            ("bad stop", &bad_stop),
            ("empty", &Vec::new()),
        ] {
            assert_eq!(sweep_of::<f64>(rows, 0), None, "{what}");
        }
        // One point never reads its stop.
        let one = grid(&[("0.25", "one", 1)]);
        assert_eq!(sweep_of::<f64>(&one, 0), Some(sweep(0.25, 0.25, 1, 1)));
        rows.truncate(3);
        assert_eq!(sweep_of::<f64>(&rows, 0), Some(sweep(0.0, 1.0, 5, 1)));
    }
}
