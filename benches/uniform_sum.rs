//! What does one CPU uniform sum cost per point, in f64, dd and qd, on 1 and 2 threads? The
//! sum is the bulk operation every trapezoid, Richardson and Romberg level asks of the backend;
//! here 2^16 midpoints of the π integrand (16x − 16)/(x⁴ − 2x³ + 4x − 4) on [0, 1], as an
//! expression (tape evaluator). Throughput is reported in points per second.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hpquad::backend::{Backend, UniformGrid};
use hpquad::cpu::CpuBackend;
use hpquad::expr::Expr;
use hpquad::precision::{Dd, Qd, Real};

const POINTS: u64 = 1 << 16;

fn sum_in<T: Real>(c: &mut Criterion, f: &Expr) {
    let mut group = c.benchmark_group(format!("cpu_uniform_sum_{}", T::NAME));
    group.sample_size(10);
    group.throughput(Throughput::Elements(POINTS));
    // The midpoints of 2^16 intervals: never a zero input, never the same point twice.
    let h = T::one() / T::from_i64(POINTS as i64);
    let grid = UniformGrid {
        a: h * 0.5,
        h,
        first: 0,
        stride: 1,
        count: POINTS,
    };
    for threads in [1, 2] {
        let cpu = CpuBackend::new(threads).expect("a thread pool starts");
        group.bench_function(BenchmarkId::new("threads", threads), |b| {
            b.iter(|| cpu.uniform_sum(f, &grid).expect("finite sum"))
        });
    }
    group.finish();
}

fn uniform_sums(c: &mut Criterion) {
    let f = Expr::parse("(16*x-16)/(x^4-2*x^3+4*x-4)", 1).expect("parses");
    sum_in::<f64>(c, &f);
    sum_in::<Dd>(c, &f);
    sum_in::<Qd>(c, &f);
}

criterion_group!(benches, uniform_sums);
criterion_main!(benches);
