//! A cubature rule on the device: the class sums and fourth differences of many regions in
//! one launch of `kernels/genz_malik.cu` (one block a region), the step of a cubature round
//! that costs. The kernel is compiled for one rule's point set (Genz and Malik's degree 7 or
//! DCUHRE's degree 9, `HPQ_DEGREE`), which its name says.

use precision::Real;

use super::launch::{self, RuleKernel};
use super::{function_prelude, splice, Gpu, GpuError, GpuReal, Result, GENZ_MALIK_CU};
use crate::backend::{PointSet, RuleGenerators, RULE_CLASSES};
use crate::expr::cuda::CudaIntegrand;

/// The rule's sums over a list of regions: the contract of [`crate::backend::Backend::genz_malik_sums`],
/// which the device fills here.
pub use crate::backend::RuleSums;

/// The rule kernel's name for `type_name` (f64, dd, qd), `dims` and the rule of `set`:
/// `genz_malik_qd_5d_deg9`.
pub(crate) fn rule_kernel_name(type_name: &str, dims: usize, set: PointSet) -> String {
    format!("genz_malik_{type_name}_{dims}d_deg{}", set.degree())
}

/// The most dimensions the rule kernel takes: its 2^dims vertices are visited by one block.
pub const MAX_RULE_DIMS: usize = 30;

impl Gpu {
    /// The complete CUDA source of the rule kernel for `T`, a generated integrand of at least
    /// two variables and the rule of point set `set`, as NVRTC sees it.
    pub fn genz_malik_source<T: GpuReal>(
        integrand: &CudaIntegrand,
        set: PointSet,
    ) -> Result<String> {
        let dims = integrand.dims;
        if !(2..=MAX_RULE_DIMS).contains(&dims) {
            return Err(GpuError::Invalid(format!(
                "the cubature rule kernel takes 2 to {MAX_RULE_DIMS} dimensions, not {dims}"
            )));
        }
        let prelude = function_prelude(integrand)?;
        let kernel = format!(
            "#define HPQ_DIMS {dims}\n#define HPQ_DEGREE {}\n#define HPQ_RULE_KERNEL {}",
            set.degree(),
            rule_kernel_name(T::NAME, dims, set)
        );
        splice::<T>(
            GENZ_MALIK_CU,
            "genz_malik.cu",
            &prelude,
            &integrand.body,
            dims,
            &kernel,
        )
    }

    /// A rule's class sums and fourth differences on each region of `dims` dimensions, the
    /// integrand compiled into `source` ([`Gpu::genz_malik_source`] for `T` and the point set
    /// of `generators`). `centers` and `halfwidths` hold `dims` values a region, region-major;
    /// `generators` say where the points are. The same call gives the same bits on every run.
    pub fn genz_malik_of_source<T: Real>(
        &self,
        source: &str,
        dims: usize,
        centers: &[T],
        halfwidths: &[T],
        generators: &RuleGenerators<T>,
    ) -> Result<RuleSums<T>> {
        // λa, λb, λc, λd, λv and λa²/λb², the kernel's six constants (λc, λd are 0 for the
        // degree-7 rule, which has no such classes).
        let [a, b, c, d] = generators.axis;
        let constants = [a, b, c, d, generators.vertex, generators.ratio];
        if dims < 2 || !centers.len().is_multiple_of(dims) || halfwidths.len() != centers.len() {
            return Err(GpuError::Invalid(format!(
                "{} centers and {} half-widths are not regions of {dims} dimensions",
                centers.len(),
                halfwidths.len()
            )));
        }
        let set = generators.set;
        let module = self.compiler.module(
            &format!("hpquad_genz_malik_{}_deg{}.cu", T::NAME, set.degree()),
            source,
        )?;
        let kernel = RuleKernel::from_module(&module, T::NAME, dims, set)?;
        let flat = |values: &[T]| -> Vec<f64> {
            values
                .iter()
                .flat_map(|v| v.limbs()[..T::LIMBS].to_vec())
                .collect()
        };
        let out = launch::genz_malik(
            self.stream()?,
            &kernel,
            &flat(centers),
            &flat(halfwidths),
            &flat(&constants),
        )?;
        let sums: Vec<T> = out.sums.chunks_exact(T::LIMBS).map(T::from_limbs).collect();
        let classes = sums
            .chunks_exact(set.classes())
            .map(|c| {
                let mut classes = [T::zero(); RULE_CLASSES];
                classes[..c.len()].copy_from_slice(c);
                classes
            })
            .collect();
        let bad = out
            .bad
            .iter()
            .enumerate()
            .find_map(|(r, k)| k.map(|k| (r, k)));
        Ok(RuleSums {
            classes,
            fourth: out.fourth,
            bad,
        })
    }
}
