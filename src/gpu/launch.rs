//! Every kernel launch, behind safe functions.
//!
//! A launch is unsafe because the driver cannot check that the arguments match the kernel's
//! parameters or that the kernel stays inside its buffers. Here each kernel family has a
//! typed handle that only this crate can make, from a module built from the matching source,
//! and a launch function that allocates the buffers itself from checked lengths. Nothing
//! outside this module can start a kernel.

use std::sync::Arc;

use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};

use super::error::{alloc, driver, launch as launch_error, GpuError, Result};
use super::staging;
use crate::backend::PointSet;
use crate::methods::gauss_product::BLOCK_FIBERS;

/// Threads per block of every kernel here: a multiple of 32 (the block reduction needs whole
/// warps) and at most 1024.
pub(crate) const THREADS: u32 = 256;

/// Blocks of a uniform sum with one point a thread at most; larger sums loop over the grid.
const BASE_SUM_BLOCKS: u64 = 1024;

/// Blocks of a uniform sum at most, for sums of 2^30 points or more: 20.7 waves of the qd
/// kernel on an H100 (3 blocks of 256 threads an SM at its 78 registers, 396 in all), where
/// 1024 blocks are 2.59 waves, three waves' time with the last 59% full. Measured on an H100,
/// against 1024 blocks in the same run: qd and dd on 2^32 points +5.0% and +7.3% evaluations
/// a second, f64 on 2^36 points +9.7%.
const MAX_SUM_BLOCKS: u64 = 8192;

/// Points a block at least once a grid grows past [`BASE_SUM_BLOCKS`]: the host adds one
/// partial a block, so a larger grid costs it at most one addition per 2^17 points.
const POINTS_PER_LARGE_GRID_BLOCK: u64 = 1 << 17;

/// The `uniform_sum` kernel of `kernels/uniform_sum.cu`, compiled for one number type.
pub(crate) struct UniformSumKernel {
    func: CudaFunction,
    name: String,
    value_limbs: usize,
    acc_limbs: usize,
}

impl UniformSumKernel {
    /// Takes `uniform_sum` from a module compiled from `uniform_sum.cu` with `real_t` of
    /// `value_limbs` doubles summed in an accumulator of `acc_limbs` doubles.
    pub(crate) fn from_module(
        module: &Arc<CudaModule>,
        name: &str,
        value_limbs: usize,
        acc_limbs: usize,
    ) -> Result<Self> {
        let func = module
            .load_function("uniform_sum")
            .map_err(|e| driver("cuModuleGetFunction", e))?;
        Ok(UniformSumKernel {
            func,
            name: name.to_string(),
            value_limbs,
            acc_limbs,
        })
    }
}

/// The result of a uniform sum on the device.
pub(crate) struct SumOutput {
    /// One accumulator per block, `acc_limbs` doubles each, in block order.
    pub(crate) partials: Vec<f64>,
    /// The smallest k whose integrand value was not finite, if any.
    pub(crate) first_bad: Option<u64>,
}

/// The number of blocks a uniform sum of `count` points runs on: one point a thread up to
/// [`BASE_SUM_BLOCKS`] blocks, then a cap that doubles with the count, a power of two from
/// 1024 (below 2^28 points) to [`MAX_SUM_BLOCKS`] (from 2^30). The grid depends on the count
/// alone, never on the device, so results are the same bits on every device and every run.
/// Powers of two keep the qd kernel's waves on an H100 86% busy or more (2.6, 5.2, 10.3 and
/// 20.7 waves of work in 3, 6, 11 and 21 waves' time).
pub(crate) fn sum_blocks(count: u64) -> u32 {
    let affordable = (count / POINTS_PER_LARGE_GRID_BLOCK).max(1);
    let cap = (1u64 << affordable.ilog2()).clamp(BASE_SUM_BLOCKS, MAX_SUM_BLOCKS);
    count.div_ceil(THREADS as u64).clamp(1, cap) as u32
}

/// Runs a uniform sum: `a` and `h` are the limbs of one value each; `first + (count-1)*stride`
/// must stay below 2^63 (checked by the caller, which knows the message to give).
pub(crate) fn uniform_sum(
    stream: &Arc<CudaStream>,
    kernel: &UniformSumKernel,
    a: &[f64],
    h: &[f64],
    first: u64,
    stride: u64,
    count: u64,
) -> Result<SumOutput> {
    if a.len() != kernel.value_limbs || h.len() != kernel.value_limbs {
        return Err(GpuError::Invalid(format!(
            "kernel '{}' takes values of {} limbs",
            kernel.name, kernel.value_limbs
        )));
    }
    let ordinal = stream.context().ordinal();
    let blocks = sum_blocks(count);
    let partial_len = blocks as usize * kernel.acc_limbs;
    let a_dev = stream
        .clone_htod(a)
        .map_err(|e| alloc(ordinal, 8 * a.len(), e))?;
    let h_dev = stream
        .clone_htod(h)
        .map_err(|e| alloc(ordinal, 8 * h.len(), e))?;
    let mut partials = stream
        .alloc_zeros::<f64>(partial_len)
        .map_err(|e| alloc(ordinal, 8 * partial_len, e))?;
    let mut first_bad = stream
        .clone_htod(&[u64::MAX])
        .map_err(|e| alloc(ordinal, 8, e))?;
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut args = stream.launch_builder(&kernel.func);
    args.arg(&a_dev)
        .arg(&h_dev)
        .arg(&first)
        .arg(&stride)
        .arg(&count)
        .arg(&mut partials)
        .arg(&mut first_bad);
    // SAFETY: the arguments match `uniform_sum`'s parameters in kernels/uniform_sum.cu
    // (two pointers to value_limbs doubles, three u64, a pointer to blocks * acc_limbs
    // doubles, a pointer to one u64), all buffers allocated above with those lengths; the
    // kernel writes partials[blockIdx.x * acc_limbs ..][..acc_limbs] and *first_bad only.
    unsafe { args.launch(cfg) }.map_err(|e| launch_error(&kernel.name, ordinal, e))?;
    let partials = stream
        .clone_dtoh(&partials)
        .map_err(|e| launch_error(&kernel.name, ordinal, e))?;
    let bad = stream
        .clone_dtoh(&first_bad)
        .map_err(|e| launch_error(&kernel.name, ordinal, e))?;
    let first_bad = bad.first().copied().filter(|&k| k != u64::MAX);
    Ok(SumOutput {
        partials,
        first_bad,
    })
}

/// One element-wise kernel of `kernels/arith.cu`: `out[i] = op(a[i], b[i])`, where `a` and
/// `out` hold `limbs` doubles per element and `b` either as many (same-type operations) or
/// one (mixed operations with a double).
pub(crate) struct ElementwiseKernel {
    func: CudaFunction,
    name: String,
    limbs: usize,
    b_limbs: usize,
}

impl ElementwiseKernel {
    /// Takes the kernel `name` from a module compiled from `arith.cu`.
    pub(crate) fn from_module(
        module: &Arc<CudaModule>,
        name: &str,
        limbs: usize,
        b_limbs: usize,
    ) -> Result<Self> {
        let func = module
            .load_function(name)
            .map_err(|e| driver("cuModuleGetFunction", e))?;
        Ok(ElementwiseKernel {
            func,
            name: name.to_string(),
            limbs,
            b_limbs,
        })
    }
}

/// Runs an element-wise kernel over `a.len() / limbs` elements.
pub(crate) fn elementwise(
    stream: &Arc<CudaStream>,
    kernel: &ElementwiseKernel,
    a: &[f64],
    b: &[f64],
) -> Result<Vec<f64>> {
    let n = a.len() / kernel.limbs;
    if a.len() != n * kernel.limbs || b.len() != n * kernel.b_limbs {
        return Err(GpuError::Invalid(format!(
            "kernel '{}' needs operands of {} and {} limbs per element",
            kernel.name, kernel.limbs, kernel.b_limbs
        )));
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let blocks = u32::try_from((n as u64).div_ceil(THREADS as u64))
        .map_err(|_| GpuError::Invalid(format!("{n} elements are too many for one launch")))?;
    let ordinal = stream.context().ordinal();
    let a_dev = stream
        .clone_htod(a)
        .map_err(|e| alloc(ordinal, 8 * a.len(), e))?;
    let b_dev = stream
        .clone_htod(b)
        .map_err(|e| alloc(ordinal, 8 * b.len(), e))?;
    let mut out = stream
        .alloc_zeros::<f64>(a.len())
        .map_err(|e| alloc(ordinal, 8 * a.len(), e))?;
    let n64 = n as u64;
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut args = stream.launch_builder(&kernel.func);
    args.arg(&a_dev).arg(&b_dev).arg(&mut out).arg(&n64);
    // SAFETY: the arguments match the HPQ_ELEMENTWISE / HPQ_MIXED kernels of kernels/arith.cu (three
    // pointers and a u64 count); a and out hold n * limbs doubles, b n * b_limbs, as checked
    // above, and thread i < n touches element i only.
    unsafe { args.launch(cfg) }.map_err(|e| launch_error(&kernel.name, ordinal, e))?;
    stream
        .clone_dtoh(&out)
        .map_err(|e| launch_error(&kernel.name, ordinal, e))
}

/// The doubles per value of each number type the kernels are compiled for, by its short name.
fn type_limbs(type_name: &str) -> Option<usize> {
    match type_name {
        "f64" => Some(1),
        "dd" => Some(2),
        "qd" => Some(4),
        _ => None,
    }
}

/// The `evaluate_<type>` kernel of `kernels/evaluate.cu`: `values[i] = f(points[i])`, both
/// limb-major (limb j of element i at `j * n + i`).
///
/// The kernel's name carries its type, and the limb count is taken from that name, never from
/// the caller: a module compiled for another type has no function of this name, so a launch
/// cannot read or write past its buffers.
pub(crate) struct EvaluateKernel {
    func: CudaFunction,
    name: String,
    limbs: usize,
    dims: usize,
}

impl EvaluateKernel {
    /// Takes the kernel for `type_name` and `dims` variables
    /// ([`super::evaluate_kernel_name`]) from a module compiled from `evaluate.cu`.
    pub(crate) fn from_module(
        module: &Arc<CudaModule>,
        type_name: &str,
        dims: usize,
    ) -> Result<Self> {
        let limbs = type_limbs(type_name).ok_or_else(|| {
            GpuError::Invalid(format!(
                "the GPU computes in f64, dd or qd, not {type_name}"
            ))
        })?;
        let name = super::evaluate_kernel_name(type_name, dims);
        let func = module
            .load_function(&name)
            .map_err(|e| driver("cuModuleGetFunction", e))?;
        Ok(EvaluateKernel {
            func,
            name,
            limbs,
            dims,
        })
    }

    /// Doubles per value of the kernel's type.
    pub(crate) fn limbs(&self) -> usize {
        self.limbs
    }
}

/// Device buffers for point lists, kept from one call to the next and grown (to a power of
/// two, so that a sequence of growing lists reallocates a few times only) when a list is
/// longer than any before.
#[derive(Default)]
pub(crate) struct PointBuffers {
    points: Option<CudaSlice<f64>>,
    values: Option<CudaSlice<f64>>,
}

/// `slot`'s buffer, replaced by one of at least `len` doubles if it is shorter.
fn at_least<'a>(
    stream: &Arc<CudaStream>,
    slot: &'a mut Option<CudaSlice<f64>>,
    len: usize,
) -> Result<&'a mut CudaSlice<f64>> {
    if slot.as_ref().is_none_or(|b| b.len() < len) {
        // Free the old buffer first: growing must not need the old and the new at once.
        *slot = None;
        let capacity = len.checked_next_power_of_two().unwrap_or(len);
        let ordinal = stream.context().ordinal();
        // Zeroed, not uninitialised: growth is rare, and then no byte is ever undefined.
        let buffer = stream
            .alloc_zeros::<f64>(capacity)
            .map_err(|e| alloc(ordinal, 8 * capacity, e))?;
        return Ok(slot.insert(buffer));
    }
    slot.as_mut()
        .ok_or_else(|| GpuError::Invalid("a point buffer vanished".to_string()))
}

/// Runs an evaluate kernel: `points` holds the coordinates of `n` points, coordinate by
/// coordinate, each limb-major (coordinate d of point i, limb j, at `(d * limbs + j) * n + i`);
/// `values` receives the `n` values, limb-major. The device buffers come from `buffers`.
pub(crate) fn evaluate(
    stream: &Arc<CudaStream>,
    kernel: &EvaluateKernel,
    buffers: &mut PointBuffers,
    points: &[f64],
    values: &mut [f64],
) -> Result<()> {
    let len = values.len();
    let n = len / kernel.limbs;
    if len != n * kernel.limbs || points.len() != kernel.dims * len {
        return Err(GpuError::Invalid(format!(
            "kernel '{}' needs {} coordinates of {} limbs a point and values of {} limbs, got \
             {} and {} doubles",
            kernel.name,
            kernel.dims,
            kernel.limbs,
            kernel.limbs,
            points.len(),
            len
        )));
    }
    if n == 0 {
        return Ok(());
    }
    let blocks = u32::try_from((n as u64).div_ceil(THREADS as u64))
        .map_err(|_| GpuError::Invalid(format!("{n} points are too many for one launch")))?;
    let ordinal = stream.context().ordinal();
    let points_len = points.len();
    let points_dev = at_least(stream, &mut buffers.points, points_len)?;
    stream
        .memcpy_htod(points, &mut points_dev.slice_mut(..points_len))
        .map_err(|e| driver("cuMemcpyHtoD", e))?;
    let points_dev = &*points_dev;
    let values_dev = at_least(stream, &mut buffers.values, len)?;
    let n64 = n as u64;
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut args = stream.launch_builder(&kernel.func);
    args.arg(points_dev).arg(&mut *values_dev).arg(&n64);
    // SAFETY: the arguments match HPQ_EVALUATE_KERNEL's parameters in kernels/evaluate.cu (two
    // pointers to doubles and a u64 count). The kernel's name says its type and its number of
    // variables (from_module), so its real_t has `kernel.limbs` limbs and HPQ_DIMS is
    // `kernel.dims`. The points buffer holds at least dims * len doubles and the values buffer
    // len = n * limbs (at_least above); thread i < n reads p[(d * limbs + j) * n + i] for
    // d < dims, j < limbs, below dims * len, and writes v[j * n + i], below len. `points` and
    // `values` are distinct allocations, as the kernel's __restrict__ assumes.
    unsafe { args.launch(cfg) }.map_err(|e| launch_error(&kernel.name, ordinal, e))?;
    stream
        .memcpy_dtoh(&values_dev.slice(..len), values)
        .map_err(|e| launch_error(&kernel.name, ordinal, e))
}

/// The `genz_malik_<type>_<D>d_deg<7|9>` kernel of `kernels/genz_malik.cu`: a cubature rule's
/// class sums and fourth differences over a list of regions of D dimensions.
pub(crate) struct RuleKernel {
    func: CudaFunction,
    name: String,
    limbs: usize,
    dims: usize,
    /// The rule's point set (its classes: the sums a region).
    set: PointSet,
}

impl RuleKernel {
    /// Takes the kernel for `type_name`, `dims` and the rule of `set`
    /// ([`super::rule::rule_kernel_name`]) from a module compiled from `genz_malik.cu` for them.
    pub(crate) fn from_module(
        module: &Arc<CudaModule>,
        type_name: &str,
        dims: usize,
        set: PointSet,
    ) -> Result<Self> {
        let limbs = type_limbs(type_name).ok_or_else(|| {
            GpuError::Invalid(format!(
                "the GPU computes in f64, dd or qd, not {type_name}"
            ))
        })?;
        let name = super::rule::rule_kernel_name(type_name, dims, set);
        let func = module
            .load_function(&name)
            .map_err(|e| driver("cuModuleGetFunction", e))?;
        Ok(RuleKernel {
            func,
            name,
            limbs,
            dims,
            set,
        })
    }
}

/// What the rule kernel returns for each region.
pub(crate) struct RuleOutput {
    /// The class sums of each region (5 or 9, the rule's classes C), `limbs` doubles each
    /// (class k of region r at `(r * C + k) * limbs`).
    pub(crate) sums: Vec<f64>,
    /// The fourth difference along each axis (axis d of region r at `r * dims + d`).
    pub(crate) fourth: Vec<f64>,
    /// For each region, the smallest index of a point whose value was not finite, if any.
    pub(crate) bad: Vec<Option<u64>>,
}

/// Threads of a rule block: enough warps for the points of a region, at most 128.
fn rule_threads(dims: usize, set: PointSet) -> u32 {
    let points = set.points(dims.min(20));
    points.next_multiple_of(32).clamp(32, 128) as u32
}

/// Runs the rule kernel over `regions` regions: `centers` and `halfwidths` hold `regions * dims`
/// values of `limbs` doubles each, region-major; `constants` holds λa, λb, λc, λd, λv and
/// λa²/λb².
pub(crate) fn genz_malik(
    stream: &Arc<CudaStream>,
    kernel: &RuleKernel,
    centers: &[f64],
    halfwidths: &[f64],
    constants: &[f64],
) -> Result<RuleOutput> {
    let (limbs, dims) = (kernel.limbs, kernel.dims);
    let classes = kernel.set.classes();
    let regions = centers.len() / (dims * limbs);
    if centers.len() != regions * dims * limbs
        || halfwidths.len() != centers.len()
        || constants.len() != 6 * limbs
    {
        return Err(GpuError::Invalid(format!(
            "kernel '{}' needs regions of {dims} coordinates of {limbs} limbs and 6 constants, \
             got {}, {} and {} doubles",
            kernel.name,
            centers.len(),
            halfwidths.len(),
            constants.len()
        )));
    }
    if regions == 0 {
        return Ok(RuleOutput {
            sums: Vec::new(),
            fourth: Vec::new(),
            bad: Vec::new(),
        });
    }
    let ordinal = stream.context().ordinal();
    let upload = |host: &[f64]| {
        stream
            .clone_htod(host)
            .map_err(|e| alloc(ordinal, 8 * host.len(), e))
    };
    let (centers_dev, halfwidths_dev) = (upload(centers)?, upload(halfwidths)?);
    let constants_dev = upload(constants)?;
    let sums_len = regions * classes * limbs;
    let mut sums = stream
        .alloc_zeros::<f64>(sums_len)
        .map_err(|e| alloc(ordinal, 8 * sums_len, e))?;
    let mut fourth = stream
        .alloc_zeros::<f64>(regions * dims)
        .map_err(|e| alloc(ordinal, 8 * regions * dims, e))?;
    let mut bad = stream
        .clone_htod(&vec![u64::MAX; regions])
        .map_err(|e| alloc(ordinal, 8 * regions, e))?;
    let blocks = u32::try_from(regions.min(1 << 20)).unwrap_or(1 << 20);
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (rule_threads(dims, kernel.set), 1, 1),
        shared_mem_bytes: 0,
    };
    let regions64 = regions as u64;
    let mut args = stream.launch_builder(&kernel.func);
    args.arg(&centers_dev)
        .arg(&halfwidths_dev)
        .arg(&constants_dev)
        .arg(&mut sums)
        .arg(&mut fourth)
        .arg(&mut bad)
        .arg(&regions64);
    // SAFETY: the arguments match HPQ_RULE_KERNEL's parameters in kernels/genz_malik.cu (three
    // pointers to doubles read, two written, a pointer to u64, a u64 count). The kernel's name
    // says its type, dimension and rule (from_module), so real_t has `limbs` limbs, HPQ_DIMS
    // is `dims` and HPQ_CLASSES is `classes`. Block r (and r + gridDim.x, ...) reads centers
    // and halfwidths at (r * dims + d) * limbs, d < dims, within regions * dims * limbs;
    // constants below 6 * limbs; writes sums[(r * classes + k) * limbs ..][..limbs],
    // k < classes, fourth[r * dims + d] and bad[r], all within the lengths allocated above.
    // The block has a multiple of 32 threads, at most 128.
    unsafe { args.launch(cfg) }.map_err(|e| launch_error(&kernel.name, ordinal, e))?;
    let download = |dev: &CudaSlice<f64>| {
        stream
            .clone_dtoh(dev)
            .map_err(|e| launch_error(&kernel.name, ordinal, e))
    };
    let (sums, fourth) = (download(&sums)?, download(&fourth)?);
    let bad = stream
        .clone_dtoh(&bad)
        .map_err(|e| launch_error(&kernel.name, ordinal, e))?
        .into_iter()
        .map(|k| (k != u64::MAX).then_some(k))
        .collect();
    Ok(RuleOutput { sums, fourth, bad })
}

/// The `batch_<method>_<type>_[xy_]<vars>v` kernel of `kernels/batch.cu`: one integral per
/// thread.
pub(crate) struct BatchKernel {
    func: CudaFunction,
    name: String,
    limbs: usize,
    /// The parameters: vars − coords.
    params: usize,
    /// The doubles of the constants buffer: Simpson's fraction, ε, for Gauss–Kronrod the
    /// rule's [`KRONROD_TABLES`], then each parameter's sweep start and stop, each value
    /// `limbs` doubles.
    constants: usize,
}

impl BatchKernel {
    /// Takes the kernel for `method`, `type_name`, `coords` coordinates and `vars` variables
    /// ([`super::batch::batch_kernel_name`]) from a module compiled from `batch.cu` with
    /// `nodes` Kronrod nodes (0 for the other methods).
    pub(crate) fn from_module(
        module: &Arc<CudaModule>,
        method: crate::methods::batch::BatchMethod,
        type_name: &str,
        coords: usize,
        vars: usize,
        nodes: usize,
    ) -> Result<Self> {
        let limbs = type_limbs(type_name).ok_or_else(|| {
            GpuError::Invalid(format!(
                "the GPU computes in f64, dd or qd, not {type_name}"
            ))
        })?;
        let params = vars.checked_sub(coords).ok_or_else(|| {
            GpuError::Invalid(format!(
                "a batch integrand of {vars} variables has no {coords} coordinates"
            ))
        })?;
        let name = super::batch::batch_kernel_name(method, type_name, coords, vars);
        let func = module
            .load_function(&name)
            .map_err(|e| driver("cuModuleGetFunction", e))?;
        Ok(BatchKernel {
            func,
            name,
            limbs,
            params,
            constants: (2 + KRONROD_TABLES * nodes + 2 * params) * limbs,
        })
    }
}

/// The device buffers of a batch's launches, allocated once for launches of up to `capacity`
/// integrals and `uploaded` parameter columns, with the batch's plan and constants.
pub(crate) struct BatchBuffers {
    capacity: usize,
    uploaded: usize,
    columns: CudaSlice<f64>,
    plan: CudaSlice<u64>,
    constants: CudaSlice<f64>,
    value: CudaSlice<f64>,
    error: CudaSlice<f64>,
    evaluations: CudaSlice<u64>,
    status: CudaSlice<u32>,
    failures: CudaSlice<u32>,
    failed_rows: CudaSlice<u64>,
    failed_at: CudaSlice<f64>,
}

impl BatchBuffers {
    /// Buffers for `kernel`'s launches of up to `capacity` integrals. `plan` holds three
    /// numbers per parameter (count, stride, column): a sweep of `count` >= 1 points with
    /// `stride` >= 1, or (count 0) the uploaded column `column` < `uploaded`; `constants` as
    /// [`BatchKernel`] says.
    pub(crate) fn new(
        stream: &Arc<CudaStream>,
        kernel: &BatchKernel,
        capacity: usize,
        uploaded: usize,
        plan: &[u64],
        constants: &[f64],
    ) -> Result<BatchBuffers> {
        if plan.len() != 3 * kernel.params || constants.len() != kernel.constants {
            return Err(GpuError::Invalid(format!(
                "kernel '{}' needs a plan of {} numbers and {} constant doubles; got {} and {}",
                kernel.name,
                3 * kernel.params,
                kernel.constants,
                plan.len(),
                constants.len()
            )));
        }
        for (v, entry) in plan.chunks_exact(3).enumerate() {
            let (count, stride, column) = (entry[0], entry[1], entry[2]);
            let valid = if count == 0 {
                column < uploaded as u64
            } else {
                stride >= 1 && count <= 1 << 53
            };
            if !valid {
                return Err(GpuError::Invalid(format!(
                    "parameter {v} of kernel '{}': count {count}, stride {stride}, column \
                     {column} of {uploaded} is neither a sweep nor an uploaded column",
                    kernel.name
                )));
            }
        }
        let capacity = capacity.max(1);
        let limbs = kernel.limbs;
        let ordinal = stream.context().ordinal();
        let upload = |host: &[f64]| {
            // An empty list still needs a valid (one-element) buffer.
            let host = if host.is_empty() { &[0.0][..] } else { host };
            stream
                .clone_htod(host)
                .map_err(|e| alloc(ordinal, 8 * host.len(), e))
        };
        let plan = if plan.is_empty() { &[0][..] } else { plan };
        let plan = stream
            .clone_htod(plan)
            .map_err(|e| alloc(ordinal, 8 * plan.len(), e))?;
        let constants = upload(constants)?;
        // Every launch writes all of its outputs below n before they are read, and the failure
        // records below the counter, which each launch zeroes: zeros here only keep
        // uninitialised memory out of the picture.
        let zeros = |count: usize| {
            stream
                .alloc_zeros::<f64>(count.max(1))
                .map_err(|e| alloc(ordinal, 8 * count.max(1), e))
        };
        Ok(BatchBuffers {
            capacity,
            uploaded,
            columns: zeros(uploaded * limbs * capacity)?,
            plan,
            constants,
            value: zeros(limbs * capacity)?,
            error: zeros(capacity)?,
            evaluations: stream
                .alloc_zeros::<u64>(capacity)
                .map_err(|e| alloc(ordinal, 8 * capacity, e))?,
            status: stream
                .alloc_zeros::<u32>(capacity)
                .map_err(|e| alloc(ordinal, 4 * capacity, e))?,
            failures: stream
                .alloc_zeros::<u32>(1)
                .map_err(|e| alloc(ordinal, 4, e))?,
            failed_rows: stream
                .alloc_zeros::<u64>(capacity)
                .map_err(|e| alloc(ordinal, 8 * capacity, e))?,
            failed_at: zeros(3 * limbs * capacity)?,
        })
    }
}

/// The inputs of one batch launch of `n` integrals, rows `first` to `first + n − 1` of the
/// batch: `columns` holds the uploaded parameters' n values each, limb-major, one column
/// after the other.
pub(crate) struct BatchInput<'a> {
    pub(crate) n: usize,
    pub(crate) first: u64,
    pub(crate) columns: &'a [f64],
    pub(crate) relative: f64,
    pub(crate) absolute: f64,
    pub(crate) step_min: f64,
    pub(crate) step_max: f64,
    pub(crate) max_evaluations: u64,
}

/// Where one launch's n results go on the host: `value` (n values limb-major), `error`,
/// `evaluations`, `status` (0 converged, 1 not converged, 2 a value that is not finite, 3
/// (2-D) the outer integral met a value that is not finite at x alone, 4 + k bound k not
/// finite), n each.
pub(crate) struct BatchOutput<'a> {
    pub(crate) value: &'a mut [f64],
    pub(crate) error: &'a mut [f64],
    pub(crate) evaluations: &'a mut [u64],
    pub(crate) status: &'a mut [u32],
}

/// The rows of one launch with a status of 2 or more, in no order: each row's index in the
/// launch and its x, y and value, `limbs` doubles each (y is 0 in 1-D and for status 3; for
/// a bound that is not finite, x and y are 0 and the value is the bound's).
pub(crate) struct BatchFailures {
    pub(crate) rows: Vec<u64>,
    pub(crate) at: Vec<f64>,
}

/// Threads of a batch block: each thread keeps its method's stack (Simpson's panels,
/// Gauss–Kronrod's pieces) in local memory, which fewer threads a block spread better.
const BATCH_THREADS: u32 = 128;

/// Runs a batch kernel over the `input.n` integrals of `input` in `buffers` (made for this
/// kernel), copies their results into the slices `output` gives and returns the failed rows.
/// `output` is called once the launch is queued, so that whatever it does on the host (the
/// first touch of a large result column's fresh pages costs milliseconds) runs while the
/// kernel does.
pub(crate) fn batch<'a>(
    stream: &Arc<CudaStream>,
    kernel: &BatchKernel,
    buffers: &mut BatchBuffers,
    input: &BatchInput<'_>,
    output: impl FnOnce() -> BatchOutput<'a>,
) -> Result<BatchFailures> {
    let limbs = kernel.limbs;
    let n = input.n;
    let len = n * limbs;
    if n > buffers.capacity || input.columns.len() != buffers.uploaded * len {
        return Err(GpuError::Invalid(format!(
            "kernel '{}': a launch of {n} integrals (buffers for {}) needs {} uploaded \
             parameter doubles; got {}",
            kernel.name,
            buffers.capacity,
            buffers.uploaded * len,
            input.columns.len(),
        )));
    }
    if n == 0 {
        return Ok(BatchFailures {
            rows: Vec::new(),
            at: Vec::new(),
        });
    }
    let blocks = u32::try_from((n as u64).div_ceil(BATCH_THREADS as u64))
        .map_err(|_| GpuError::Invalid(format!("{n} integrals are too many for one launch")))?;
    let ordinal = stream.context().ordinal();
    let failed = |e| launch_error(&kernel.name, ordinal, e);
    if !input.columns.is_empty() {
        stream
            .memcpy_htod(input.columns, &mut buffers.columns)
            .map_err(failed)?;
    }
    stream.memset_zeros(&mut buffers.failures).map_err(failed)?;
    let b = &mut *buffers;
    let (n64, first) = (n as u64, input.first);
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (BATCH_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut args = stream.launch_builder(&kernel.func);
    args.arg(&b.columns)
        .arg(&b.plan)
        .arg(&b.constants)
        .arg(&mut b.value)
        .arg(&mut b.error)
        .arg(&mut b.evaluations)
        .arg(&mut b.status)
        .arg(&mut b.failures)
        .arg(&mut b.failed_rows)
        .arg(&mut b.failed_at)
        .arg(&n64)
        .arg(&first)
        .arg(&input.relative)
        .arg(&input.absolute)
        .arg(&input.step_min)
        .arg(&input.step_max)
        .arg(&input.max_evaluations);
    // SAFETY: the arguments match HPQ_BATCH_KERNEL's parameters in kernels/batch.cu (pointers
    // to doubles, u64s and doubles read; pointers to doubles, u64s and u32s written, then a
    // u32 counter, u64s and doubles; two u64 counts, four doubles and a u64). The kernel's
    // name says its method, type, coordinates and number of variables (from_module), so
    // real_t has `limbs` limbs, HPQ_COORDS is `coords`, HPQ_PARAMS is `kernel.params` and, for
    // Gauss–Kronrod, HPQ_KRONROD_NODES is the `nodes` that sized `kernel.constants`
    // (batch_source and Gpu::batch take both from the same rule). The buffers were made for
    // this kernel (BatchBuffers::new checked the plan's 3 · params numbers and the
    // constants' length, and that every uploaded column index is below `uploaded`). Thread
    // i < n <= capacity reads plan below 3 · params, constants below kernel.constants,
    // columns at (column · limbs + j) · n + i < uploaded · limbs · capacity; it writes value at
    // j · n + i (below limbs · capacity), error, evaluations and status at i (below
    // capacity), and when it fails takes one slot f of the counter (zeroed above, so f < n
    // <= capacity) and writes failed_rows[f] and failed_at below 3 · limbs · capacity: all
    // within the buffers, all distinct allocations, as __restrict__ assumes. Sweeps divide by
    // a stride >= 1 (checked).
    unsafe { args.launch(cfg) }.map_err(failed)?;
    let output = output();
    if output.value.len() != len
        || output.error.len() != n
        || output.evaluations.len() != n
        || output.status.len() != n
    {
        return Err(GpuError::Invalid(format!(
            "kernel '{}': a launch of {n} integrals needs room for {len} value doubles and {n} \
             errors, evaluations and statuses; got {}, {}, {} and {}",
            kernel.name,
            output.value.len(),
            output.error.len(),
            output.evaluations.len(),
            output.status.len()
        )));
    }
    staging::bring_back(stream, &b.value.slice(..len), output.value)?;
    staging::bring_back(stream, &b.error.slice(..n), output.error)?;
    staging::bring_back(stream, &b.evaluations.slice(..n), output.evaluations)?;
    staging::bring_back(stream, &b.status.slice(..n), output.status)?;
    let mut count = [0u32];
    stream
        .memcpy_dtoh(&b.failures, &mut count[..])
        .map_err(failed)?;
    stream.synchronize().map_err(failed)?;
    let count = (count[0] as usize).min(n);
    if count == 0 {
        return Ok(BatchFailures {
            rows: Vec::new(),
            at: Vec::new(),
        });
    }
    Ok(BatchFailures {
        rows: stream
            .clone_dtoh(&b.failed_rows.slice(..count))
            .map_err(failed)?,
        at: stream
            .clone_dtoh(&b.failed_at.slice(..3 * limbs * count))
            .map_err(failed)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore = "needs a CUDA device"]
    fn an_allocation_beyond_device_memory_is_a_clear_error() {
        let ctx = crate::gpu::context::context(0).expect("a CUDA device");
        let stream = ctx.default_stream();
        let mut slot = None;
        // 2^40 doubles, 8 TiB: more than any device has.
        let err = at_least(&stream, &mut slot, 1 << 40).unwrap_err();
        assert!(
            matches!(err, GpuError::OutOfMemory { bytes, ordinal: 0 } if bytes == 8 << 40),
            "{err}"
        );
        assert!(err
            .to_string()
            .contains("out of device memory allocating 8796093022208 bytes"));
        // Nothing is left half-made: the slot is empty, and the device still allocates.
        assert!(slot.is_none());
        assert!(at_least(&stream, &mut slot, 1024).is_ok());
    }

    /// The grid of a uniform sum: one point a thread up to 1024 blocks; a grid of more is a
    /// power of two of at most 8192 blocks with 2^17 points a block or more (one partial for
    /// the host per 2^17 points); never fewer blocks for more points.
    #[test]
    fn sum_grids_follow_the_count() {
        let threads = THREADS as u64;
        assert_eq!(sum_blocks(0), 1);
        assert_eq!(sum_blocks(1), 1);
        assert_eq!(sum_blocks(257), 2);
        assert_eq!(sum_blocks(1024 * threads), 1024);
        assert_eq!(sum_blocks((1 << 28) - 1), 1024);
        assert_eq!(sum_blocks(1 << 28), 2048);
        assert_eq!(sum_blocks(1 << 29), 4096);
        assert_eq!(sum_blocks(1 << 30), 8192);
        assert_eq!(sum_blocks(u64::MAX), 8192);
        let mut counts: Vec<u64> = (0..64)
            .flat_map(|s| [(1u64 << s) - 1, 1 << s, (1 << s) + 1, (3 << s) >> 1])
            .collect();
        counts.sort_unstable();
        let mut previous = 0;
        for count in counts {
            let blocks = sum_blocks(count) as u64;
            assert!(
                blocks >= previous,
                "{count}: fewer blocks than a smaller count"
            );
            assert!((1..=8192).contains(&blocks), "{count}: {blocks}");
            assert!(
                blocks <= count.div_ceil(threads).max(1),
                "{count}: idle blocks"
            );
            assert!(blocks <= 1024 || blocks <= count >> 17, "{count}: {blocks}");
            assert!(
                blocks <= 1024 || blocks.is_power_of_two(),
                "{count}: {blocks}"
            );
            previous = blocks;
        }
    }
}

/// The two kernels of `kernels/region.cu` for one number type:
/// `region_trapezoid_simpson_<type>` and `region_kronrod_<type>`. As for [`EvaluateKernel`],
/// the limb count comes from the names, never from the caller.
pub(crate) struct RegionKernels {
    trapezoid_simpson: CudaFunction,
    kronrod: CudaFunction,
    type_name: String,
    limbs: usize,
    acc_limbs: usize,
}

impl RegionKernels {
    /// Takes the kernels for `type_name` from a module compiled from `region.cu`.
    pub(crate) fn from_module(module: &Arc<CudaModule>, type_name: &str) -> Result<Self> {
        let limbs = type_limbs(type_name).ok_or_else(|| {
            GpuError::Invalid(format!(
                "the GPU computes in f64, dd or qd, not {type_name}"
            ))
        })?;
        let load = |stem: &str| {
            module
                .load_function(&format!("{stem}_{type_name}"))
                .map_err(|e| driver("cuModuleGetFunction", e))
        };
        Ok(RegionKernels {
            trapezoid_simpson: load("region_trapezoid_simpson")?,
            kronrod: load("region_kronrod")?,
            type_name: type_name.to_string(),
            // f64 sums in double-double, dd and qd in themselves (kernels/reduce.cuh).
            acc_limbs: limbs.max(2),
            limbs,
        })
    }

    /// Doubles per value of the kernels' type.
    pub(crate) fn limbs(&self) -> usize {
        self.limbs
    }
}

/// The region's lower end, interval width and upper end, `limbs` doubles each, as the
/// kernels' `RegionBounds` (a kernel parameter by value: a step uploads nothing).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RegionBounds([f64; 12]);

// SAFETY: a plain array of doubles, laid out as kernels/region.cu's `struct RegionBounds {
// double v[12]; }`.
unsafe impl cudarc::driver::DeviceRepr for RegionBounds {}

/// The tables of a Gauss–Kronrod rule as the kernels read it (region.cu, batch.cu): its
/// non-negative nodes (largest first), their Kronrod weights, their Gauss weights and their
/// complements 1 − x, in that order, each table `nodes` values.
pub(crate) const KRONROD_TABLES: usize = 4;

/// The rule pair of a region step on the device.
pub(crate) enum RegionPair<'a> {
    /// Trapezoid against Simpson: 2n + 1 points.
    TrapezoidSimpson,
    /// A Gauss–Kronrod pair: `rule` holds the [`KRONROD_TABLES`] of its `nodes` non-negative
    /// nodes (largest first, the last 0), `limbs` doubles each; 2 · nodes - 1 points an
    /// interval.
    Kronrod { rule: &'a [f64], nodes: usize },
}

/// Device buffers of region steps, kept from one step to the next and grown like
/// [`PointBuffers`].
#[derive(Default)]
pub(crate) struct RegionBuffers {
    values: Option<CudaSlice<f64>>,
    pieces: Option<CudaSlice<f64>>,
    partials: Option<CudaSlice<f64>>,
    /// The Kronrod rule on the device, and the host's copy it was made from.
    rule: Option<(Vec<f64>, CudaSlice<f64>)>,
    /// The smallest index of a non-finite value (~0 when none), the first accepted interval
    /// (0) and the blocks done (0): set at allocation, reset by each step's last block.
    flags: Option<CudaSlice<u64>>,
}

/// What a region step returns: one partial a group, the first accepted interval, the first
/// point whose value was not finite.
pub(crate) struct RegionOutput {
    /// Per group of 256 intervals: the value's accumulator limbs, the lower- and upper-half
    /// errors, the floors.
    pub(crate) partials: Vec<f64>,
    /// The first accepted interval (side cutting; 0 otherwise).
    pub(crate) first: u64,
    /// The smallest index of a point whose value was not finite.
    pub(crate) bad: Option<u64>,
    /// Doubles of value in each partial (the accumulator's limbs).
    pub(crate) acc_limbs: usize,
}

/// One region step of `n` intervals of `pair`: `bounds` holds lower, width and upper (`limbs`
/// doubles each); `side` the tolerance and span of side cutting. One launch (the Kronrod
/// rule uploaded when it changed), then the partials, first and the bad index in one copy
/// back.
#[allow(clippy::too_many_arguments)]
pub(crate) fn region_step(
    stream: &Arc<CudaStream>,
    kernels: &RegionKernels,
    buffers: &mut RegionBuffers,
    pair: RegionPair<'_>,
    bounds: &[f64],
    n: u64,
    eps: f64,
    side: Option<(f64, f64)>,
) -> Result<RegionOutput> {
    let result = region_launch(stream, kernels, buffers, pair, bounds, n, eps, side);
    if result.is_err() {
        // A step that failed part way may leave the flags set: the next one starts afresh.
        buffers.flags = None;
    }
    result
}

#[allow(clippy::too_many_arguments)]
fn region_launch(
    stream: &Arc<CudaStream>,
    kernels: &RegionKernels,
    buffers: &mut RegionBuffers,
    pair: RegionPair<'_>,
    bounds: &[f64],
    n: u64,
    eps: f64,
    side: Option<(f64, f64)>,
) -> Result<RegionOutput> {
    let (limbs, acc_limbs) = (kernels.limbs, kernels.acc_limbs);
    let name = format!("region_*_{}", kernels.type_name);
    if bounds.len() != 3 * limbs || n == 0 || n > 1 << 40 {
        return Err(GpuError::Invalid(format!(
            "kernels '{name}' need 3 bounds of {limbs} limbs and 1 to 2^40 intervals, got {} \
             doubles and {n}",
            bounds.len()
        )));
    }
    let per_interval = match pair {
        RegionPair::TrapezoidSimpson => 2,
        RegionPair::Kronrod { rule, nodes } => {
            if nodes < 2 || rule.len() != KRONROD_TABLES * nodes * limbs {
                return Err(GpuError::Invalid(format!(
                    "kernel '{name}' needs a Kronrod rule of 2 or more nodes, \
                     {KRONROD_TABLES} tables of {limbs} limbs each, got {nodes} nodes and {} \
                     doubles",
                    rule.len()
                )));
            }
            2 * nodes as u64 - 1
        }
    };
    let count = match pair {
        RegionPair::TrapezoidSimpson => 2 * n + 1,
        RegionPair::Kronrod { .. } => n * per_interval,
    };
    let groups = n.div_ceil(THREADS as u64);
    let blocks = u32::try_from(groups)
        .map_err(|_| GpuError::Invalid(format!("{n} intervals make too many groups")))?;
    let ordinal = stream.context().ordinal();
    let (values_len, pieces_len) = (count as usize * limbs, n as usize * (limbs + 2));
    let sums_len = groups as usize * (acc_limbs + 3);
    if buffers.flags.is_none() {
        buffers.flags = Some(
            stream
                .clone_htod(&[u64::MAX, 0, 0])
                .map_err(|e| alloc(ordinal, 24, e))?,
        );
    }
    if let RegionPair::Kronrod { rule, .. } = pair {
        if buffers.rule.as_ref().is_none_or(|(host, _)| host != rule) {
            buffers.rule = None;
            let device = stream
                .clone_htod(rule)
                .map_err(|e| alloc(ordinal, 8 * rule.len(), e))?;
            buffers.rule = Some((rule.to_vec(), device));
        }
    }
    let mut packed = RegionBounds::default();
    packed.0[..bounds.len()].copy_from_slice(bounds);
    let values_dev = &mut *at_least(stream, &mut buffers.values, values_len)?;
    let pieces_dev = &mut *at_least(stream, &mut buffers.pieces, pieces_len)?;
    let partials_dev = &mut *at_least(stream, &mut buffers.partials, sums_len + 2)?;
    let flags = buffers
        .flags
        .as_mut()
        .ok_or_else(|| GpuError::Invalid("the region flags vanished".to_string()))?;
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (side_flag, tolerance, span) = match side {
        Some((tolerance, span)) => (1i32, tolerance, span),
        None => (0i32, 0.0, 1.0),
    };
    match pair {
        RegionPair::TrapezoidSimpson => {
            let mut args = stream.launch_builder(&kernels.trapezoid_simpson);
            args.arg(&packed)
                .arg(&n)
                .arg(&eps)
                .arg(&side_flag)
                .arg(&tolerance)
                .arg(&span)
                .arg(&mut *values_dev)
                .arg(&mut *pieces_dev)
                .arg(&mut *partials_dev)
                .arg(&mut *flags);
            // SAFETY: region_trapezoid_simpson_<type>(RegionBounds bounds, u64 n, double eps,
            // int side, double tolerance, double span, double *values, double *pieces,
            // double *partials, u64 *flags) in kernels/region.cu, its real_t of `limbs` limbs
            // (the name says the type), THREADS (256) threads a block as block_reduce needs,
            // one block a group. Block g writes values[j * (2n + 1) + k] for its points k
            // <= 2n and j < limbs (below values_len), pieces[j * n + i] for i < n and
            // j < limbs + 2 (below pieces_len), partials below sums_len + 2, flags[0..3].
            unsafe { args.launch(cfg) }.map_err(|e| launch_error(&name, ordinal, e))?;
        }
        RegionPair::Kronrod { nodes, .. } => {
            let rule_dev = &buffers
                .rule
                .as_ref()
                .ok_or_else(|| GpuError::Invalid("the Kronrod rule vanished".to_string()))?
                .1;
            let nodes = nodes as i32;
            let mut args = stream.launch_builder(&kernels.kronrod);
            args.arg(&packed)
                .arg(&n)
                .arg(rule_dev)
                .arg(&nodes)
                .arg(&eps)
                .arg(&side_flag)
                .arg(&tolerance)
                .arg(&span)
                .arg(&mut *values_dev)
                .arg(&mut *pieces_dev)
                .arg(&mut *partials_dev)
                .arg(&mut *flags);
            // SAFETY: region_kronrod_<type>(RegionBounds bounds, u64 n, const double *rule,
            // int nodes, double eps, int side, double tolerance, double span, double *values,
            // double *pieces, double *partials, u64 *flags), as above with n (2 nodes - 1)
            // points; rule holds KRONROD_TABLES * nodes * limbs doubles (checked above), read
            // only.
            unsafe { args.launch(cfg) }.map_err(|e| launch_error(&name, ordinal, e))?;
        }
    }
    let mut partials = vec![0.0; sums_len + 2];
    stream
        .memcpy_dtoh(&partials_dev.slice(..sums_len + 2), &mut partials)
        .map_err(|e| launch_error(&name, ordinal, e))?;
    let (first, bad) = (partials[sums_len], partials[sums_len + 1]);
    partials.truncate(sums_len);
    Ok(RegionOutput {
        partials,
        // Indices below 2^53, exact in the doubles the kernel wrote.
        first: first as u64,
        bad: (bad >= 0.0).then_some(bad as u64),
        acc_limbs,
    })
}

/// The `gauss_product_<type>_<D>d` kernel of `kernels/product.cu`: the sums of a
/// tensor-product Gauss–Legendre rule (its shape given at launch) over regions of D
/// dimensions, one partial a block of [`BLOCK_FIBERS`] fibers of a region. As for
/// [`EvaluateKernel`], the limb count comes from the name, never from the caller.
pub(crate) struct ProductKernel {
    func: CudaFunction,
    name: String,
    limbs: usize,
    acc_limbs: usize,
    dims: usize,
}

impl ProductKernel {
    /// Takes the kernel for `type_name` and `dims` ([`super::product::product_kernel_name`])
    /// from a module compiled from `product.cu` for them.
    pub(crate) fn from_module(
        module: &Arc<CudaModule>,
        type_name: &str,
        dims: usize,
    ) -> Result<Self> {
        let limbs = type_limbs(type_name).ok_or_else(|| {
            GpuError::Invalid(format!(
                "the GPU computes in f64, dd or qd, not {type_name}"
            ))
        })?;
        let name = super::product::product_kernel_name(type_name, dims);
        let func = module
            .load_function(&name)
            .map_err(|e| driver("cuModuleGetFunction", e))?;
        Ok(ProductKernel {
            func,
            name,
            // f64 sums in double-double, dd and qd in themselves (kernels/reduce.cuh).
            acc_limbs: limbs.max(2),
            limbs,
            dims,
        })
    }

    /// Doubles per value of the kernel's type.
    pub(crate) fn limbs(&self) -> usize {
        self.limbs
    }

    /// Doubles of the value's accumulator in a partial.
    pub(crate) fn acc_limbs(&self) -> usize {
        self.acc_limbs
    }

    /// Doubles of one block's partial: the value's accumulator, the four functionals of each
    /// axis, Σ W |f| and the index of the first point whose value is not finite.
    pub(crate) fn partial_len(&self) -> usize {
        self.acc_limbs + 4 * self.dims * self.limbs + 2
    }
}

/// The blocks of one region of `shape` (points an axis): m_2 ⋯ m_n fibers in blocks of
/// [`BLOCK_FIBERS`].
pub(crate) fn product_blocks(shape: &[usize]) -> u64 {
    shape[1..]
        .iter()
        .map(|&m| m as u64)
        .product::<u64>()
        .div_ceil(BLOCK_FIBERS)
}

/// The most dynamic shared memory a product launch asks for: 32 KiB, so that with the kernel's
/// static arrays (13 KiB for qd) a block stays within the 48 KiB it may take by default; a
/// region of 8 axes of 64 qd points and its first axis's tables is 26 KiB.
pub(crate) const PRODUCT_DYNAMIC_SHARED: usize = 32 << 10;

/// The rule's tables as the product kernel reads them, for each axis: the weights, the four
/// functionals and the four ratios, m_d values each.
pub(crate) const PRODUCT_TABLES: usize = 9;

/// Device buffers of the product kernel, kept from one call to the next and grown like
/// [`PointBuffers`].
#[derive(Default)]
pub(crate) struct ProductBuffers {
    points: Option<CudaSlice<f64>>,
    partials: Option<CudaSlice<f64>>,
    /// The rule's tables on the device, and the host's copy they were made from.
    rule: Option<(Vec<f64>, CudaSlice<f64>)>,
    /// The doubles of partials that the last queued launch writes (0: none queued).
    queued: usize,
}

/// Queues one launch of the product kernel (without waiting for it) on the regions whose axis
/// points are `points` (m_1 + ⋯ + m_n values of `limbs` doubles a region, region-major, m_d =
/// `shape[d]`), with the rule's [`PRODUCT_TABLES`] of each axis in `rule` (uploaded when they
/// changed); returns the doubles of partials it writes, which [`product_partials`] brings
/// back.
pub(crate) fn product_launch(
    stream: &Arc<CudaStream>,
    kernel: &ProductKernel,
    buffers: &mut ProductBuffers,
    rule: &[f64],
    shape: &[usize],
    points: &[f64],
) -> Result<usize> {
    let limbs = kernel.limbs;
    let values: usize = shape.iter().sum();
    let per_region = values * limbs;
    let regions = points.len() / per_region.max(1);
    if shape.len() != kernel.dims
        || shape.iter().any(|&m| !(8..=255).contains(&m))
        || regions == 0
        || points.len() != regions * per_region
        || rule.len() != PRODUCT_TABLES * values * limbs
    {
        return Err(GpuError::Invalid(format!(
            "kernel '{}' needs a shape of {} axes of 8 to 255 points, whole regions of its \
             points and a rule of {} doubles; got the shape {shape:?}, {} and {} doubles",
            kernel.name,
            kernel.dims,
            PRODUCT_TABLES * values * limbs,
            points.len(),
            rule.len()
        )));
    }
    let blocks = product_blocks(shape);
    let packed = shape
        .iter()
        .enumerate()
        .fold(0u64, |packed, (d, &m)| packed | (m as u64) << (8 * d));
    // The region's axis points and axis 0's weights and functionals.
    let shared = (values + 5 * shape[0]) * limbs * std::mem::size_of::<f64>();
    if shared > PRODUCT_DYNAMIC_SHARED {
        return Err(GpuError::Invalid(format!(
            "kernel '{}': a region of {shape:?} points needs {shared} bytes of shared memory, \
             more than {PRODUCT_DYNAMIC_SHARED}",
            kernel.name
        )));
    }
    let grid = (regions as u64)
        .checked_mul(blocks)
        .and_then(|g| u32::try_from(g).ok())
        .filter(|&g| g <= i32::MAX as u32)
        .ok_or_else(|| {
            GpuError::Invalid(format!(
                "{regions} regions of {blocks} blocks are too many for one launch"
            ))
        })?;
    let len = grid as usize * kernel.partial_len();
    let ordinal = stream.context().ordinal();
    let failed = |e| launch_error(&kernel.name, ordinal, e);
    // A launch that fails part way leaves nothing to bring back.
    buffers.queued = 0;
    if buffers.rule.as_ref().is_none_or(|(host, _)| host != rule) {
        buffers.rule = None;
        let device = stream
            .clone_htod(rule)
            .map_err(|e| alloc(ordinal, 8 * rule.len(), e))?;
        buffers.rule = Some((rule.to_vec(), device));
    }
    let points_dev = at_least(stream, &mut buffers.points, points.len())?;
    stream
        .memcpy_htod(points, &mut points_dev.slice_mut(..points.len()))
        .map_err(|e| driver("cuMemcpyHtoD", e))?;
    let points_dev = &*points_dev;
    let partials_dev = at_least(stream, &mut buffers.partials, len)?;
    let rule_dev = &buffers
        .rule
        .as_ref()
        .ok_or_else(|| GpuError::Invalid("the product rule vanished".to_string()))?
        .1;
    let cfg = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (BLOCK_FIBERS as u32, 1, 1),
        shared_mem_bytes: shared as u32,
    };
    let mut args = stream.launch_builder(&kernel.func);
    args.arg(points_dev)
        .arg(rule_dev)
        .arg(&mut *partials_dev)
        .arg(&blocks)
        .arg(&packed);
    // SAFETY: the arguments match HPQ_PRODUCT_KERNEL's parameters in kernels/product.cu (two
    // pointers to doubles read, one written, two u64). The kernel's name says its type and its
    // dimension (from_module), so real_t has `limbs` limbs and HPQ_DIMS is `dims` =
    // shape.len(); `packed` holds each m_d (8 to 255) in its byte and `blocks` is a region's
    // ceil(m_1 ⋯ m_(D-1) / 64). Block g reads points at ((g / blocks) · S + i) · limbs + j
    // for i < S = Σ m_d, j < limbs: below regions · per_region = points.len(), which the
    // points buffer holds (at_least); rule below 9 S · limbs = rule.len(), the rule buffer's
    // length; it writes partials[g · partial_len ..][..partial_len], below grid ·
    // partial_len = len. Its dynamic shared memory holds S + 5 m_0 values of real_t, the
    // `shared` bytes given (at most PRODUCT_DYNAMIC_SHARED, within the 48 KiB a block may take
    // without opting in, beside the kernel's static arrays). The block has BLOCK_FIBERS
    // threads, as the kernel's __launch_bounds__ and shared arrays assume. The three buffers
    // are distinct allocations, as __restrict__ assumes.
    unsafe { args.launch(cfg) }.map_err(failed)?;
    buffers.queued = len;
    Ok(len)
}

/// Brings the partials of the last queued launch back into `out`, which must be as long as
/// [`product_launch`] said: one partial a block, in block order within region order.
pub(crate) fn product_partials(
    stream: &Arc<CudaStream>,
    kernel: &ProductKernel,
    buffers: &mut ProductBuffers,
    out: &mut [f64],
) -> Result<()> {
    let len = std::mem::take(&mut buffers.queued);
    if len == 0 || out.len() != len {
        return Err(GpuError::Invalid(format!(
            "kernel '{}': {} partial doubles asked for, {len} queued",
            kernel.name,
            out.len()
        )));
    }
    let partials = buffers
        .partials
        .as_ref()
        .ok_or_else(|| GpuError::Invalid("the product partials vanished".to_string()))?;
    staging::bring_back(stream, &partials.slice(..len), out)
}
