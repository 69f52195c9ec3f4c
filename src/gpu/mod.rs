//! The GPU backend: device discovery, kernels compiled at run time by NVRTC and cached, and
//! safe launches.
//!
//! CUDA is loaded when first needed (cudarc's dynamic loading), so a machine without a driver
//! builds and runs everything else; here it gets [`GpuError::NoDriver`].
//!
//! Layout: `context` finds devices and keeps one context each; `compile` turns CUDA source
//! into loaded modules through the `cache`; `sys` and `launch` hold all the unsafe calls;
//! `real` says how `f64`, `Dd` and `Qd` travel. The kernels live in `kernels/` beside
//! `src/`, embedded with `include_str!`.
//!
//! ```no_run
//! use hpquad::gpu::Gpu;
//! let gpu = Gpu::new(0)?;
//! let n = 1u64 << 30;
//! let h = 1.0 / n as f64;
//! // Midpoint rule for the integral of 4/(1+x^2) over [0, 1], which is pi.
//! let sum = gpu.uniform_sum("return 4.0 / (1.0 + x * x);", h / 2.0, h, 0, 1, n)?;
//! println!("{}", sum * h);
//! # Ok::<(), hpquad::gpu::GpuError>(())
//! ```

mod backend;
mod batch;
mod cache;
mod compile;
mod context;
mod cuhre;
mod error;
mod launch;
mod product;
mod real;
mod region;
mod rule;
mod staging;
mod sys;
mod tables;
pub mod trace;

use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::CudaStream;
use precision::Real;

pub use backend::{
    gpu_min_list_points, gpu_min_points, gpu_min_region_points, gpu_min_rule_points, GpuBackend,
    HybridBackend, GPU_CALL_POINTS,
};
pub use batch::{
    BatchColumns, BatchParams, BatchRow, BatchSettings, ColumnsApart, ParamSource, RowFailure,
    MAX_BATCH_CHUNK,
};
pub use cache::{cache_dir, CACHE_DIR_VAR};
pub use compile::{compile_stats, CompileStats};
pub use context::{device_info, devices, DeviceInfo};
pub use cuhre::MAX_LIST_DIMS;
pub use error::{GpuError, Result};
pub use product::{product_kernel_takes, MAX_PRODUCT_DIMS};
pub use real::GpuReal;
pub use rule::{RuleSums, MAX_RULE_DIMS};

use crate::expr::cuda::{self, CudaIntegrand};
use crate::expr::{Func, Func2};
use compile::Compiler;
use launch::{ElementwiseKernel, EvaluateKernel, PointBuffers, UniformSumKernel};

const UNIFORM_SUM_CU: &str = include_str!("../../kernels/uniform_sum.cu");
const EVALUATE_CU: &str = include_str!("../../kernels/evaluate.cu");
const GENZ_MALIK_CU: &str = include_str!("../../kernels/genz_malik.cu");
const CUHRE_LIST_CU: &str = include_str!("../../kernels/cuhre_list.cu");
const REGION_CU: &str = include_str!("../../kernels/region.cu");
const PRODUCT_CU: &str = include_str!("../../kernels/product.cu");
const BATCH_CU: &str = include_str!("../../kernels/batch.cu");
const ARITH_CU: &str = include_str!("../../kernels/arith.cu");
const FUNCTIONS_CU: &str = include_str!("../../kernels/functions.cu");

/// The one place in `uniform_sum.cu` and `evaluate.cu` where the integrand goes.
const INTEGRAND_MARKER: &str = "// @@INTEGRAND@@";

/// NVRTC's `(major, minor)` version, or [`GpuError::NoNvrtc`].
pub fn nvrtc_version() -> Result<(i32, i32)> {
    sys::nvrtc_version()
}

/// Whether a CUDA driver with at least one device is present.
pub fn is_available() -> bool {
    sys::device_count().is_ok_and(|n| n > 0)
}

/// Same-type element-wise operations, for the host/device agreement tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `sqrt(a)` (`b` is ignored)
    Sqrt,
}

impl ArithOp {
    fn suffix(self) -> &'static str {
        match self {
            ArithOp::Add => "add",
            ArithOp::Sub => "sub",
            ArithOp::Mul => "mul",
            ArithOp::Div => "div",
            ArithOp::Sqrt => "sqrt",
        }
    }
}

/// Element-wise operations between a value and a double.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MixedOp {
    /// `a + d`
    AddF64,
    /// `a - d`
    SubF64,
    /// `a * d`
    MulF64,
    /// `a / d`
    DivF64,
    /// `d - a`
    F64Sub,
    /// `d / a`
    F64Div,
}

impl MixedOp {
    fn suffix(self) -> &'static str {
        match self {
            MixedOp::AddF64 => "add_f64",
            MixedOp::SubF64 => "sub_f64",
            MixedOp::MulF64 => "mul_f64",
            MixedOp::DivF64 => "div_f64",
            MixedOp::F64Sub => "f64_sub",
            MixedOp::F64Div => "f64_div",
        }
    }
}

/// One CUDA device, ready to run hpquad's kernels. Cheap to create again: the context and the
/// compiled modules are shared by every `Gpu` of the same device in the process.
///
/// Each `Gpu` keeps its own buffers for point lists ([`Gpu::evaluate_of_source`]), reused
/// from one call to the next; calls on one `Gpu` from several threads take turns on them.
pub struct Gpu {
    info: DeviceInfo,
    /// The context's default stream, taken at the first launch: the context may still be
    /// being retained when the first kernel compiles ([`context::begin_context`]).
    stream: OnceLock<Arc<CudaStream>>,
    compiler: Arc<Compiler>,
    points: Mutex<PointStaging>,
    /// The device buffers of region steps ([`Gpu::region_source`]), kept between steps.
    regions: Mutex<launch::RegionBuffers>,
    /// The buffers of the product rule's sums ([`Gpu::product_source`]), kept between calls.
    products: Mutex<product::ProductStaging>,
}

/// The buffers of point-list evaluation: the device's, and the host's limb-major copies of
/// the points and values. Kept so that a call neither allocates on the device nor touches
/// fresh host pages (a first touch of 32 MB of new pages costs milliseconds); they keep the
/// size of the longest list so far (2^20 qd points: 32 MiB each) until the `Gpu` is dropped.
#[derive(Default)]
struct PointStaging {
    device: PointBuffers,
    points: Vec<f64>,
    values: Vec<f64>,
}

impl Drop for Gpu {
    /// A `Gpu` that never launched may leave its context being retained: it is waited for, so
    /// that no thread is inside the driver when the process ends.
    fn drop(&mut self) {
        if self.stream.get().is_none() {
            context::settle(self.info.ordinal);
        }
    }
}

impl Gpu {
    /// Opens device `ordinal`. Errors: no driver, no such device, no NVRTC. The device's
    /// context is retained on a thread of its own while the caller goes on to its first kernel
    /// (on a cache miss, NVRTC compiles meanwhile); a failure to create it is the error of the
    /// first call that launches.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        let info = trace::time("driver load, cuInit, device attributes", || {
            context::device_info(ordinal)
        })?;
        let compiler = trace::time("NVRTC load and version", || Compiler::for_device(&info))?;
        // Only now: a `Gpu` that cannot be made leaves no thread retaining a context.
        context::begin_context(ordinal);
        Ok(Gpu {
            info,
            stream: OnceLock::new(),
            compiler,
            points: Mutex::new(PointStaging::default()),
            regions: Mutex::new(launch::RegionBuffers::default()),
            products: Mutex::new(product::ProductStaging::default()),
        })
    }

    /// Waits until the device's context exists; the error says why it could not be created.
    pub fn ready(&self) -> Result<()> {
        self.stream().map(|_| ())
    }

    /// The stream every launch of this `Gpu` goes on (the context's default stream).
    fn stream(&self) -> Result<&Arc<CudaStream>> {
        if let Some(stream) = self.stream.get() {
            return Ok(stream);
        }
        let stream = context::context(self.info.ordinal)?.default_stream();
        Ok(self.stream.get_or_init(|| stream))
    }

    /// The device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The complete CUDA source of the uniform-sum kernel for `T` with this integrand body,
    /// as NVRTC sees it (headers inlined). `body` is the body of
    /// `__device__ real_t integrand(real_t x)`, where `real_t` is `double`, `dd_t` or `qd_t`.
    pub fn uniform_sum_source<T: GpuReal>(body: &str) -> Result<String> {
        Self::sum_source::<T>("", body)
    }

    /// The uniform-sum source for a generated integrand ([`crate::expr::cuda`]): with the
    /// elementary-function mirrors and their tables when the integrand calls them.
    /// The uniform sum integrates functions of one variable: an integrand of more is an error.
    pub fn integrand_source<T: GpuReal>(integrand: &CudaIntegrand) -> Result<String> {
        if integrand.dims > 1 {
            return Err(GpuError::Invalid(format!(
                "the uniform-sum kernel integrates functions of one variable, not {}",
                integrand.dims
            )));
        }
        let prelude = function_prelude(integrand)?;
        Self::sum_source::<T>(&prelude, &integrand.body)
    }

    fn sum_source<T: GpuReal>(prelude: &str, body: &str) -> Result<String> {
        splice::<T>(UNIFORM_SUM_CU, "uniform_sum.cu", prelude, body, 1, "")
    }

    /// The complete CUDA source of the point-list kernel (`kernels/evaluate.cu`) for `T` with a
    /// generated integrand, as NVRTC sees it: its kernel is named after `T` and the number of
    /// variables (`evaluate_kernel_name`), so that it cannot be launched on other points.
    pub fn evaluate_source<T: GpuReal>(integrand: &CudaIntegrand) -> Result<String> {
        let prelude = function_prelude(integrand)?;
        let kernel = format!(
            "#define HPQ_DIMS {}\n#define HPQ_EVALUATE_KERNEL {}",
            integrand.dims,
            evaluate_kernel_name(T::NAME, integrand.dims)
        );
        splice::<T>(
            EVALUATE_CU,
            "evaluate.cu",
            &prelude,
            &integrand.body,
            integrand.dims,
            &kernel,
        )
    }

    /// `f(x)` for every point of `points`, in order, `f` a function of `dims` variables
    /// compiled into `source` (from [`Gpu::evaluate_source`] for `T`; compiled once, then taken
    /// from the cache). `points` holds `dims` coordinates a point, point-major, as
    /// [`crate::backend::Backend::evaluate`] takes them. Values are returned as they are, NaN
    /// and infinities included. For `Dd` and `Qd` each value has the host's bits
    /// ([`Integrand::eval_batch`](crate::integrand::Integrand::eval_batch) at the same point); for `f64` the transcendental
    /// functions are libdevice's and may differ in the last bit.
    ///
    /// A source compiled for another type than `T` or another number of variables is an error
    /// (its kernel has another name), as is a `T` other than `f64`, `Dd` and `Qd`.
    pub fn evaluate_of_source<T: Real>(
        &self,
        source: &str,
        points: &[T],
        dims: usize,
    ) -> Result<Vec<T>> {
        if dims == 0 || !points.len().is_multiple_of(dims) {
            return Err(GpuError::Invalid(format!(
                "{} coordinates are not a whole number of points of {dims} variables",
                points.len()
            )));
        }
        if points.is_empty() {
            return Ok(Vec::new());
        }
        let module = self
            .compiler
            .module(&format!("hpquad_evaluate_{}.cu", T::NAME), source)?;
        let kernel = EvaluateKernel::from_module(&module, T::NAME, dims)?;
        if kernel.limbs() != T::LIMBS {
            return Err(GpuError::Invalid(format!(
                "{} has {} limbs, but the device's {} has {}",
                T::NAME,
                T::LIMBS,
                T::NAME,
                kernel.limbs()
            )));
        }
        let (n, limbs) = (points.len() / dims, T::LIMBS);
        let len = n.checked_mul(limbs).ok_or_else(|| {
            GpuError::Invalid(format!("{n} points of {limbs} limbs overflow the memory"))
        })?;
        let mut staging = self.points.lock().unwrap_or_else(|p| p.into_inner());
        let staging = &mut *staging;
        for (buffer, size) in [
            (&mut staging.points, dims * len),
            (&mut staging.values, len),
        ] {
            if buffer.len() < size {
                buffer.resize(size, 0.0);
            }
        }
        let host_points = &mut staging.points[..dims * len];
        let host_values = &mut staging.values[..len];
        if dims == 1 {
            real::to_limb_major(points, host_points);
        } else {
            // Coordinate by coordinate, each limb-major: coordinate d of point i, limb j, is
            // at (d * limbs + j) * n + i.
            let mut coordinate = Vec::with_capacity(n);
            for (d, out) in host_points.chunks_exact_mut(len).enumerate() {
                coordinate.clear();
                coordinate.extend(points.iter().skip(d).step_by(dims).copied());
                real::to_limb_major(&coordinate, out);
            }
        }
        trace::time("point-list launch and copies", || {
            launch::evaluate(
                self.stream()?,
                &kernel,
                &mut staging.device,
                host_points,
                host_values,
            )
        })?;
        Ok(real::from_limb_major(host_values, n))
    }

    /// `sum_{k < count} f(a + (first + k*stride) * h)` in `T`, `f` given as the CUDA body of
    /// `__device__ real_t integrand(real_t x)` (for example `return 4.0 / (1.0 + x*x);`: the
    /// operators and `sqrt` of `dd_t` and `qd_t` mirror the host's).
    ///
    /// Sums of `f64` values are accumulated in double-double; the grid shape depends on
    /// `count` alone and partials are added in a fixed order, so a call gives the same bits
    /// on every run. `first + (count - 1) * stride` must be below 2^63. A value that is NaN or
    /// infinite is [`GpuError::NonFinite`] with the first such point.
    pub fn uniform_sum<T: GpuReal>(
        &self,
        integrand_body: &str,
        a: T,
        h: T,
        first: u64,
        stride: u64,
        count: u64,
    ) -> Result<T> {
        let source = Self::uniform_sum_source::<T>(integrand_body)?;
        self.uniform_sum_of_source(&source, a, h, first, stride, count)
    }

    /// [`Gpu::uniform_sum`] for a complete kernel source from [`Gpu::integrand_source`] or
    /// [`Gpu::uniform_sum_source`] (compiled once, then taken from the cache).
    pub fn uniform_sum_of_source<T: GpuReal>(
        &self,
        source: &str,
        a: T,
        h: T,
        first: u64,
        stride: u64,
        count: u64,
    ) -> Result<T> {
        if count == 0 {
            return Ok(T::sum_partials(&[]));
        }
        (count - 1)
            .checked_mul(stride)
            .and_then(|s| s.checked_add(first))
            .filter(|&m| m < 1 << 63)
            .ok_or_else(|| {
                GpuError::Invalid(format!(
                    "grid index first + (count-1)*stride = {first} + {}*{stride} is not below 2^63",
                    count - 1
                ))
            })?;
        let name = format!("hpquad_uniform_sum_{}.cu", T::NAME);
        let module = self.compiler.module(&name, source)?;
        let kernel = UniformSumKernel::from_module(&module, &name, T::LIMBS, T::ACC_LIMBS)?;
        let (mut a_limbs, mut h_limbs) = (Vec::new(), Vec::new());
        a.push_limbs(&mut a_limbs);
        h.push_limbs(&mut h_limbs);
        let out = trace::time("uniform-sum launch and copies", || {
            launch::uniform_sum(
                self.stream()?,
                &kernel,
                &a_limbs,
                &h_limbs,
                first,
                stride,
                count,
            )
        })?;
        if let Some(k) = out.first_bad {
            let m = first + k * stride;
            return Err(GpuError::NonFinite {
                index: k,
                x: a.to_f64() + m as f64 * h.to_f64(),
            });
        }
        Ok(T::sum_partials(&out.partials))
    }

    fn arith_kernel<T: GpuReal>(&self, suffix: &str, b_limbs: usize) -> Result<ElementwiseKernel> {
        let source = compile::inline_headers(ARITH_CU)?;
        let module = self.compiler.module("hpquad_arith.cu", &source)?;
        let name = format!("arith_{}_{}", T::NAME, suffix);
        ElementwiseKernel::from_module(&module, &name, T::LIMBS, b_limbs)
    }

    /// `op(a[i], b[i])` for each i on the device, with the arithmetic of `kernels/dd.cuh` and
    /// `kernels/qd.cuh`. `a` and `b` have the same length (for `Sqrt`, `b` is ignored).
    pub fn arith<T: GpuReal>(&self, op: ArithOp, a: &[T], b: &[T]) -> Result<Vec<T>> {
        let b = if op == ArithOp::Sqrt { a } else { b };
        if a.len() != b.len() {
            return Err(GpuError::Invalid(format!(
                "operands of {} and {} elements",
                a.len(),
                b.len()
            )));
        }
        let kernel = self.arith_kernel::<T>(op.suffix(), T::LIMBS)?;
        let out = launch::elementwise(
            self.stream()?,
            &kernel,
            &real::to_limbs(a),
            &real::to_limbs(b),
        )?;
        Ok(real::from_limbs(&out))
    }

    /// `op(a[i], d[i])` for each i on the device, `d` a double.
    pub fn arith_f64<T: GpuReal>(&self, op: MixedOp, a: &[T], d: &[f64]) -> Result<Vec<T>> {
        if a.len() != d.len() {
            return Err(GpuError::Invalid(format!(
                "operands of {} and {} elements",
                a.len(),
                d.len()
            )));
        }
        let kernel = self.arith_kernel::<T>(op.suffix(), 1)?;
        let out = launch::elementwise(self.stream()?, &kernel, &real::to_limbs(a), d)?;
        Ok(real::from_limbs(&out))
    }

    /// The complete CUDA source of the element-wise function kernels for `T`, as NVRTC sees
    /// it: the constants and tables generated from the host's (`src/gpu/tables.rs`), then
    /// `kernels/functions.cu` with its headers inlined.
    pub fn functions_source<T: GpuReal>() -> Result<String> {
        let mut source = format!("#define HPQ_FUNCTIONS_{}\n", T::NAME.to_uppercase());
        source.push_str(tables::function_constants()?);
        source.push_str(&compile::inline_headers(FUNCTIONS_CU)?);
        Ok(source)
    }

    fn function_kernel<T: GpuReal>(&self, name: &str) -> Result<ElementwiseKernel> {
        let source = Self::functions_source::<T>()?;
        let module = self
            .compiler
            .module(&format!("hpquad_functions_{}.cu", T::NAME), &source)?;
        let name = format!("fn_{}_{}", T::NAME, name);
        ElementwiseKernel::from_module(&module, &name, T::LIMBS, T::LIMBS)
    }

    /// `f(a[i])` for each i on the device, `f` one of [`cuda::MIRRORED`] (another is
    /// [`GpuError::Invalid`]). For `Dd` and `Qd` the results are the host's ([`Func::apply`]),
    /// bit for bit; for `f64` they come from CUDA's libdevice and may differ from the host's
    /// `std` in the last bit.
    pub fn function<T: GpuReal>(&self, f: Func, a: &[T]) -> Result<Vec<T>> {
        let kernel = self.function_kernel::<T>(kernel_name(f)?)?;
        let limbs = real::to_limbs(a);
        let out = launch::elementwise(self.stream()?, &kernel, &limbs, &limbs)?;
        Ok(real::from_limbs(&out))
    }

    /// `f(a[i], b[i])` for each i on the device, `f` one of [`cuda::MIRRORED2`]
    /// (`a[i].powf(b[i])`, `a[i].atan2(b[i])`, `a[i].hypot(b[i])`), with the same agreement as
    /// [`Gpu::function`].
    pub fn function2<T: GpuReal>(&self, f: Func2, a: &[T], b: &[T]) -> Result<Vec<T>> {
        let name = kernel_name2(f)?;
        if a.len() != b.len() {
            return Err(GpuError::Invalid(format!(
                "operands of {} and {} elements",
                a.len(),
                b.len()
            )));
        }
        let kernel = self.function_kernel::<T>(name)?;
        let out = launch::elementwise(
            self.stream()?,
            &kernel,
            &real::to_limbs(a),
            &real::to_limbs(b),
        )?;
        Ok(real::from_limbs(&out))
    }
}

/// What a generated integrand needs before it: the elementary-function mirrors and their
/// tables when it calls them, nothing otherwise (a rational integrand compiles much faster).
fn function_prelude(integrand: &CudaIntegrand) -> Result<String> {
    Ok(if integrand.needs_functions {
        format!(
            "{}#include \"integrand.cuh\"\n",
            tables::function_constants()?
        )
    } else {
        String::new()
    })
}

/// `template` (the kernel file `file`) with `prelude`, `real_t` as `T` and the integrand
/// `body` spliced in at its one marker, then `after` (definitions the kernel needs), headers
/// inlined.
fn splice<T: GpuReal>(
    template: &str,
    file: &str,
    prelude: &str,
    body: &str,
    dims: usize,
    after: &str,
) -> Result<String> {
    if template.matches(INTEGRAND_MARKER).count() != 1 {
        return Err(GpuError::Invalid(format!(
            "{file} must hold the integrand marker exactly once"
        )));
    }
    // One variable is a value, several are an array that the inlined body indexes with
    // constants (so the coordinates stay in registers).
    let parameter = if dims > 1 {
        "const real_t *x"
    } else {
        "real_t x"
    };
    let mut integrand = format!(
        "{prelude}typedef {} real_t;\n__device__ __forceinline__ real_t integrand({parameter}) {{\n{}\n}}",
        T::CUDA_TYPE,
        body
    );
    if !after.is_empty() {
        integrand.push('\n');
        integrand.push_str(after);
    }
    compile::inline_headers(&template.replacen(INTEGRAND_MARKER, &integrand, 1))
}

/// The point-list kernel's name for `type_name` (f64, dd, qd) and `dims` variables:
/// `evaluate_qd` for one, `evaluate_qd_3d` for three.
pub(crate) fn evaluate_kernel_name(type_name: &str, dims: usize) -> String {
    if dims == 1 {
        format!("evaluate_{type_name}")
    } else {
        format!("evaluate_{type_name}_{dims}d")
    }
}

/// The suffix of `f`'s kernels in `kernels/functions.cu`, or why it has none.
fn kernel_name(f: Func) -> Result<&'static str> {
    cuda::mirror_name(f).ok_or_else(|| no_kernel(f.name(), cuda::MIRRORED.iter().map(|g| g.name())))
}

/// [`kernel_name`] for a function of two arguments.
fn kernel_name2(f: Func2) -> Result<&'static str> {
    cuda::mirror_name2(f)
        .ok_or_else(|| no_kernel(f.name(), cuda::MIRRORED2.iter().map(|g| g.name())))
}

fn no_kernel<'a>(name: &str, with: impl Iterator<Item = &'a str>) -> GpuError {
    GpuError::Invalid(format!(
        "{name} has no element-wise kernel on the device; the functions with one are {}",
        with.collect::<Vec<_>>().join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_evaluate_kernel_is_named_after_its_type() {
        let e = crate::expr::Expr::parse("1/(1+x^2)", 1).unwrap();
        let dd = Gpu::evaluate_source::<precision::Dd>(
            &cuda::integrand::<precision::Dd>(e.tape()).unwrap(),
        )
        .unwrap();
        assert!(!dd.contains(INTEGRAND_MARKER));
        assert!(dd.contains("typedef dd_t real_t;"));
        assert_eq!(
            dd.matches("#define HPQ_EVALUATE_KERNEL evaluate_dd\n")
                .count(),
            1
        );
        let define = dd.find("#define HPQ_EVALUATE_KERNEL").unwrap();
        assert!(define < dd.find("void HPQ_EVALUATE_KERNEL(").unwrap());
        // No function mirrors for a rational integrand; all of them for one with a function.
        assert!(!dd.contains("hpq_exp"));
        let e = crate::expr::Expr::parse("exp(x)", 1).unwrap();
        let qd = Gpu::evaluate_source::<precision::Qd>(
            &cuda::integrand::<precision::Qd>(e.tape()).unwrap(),
        )
        .unwrap();
        assert!(qd.contains("evaluate_qd") && qd.contains("hpq_exp"));
        // A function of three variables: its own kernel name, its coordinates an array.
        let e3 = crate::expr::Expr::parse("x*y - z", 3).unwrap();
        let c3 = cuda::integrand::<precision::Qd>(e3.tape()).unwrap();
        let qd3 = Gpu::evaluate_source::<precision::Qd>(&c3).unwrap();
        assert!(qd3.contains("#define HPQ_EVALUATE_KERNEL evaluate_qd_3d\n"));
        assert!(qd3.contains("#define HPQ_DIMS 3\n"));
        assert!(qd3.contains("real_t integrand(const real_t *x)"));
        assert!(Gpu::integrand_source::<precision::Qd>(&c3).is_err());
        // The uniform sum's source gets no kernel name definition.
        let sum = Gpu::integrand_source::<f64>(&cuda::integrand::<f64>(e.tape()).unwrap()).unwrap();
        assert!(!sum.contains("HPQ_EVALUATE_KERNEL"));
    }

    #[test]
    fn a_function_without_a_kernel_is_invalid() {
        assert_eq!(kernel_name(Func::ExpM1).unwrap(), "exp_m1");
        assert_eq!(kernel_name2(Func2::Pow).unwrap(), "powf");
        match kernel_name(Func::Floor) {
            Err(GpuError::Invalid(m)) => assert!(
                m.starts_with("floor has no element-wise kernel") && m.contains("expm1, ln,"),
                "{m}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            kernel_name2(Func2::Max),
            Err(GpuError::Invalid(m)) if m.ends_with("pow, atan2, hypot")
        ));
    }
}
