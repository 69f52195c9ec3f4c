//! Many integrals at once on the device, one per thread: `kernels/batch.cu` runs the methods of
//! [`crate::methods::batch`] (FAQ, adaptive Simpson, Gauss–Kronrod QAG) on each integral's
//! bounds and parameter values, with the host's operations in the host's order, so that dd
//! and qd results are the host's bits (f64 ones may differ in the last bits where the
//! integrand or a bound calls libdevice's functions). Batches larger than a chunk (sized from
//! the device's memory) run as several launches.
//!
//! The host sends as little per row as it can: each thread makes its row's parameters (a
//! sweep from the row's index, [`ParamSource::Sweep`], or an uploaded value) and evaluates
//! the bounds, compiled like the integrand, itself; the results come back as columns
//! ([`BatchColumns`]: value, error, evaluations, status) with the few failed rows' points
//! apart, so that a batch without failures copies back 28 bytes and a value per row. Before,
//! the host evaluated each row's bounds, packed them and unpacked each row's five outputs,
//! about 300 ns a row against the kernel's few.

use precision::Real;
use rayon::prelude::*;

use super::launch::{self, BatchBuffers, BatchKernel};
use super::{function_prelude, splice, trace, Gpu, GpuError, GpuReal, Result, BATCH_CU};
use crate::expr::cuda::CudaIntegrand;
use crate::methods::batch::faq::Steps;
use crate::methods::batch::kronrod::MAX_PIECES;
use crate::methods::batch::simpson::MAX_DEPTH;
use crate::methods::batch::{BatchMethod, Integrated, NonFiniteAt, Tolerance};
use crate::rules::KronrodRule;

/// The most integrals one launch takes, whatever the device's memory.
pub const MAX_BATCH_CHUNK: usize = 1 << 22;

/// The batch kernel's name for `method`, `type_name` (f64, dd, qd), `coords` coordinates (1: x;
/// 2: x and y, a rectangle by Fubini) and `vars` variables (the coordinates and the
/// parameters): `batch_kronrod_qd_3v`, `batch_faq_dd_xy_3v`.
pub(crate) fn batch_kernel_name(
    method: BatchMethod,
    type_name: &str,
    coords: usize,
    vars: usize,
) -> String {
    let shape = if coords == 2 { "xy_" } else { "" };
    format!("batch_{}_{type_name}_{shape}{vars}v", method_tag(method))
}

/// The method's word in kernel names and defines.
fn method_tag(method: BatchMethod) -> &'static str {
    match method {
        BatchMethod::Faq => "faq",
        BatchMethod::AdaptiveSimpson => "simpson",
        BatchMethod::GaussKronrod => "kronrod",
    }
}

/// What every integral of a launch shares: the method's settings and, for Gauss–Kronrod, its
/// rule in `T` (the one [`crate::methods::batch::kronrod::gauss_kronrod`] takes).
#[derive(Clone, Copy)]
pub struct BatchSettings<'a, T> {
    /// The method.
    pub method: BatchMethod,
    /// The tolerance per integral (Simpson, Gauss–Kronrod).
    pub tolerance: Tolerance,
    /// The cap on evaluations per integral (Simpson, Gauss–Kronrod).
    pub max_evaluations: u64,
    /// FAQ's steps.
    pub steps: Steps,
    /// The Gauss–Kronrod rule; required for that method.
    pub rule: Option<&'a KronrodRule<T>>,
    /// Integrals per launch; 0 takes [`Gpu::batch_chunk`].
    pub chunk: usize,
}

/// How each row's value of one parameter reaches the device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamSource<T> {
    /// Made on the device from the row's index r: point k = (r / stride) mod count of `count`
    /// evenly spaced from `start` to `stop`, start + k (stop − start) / (count − 1) in `T`
    /// with the host's operations (`start` when count is 1), the bits
    /// [`crate::ParamValue::Linspace`] gives on the host. Needs 1 <= count <= 2^53 and
    /// stride >= 1.
    Sweep {
        /// The first value.
        start: T,
        /// The last value.
        stop: T,
        /// How many points.
        count: u64,
        /// Rows per point: 1 when the parameter changes every row, the product of the later
        /// parameters' counts in a grid of sweeps.
        stride: u64,
    },
    /// Uploaded: column `c` of [`BatchParams::values`].
    Column(usize),
}

impl<T: Real> ParamSource<T> {
    /// A sweep's value at row `row`, as the kernel makes it (`parameter` in
    /// kernels/batch.cu); None for an uploaded column.
    pub fn sweep_value(&self, row: u64) -> Option<T> {
        match *self {
            ParamSource::Sweep {
                start,
                stop,
                count,
                stride,
            } => Some(if count <= 1 {
                start
            } else {
                let k = (row / stride.max(1)) % count;
                start + T::from_i64(k as i64) * (stop - start) / T::from_i64(count as i64 - 1)
            }),
            ParamSource::Column(_) => None,
        }
    }
}

/// The parameters of every row of a batch.
#[derive(Debug, Clone, Copy)]
pub struct BatchParams<'a, T> {
    /// Rows (integrals).
    pub rows: usize,
    /// Each parameter's source, in the order of the integrand's parameters.
    pub sources: &'a [ParamSource<T>],
    /// The uploaded columns' values, row-major: row r's value of column c at
    /// `values[r * columns + c]`, `columns` the number of [`ParamSource::Column`] sources.
    pub values: &'a [T],
}

/// Why one integral of a batch on the device gave no estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowFailure<T> {
    /// The integrand was not finite there.
    NonFinite(NonFiniteAt<T>),
    /// Bound `which` (0, 1: x lower and upper; 2, 3: y) is `value`, not a finite number.
    Bound {
        /// Which bound.
        which: usize,
        /// Its value.
        value: T,
    },
}

/// One integral's result on the device: the estimate or why there is none.
pub type BatchRow<T> = std::result::Result<Integrated<T>, RowFailure<T>>;

/// A batch's results on the device as columns: each row's value, error, evaluations and
/// status, and the failed rows' details, copied back without a pass per row.
#[derive(Debug, Clone)]
pub struct BatchColumns<T> {
    rows: usize,
    /// Integrals per launch: launch c holds rows c · chunk .. and its values limb-major.
    chunk: usize,
    /// 1 or 2: whether a non-finite value has a y.
    coords: usize,
    value: Vec<f64>,
    error: Vec<f64>,
    evaluations: Vec<u64>,
    status: Vec<u32>,
    /// The failed rows, by row.
    failures: Vec<(usize, [T; 3])>,
}

impl<T: Real> BatchColumns<T> {
    /// Rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Row `i`'s value (0 for a failed row).
    pub fn value(&self, i: usize) -> T {
        let (launch, j) = (i / self.chunk, i % self.chunk);
        let start = launch * self.chunk;
        let m = self.chunk.min(self.rows - start);
        let limbs = &self.value[start * T::LIMBS..];
        let mut v = [0.0; 4];
        for (k, l) in v[..T::LIMBS].iter_mut().enumerate() {
            *l = limbs[k * m + j];
        }
        T::from_limbs(&v[..T::LIMBS])
    }

    /// The error estimates, a row each.
    pub fn errors(&self) -> &[f64] {
        &self.error
    }

    /// The evaluations, a row each.
    pub fn evaluations(&self) -> &[u64] {
        &self.evaluations
    }

    /// The statuses, a row each: 0 converged, 1 not converged, 2 or more failed ([`BatchColumns::row`]
    /// says why).
    pub fn statuses(&self) -> &[u32] {
        &self.status
    }

    /// Row `i`: the estimate or why there is none. Panics when i >= len().
    pub fn row(&self, i: usize) -> BatchRow<T> {
        match self.status[i] {
            status @ (0 | 1) => Ok(Integrated {
                value: self.value(i),
                error: self.error[i],
                evaluations: self.evaluations[i],
                converged: status == 0,
            }),
            status => Err(self.failure(i, status)),
        }
    }

    /// Why row `i` of status `status` (2 or more) failed.
    fn failure(&self, i: usize, status: u32) -> RowFailure<T> {
        let [x, y, value] = self
            .failures
            .binary_search_by_key(&i, |f| f.0)
            .map_or([T::from_f64(f64::NAN); 3], |k| self.failures[k].1);
        match status {
            2 => RowFailure::NonFinite(NonFiniteAt {
                x,
                y: (self.coords == 2).then_some(y),
                value,
            }),
            3 => RowFailure::NonFinite(NonFiniteAt::at(x, value)),
            s => RowFailure::Bound {
                which: s as usize - 4,
                value,
            },
        }
    }

    /// The failed rows (status 2 or more), in row order, with why.
    pub fn failed_rows(&self) -> Vec<(usize, RowFailure<T>)> {
        self.failures
            .iter()
            .map(|&(i, _)| (i, self.failure(i, self.status[i])))
            .collect()
    }

    /// The columns taken apart, without a pass per row where none is needed: the values'
    /// limbs in row order (row i's `T::LIMBS` limbs at i · LIMBS; for f64 the column as it
    /// came back, moved, otherwise each launch's limb-major block transposed in parallel),
    /// the errors, the evaluations and the statuses.
    pub fn into_columns(self) -> ColumnsApart {
        let limbs = T::LIMBS;
        let value = if limbs == 1 {
            self.value
        } else {
            let mut rows = fresh::<f64>(self.value.len());
            let chunk = self.chunk.max(1);
            rows.par_chunks_mut(chunk * limbs)
                .zip(self.value.par_chunks(chunk * limbs))
                .for_each(|(out, block)| {
                    let m = block.len() / limbs;
                    for (i, row) in out.chunks_exact_mut(limbs).enumerate() {
                        for (k, l) in row.iter_mut().enumerate() {
                            *l = block[k * m + i];
                        }
                    }
                });
            rows
        };
        ColumnsApart {
            value,
            error: self.error,
            evaluations: self.evaluations,
            status: self.status,
        }
    }
}

/// A batch's columns taken apart ([`BatchColumns::into_columns`]), a row each.
#[derive(Debug, Clone)]
pub struct ColumnsApart {
    /// The values' limbs in row order: row i's at i · limbs .. (i + 1) · limbs (0 for a
    /// failed row).
    pub value: Vec<f64>,
    /// The error estimates.
    pub error: Vec<f64>,
    /// The evaluations.
    pub evaluations: Vec<u64>,
    /// 0 converged, 1 not converged, 2 or more failed.
    pub status: Vec<u32>,
}

/// A vector of `len` zeros written by every worker thread, so that the pages are touched
/// (faulted in) in parallel rather than one by one by the copy from the device.
fn fresh<X: Copy + Default + Send + Sync>(len: usize) -> Vec<X> {
    (0..len).into_par_iter().map(|_| X::default()).collect()
}

impl Gpu {
    /// The complete CUDA source of the batch kernel for `method` in `T`, the integrand a
    /// function of its `coords` coordinates (1: x; 2: x and y, integrated over a rectangle by
    /// Fubini) and its parameters (`integrand.dims` variables, the coordinates first), the
    /// bounds (`2 · coords`: x lower, x upper, then y) functions of the parameters alone,
    /// as NVRTC sees it. `kronrod_nodes` is the number of non-negative nodes of the
    /// Gauss–Kronrod rule the launch will pass (n + 1 for the (2n+1)-point rule; ignored by
    /// the other methods).
    pub fn batch_source<T: GpuReal>(
        integrand: &CudaIntegrand,
        bounds: &[CudaIntegrand],
        method: BatchMethod,
        coords: usize,
        kronrod_nodes: usize,
    ) -> Result<String> {
        let vars = integrand.dims;
        if method == BatchMethod::GaussKronrod && kronrod_nodes == 0 {
            return Err(GpuError::Invalid(
                "a Gauss–Kronrod batch kernel needs the rule's nodes".to_string(),
            ));
        }
        if !(1..=2).contains(&coords) || vars < coords {
            return Err(GpuError::Invalid(format!(
                "a batch integrates over 1 or 2 coordinates of its integrand's {vars} variables, \
                 not {coords}"
            )));
        }
        if bounds.len() != 2 * coords {
            return Err(GpuError::Invalid(format!(
                "a batch over {coords} coordinates has {} bounds, not {}",
                2 * coords,
                bounds.len()
            )));
        }
        let params = vars - coords;
        // The functions' headers when the integrand or a bound calls them.
        let mut with_functions = integrand.clone();
        with_functions.needs_functions |= bounds.iter().any(|b| b.needs_functions);
        let prelude = function_prelude(&with_functions)?;
        let tag = method_tag(method);
        let mut defines = format!(
            "#define HPQ_VARS {vars}\n#define HPQ_COORDS {coords}\n#define HPQ_PARAMS {params}\n\
             #define HPQ_BATCH_{}\n#define HPQ_BATCH_KERNEL {}\n\
             #define HPQ_SIMPSON_DEPTH {MAX_DEPTH}\n#define HPQ_KRONROD_PIECES {MAX_PIECES}",
            tag.to_uppercase(),
            batch_kernel_name(method, T::NAME, coords, vars)
        );
        if method == BatchMethod::GaussKronrod {
            defines.push_str(&format!("\n#define HPQ_KRONROD_NODES {kronrod_nodes}"));
        }
        // Each bound reads the parameters as the integrand reads its variables: `x` alone
        // when it has at most one, `x[d]` otherwise.
        for (k, bound) in bounds.iter().enumerate() {
            let x = if bound.dims > 1 {
                "const real_t *x = params;\n(void)x;"
            } else {
                "const real_t x = params[0];\n(void)x;"
            };
            defines.push_str(&format!(
                "\n__device__ __forceinline__ real_t hpq_bound_{k}(const real_t *params) {{\n\
                 {x}\n{}\n}}",
                bound.body
            ));
        }
        splice::<T>(
            BATCH_CU,
            "batch.cu",
            &prelude,
            &integrand.body,
            vars,
            &defines,
        )
    }

    /// How many integrals one launch of the batch kernel takes for `T` and `uploaded`
    /// parameter columns: an eighth of the device's memory for the inputs and outputs, at
    /// most [`MAX_BATCH_CHUNK`].
    pub fn batch_chunk<T: Real>(&self, uploaded: usize) -> usize {
        let limbs = T::LIMBS;
        // The uploaded columns and value (limbs each), error and evaluations (8 bytes),
        // status (4), and room for a failure: its row (8) and x, y, value (limbs each).
        let bytes = 8 * limbs * (uploaded + 4) + 28;
        let budget = (self.info.memory_bytes / 8) as usize;
        (budget / bytes).clamp(1024, MAX_BATCH_CHUNK)
    }

    /// One integral for each row `r` of `params`, over its bounds (the kernel's bound
    /// functions of its parameters: [lower, upper] in x alone for `coords` = 1, the rectangle
    /// by Fubini for 2), by the method of `settings`, the integrand and bounds compiled into
    /// `source` ([`Gpu::batch_source`] for `T`, the same method and coordinates, `vars` the
    /// integrand's variables). Each row is what the CPU method gives on the same data
    /// ([`crate::methods::batch::fubini`] over a rectangle): for dd and qd the same bits. The
    /// integral from a to b is 0 when a = b and the negated integral from b to a when a > b,
    /// in each coordinate, as [`crate::Batch`] orients it; a bound that is not finite is the
    /// row's failure.
    pub fn batch<T: Real>(
        &self,
        source: &str,
        coords: usize,
        vars: usize,
        params: &BatchParams<'_, T>,
        settings: &BatchSettings<'_, T>,
    ) -> Result<BatchColumns<T>> {
        if !(1..=2).contains(&coords) {
            return Err(GpuError::Invalid(format!(
                "a batch integrates over 1 or 2 coordinates, not {coords}"
            )));
        }
        let n = params.rows;
        let p = vars.checked_sub(coords).ok_or_else(|| {
            GpuError::Invalid(format!(
                "a batch integrand of {vars} variables has no {coords} coordinates"
            ))
        })?;
        let uploaded = params
            .sources
            .iter()
            .filter(|s| matches!(s, ParamSource::Column(_)))
            .count();
        if params.sources.len() != p || params.values.len() != n * uploaded {
            return Err(GpuError::Invalid(format!(
                "{} parameter sources and {} uploaded values are not {n} integrals of {p} \
                 parameters, {uploaded} of them uploaded",
                params.sources.len(),
                params.values.len()
            )));
        }
        // Simpson's first step as a fraction of the interval, ε, then the rule, then each
        // parameter's sweep ends.
        let mut constants: Vec<T> = vec![
            T::parse_decimal("0.13579").unwrap_or_else(|_| T::from_f64(0.13579)),
            T::epsilon(),
        ];
        let mut nodes = 0;
        if settings.method == BatchMethod::GaussKronrod {
            let rule = settings.rule.ok_or_else(|| {
                GpuError::Invalid("a Gauss–Kronrod batch needs its rule".to_string())
            })?;
            nodes = rule.nodes().len();
            constants.extend_from_slice(rule.nodes());
            constants.extend_from_slice(rule.weights());
            constants.extend_from_slice(rule.gauss_weights());
            constants.extend_from_slice(rule.complements());
        }
        let mut plan = Vec::with_capacity(3 * p);
        for source in params.sources {
            match *source {
                ParamSource::Sweep {
                    start,
                    stop,
                    count,
                    stride,
                } => {
                    constants.extend_from_slice(&[start, stop]);
                    plan.extend_from_slice(&[count, stride, 0]);
                }
                ParamSource::Column(c) => {
                    constants.extend_from_slice(&[T::zero(), T::zero()]);
                    plan.extend_from_slice(&[0, 0, c as u64]);
                }
            }
        }
        let constants: Vec<f64> = constants
            .iter()
            .flat_map(|v| v.limbs()[..T::LIMBS].to_vec())
            .collect();
        let chunk = match settings.chunk {
            0 => self.batch_chunk::<T>(uploaded),
            c => c,
        }
        .min(n.max(1));
        if n == 0 {
            return Ok(BatchColumns {
                rows: 0,
                chunk,
                coords,
                value: Vec::new(),
                error: Vec::new(),
                evaluations: Vec::new(),
                status: Vec::new(),
                failures: Vec::new(),
            });
        }
        let mut failures = Vec::new();
        // The result columns, made while the first launch runs (see launch::batch).
        let made = || BatchColumns {
            rows: n,
            chunk,
            coords,
            value: fresh(n * T::LIMBS),
            error: fresh(n),
            evaluations: fresh(n),
            status: fresh(n),
            failures: Vec::new(),
        };
        let mut out: Option<BatchColumns<T>> = None;
        let module = self.compiler.module(
            &format!(
                "hpquad_batch_{}_{}.cu",
                method_tag(settings.method),
                T::NAME
            ),
            source,
        )?;
        let kernel =
            BatchKernel::from_module(&module, settings.method, T::NAME, coords, vars, nodes)?;
        let mut buffers = trace::time("batch device buffers", || {
            BatchBuffers::new(self.stream()?, &kernel, chunk, uploaded, &plan, &constants)
        })?;
        let mut columns = Vec::new();
        let mut start = 0;
        while start < n {
            let end = (start + chunk).min(n);
            let m = end - start;
            upload_columns(params.values, uploaded, start, m, &mut columns);
            let found = trace::time("batch launch and copies", || {
                launch::batch(
                    self.stream()?,
                    &kernel,
                    &mut buffers,
                    &launch::BatchInput {
                        n: m,
                        first: start as u64,
                        columns: &columns,
                        relative: settings.tolerance.relative,
                        absolute: settings.tolerance.absolute,
                        step_min: settings.steps.min,
                        step_max: settings.steps.max,
                        max_evaluations: settings.max_evaluations,
                    },
                    || {
                        let o = out.get_or_insert_with(&made);
                        launch::BatchOutput {
                            value: &mut o.value[start * T::LIMBS..end * T::LIMBS],
                            error: &mut o.error[start..end],
                            evaluations: &mut o.evaluations[start..end],
                            status: &mut o.status[start..end],
                        }
                    },
                )
            })?;
            let width = 3 * T::LIMBS;
            for (row, at) in found.rows.iter().zip(found.at.chunks_exact(width)) {
                let one = |k: usize| T::from_limbs(&at[k * T::LIMBS..(k + 1) * T::LIMBS]);
                failures.push((start + *row as usize, [one(0), one(1), one(2)]));
            }
            start = end;
        }
        failures.sort_unstable_by_key(|f| f.0);
        let mut out = out.unwrap_or_else(made);
        out.failures = failures;
        Ok(out)
    }
}

/// The uploaded columns of rows `start .. start + m`, limb-major, one column after the other,
/// from the row-major `values` of `uploaded` columns.
fn upload_columns<T: Real>(
    values: &[T],
    uploaded: usize,
    start: usize,
    m: usize,
    out: &mut Vec<f64>,
) {
    out.clear();
    if uploaded == 0 || m == 0 {
        return;
    }
    out.resize(uploaded * T::LIMBS * m, 0.0);
    // One segment per column and limb, each filled in blocks in parallel.
    const BLOCK: usize = 1 << 14;
    out.par_chunks_mut(m)
        .enumerate()
        .for_each(|(segment, limbs)| {
            let (c, j) = (segment / T::LIMBS, segment % T::LIMBS);
            limbs
                .par_chunks_mut(BLOCK)
                .enumerate()
                .for_each(|(b, block)| {
                    let first = start + b * BLOCK;
                    for (i, slot) in block.iter_mut().enumerate() {
                        *slot = values[(first + i) * uploaded + c].limbs()[j];
                    }
                });
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{cuda, Expr};
    use precision::{Dd, Qd};

    /// The bounds `texts` as device code in `T`, functions of `parameters`.
    fn bounds<T: Real>(texts: &[&str], parameters: &[&str]) -> Vec<CudaIntegrand> {
        texts
            .iter()
            .map(|t| {
                let e = Expr::parse_with_parameters(t, 0, parameters).unwrap();
                cuda::integrand::<T>(e.tape()).unwrap()
            })
            .collect()
    }

    #[test]
    fn the_batch_kernel_is_named_after_its_method_type_and_variables() {
        let e = Expr::parse_with_parameters("exp(-p*x)/(1+q)", 1, &["p", "q"]).unwrap();
        let qd = Gpu::batch_source::<Qd>(
            &cuda::integrand::<Qd>(e.tape()).unwrap(),
            &bounds::<Qd>(&["0", "log(1+q)/p"], &["p", "q"]),
            BatchMethod::GaussKronrod,
            1,
            31,
        )
        .unwrap();
        assert!(qd.contains("#define HPQ_BATCH_KERNEL batch_kronrod_qd_3v\n"));
        assert!(qd.contains("#define HPQ_BATCH_KRONROD\n"));
        assert!(qd.contains("#define HPQ_KRONROD_NODES 31"));
        assert!(qd.contains("#define HPQ_VARS 3\n"));
        assert!(qd.contains("#define HPQ_PARAMS 2\n"));
        // The bounds are functions of the parameters, the upper one reading both as x[0] and
        // x[1], with the elementary functions it calls.
        assert!(qd.contains("real_t hpq_bound_0(const real_t *params)"));
        assert!(
            qd.contains("real_t hpq_bound_1(const real_t *params) {\nconst real_t *x = params;")
        );
        assert!(qd.contains("x[1]") && !qd.contains("real_t hpq_bound_2("));
        assert!(qd.contains("real_t integrand(const real_t *x)"));
        assert!(qd.contains("typedef qd_t real_t;"));
        assert!(qd.contains("void HPQ_BATCH_KERNEL("));
        assert!(qd.contains("hpq_exp"));
        assert!(!qd.contains(super::super::INTEGRAND_MARKER));
        // The defines come before the kernel that uses them.
        assert!(
            qd.find("#define HPQ_BATCH_KERNEL").unwrap()
                < qd.find("void HPQ_BATCH_KERNEL(").unwrap()
        );

        // No parameter: the integrand takes x alone.
        let e = Expr::parse_with_parameters("1/(1+x^2)", 1, &[]).unwrap();
        let dd = Gpu::batch_source::<Dd>(
            &cuda::integrand::<Dd>(e.tape()).unwrap(),
            &bounds::<Dd>(&["0", "1"], &[]),
            BatchMethod::Faq,
            1,
            0,
        )
        .unwrap();
        assert!(dd.contains("#define HPQ_BATCH_KERNEL batch_faq_dd_1v\n"));
        assert!(dd.contains("real_t integrand(real_t x)"));
        assert!(!dd.contains("#define HPQ_KRONROD_NODES"));
        assert!(dd.contains("#define HPQ_PARAMS 0\n"));
        // A rational integrand with a bound that calls a function gets the functions.
        assert!(!dd.contains("hpq_exp"));
        let rational = Expr::parse_with_parameters("1/(1+p*x^2)", 1, &["p"]).unwrap();
        let with_exp = Gpu::batch_source::<Dd>(
            &cuda::integrand::<Dd>(rational.tape()).unwrap(),
            &bounds::<Dd>(&["0", "exp(p)"], &["p"]),
            BatchMethod::Faq,
            1,
            0,
        )
        .unwrap();
        assert!(with_exp.contains("hpq_exp"));
        // Bounds for two coordinates where the integrand has one are refused.
        assert!(Gpu::batch_source::<Dd>(
            &cuda::integrand::<Dd>(e.tape()).unwrap(),
            &bounds::<Dd>(&["0", "1", "0", "1"], &[]),
            BatchMethod::Faq,
            1,
            0
        )
        .is_err());
        let f = Gpu::batch_source::<f64>(
            &cuda::integrand::<f64>(e.tape()).unwrap(),
            &bounds::<f64>(&["0", "1"], &[]),
            BatchMethod::AdaptiveSimpson,
            1,
            0,
        )
        .unwrap();
        assert!(f.contains("batch_simpson_f64_1v") && f.contains("#define HPQ_SIMPSON_DEPTH 60"));
        // Gauss–Kronrod without its rule is refused.
        assert!(Gpu::batch_source::<f64>(
            &cuda::integrand::<f64>(e.tape()).unwrap(),
            &bounds::<f64>(&["0", "1"], &[]),
            BatchMethod::GaussKronrod,
            1,
            0
        )
        .is_err());

        // A rectangle: x and y, then the parameter; the kernel's name says so.
        let e = Expr::parse_with_parameters("exp(-p*(x^2+y^2))", 2, &["p"]).unwrap();
        let xy = Gpu::batch_source::<Dd>(
            &cuda::integrand::<Dd>(e.tape()).unwrap(),
            &bounds::<Dd>(&["0", "p", "0", "p"], &["p"]),
            BatchMethod::Faq,
            2,
            0,
        )
        .unwrap();
        assert!(xy.contains("#define HPQ_BATCH_KERNEL batch_faq_dd_xy_3v\n"));
        assert!(xy.contains("#define HPQ_COORDS 2\n"));
        assert!(xy.contains("real_t integrand(const real_t *x)"));
        // One parameter: the bound reads it as x.
        assert!(
            xy.contains("real_t hpq_bound_3(const real_t *params) {\nconst real_t x = params[0];")
        );
        // Three coordinates, or more coordinates than variables, are refused.
        for coords in [0, 3] {
            assert!(Gpu::batch_source::<Dd>(
                &cuda::integrand::<Dd>(e.tape()).unwrap(),
                &bounds::<Dd>(&["0", "p", "0", "p"], &["p"]),
                BatchMethod::Faq,
                coords,
                0
            )
            .is_err());
        }
    }

    /// The columns of a batch of five dd rows in launches of two (the last of one): each
    /// launch's values limb-major in its own block, the failed rows' points apart.
    #[test]
    fn columns_read_back_as_rows() {
        let v = |k: usize| Dd::from(k as f64) / Dd::from(3.0);
        // Launch blocks: rows 0-1, 2-3, 4; in each, the high limbs, then the low ones.
        let mut value = Vec::new();
        for (start, m) in [(0, 2), (2, 2), (4, 1)] {
            for limb in 0..2 {
                for i in start..start + m {
                    value.push(v(i).limbs()[limb]);
                }
            }
        }
        let nan = Dd::from(f64::NAN);
        let columns = BatchColumns::<Dd> {
            rows: 5,
            chunk: 2,
            coords: 2,
            value,
            error: vec![0.5, 1.5, 2.5, 3.5, 4.5],
            evaluations: vec![10, 11, 12, 13, 14],
            status: vec![0, 1, 2, 5, 3],
            failures: vec![
                (2, [Dd::from(0.25), Dd::from(0.75), nan]),
                (3, [Dd::from(0.0), Dd::from(0.0), Dd::from(f64::INFINITY)]),
                (4, [Dd::from(0.5), Dd::from(0.0), nan]),
            ],
        };
        assert_eq!(columns.len(), 5);
        for i in 0..5 {
            assert_eq!(columns.value(i), v(i), "row {i}");
        }
        assert_eq!(
            columns.row(0),
            Ok(Integrated {
                value: v(0),
                error: 0.5,
                evaluations: 10,
                converged: true
            })
        );
        assert!(matches!(columns.row(1), Ok(r) if !r.converged && r.evaluations == 11));
        match columns.row(2) {
            Err(RowFailure::NonFinite(at)) => {
                assert_eq!((at.x, at.y), (Dd::from(0.25), Some(Dd::from(0.75))));
                assert!(at.value.is_nan());
            }
            other => panic!("{other:?}"),
        }
        // Status 4 + k: bound k (here the x upper bound, 1) with its value.
        assert_eq!(
            columns.row(3),
            Err(RowFailure::Bound {
                which: 1,
                value: Dd::from(f64::INFINITY)
            })
        );
        // Status 3: the outer integral at x alone.
        assert!(
            matches!(columns.row(4), Err(RowFailure::NonFinite(at)) if at.y.is_none() && at.x == Dd::from(0.5))
        );
    }

    /// Columns taken apart: each launch's limb-major block becomes row-major limbs (qd, five
    /// rows in launches of two), f64 values are the column itself, and the failed rows come
    /// in row order with why.
    #[test]
    fn columns_come_apart_in_row_order() {
        let v = |k: usize| Qd::from(k as f64 + 1.0) / Qd::from(7.0);
        let mut value = Vec::new();
        for (start, m) in [(0, 2), (2, 2), (4, 1)] {
            for limb in 0..4 {
                for i in start..start + m {
                    value.push(v(i).limbs()[limb]);
                }
            }
        }
        let nan = Qd::from(f64::NAN);
        let columns = BatchColumns::<Qd> {
            rows: 5,
            chunk: 2,
            coords: 1,
            value,
            error: vec![0.5, 1.5, 2.5, 3.5, 4.5],
            evaluations: vec![10, 11, 12, 13, 14],
            status: vec![0, 4, 1, 2, 0],
            failures: vec![
                (1, [Qd::zero(), Qd::zero(), Qd::from(f64::INFINITY)]),
                (3, [Qd::from(0.25), Qd::zero(), nan]),
            ],
        };
        assert_eq!(columns.statuses(), &[0, 4, 1, 2, 0]);
        let failed = columns.failed_rows();
        assert_eq!(failed.iter().map(|f| f.0).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(
            failed[0].1,
            RowFailure::Bound {
                which: 0,
                value: Qd::from(f64::INFINITY)
            }
        );
        assert!(
            matches!(failed[1].1, RowFailure::NonFinite(at) if at.x == Qd::from(0.25) && at.y.is_none())
        );
        let apart = columns.into_columns();
        for i in 0..5 {
            assert_eq!(
                <Qd as Real>::from_limbs(&apart.value[4 * i..4 * i + 4]),
                v(i),
                "row {i}"
            );
        }
        assert_eq!(apart.error, vec![0.5, 1.5, 2.5, 3.5, 4.5]);
        assert_eq!(apart.evaluations, vec![10, 11, 12, 13, 14]);
        assert_eq!(apart.status, vec![0, 4, 1, 2, 0]);

        // f64: one limb, so the launches' blocks are the rows in order, moved as they are.
        let f = BatchColumns::<f64> {
            rows: 3,
            chunk: 2,
            coords: 1,
            value: vec![1.0, 2.0, 3.0],
            error: vec![0.0; 3],
            evaluations: vec![1; 3],
            status: vec![0; 3],
            failures: Vec::new(),
        };
        assert_eq!(f.into_columns().value, vec![1.0, 2.0, 3.0]);
    }

    /// The uploaded columns of a launch: column by column, limb by limb, the launch's rows.
    #[test]
    fn uploaded_columns_are_limb_major_per_launch() {
        // Three rows of two qd columns, row-major.
        let q = |x: f64| Qd::from(x) / Qd::from(7.0);
        let values: Vec<Qd> = (0..6).map(|k| q(k as f64)).collect();
        let mut out = Vec::new();
        upload_columns(&values, 2, 1, 2, &mut out);
        assert_eq!(out.len(), 2 * 4 * 2);
        for c in 0..2 {
            for limb in 0..4 {
                for i in 0..2 {
                    let row = 1 + i;
                    assert_eq!(
                        out[(c * 4 + limb) * 2 + i],
                        values[row * 2 + c].limbs()[limb]
                    );
                }
            }
        }
        upload_columns(&values, 0, 0, 3, &mut out);
        assert!(out.is_empty());
    }
}
