//! A region step of the adaptive cutting schemes on the device: `kernels/region.cu`'s three
//! launches take a region of the trapezoid–Simpson pair from its bounds to one partial sum a
//! group of 256 intervals (see [`crate::methods::pbcaq::region`] for the order of the sums,
//! which the host's step follows too), so that a step copies a few numbers each way instead
//! of its points and values, and the host only adds the groups' partials.

use precision::Real;

use super::launch::{self, RegionKernels, RegionOutput};
use super::{function_prelude, splice, Gpu, GpuError, GpuReal, Result, REGION_CU};
use crate::expr::cuda::CudaIntegrand;
use crate::methods::pbcaq::region::{Cut, GroupSums, Region, RegionSums};

impl Gpu {
    /// The complete CUDA source of the region kernels for `T` and a generated integrand of one
    /// variable, as NVRTC sees it; the kernels are named after `T` (`region_points_dd`, ...).
    pub fn region_source<T: GpuReal>(integrand: &CudaIntegrand) -> Result<String> {
        if integrand.dims != 1 {
            return Err(GpuError::Invalid(format!(
                "the region kernels integrate functions of one variable, not {}",
                integrand.dims
            )));
        }
        let prelude = function_prelude(integrand)?;
        let kernel = format!("#define HPQ_REGION_TYPE {}", T::NAME);
        splice::<T>(
            REGION_CU,
            "region.cu",
            &prelude,
            &integrand.body,
            1,
            &kernel,
        )
    }

    /// One region step of the trapezoid–Simpson pair, the integrand compiled into `source`
    /// ([`Gpu::region_source`] for `T`): the groups' partial sums, the first accepted interval
    /// and the first point whose value is not finite (by index in the region's list).
    pub(crate) fn region_of_source<T: Real>(
        &self,
        source: &str,
        region: &Region<'_, T>,
    ) -> Result<RegionOutput> {
        let module = self
            .compiler
            .module(&format!("hpquad_region_{}.cu", T::NAME), source)?;
        let kernels = RegionKernels::from_module(&module, T::NAME)?;
        if kernels.limbs() != T::LIMBS {
            return Err(GpuError::Invalid(format!(
                "{} has {} limbs, but the device's has {}",
                T::NAME,
                T::LIMBS,
                kernels.limbs()
            )));
        }
        let mut bounds = Vec::with_capacity(3 * T::LIMBS);
        for v in [region.lower, region.width, region.upper] {
            bounds.extend_from_slice(&v.limbs()[..T::LIMBS]);
        }
        let side = match region.cut {
            Cut::Block => None,
            Cut::Side { tolerance, span } => Some((tolerance, span)),
        };
        let mut buffers = self.regions.lock().unwrap_or_else(|p| p.into_inner());
        launch::region_step(
            &self.stream,
            &kernels,
            &mut buffers,
            &bounds,
            region.intervals as u64,
            T::epsilon().to_f64(),
            side,
        )
    }
}

/// The region's sums from the device's partials ([`RegionOutput`]), combined in group order as
/// the host's step combines its groups.
pub(crate) fn region_sums<T: Real>(out: &RegionOutput) -> RegionSums<T> {
    let acc_limbs = out.acc_limbs;
    let groups = out.partials.chunks_exact(acc_limbs + 3).map(|p| {
        // f64 sums in double-double: (hi, lo) is the accumulator hi + lo, exactly.
        let value = if T::LIMBS == 1 {
            T::from_f64(p[0]).to_accumulator() + T::from_f64(p[1]).to_accumulator()
        } else {
            T::from_limbs(&p[..T::LIMBS]).to_accumulator()
        };
        GroupSums {
            value,
            error_lower: p[acc_limbs],
            error_upper: p[acc_limbs + 1],
            floor: p[acc_limbs + 2],
        }
    });
    RegionSums::from_groups(out.first as usize, groups)
}
