//! How fast is each operation of `Dd` and `Qd` next to f64, the other double-double crates
//! (twofloat 0.8.4's `TwoFloat`, the `qd` crate's `qd::Double<f64>`) and MPFR at 212 bits?
//!
//! Each operation in two forms, 1024 operations per iteration (divide criterion's time by 1024
//! for ns/op):
//! - `latency`: a dependent chain, each result feeding the next operation;
//! - `throughput`: independent operations over arrays of 1024 inputs.
//!
//! The chains: `x + a[i]`, `x * a[i]`, `a[i] / x` (bounded), `sqrt(x + a[i])`, `exp(-x)` (which
//! converges to the omega constant 0.567…, not to a trivial value) and `ln(x + a[i])`; so the
//! sqrt and ln chains include one addition each. MPFR works in place on preallocated `Float`s:
//! no allocation is timed.
//!
//! sin and cos follow the same pattern without `qd::Double`, which has no trigonometry.
//!
//! atan, atan2 and asin (`inverse`): the throughput form only, over the inputs of
//! bench/arith's comparison with Arb (1024 numbers in [1/3, 2/3] and 1024 in [1/14, 3/14];
//! atan2 of the second over the first; asin of both), for Dd, Qd and MPFR at 212 bits. Run
//! them alone with `cargo bench -p hpquad-precision --bench arith -- atan` (or `asin`).
//!
//! Run: `cargo bench -p hpquad-precision --bench arith -- --warm-up-time 1 --measurement-time 2`,
//! then `python3 precision/benches/table.py` for the ns/op table of precision/README.md.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkGroup, Criterion};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rug::ops::{DivFrom, NegAssign};
use rug::{Assign, Float};
use twofloat::TwoFloat;

type QdDouble = qd::Double<f64>;

const N: usize = 1024;
const MPFR_BITS: u32 = 212;

/// A quad-double uniform in `[lo, hi)` with all four components random.
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

/// The inputs converted to every type under test.
struct Sets {
    f: Vec<f64>,
    dd: Vec<Dd>,
    tf: Vec<TwoFloat>,
    qdd: Vec<QdDouble>,
    qd: Vec<Qd>,
    mp: Vec<Float>,
}

fn sets(x: &[Qd]) -> Sets {
    let dd: Vec<Dd> = x.iter().map(|q| q.to_dd()).collect();
    Sets {
        f: x.iter().map(|q| q.to_f64()).collect(),
        tf: dd
            .iter()
            .map(|d| TwoFloat::try_from((d.hi, d.lo)).unwrap())
            .collect(),
        qdd: dd.iter().map(|d| qd::Double(d.hi, d.lo)).collect(),
        dd,
        qd: x.to_vec(),
        mp: x
            .iter()
            .map(|q| {
                let c = q.components();
                let mut f = Float::with_val(4 * 53, c[0]);
                for &ci in &c[1..] {
                    f += ci;
                }
                Float::with_val(MPFR_BITS, &f)
            })
            .collect(),
    }
}

fn latency<T: Copy>(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    start: T,
    a: &[T],
    f: impl Fn(T, T) -> T,
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut x = black_box(start);
            for &y in a {
                x = f(x, y);
            }
            black_box(x)
        })
    });
}

fn throughput<T: Copy>(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    a: &[T],
    b: &[T],
    out: &mut [T],
    f: impl Fn(T, T) -> T,
) {
    g.bench_function(name, |bch| {
        bch.iter(|| {
            for i in 0..N {
                out[i] = f(black_box(a[i]), b[i]);
            }
            black_box(&out);
        })
    });
}

/// The binary operations: `chain(x, a)` for the latency form, `op(a, b)` for throughput.
macro_rules! bench_op {
    ($c:expr, $name:literal, $a:expr, $b:expr, $start:expr,
     |$x:ident, $y:ident| $chain:expr, |$p:ident, $q:ident| $op:expr,
     mpfr_chain |$mx:ident, $my:ident| $mchain:expr, mpfr_op |$mo:ident, $mp:ident, $mq:ident| $mop:expr) => {{
        let (a, b) = (&$a, &$b);
        let mut g = $c.benchmark_group(concat!($name, "/latency"));
        latency(&mut g, "f64", $start.to_f64(), &a.f, |$x: f64, $y| $chain);
        latency(&mut g, "Dd", $start.to_dd(), &a.dd, |$x: Dd, $y| $chain);
        latency(
            &mut g,
            "TwoFloat",
            TwoFloat::from($start.to_f64()),
            &a.tf,
            |$x: TwoFloat, $y| $chain,
        );
        latency(
            &mut g,
            "qd::Double",
            qd::Double($start.to_f64(), 0.0),
            &a.qdd,
            |$x: QdDouble, $y| $chain,
        );
        latency(&mut g, "Qd", $start, &a.qd, |$x: Qd, $y| $chain);
        g.bench_function("MPFR-212", |bch| {
            let mut $mx = Float::with_val(MPFR_BITS, $start.to_f64());
            bch.iter(|| {
                $mx.assign($start.to_f64());
                for $my in &a.mp {
                    $mchain;
                }
                black_box(&$mx);
            })
        });
        g.finish();
        let mut g = $c.benchmark_group(concat!($name, "/throughput"));
        throughput(
            &mut g,
            "f64",
            &a.f,
            &b.f,
            &mut vec![0.0; N],
            |$p: f64, $q| $op,
        );
        throughput(
            &mut g,
            "Dd",
            &a.dd,
            &b.dd,
            &mut vec![Dd::ZERO; N],
            |$p: Dd, $q| $op,
        );
        throughput(
            &mut g,
            "TwoFloat",
            &a.tf,
            &b.tf,
            &mut vec![TwoFloat::from(0.0); N],
            |$p: TwoFloat, $q| $op,
        );
        throughput(
            &mut g,
            "qd::Double",
            &a.qdd,
            &b.qdd,
            &mut vec![qd::Double(0.0, 0.0); N],
            |$p: QdDouble, $q| $op,
        );
        throughput(
            &mut g,
            "Qd",
            &a.qd,
            &b.qd,
            &mut vec![Qd::ZERO; N],
            |$p: Qd, $q| $op,
        );
        g.bench_function("MPFR-212", |bch| {
            let mut out: Vec<Float> = (0..N).map(|_| Float::new(MPFR_BITS)).collect();
            bch.iter(|| {
                for i in 0..N {
                    let ($mo, $mp, $mq) = (&mut out[i], black_box(&a.mp[i]), &b.mp[i]);
                    $mop;
                }
                black_box(&out);
            })
        });
        g.finish();
    }};
}

fn arith(c: &mut Criterion) {
    let one = Qd::from_f64(0.75);
    // Sums of mixed signs, factors and divisors in [0.5, 2).
    let s1 = sets(&inputs(1, -1.0, 1.0));
    let s2 = sets(&inputs(2, -1.0, 1.0));
    let f1 = sets(&inputs(3, 0.5, 2.0));
    let f2 = sets(&inputs(4, 0.5, 2.0));
    bench_op!(
        c,
        "add",
        s1,
        s2,
        one,
        |x, y| x + y,
        |p, q| p + q,
        mpfr_chain | x,
        y | x += y,
        mpfr_op | o,
        p,
        q | o.assign(p + q)
    );
    bench_op!(
        c,
        "mul",
        f1,
        f2,
        one,
        |x, y| x * y,
        |p, q| p * q,
        mpfr_chain | x,
        y | x *= y,
        mpfr_op | o,
        p,
        q | o.assign(p * q)
    );
    bench_op!(
        c,
        "div",
        f1,
        f2,
        one,
        |x, y| y / x,
        |p, q| p / q,
        mpfr_chain | x,
        y | x.div_from(y),
        mpfr_op | o,
        p,
        q | o.assign(p / q)
    );
    bench_op!(
        c,
        "sqrt",
        f1,
        f2,
        one,
        |x, y| (x + y).sqrt(),
        |p, _q| p.sqrt(),
        mpfr_chain | x,
        y | {
            x += y;
            x.sqrt_mut()
        },
        mpfr_op | o,
        p,
        _q | o.assign(p.sqrt_ref())
    );
    let e1 = sets(&inputs(5, -20.0, 20.0));
    bench_op!(
        c,
        "exp",
        e1,
        e1,
        one,
        |x, _y| (-x).exp(),
        |p, _q| p.exp(),
        mpfr_chain | x,
        _y | {
            x.neg_assign();
            x.exp_mut()
        },
        mpfr_op | o,
        p,
        _q | o.assign(p.exp_ref())
    );
    let l1 = sets(&inputs(6, 0.01, 100.0));
    bench_op!(
        c,
        "ln",
        l1,
        f2,
        one,
        |x, y| (x + y).ln(),
        |p, _q| p.ln(),
        mpfr_chain | x,
        y | {
            x += y;
            x.ln_mut()
        },
        mpfr_op | o,
        p,
        _q | o.assign(p.ln_ref())
    );
}

/// sin and cos: the same two forms (chain `f(x + a[i])`, arguments in [-4, 4]) for every
/// subject that has them (`qd::Double` has no trigonometric functions).
fn trig(c: &mut Criterion) {
    let one = Qd::from_f64(0.75);
    let t1 = sets(&inputs(7, -4.0, 4.0));
    let t2 = sets(&inputs(8, -4.0, 4.0));
    let start_mpfr = || Float::with_val(MPFR_BITS, one.to_f64());
    for (name, cosine) in [("sin", false), ("cos", true)] {
        macro_rules! f {
            ($x:expr) => {
                if cosine {
                    $x.cos()
                } else {
                    $x.sin()
                }
            };
        }
        let mut g = c.benchmark_group(format!("{name}/latency"));
        latency(&mut g, "f64", one.to_f64(), &t1.f, |x: f64, y| f!(x + y));
        latency(&mut g, "Dd", one.to_dd(), &t1.dd, |x: Dd, y| f!(x + y));
        latency(
            &mut g,
            "TwoFloat",
            TwoFloat::from(one.to_f64()),
            &t1.tf,
            |x, y| f!(x + y),
        );
        latency(&mut g, "Qd", one, &t1.qd, |x: Qd, y| f!(x + y));
        g.bench_function("MPFR-212", |bch| {
            let mut x = start_mpfr();
            bch.iter(|| {
                x.assign(one.to_f64());
                for y in &t1.mp {
                    x += y;
                    if cosine {
                        x.cos_mut()
                    } else {
                        x.sin_mut()
                    }
                }
                black_box(&x);
            })
        });
        g.finish();
        let mut g = c.benchmark_group(format!("{name}/throughput"));
        throughput(
            &mut g,
            "f64",
            &t1.f,
            &t2.f,
            &mut vec![0.0; N],
            |p: f64, _| f!(p),
        );
        throughput(
            &mut g,
            "Dd",
            &t1.dd,
            &t2.dd,
            &mut vec![Dd::ZERO; N],
            |p: Dd, _| f!(p),
        );
        let mut out = vec![TwoFloat::from(0.0); N];
        throughput(
            &mut g,
            "TwoFloat",
            &t1.tf,
            &t2.tf,
            &mut out,
            |p: TwoFloat, _| f!(p),
        );
        throughput(
            &mut g,
            "Qd",
            &t1.qd,
            &t2.qd,
            &mut vec![Qd::ZERO; N],
            |p: Qd, _| f!(p),
        );
        g.bench_function("MPFR-212", |bch| {
            let mut out: Vec<Float> = (0..N).map(|_| Float::new(MPFR_BITS)).collect();
            bch.iter(|| {
                for (o, p) in out.iter_mut().zip(&t1.mp) {
                    if cosine {
                        o.assign(black_box(p).cos_ref())
                    } else {
                        o.assign(black_box(p).sin_ref())
                    }
                }
                black_box(&out);
            })
        });
        g.finish();
    }
}

/// atan, atan2 and asin over the arrays of bench/arith's comparison with Arb.
fn inverse(c: &mut Criterion) {
    let mut x = inputs(9, 1.0 / 3.0, 2.0 / 3.0);
    let y = inputs(10, 1.0 / 14.0, 3.0 / 14.0);
    let pairs: Vec<(Qd, Qd)> = x.iter().copied().zip(y.iter().copied()).collect();
    x.extend_from_slice(&y);
    let all = sets(&x);
    let m = |v: Qd| {
        let c = v.components();
        let mut f = Float::with_val(4 * 53, c[0]);
        for &ci in &c[1..] {
            f += ci;
        }
        Float::with_val(MPFR_BITS, &f)
    };
    for name in ["atan", "asin"] {
        let f = |v: Qd| if name == "atan" { v.atan() } else { v.asin() };
        let g_dd = |v: Dd| if name == "atan" { v.atan() } else { v.asin() };
        let mut g = c.benchmark_group(format!("{name}/throughput"));
        g.bench_function("Dd", |b| {
            let mut out = vec![Dd::ZERO; all.dd.len()];
            b.iter(|| {
                for (o, &v) in out.iter_mut().zip(&all.dd) {
                    *o = g_dd(black_box(v));
                }
                black_box(&out);
            })
        });
        g.bench_function("Qd", |b| {
            let mut out = vec![Qd::ZERO; all.qd.len()];
            b.iter(|| {
                for (o, &v) in out.iter_mut().zip(&all.qd) {
                    *o = f(black_box(v));
                }
                black_box(&out);
            })
        });
        g.bench_function("MPFR-212", |b| {
            let mut out: Vec<Float> = (0..all.mp.len()).map(|_| Float::new(MPFR_BITS)).collect();
            b.iter(|| {
                for (o, p) in out.iter_mut().zip(&all.mp) {
                    if name == "atan" {
                        o.assign(black_box(p).atan_ref())
                    } else {
                        o.assign(black_box(p).asin_ref())
                    }
                }
                black_box(&out);
            })
        });
        g.finish();
    }
    let mut g = c.benchmark_group("atan2/throughput");
    let dd: Vec<(Dd, Dd)> = pairs.iter().map(|(a, b)| (a.to_dd(), b.to_dd())).collect();
    let mp: Vec<(Float, Float)> = pairs.iter().map(|&(a, b)| (m(a), m(b))).collect();
    g.bench_function("Dd", |b| {
        let mut out = vec![Dd::ZERO; dd.len()];
        b.iter(|| {
            for (o, &(x, y)) in out.iter_mut().zip(&dd) {
                *o = black_box(y).atan2(x);
            }
            black_box(&out);
        })
    });
    g.bench_function("Qd", |b| {
        let mut out = vec![Qd::ZERO; pairs.len()];
        b.iter(|| {
            for (o, &(x, y)) in out.iter_mut().zip(&pairs) {
                *o = black_box(y).atan2(x);
            }
            black_box(&out);
        })
    });
    g.bench_function("MPFR-212", |b| {
        let mut out: Vec<Float> = (0..mp.len()).map(|_| Float::new(MPFR_BITS)).collect();
        b.iter(|| {
            for (o, (x, y)) in out.iter_mut().zip(&mp) {
                o.assign(black_box(y).atan2_ref(x));
            }
            black_box(&out);
        })
    });
    g.finish();
}

criterion_group!(benches, arith, trig, inverse);
criterion_main!(benches);
