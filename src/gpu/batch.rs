//! Many integrals at once on the device, one per thread: `kernels/batch.cu` runs the methods of
//! [`crate::methods::batch`] (FAQ, adaptive Simpson, Gauss–Kronrod QAG) on each integral's
//! bounds and parameter values, with the host's operations in the host's order, so that dd
//! and qd results are the host's bits (f64 ones may differ in the last bits where the
//! integrand calls libdevice's functions). Batches larger than a chunk (sized from the
//! device's memory) run as several launches.

use precision::Real;

use super::launch::{self, BatchKernel, BatchOutput};
use super::{function_prelude, splice, Gpu, GpuError, GpuReal, Result, BATCH_CU};
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

/// One integral's result on the device: the estimate or the point where the integrand was not
/// finite, as the CPU methods return them.
pub type BatchRow<T> = std::result::Result<Integrated<T>, NonFiniteAt<T>>;

impl Gpu {
    /// The complete CUDA source of the batch kernel for `method` in `T`, the integrand a
    /// function of its `coords` coordinates (1: x; 2: x and y, integrated over a rectangle by
    /// Fubini) and its parameters (`integrand.dims` variables, the coordinates first), as
    /// NVRTC sees it. `kronrod_nodes` is the number of non-negative nodes of the Gauss–Kronrod
    /// rule the launch will pass (n + 1 for the (2n+1)-point rule; ignored by the other
    /// methods).
    pub fn batch_source<T: GpuReal>(
        integrand: &CudaIntegrand,
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
        let prelude = function_prelude(integrand)?;
        let tag = method_tag(method);
        let mut defines = format!(
            "#define HPQ_VARS {vars}\n#define HPQ_COORDS {coords}\n#define HPQ_BATCH_{}\n\
             #define HPQ_BATCH_KERNEL {}\n\
             #define HPQ_SIMPSON_DEPTH {MAX_DEPTH}\n#define HPQ_KRONROD_PIECES {MAX_PIECES}",
            tag.to_uppercase(),
            batch_kernel_name(method, T::NAME, coords, vars)
        );
        if method == BatchMethod::GaussKronrod {
            defines.push_str(&format!("\n#define HPQ_KRONROD_NODES {kronrod_nodes}"));
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

    /// How many integrals one launch of the batch kernel takes for `T`, `coords` coordinates
    /// and `parameters`: an eighth of the device's memory for the inputs and outputs, at most
    /// [`MAX_BATCH_CHUNK`].
    pub fn batch_chunk<T: Real>(&self, coords: usize, parameters: usize) -> usize {
        let limbs = T::LIMBS;
        // lower, upper and bad_x (a value per coordinate), the parameters, value, bad_value
        // (limbs each), error and evaluations (8 bytes), status (4).
        let bytes = 8 * limbs * (3 * coords + 2 + parameters) + 20;
        let budget = (self.info.memory_bytes / 8) as usize;
        (budget / bytes).clamp(1024, MAX_BATCH_CHUNK)
    }

    /// One integral for each row `i`, over `[lower[i], upper[i]]` in x alone (`coords` = 1)
    /// or over the rectangle `[lower[2i], upper[2i]] × [lower[2i + 1], upper[2i + 1]]` in x
    /// and y by Fubini (`coords` = 2), with the parameter values `params[i * p .. (i + 1) *
    /// p]` (p = the integrand's `vars` − `coords`), by the method of `settings`, the integrand
    /// compiled into `source` ([`Gpu::batch_source`] for `T`, the same method and
    /// coordinates). Each row is what the CPU method gives on the same data
    /// ([`crate::methods::batch::fubini`] over a rectangle): for dd and qd the same bits. The
    /// integral from a to b is 0 when a = b and the negated integral from b to a when a > b,
    /// in each coordinate, as [`crate::Batch`] orients it.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_of_source<T: Real>(
        &self,
        source: &str,
        coords: usize,
        vars: usize,
        lower: &[T],
        upper: &[T],
        params: &[T],
        settings: &BatchSettings<'_, T>,
    ) -> Result<Vec<BatchRow<T>>> {
        if !(1..=2).contains(&coords) {
            return Err(GpuError::Invalid(format!(
                "a batch integrates over 1 or 2 coordinates, not {coords}"
            )));
        }
        let n = lower.len() / coords;
        let p = vars.checked_sub(coords).ok_or_else(|| {
            GpuError::Invalid(format!(
                "a batch integrand of {vars} variables has no {coords} coordinates"
            ))
        })?;
        if lower.len() != n * coords || upper.len() != n * coords || params.len() != n * p {
            return Err(GpuError::Invalid(format!(
                "{} lower bounds, {} upper bounds and {} parameter values are not {n} \
                 integrals of {coords} coordinates and {p} parameters",
                lower.len(),
                upper.len(),
                params.len()
            )));
        }
        // Simpson's first step as a fraction of the interval, ε, then the rule.
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
        }
        let constants: Vec<f64> = constants
            .iter()
            .flat_map(|v| v.limbs()[..T::LIMBS].to_vec())
            .collect();
        if n == 0 {
            return Ok(Vec::new());
        }
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
        let chunk = match settings.chunk {
            0 => self.batch_chunk::<T>(coords, p),
            c => c,
        };
        let mut rows = Vec::with_capacity(n);
        let mut start = 0;
        while start < n {
            let end = (start + chunk).min(n);
            let m = end - start;
            let limb_major = |values: &[T]| {
                let mut out = vec![0.0; values.len() * T::LIMBS];
                super::real::to_limb_major(values, &mut out);
                out
            };
            // Coordinate by coordinate, each limb-major.
            let bounds = |values: &[T]| {
                let mut out = Vec::with_capacity(m * coords * T::LIMBS);
                for c in 0..coords {
                    let column: Vec<T> = values[start * coords..end * coords]
                        .iter()
                        .skip(c)
                        .step_by(coords)
                        .copied()
                        .collect();
                    out.extend(limb_major(&column));
                }
                out
            };
            let (lo, hi) = (bounds(lower), bounds(upper));
            // Parameter by parameter, each limb-major.
            let mut columns = Vec::with_capacity(m * p * T::LIMBS);
            let mut column = Vec::with_capacity(m);
            for k in 0..p {
                column.clear();
                column.extend(
                    params[start * p..end * p]
                        .iter()
                        .skip(k)
                        .step_by(p)
                        .copied(),
                );
                columns.extend(limb_major(&column));
            }
            let out = launch::batch(
                &self.stream,
                &kernel,
                &launch::BatchInput {
                    lower: &lo,
                    upper: &hi,
                    params: &columns,
                    constants: &constants,
                    relative: settings.tolerance.relative,
                    absolute: settings.tolerance.absolute,
                    step_min: settings.steps.min,
                    step_max: settings.steps.max,
                    max_evaluations: settings.max_evaluations,
                },
            )?;
            rows.extend(self.rows_of::<T>(&out, coords, m));
            start = end;
        }
        Ok(rows)
    }

    /// The rows of one launch's output of `m` integrals of `coords` coordinates.
    fn rows_of<T: Real>(&self, out: &BatchOutput, coords: usize, m: usize) -> Vec<BatchRow<T>> {
        let values: Vec<T> = super::real::from_limb_major(&out.value, m);
        let bad_x: Vec<T> = super::real::from_limb_major(&out.bad_x[..m * T::LIMBS], m);
        let bad_y: Vec<T> = if coords == 2 {
            super::real::from_limb_major(&out.bad_x[m * T::LIMBS..], m)
        } else {
            Vec::new()
        };
        let bad_value: Vec<T> = super::real::from_limb_major(&out.bad_value, m);
        (0..m)
            .map(|i| match out.status[i] {
                2 => Err(NonFiniteAt {
                    x: bad_x[i],
                    y: bad_y.get(i).copied(),
                    value: bad_value[i],
                }),
                3 => Err(NonFiniteAt::at(bad_x[i], bad_value[i])),
                status => Ok(Integrated {
                    value: values[i],
                    error: out.error[i],
                    evaluations: out.evaluations[i],
                    converged: status == 0,
                }),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{cuda, Expr};
    use precision::{Dd, Qd};

    #[test]
    fn the_batch_kernel_is_named_after_its_method_type_and_variables() {
        let e = Expr::parse_with_parameters("exp(-p*x)/(1+q)", 1, &["p", "q"]).unwrap();
        let qd = Gpu::batch_source::<Qd>(
            &cuda::integrand::<Qd>(e.tape()).unwrap(),
            BatchMethod::GaussKronrod,
            1,
            31,
        )
        .unwrap();
        assert!(qd.contains("#define HPQ_BATCH_KERNEL batch_kronrod_qd_3v\n"));
        assert!(qd.contains("#define HPQ_BATCH_KRONROD\n"));
        assert!(qd.contains("#define HPQ_KRONROD_NODES 31"));
        assert!(qd.contains("#define HPQ_VARS 3\n"));
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
            BatchMethod::Faq,
            1,
            0,
        )
        .unwrap();
        assert!(dd.contains("#define HPQ_BATCH_KERNEL batch_faq_dd_1v\n"));
        assert!(dd.contains("real_t integrand(real_t x)"));
        assert!(!dd.contains("#define HPQ_KRONROD_NODES"));
        let f = Gpu::batch_source::<f64>(
            &cuda::integrand::<f64>(e.tape()).unwrap(),
            BatchMethod::AdaptiveSimpson,
            1,
            0,
        )
        .unwrap();
        assert!(f.contains("batch_simpson_f64_1v") && f.contains("#define HPQ_SIMPSON_DEPTH 60"));
        // Gauss–Kronrod without its rule is refused.
        assert!(Gpu::batch_source::<f64>(
            &cuda::integrand::<f64>(e.tape()).unwrap(),
            BatchMethod::GaussKronrod,
            1,
            0
        )
        .is_err());

        // A rectangle: x and y, then the parameter; the kernel's name says so.
        let e = Expr::parse_with_parameters("exp(-p*(x^2+y^2))", 2, &["p"]).unwrap();
        let xy = Gpu::batch_source::<Dd>(
            &cuda::integrand::<Dd>(e.tape()).unwrap(),
            BatchMethod::Faq,
            2,
            0,
        )
        .unwrap();
        assert!(xy.contains("#define HPQ_BATCH_KERNEL batch_faq_dd_xy_3v\n"));
        assert!(xy.contains("#define HPQ_COORDS 2\n"));
        assert!(xy.contains("real_t integrand(const real_t *x)"));
        // Three coordinates, or more coordinates than variables, are refused.
        for coords in [0, 3] {
            assert!(Gpu::batch_source::<Dd>(
                &cuda::integrand::<Dd>(e.tape()).unwrap(),
                BatchMethod::Faq,
                coords,
                0
            )
            .is_err());
        }
    }
}
