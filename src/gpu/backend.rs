//! The GPU as a [`Backend`]: the integrand's tape compiled to a uniform-sum kernel and to a
//! point-list kernel, and the hybrid that sends each batch to the CPU or the GPU by its size.
#![deny(unsafe_code)]

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use precision::{Dd, Qd, Real};

use super::launch::RegionKernels;
use super::{
    product_kernel_takes, Gpu, GpuError, GpuReal, RuleSums, MAX_LIST_DIMS, MAX_PRODUCT_DIMS,
    MAX_RULE_DIMS,
};
use crate::backend::{
    non_finite, region_sums, require_1d, rule_regions, Backend, PointSet, RuleGenerators,
    UniformGrid,
};
use crate::cpu::CpuBackend;
use crate::error::{Error, Result};
use crate::expr::{cuda, Tape};
use crate::integrand::Integrand;
use crate::methods::cuhre::{device, Hyperbox};
use crate::methods::gauss_product::{product_regions, ProductRule, ProductSums};
use crate::methods::pbcaq::region::{Region, RegionSums};
use crate::methods::{Options, Outcome};

/// Runs every uniform sum on one CUDA device, one kernel launch per grid, and every point list
/// in one launch (device buffers kept for the next list).
///
/// The integrand must be an expression ([`crate::expr::Expr`]): its tape becomes the CUDA
/// body ([`crate::expr::cuda`]). A Rust closure ([`crate::integrand::RealFn`]) cannot be
/// compiled for the device and is an error here.
pub struct GpuBackend {
    gpu: Gpu,
    /// `gpu N (name)`, for the per-stage records.
    name: Arc<str>,
    /// The region kernels of the integrands this backend has stepped, by precision and tape
    /// (the most recent last, at most [`REGION_KERNELS_KEPT`]): a step finds its kernels by
    /// comparing tapes, without generating the integrand's code or its source again.
    region_kernels: Mutex<Vec<RegionEntry>>,
}

/// The region kernels of one integrand in one precision: the precision's name, the tape, the
/// kernels.
type RegionEntry = (&'static str, Tape, Arc<RegionKernels>);

/// The integrands whose region kernels a backend keeps at hand.
const REGION_KERNELS_KEPT: usize = 8;

/// Complete kernel sources by kernel, precision and integrand body, for the whole process:
/// generating a source with the function tables takes 6–10 ms (most of it the tables, read
/// from precision/'s source; measured on the 2-core development machine), which a backend
/// made per call (`hpquad`, `Integral::compute`) paid on every call while the cache was the
/// backend's own.
fn sources() -> &'static Mutex<HashMap<SourceKey, Arc<String>>> {
    static SOURCES: OnceLock<Mutex<HashMap<SourceKey, Arc<String>>>> = OnceLock::new();
    SOURCES.get_or_init(Default::default)
}

/// A kernel source's identity: which kernel, the precision's name, the number of variables,
/// the integrand's body.
type SourceKey = (Kernel, &'static str, usize, String);

/// The kernels an integrand is compiled into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kernel {
    /// `kernels/uniform_sum.cu`.
    UniformSum,
    /// `kernels/evaluate.cu`.
    Evaluate,
    /// `kernels/genz_malik.cu` for the rule of a point set.
    Rule(PointSet),
    /// `kernels/region.cu`.
    Region,
    /// `kernels/cuhre_list.cu` for the rule of a point set.
    List(PointSet),
    /// `kernels/product.cu` (the rule's shape is given at launch).
    Product,
}

impl GpuBackend {
    /// The backend of device `ordinal`; no driver or no such device is an error that says so.
    pub fn new(ordinal: usize) -> std::result::Result<GpuBackend, GpuError> {
        let gpu = Gpu::new(ordinal)?;
        let info = gpu.info();
        let name = format!("gpu {} ({})", info.ordinal, info.name).into();
        Ok(GpuBackend {
            gpu,
            name,
            region_kernels: Mutex::new(Vec::new()),
        })
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The tape of `f`, or the error that says why `f` cannot run on the GPU.
    pub(crate) fn tape_of<F: Integrand>(f: &F) -> Result<&Tape> {
        f.tape().ok_or_else(|| {
            Error::Gpu(
                "the integrand is Rust code (a RealFn closure), which runs on the CPU only; \
                 give it as an expression string to run it on the GPU, or use Device::Cpu"
                    .to_string(),
            )
        })
    }

    /// The source of `kernel` for `tape` in `G`, from the process's cache or generated now.
    fn source<G: Real + GpuReal>(&self, kernel: Kernel, tape: &Tape) -> Result<Arc<String>> {
        let code = cuda::integrand::<G>(tape).map_err(|e| Error::Gpu(e.to_string()))?;
        let mut sources = sources().lock().unwrap_or_else(|p| p.into_inner());
        let key = (kernel, <G as GpuReal>::NAME, code.dims, code.body.clone());
        if let Some(s) = sources.get(&key) {
            return Ok(s.clone());
        }
        let source = Arc::new(super::trace::time("kernel source", || match kernel {
            Kernel::UniformSum => Gpu::integrand_source::<G>(&code),
            Kernel::Evaluate => Gpu::evaluate_source::<G>(&code),
            Kernel::Rule(set) => Gpu::genz_malik_source::<G>(&code, set),
            Kernel::Region => Gpu::region_source::<G>(&code),
            Kernel::List(set) => Gpu::cuhre_list_source::<G>(&code, set),
            Kernel::Product => Gpu::product_source::<G>(&code),
        })?);
        sources.insert(key, source.clone());
        Ok(source)
    }

    /// [`GpuBackend::source`] in the working precision `T`, which must be f64, dd or qd.
    fn source_in<T: Real>(&self, kernel: Kernel, tape: &Tape) -> Result<Arc<String>> {
        if is::<T, f64>() {
            self.source::<f64>(kernel, tape)
        } else if is::<T, Dd>() {
            self.source::<Dd>(kernel, tape)
        } else if is::<T, Qd>() {
            self.source::<Qd>(kernel, tape)
        } else {
            Err(Error::Gpu(format!(
                "the GPU computes in f64, dd or qd, not {}",
                T::NAME
            )))
        }
    }

    /// The sums in `G`, which is `T` (the caller checked): values cross by `Any`, no unsafe.
    fn sums_in<T: Real, G: Real + GpuReal, F: Integrand>(
        &self,
        f: &F,
        tape: &Tape,
        grids: &[UniformGrid<T>],
    ) -> Result<Vec<T>> {
        let source = self.source::<G>(Kernel::UniformSum, tape)?;
        let mut sums = Vec::with_capacity(grids.len());
        for grid in grids {
            let (a, h) = (same::<T, G>(grid.a)?, same::<T, G>(grid.h)?);
            let sum =
                self.gpu
                    .uniform_sum_of_source(&source, a, h, grid.first, grid.stride, grid.count);
            match sum {
                Ok(s) => sums.push(same::<G, T>(s)?),
                // Report the point as the CPU does: in the working precision, with its value.
                Err(GpuError::NonFinite { index, .. }) => {
                    let x = grid.point(index).unwrap_or_else(T::zero);
                    let mut y = [T::zero()];
                    f.eval_batch(&[&[x]], &mut y);
                    return Err(non_finite(x, y[0]));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(sums)
    }
}

/// `x` as `B` when `A` and `B` are the same type.
fn same<A: 'static + Copy, B: 'static + Copy>(x: A) -> Result<B> {
    (&x as &dyn Any)
        .downcast_ref::<B>()
        .copied()
        .ok_or_else(|| Error::Gpu("the GPU computes in f64, dd or qd only".to_string()))
}

fn is<A: 'static, B: 'static>() -> bool {
    std::any::TypeId::of::<A>() == std::any::TypeId::of::<B>()
}

impl GpuBackend {
    /// A cubature rule's class sums and fourth differences on each region (one launch; see
    /// [`Gpu::genz_malik_of_source`]): `centers` and `halfwidths` hold `f.dims()` values a
    /// region, region-major; `generators` say where the points are (either rule's).
    pub fn genz_malik<T: Real, F: Integrand>(
        &self,
        f: &F,
        centers: &[T],
        halfwidths: &[T],
        generators: &RuleGenerators<T>,
    ) -> Result<RuleSums<T>> {
        let tape = Self::tape_of(f)?;
        let source = self.source_in::<T>(Kernel::Rule(generators.set), tape)?;
        Ok(self
            .gpu
            .genz_malik_of_source(&source, f.dims(), centers, halfwidths, generators)?)
    }
}

impl GpuBackend {
    /// CUHRE with the region list on this device ([`crate::methods::cuhre::device`]),
    /// computing the rule of point set `set`.
    fn cuhre_list<T: Real, F: Integrand>(
        &self,
        f: &F,
        region: &Hyperbox<T>,
        options: &Options,
        set: PointSet,
    ) -> Result<Outcome<T>> {
        let tape = Self::tape_of(f)?;
        let source = self.source_in::<T>(Kernel::List(set), tape)?;
        let mut list = super::trace::time("region list: kernels, rule table, buffers", || {
            self.gpu
                .cuhre_list::<T>(&source, region.dims(), set, self.name.clone())
        })?;
        let outcome = super::trace::time("region list: initial partition and rounds", || {
            device::run(f, &mut list, region, options)
        });
        super::trace::time("region list: buffers freed", || drop(list));
        outcome
    }
}

impl GpuBackend {
    /// One round of the device's region list with the rule of point set `set` on the regions
    /// whose corners are `lower` and `upper` (`f.dims()` values a region, region-major): each
    /// region's estimate as the list's rule kernel computes it (its axis after the settle
    /// kernel's finality) and its settled error (no parents: the rounding floor alone). What
    /// `cuhre-parallel` computes on this device region by region, for checking the kernel
    /// against the host's [`device::estimate_region`] (tests/gpu_cuhre_device.rs). An
    /// expression of 2 to [`MAX_LIST_DIMS`] variables in f64, dd or qd.
    pub fn cuhre_list_round<T: Real, F: Integrand>(
        &self,
        f: &F,
        lower: &[T],
        upper: &[T],
        set: PointSet,
    ) -> Result<Vec<(device::Raw<T>, f64)>> {
        use device::RegionList;
        let dims = f.dims();
        if !(2..=MAX_LIST_DIMS).contains(&dims) {
            return Err(Error::Gpu(format!(
                "the device's region list takes 2 to {MAX_LIST_DIMS} dimensions, not {dims}"
            )));
        }
        let tape = Self::tape_of(f)?;
        let source = self.source_in::<T>(Kernel::List(set), tape)?;
        let mut list = self
            .gpu
            .cuhre_list::<T>(&source, dims, set, self.name.clone())?;
        list.load(lower, upper)?;
        let round = list.rule(&device::Share::default())?;
        if let Some((r, k)) = round.list.bad {
            return Err(Error::Gpu(format!(
                "region {r} has a value that is not finite at its point {k}"
            )));
        }
        Ok(list.estimates()?)
    }
}

impl GpuBackend {
    /// A region step in the region kernel (either pair); a non-finite value
    /// is named as the CPU names it, its point and value in the working precision.
    fn region_kernels<T: Real, F: Integrand>(
        &self,
        f: &F,
        region: &Region<'_, T>,
    ) -> Result<RegionSums<T>> {
        let tape = Self::tape_of(f)?;
        let kernels = self.region_kernels_of::<T>(tape)?;
        let out = self.gpu.region_step(&kernels, region)?;
        if let Some(k) = out.bad {
            let x = region.point(k as usize);
            let mut y = [T::zero()];
            f.eval_batch(&[&[x]], &mut y);
            return Err(non_finite(x, y[0]));
        }
        Ok(super::region::region_sums(&out))
    }
}

impl GpuBackend {
    /// The region kernels of `tape` in `T`: kept from an earlier step, else from the source
    /// (the process's cache) and the compiler's module cache, and kept.
    fn region_kernels_of<T: Real>(&self, tape: &Tape) -> Result<Arc<RegionKernels>> {
        let mut kept = self
            .region_kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((_, _, kernels)) = kept
            .iter()
            .rev()
            .find(|(name, t, _)| *name == T::NAME && t == tape)
        {
            return Ok(kernels.clone());
        }
        let source = self.source_in::<T>(Kernel::Region, tape)?;
        let kernels = Arc::new(self.gpu.region_kernels::<T>(&source)?);
        if kept.len() == REGION_KERNELS_KEPT {
            kept.remove(0);
        }
        kept.push((T::NAME, tape.clone(), kernels.clone()));
        Ok(kernels)
    }
}

impl Backend for GpuBackend {
    /// Either pair in the region kernel: one launch, the groups' partials back.
    fn region_step<T: Real, F: Integrand>(
        &self,
        f: &F,
        region: &Region<'_, T>,
    ) -> Result<RegionSums<T>> {
        require_1d(f)?;
        self.region_kernels(f, region)
    }

    fn device(&self) -> Arc<str> {
        self.name.clone()
    }

    fn uniform_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        grids: &[UniformGrid<T>],
    ) -> Result<Vec<T>> {
        require_1d(f)?;
        for grid in grids {
            grid.validate()?;
        }
        let tape = Self::tape_of(f)?;
        if is::<T, f64>() {
            self.sums_in::<T, f64, F>(f, tape, grids)
        } else if is::<T, Dd>() {
            self.sums_in::<T, Dd, F>(f, tape, grids)
        } else if is::<T, Qd>() {
            self.sums_in::<T, Qd, F>(f, tape, grids)
        } else {
            Err(Error::Gpu(format!(
                "the GPU computes in f64, dd or qd, not {}",
                T::NAME
            )))
        }
    }

    /// One launch of the point-list kernel: the points go to the device limb-major, one
    /// thread evaluates each, the values come back as they are (non-finite ones included).
    /// Values in `Dd` and `Qd` are the CPU's bits; in `f64`, transcendental functions are
    /// libdevice's and may differ in the last bit.
    fn evaluate<T: Real, F: Integrand>(&self, f: &F, points: &[T]) -> Result<Vec<T>> {
        let tape = Self::tape_of(f)?;
        if points.is_empty() {
            return Ok(Vec::new());
        }
        let source = self.source_in::<T>(Kernel::Evaluate, tape)?;
        Ok(self.gpu.evaluate_of_source(&source, points, f.dims())?)
    }
    /// One launch of the rule kernel (one block a region) for regions of 2 to
    /// [`MAX_RULE_DIMS`] dimensions; intervals (seven points each) are summed on the host.
    fn genz_malik_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        centers: &[T],
        halfwidths: &[T],
        generators: &RuleGenerators<T>,
    ) -> Result<RuleSums<T>> {
        let dims = rule_regions(f, centers, halfwidths)?;
        if centers.is_empty() || !(2..=MAX_RULE_DIMS).contains(&dims) {
            return Ok(RuleSums::collect(
                centers
                    .chunks_exact(dims)
                    .zip(halfwidths.chunks_exact(dims))
                    .map(|(c, h)| region_sums(f, c, h, generators)),
            ));
        }
        self.genz_malik(f, centers, halfwidths, generators)
    }

    fn rule_round<T: Real, F: Integrand>(&self, f: &F, set: PointSet) -> usize {
        gpu_rule_round(f.dims(), set)
    }

    /// The product kernel (`kernels/product.cu`, one block of the device a block of 64
    /// fibers of a region) for expressions of 1 to [`MAX_PRODUCT_DIMS`] variables in f64, dd
    /// and qd and the rules it takes ([`product_kernel_takes`]: every rule of the method); the
    /// calling thread otherwise ([`Backend::product_sums`]' default). Either way the CPU's
    /// bits (in f64 where the integrand's values are: libdevice's functions may differ in the
    /// last bit).
    fn product_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        rule: &ProductRule<T>,
        lower: &[T],
        upper: &[T],
    ) -> Result<Vec<ProductSums<T>>> {
        let dims = product_regions(f, rule, lower, upper)?;
        if !(product_kernel_for::<T, F>(f) && product_kernel_takes(rule)) {
            return Ok(lower
                .chunks_exact(dims)
                .zip(upper.chunks_exact(dims))
                .map(|(l, u)| rule.region_sums(f, l, u))
                .collect());
        }
        let tape = Self::tape_of(f)?;
        let source = self.source_in::<T>(Kernel::Product, tape)?;
        Ok(self
            .gpu
            .product_sums_of_source(&source, rule, lower, upper)?)
    }

    /// This GPU where the product kernel takes `f` in `T` and `rule`, else the calling
    /// thread, which the record says.
    fn device_for_product<T: Real, F: Integrand>(
        &self,
        f: &F,
        rule: &ProductRule<T>,
        _points: u64,
    ) -> Arc<str> {
        if product_kernel_for::<T, F>(f) && product_kernel_takes(rule) {
            self.name.clone()
        } else {
            Arc::from(
                "host (the calling thread; the GPU's product kernel takes expressions of 1 to 8 \
                 variables in f64, dd or qd)",
            )
        }
    }

    /// The region list kept on the device for expressions of 2 to [`MAX_LIST_DIMS`]
    /// variables in f64, dd and qd; `None` (the host's rounds) otherwise.
    fn cuhre_on_device<T: Real, F: Integrand>(
        &self,
        f: &F,
        region: &Hyperbox<T>,
        options: &Options,
        set: PointSet,
    ) -> Option<Result<Outcome<T>>> {
        let typed = is::<T, f64>() || is::<T, Dd>() || is::<T, Qd>();
        let fits = (2..=MAX_LIST_DIMS).contains(&region.dims()) && f.dims() == region.dims();
        if !(typed && fits && f.tape().is_some()) {
            return None;
        }
        Some(self.cuhre_list(f, region, options, set))
    }

    fn points_per_call<T: Real, F: Integrand>(&self, _f: &F) -> usize {
        GPU_CALL_POINTS
    }
}

/// Whether the product kernel takes `f` in `T`: an expression of 1 to [`MAX_PRODUCT_DIMS`]
/// variables in f64, dd or qd (the rule is checked apart: [`product_kernel_takes`]).
fn product_kernel_for<T: Real, F: Integrand>(f: &F) -> bool {
    let typed = is::<T, f64>() || is::<T, Dd>() || is::<T, Qd>();
    typed && (1..=MAX_PRODUCT_DIMS).contains(&f.dims()) && f.tape().is_some()
}

/// The points a point list may grow to for about the cost of a list of one, on the GPU: 2^10.
/// One NVIDIA H100, one launch of the point-list kernel, µs for 2^8 / 2^10 / 2^12 points:
/// sqrt(exp(cos(x^(x^x)))) in qd 153 / 183 / 245 (one thread's way through the integrand is
/// most of it), the rational 4/(1+x^2) in qd 51 / 85 / 154, in f64 29 / 32 / 50.
pub const GPU_CALL_POINTS: usize = 1 << 10;

/// The regions a cubature round gives the GPU at most: 2^15 blocks of the rule kernel (an
/// H100's 132 multiprocessors want 10^4 blocks and more to fill), and at most 2^26 rule points
/// (a launch of a few tens of milliseconds in qd, not seconds), at least one region.
pub const GPU_ROUND_REGIONS: usize = 1 << 15;

/// The rule points of one GPU round at most; see [`GPU_ROUND_REGIONS`].
pub const GPU_ROUND_POINTS: usize = 1 << 26;

/// The regions of a GPU round in `dims` dimensions with the rule of point set `set`.
fn gpu_rule_round(dims: usize, set: PointSet) -> usize {
    GPU_ROUND_REGIONS
        .min(GPU_ROUND_POINTS / set.points(dims.max(1)))
        .max(1)
}

/// `HPQUAD_GPU_MIN_POINTS`, read once per process (every batch asks).
fn min_points_override() -> Option<u64> {
    static OVERRIDE: OnceLock<Option<u64>> = OnceLock::new();
    *OVERRIDE.get_or_init(|| {
        std::env::var("HPQUAD_GPU_MIN_POINTS")
            .ok()
            .and_then(|v| v.parse().ok())
    })
}

/// The fewest points for which one GPU launch beats the CPU, per precision.
///
/// Measured, not guessed: `gpu_bench_crossover` in tests/gpu_bench.rs, run on one NVIDIA H100
/// machine (NVIDIA H100 80GB HBM3, 16 CPU cores, rayon over all of them) with a warm kernel
/// cache, timed one uniform sum of the π integrand `(16*x-16)/(x^4-2*x^3+4*x-4)` on each side
/// (median of 7) for n = 2^6, 2^8, ..., 2^22 points; these are the smallest n at which the
/// GPU's call (about 90 µs of launch, copies and synchronisation, then the work) beat the CPU:
///
/// | precision | n = 2^(k-2): GPU / CPU | n = 2^k: GPU / CPU | threshold |
/// | --- | --- | --- | --- |
/// | f64 | 2^14: 86 µs / 39 µs | 2^16: 88 µs / 95 µs | 2^16 |
/// | dd | 2^12: 93 µs / 88 µs | 2^14: 102 µs / 143 µs | 2^14 |
/// | qd | 2^6: 233 µs / 217 µs | 2^8: 224 µs / 675 µs | 2^8 |
///
/// Command: `cargo test --release --test gpu_bench -- --ignored --nocapture gpu_bench_crossover`
/// (see benches/README.md). A heavier integrand makes the CPU slower per point and moves the
/// crossover lower, so these are conservative for it; a machine with fewer cores moves it
/// lower too. `HPQUAD_GPU_MIN_POINTS` overrides the threshold for every precision, for
/// re-measuring elsewhere.
pub fn gpu_min_points<T: Real>() -> u64 {
    if let Some(n) = min_points_override() {
        return n;
    }
    match T::NAME {
        "f64" => 1 << 16,
        "dd" => 1 << 14,
        _ => 1 << 8,
    }
}

/// The fewest points for which one GPU point-list evaluation ([`Backend::evaluate`]) beats
/// the CPU, per precision.
///
/// Measured with `gpu_evaluate_timing` (tests/gpu_evaluate.rs) on one NVIDIA H100
/// (NVIDIA H100 80GB HBM3, 16 CPU cores): GPU time including packing and both copies against
/// rayon over all 16 cores, n = 2^8 .. 2^20. In qd the GPU won from 2^8 on (the π rational:
/// 0.62 of the CPU's time at 2^8, 0.26-0.67 above; sqrt(exp(cos(x^(x^x)))): 0.14 at 2^8, 0.03
/// to 0.07 above). In f64 and dd it never won (GPU/CPU 1.3 to 5 in dd, 1.7 to 43 in f64, up
/// to 2^20 points): the copies of the points and values cost more than the evaluation, so
/// point lists stay on the CPU in those precisions.
///
/// In qd the threshold is 2^8 only where the GPU was asked for (`eager`: `--device gpu`,
/// [`HybridBackend::new`] with a GPU), and 2^14 where it is started when needed
/// (`--device auto`): a new integrand's kernel is compiled by NVRTC on its first GPU use
/// (cached on disk after that), and that one-off cost is seconds (on the same machine,
/// `integrate "x^(-x)" --from 0 --to 1000 -p qd` took 4.4 s under `--device auto` with a cold
/// cache, 3 ms on the CPU alone), while what a 2^8-point list saves is a fraction of a
/// millisecond. From 2^14 points a list costs the 16 cores several milliseconds a call, and
/// the methods that make such lists (the adaptive Gauss rules on many pieces, deep tanh-sinh
/// levels) make many. `HPQUAD_GPU_MIN_POINTS` overrides both.
pub fn gpu_min_list_points<T: Real>(eager: bool) -> u64 {
    if let Some(n) = min_points_override() {
        return n;
    }
    match T::NAME {
        "f64" | "dd" => u64::MAX,
        _ if eager => 1 << 8,
        _ => 1 << 14,
    }
}

/// The fewest rule points (regions × points a region) for which the hybrid sends a cubature
/// round to the GPU's rule kernel, in every precision: 2^16, about one round of 80 regions in
/// 8 dimensions. Unlike a point list, the rule kernel receives only the regions (2n numbers
/// each) and returns six numbers and n differences a region, so its transfers do not grow with
/// the points; 2^16 f64 evaluations take a CPU core a millisecond or more, a launch some tens
/// of microseconds. `HPQUAD_GPU_MIN_POINTS` overrides it as it does the others.
pub fn gpu_min_rule_points() -> u64 {
    min_points_override().unwrap_or(1 << 16)
}

/// The fewest points of a region step (either pair) that the hybrid sends to the GPU's
/// region kernel, in every precision: 2^16, as for cubature rounds
/// ([`gpu_min_rule_points`]): the kernel takes three numbers and returns five a group of 256
/// intervals, so the transfers do not grow with the points, and 2^16 evaluations cost a CPU
/// core a millisecond or more against tens of microseconds a step on the device.
/// `HPQUAD_GPU_MIN_POINTS` overrides it as it does the others.
pub fn gpu_min_region_points() -> u64 {
    min_points_override().unwrap_or(1 << 16)
}

/// The CPU for small grids, the GPU (when there is one and the integrand is an expression) for
/// grids of at least [`gpu_min_points`] points.
///
/// The choice depends on the grid and the precision alone, never on timings taken during the
/// run, so the same call gives the same bits on every run.
pub struct HybridBackend {
    cpu: CpuBackend,
    /// The GPU: given at construction ([`HybridBackend::new`]), or started by the first batch
    /// large enough for it ([`HybridBackend::gpu_when_needed`]); `None` inside when there is
    /// none.
    gpu: OnceLock<Option<GpuBackend>>,
    /// Whether the GPU was given (asked for) rather than started when needed: point lists then
    /// go to it from their crossover with the CPU ([`gpu_min_list_points`]).
    eager: bool,
}

impl HybridBackend {
    /// A hybrid of `cpu` and, if given, `gpu`.
    pub fn new(cpu: CpuBackend, gpu: Option<GpuBackend>) -> HybridBackend {
        let eager = gpu.is_some();
        let cell = OnceLock::new();
        let _ = cell.set(gpu);
        HybridBackend {
            cpu,
            gpu: cell,
            eager,
        }
    }

    /// The CPU, with the first CUDA GPU started only when a batch is large enough to go there:
    /// a call whose batches all stay small never creates a CUDA context (a fifth of a second
    /// on an H100, against milliseconds for the whole integral on the CPU). No GPU, or one that
    /// fails to start, leaves everything on the CPU.
    pub fn gpu_when_needed(cpu: CpuBackend) -> HybridBackend {
        HybridBackend {
            cpu,
            gpu: OnceLock::new(),
            eager: false,
        }
    }

    /// The GPU for a batch that is large enough for it, started now if it was not yet, its
    /// context included: a device whose context cannot be created leaves the work on the CPU.
    fn gpu(&self) -> Option<&GpuBackend> {
        self.gpu
            .get_or_init(|| {
                let backend = GpuBackend::new(0).ok()?;
                backend.gpu().ready().ok()?;
                Some(backend)
            })
            .as_ref()
    }

    /// False when it is known that there is no GPU (none given, or none found): the common
    /// CPU-only case decides without looking at the batch.
    fn may_use_gpu(&self) -> bool {
        !matches!(self.gpu.get(), Some(None))
    }

    /// The GPU if it has been started.
    fn started(&self) -> Option<&GpuBackend> {
        self.gpu.get().and_then(Option::as_ref)
    }

    /// Whether grid `grid` of `f` goes to the GPU (the size is checked before the GPU is
    /// asked for, so that small grids never start it).
    fn on_gpu<T: Real, F: Integrand>(&self, f: &F, grid: &UniformGrid<T>) -> bool {
        self.may_use_gpu()
            && f.dims() == 1
            && f.tape().is_some()
            && grid.count >= gpu_min_points::<T>()
            && self.gpu().is_some()
    }

    /// Whether a batch of `count` points of `f` goes to the GPU.
    fn points_on_gpu<T: Real, F: Integrand>(&self, f: &F, count: usize) -> bool {
        self.may_use_gpu()
            && f.dims() == 1
            && f.tape().is_some()
            && count as u64 >= gpu_min_list_points::<T>(self.eager)
            && self.gpu().is_some()
    }
    /// Whether a region step of `f` goes to the GPU: a region of at least
    /// [`gpu_min_region_points`] points, of either pair (its kernel copies a few numbers each
    /// way, whatever the size).
    fn region_on_gpu<T: Real, F: Integrand>(&self, f: &F, region: &Region<'_, T>) -> bool {
        self.may_use_gpu()
            && f.dims() == 1
            && f.tape().is_some()
            && region.points() as u64 >= gpu_min_region_points()
            && self.gpu().is_some()
    }

    /// Whether a rule list of `regions` regions of `f` with the rule of point set `set` goes
    /// to the GPU: regions × rule points of at least [`gpu_min_rule_points`], an expression
    /// of 2 to [`MAX_RULE_DIMS`] variables, a GPU.
    fn rule_on_gpu<F: Integrand>(&self, f: &F, regions: usize, set: PointSet) -> bool {
        let points = (regions as u64).saturating_mul(set.points(f.dims().max(1)) as u64);
        self.may_use_gpu()
            && (2..=MAX_RULE_DIMS).contains(&f.dims())
            && f.tape().is_some()
            && points >= gpu_min_rule_points()
            && self.gpu().is_some()
    }
}

impl HybridBackend {
    /// Whether a product-rule call of `points` points of `f` in `T` goes to the GPU: at
    /// least [`gpu_min_rule_points`], an expression the product kernel takes. The threshold is
    /// the cubature rule's because the product kernel is like the rule kernel in what it
    /// costs: it receives a region's axis points (n · m numbers) and returns one partial of
    /// 4n + 4 numbers a block of 64 fibers, so its transfers are a small fraction of its
    /// points, each of which costs an evaluation on either device; the uniform sum's
    /// thresholds ([`gpu_min_points`], 2^8 points in qd) are for a kernel that takes three
    /// numbers whatever its size, and would start the GPU for a single small region.
    fn product_on_gpu<T: Real, F: Integrand>(
        &self,
        f: &F,
        rule: &ProductRule<T>,
        points: u64,
    ) -> bool {
        self.may_use_gpu()
            && product_kernel_for::<T, F>(f)
            && product_kernel_takes(rule)
            && points >= gpu_min_rule_points()
            && self.gpu().is_some()
    }
}

impl Backend for HybridBackend {
    /// The CPU's name, or both devices' once the GPU has been started.
    fn device(&self) -> Arc<str> {
        match self.started() {
            Some(g) => format!("{} + {}", g.device(), self.cpu.device()).into(),
            None => self.cpu.device(),
        }
    }

    fn device_for<T: Real, F: Integrand>(&self, f: &F, grids: &[UniformGrid<T>]) -> Arc<str> {
        let on_gpu = grids.iter().filter(|g| self.on_gpu(f, g)).count();
        match self.started() {
            Some(g) if on_gpu == grids.len() && on_gpu > 0 => g.device(),
            Some(_) if on_gpu > 0 => self.device(),
            _ => self.cpu.device(),
        }
    }

    fn uniform_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        grids: &[UniformGrid<T>],
    ) -> Result<Vec<T>> {
        let (big, small): (Vec<usize>, Vec<usize>) =
            (0..grids.len()).partition(|&k| self.on_gpu(f, &grids[k]));
        let Some(gpu) = self.started().filter(|_| !big.is_empty()) else {
            return self.cpu.uniform_sums(f, grids);
        };
        let pick = |ks: &[usize]| ks.iter().map(|&k| grids[k]).collect::<Vec<_>>();
        let small_sums = self.cpu.uniform_sums(f, &pick(&small))?;
        let big_sums = gpu.uniform_sums(f, &pick(&big))?;
        let mut sums = vec![T::zero(); grids.len()];
        for (k, s) in small.into_iter().zip(small_sums) {
            sums[k] = s;
        }
        for (k, s) in big.into_iter().zip(big_sums) {
            sums[k] = s;
        }
        Ok(sums)
    }

    fn device_for_points<T: Real, F: Integrand>(&self, f: &F, count: usize) -> Arc<str> {
        // The size first: it starts the GPU when the batch needs it.
        let on_gpu = self.points_on_gpu::<T, F>(f, count);
        match self.started() {
            Some(g) if on_gpu => g.device(),
            _ => self.cpu.device(),
        }
    }

    fn evaluate<T: Real, F: Integrand>(&self, f: &F, points: &[T]) -> Result<Vec<T>> {
        let on_gpu = self.points_on_gpu::<T, F>(f, points.len() / f.dims().max(1));
        match self.started() {
            Some(gpu) if on_gpu => gpu.evaluate(f, points),
            _ => self.cpu.evaluate(f, points),
        }
    }
    fn genz_malik_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        centers: &[T],
        halfwidths: &[T],
        generators: &RuleGenerators<T>,
    ) -> Result<RuleSums<T>> {
        let regions = centers.len() / f.dims().max(1);
        let on_gpu = self.rule_on_gpu(f, regions, generators.set);
        match self.started() {
            Some(gpu) if on_gpu => gpu.genz_malik_sums(f, centers, halfwidths, generators),
            _ => self.cpu.genz_malik_sums(f, centers, halfwidths, generators),
        }
    }

    /// The GPU's product kernel when the call has at least [`gpu_min_rule_points`] points of
    /// an expression and a rule the kernel takes, else the CPU's threads: the same bits either
    /// way (in f64 wherever the integrand's values are, see [`GpuBackend`]'s).
    fn product_sums<T: Real, F: Integrand>(
        &self,
        f: &F,
        rule: &ProductRule<T>,
        lower: &[T],
        upper: &[T],
    ) -> Result<Vec<ProductSums<T>>> {
        let points = (lower.len() / f.dims().max(1)) as u64 * rule.points();
        let on_gpu = self.product_on_gpu(f, rule, points);
        match self.started() {
            Some(gpu) if on_gpu => gpu.product_sums(f, rule, lower, upper),
            _ => self.cpu.product_sums(f, rule, lower, upper),
        }
    }

    fn device_for_product<T: Real, F: Integrand>(
        &self,
        f: &F,
        rule: &ProductRule<T>,
        points: u64,
    ) -> Arc<str> {
        let on_gpu = self.product_on_gpu(f, rule, points);
        match self.started() {
            Some(g) if on_gpu => g.device(),
            _ => self.cpu.device(),
        }
    }

    fn device_for_rule<T: Real, F: Integrand>(
        &self,
        f: &F,
        regions: usize,
        set: PointSet,
    ) -> Arc<str> {
        let on_gpu = self.rule_on_gpu(f, regions, set);
        match self.started() {
            Some(g) if on_gpu => g.device(),
            _ => self.cpu.device(),
        }
    }

    /// The GPU's region step when the region goes there, else the CPU's.
    fn region_step<T: Real, F: Integrand>(
        &self,
        f: &F,
        region: &Region<'_, T>,
    ) -> Result<RegionSums<T>> {
        let on_gpu = self.region_on_gpu(f, region);
        match self.started() {
            Some(gpu) if on_gpu => gpu.region_step(f, region),
            _ => self.cpu.region_step(f, region),
        }
    }

    fn device_for_region<T: Real, F: Integrand>(&self, f: &F, region: &Region<'_, T>) -> Arc<str> {
        let on_gpu = self.region_on_gpu(f, region);
        match self.started() {
            Some(g) if on_gpu => g.device(),
            _ => self.cpu.device(),
        }
    }

    /// The CPU's: steps that go to the GPU are issued from a thread of the CPU's pool as well.
    fn within<R: Send>(&self, job: impl FnOnce() -> R + Send) -> R {
        self.cpu.within(job)
    }

    /// The GPU's size when a list of that size would go to the GPU, else the CPU's (0): a
    /// joined list that stayed on the CPU would cost every point it holds.
    fn points_per_call<T: Real, F: Integrand>(&self, f: &F) -> usize {
        if self.points_on_gpu::<T, F>(f, GPU_CALL_POINTS) {
            GPU_CALL_POINTS
        } else {
            0
        }
    }

    /// The region list on the GPU when one was given ([`HybridBackend::new`]: `--device gpu`);
    /// with a GPU started when needed (`--device auto`) the rounds stay on the host, each sent
    /// to the GPU by its size, so that a small integral never starts one.
    fn cuhre_on_device<T: Real, F: Integrand>(
        &self,
        f: &F,
        region: &Hyperbox<T>,
        options: &Options,
        set: PointSet,
    ) -> Option<Result<Outcome<T>>> {
        if !self.eager {
            return None;
        }
        self.started()?.cuhre_on_device(f, region, options, set)
    }

    /// The GPU's round when a round of that size would go to the GPU, else the CPU's.
    fn rule_round<T: Real, F: Integrand>(&self, f: &F, set: PointSet) -> usize {
        let gpu = gpu_rule_round(f.dims(), set);
        if self.rule_on_gpu(f, gpu, set) {
            gpu
        } else {
            self.cpu.rule_round::<T, F>(f, set)
        }
    }
}
