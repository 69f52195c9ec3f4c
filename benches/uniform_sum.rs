//! What does one uniform sum cost per point, in f64, dd and qd: on the CPU with 1 and 2 threads,
//! and on the GPU when one is present (a generated kernel)? The sum is the bulk operation every
//! trapezoid, Richardson and Romberg level asks of the backend; here the midpoints of the π
//! integrand (16x − 16)/(x⁴ − 2x³ + 4x − 4) on [0, 1], as an expression: 2^16 on the CPU,
//! 2^24 on the GPU (enough that a launch's fixed cost does not dominate). Throughput is in
//! points per second. Without a GPU the GPU groups are skipped, with a line saying so.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hpquad::backend::{Backend, UniformGrid};
use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::gpu::GpuBackend;
use hpquad::precision::{Dd, Qd, Real};

const POINTS: u64 = 1 << 16;
const GPU_POINTS: u64 = 1 << 24;

/// The midpoints of `n` equal intervals of [0, 1]: never a zero input, never a point twice.
fn midpoints<T: Real>(n: u64) -> UniformGrid<T> {
    let h = T::one() / T::from_i64(n as i64);
    UniformGrid {
        a: h * 0.5,
        h,
        first: 0,
        stride: 1,
        count: n,
    }
}

fn sum_in<T: Real>(c: &mut Criterion, f: &Expr) {
    let mut group = c.benchmark_group(format!("cpu_uniform_sum_{}", T::NAME));
    group.sample_size(10);
    group.throughput(Throughput::Elements(POINTS));
    let grid = midpoints::<T>(POINTS);
    for threads in [1, 2] {
        let cpu = CpuBackend::new(threads).expect("a thread pool starts");
        group.bench_function(BenchmarkId::new("threads", threads), |b| {
            b.iter(|| cpu.uniform_sum(f, &grid).expect("finite sum"))
        });
    }
    group.finish();
}

fn gpu_sum_in<T: Real>(c: &mut Criterion, f: &Expr, gpu: &GpuBackend) {
    let mut group = c.benchmark_group(format!("gpu_uniform_sum_{}", T::NAME));
    group.sample_size(10);
    group.throughput(Throughput::Elements(GPU_POINTS));
    let grid = midpoints::<T>(GPU_POINTS);
    // The first call compiles (or loads) the kernel: keep it out of the measurement.
    gpu.uniform_sum(f, &grid).expect("finite sum");
    group.bench_function("device_0", |b| {
        b.iter(|| gpu.uniform_sum(f, &grid).expect("finite sum"))
    });
    group.finish();
}

fn uniform_sums(c: &mut Criterion) {
    let f = Expr::parse("(16*x-16)/(x^4-2*x^3+4*x-4)", 1).expect("parses");
    sum_in::<f64>(c, &f);
    sum_in::<Dd>(c, &f);
    sum_in::<Qd>(c, &f);
    match GpuBackend::new(0) {
        Ok(gpu) => {
            gpu_sum_in::<f64>(c, &f, &gpu);
            gpu_sum_in::<Dd>(c, &f, &gpu);
            gpu_sum_in::<Qd>(c, &f, &gpu);
        }
        Err(e) => eprintln!("gpu_uniform_sum_*: skipped, no GPU ({e})"),
    }
}

criterion_group!(benches, uniform_sums);
criterion_main!(benches);
