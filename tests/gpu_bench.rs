//! Figures for the GPU backend, printed (run with --nocapture): start-up costs with a cold or
//! warm kernel cache, and throughput of the uniform sum. Timings are read, not asserted; the
//! one assertion is the cache contract, when the caller says the cache is warm.

use std::time::Instant;

use hpquad::gpu::{self, Gpu};
use precision::{Dd, Qd};

const PI: &str = "return 4.0 / (1.0 + x * x);";
const TRANSCENDENTAL: &str = "return exp(-x * x) * cos(x);";

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Times the first and second call of each kernel. With HPQUAD_EXPECT_WARM=1 the disk cache
/// was filled by an earlier process, and NVRTC must not run.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_start_up() {
    let t = Instant::now();
    let gpu = Gpu::new(0).expect("a CUDA device");
    println!("startup Gpu::new (driver init + context): {:.1} ms", ms(t));
    println!("startup cache dir: {:?}", gpu::cache_dir());
    let h = 1.0 / 1024.0;
    let t = Instant::now();
    let _ = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, 1024).unwrap();
    let first_f64 = ms(t);
    let t = Instant::now();
    let _ = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, 1024).unwrap();
    let second_f64 = ms(t);
    let t = Instant::now();
    let _ = gpu
        .uniform_sum(PI, Dd::from(h / 2.0), Dd::from(h), 0, 1, 1024)
        .unwrap();
    let first_dd = ms(t);
    let t = Instant::now();
    let _ = gpu
        .uniform_sum(PI, Qd::from(h / 2.0), Qd::from(h), 0, 1, 1024)
        .unwrap();
    let first_qd = ms(t);
    let t = Instant::now();
    let _ = gpu
        .uniform_sum(PI, Qd::from(h / 2.0), Qd::from(h), 0, 1, 1024)
        .unwrap();
    let second_qd = ms(t);
    let stats = gpu::compile_stats();
    println!(
        "startup first call f64 {first_f64:.1} ms, second {second_f64:.2} ms; first dd {first_dd:.1} ms; \
         first qd {first_qd:.1} ms, second {second_qd:.2} ms"
    );
    println!("startup stats {stats:?}");
    if std::env::var("HPQUAD_EXPECT_WARM").is_ok_and(|v| v == "1") {
        assert_eq!(stats.nvrtc_compiles, 0, "a warm cache must not call NVRTC");
        assert_eq!(stats.disk_hits, 3);
    }
}

fn rate<T: hpquad::gpu::GpuReal>(gpu: &Gpu, body: &str, what: &str, a: T, h: T, n: u64) {
    // The first call loads the module; the second is timed.
    let _ = gpu.uniform_sum(body, a, h, 0, 1, 1024).unwrap();
    let t = Instant::now();
    let s = gpu.uniform_sum(body, a, h, 0, 1, n).unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "throughput {what} {} n=2^{}: {:.3} s, {:.3e} evaluations/s, sum*h = {:.17e}",
        T::NAME,
        n.trailing_zeros(),
        secs,
        n as f64 / secs,
        s.to_f64() * h.to_f64()
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_throughput() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    for (log_n, body, what) in [
        (36u32, PI, "pi"),
        (40, PI, "pi"),
        (34, TRANSCENDENTAL, "exp*cos"),
    ] {
        let n = 1u64 << log_n;
        let h = 1.0 / n as f64;
        rate(&gpu, body, what, h / 2.0, h, n);
    }
    let n = 1u64 << 32;
    let h = Dd::ONE / Dd::from(n as f64);
    rate(&gpu, PI, "pi", h / 2.0, h, n);
    let n = 1u64 << 30;
    let h = Qd::ONE / Qd::from(n as f64);
    rate(&gpu, PI, "pi", h / 2.0, h, n);
}

/// One π sum per type (f64 2^26, dd 2^24, qd 2^20 points), for a profiler to count their
/// FP64 instructions.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_profile_target() {
    let gpu = Gpu::new(0).expect("a CUDA device");
    let n = 1u64 << 26;
    let h = 1.0 / n as f64;
    let s = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, n).unwrap();
    println!("profile target f64 n=2^26: sum*h = {:.17e}", s * h);
    let n = 1u64 << 24;
    let h = Dd::ONE / Dd::from(n as f64);
    let s = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, n).unwrap();
    println!(
        "profile target dd n=2^24: sum*h = {:?}",
        (s * h).components()
    );
    let n = 1u64 << 20;
    let h = Qd::ONE / Qd::from(n as f64);
    let s = gpu.uniform_sum(PI, h / 2.0, h, 0, 1, n).unwrap();
    println!(
        "profile target qd n=2^20: sum*h = {:?}",
        (s * h).components()
    );
}

// ---- The generated-kernel backend: throughput against the host's cores, and the crossover
// that `gpu_min_points` records. Figures in benches/README.md (GPU section).

use hpquad::backend::{Backend, UniformGrid};
use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::gpu::GpuBackend;
use precision::Real;

/// The integrand whose FP64 operations the profiler counts (4/(1+x^2), as the earlier figures).
const PI_EXPR: &str = "4/(1+x^2)";
const ROMBERG_PI_EXPR: &str = "(16*x-16)/(x^4-2*x^3+4*x-4)";
const HEAVY_EXPR: &str = "sqrt(exp(cos(x^(x^x))))";

fn midpoints<T: Real>(n: u64) -> UniformGrid<T> {
    let h = T::one() / T::from_f64(n as f64);
    UniformGrid {
        a: h / T::from_f64(2.0),
        h,
        first: 0,
        stride: 1,
        count: n,
    }
}

/// The median of `reps` timed calls, in seconds, after one untimed call.
fn median_secs<B: Backend, T: Real>(b: &B, f: &Expr, grid: &UniformGrid<T>, reps: usize) -> f64 {
    b.uniform_sum(f, grid).expect("warm-up sum");
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            b.uniform_sum(f, grid).expect("timed sum");
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn compare_rates<T: Real>(
    gpu: &GpuBackend,
    cpu: &CpuBackend,
    src: &str,
    log_gpu: u32,
    log_cpu: u32,
) {
    let f = Expr::parse(src, 1).unwrap();
    let t = Instant::now();
    gpu.uniform_sum(&f, &midpoints::<T>(256)).expect("compile");
    let first = ms(t);
    let g = median_secs(gpu, &f, &midpoints::<T>(1 << log_gpu), 3);
    let c = median_secs(cpu, &f, &midpoints::<T>(1 << log_cpu), 3);
    let (gr, cr) = ((1u64 << log_gpu) as f64 / g, (1u64 << log_cpu) as f64 / c);
    println!(
        "rate {src} {}: gpu 2^{log_gpu} in {g:.4} s = {gr:.4e} ev/s; cpu ({} threads) 2^{log_cpu} in {c:.4} s = {cr:.4e} ev/s; gpu/cpu {:.1}; first gpu call (compile or cache) {first:.0} ms",
        T::NAME,
        cpu.threads(),
        gr / cr
    );
}

/// Uniform sums of generated kernels on the GPU and on every CPU core, in one process.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_generated_rates() {
    let gpu = GpuBackend::new(0).expect("a CUDA device");
    let cpu = CpuBackend::new(0).unwrap();
    compare_rates::<f64>(&gpu, &cpu, PI_EXPR, 30, 26);
    compare_rates::<Dd>(&gpu, &cpu, PI_EXPR, 30, 23);
    compare_rates::<Qd>(&gpu, &cpu, PI_EXPR, 30, 20);
    // Long enough that the ~90 us fixed cost of a call vanishes: the kernel's steady rate.
    compare_rates::<f64>(&gpu, &cpu, PI_EXPR, 34, 26);
    compare_rates::<Dd>(&gpu, &cpu, PI_EXPR, 32, 23);
    compare_rates::<f64>(&gpu, &cpu, HEAVY_EXPR, 28, 22);
    compare_rates::<Dd>(&gpu, &cpu, HEAVY_EXPR, 24, 17);
    compare_rates::<Qd>(&gpu, &cpu, HEAVY_EXPR, 22, 15);
}

fn crossover<T: Real>(gpu: &GpuBackend, cpu: &CpuBackend) {
    let f = Expr::parse(ROMBERG_PI_EXPR, 1).unwrap();
    let mut found = None;
    for log_n in (6..=22).step_by(2) {
        let grid = midpoints::<T>(1 << log_n);
        let g = median_secs(gpu, &f, &grid, 7);
        let c = median_secs(cpu, &f, &grid, 7);
        println!(
            "crossover {} n=2^{log_n}: gpu {:.1} us, cpu {:.1} us",
            T::NAME,
            g * 1e6,
            c * 1e6
        );
        if found.is_none() && g < c {
            found = Some(log_n);
        }
    }
    println!("crossover {}: gpu faster from 2^{:?}", T::NAME, found);
}

/// The smallest grid for which one GPU launch beats the CPU: the figures behind
/// `hpquad::gpu::gpu_min_points`.
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_crossover() {
    let gpu = GpuBackend::new(0).expect("a CUDA device");
    let cpu = CpuBackend::new(0).unwrap();
    crossover::<f64>(&gpu, &cpu);
    crossover::<Dd>(&gpu, &cpu);
    crossover::<Qd>(&gpu, &cpu);
}

/// One launch per type of the generated 4/(1+x^2) kernel on 2^22 points, for ncu to count
/// FP64 instructions per evaluation (compiled before, so each type launches exactly once).
#[test]
#[ignore = "needs a CUDA device"]
fn gpu_bench_profile_generated() {
    let gpu = GpuBackend::new(0).expect("a CUDA device");
    let f = Expr::parse(PI_EXPR, 1).unwrap();
    let n = 1u64 << 22;
    println!(
        "profile f64 {}",
        gpu.uniform_sum(&f, &midpoints::<f64>(n)).unwrap()
    );
    println!(
        "profile dd {}",
        gpu.uniform_sum(&f, &midpoints::<Dd>(n)).unwrap()
    );
    println!(
        "profile qd {}",
        gpu.uniform_sum(&f, &midpoints::<Qd>(n)).unwrap()
    );
}
