//! Many integrals of one parametrised integrand at once: [`Batch`], one integral per tuple of
//! parameter values, each on its own rayon task by a [`BatchMethod`].
//!
//! The integrand and the bounds are expressions in the named parameters
//! ([`Expr::parse_with_parameters`]); the parameters are variables after the coordinates, so
//! the integrand of a tuple is evaluated at points (x, p1, p2, ...). Parameter values given as
//! decimal text are exact in the working precision, as literals are; evenly spaced values
//! ([`ParamValue::linspace`]) are computed in the working precision from the decimal text of
//! their ends.
//!
//! Two ways in and out: [`Batch::compute`] takes a tuple per integral and returns a row per
//! integral; [`Batch::sweep`] takes a range per parameter ([`ParamRange`], a grid of them) and
//! returns the results as columns ([`SweepColumns`]: values, errors, evaluations, converged,
//! the failures listed apart), the same integrals without a tuple or a row per integral on
//! the host, which at millions of integrals on the GPU is most of the time.

use std::sync::Arc;

use precision::{Dd, Qd, Real};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::estimate::Value;
use crate::expr::Expr;
use crate::gpu::{
    self, BatchParams, BatchSettings, ColumnsApart, Gpu, GpuReal, ParamSource, RowFailure,
};
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

/// One parameter's values in a sweep ([`Batch::sweep`]): `count` points evenly spaced from
/// `start` to `stop` (decimal text or constant expressions), point k being start + k (stop −
/// start) / (count − 1) in the working precision, as [`ParamValue::linspace`] gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamRange {
    /// The first value.
    pub start: String,
    /// The last value.
    pub stop: String,
    /// How many points (1 to 2^53).
    pub count: u64,
}

impl ParamRange {
    /// `count` points from `start` to `stop`.
    pub fn new(start: &str, stop: &str, count: u64) -> ParamRange {
        ParamRange {
            start: start.to_string(),
            stop: stop.to_string(),
            count,
        }
    }

    /// Point `index` in `T`, or why it is not a number.
    pub fn value<T: Real>(&self, index: u64) -> std::result::Result<T, String> {
        ParamValue::linspace(&self.start, &self.stop, index, self.count).value()
    }

    /// The range's points in `T` by index (0 .. count), the ends read once: the values
    /// [`ParamRange::value`] gives.
    pub fn points<T: Real>(&self) -> std::result::Result<impl Fn(u64) -> T, String> {
        let source = self.source::<T>(1)?;
        Ok(move |k| source.sweep_value(k).unwrap_or_else(T::zero))
    }

    /// The range as a sweep in `T` the device can make from the row's index, `stride` rows
    /// per point; the ends are read once here.
    fn source<T: Real>(&self, stride: u64) -> std::result::Result<ParamSource<T>, String> {
        if self.count == 0 || self.count > 1 << 53 {
            return Err(format!(
                "{} points were asked for; give 1 to 2^53",
                self.count
            ));
        }
        let start = constant::<T>(&self.start)?;
        // With one point the stop is never read, as ParamValue::Linspace does.
        let stop = if self.count == 1 {
            start
        } else {
            constant::<T>(&self.stop)?
        };
        Ok(sweep(start, stop, self.count, stride))
    }
}

/// The values of a sweep's integrals, in the working precision.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueColumn {
    /// Doubles.
    F64(Vec<f64>),
    /// Double-doubles.
    Dd(Vec<Dd>),
    /// Quad-doubles.
    Qd(Vec<Qd>),
}

impl ValueColumn {
    /// Rows.
    pub fn len(&self) -> usize {
        match self {
            ValueColumn::F64(v) => v.len(),
            ValueColumn::Dd(v) => v.len(),
            ValueColumn::Qd(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`'s value. Panics when i >= len().
    pub fn get(&self, i: usize) -> Value {
        match self {
            ValueColumn::F64(v) => Value::F64(v[i]),
            ValueColumn::Dd(v) => Value::Dd(v[i]),
            ValueColumn::Qd(v) => Value::Qd(v[i]),
        }
    }
}

/// A sweep's results as columns ([`Batch::sweep`]), one entry per integral in the grid's
/// order (the first range varying slowest, the last fastest, as `--param` builds a grid),
/// with the failed integrals listed apart: a failed row holds value NaN, error NaN, no
/// evaluations and not converged in the columns, and why it failed in
/// [`SweepColumns::failures`].
#[derive(Debug)]
pub struct SweepColumns {
    /// Each range's points.
    counts: Vec<u64>,
    values: ValueColumn,
    errors: Vec<f64>,
    evaluations: Vec<u64>,
    converged: Vec<bool>,
    /// (row, why), in row order.
    failures: Vec<(usize, Error)>,
}

impl SweepColumns {
    /// Rows (integrals).
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The values.
    pub fn values(&self) -> &ValueColumn {
        &self.values
    }

    /// The estimated absolute errors (FAQ: the a-priori bound of its Theorem 1).
    pub fn errors(&self) -> &[f64] {
        &self.errors
    }

    /// The integrand evaluations of each integral.
    pub fn evaluations(&self) -> &[u64] {
        &self.evaluations
    }

    /// Whether each integral met the tolerance (and its method stopped on its own test).
    pub fn converged(&self) -> &[bool] {
        &self.converged
    }

    /// The failed integrals, (row, why) in row order.
    pub fn failures(&self) -> &[(usize, Error)] {
        &self.failures
    }

    /// Each parameter's point (0 .. its range's count) in row `i`.
    pub fn point(&self, i: usize) -> Vec<u64> {
        let mut rest = i as u64;
        let mut points = vec![0; self.counts.len()];
        for (slot, &count) in points.iter_mut().zip(&self.counts).rev() {
            *slot = rest % count;
            rest /= count;
        }
        points
    }

    /// Row `i` as [`Batch::compute`] gives it: the estimate or why there is none. Panics
    /// when i >= len().
    pub fn row(&self, i: usize) -> std::result::Result<BatchEstimate, &Error> {
        if let Ok(k) = self.failures.binary_search_by_key(&i, |f| f.0) {
            return Err(&self.failures[k].1);
        }
        Ok(BatchEstimate {
            value: self.values.get(i),
            error: self.errors[i],
            evaluations: self.evaluations[i],
            converged: self.converged[i],
        })
    }
}

/// The precisions a sweep's value column comes in.
trait ColumnReal: Real + GpuReal {
    /// The column of these values.
    fn column(values: Vec<Self>) -> ValueColumn;

    /// The column of values whose limbs are `limbs`, row after row (`LIMBS` each): for f64
    /// the vector itself.
    fn column_of_limbs(limbs: Vec<f64>) -> ValueColumn;
}

impl ColumnReal for f64 {
    fn column(values: Vec<f64>) -> ValueColumn {
        ValueColumn::F64(values)
    }

    fn column_of_limbs(limbs: Vec<f64>) -> ValueColumn {
        ValueColumn::F64(limbs)
    }
}

impl ColumnReal for Dd {
    fn column(values: Vec<Dd>) -> ValueColumn {
        ValueColumn::Dd(values)
    }

    fn column_of_limbs(limbs: Vec<f64>) -> ValueColumn {
        ValueColumn::Dd(
            limbs
                .par_chunks_exact(2)
                .map(<Dd as Real>::from_limbs)
                .collect(),
        )
    }
}

impl ColumnReal for Qd {
    fn column(values: Vec<Qd>) -> ValueColumn {
        ValueColumn::Qd(values)
    }

    fn column_of_limbs(limbs: Vec<f64>) -> ValueColumn {
        ValueColumn::Qd(
            limbs
                .par_chunks_exact(4)
                .map(<Qd as Real>::from_limbs)
                .collect(),
        )
    }
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

    /// One integral per point of the grid of `ranges` (one range per parameter, in the
    /// order they were declared; the first varies slowest, the last fastest, as `--param`
    /// builds a grid), returned as columns: values, errors, evaluations and convergence,
    /// with the failed integrals listed apart ([`SweepColumns`]). Each integral is the one
    /// [`Batch::compute`] gives for the same parameter values ([`ParamValue::linspace`]),
    /// on the CPU or the GPU (dd and qd: the same bits), but no tuple is built, read or
    /// returned per row: on the GPU each thread makes its own parameters from its index
    /// and the results come back as the columns themselves. The error of the whole call is
    /// about the batch as stated (options, missing bounds, a range that is not one).
    ///
    /// ```
    /// use hpquad::{Batch, BatchMethod, ParamRange, Precision, ValueColumn};
    ///
    /// // ∫_0^1 exp(-p x) dx = (1 - e^-p) / p for p = 1, 1.5, 2, 2.5, 3.
    /// let columns = Batch::new("exp(-p*x)", &["p"])?
    ///     .bounds("0", "1")
    ///     .method(BatchMethod::GaussKronrod)
    ///     .precision(Precision::F64)
    ///     .tolerance(1e-12)
    ///     .sweep(&[ParamRange::new("1", "3", 5)])?;
    /// let ValueColumn::F64(values) = columns.values() else { unreachable!() };
    /// for (k, value) in values.iter().enumerate() {
    ///     let p = 1.0 + 0.5 * k as f64;
    ///     assert!((value - (1.0 - (-p).exp()) / p).abs() < 1e-12);
    /// }
    /// assert!(columns.converged().iter().all(|&c| c) && columns.failures().is_empty());
    /// # Ok::<(), hpquad::Error>(())
    /// ```
    pub fn sweep(&self, ranges: &[ParamRange]) -> Result<SweepColumns> {
        self.validate()?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .map_err(|e| Error::ThreadPool {
                threads: self.threads,
                reason: e.to_string(),
            })?;
        pool.install(|| match self.precision {
            Precision::F64 => self.sweep_in::<f64>(ranges),
            Precision::Dd => self.sweep_in::<Dd>(ranges),
            Precision::Qd => self.sweep_in::<Qd>(ranges),
        })
    }

    /// The sweep in precision `T`, on the device the options choose.
    fn sweep_in<T: ColumnReal>(&self, ranges: &[ParamRange]) -> Result<SweepColumns>
    where
        Value: From<T>,
    {
        let names = self.parameters();
        let invalid = |reason: String| Error::InvalidOption {
            option: "ranges",
            reason,
        };
        if ranges.len() != names.len() {
            return Err(invalid(format!(
                "{} ranges were given for the {} parameters {}",
                ranges.len(),
                names.len(),
                names.join(", ")
            )));
        }
        // Rows per point of each range: the product of the later ranges' counts.
        let mut sources = Vec::with_capacity(ranges.len());
        let mut rows: u64 = 1;
        for (range, name) in ranges.iter().zip(names).rev() {
            let source = range
                .source::<T>(rows)
                .map_err(|e| invalid(format!("the range of {name}: {e}")))?;
            sources.push(source);
            rows = rows
                .checked_mul(range.count)
                .filter(|&n| usize::try_from(n).is_ok())
                .ok_or_else(|| invalid("the ranges make too many integrals".to_string()))?;
        }
        sources.reverse();
        let n = rows as usize;
        let rule = self.rule::<T>()?;
        let job = Job {
            batch: self,
            rule: rule.as_deref(),
            tolerance: self.tolerance_in::<T>(),
            sweeps: sources.iter().map(|&s| Some(s)).collect(),
        };
        let counts = ranges.iter().map(|r| r.count).collect();
        match self.device {
            Device::Cpu => {}
            Device::Gpu => return self.sweep_gpu(&job, &sources, n, counts),
            Device::Auto => {
                if n >= GPU_MIN_BATCH && gpu::is_available() {
                    // As in run: a device that cannot start or compile leaves it to the CPU.
                    if let Ok(columns) = self.sweep_gpu(&job, &sources, n, counts.clone()) {
                        return Ok(columns);
                    }
                }
            }
        }
        Ok(self.sweep_cpu(&job, &sources, n, counts))
    }

    /// The sweep's rows on the CPU, in blocks of rows written straight into the columns.
    fn sweep_cpu<T: ColumnReal>(
        &self,
        job: &Job<'_, T>,
        sources: &[ParamSource<T>],
        n: usize,
        counts: Vec<u64>,
    ) -> SweepColumns
    where
        Value: From<T>,
    {
        const BLOCK: usize = 256;
        let mut values = vec![T::zero(); n];
        let mut errors = vec![0.0; n];
        let mut evaluations = vec![0u64; n];
        let mut converged = vec![false; n];
        let failed: Vec<Vec<(usize, Error)>> = values
            .par_chunks_mut(BLOCK)
            .zip(errors.par_chunks_mut(BLOCK))
            .zip(evaluations.par_chunks_mut(BLOCK))
            .zip(converged.par_chunks_mut(BLOCK))
            .enumerate()
            .map_init(
                || Task::<T>::new(job),
                |task, (b, (((v, e), ev), c))| {
                    let mut failed = Vec::new();
                    for i in 0..v.len() {
                        let r = b * BLOCK + i;
                        match task.sweep_row(job, sources, r) {
                            Ok(x) => {
                                (v[i], e[i], ev[i], c[i]) =
                                    (x.value, x.error, x.evaluations, x.converged);
                            }
                            Err(err) => {
                                (v[i], e[i]) = (T::from_f64(f64::NAN), f64::NAN);
                                failed.push((r, err));
                            }
                        }
                    }
                    failed
                },
            )
            .collect();
        SweepColumns {
            counts,
            values: T::column(values),
            errors,
            evaluations,
            converged,
            failures: failed.into_iter().flatten().collect(),
        }
    }

    /// The sweep on the GPU: no uploaded values (each thread makes its parameters from its
    /// index), the device's columns kept as they are; the host reads the statuses and values
    /// once in parallel for convergence (the tolerance, as [`settle`] judges it) and writes
    /// the few failed rows.
    fn sweep_gpu<T: ColumnReal>(
        &self,
        job: &Job<'_, T>,
        sources: &[ParamSource<T>],
        n: usize,
        counts: Vec<u64>,
    ) -> Result<SweepColumns>
    where
        Value: From<T>,
    {
        let coords = self.integrand.coordinates();
        let (source, vars, device) =
            crate::gpu::trace::time("batch kernel source and device", || self.gpu_kernel(job))?;
        let params = BatchParams {
            rows: n,
            sources,
            values: &[],
        };
        let columns = device.batch(&source, coords, vars, &params, &self.gpu_settings(job))?;
        let settle_start = std::time::Instant::now();
        if columns.len() != n {
            return Err(Error::Gpu(format!(
                "the device returned {} integrals for the {n} it was given",
                columns.len()
            )));
        }
        let failed_rows = columns.failed_rows();
        let ColumnsApart {
            mut value,
            mut error,
            mut evaluations,
            status,
        } = columns.into_columns();
        let limbs = <T as Real>::LIMBS;
        let value_at =
            |value: &[f64], i: usize| <T as Real>::from_limbs(&value[i * limbs..(i + 1) * limbs]);
        // Rows in tasks of 2^14: a row is a few nanoseconds of work, which finer tasks
        // would spend on the pool's scheduling.
        const ROWS: usize = 1 << 14;
        let mut converged: Vec<bool> = (0..n)
            .into_par_iter()
            .with_min_len(ROWS)
            .map(|i| {
                status[i] == 0 && {
                    let v = value_at(&value, i);
                    v.is_finite() && job.tolerance.is_met(error[i], Real::to_f64(v))
                }
            })
            .collect();
        // Estimates that are not finite fail as on the CPU (settle).
        let overflowed: Vec<usize> = (0..n)
            .into_par_iter()
            .with_min_len(ROWS)
            .filter(|&i| status[i] < 2 && !value_at(&value, i).is_finite())
            .collect();
        let names = self.parameters();
        let texts: Vec<&BoundText> = self.bound_texts().collect();
        let params_of = |r: usize| -> Vec<T> {
            sources
                .iter()
                .map(|s| s.sweep_value(r as u64).unwrap_or_else(T::zero))
                .collect()
        };
        let mut failures: Vec<(usize, Error)> = Vec::new();
        for i in overflowed {
            let outcome = Ok(Integrated {
                value: value_at(&value, i),
                error: error[i],
                evaluations: evaluations[i],
                converged: status[i] == 0,
            });
            if let Err(e) = settle(job, || Ok(params_of(i)), outcome) {
                failures.push((i, e));
            }
        }
        for (i, failure) in failed_rows {
            let e = match failure {
                RowFailure::NonFinite(at) => settle(job, || Ok(params_of(i)), Err(at))
                    .err()
                    .unwrap_or_else(|| Error::Gpu(format!("row {i} failed but settled"))),
                RowFailure::Bound { which, value } => {
                    bound_error(which, texts[which], value, names, &params_of(i))
                }
            };
            failures.push((i, e));
        }
        failures.sort_unstable_by_key(|f| f.0);
        let nan = T::from_f64(f64::NAN).limbs();
        for &(i, _) in &failures {
            value[i * limbs..(i + 1) * limbs].copy_from_slice(&nan[..limbs]);
            error[i] = f64::NAN;
            evaluations[i] = 0;
            converged[i] = false;
        }
        let values = T::column_of_limbs(value);
        crate::gpu::trace::record("batch host pass over the columns", settle_start.elapsed());
        Ok(SweepColumns {
            counts,
            values,
            errors: error,
            evaluations,
            converged,
            failures,
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
        let rule = self.rule::<T>()?;
        let sweeps = (0..self.parameters().len())
            .map(|k| sweep_of::<T>(rows, k))
            .collect();
        let job = Job {
            batch: self,
            rule: rule.as_deref(),
            tolerance: self.tolerance_in::<T>(),
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
        let (source, vars, device) = self.gpu_kernel(job)?;

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
        let params = BatchParams {
            rows: n,
            sources: &sources,
            values: &values,
        };
        let columns = device.batch(&source, coords, vars, &params, &self.gpu_settings(job))?;
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

    /// The Gauss–Kronrod rule in `T` when the method is Gauss–Kronrod.
    fn rule<T: Real>(&self) -> Result<Option<Arc<KronrodRule<T>>>> {
        Ok(match self.method {
            BatchMethod::GaussKronrod => Some(rules::kronrod::<T>(gauss_points::<T>())?),
            _ => None,
        })
    }

    /// The tolerance per integral in `T`: the default relative one is 1000 units of `T`'s ε.
    fn tolerance_in<T: Real>(&self) -> Tolerance {
        Tolerance {
            relative: self.relative.unwrap_or(1000.0 * Real::to_f64(T::epsilon())),
            absolute: self.absolute,
        }
    }

    /// The batch kernel in `T` (its source, the integrand's variables) and the device.
    fn gpu_kernel<T: Real + GpuReal>(&self, job: &Job<'_, T>) -> Result<(String, usize, Gpu)> {
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
        let coords = self.integrand.coordinates();
        let source = Gpu::batch_source::<T>(&integrand, &bounds, self.method, coords, nodes)?;
        Ok((source, integrand.dims, Gpu::new(0)?))
    }

    /// The settings of the batch's launches.
    fn gpu_settings<'j, T>(&self, job: &Job<'j, T>) -> BatchSettings<'j, T> {
        BatchSettings {
            method: self.method,
            tolerance: job.tolerance,
            max_evaluations: self.max_evaluations,
            steps: self.steps,
            rule: job.rule,
            chunk: self.gpu_chunk,
        }
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
    settle(job, params, outcome).map(|r| BatchEstimate {
        value: r.value.into(),
        error: r.error,
        evaluations: r.evaluations,
        converged: r.converged,
    })
}

/// A method's outcome as the row's result in `T` (converged only where the method's test
/// passed and the error meets the tolerance) or its error; `params` as for [`conclude`].
fn settle<T: Real>(
    job: &Job<'_, T>,
    params: impl FnOnce() -> Result<Vec<T>>,
    outcome: std::result::Result<Integrated<T>, NonFiniteAt<T>>,
) -> Result<Integrated<T>> {
    let names = job.batch.parameters();
    let describe = |params: Result<Vec<T>>| -> Result<String> { Ok(describe(names, &params?)) };
    match outcome {
        Ok(r) if !r.value.is_finite() => Err(Error::Overflow {
            value: format!("{} (at {})", r.value, describe(params())?),
            evaluations: r.evaluations,
        }),
        Ok(r) => Ok(Integrated {
            converged: r.converged && job.tolerance.is_met(r.error, r.value.to_f64()),
            ..r
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
        let dims = job.batch.integrand.coordinates();
        row_values(
            job.batch.parameters(),
            &job.sweeps,
            r,
            row,
            &mut self.vars[dims..],
        )?;
        self.ends(job)
    }

    /// The bounds (x, then y) for the parameter values in the variables after the
    /// coordinates, or the first that is not finite as the row's error.
    fn ends(&mut self, job: &Job<'a, T>) -> Result<[T; 4]> {
        let batch = job.batch;
        let dims = batch.integrand.coordinates();
        let names = batch.parameters();
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
        let outcome = self.outcome(job, ends);
        let params = &self.vars[job.batch.integrand.coordinates()..];
        conclude(job, || Ok(params.to_vec()), outcome)
    }

    /// Row `r` of a sweep: each parameter's value made from the row's index by its source
    /// (the value the device makes), then as [`Task::integrate`].
    fn sweep_row(
        &mut self,
        job: &Job<'a, T>,
        sources: &[ParamSource<T>],
        r: usize,
    ) -> Result<Integrated<T>> {
        let dims = job.batch.integrand.coordinates();
        for (slot, source) in self.vars[dims..].iter_mut().zip(sources) {
            *slot = source.sweep_value(r as u64).unwrap_or_else(T::zero);
        }
        let ends = self.ends(job)?;
        let outcome = self.outcome(job, ends);
        let params = &self.vars[dims..];
        settle(job, || Ok(params.to_vec()), outcome)
    }

    /// The batch's method on the row whose bounds are `ends` and whose parameters are in the
    /// variables.
    fn outcome(
        &mut self,
        job: &Job<'a, T>,
        ends: [T; 4],
    ) -> std::result::Result<Integrated<T>, NonFiniteAt<T>> {
        let batch = job.batch;
        let dims = batch.integrand.coordinates();
        let method = batch.method;
        let steps = batch.steps;
        let cap = batch.max_evaluations;
        let (vars, f) = (&mut self.vars, &mut self.f);
        if dims == 1 {
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
        }
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
