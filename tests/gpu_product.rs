//! The tensor-product Gauss–Legendre rule's sums on the device (`kernels/product.cu`,
//! `GpuBackend::product_sums`): the CPU's `ProductSums` bit for bit in f64, dd and qd, in 1,
//! 2, 3 and 5 dimensions with the method's points an axis, with 8 and with raised shapes (axes
//! of different points, up to the most an axis takes), over boxes of different
//! sizes and places; the first non-finite point the CPU's; the method `gauss_product` on the
//! GPU the CPU's value, error and evaluations, its stages naming the GPU; the hybrid sends a
//! large call to the GPU and a small one to its CPU. In f64 the integrands call no
//! transcendental function (libdevice's may differ from the host's in the last bit, and then
//! so would the sums); dd and qd mirror the host's functions bit for bit.
//!
//! The figure test (ignored, prints) runs the Gaussian exp(−625 Σ (x_i − 1/2)²) over
//! [0, 1]^n to 1e-20 in dd for n = 3, 4, 5 and n = 5 with a cap of 2·10^11 evaluations:
//! `cargo test --release --test gpu_product -- --ignored --nocapture gpu_product_gaussian`.
//!
//! Host only: the kernel's sources for every type and 1 to 8 dimensions are made
//! (`product_sources_are_made`); `write_product_kernel_sources` writes them
//! for scripts/check_cuda.sh, which has clang compile them without a GPU.

use std::sync::Arc;
use std::time::Instant;

use hpquad::backend::Backend;
use hpquad::cpu::CpuBackend;
use hpquad::expr::{cuda, Expr};
use hpquad::gpu::{Gpu, GpuBackend, HybridBackend, MAX_PRODUCT_DIMS};
use hpquad::methods::cuhre::Hyperbox;
use hpquad::methods::gauss_product::{
    gauss_product, points_per_axis, AxisRule, ProductRule, ProductSums,
};
use hpquad::methods::Options;
use hpquad::precision::{Dd, Qd, Real};
use hpquad::Error;

mod cubature_support;
mod mpfr_support;
use cubature_support::gaussian;
use mpfr_support::{abs_error, digits};

fn gpu() -> GpuBackend {
    GpuBackend::new(0).expect("a CUDA device")
}

fn cpu() -> CpuBackend {
    CpuBackend::new(2).expect("a thread pool")
}

fn rational<T: Real>(p: i64, q: i64) -> T {
    T::from_i64(p) / T::from_i64(q)
}

/// A smooth integrand of `dims` variables with exp, sin and products, for dd and qd.
fn transcendental(dims: usize) -> &'static str {
    match dims {
        1 => "exp(x1) * sin(3*x1) + 1/(2 + x1)",
        2 => "exp(x1*x2) + x1*sin(x2)",
        3 => "exp(x1*x2) + sin(x3)",
        _ => "exp(x1*x2) + sin(x3)*cos(x4 - x5) + x1*x5",
    }
}

/// A smooth rational integrand of `dims` variables, for f64 (the same bits on both devices:
/// IEEE operations only).
fn rational_integrand(dims: usize) -> &'static str {
    match dims {
        1 => "1/(2 + x1) + x1*x1*x1",
        2 => "x1*x2/(3 + x1) + x2",
        3 => "x1*x2 + 1/(1 + x3*x3)",
        _ => "x1*x2 + 1/(1 + x3*x3) - x4*x5/(4 + x1)",
    }
}

/// Five boxes of `dims` axes, region-major: the unit box, one across zero, narrow ones off
/// the origin, one of width 2^-20 and one of width 3.
fn boxes<T: Real>(dims: usize) -> (Vec<T>, Vec<T>) {
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    for r in 0..5i64 {
        for d in 0..dims as i64 {
            let (a, b): (T, T) = match r {
                0 => (T::zero(), T::one()),
                1 => (rational(-1, 2), rational(1, 4)),
                2 => (rational(d + 1, 10), rational(d + 4, 10)),
                3 => {
                    let a = rational::<T>(3, 10 + d);
                    (a, a + T::one().ldexp(-20))
                }
                _ => (
                    rational(-d - 1, 7),
                    rational::<T>(-d - 1, 7) + T::from_i64(3),
                ),
            };
            lower.push(a);
            upper.push(b);
        }
    }
    (lower, upper)
}

/// The GPU's sums of `expression` over [`boxes`] with `shape[d]` points on axis d are the
/// CPU's, to the bit.
fn sums_agree<T: Real>(expression: &str, shape: &[usize])
where
    T::Accumulator: PartialEq,
{
    let dims = shape.len();
    let f = Expr::parse(expression, dims).expect(expression);
    let axes = shape
        .iter()
        .map(|&m| Arc::new(AxisRule::<T>::new(m).expect("an axis rule")))
        .collect();
    let rule = ProductRule::with_axes(axes).expect("a rule");
    let (lower, upper) = boxes::<T>(dims);
    let gpu = gpu();
    let on_gpu = gpu
        .product_sums(&f, &rule, &lower, &upper)
        .expect("the GPU's sums");
    let on_cpu = cpu()
        .product_sums(&f, &rule, &lower, &upper)
        .expect("the CPU's sums");
    assert_eq!(on_gpu.len(), 5);
    for (r, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        assert_eq!(g, c, "{} {shape:?} {expression}: region {r}", T::NAME);
        assert!(g.bad.is_none());
    }
    assert_eq!(
        gpu.device_for_product::<T, _>(&f, &rule, rule.points()),
        gpu.device()
    );
}

/// The method's first shape in each precision, 8 on every axis, and raised shapes (axes of
/// different points, up to the most an axis takes).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_product_sums_are_the_cpus() {
    for dims in [1, 2, 3, 5] {
        let raised = |first: usize, most: usize| -> Vec<usize> {
            (0..dims)
                .map(|d| if d % 2 == 1 { most } else { first + 4 * d })
                .collect()
        };
        let m = points_per_axis::<f64>(dims).expect("a size");
        sums_agree::<f64>(rational_integrand(dims), &vec![m; dims]);
        sums_agree::<f64>(rational_integrand(dims), &vec![8; dims]);
        sums_agree::<f64>(rational_integrand(dims), &raised(8, 24));
        let m = points_per_axis::<Dd>(dims).expect("a size");
        sums_agree::<Dd>(transcendental(dims), &vec![m; dims]);
        sums_agree::<Dd>(transcendental(dims), &vec![8; dims]);
        sums_agree::<Dd>(transcendental(dims), &raised(12, 40));
        let m = points_per_axis::<Qd>(dims).expect("a size");
        sums_agree::<Qd>(transcendental(dims), &vec![m; dims]);
        sums_agree::<Qd>(transcendental(dims), &vec![8; dims]);
        sums_agree::<Qd>(transcendental(dims), &raised(8, 64));
    }
}

/// sqrt(1 − x1) + sqrt(1 − x3) + x2 (IEEE's square root on both devices, so f64 too): not
/// finite where x1 or x3 passes 1, so in the box that reaches 1.01 on both, points of every
/// fiber are bad and of some fibers all, and in the next box, which passes 1 on x1 alone, the
/// same points of every fiber. The first bad point of each region is the CPU's; the boxes
/// within [0, 1) have none, and the CPU's sums. The method names the same point on both
/// devices.
fn first_bad_agrees<T: Real>()
where
    T::Accumulator: PartialEq,
{
    let dims = 3;
    let f = Expr::parse("sqrt(1 - x1) + sqrt(1 - x3) + x2", dims).expect("parses");
    let m = points_per_axis::<T>(dims).expect("a size");
    let rule = ProductRule::<T>::new(dims, m).expect("a rule");
    let lower: Vec<T> = vec![T::zero(); 4 * dims];
    let mut upper: Vec<T> = Vec::new();
    for top in [
        [rational(1, 2); 3],
        [rational(101, 100), T::one(), rational(101, 100)],
        [rational(101, 100), T::one(), rational(1, 2)],
        [rational(99, 100); 3],
    ] {
        upper.extend(top);
    }
    let on_gpu = gpu()
        .product_sums(&f, &rule, &lower, &upper)
        .expect("the GPU's sums");
    let on_cpu = cpu()
        .product_sums(&f, &rule, &lower, &upper)
        .expect("the CPU's sums");
    let bad: Vec<Option<u64>> = on_cpu.iter().map(|s| s.bad).collect();
    assert!(bad[0].is_none() && bad[1].is_some() && bad[2].is_some() && bad[3].is_none());
    for (r, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        assert_eq!(g.bad, c.bad, "{} region {r}", T::NAME);
        if c.bad.is_none() {
            assert_eq!(g, c, "{} region {r}", T::NAME);
        }
    }

    let past = Hyperbox::new(vec![T::zero(); dims], upper[dims..2 * dims].to_vec()).expect("a box");
    let options = Options::default();
    let message = |e: Error| match e {
        e @ Error::NonFinite { .. } => e.to_string(),
        other => panic!("not a non-finite value: {other}"),
    };
    let on_gpu = gauss_product(&f, &gpu(), &past, &options).expect_err("a NaN");
    let on_cpu = gauss_product(&f, &cpu(), &past, &options).expect_err("a NaN");
    assert_eq!(message(on_gpu), message(on_cpu), "{}", T::NAME);
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_product_names_the_cpus_first_bad_point() {
    first_bad_agrees::<f64>();
    first_bad_agrees::<Dd>();
    first_bad_agrees::<Qd>();
}

/// The method on the GPU: exp(x1 x2) + sin(x3) over [0, 1]^3 in dd to 1e-28, the CPU's value,
/// error and evaluations to the bit, every stage on the GPU.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_product_method_is_the_cpus() {
    let f = Expr::parse(transcendental(3), 3).expect("parses");
    let unit = Hyperbox::new(vec![Dd::zero(); 3], vec![Dd::one(); 3]).expect("a box");
    let options = Options {
        relative: Some(1e-28),
        ..Options::default()
    };
    let gpu = gpu();
    let on_gpu = gauss_product(&f, &gpu, &unit, &options).expect("runs on the GPU");
    let on_cpu = gauss_product(&f, &cpu(), &unit, &options).expect("runs on the CPU");
    assert!(on_gpu.converged, "{on_gpu:?}");
    assert_eq!(on_gpu.value, on_cpu.value);
    assert_eq!(on_gpu.error.to_bits(), on_cpu.error.to_bits());
    assert_eq!(on_gpu.evaluations, on_cpu.evaluations);
    assert_eq!(on_gpu.levels, on_cpu.levels);
    assert!(on_gpu.stages.iter().all(|s| s.device == gpu.device()));
}

/// The hybrid: a round of 2^16 points or more on its GPU, fewer on its CPU, the same sums.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_product_hybrid_sends_large_calls_to_the_gpu() {
    let dims = 3;
    let f = Expr::parse(transcendental(dims), dims).expect("parses");
    let rule = ProductRule::<Dd>::new(dims, 20).expect("a rule");
    let gpu = gpu();
    let name = gpu.device();
    let hybrid = HybridBackend::new(CpuBackend::new(2).expect("a pool"), Some(gpu));
    let (lower, upper) = boxes::<Dd>(dims);
    // 8000 points a region: one region stays on the CPU, all five (40000) too, 10 go over.
    assert_eq!(
        hybrid.device_for_product::<Dd, _>(&f, &rule, rule.points()),
        cpu().device()
    );
    assert_eq!(
        hybrid.device_for_product::<Dd, _>(&f, &rule, 10 * rule.points()),
        name
    );
    let (mut lower10, mut upper10) = (lower.clone(), upper.clone());
    lower10.extend_from_slice(&lower);
    upper10.extend_from_slice(&upper);
    let on_hybrid = hybrid
        .product_sums(&f, &rule, &lower10, &upper10)
        .expect("the hybrid's sums");
    let on_cpu = cpu()
        .product_sums(&f, &rule, &lower10, &upper10)
        .expect("the CPU's sums");
    assert_eq!(on_hybrid, on_cpu);
    let small: Vec<ProductSums<Dd>> = hybrid
        .product_sums(&f, &rule, &lower, &upper)
        .expect("the hybrid's sums");
    assert_eq!(small, on_cpu[..5]);
}

/// The Gaussian over [0, 1]^n to 1e-20 in dd on the GPU: evaluations, time and digits
/// against the closed form; the true error within the claimed one. n = 3, 4 and 5 under the
/// default cap (2^27 evaluations), then n = 5 with a cap of 2·10^11.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_product_gaussian() {
    let gpu = gpu();
    let runs = [
        (3usize, None),
        (4, None),
        (5, None),
        (5, Some(200_000_000_000u64)),
    ];
    for (n, cap) in runs {
        let (expression, reference) = gaussian(n);
        let f = Expr::parse(&expression, n).expect("parses");
        let unit = Hyperbox::new(vec![Dd::zero(); n], vec![Dd::one(); n]).expect("a box");
        let mut options = Options {
            relative: Some(1e-20),
            ..Options::default()
        };
        if let Some(cap) = cap {
            options.max_evaluations = cap;
        }
        let start = Instant::now();
        let out = gauss_product(&f, &gpu, &unit, &options).expect("runs");
        let seconds = start.elapsed().as_secs_f64();
        let actual = abs_error(out.value, &reference);
        println!(
            "gaussian n={n} dd 1e-20 cap {:.1e}: {} evaluations, {seconds:.2} s, {:.1} digits, \
             claimed error {:.2e}, actual {actual:.2e}, converged {}, {} rounds on {}",
            options.max_evaluations as f64,
            out.evaluations,
            digits(out.value, &reference),
            out.error,
            out.converged,
            out.levels,
            out.stages
                .last()
                .map_or("-".into(), |s| s.device.to_string()),
        );
        assert!(
            actual <= out.error,
            "n = {n}: the actual error {actual:e} passes the claimed {:e}",
            out.error
        );
    }
}

/// Every source the backend can ask for: f64, dd and qd, 1 to 8 dimensions (each takes every
/// shape of rule), an integrand with functions (and one without in f64).
fn product_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dims in 1..=MAX_PRODUCT_DIMS {
        let with_functions = format!(
            "exp(-({}))*sin(x1)",
            (1..=dims)
                .map(|d| format!("x{d}*x{d}"))
                .collect::<Vec<_>>()
                .join(" + ")
        );
        let rational = format!("1/(1 + x{dims}*x1)");
        let e = Expr::parse(&with_functions, dims).expect("parses");
        let plain = Expr::parse(&rational, dims).expect("parses");
        let mut add = |name: String, source: hpquad::gpu::Result<String>| {
            out.push((name, source.expect("a source")));
        };
        let code = cuda::integrand::<f64>(e.tape()).expect("f64 code");
        add(format!("f64_{dims}d"), Gpu::product_source::<f64>(&code));
        let code = cuda::integrand::<f64>(plain.tape()).expect("f64 code");
        add(
            format!("f64_rational_{dims}d"),
            Gpu::product_source::<f64>(&code),
        );
        let code = cuda::integrand::<Dd>(e.tape()).expect("dd code");
        add(format!("dd_{dims}d"), Gpu::product_source::<Dd>(&code));
        let code = cuda::integrand::<Qd>(e.tape()).expect("qd code");
        add(format!("qd_{dims}d"), Gpu::product_source::<Qd>(&code));
    }
    out
}

#[test]
fn product_sources_are_made() {
    let sources = product_sources();
    assert_eq!(sources.len(), MAX_PRODUCT_DIMS * 4);
    for (name, source) in &sources {
        let kernel = format!(
            "#define HPQ_PRODUCT_KERNEL gauss_product_{}\n",
            name.replace("_rational", "")
        );
        assert!(source.contains(&kernel), "{name}");
        assert!(!source.contains("@@INTEGRAND@@"), "{name}");
        assert!(!source.contains("#include"), "{name}");
    }
}

/// Writes the product kernel's sources into the directory `HPQUAD_KERNEL_SOURCES` (by default
/// `hpquad_kernel_sources` in the temporary directory), for scripts/check_cuda.sh.
#[test]
#[ignore = "writes the kernel sources for scripts/check_cuda.sh"]
fn write_product_kernel_sources() {
    let dir = std::env::var("HPQUAD_KERNEL_SOURCES").unwrap_or_else(|_| {
        let dir = std::env::temp_dir().join("hpquad_kernel_sources");
        std::fs::create_dir_all(&dir).expect("a directory");
        dir.to_string_lossy().into_owned()
    });
    for (name, source) in product_sources() {
        std::fs::write(format!("{dir}/product_{name}.cu"), source).expect("writes");
    }
}
