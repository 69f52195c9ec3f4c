//! Does Romberg in quad-double scale with threads? π = ∫₀¹ (16x − 16)/(x⁴ − 2x³ + 4x − 4) dx to
//! 60 digits (2^17 intervals at the finest level), with 1 and 2 CPU threads; the goal is a
//! speedup of at least 1.8 on 2 cores.

use criterion::{criterion_group, criterion_main, Criterion};
use hpquad::cpu::CpuBackend;
use hpquad::integrand::RealFn;
use hpquad::methods::{romberg, Interval, Options};
use hpquad::precision::{Qd, Real};

struct PiIntegrand;
impl RealFn for PiIntegrand {
    fn eval<T: Real>(&self, x: T) -> T {
        let x2 = x * x;
        (x * 16.0 - 16.0) / (x2 * x2 - x2 * x * 2.0 + x * 4.0 - 4.0)
    }
}

fn romberg_pi_qd_threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("romberg_pi_qd_60_digits");
    group.sample_size(10);
    let options = Options {
        relative: Some(1e-60),
        ..Options::default()
    };
    for threads in [1, 2] {
        let cpu = CpuBackend::new(threads).expect("a thread pool starts");
        group.bench_function(format!("{threads}_threads"), |b| {
            b.iter(|| {
                let out = romberg::romberg(
                    &PiIntegrand,
                    &cpu,
                    Interval::new(Qd::zero(), Qd::one()),
                    &options,
                )
                .expect("integrates");
                assert!(out.converged);
                out.value
            })
        });
    }
    group.finish();
}

fn romberg_pi_expr_qd_threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("romberg_pi_qd_60_digits_expression");
    group.sample_size(10);
    let f = hpquad::expr::Expr::parse("(16*x-16)/(x^4-2*x^3+4*x-4)", 1).expect("parses");
    let options = Options {
        relative: Some(1e-60),
        ..Options::default()
    };
    for threads in [1, 2] {
        let cpu = CpuBackend::new(threads).expect("a thread pool starts");
        group.bench_function(format!("{threads}_threads"), |b| {
            b.iter(|| {
                let out =
                    romberg::romberg(&f, &cpu, Interval::new(Qd::zero(), Qd::one()), &options)
                        .expect("integrates");
                assert!(out.converged);
                out.value
            })
        });
    }
    group.finish();
}

criterion_group!(benches, romberg_pi_qd_threads, romberg_pi_expr_qd_threads);
criterion_main!(benches);
