//! How fast are Dd and Qd against what a Rust user has today?
//!
//! For each operation, two forms:
//! - latency: a chain where each result feeds the next operation (`x = op(x)`), the cost a
//!   sequential algorithm pays;
//! - throughput: independent operations over arrays of 1024 inputs, what a vectorisable batch
//!   (an integrand over a chunk of points) pays.
//!
//! Peers: f64 as the floor; for Dd, `twofloat::TwoFloat` 0.8.4 and the `qd` crate's
//! `Double<f64>` (both double-doubles); for Qd, MPFR at 212 bits through `rug`.
//! Run: `cargo bench -p hpquad-precision --bench ops`; figures in precision/README.md.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use precision::{Dd, Qd};
use rug::{
    ops::{CompleteRound, NegAssign},
    Assign, Float,
};
use twofloat::TwoFloat;

type QdCrate = qd::Double<f64>;

const N: usize = 1024;
const CHAIN: usize = 256;
const MPFR_BITS: u32 = 212;

/// The operations benchmarked, each as a pair of (chain step, independent op on an input).
/// Chain steps are contractions or bounded recurrences so values stay ordinary.
#[derive(Clone, Copy)]
enum Op {
    Add,
    Mul,
    Div,
    Sqrt,
    Exp,
    Ln,
    Sin,
    Cos,
}

const OPS: [Op; 8] = [
    Op::Add,
    Op::Mul,
    Op::Div,
    Op::Sqrt,
    Op::Exp,
    Op::Ln,
    Op::Sin,
    Op::Cos,
];

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Mul => "mul",
            Op::Div => "div",
            Op::Sqrt => "sqrt",
            Op::Exp => "exp",
            Op::Ln => "ln",
            Op::Sin => "sin",
            Op::Cos => "cos",
        }
    }
}

/// Inputs in [0.5, 2): ordinary arguments for every operation above.
fn inputs() -> Vec<f64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..N)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            0.5 + 1.5 * (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// A number type under test: how to make it and apply each operation.
trait Subject: Copy {
    const NAME: &'static str;
    fn make(x: f64) -> Self;
    /// One step of the dependent chain for `op`, with the constant `c` in (0.5, 2).
    fn step(self, op: Op, c: Self) -> Self;
    /// The operation on independent inputs.
    fn apply(self, op: Op, b: Self) -> Option<Self>;
}

macro_rules! subject {
    ($t:ty, $name:literal, $make:expr, sin: $has_sin:ident) => {
        impl Subject for $t {
            const NAME: &'static str = $name;
            fn make(x: f64) -> Self {
                $make(x)
            }
            #[inline(always)]
            fn step(self, op: Op, c: Self) -> Self {
                match op {
                    Op::Add => self + c,
                    Op::Mul => self * c,
                    Op::Div => c / self,
                    Op::Sqrt => (self + c).sqrt(),
                    Op::Exp => (-self).exp(),
                    Op::Ln => (self + c).ln(),
                    Op::Sin => subject!(@trig $has_sin, self + c, sin).unwrap_or(self),
                    Op::Cos => subject!(@trig $has_sin, self, cos).unwrap_or(self),
                }
            }
            #[inline(always)]
            fn apply(self, op: Op, b: Self) -> Option<Self> {
                Some(match op {
                    Op::Add => self + b,
                    Op::Mul => self * b,
                    Op::Div => self / b,
                    Op::Sqrt => self.sqrt(),
                    Op::Exp => self.exp(),
                    Op::Ln => self.ln(),
                    Op::Sin => return subject!(@trig $has_sin, self, sin),
                    Op::Cos => return subject!(@trig $has_sin, self, cos),
                })
            }
        }
    };
    (@trig yes, $x:expr, $f:ident) => {
        Some($x.$f())
    };
    (@trig no, $x:expr, $f:ident) => {
        None
    };
}

subject!(f64, "f64", |x| x, sin: yes);
subject!(Dd, "dd", Dd::from_f64, sin: yes);
subject!(Qd, "qd", Qd::from_f64, sin: yes);
subject!(TwoFloat, "twofloat", TwoFloat::from_f64, sin: yes);
subject!(QdCrate, "qd-crate", |x| qd::Double(x, 0.0), sin: no);

fn has_op<T: Subject>(op: Op) -> bool {
    let one = T::make(1.0);
    one.apply(op, one).is_some()
}

fn latency<T: Subject>(c: &mut Criterion, group: &str) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(CHAIN as u64));
    let k = T::make(0.75);
    for op in OPS {
        if !has_op::<T>(op) {
            continue;
        }
        g.bench_function(BenchmarkId::new(T::NAME, op.name()), |b| {
            b.iter(|| {
                let mut x = black_box(T::make(0.9));
                for _ in 0..CHAIN {
                    x = x.step(op, k);
                }
                x
            })
        });
    }
    g.finish();
}

fn throughput<T: Subject>(c: &mut Criterion, group: &str) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(N as u64));
    let xs: Vec<T> = inputs().into_iter().map(T::make).collect();
    let ys: Vec<T> = inputs().into_iter().rev().map(T::make).collect();
    let mut out = xs.clone();
    for op in OPS {
        if !has_op::<T>(op) {
            continue;
        }
        g.bench_function(BenchmarkId::new(T::NAME, op.name()), |b| {
            b.iter(|| {
                for ((o, &x), &y) in out.iter_mut().zip(&xs).zip(&ys) {
                    if let Some(r) = x.apply(op, y) {
                        *o = r;
                    }
                }
                black_box(&out);
            })
        });
    }
    g.finish();
}

/// MPFR at 212 bits, in place so no allocation is timed.
fn mpfr_step(x: &mut Float, op: Op, c: &Float) {
    match op {
        Op::Add => *x += c,
        Op::Mul => *x *= c,
        Op::Div => {
            let q = (c / &*x).complete(MPFR_BITS);
            x.assign(&q);
        }
        Op::Sqrt => {
            *x += c;
            x.sqrt_mut();
        }
        Op::Exp => {
            x.neg_assign();
            x.exp_mut();
        }
        Op::Ln => {
            *x += c;
            x.ln_mut();
        }
        Op::Sin => {
            *x += c;
            x.sin_mut();
        }
        Op::Cos => x.cos_mut(),
    }
}

fn mpfr_apply(out: &mut Float, x: &Float, y: &Float, op: Op) {
    match op {
        Op::Add => out.assign(x + y),
        Op::Mul => out.assign(x * y),
        Op::Div => out.assign(x / y),
        Op::Sqrt => out.assign(x.sqrt_ref()),
        Op::Exp => out.assign(x.exp_ref()),
        Op::Ln => out.assign(x.ln_ref()),
        Op::Sin => out.assign(x.sin_ref()),
        Op::Cos => out.assign(x.cos_ref()),
    }
}

fn mpfr_latency(c: &mut Criterion, group: &str) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(CHAIN as u64));
    let k = Float::with_val(MPFR_BITS, 0.75);
    for op in OPS {
        g.bench_function(BenchmarkId::new("mpfr212", op.name()), |b| {
            let mut x = Float::with_val(MPFR_BITS, 0.9);
            b.iter(|| {
                x.assign(0.9);
                for _ in 0..CHAIN {
                    mpfr_step(&mut x, op, &k);
                }
                black_box(&x);
            })
        });
    }
    g.finish();
}

fn mpfr_throughput(c: &mut Criterion, group: &str) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(N as u64));
    let xs: Vec<Float> = inputs()
        .into_iter()
        .map(|x| Float::with_val(MPFR_BITS, x))
        .collect();
    let ys: Vec<Float> = xs.iter().rev().cloned().collect();
    let mut out = xs.clone();
    for op in OPS {
        g.bench_function(BenchmarkId::new("mpfr212", op.name()), |b| {
            b.iter(|| {
                for ((o, x), y) in out.iter_mut().zip(&xs).zip(&ys) {
                    mpfr_apply(o, x, y, op);
                }
                black_box(&out);
            })
        });
    }
    g.finish();
}

fn dd_against_peers(c: &mut Criterion) {
    latency::<f64>(c, "dd_vs_peers_latency");
    latency::<Dd>(c, "dd_vs_peers_latency");
    latency::<TwoFloat>(c, "dd_vs_peers_latency");
    latency::<QdCrate>(c, "dd_vs_peers_latency");
    throughput::<f64>(c, "dd_vs_peers_throughput");
    throughput::<Dd>(c, "dd_vs_peers_throughput");
    throughput::<TwoFloat>(c, "dd_vs_peers_throughput");
    throughput::<QdCrate>(c, "dd_vs_peers_throughput");
}

fn qd_against_mpfr(c: &mut Criterion) {
    latency::<Qd>(c, "qd_vs_mpfr_latency");
    mpfr_latency(c, "qd_vs_mpfr_latency");
    throughput::<Qd>(c, "qd_vs_mpfr_throughput");
    mpfr_throughput(c, "qd_vs_mpfr_throughput");
}

criterion_group!(benches, dd_against_peers, qd_against_mpfr);
criterion_main!(benches);
