//! The tensor-product Gauss–Legendre rule's sums on the device ([`crate::methods::gauss_product`]):
//! `kernels/product.cu` computes every block of [`BLOCK_FIBERS`] fibers of every region as
//! [`ProductRule::block_sums`] does, one CUDA block each, and the host adds each region's
//! blocks in block order with [`ProductSums::add`], as the CPU backend does: the same bits as
//! the CPU wherever the integrand's values are (dd and qd always; f64 where the integrand calls
//! no function whose libdevice result may differ from the host's in the last bit).
//!
//! The regions go in launches of at most [`LAUNCH_BLOCKS`] blocks and [`LAUNCH_DOUBLES`]
//! doubles of partials (a call of thousands of 5-dimensional regions is billions of points);
//! while the device works on one launch, the host makes the next launch's points and adds up
//! the previous one's partials.

use std::any::Any;
use std::ops::Range;

use precision::{Dd, Real};

use super::launch::{self, ProductBuffers, ProductKernel};
use super::{function_prelude, splice, trace, Gpu, GpuError, GpuReal, Result, PRODUCT_CU};
use crate::expr::cuda::CudaIntegrand;
use crate::methods::gauss_product::{
    most_points_per_axis, ProductRule, ProductSums, BLOCK_FIBERS, MAX_RAISED_POINTS,
};

/// The most dimensions the product kernel takes: the method's own limit (8 axes of at least 8
/// points within [`crate::methods::gauss_product::MAX_REGION_POINTS`]).
pub const MAX_PRODUCT_DIMS: usize = 8;

/// The blocks of one launch at most: 2^20, a few hundred waves of an H100's 132
/// multiprocessors.
const LAUNCH_BLOCKS: u64 = 1 << 20;

/// The doubles of partials one launch brings back at most: 2^23 (64 MiB; a block's partial is
/// 44 doubles in dd and 5 dimensions, 134 in qd and 8).
const LAUNCH_DOUBLES: u64 = 1 << 23;

/// The product kernel's name for `type_name` (f64, dd, qd) and `dims`: `gauss_product_dd_5d`.
pub(crate) fn product_kernel_name(type_name: &str, dims: usize) -> String {
    format!("gauss_product_{type_name}_{dims}d")
}

/// Whether the product kernel takes `rule`: 1 to [`MAX_PRODUCT_DIMS`] axes of 8 to
/// [`most_points_per_axis`] points each, at most [`MAX_RAISED_POINTS`] points a region (every
/// rule of the method).
pub fn product_kernel_takes<T: Real>(rule: &ProductRule<T>) -> bool {
    (1..=MAX_PRODUCT_DIMS).contains(&rule.dims())
        && rule
            .shape()
            .iter()
            .all(|m| (8..=most_points_per_axis::<T>()).contains(m))
        && rule.points() <= MAX_RAISED_POINTS
}

/// The buffers of the product kernel: the device's, and the host's copy of a launch's
/// partials, kept (up to [`LAUNCH_DOUBLES`]) for the next call.
#[derive(Default)]
pub(crate) struct ProductStaging {
    device: ProductBuffers,
    partials: Vec<f64>,
}

impl Gpu {
    /// The complete CUDA source of the product kernel for `T` and a generated integrand of 1
    /// to [`MAX_PRODUCT_DIMS`] variables, as NVRTC sees it; the kernel is named after both
    /// (`gauss_product_dd_5d`) and takes every shape of rule the method makes in `T`
    /// ([`product_kernel_takes`]), given at launch.
    pub fn product_source<T: GpuReal>(integrand: &CudaIntegrand) -> Result<String> {
        let dims = integrand.dims;
        if !(1..=MAX_PRODUCT_DIMS).contains(&dims) {
            return Err(GpuError::Invalid(format!(
                "the product kernel takes 1 to {MAX_PRODUCT_DIMS} dimensions, not {dims}"
            )));
        }
        let prelude = function_prelude(integrand)?;
        let kernel = format!(
            "#define HPQ_DIMS {dims}\n#define HPQ_BLOCK_FIBERS {BLOCK_FIBERS}\n#define \
             HPQ_PRODUCT_KERNEL {}",
            product_kernel_name(T::NAME, dims)
        );
        splice::<T>(
            PRODUCT_CU,
            "product.cu",
            &prelude,
            &integrand.body,
            dims,
            &kernel,
        )
    }

    /// The sums of `rule` on each region whose corners are `lower` and `upper` (`rule.dims()`
    /// values a region, region-major), the integrand compiled into `source`
    /// ([`Gpu::product_source`] for `T` and the rule's dimension): what
    /// [`crate::backend::Backend::product_sums`] returns, each region's blocks added in block
    /// order. A non-finite value is reported in [`ProductSums::bad`], as on the CPU.
    pub fn product_sums_of_source<T: Real>(
        &self,
        source: &str,
        rule: &ProductRule<T>,
        lower: &[T],
        upper: &[T],
    ) -> Result<Vec<ProductSums<T>>> {
        let dims = rule.dims();
        if !product_kernel_takes(rule) {
            return Err(GpuError::Invalid(format!(
                "the product kernel takes 1 to {MAX_PRODUCT_DIMS} dimensions of 8 to {} points, \
                 at most {MAX_RAISED_POINTS} a region; the rule has {:?} points on its axes",
                most_points_per_axis::<T>(),
                rule.shape()
            )));
        }
        if !lower.len().is_multiple_of(dims) || upper.len() != lower.len() {
            return Err(GpuError::Invalid(format!(
                "{} lower and {} upper corner coordinates are not regions of {dims} dimensions",
                lower.len(),
                upper.len()
            )));
        }
        let regions = lower.len() / dims;
        if regions == 0 {
            return Ok(Vec::new());
        }
        let module = self
            .compiler
            .module(&format!("hpquad_product_{}.cu", T::NAME), source)?;
        let kernel = ProductKernel::from_module(&module, T::NAME, dims)?;
        if kernel.limbs() != T::LIMBS {
            return Err(GpuError::Invalid(format!(
                "a product kernel of {} limbs was given a rule in {}",
                kernel.limbs(),
                T::NAME
            )));
        }
        let shape = rule.shape();
        let table = rule_table(rule);
        let per_region: usize = shape.iter().sum();
        let axis_points = |range: Range<usize>| -> Vec<f64> {
            let mut out = Vec::with_capacity(range.len() * per_region * T::LIMBS);
            for r in range {
                let span = r * dims..(r + 1) * dims;
                for x in rule.axis_points(&lower[span.clone()], &upper[span]) {
                    out.extend_from_slice(&x.limbs()[..T::LIMBS]);
                }
            }
            out
        };
        let per_launch = regions_per_launch(rule.blocks(), kernel.partial_len());
        let stream = self.stream()?;
        let mut staging = self.products.lock().unwrap_or_else(|p| p.into_inner());
        let staging = &mut *staging;
        trace::time("product launches and copies", || {
            let mut sums = Vec::with_capacity(regions);
            let mut launched = 0..per_launch.min(regions);
            let mut len = launch::product_launch(
                stream,
                &kernel,
                &mut staging.device,
                &table,
                &shape,
                &axis_points(launched.clone()),
            )?;
            while !launched.is_empty() {
                // The next launch's points while the device works on this one, its partials'
                // sums while the device works on the next.
                let next = launched.end..(launched.end + per_launch).min(regions);
                let points = (!next.is_empty()).then(|| axis_points(next.clone()));
                if staging.partials.len() < len {
                    staging.partials.resize(len, 0.0);
                }
                let partials = &mut staging.partials[..len];
                launch::product_partials(stream, &kernel, &mut staging.device, partials)?;
                let next_len = match points {
                    Some(points) => launch::product_launch(
                        stream,
                        &kernel,
                        &mut staging.device,
                        &table,
                        &shape,
                        &points,
                    )?,
                    None => 0,
                };
                add_blocks(&kernel, rule, &staging.partials[..len], &mut sums)?;
                (launched, len) = (next, next_len);
            }
            Ok(sums)
        })
    }
}

/// The regions of one launch: as many as [`LAUNCH_BLOCKS`] blocks and [`LAUNCH_DOUBLES`]
/// doubles of partials allow, at least one.
fn regions_per_launch(blocks: u64, partial_len: usize) -> usize {
    let by_blocks = LAUNCH_BLOCKS / blocks;
    let by_doubles = LAUNCH_DOUBLES / (blocks * partial_len as u64);
    by_blocks.min(by_doubles).max(1) as usize
}

/// The rule's tables as the kernel reads them, axis after axis: each axis's weights, four
/// functionals and four ratios ([`launch::PRODUCT_TABLES`] rows of m_d values), `T::LIMBS`
/// doubles a value.
fn rule_table<T: Real>(rule: &ProductRule<T>) -> Vec<f64> {
    let values: usize = rule.shape().iter().sum();
    let mut table = Vec::with_capacity(launch::PRODUCT_TABLES * values * T::LIMBS);
    for d in 0..rule.dims() {
        let axis = rule.axis(d);
        let rows = std::iter::once(axis.weights())
            .chain(axis.functionals().iter().map(Vec::as_slice))
            .chain(axis.ratios().iter().map(Vec::as_slice));
        for row in rows {
            for v in row {
                table.extend_from_slice(&v.limbs()[..T::LIMBS]);
            }
        }
    }
    table
}

/// Appends to `sums` the sums of each region of one launch: its blocks' partials
/// ([`ProductKernel::partial_len`] doubles each, in block order) added with
/// [`ProductSums::add`] from [`ProductSums::zero`], as the CPU backend adds them.
fn add_blocks<T: Real>(
    kernel: &ProductKernel,
    rule: &ProductRule<T>,
    partials: &[f64],
    sums: &mut Vec<ProductSums<T>>,
) -> Result<()> {
    let (dims, limbs, acc) = (rule.dims(), T::LIMBS, kernel.acc_limbs());
    let size = kernel.partial_len();
    let tails = acc + 4 * dims * limbs;
    let mut block = ProductSums::<T>::zero(dims);
    for region in partials.chunks_exact(rule.blocks() as usize * size) {
        let mut total = ProductSums::zero(dims);
        for p in region.chunks_exact(size) {
            block.value = accumulator::<T>(&p[..acc])?;
            for (d, axis) in block.tails.iter_mut().enumerate() {
                for (k, t) in axis.iter_mut().enumerate() {
                    let at = acc + (4 * d + k) * limbs;
                    *t = T::from_limbs(&p[at..at + limbs]);
                }
            }
            block.abs = p[tails];
            // The first bad point's index (below 2^53, exact in a double), or -1.
            let bad = p[tails + 1];
            block.bad = (bad >= 0.0).then_some(bad as u64);
            total.add(&block);
        }
        sums.push(total);
    }
    Ok(())
}

/// The accumulator the kernel stored as `limbs`: an f64 sum's double-double taken whole (both
/// words, as they are), a dd or qd sum as its value.
fn accumulator<T: Real>(limbs: &[f64]) -> Result<T::Accumulator> {
    if T::LIMBS == 1 {
        let sum = Dd::from_components(&limbs[..2]);
        (&sum as &dyn Any)
            .downcast_ref::<T::Accumulator>()
            .copied()
            .ok_or_else(|| GpuError::Invalid(format!("{} does not accumulate in dd", T::NAME)))
    } else {
        Ok(T::from_limbs(limbs).to_accumulator())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{cuda, Expr};
    use crate::methods::gauss_product::AxisRule;
    use precision::Qd;

    #[test]
    fn the_kernel_is_named_after_its_type_and_dimension() {
        let e = Expr::parse("exp(x1*x2) + sin(x3)", 3).unwrap();
        let code = cuda::integrand::<Qd>(e.tape()).unwrap();
        let source = Gpu::product_source::<Qd>(&code).unwrap();
        assert!(source.contains("typedef qd_t real_t;"));
        assert!(source.contains("real_t integrand(const real_t *x)"));
        assert!(source.contains("#define HPQ_PRODUCT_KERNEL gauss_product_qd_3d\n"));
        assert!(source.contains("#define HPQ_DIMS 3\n#define HPQ_BLOCK_FIBERS 64\n"));
        assert!(source.contains("hpq_exp"));
        // One variable: the value itself, not an array.
        let e = Expr::parse("1/(1+x^2)", 1).unwrap();
        let code = cuda::integrand::<f64>(e.tape()).unwrap();
        let source = Gpu::product_source::<f64>(&code).unwrap();
        assert!(source.contains("real_t integrand(real_t x)"));
        assert!(source.contains("gauss_product_f64_1d\n"));
        assert!(!source.contains("hpq_exp"));
        let e9 = Expr::parse("x1 + x9", 9).unwrap();
        let code = cuda::integrand::<f64>(e9.tape()).unwrap();
        assert!(Gpu::product_source::<f64>(&code).is_err());
    }

    #[test]
    fn launches_are_bounded() {
        // 5 dimensions in dd, 20 points: 2500 blocks a region, 44 doubles a partial; as many
        // regions as the partials' bound allows.
        let regions = regions_per_launch(2500, 44) as u64;
        assert_eq!(regions, 76);
        assert!(regions * 2500 * 44 <= LAUNCH_DOUBLES);
        assert!((regions + 1) * 2500 * 44 > LAUNCH_DOUBLES);
        // Regions of one block: the block limit.
        assert_eq!(regions_per_launch(1, 6), 1 << 20);
        // A region above both limits still goes, alone.
        assert_eq!(regions_per_launch(1 << 21, 134), 1);
    }

    /// A rule of the given points on each axis.
    fn shaped<T: Real>(shape: &[usize]) -> ProductRule<T> {
        let axes = shape
            .iter()
            .map(|&m| std::sync::Arc::new(AxisRule::new(m).unwrap()))
            .collect();
        ProductRule::with_axes(axes).unwrap()
    }

    #[test]
    fn the_kernel_takes_the_methods_rules() {
        use crate::methods::gauss_product::points_per_axis;
        for dims in 1..=MAX_PRODUCT_DIMS {
            let m = points_per_axis::<Qd>(dims).unwrap();
            assert!(product_kernel_takes(
                &ProductRule::<Qd>::new(dims, m).unwrap()
            ));
            let m = points_per_axis::<f64>(dims).unwrap();
            assert!(product_kernel_takes(
                &ProductRule::<f64>::new(dims, m).unwrap()
            ));
        }
        // Raised axes, up to the most a precision takes.
        assert!(product_kernel_takes(&shaped::<f64>(&[8, 24, 12])));
        assert!(product_kernel_takes(&shaped::<Qd>(&[64, 32, 48, 8])));
        assert!(!product_kernel_takes(&shaped::<f64>(&[8, 28])));
        // 8^7 · 24 points a region: within 2^28; 24^6 · 8^2: past it.
        assert!(product_kernel_takes(&shaped::<f64>(&[
            8, 8, 8, 8, 8, 8, 8, 24
        ])));
        assert!(!product_kernel_takes(&shaped::<f64>(&[
            24, 24, 24, 24, 24, 24, 8, 8
        ])));
        assert!(!product_kernel_takes(
            &ProductRule::<f64>::new(9, 8).unwrap()
        ));
    }

    #[test]
    fn a_region_of_the_most_points_fits_the_launchs_shared_memory() {
        // The region's axis points and its first axis's five tables, in qd: 8 axes of 64.
        let values = 8 * 64 + 5 * 64;
        assert!(values * 4 * 8 <= launch::PRODUCT_DYNAMIC_SHARED);
        assert_eq!(launch::product_blocks(&[64, 8, 8, 8]), 8);
        assert_eq!(launch::product_blocks(&[8, 9]), 1);
        assert_eq!(launch::product_blocks(&[8]), 1);
    }

    #[test]
    fn an_f64_sum_keeps_both_words() {
        let acc = accumulator::<f64>(&[1.0, 2f64.powi(-60)]).unwrap();
        assert_eq!(acc, Dd::from_components(&[1.0, 2f64.powi(-60)]));
        let acc = accumulator::<Qd>(&[1.0, 2f64.powi(-60), 2f64.powi(-120), 0.0]).unwrap();
        assert_eq!(
            acc,
            Qd::from_components(&[1.0, 2f64.powi(-60), 2f64.powi(-120), 0.0])
        );
    }
}
