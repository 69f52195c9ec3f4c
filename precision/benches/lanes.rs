//! How much faster are the column operations of `precision::lanes` than the scalar loop, and
//! than MPFR at 212 bits?
//!
//! Throughput over arrays of 1024 (divide criterion's time by 1024 for ns/element), the inputs
//! of `arith.rs`: sums of mixed signs in [-1, 1), factors, divisors and square roots in
//! [0.5, 2), all components random. Per operation:
//! - `scalar`: `out[i] = a[i] op b[i]` compiled for AVX2 and FMA, as the tape's loops are;
//! - `lanes/Scalar`, `lanes/Avx2`, `lanes/Avx512`: `Columns::op` on each instruction set the
//!   CPU has;
//! - `mpfr212` (add and mul, in place on preallocated `Float`s).
//!
//! The functions (`lanes/exp/Dd`, `lanes/exp/Qd`) over arguments as `bench/arith`'s: half in [1/3, 2/3], half
//! in [1/14, 3/14].
//!
//! sin and cos of tiny arguments (`lanes/sin_tiny/Dd` ... `lanes/cos_tiny/Qd`): 4096 values with
//! |x| from 1e-30 to 1e-8 (exponents uniform, both signs, all components random), the series
//! path of `trig::sin_cos` that tanh-sinh nodes near 0 take.
//!
//! Run: `cargo bench -p hpquad-precision --bench lanes -- --warm-up-time 1 --measurement-time 2`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkGroup, Criterion};
use precision::lanes::{Columns, Isa, Operand};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rug::{Assign, Float};

const N: usize = 1024;

/// A quad-double uniform in `[lo, hi)` with all four components random (as `arith.rs`).
fn draw(rng: &mut StdRng, lo: f64, hi: f64) -> Qd {
    let x = rng.gen_range(lo..hi);
    let c1 = x * f64::EPSILON * rng.gen_range(-0.5..0.5);
    let c2 = c1 * f64::EPSILON * rng.gen_range(-0.5..0.5);
    let c3 = c2 * f64::EPSILON * rng.gen_range(-0.5..0.5);
    Qd::from_f64(x) + Qd::new(0.0, c1, c2, c3)
}

fn inputs(seed: u64, lo: f64, hi: f64) -> Vec<Qd> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..N).map(|_| draw(&mut rng, lo, hi)).collect()
}

/// The scalar loop, built for AVX2 and FMA where the CPU has them (as `Plan::eval_batch`).
#[inline(always)]
fn scalar_loop<T: Copy>(out: &mut [T], a: &[T], b: &[T], f: impl Fn(T, T) -> T) {
    for ((y, &p), &q) in out.iter_mut().zip(a).zip(b) {
        *y = f(p, q);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn scalar_loop_avx2<T: Copy>(out: &mut [T], a: &[T], b: &[T], f: impl Fn(T, T) -> T) {
    scalar_loop(out, a, b, f)
}

fn scalar<T: Copy>(out: &mut [T], a: &[T], b: &[T], f: impl Fn(T, T) -> T) {
    #[cfg(target_arch = "x86_64")]
    if Isa::Avx2.is_available() {
        // SAFETY: the CPU has AVX2 and FMA.
        unsafe { scalar_loop_avx2(out, a, b, f) };
        return;
    }
    scalar_loop(out, a, b, f)
}

type ColumnOp<T> = fn(Isa, &mut [T], Operand<'_, T>, Operand<'_, T>);

/// One operation: the scalar loop, then the lanes on each instruction set.
fn compare<T: Columns + Default>(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &[T],
    b: &[T],
    f: impl Fn(T, T) -> T + Copy,
    op: ColumnOp<T>,
) {
    let mut out = vec![T::default(); N];
    g.bench_function("scalar", |bch| {
        bch.iter(|| scalar(black_box(&mut out), black_box(a), b, f))
    });
    for isa in Isa::available() {
        g.bench_function(format!("lanes/{isa:?}"), |bch| {
            bch.iter(|| {
                op(
                    isa,
                    black_box(&mut out),
                    Operand::Column(black_box(a)),
                    Operand::Column(b),
                )
            })
        });
    }
}

fn mpfr(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &[Qd],
    b: &[Qd],
    f: fn(&mut Float, &Float, &Float),
) {
    let to_mp = |x: &[Qd]| -> Vec<Float> {
        x.iter()
            .map(|q| {
                let mut m = Float::with_val(212, q.0[0]);
                for &c in &q.0[1..] {
                    m += c;
                }
                m
            })
            .collect()
    };
    let (ma, mb) = (to_mp(a), to_mp(b));
    let mut out = vec![Float::new(212); N];
    g.bench_function("mpfr212", |bch| {
        bch.iter(|| {
            for i in 0..N {
                f(&mut out[i], black_box(&ma[i]), &mb[i]);
            }
            black_box(&out);
        })
    });
}

fn all(c: &mut Criterion) {
    let s1 = inputs(1, -1.0, 1.0);
    let s2 = inputs(2, -1.0, 1.0);
    let f1 = inputs(3, 0.5, 2.0);
    let f2 = inputs(4, 0.5, 2.0);
    let dd = |x: &[Qd]| -> Vec<Dd> { x.iter().map(|q| q.to_dd()).collect() };
    let (ds1, ds2, df1, df2) = (dd(&s1), dd(&s2), dd(&f1), dd(&f2));

    let ops: [(&str, bool); 4] = [
        ("add", true),
        ("mul", false),
        ("div", false),
        ("sqrt", false),
    ];
    for (name, sums) in ops {
        let (qa, qb, da, db) = if sums {
            (&s1, &s2, &ds1, &ds2)
        } else {
            (&f1, &f2, &df1, &df2)
        };
        let mut g = c.benchmark_group(format!("lanes/{name}/Dd"));
        match name {
            "add" => compare(&mut g, da, db, |x, y| x + y, <Dd as Columns>::add_cols),
            "mul" => compare(&mut g, da, db, |x, y| x * y, <Dd as Columns>::mul_cols),
            "div" => compare(&mut g, da, db, |x, y| x / y, <Dd as Columns>::div_cols),
            _ => compare(
                &mut g,
                da,
                db,
                |x, _| x.sqrt(),
                |isa, d, a, _| {
                    if let Operand::Column(a) = a {
                        <Dd as Columns>::sqrt_cols(isa, d, a)
                    }
                },
            ),
        }
        g.finish();
        let mut g = c.benchmark_group(format!("lanes/{name}/Qd"));
        match name {
            "add" => {
                compare(&mut g, qa, qb, |x, y| x + y, <Qd as Columns>::add_cols);
                mpfr(&mut g, qa, qb, |o, p, q| o.assign(p + q));
            }
            "mul" => {
                compare(&mut g, qa, qb, |x, y| x * y, <Qd as Columns>::mul_cols);
                mpfr(&mut g, qa, qb, |o, p, q| o.assign(p * q));
            }
            "div" => compare(&mut g, qa, qb, |x, y| x / y, <Qd as Columns>::div_cols),
            _ => compare(
                &mut g,
                qa,
                qb,
                |x, _| x.sqrt(),
                |isa, d, a, _| {
                    if let Operand::Column(a) = a {
                        <Qd as Columns>::sqrt_cols(isa, d, a)
                    }
                },
            ),
        }
        g.finish();
    }

    // The functions, over arguments as `bench/arith`'s: half in [1/3, 2/3], half in
    // [1/14, 3/14] (interleaved).
    let wide = inputs(5, 1.0 / 3.0, 2.0 / 3.0);
    let narrow = inputs(6, 1.0 / 14.0, 3.0 / 14.0);
    let args: Vec<Qd> = (0..N)
        .map(|i| if i % 2 == 0 { wide[i] } else { narrow[i] })
        .collect();
    let dargs = dd(&args);
    let mut g = c.benchmark_group("lanes/exp/Dd");
    compare(
        &mut g,
        &dargs,
        &dargs,
        |x, _| x.exp(),
        |isa, d, a, _| {
            if let Operand::Column(a) = a {
                <Dd as Columns>::exp_cols(isa, d, a)
            }
        },
    );
    g.finish();
    let mut g = c.benchmark_group("lanes/exp/Qd");
    compare(
        &mut g,
        &args,
        &args,
        |x, _| x.exp(),
        |isa, d, a, _| {
            if let Operand::Column(a) = a {
                <Qd as Columns>::exp_cols(isa, d, a)
            }
        },
    );
    g.finish();
}

/// `TINY` arguments with |x| from 1e-30 to 1e-8, the exponent uniform, either sign, all
/// components random.
fn tiny_inputs(seed: u64) -> Vec<Qd> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..TINY)
        .map(|_| {
            let x = draw(&mut rng, 1.0, 10.0) * 10f64.powi(rng.gen_range(-30..-8));
            if rng.gen_bool(0.5) {
                -x
            } else {
                x
            }
        })
        .collect()
}

/// Arguments per tiny-argument run: as many as a batch of the tape's.
const TINY: usize = 4096;

/// A one-operand function: the scalar loop, then the lanes on each instruction set.
fn compare_unary<T: Columns + Default>(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &[T],
    f: fn(T) -> T,
    op: fn(Isa, &mut [T], &[T]),
) {
    let mut out = vec![T::default(); a.len()];
    g.bench_function("scalar", |bch| {
        bch.iter(|| scalar(black_box(&mut out), black_box(a), a, |x, _| f(x)))
    });
    for isa in Isa::available() {
        g.bench_function(format!("lanes/{isa:?}"), |bch| {
            bch.iter(|| op(isa, black_box(&mut out), black_box(a)))
        });
    }
}

fn tiny(c: &mut Criterion) {
    let q = tiny_inputs(7);
    let d: Vec<Dd> = q.iter().map(|x| x.to_dd()).collect();
    let mut g = c.benchmark_group("lanes/sin_tiny/Dd");
    compare_unary(&mut g, &d, Dd::sin, <Dd as Columns>::sin_cols);
    g.finish();
    let mut g = c.benchmark_group("lanes/cos_tiny/Dd");
    compare_unary(&mut g, &d, Dd::cos, <Dd as Columns>::cos_cols);
    g.finish();
    let mut g = c.benchmark_group("lanes/sin_tiny/Qd");
    compare_unary(&mut g, &q, Qd::sin, <Qd as Columns>::sin_cols);
    g.finish();
    let mut g = c.benchmark_group("lanes/cos_tiny/Qd");
    compare_unary(&mut g, &q, Qd::cos, <Qd as Columns>::cos_cols);
    g.finish();
}

criterion_group!(benches, all, tiny);
criterion_main!(benches);
