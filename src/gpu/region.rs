//! A region step of the adaptive cutting schemes on the device: one launch of
//! `kernels/region.cu` takes a region of the trapezoid–Simpson pair or of a Gauss–Kronrod
//! pair from its bounds (kernel parameters) to one partial sum a group of 256 intervals (see
//! [`crate::methods::pbcaq::region`] for the order of the sums, which the host's step follows
//! too), and one copy brings back the partials with the first accepted interval and the first
//! non-finite point, so the host only adds the groups' partials.

use precision::Real;

use super::launch::{self, RegionKernels, RegionOutput, RegionPair, KRONROD_TABLES};
use super::{function_prelude, splice, Gpu, GpuError, GpuReal, Result, REGION_CU};
use crate::expr::cuda::CudaIntegrand;
use crate::methods::pbcaq::region::{Cut, GroupSums, Region, RegionSums};
use crate::methods::pbcaq::Pair;
use crate::rules::KronrodRule;

impl Gpu {
    /// The complete CUDA source of the region kernels for `T` and a generated integrand of one
    /// variable, as NVRTC sees it; the kernels are named after `T`
    /// (`region_trapezoid_simpson_dd`, `region_kronrod_dd`, ...).
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

    /// The region kernels of `source` ([`Gpu::region_source`] for `T`): the module from the
    /// compiler's cache (or compiled now) and its two functions. A caller keeps them for the
    /// steps of an integrand, so that a step neither regenerates nor compares the source (a
    /// few hundred kB with the function tables).
    pub(crate) fn region_kernels<T: Real>(&self, source: &str) -> Result<RegionKernels> {
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
        Ok(kernels)
    }

    /// One region step of its pair in `kernels` ([`Gpu::region_kernels`] for `T`): the
    /// groups' partial sums, the first accepted interval and the first point whose value is
    /// not finite (by index in the region's list).
    pub(crate) fn region_step<T: Real>(
        &self,
        kernels: &RegionKernels,
        region: &Region<'_, T>,
    ) -> Result<RegionOutput> {
        if kernels.limbs() != T::LIMBS {
            return Err(GpuError::Invalid(format!(
                "region kernels of {} limbs were given a region in {}",
                kernels.limbs(),
                T::NAME
            )));
        }
        let mut bounds = Vec::with_capacity(3 * T::LIMBS);
        for v in [region.lower, region.width, region.upper] {
            bounds.extend_from_slice(&v.limbs()[..T::LIMBS]);
        }
        let rule = match region.pair {
            Pair::TrapezoidSimpson => None,
            Pair::Kronrod(rule) => Some(kronrod_table(rule)?),
        };
        let pair = match &rule {
            None => RegionPair::TrapezoidSimpson,
            Some((rule, nodes)) => RegionPair::Kronrod {
                rule,
                nodes: *nodes,
            },
        };
        let side = match region.cut {
            Cut::Block => None,
            Cut::Side { tolerance, span } => Some((tolerance, span)),
        };
        let mut buffers = self.regions.lock().unwrap_or_else(|p| p.into_inner());
        launch::region_step(
            self.stream()?,
            kernels,
            &mut buffers,
            pair,
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

/// The Kronrod rule as the region kernel reads it: its nodes (largest first), Kronrod weights,
/// Gauss weights and complements, `T::LIMBS` doubles each, and the number of nodes. The kernel takes the
/// last node for the centre, the only one of a single point, so that must be the only zero.
fn kronrod_table<T: Real>(rule: &KronrodRule<T>) -> Result<(Vec<f64>, usize)> {
    let nodes = rule.nodes();
    let centre_last = nodes
        .split_last()
        .is_some_and(|(last, others)| *last == T::zero() && others.iter().all(|&x| x != T::zero()));
    if !centre_last || rule.weights().len() != nodes.len() {
        return Err(GpuError::Invalid(format!(
            "the region kernel takes a Kronrod rule whose last node (only) is the centre; the \
             rule of {} Gauss points is not one",
            rule.gauss_points()
        )));
    }
    let mut table = Vec::with_capacity(KRONROD_TABLES * nodes.len() * T::LIMBS);
    for values in [
        nodes,
        rule.weights(),
        rule.gauss_weights(),
        rule.complements(),
    ] {
        for v in values {
            table.extend_from_slice(&v.limbs()[..T::LIMBS]);
        }
    }
    Ok((table, nodes.len()))
}
