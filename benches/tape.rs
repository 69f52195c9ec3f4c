//! Is the expression tape within 2x (f64) and 1.2x (qd) of hand-written Rust?
//!
//! Each integrand of the CPU-engine issue is evaluated on a batch of 4096 points, once through
//! `Expr` (parsed tape, column by column) and once as a hand-written function generic over
//! `Real` (point by point, through `RealFn`'s batch loop).
//!
//! dd and qd arithmetic runs in SIMD lanes (`precision::lanes`); with `HPQUAD_NO_LANES=1` in the
//! environment the tape runs its scalar loops instead, for a before/after with one binary.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hpquad::expr::Expr;
use hpquad::integrand::{Integrand, RealFn};
use hpquad::precision::Real;

const POINTS: usize = 4096;

struct Rational;
impl RealFn for Rational {
    fn eval<T: Real>(&self, x: T) -> T {
        (x * 16.0 - 16.0) / (x.powi(4) - x.powi(3) * 2.0 + x * 4.0 - 4.0)
    }
}

struct PiRational;
impl RealFn for PiRational {
    fn eval<T: Real>(&self, x: T) -> T {
        T::from_f64(4.0) / (x * x + 1.0)
    }
}

struct TowerOfPowers;
impl RealFn for TowerOfPowers {
    fn eval<T: Real>(&self, x: T) -> T {
        x.powf(x.powf(x)).cos().exp().sqrt()
    }
}

struct ExpSin;
impl RealFn for ExpSin {
    fn eval<T: Real>(&self, x: T) -> T {
        (x * 2.0).exp() * (x * 3.0).sin()
    }
}

struct Sinc;
impl RealFn for Sinc {
    fn eval<T: Real>(&self, x: T) -> T {
        let pi = T::pi();
        (pi * 10.0 * x).sin() / (pi * x)
    }
}

/// Benchmarks one integrand in `T`: the tape, then the hand-written function.
fn pair<T: Real, F: RealFn>(c: &mut Criterion, group: &str, name: &str, source: &str, f: F) {
    let expr = Expr::parse(source, 1).expect("the benchmark's expressions parse");
    let xs: Vec<T> = (0..POINTS)
        .map(|i| T::from_f64((i as f64 + 0.5) / POINTS as f64))
        .collect();
    let mut out = vec![T::zero(); POINTS];
    let mut g = c.benchmark_group(format!("{group}/{}", T::NAME));
    g.throughput(Throughput::Elements(POINTS as u64));
    g.bench_function(BenchmarkId::new("tape", name), |b| {
        b.iter(|| expr.eval_batch(&[black_box(&xs[..])], black_box(&mut out)))
    });
    g.bench_function(BenchmarkId::new("hand", name), |b| {
        b.iter(|| f.eval_batch(&[black_box(&xs[..])], black_box(&mut out)))
    });
    g.finish();
}

fn integrands<T: Real>(c: &mut Criterion) {
    let group = "tape_within_2x_f64_1_2x_qd_of_hand_written";
    pair::<T, _>(
        c,
        group,
        "rational",
        "(16*x - 16)/(x^4 - 2*x^3 + 4*x - 4)",
        Rational,
    );
    pair::<T, _>(c, group, "pi_rational", "4/(1+x^2)", PiRational);
    pair::<T, _>(c, group, "tower", "sqrt(exp(cos(x^(x^x))))", TowerOfPowers);
    pair::<T, _>(c, group, "exp_sin", "exp(2*x)*sin(3*x)", ExpSin);
    pair::<T, _>(c, group, "sinc", "sin(10*pi*x)/(pi*x)", Sinc);
}

fn all(c: &mut Criterion) {
    integrands::<f64>(c);
    integrands::<hpquad::precision::Dd>(c);
    integrands::<hpquad::precision::Qd>(c);
}

criterion_group!(benches, all);
criterion_main!(benches);
