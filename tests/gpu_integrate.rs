//! The GPU backend against the CPU and against closed forms: generated kernels for f64, dd and
//! qd, Romberg π to 60 digits, the hybrid's per-stage record, non-finite values; and, on any
//! machine, the errors of `Device::Gpu` without a GPU or with a Rust closure.

use hpquad::backend::{Backend, UniformGrid};
use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::gpu::{self, GpuBackend};
use hpquad::integrand::RealFn;
use hpquad::methods::{romberg, trapezoid, Interval, Options};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::{Device, Error, Estimate, Integral, Method, Precision, Value};

const PI_INTEGRAND: &str = "(16*x-16)/(x^4-2*x^3+4*x-4)";

struct Square;
impl RealFn for Square {
    fn eval<T: Real>(&self, x: T) -> T {
        x * x
    }
}

#[test]
fn device_gpu_without_a_gpu_is_a_clear_error() {
    if gpu::is_available() {
        return; // the GPU tests below cover this machine
    }
    let err = Integral::new("x^2")
        .unwrap()
        .over(0.0..1.0)
        .device(Device::Gpu)
        .compute()
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Gpu(_)), "{msg}");
    assert!(msg.contains("CUDA"), "{msg}");
    // Auto falls back to the CPU.
    let est = Integral::new("x^2")
        .unwrap()
        .over(0.0..1.0)
        .device(Device::Auto)
        .compute()
        .unwrap();
    assert!((est.value.to_f64() - 1.0 / 3.0).abs() < 1e-14);
    assert!(est.stages.iter().all(|s| s.device.starts_with("cpu")));
}

#[test]
fn a_closure_on_the_gpu_is_a_clear_error() {
    let err = Integral::from_fn(Square)
        .over(0.0..1.0)
        .device(Device::Gpu)
        .compute()
        .unwrap_err();
    assert!(err.to_string().contains("CPU only"), "{err}");
    // Under Auto a closure simply runs on the CPU.
    let est = Integral::from_fn(Square)
        .over(0.0..1.0)
        .device(Device::Auto)
        .compute()
        .unwrap();
    assert!((est.value.to_f64() - 1.0 / 3.0).abs() < 1e-14);
}

#[test]
fn device_parses_gpu() {
    assert_eq!("gpu".parse::<Device>(), Ok(Device::Gpu));
    assert_eq!(Device::Gpu.to_string(), "gpu");
    assert!("tpu"
        .parse::<Device>()
        .unwrap_err()
        .contains("cpu, gpu or auto"));
}

fn gpu_backend() -> GpuBackend {
    GpuBackend::new(0).expect("a CUDA device")
}

/// |a - b| in units of T's epsilon relative to |b|.
fn eps_apart<T: Real>(a: T, b: T) -> f64 {
    ((a - b).to_f64() / b.to_f64()).abs() / T::epsilon().to_f64()
}

/// Romberg on the GPU and on the CPU, both against the closed form; returns how many units of
/// epsilon the two values are apart.
fn romberg_both<T: Real>(source: &str, a: T, b: T, exact: T) -> f64 {
    let f = Expr::parse(source, 1).unwrap();
    let cpu = CpuBackend::new(0).unwrap();
    let gpu = gpu_backend();
    let options = Options::default();
    let on_gpu = romberg::romberg(&f, &gpu, Interval::new(a, b), &options).unwrap();
    let on_cpu = romberg::romberg(&f, &cpu, Interval::new(a, b), &options).unwrap();
    assert_eq!(on_gpu.evaluations, on_cpu.evaluations, "{source}");
    assert!(on_gpu.converged, "{source} in {}", T::NAME);
    let err = ((on_gpu.value - exact).to_f64() / exact.to_f64()).abs();
    assert!(
        err < 1e4 * T::epsilon().to_f64(),
        "{source} in {}: relative error {err:e}",
        T::NAME
    );
    let apart = eps_apart(on_gpu.value, on_cpu.value);
    println!(
        "{} {source}: gpu {} cpu {} ({} eps apart{})",
        T::NAME,
        on_gpu.value,
        on_cpu.value,
        apart,
        if on_gpu.value == on_cpu.value {
            ", same bits"
        } else {
            ""
        }
    );
    apart
}

fn closed_forms<T: Real>() {
    let one = T::one();
    let two = T::from_f64(2.0);
    let cases: Vec<(&str, T, T, T)> = vec![
        (PI_INTEGRAND, T::zero(), one, T::pi()),
        ("4/(1+x^2)", T::zero(), one, T::pi()),
        ("exp(x)", T::zero(), one, T::e() - one),
        ("sin(x)", T::zero(), T::pi(), two),
        ("log(1+x)", T::zero(), one, two * two.ln() - one),
        (
            "x^7 - 3*x^2 + 0.1",
            T::zero(),
            one,
            one / T::from_f64(8.0) - one + T::parse_decimal("0.1").unwrap(),
        ),
    ];
    for (source, a, b, exact) in cases {
        let apart = romberg_both(source, a, b, exact);
        assert!(apart <= 8.0, "{source} in {}: {apart} eps", T::NAME);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_romberg_f64_matches_cpu_and_closed_forms() {
    closed_forms::<f64>();
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_romberg_dd_matches_cpu_and_closed_forms() {
    closed_forms::<Dd>();
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_romberg_qd_matches_cpu_and_closed_forms() {
    closed_forms::<Qd>();
}

fn correct_digits(v: Qd) -> f64 {
    let rel = ((v - Qd::pi()) / Qd::pi()).abs().to_f64();
    if rel == 0.0 {
        64.0
    } else {
        -rel.log10()
    }
}

/// Romberg on the π integral in qd on `device`.
fn pi_romberg_qd(device: Device) -> Estimate {
    Integral::new(PI_INTEGRAND)
        .unwrap()
        .over(0.0..1.0)
        .method(Method::Romberg)
        .precision(Precision::Qd)
        .device(device)
        .compute()
        .unwrap()
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_pi_qd_60_digits_and_agrees_with_cpu() {
    let (g, c) = (pi_romberg_qd(Device::Gpu), pi_romberg_qd(Device::Cpu));
    let (Value::Qd(gv), Value::Qd(cv)) = (g.value, c.value) else {
        panic!("qd values expected");
    };
    let digits = correct_digits(gv);
    println!(
        "pi qd: gpu {gv:.64e}\n       cpu {cv:.64e}\n {digits:.1} digits, {} eps apart, same bits: {}",
        eps_apart(gv, cv),
        gv == cv
    );
    for s in &g.stages {
        println!(
            "  level {:2} {:8} points on {}",
            s.level, s.points, s.device
        );
    }
    assert!(digits >= 60.0, "{digits} digits");
    assert!(eps_apart(gv, cv) <= 8.0);
    // Small levels ran on the CPU, large ones on the GPU.
    assert!(g.stages[0].device.starts_with("cpu"));
    assert!(g.stages.last().unwrap().device.starts_with("gpu"));
}

#[test]
#[ignore = "needs a CUDA device"]
fn auto_starts_the_gpu_for_large_levels_only() {
    // Romberg's last levels of the pi integral in qd are large enough for the GPU: under
    // Auto the GPU is started then, and the result is the CPU's to the bit.
    let (auto, cpu) = (pi_romberg_qd(Device::Auto), pi_romberg_qd(Device::Cpu));
    assert_eq!(auto.value.to_string(), cpu.value.to_string());
    assert!(auto.stages[0].device.starts_with("cpu"));
    assert!(auto.stages.last().unwrap().device.starts_with("gpu"));
    // A small integral never leaves the CPU.
    let small = Integral::new("sin(x)")
        .unwrap()
        .over(0.0..1.0)
        .precision(Precision::Qd)
        .device(Device::Auto)
        .compute()
        .unwrap();
    assert!(small.stages.iter().all(|s| s.device.starts_with("cpu")));
}

/// The uniform sums of a transcendental integrand, with every rounding function: the device
/// mirrors against the host.
fn functions_agree<T: Real>(n: u64) {
    let f = Expr::parse(
        "sqrt(exp(cos(x^(x^x)))) + atan2(x, 2) * floor(3*x) - abs(x - 0.5) \
         + ceil(5*x)/4 - round(7*x)/8 + trunc(9*x)/16",
        1,
    )
    .unwrap();
    let h = T::one() / T::from_f64(n as f64);
    let grid = UniformGrid {
        a: h / T::from_f64(2.0),
        h,
        first: 0,
        stride: 1,
        count: n,
    };
    let cpu = CpuBackend::new(0).unwrap();
    let g = gpu_backend().uniform_sum(&f, &grid).unwrap();
    let c = cpu.uniform_sum(&f, &grid).unwrap();
    let apart = eps_apart(g, c);
    println!(
        "{} functions n={n}: gpu {g} cpu {c}, {apart} eps apart",
        T::NAME
    );
    assert!(apart <= 64.0, "{apart}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_functions_agree_with_cpu() {
    functions_agree::<f64>(1 << 16);
    functions_agree::<Dd>(1 << 14);
    functions_agree::<Qd>(1 << 12);
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_non_finite_reports_the_point_like_the_cpu() {
    let f = Expr::parse("1/(x - 0.75)", 1).unwrap();
    let cpu = CpuBackend::new(0).unwrap();
    let gpu = gpu_backend();
    let iv = Interval::new(Dd::ZERO, Dd::ONE);
    let options = Options::default();
    let on_gpu = trapezoid::trapezoid(&f, &gpu, iv, 1 << 12, &options).unwrap_err();
    let on_cpu = trapezoid::trapezoid(&f, &cpu, iv, 1 << 12, &options).unwrap_err();
    println!("gpu: {on_gpu}\ncpu: {on_cpu}");
    assert!(matches!(on_gpu, Error::NonFinite { .. }));
    assert_eq!(on_gpu.to_string(), on_cpu.to_string());
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_trapezoid_large_grid_f64_dd() {
    // 2^24 intervals: every grid on the GPU under Device::Gpu.
    for precision in [Precision::F64, Precision::Dd] {
        let est = Integral::new("4/(1+x^2)")
            .unwrap()
            .over(0.0..1.0)
            .method(Method::Trapezoid { intervals: 1 << 24 })
            .precision(precision)
            .device(Device::Gpu)
            .compute()
            .unwrap();
        let err = (est.value.to_f64() - std::f64::consts::PI).abs();
        println!(
            "trapezoid 2^24 {precision}: {} on {}",
            est.value, est.stages[0].device
        );
        assert!(err < 1e-13, "{err}");
        assert!(est.stages[0].device.starts_with("gpu"));
    }
}

/// Tanh-sinh in qd of sqrt(exp(cos(x^(x^x)))) on [0, 1] (301 evaluations) on the GPU, every
/// level's points there and the later levels joined into the first call: the CPU's bits, 60
/// digits against the suite's MPFR reference; prints the best of 7 warm calls on the GPU, on
/// all CPU cores and on one (the figures of issue 15's H100 goal, not asserted).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_tanh_sinh_qd_heavy_timing() {
    use hpquad::methods::tanh_sinh::tanh_sinh;
    use std::time::Instant;
    const REFERENCE: &str =
        "1.502297119598290439681896220976365739139808855151021407082607527297487429051250";
    let f = Expr::parse("sqrt(exp(cos(x^(x^x))))", 1).unwrap();
    let interval = Interval::new(Qd::from_f64(0.0), Qd::from_f64(1.0));
    let options = Options {
        relative: Some(1e-60),
        ..Options::default()
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let gpu = gpu_backend();
    let (all, one) = (CpuBackend::new(cores).unwrap(), CpuBackend::new(1).unwrap());
    let best = |backend: &dyn Fn() -> hpquad::methods::Outcome<Qd>| {
        backend(); // compile, load, first touch
        (0..7)
            .map(|_| {
                let t = Instant::now();
                let out = backend();
                (t.elapsed().as_secs_f64(), out)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap()
    };
    let (t_gpu, on_gpu) = best(&|| tanh_sinh(&f, &gpu, interval, &options).unwrap());
    let (t_all, on_all) = best(&|| tanh_sinh(&f, &all, interval, &options).unwrap());
    let (t_one, _) = best(&|| tanh_sinh(&f, &one, interval, &options).unwrap());
    assert_eq!(on_gpu.value.limbs(), on_all.value.limbs());
    let reference: Qd = Expr::parse(REFERENCE, 0).unwrap().eval_constant();
    let digits = -((on_gpu.value - reference) / reference)
        .abs()
        .to_f64()
        .log10();
    assert!(on_gpu.converged && digits >= 60.0, "{digits} digits");
    println!(
        "tanh-sinh qd sqrt(exp(cos(x^(x^x)))): {digits:.1} digits; GPU {:.0} µs ({} calls taking \
         {:.0} µs, {} evaluations), {cores} cores {:.0} µs ({} calls, {} evaluations), one core \
         {:.0} µs; GPU / {cores} cores {:.1}x, GPU / one core {:.1}x",
        t_gpu * 1e6,
        on_gpu.stages.len(),
        on_gpu
            .stages
            .iter()
            .map(|s| s.elapsed.as_secs_f64())
            .sum::<f64>()
            * 1e6,
        on_gpu.evaluations,
        t_all * 1e6,
        on_all.stages.len(),
        on_all.evaluations,
        t_one * 1e6,
        t_all / t_gpu,
        t_one / t_gpu
    );
}

/// PBCAQ or PSCAQ with `rule` and regions of `intervals` intervals on `backend`.
fn region_run<T: Real, B: Backend>(
    backend: &B,
    expression: &str,
    scheme: hpquad::methods::pbcaq::Scheme,
    rule: hpquad::methods::pbcaq::IntervalRule,
    intervals: usize,
    b: T,
    relative: f64,
) -> hpquad::Result<hpquad::methods::Outcome<T>> {
    use hpquad::methods::pbcaq::{pbcaq, Config};
    let f = Expr::parse(expression, 1).unwrap();
    let mut config = Config::new(scheme).with_rule(rule);
    config.region_intervals = Some(intervals);
    let options = Options {
        relative: Some(relative),
        ..Options::default()
    };
    pbcaq(&f, backend, Interval::new(T::zero(), b), &config, &options)
}

/// The region kernel (kernels/region.cu) against the CPU's region steps on `f` over [0, b]
/// (exact: its integral): the same regions, so the same bits in dd and qd (value, error,
/// evaluations, steps), for block and side cutting; every run honest against the exact
/// value, and within its tolerance.
fn region_kernel_agrees<T: Real>(
    f: &str,
    b: T,
    exact: T,
    rule: hpquad::methods::pbcaq::IntervalRule,
    intervals: usize,
    relative: f64,
) {
    use hpquad::methods::pbcaq::Scheme;
    let cpu = CpuBackend::new(0).unwrap();
    let gpu = gpu_backend();
    for scheme in [Scheme::Pbcaq, Scheme::Pscaq] {
        let on_gpu = region_run(&gpu, f, scheme, rule, intervals, b, relative).unwrap();
        let on_cpu = region_run(&cpu, f, scheme, rule, intervals, b, relative).unwrap();
        let actual = (on_gpu.value - exact).abs().to_f64();
        println!(
            "{} {scheme} {} {f}: gpu {} ± {:.1e} (actual {actual:.1e}), {} evaluations, {} \
             steps; cpu {} ± {:.1e}, {} evaluations",
            T::NAME,
            rule.name(),
            on_gpu.value,
            on_gpu.error,
            on_gpu.evaluations,
            on_gpu.levels,
            on_cpu.value,
            on_cpu.error,
            on_cpu.evaluations
        );
        assert!(on_gpu.converged && actual <= on_gpu.error, "{scheme}");
        assert!(actual <= relative * exact.abs().to_f64(), "{scheme}");
        assert!(on_gpu.stages.iter().all(|s| s.device.starts_with("gpu")));
        if T::LIMBS > 1 {
            assert_eq!(on_gpu.value, on_cpu.value, "{scheme}");
            assert_eq!(on_gpu.error.to_bits(), on_cpu.error.to_bits(), "{scheme}");
            assert_eq!(on_gpu.evaluations, on_cpu.evaluations, "{scheme}");
            assert_eq!(on_gpu.levels, on_cpu.levels, "{scheme}");
        }
    }
}

/// One trapezoid–Simpson block step of 2^12 intervals over [0, 5] on `backend`.
fn one_region_step<T: Real, B: Backend>(
    backend: &B,
    f: &Expr,
) -> hpquad::methods::pbcaq::region::RegionSums<T> {
    use hpquad::methods::pbcaq::region::{Cut, Region};
    use hpquad::methods::pbcaq::Pair;
    let pair = Pair::<T>::TrapezoidSimpson;
    let region = Region::new(&pair, T::zero(), T::from_i64(5), 1 << 12, Cut::Block);
    backend.region_step(f, &region).unwrap()
}

/// One GPU backend keeps the region kernels of each integrand and precision apart (a step
/// finds its kernels by precision and tape): steps of two integrands in dd and qd,
/// interleaved twice, each with the CPU's bits and within its error of its own integral
/// over [0, 5] (e^(-3x) cos(5πx): 3 (1 + e^-15) / (9 + 25π²); e^(2x) sin(3x):
/// (e^10 (2 sin 15 - 3 cos 15) + 3) / 13).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_region_kernels_are_kept_per_integrand_and_precision() {
    fn agree<T: Real>(gpu: &GpuBackend, cpu: &CpuBackend, f: &Expr, exact: T) {
        let (on_gpu, on_cpu) = (
            one_region_step::<T, _>(gpu, f),
            one_region_step::<T, _>(cpu, f),
        );
        let value = T::from_accumulator(on_gpu.value);
        assert_eq!(value, T::from_accumulator(on_cpu.value), "{}", T::NAME);
        assert_eq!(
            on_gpu.error.to_bits(),
            on_cpu.error.to_bits(),
            "{}",
            T::NAME
        );
        let actual = (value - exact).abs().to_f64();
        assert!(
            actual <= on_gpu.error,
            "{} {actual:e} > {:e}",
            T::NAME,
            on_gpu.error
        );
    }
    fn exact<T: Real>(which: usize) -> T {
        let three = T::from_i64(3);
        if which == 0 {
            (T::from_i64(-15).exp() + 1.0) * 3.0 / (T::pi() * T::pi() * 25.0 + 9.0)
        } else {
            let fifteen = T::from_i64(15);
            (T::from_i64(10).exp() * (fifteen.sin() * 2.0 - fifteen.cos() * three) + three)
                / T::from_i64(13)
        }
    }
    let gpu = gpu_backend();
    let cpu = CpuBackend::new(0).unwrap();
    let integrands = [
        Expr::parse("exp(-3*x)*cos(5*pi*x)", 1).unwrap(),
        Expr::parse("exp(2*x)*sin(3*x)", 1).unwrap(),
    ];
    for _ in 0..2 {
        for (which, f) in integrands.iter().enumerate() {
            agree::<Dd>(&gpu, &cpu, f, exact(which));
            agree::<Qd>(&gpu, &cpu, f, exact(which));
        }
    }
}

/// e^(-3x) cos(5πx) over [0, 10], 3 (1 - e^-30) / (9 + 25π²), with the trapezoid–Simpson pair
/// in regions of 2^12 intervals.
fn region_kernels_agree<T: Real>(relative: f64) {
    use hpquad::methods::pbcaq::IntervalRule;
    let ten = T::from_i64(10);
    let exact = (T::from_i64(1) - T::from_i64(-30).exp()) * 3.0 / (T::pi() * T::pi() * 25.0 + 9.0);
    region_kernel_agrees(
        "exp(-3*x)*cos(5*pi*x)",
        ten,
        exact,
        IntervalRule::TrapezoidSimpson,
        1 << 12,
        relative,
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_region_kernels_give_the_cpus_bits() {
    region_kernels_agree::<f64>(1e-9);
    region_kernels_agree::<Dd>(1e-8);
    region_kernels_agree::<Qd>(1e-7);
}

/// The Gauss–Kronrod pairs (G10–K21 in f64, G20–K41 in dd and qd) in the region kernel:
/// √x over [0, 1] (2/3), whose endpoint takes a step per halving and side cutting's first
/// accepted interval inside a group (regions of 600 intervals: three groups, the last cut
/// short), and e^(-3x) cos(5πx) over [0, 10] in regions of 64, at the tolerances
/// (1e-12, 1e-25, 1e-50).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_region_kernels_gauss_kronrod_give_the_cpus_bits() {
    use hpquad::methods::pbcaq::IntervalRule;
    fn both<T: Real>(relative: f64) {
        let two_thirds = T::from_i64(2) / T::from_i64(3);
        region_kernel_agrees(
            "sqrt(x)",
            T::from_i64(1),
            two_thirds,
            IntervalRule::GaussKronrod,
            600,
            relative,
        );
        let ten = T::from_i64(10);
        let exact =
            (T::from_i64(1) - T::from_i64(-30).exp()) * 3.0 / (T::pi() * T::pi() * 25.0 + 9.0);
        region_kernel_agrees(
            "exp(-3*x)*cos(5*pi*x)",
            ten,
            exact,
            IntervalRule::GaussKronrod,
            64,
            relative,
        );
    }
    both::<f64>(1e-12);
    both::<Dd>(1e-25);
    both::<Qd>(1e-50);
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_region_kernels_name_a_non_finite_point_like_the_cpu() {
    use hpquad::methods::pbcaq::{IntervalRule, Scheme};
    let cpu = CpuBackend::new(0).unwrap();
    let gpu = gpu_backend();
    // Trapezoid–Simpson in regions of 2^12: ln 0 at the first point; 1/0 at 0.75, an end
    // inside the first region (point 6144). Kronrod (G20–K41) in regions of 2: 1/0 at 0.75,
    // the second interval's centre (point 81); ln of a negative number (NaN) at the points
    // below 0.25, the first of them point 0.
    let cases = [
        ("ln(x)", IntervalRule::TrapezoidSimpson, 1 << 12),
        ("1/(x - 0.75)", IntervalRule::TrapezoidSimpson, 1 << 12),
        ("1/(x - 0.75)", IntervalRule::GaussKronrod, 2),
        ("ln(x - 0.25)", IntervalRule::GaussKronrod, 2),
    ];
    for (f, rule, intervals) in cases {
        let on_gpu =
            region_run(&gpu, f, Scheme::Pbcaq, rule, intervals, Dd::ONE, 1e-10).unwrap_err();
        let on_cpu =
            region_run(&cpu, f, Scheme::Pbcaq, rule, intervals, Dd::ONE, 1e-10).unwrap_err();
        println!("{f} ({}): gpu: {on_gpu}; cpu: {on_cpu}", rule.name());
        assert!(matches!(on_gpu, Error::NonFinite { .. }));
        assert_eq!(on_gpu.to_string(), on_cpu.to_string());
    }
}
